// PythonRuntime: a pyspider project script run by embedded CPython, as the engine's runtime.
//
//   auto runtime = PythonRuntime::load({.script = "tutorial.py"});  // throws if it does not load
//   Engine engine(options);
//   engine.add_project(*runtime);
//   run_sync(engine.run());
//   runtime.reset();                                 // after the loop is done with it
//
// - The interpreter (Debian's CPython 3.11, libpython3.11) runs on a thread of its own, which
//   alone ever holds the GIL. process() hands a task and its fetch result to that thread through
//   a bounded queue (`queue_size` tasks; a further process() waits on the loop for room, never
//   blocking it) and is resumed through the loop's call_soon_threadsafe when the callback is
//   done. Nothing on the loop waits on Python.
// - The script sees squall's `pyspider` package first on sys.path (the folder in
//   $SQUALL_PYTHON_PATH when set; else PREFIX/share/squall/python, where `cmake --install` puts
//   it, for an executable at PREFIX/bin/squall; else python/ in the source tree squall was
//   built from), then the system's packages (pyquery, lxml), then the script's own folder
//   (last, so a script named pyquery.py hides nothing).
//   Its Handler class (the BaseHandler subclass named Handler, else the last one it defines)
//   gives the project's retry_delay, crawl_config and @every jobs; they are read once, when the
//   script loads.
// - A callback has process_time_limit seconds (the task's `process.process_time_limit`, else
//   `time_limit`): then the loop sends the interpreter's thread a signal (SIGRTMIN+5, with
//   pthread_kill: no waiting, no GIL), whose handler raises ProcessTimeLimit (a BaseException, so
//   `except Exception` does not swallow it) in the callback, and the task fails. The handler runs
//   between two bytecodes, and a blocking call such as time.sleep() is ended early by it; a
//   callback inside one long C call that does not check for signals (a huge regex) is
//   interrupted when that call returns.
// - Given a FollowSink, a callback's follows and messages stream to it: each time the callback
//   has asked for kFollowBatch (1,000) of them, the interpreter's thread hands the batch to the
//   loop through a queue of one batch, and waits for the batch before it to be taken if it has
//   not been yet, with the GIL released (the interpreter has nothing else to run meanwhile). So
//   a callback that calls self.crawl 1,000,000 times holds at most 3,000 follows: the one the
//   loop applies, the one waiting, the one the callback fills. That wait counts in the
//   callback's time limit, as all its time does; the time limit's signal, and a stop, end it (the
//   batch is still handed on) and raise in the callback. self.crawl drops a repeated taskid
//   within a batch; across batches the scheduler drops it, as a known task.
// - The start task is on_start without force_update: on_start runs the first time the project
//   runs in a store, and not again on later runs (pyspider's `data:,on_start` task).
// - One PythonRuntime per process: CPython's extension modules (lxml) do not survive a second
//   interpreter, so load() throws InvalidStateError when one was loaded before.
// All members but load() and the destructor are for the engine's loop; the destructor stops the
// callback that runs (if any), ends the thread and finalizes the interpreter, so it must not run
// while the loop still awaits process().
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/engine/project_runtime.h"

namespace squall {

struct PythonRuntimeOptions {
  std::filesystem::path script;
  std::string project;     // the file's stem when empty
  double time_limit = 30;  // seconds, pyspider's process_time_limit
  size_t queue_size = 4;   // tasks handed to the interpreter and not done yet
  bool debugger = false;   // BaseHandler.is_debugger() answers true
};

class PythonRuntime : public ProjectRuntime {
 public:
  // Starts the interpreter's thread and loads the script; blocks until it has. Throws
  // InvalidArgumentError with the Python error (a syntax error, an exception at import, no
  // Handler class) when the script does not load, and InvalidStateError when the process
  // loaded a PythonRuntime before.
  static std::unique_ptr<PythonRuntime> load(PythonRuntimeOptions options);
  ~PythonRuntime() override;
  PythonRuntime(const PythonRuntime&) = delete;
  PythonRuntime& operator=(const PythonRuntime&) = delete;

  const std::string& project() const override { return project_; }
  RetryDelays retry_delay() const override { return retry_delay_; }
  const std::vector<CronJob>& cron_jobs() const override { return cron_jobs_; }
  CrawlTask start_task() const override;
  // queue_size: the engine hands over that many tasks at once, so the interpreter's thread
  // finds the next one waiting when it ends one.
  size_t processing_slots() const override { return queue_size_; }
  using ProjectRuntime::process;
  // The callback's output; CancelledError if the engine gives up on it (the interpreter still
  // finishes the callback, and its output is dropped). With `follows`, self.crawl's follows are
  // handed on while the callback runs (see above).
  [[nodiscard]] Task<ProcessOutput> process(const Dispatch& dispatch, FetchResult fetched,
                                            FollowSink* follows) override;

  // The Handler's crawl_config.
  const nlohmann::json& crawl_config() const noexcept { return crawl_config_; }
  // The methods a task may name as its callback, sorted: on_start and those the Handler (or a
  // class between it and BaseHandler) defines, without a leading underscore.
  const std::vector<std::string>& callbacks() const noexcept { return callbacks_; }

  struct Impl;

 private:
  explicit PythonRuntime(PythonRuntimeOptions options);

  std::string project_;
  RetryDelays retry_delay_;
  std::vector<CronJob> cron_jobs_;
  nlohmann::json crawl_config_;
  std::vector<std::string> callbacks_;
  size_t queue_size_ = 1;
  std::unique_ptr<Impl> impl_;
};

}  // namespace squall
