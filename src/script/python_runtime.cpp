// PythonRuntime: the interpreter's thread, the queue to it, and the loop's side of each task.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "squall/script/python_runtime.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "python_html_tree.h"
#include "python_json.h"
#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/loop.h"
#include "squall/core/seconds.h"
#include "squall/core/semaphore.h"
#include "squall/crawl/jsonl.h"
#include "squall/engine/processor.h"
#include "squall/url/url.h"

#if !defined(SQUALL_PYTHON_DIR) || !defined(SQUALL_PYTHON_INSTALL_DIR) || \
    !defined(SQUALL_PYTHON_HOME)
#error \
    "SQUALL_PYTHON_DIR names squall's pyspider package in the source tree, \
SQUALL_PYTHON_INSTALL_DIR where it is installed under the prefix, SQUALL_PYTHON_HOME libpython's prefix"
#endif

namespace squall {

using nlohmann::json;

namespace {

constexpr size_t kMaxTrackLogBytes = 10000;

std::atomic<bool> loaded_once{false};

// The signal that interrupts a callback: one of the real-time signals, which nothing else in
// squall uses.
int interrupt_signal() {
  return SIGRTMIN + 5;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The pending Python exception as its traceback's text (the exception is cleared).
std::string python_error() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (!value) return "unknown Python error";
  if (tb) PyException_SetTraceback(value, tb);
  std::string text;
  if (PyObject* module = PyImport_ImportModule("traceback")) {
    if (PyObject* lines = PyObject_CallMethod(module, "format_exception", "O", value)) {
      if (PyObject* empty = PyUnicode_FromString("")) {
        if (PyObject* joined = PyUnicode_Join(empty, lines)) {
          if (const char* s = PyUnicode_AsUTF8(joined)) text = s;
          Py_DECREF(joined);
        }
        Py_DECREF(empty);
      }
      Py_DECREF(lines);
    }
    Py_DECREF(module);
  }
  if (text.empty()) {
    if (PyObject* s = PyObject_Str(value)) {
      if (const char* c = PyUnicode_AsUTF8(s)) text = c;
      Py_DECREF(s);
    }
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return text.empty() ? "unknown Python error" : text;
}

std::string python_text(PyObject* object) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(object, &size);
  if (!data) return {};
  return std::string(data, static_cast<size_t>(size));
}

// The last `limit` bytes of `text`, where a line starts when one does.
std::string tail(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t from = text.size() - limit;
  if (size_t nl = text.find('\n', from); nl != std::string::npos) from = nl + 1;
  return text.substr(from);
}

// Where squall's pyspider package is: $SQUALL_PYTHON_PATH when set; else where `cmake --install`
// puts it beside the executable (PREFIX/share/squall/python for PREFIX/bin/squall), so an
// installed squall moved elsewhere still finds its own; else the source tree it was built from
// (a build-tree run).
std::string python_package_dir() {
  if (const char* env = std::getenv("SQUALL_PYTHON_PATH"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path installed = exe.parent_path().parent_path() / SQUALL_PYTHON_INSTALL_DIR;
    if (std::filesystem::is_regular_file(installed / "squall_runtime.py", ec))
      return installed.string();
  }
  return SQUALL_PYTHON_DIR;
}

}  // namespace

// One task on its way to the interpreter and back. The loop owns `done`, `wake` and `timer`;
// the interpreter's thread fills `output` before handing the job back through
// call_soon_threadsafe.
struct PythonJob {
  Dispatch dispatch;
  FetchResult fetched;
  ProcessOutput output;
  uint64_t id = 0;
  double time_limit = 30;
  std::atomic<double> started{0};  // steady seconds when the interpreter took it; 0 before
  Loop* loop = nullptr;
  Event done;
  Event wake;  // a batch of follows came, or the job is done
  TimerHandle timer;
  std::shared_ptr<Semaphore> room;  // the slot it holds
  // Follows handed on while the callback runs (when process() was given a FollowSink).
  bool streaming = false;
  std::deque<std::vector<CrawlTask>> batches;  // at most one waits (under the runtime's mutex)
  bool abandoned = false;      // process() gave up on the job (under the runtime's mutex)
  size_t handed_follows = 0;   // (the interpreter's thread; read once the job is done)
  size_t handed_messages = 0;  // (the same)
  std::string follow_error;    // the first follow that was not a task (the same)
};

struct PythonRuntime::Impl {
  PythonRuntimeOptions options;
  std::thread thread;

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<PythonJob>> queue;  // at most options.queue_size: see `room`
  bool stopping = false;
  uint64_t running = 0;      // the job the interpreter runs; 0 for none (under mutex)
  double running_limit = 0;  // its time limit (under mutex)
  bool load_done = false;    // (under mutex)
  std::string load_error;    // (under mutex)
  std::string info;          // the Handler's retry_delay, cron jobs, crawl_config (JSON)
  std::atomic<uint64_t> interrupt_id{0};

