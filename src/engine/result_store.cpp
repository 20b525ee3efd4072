// A result as pyspider's dump writes it.
#include "squall/engine/result_store.h"

namespace squall {

nlohmann::json TaskResult::to_json() const {
  return {{"taskid", taskid}, {"url", url}, {"result", result}, {"updatetime", updatetime}};
}

}  // namespace squall
