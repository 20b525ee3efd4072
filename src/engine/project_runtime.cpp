// ProjectRuntime: the start task every runtime has unless it says otherwise.
#include "squall/engine/project_runtime.h"

#include "squall/engine/processor.h"

namespace squall {

CrawlTask ProjectRuntime::start_task() const {
  return Processor::start_task(project());
}

}  // namespace squall