  // Loop side: a slot per job handed over and not back yet.
  std::shared_ptr<Semaphore> room;
  uint64_t next_id = 0;

  // The interpreter's objects (its thread only).
  PyObject* runner = nullptr;
  std::shared_ptr<PythonJob> current;  // the job the interpreter runs (its thread only)

  static std::atomic<Impl*> live;  // the one runtime, for _squall_runtime

  explicit Impl(PythonRuntimeOptions o)
      : options(std::move(o)),
        room(std::make_shared<Semaphore>(std::max<size_t>(1, options.queue_size))) {}

  void main();
  std::string start_interpreter();
  void serve();
  void run(PythonJob& job);
  ProcessOutput output_of(const PythonJob& job, const nlohmann::json& reply,
                          const std::string& error) const;
  // A follow of the runner's answer as a task, one whose URL cannot be fetched marked bad;
  // throws squall::Error when the dict is not a task.
  CrawlTask follow_task(const nlohmann::json& follow) const;
  // Interpreter's thread, GIL held: hands a callback's batch of follows and messages to the
  // loop, waiting (the GIL released) while the batch before it has not been taken yet.
  PyObject* hand_on(PyObject* follows, PyObject* messages);

  // Asks the interpreter to raise ProcessTimeLimit in job `id` if it still runs it: a signal
  // to its thread (pthread_kill neither waits nor needs the GIL), whose Python handler asks
  // interrupt_due() and raises. A signal, not Py_AddPendingCall, because CPython 3.11 sets the
  // eval breaker for a pending call only when its caller is the interpreter's main thread,
  // and because a signal also ends a time.sleep() or a blocking read early.
  void interrupt(uint64_t id) {
    interrupt_id.store(id);
    pthread_kill(thread.native_handle(), interrupt_signal());
    // A callback waiting in hand_on() for the loop stops waiting, to take the signal.
    { std::lock_guard lock(mutex); }
    wake.notify_all();
  }
  // The message of the exception to raise in the callback that runs, or "" for none.
  std::string interrupt_due();

  // Loop side: fires at the job's time limit, counted from when the interpreter took it.
  void arm(const std::shared_ptr<PythonJob>& job, double after);
};

std::atomic<PythonRuntime::Impl*> PythonRuntime::Impl::live{nullptr};

std::string PythonRuntime::Impl::interrupt_due() {
  uint64_t id = interrupt_id.exchange(0);
  std::lock_guard lock(mutex);
  if (id == 0 || id != running) return {};
  if (stopping) return "squall is stopping: the callback was interrupted";
  return "the callback ran past its process_time_limit of " +
         std::to_string(static_cast<long long>(running_limit)) + " s";
}

namespace {

// The interpreter's built-in module _squall_runtime: SIGNAL, the signal interrupt() sends;
// interrupt_due(), the message of the time limit to raise (None when none is due); hand_on();
// and html_tree() (python_html_tree.h).
PyObject* interrupt_due(PyObject*, PyObject*) {
  PythonRuntime::Impl* self = PythonRuntime::Impl::live.load();
  std::string message = self ? self->interrupt_due() : std::string();
  if (message.empty()) Py_RETURN_NONE;
  return PyUnicode_FromStringAndSize(message.data(), static_cast<Py_ssize_t>(message.size()));
}

PyObject* hand_on(PyObject*, PyObject* args) {
  PyObject *follows = nullptr, *messages = nullptr;
  if (!PyArg_ParseTuple(args, "OO", &follows, &messages)) return nullptr;
  PythonRuntime::Impl* self = PythonRuntime::Impl::live.load();
  if (!self) {
    PyErr_SetString(PyExc_RuntimeError, "squall's runtime is not running");
    return nullptr;
  }
  return self->hand_on(follows, messages);
}

PyMethodDef runtime_methods[] = {
    {"interrupt_due", interrupt_due, METH_NOARGS, "the time limit's message, or None"},
    {"hand_on", hand_on, METH_VARARGS, "hands a batch of follows and messages to the engine"},
    {"html_tree", detail::html_tree, METH_VARARGS,
     "a page's libxml2 tree for lxml.etree.adopt_external_document, or None"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef runtime_module = {PyModuleDef_HEAD_INIT,
                              "_squall_runtime",
                              nullptr,
                              -1,
                              runtime_methods,
                              nullptr,
                              nullptr,
                              nullptr,
                              nullptr};

PyObject* init_runtime_module() {
  PyObject* module = PyModule_Create(&runtime_module);
  if (module && PyModule_AddIntConstant(module, "SIGNAL", interrupt_signal()) != 0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}

}  // namespace

void PythonRuntime::Impl::main() {
  std::string error = start_interpreter();
  {
    std::lock_guard lock(mutex);
    load_done = true;
    load_error = error;
  }
  wake.notify_all();
  if (error.empty()) serve();
  Py_CLEAR(runner);
  if (Py_IsInitialized()) Py_FinalizeEx();
}

// Starts CPython on this thread (which becomes its main thread: the one pending calls run on)
// and loads the script; the error's text, or "" when it loaded.
std::string PythonRuntime::Impl::start_interpreter() {
  // Only the interrupting signal reaches this thread (see load()).
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, interrupt_signal());
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  if (PyImport_AppendInittab("_squall_runtime", &init_runtime_module) != 0)
    return "Python did not start: its built-in module table is full";
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // signals are the loop's (a signalfd)
  config.parse_argv = 0;
  // The standard library and site-packages of the libpython squall links (Debian's), not of
  // whichever python3 comes first on PATH (a pyenv or a virtualenv of another build).
  PyStatus status = PyConfig_SetBytesString(&config, &config.home, SQUALL_PYTHON_HOME);
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status))
    return std::string("Python did not start: ") + (status.err_msg ? status.err_msg : "?");

  std::string package_dir = python_package_dir();
  std::filesystem::path script = std::filesystem::absolute(options.script);
  // squall's package first (it is what `pyspider` means), the script's folder last, so that a
  // script named like a module it uses (pyquery.py) does not hide that module.
  PyObject* path = PySys_GetObject("path");  // borrowed
  PyObject* package = PyUnicode_DecodeFSDefault(package_dir.c_str());
  PyObject* folder = PyUnicode_DecodeFSDefault(script.parent_path().c_str());
  bool added = path && package && folder && PyList_Insert(path, 0, package) == 0 &&
               PyList_Append(path, folder) == 0;
  Py_XDECREF(package);
  Py_XDECREF(folder);
  if (!added) return python_error();
  PyObject* module = PyImport_ImportModule("squall_runtime");
  if (!module)
    return "squall's pyspider package (" + package_dir + ") did not load:\n" + python_error();
  PyObject* started = PyObject_CallMethod(module, "start", "ssi", options.project.c_str(),
                                          script.c_str(), options.debugger ? 1 : 0);
  Py_DECREF(module);
  if (!started) {
    Py_XDECREF(started);
    return python_error();
  }
  PyObject* error = PyTuple_GetItem(started, 1);  // borrowed
  if (error && error != Py_None) {
    std::string text = python_text(error);
    Py_DECREF(started);
    return text;
  }
  runner = PyTuple_GetItem(started, 0);
  Py_XINCREF(runner);
  Py_DECREF(started);
  PyObject* answer = PyObject_CallMethod(runner, "info", nullptr);
  if (!answer) return python_error();
  info = python_text(answer);
  Py_DECREF(answer);
  return {};
}

// The interpreter's loop: a job at a time, the GIL released while it waits for one.
void PythonRuntime::Impl::serve() {
  for (;;) {
    std::shared_ptr<PythonJob> job;
    PyThreadState* state = PyEval_SaveThread();
    {
      std::unique_lock lock(mutex);
      wake.wait(lock, [&] { return stopping || !queue.empty(); });
      if (!stopping) {
        job = std::move(queue.front());
        current = job;
        queue.pop_front();
        running = job->id;
        running_limit = job->time_limit;
        job->started.store(steady_seconds());
      }
    }
    PyEval_RestoreThread(state);
    if (!job) return;
    run(*job);
    {
      std::lock_guard lock(mutex);
      running = 0;
      current.reset();
    }
    Loop* loop = job->loop;
    // The job goes back whole: the last reference may drop on the loop, where its Event lives.
    loop->call_soon_threadsafe([job = std::move(job)] {
      job->timer.cancel();
      job->done.set();
      job->wake.set();
      job->room->release();
    });
  }
}

void PythonRuntime::Impl::run(PythonJob& job) {
  const CrawlTask& task = job.dispatch.task;
  const FetchResult& f = job.fetched;
  json headers = json::array();
  for (const auto& [name, value] : f.headers) headers.push_back({std::string(name), value});
  json fetch = {{"status_code", f.status_code},
                {"url", f.url},
                {"orig_url", f.orig_url},
                {"headers", std::move(headers)},
                {"cookies", f.cookies},
                {"encoding", f.encoding},
                {"time", f.time},
                {"save", f.save},
                {"error", f.error.empty() ? json() : json(f.error)}};
  PyObject* task_object = detail::python_from_json(task.to_json());
  PyObject* fetch_object = task_object ? detail::python_from_json(fetch) : nullptr;
  PyObject* content =
      fetch_object
          ? PyBytes_FromStringAndSize(f.content.data(), static_cast<Py_ssize_t>(f.content.size()))
          : nullptr;
  PyObject* answer = content ? PyObject_CallMethod(runner, "process", "OOOi", task_object,
                                                   fetch_object, content, job.streaming ? 1 : 0)
                             : nullptr;
  Py_XDECREF(task_object);
  Py_XDECREF(fetch_object);
  Py_XDECREF(content);
  if (!answer) {
    job.output = output_of(job, json(), python_error());
    return;
  }
  json reply = json::object();
  std::string error;
  if (!PyDict_Check(answer)) {
    error = "squall's Python runtime gave an answer that is not a dict";
  } else {
    try {
      for (const char* key : {"ok", "exception", "time", "logs", "follows", "messages"})
        if (PyObject* value = PyDict_GetItemString(answer, key))  // borrowed
          reply[key] = detail::json_from_python(value);
    } catch (const detail::NotJsonError& e) {
      error = std::string("squall's Python runtime gave an answer that is not JSON: ") + e.what();
    }
    if (PyObject* result = PyDict_GetItemString(answer, "result")) {
      try {
        reply["result"] = detail::json_from_python(result);
      } catch (const detail::NotJsonError& e) {
        reply["ok"] = false;
        reply["exception"] = std::string("the callback's result is not JSON: ") + e.what();
      }
    }
  }
  Py_DECREF(answer);
  job.output = output_of(job, reply, error);
}

// The status pack, follows and result of a job from the runner's answer, or from the error
// that kept it from answering (when `error` is not empty).
ProcessOutput PythonRuntime::Impl::output_of(const PythonJob& job, const json& reply,
                                             const std::string& error) const {
  const Dispatch& d = job.dispatch;
  ProcessOutput out;
  bool ok = false;
  std::string exception;
  json process = {{"ok", false}, {"time", 0}, {"follows", 0}, {"messages", 0}, {"logs", ""}};
  if (!error.empty()) {
    exception = error;
  } else {
    ok = reply.value("ok", false);
    if (reply.contains("exception") && reply["exception"].is_string())
      exception = reply["exception"].get<std::string>();
    process["time"] = reply.value("time", 0.0);
    process["logs"] = tail(reply.value("logs", std::string()), kMaxTrackLogBytes);
    size_t follows = job.handed_follows;
    if (!job.follow_error.empty()) {
      ok = false;
      if (exception.empty()) exception = job.follow_error;
    }
    if (reply.contains("follows") && reply["follows"].is_array()) {
      for (const json& each : reply["follows"]) {
        try {
          out.follows.push_back(follow_task(each));
          ++follows;
        } catch (const std::exception& e) {
          ok = false;
          if (exception.empty()) exception = std::string("crawl(): ") + e.what();
        }
      }
    }
    size_t messages = job.handed_messages;
    if (reply.contains("messages") && reply["messages"].is_array()) {
      for (const json& m : reply["messages"]) {
        if (!m.is_array() || m.size() != 2 || !m[0].is_string()) continue;
        out.follows.push_back(
            Processor::message_task(options.project, m[0].get<std::string>(), m[1]));
        ++messages;
      }
    }
    process["follows"] = follows;
    process["messages"] = messages;
    if (ok && reply.contains("result") && !reply["result"].is_null())
      out.result = TaskResult{d.task.taskid, d.task.url, reply["result"], 0};
  }
  process["ok"] = ok;
  process["exception"] = exception.empty() ? json() : json(exception);
  std::string process_part;
  append_json(process_part, process);
  out.status = StatusPack::of(d, ok,
                              Processor::end_track(Processor::begin_track(job.fetched), ok,
                                                   job.fetched.content, process_part));
  return out;
}

CrawlTask PythonRuntime::Impl::follow_task(const json& follow) const {
  CrawlTask t = CrawlTask::from_json(follow, options.project);
  UrlResult url = Url::parse(t.url);
  if (!url || !(url->is_http() || url->scheme() == "data")) {
    t.status = TaskStatus::Bad;
    t.track =
        JsonText(json{{"process", {{"ok", false}, {"exception", "unparsable URL: " + t.url}}}});
  }
  return t;
}

PyObject* PythonRuntime::Impl::hand_on(PyObject* follows, PyObject* messages) {
  std::shared_ptr<PythonJob> job = current;
  if (!job || !job->streaming) {
    PyErr_SetString(PyExc_RuntimeError, "hand_on() is for a callback whose follows stream");
    return nullptr;
  }
  json f, m;
  try {
    f = detail::json_from_python(follows);
    m = detail::json_from_python(messages);
  } catch (const detail::NotJsonError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
    return nullptr;
  }
  std::vector<CrawlTask> batch;
  size_t follow_count = 0, message_count = 0;
  if (f.is_array()) {
    for (const json& each : f) {
      try {
        batch.push_back(follow_task(each));
        ++follow_count;
      } catch (const std::exception& e) {
        if (job->follow_error.empty()) job->follow_error = std::string("crawl(): ") + e.what();
      }
    }
  }
  if (m.is_array()) {
    for (const json& each : m) {
      if (!each.is_array() || each.size() != 2 || !each[0].is_string()) continue;
      batch.push_back(
          Processor::message_task(options.project, each[0].get<std::string>(), each[1]));
      ++message_count;
    }
  }
  job->handed_follows += follow_count;
  job->handed_messages += message_count;
  // The GIL is released while the loop is behind: the batch before this one is not taken yet.
  // A time limit due or a stop ends the wait (the batch is still handed on), and so does a
  // process() that gave up on the job (the batch is dropped with it).
  PyThreadState* state = PyEval_SaveThread();
  {
    std::unique_lock lock(mutex);
    wake.wait(lock, [&] {
      return job->batches.empty() || job->abandoned || stopping || interrupt_id.load() != 0;
    });
    if (!job->abandoned) job->batches.push_back(std::move(batch));
  }
  job->loop->call_soon_threadsafe([job] { job->wake.set(); });
  PyEval_RestoreThread(state);
  // The time limit's signal, if it came meanwhile, raises here.
  if (PyErr_CheckSignals() < 0) return nullptr;
  Py_RETURN_NONE;
}

void PythonRuntime::Impl::arm(const std::shared_ptr<PythonJob>& job, double after) {
  std::weak_ptr<PythonJob> weak = job;
  job->timer = job->loop->call_later(from_seconds(after), [this, weak] {
    std::shared_ptr<PythonJob> j = weak.lock();
    if (!j || j->done.is_set()) return;
    double started = j->started.load();
    double ran = started > 0 ? steady_seconds() - started : 0;
    if (started > 0 && ran >= j->time_limit)
      interrupt(j->id);
    else
      arm(j, j->time_limit - ran);
  });
}

PythonRuntime::PythonRuntime(PythonRuntimeOptions options) {
  if (options.project.empty()) options.project = options.script.stem().string();
  project_ = options.project;
  queue_size_ = std::max<size_t>(1, options.queue_size);
  impl_ = std::make_unique<Impl>(std::move(options));
}

std::unique_ptr<PythonRuntime> PythonRuntime::load(PythonRuntimeOptions options) {
  if (loaded_once.exchange(true))
    throw InvalidStateError(
        "a process runs one Python runtime: CPython's extension modules (lxml) do not survive "
        "a second interpreter");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(options.script, ec))
    throw InvalidArgumentError("no project script at " + options.script.string());
  std::unique_ptr<PythonRuntime> rt(new PythonRuntime(std::move(options)));
  Impl& im = *rt->impl_;
  Impl::live.store(&im);
  // The interpreter's thread takes no signal: they are the loop's (blocked there, read from a
  // signalfd), and one delivered to this thread would kill the process.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  im.thread = std::thread([&im] { im.main(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  std::string error;
  {
    std::unique_lock lock(im.mutex);
    im.wake.wait(lock, [&] { return im.load_done; });
    error = im.load_error;
  }
  if (!error.empty()) {
    im.thread.join();
    Impl::live.store(nullptr);
    throw InvalidArgumentError(rt->project_ + ": the script did not load:\n" + error);
  }
  json info = json::parse(im.info, nullptr, false);
  if (info.is_object()) {
    const json& delays = info["retry_delay"];
    if (delays.is_object() && !delays.empty()) rt->retry_delay_ = RetryDelays::from_json(delays);
    for (const json& job : info["cron"])
      if (job.is_array() && job.size() == 2 && job[1].is_number_integer())
        rt->cron_jobs_.push_back(CronJob{job[0].get<std::string>(), job[1].get<int64_t>(), {}});
    rt->crawl_config_ = info["crawl_config"];
    for (const json& name : info["callbacks"])
      if (name.is_string()) rt->callbacks_.push_back(name.get<std::string>());
  }
  return rt;
}

PythonRuntime::~PythonRuntime() {
  Impl& im = *impl_;
  uint64_t running;
  {
    std::lock_guard lock(im.mutex);
    im.stopping = true;
    im.queue.clear();
    running = im.running;
  }
  im.wake.notify_all();
  if (running) im.interrupt(running);
  if (im.thread.joinable()) im.thread.join();
  Impl::live.store(nullptr);
}

CrawlTask PythonRuntime::start_task() const {
  CrawlTask t = Processor::start_task(project_);
  t.schedule.force_update = false;
  return t;
}

Task<ProcessOutput> PythonRuntime::process(const Dispatch& dispatch, FetchResult fetched,
                                           FollowSink* follows) {
  Impl& im = *impl_;
  std::shared_ptr<Semaphore> room = im.room;
  co_await room->acquire();
  auto job = std::make_shared<PythonJob>();
  job->dispatch = dispatch;
  job->fetched = std::move(fetched);
  job->id = ++im.next_id;
  job->loop = &Loop::current();
  job->time_limit = im.options.time_limit;
  const json& limit = dispatch.task.process.contains("process_time_limit")
                          ? dispatch.task.process["process_time_limit"]
                          : json();
  if (limit.is_number() && limit.get<double>() > 0) job->time_limit = limit.get<double>();
  // The slot is given back when the interpreter hands the job back, even if this coroutine was
  // cancelled meanwhile: the queue to the interpreter never holds more than queue_size jobs.
  job->room = room;
  job->streaming = follows != nullptr;
  {
    std::lock_guard lock(im.mutex);
    if (im.stopping) throw InvalidStateError("the Python runtime is stopping");
    im.queue.push_back(job);
  }
  im.wake.notify_one();
  im.arm(job, job->time_limit);
  struct Pending {
    Impl& im;
    std::shared_ptr<PythonJob> job;
    Loop::KeepAlive alive;  // the interpreter is to call_soon_threadsafe
    ~Pending() {
      job->timer.cancel();
      {
        std::lock_guard lock(im.mutex);
        job->abandoned = true;
        job->batches.clear();
      }
      im.wake.notify_all();
    }
  } pending{im, job, Loop::KeepAlive(*job->loop)};
  // The batches come before the job is done (the interpreter's thread hands them on first), so
  // when it is done and none is left, every follow was taken.
  for (;;) {
    std::vector<CrawlTask> batch;
    bool taken = false;
    {
      std::lock_guard lock(im.mutex);
      if (!job->batches.empty()) {
        batch = std::move(job->batches.front());
        job->batches.pop_front();
        taken = true;
      }
    }
    if (taken) {
      im.wake.notify_all();
      co_await follows->take(std::move(batch));
      continue;
    }
    if (job->done.is_set()) break;
    job->wake.clear();
    co_await job->wake.wait();
  }
  co_return std::move(job->output);
}

}  // namespace squall
