// ControlServer: the routes, each a small function over the engine, behind one guard that
// checks credentials and turns a bad request into a JSON error.
#include "squall/control/control_server.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "squall/control/cluster_view.h"
#include "squall/control/curl_command.h"
#include "squall/control/dashboard.h"
#include "squall/control/debug_step.h"
#include "squall/control/engine_metrics.h"
#include "squall/control/prometheus.h"
#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/log.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/crawl/jsonl.h"
#include "squall/engine/engine.h"
#include "squall/http/web.h"
#include "squall/http/websocket_handler.h"
#include "squall/url/ascii.h"
#include "squall/url/base64.h"

namespace squall {

using http::StatusError;
using nlohmann::json;
using Request = http::Request;
using Reply = http::Response;

namespace {

constexpr size_t kDefaultPage = 50;
constexpr size_t kMaxPage = 1000;
constexpr size_t kDumpPage = 500;
// Debug steps in flight at once: each holds its page's body until it answers.
constexpr size_t kDebugSteps = 4;
// A live feed whose client has this much unread is skipped until it catches up.
constexpr size_t kFeedBacklog = 1 << 20;

std::string dump(const json& value) {
  std::string out;
  append_json(out, value);
  return out;
}

Task<void> send_json(Reply& resp, const json& value, int status = 200) {
  resp.set_status(status);
  resp.headers().set("Content-Type", "application/json");
  resp.headers().set("Cache-Control", "no-store");
  co_await resp.finish(dump(value) + "\n");
}

bool loopback(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  return host.starts_with("127.");
}

json rate_json(double v) {
  return std::isinf(v) ? json() : json(v);
}

// A rate or burst from a body: a number ≥ 0, or null for no limit.
double limit_from(const json& v, const char* key) {
  if (v.is_null()) return std::numeric_limits<double>::infinity();
  if (!v.is_number() || v.get<double>() < 0 || !std::isfinite(v.get<double>()))
    throw StatusError(400,
                      std::string(key) + " must be a number of 0 or more, or null for no limit");
  return v.get<double>();
}

int64_t int_argument(const Request& req, std::string_view name, int64_t otherwise, int64_t min,
                     int64_t max) {
  std::optional<std::string_view> text = req.query_argument(name);
  if (!text || text->empty()) return otherwise;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < min || v > max)
    throw StatusError(400, std::string(name) + "= must be a whole number from " +
                               std::to_string(min) + " to " + std::to_string(max));
  return v;
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get_ref<const std::string&>());
  return csv_field(dump(v));
}

}  // namespace

class LiveFeed;

struct ControlServer::State {
  Engine* engine_or_null;
  ControlOptions options;
  std::string expected_auth;                      // the whole Authorization value, "Basic ..."
  std::unique_ptr<EngineMetrics> engine_metrics;  // with an engine only
  std::unique_ptr<ClusterView> cluster;           // with options.cluster_redis only
  http::Application app;
  http::HttpServer* server = nullptr;
  std::set<LiveFeed*> feeds;
  Event watched;  // set while a feed is open
  std::optional<TaskHandle<void>> broadcaster;
  uint64_t last_pages = 0;
  size_t debug_steps = 0;  // POST /api/debug in flight
  bool stopping = false;

  State(Engine* e, ControlOptions o) : engine_or_null(e), options(std::move(o)) {
    if (engine_or_null) engine_metrics = std::make_unique<EngineMetrics>(*engine_or_null);
    if (!options.cluster_redis.empty())
      cluster = std::make_unique<ClusterView>(
          ClusterViewOptions{.redis = options.cluster_redis, .ns = options.cluster_namespace});
  }

  // The engine of a route that needs one; 501 where the server watches a cluster without one.
  Engine& engine() {
    if (!engine_or_null)
      throw StatusError(501,
                        "this control server watches a cluster through its Redis and runs no "
                        "engine of its own: it serves GET /api/cluster, /metrics and the "
                        "dashboard; the projects, tasks and results are in the scheduler's and "
                        "the result worker's stores");
    return *engine_or_null;
  }
  EngineMetrics& metrics() {
    engine();
    return *engine_metrics;
  }
  ClusterView& cluster_view() {
    if (!cluster)
      throw StatusError(404,
                        "this control server watches no cluster: squall status --redis URL "
                        "--port N serves one, and so does a component (squall fetcher ...) "
                        "given --port");
    return *cluster;
  }

  bool authorized(const Request& req) const {
    if (expected_auth.empty()) return true;
    std::optional<std::string_view> given = req.header("Authorization");
    return given && *given == expected_auth;
  }

  Task<void> unauthorized(Reply& resp) {
    resp.headers().set("WWW-Authenticate", "Basic realm=\"squall\", charset=\"UTF-8\"");
    json body = {{"error", std::string("credentials are required (HTTP Basic, --auth)")}};
    co_await send_json(resp, body, 401);
  }

  Scheduler& scheduler() {
    Scheduler* s = engine().scheduler();
    if (!s) throw StatusError(503, "the engine has not opened its store yet: try again shortly");
    return *s;
  }
  EngineStore& store() {
    scheduler();
    return *engine().store();
  }
  EngineStore& result_store() {
    scheduler();
    return *engine().result_store();
  }

  // The project a request names (?project=, or the only one the engine runs); 404 for one the
  // engine does not run.
  std::string project_of(const Request& req) {
    std::vector<std::string> names = engine().projects();
    std::optional<std::string_view> given = req.query_argument("project");
    if (!given || given->empty()) {
      if (names.size() == 1) return names[0];
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw StatusError(400, "project= is required (projects: " + list + ")");
    }
    return known_project(std::string(*given));
  }
  std::string known_project(std::string name) {
    std::vector<std::string> names = engine().projects();
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw StatusError(404, "no project '" + name + "'");
    return name;
  }

  json project_json(const std::string& name) {
    Scheduler& s = scheduler();
    json out = {{"name", name}};
    if (const ProjectInfo* info = s.project(name)) {
      out["group"] = info->group;
      out["status"] = std::string(project_status_name(info->status));
      out["rate"] = rate_json(info->rate);
      out["burst"] = rate_json(info->burst);
      out["updatetime"] = info->updatetime;
    }
    out["counters"] = s.counters(name);
    // The callbacks the debugger may step; null for a project without a script runtime.
    out["callbacks"] = nullptr;
    for (const DebuggableProject& d : options.debug)
      if (d.runtime && d.runtime->project() == name) out["callbacks"] = d.callbacks;
    Scheduler::Held held = s.held(name);
    out["held"] = {{"ready", held.ready}, {"delayed", held.delayed}, {"in_work", held.in_work}};
    return out;
  }

  json queues_json() {
    json out = json::object();
    json sched = json::object();
    if (Scheduler* s = engine().scheduler())
      for (const std::string& name : engine().projects()) {
        Scheduler::Held held = s->held(name);
        sched[name] = {{"ready", held.ready}, {"delayed", held.delayed}, {"in_work", held.in_work}};
      }
    out["scheduler"] = sched;
    const FetchStage* stage = engine().fetch_stage();
    out["fetcher"] = {{"queued", stage ? stage->queued() : 0},
                      {"fetching", stage ? stage->in_flight() : 0},
                      {"room", stage ? stage->room() : 0}};
    out["processor"] = {{"queued", engine().processing_queued()}};
    out["in_flight"] = engine().in_flight();
    return out;
  }

  json counters_json() {
    Scheduler& s = scheduler();
    json out = json::object();
    for (const std::string& name : engine().projects()) out[name] = s.counters(name);
    return out;
  }

  // What a live feed gets every second: the engine's state, the cluster's, or both.
  Task<json> snapshot() {
    json out = {{"engine", engine_or_null != nullptr}};
    json cluster_json;
    if (cluster) {
      try {
        cluster_json = json(co_await cluster->read());
      } catch (const std::exception& e) {
        cluster_json = {{"redis", cluster->peer()},
                        {"namespace", cluster->ns()},
                        {"error", std::string("cannot read the cluster: ") + e.what()}};
      }
      out["cluster"] = cluster_json;
    }
    if (!engine_or_null) {
      // Without an engine the chart follows the cluster's fetchers.
      uint64_t pages = 0;
      double rate = 0;
      for (const json& c : cluster_json.value("components", json::array()))
        if (c["role"] == "fetcher") {
          pages += c["handled"].get<uint64_t>();
          if (c["rate"].is_number()) rate += c["rate"].get<double>();
        }
      out["time"] =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
              .count();
      out["pages"] = pages;
      out["pages_per_second"] = std::lround(rate);
      co_return out;
    }
    uint64_t pages = metrics().pages();
    out["time"] = engine().scheduler() ? engine().scheduler()->now() : 0.0;
    out["pages"] = pages;
    out["pages_per_second"] = pages - last_pages;
    out["queues"] = queues_json();
    out["loop_lag"] = metrics().loop_lag();
    last_pages = pages;
    if (engine().scheduler()) {
      json projects = json::array();
      for (const std::string& name : engine().projects()) projects.push_back(project_json(name));
      out["projects"] = std::move(projects);
    }
    co_return out;
  }

  Task<void> broadcast();
};

// /api/live: the dashboard's feed, one JSON snapshot a second while it is open.
class LiveFeed : public http::WebSocketHandler {
 public:
  explicit LiveFeed(ControlServer::State* state) : state_(state) {}
  Task<void> prepare() override {
    if (!state_->authorized(request())) co_await state_->unauthorized(response());
  }
  Task<void> open() override {
    state_->feeds.insert(this);
    state_->watched.set();
    co_return;
  }
  void on_close() override { state_->feeds.erase(this); }
  Task<void> on_message(http::WsMessage) override { co_return; }

  void send(const std::string& text) {
    if (close_code() || websocket().buffered_amount() > kFeedBacklog) return;
    try {
      // The frame is queued at the call; nothing waits for the client to read it.
      Task<void> queued = write_message(text);
      (void)queued;
    } catch (const Error&) {
    }
  }

 private:
  ControlServer::State* state_;
};

Task<void> ControlServer::State::broadcast() {
  last_pages = engine_metrics ? engine_metrics->pages() : 0;
  for (;;) {
    if (feeds.empty()) {
      // Nobody watches: nothing is sampled until a feed opens.
      watched.clear();
      co_await watched.wait();
      last_pages = engine_metrics ? engine_metrics->pages() : 0;
    }
    co_await sleep(std::chrono::seconds(1));
    if (feeds.empty()) continue;
    std::string text = dump(co_await snapshot());
    std::vector<LiveFeed*> now(feeds.begin(), feeds.end());
    for (LiveFeed* feed : now)
      if (feeds.contains(feed)) feed->send(text);
  }
}

namespace {

using State = ControlServer::State;
using Route = Task<void> (*)(State&, Request&, Reply&);

// The guard every route runs behind.
http::RouteFunction guarded(State* s, Route route) {
  return [s, route](Request& req, Reply& resp) -> Task<void> {
    if (!s->authorized(req)) {
      co_await s->unauthorized(resp);
      co_return;
    }
    int status = 0;
    std::string message;
    try {
      co_await route(*s, req, resp);
    } catch (const StatusError& e) {
      if (resp.headers_sent()) throw;
      status = e.status();
      message = e.detail().empty() ? std::string(e.what()) : e.detail();
    } catch (const InvalidArgumentError& e) {
      if (resp.headers_sent()) throw;
      status = 400;
      message = e.what();
    }
    if (status) {
      json body = {{"error", message}};
      co_await send_json(resp, body, status);
    }
  };
}

Task<json> json_body(Request& req) {
  std::string_view text = co_await req.body();
  if (text.empty()) throw StatusError(400, "the body is empty: send a JSON document");
  try {
    co_return json::parse(text);
  } catch (const json::parse_error& e) {
    throw StatusError(400, std::string("the body is not valid JSON: ") + e.what());
  }
}

// A page's cursor for the client: null once nothing is left.
json next_cursor(const std::string& next) {
  return next.empty() ? json() : json(next);
}

// The projects in name order, after the cursor: the last name of the page before.
Task<void> get_projects(State& s, Request& req, Reply& resp) {
  s.scheduler();
  std::string after(req.query_argument("after").value_or(""));
  size_t limit = static_cast<size_t>(int_argument(req, "limit", kDefaultPage, 1, kMaxPage));
  std::vector<std::string> names = s.engine().projects();
  std::sort(names.begin(), names.end());
  auto from = after.empty() ? names.begin() : std::upper_bound(names.begin(), names.end(), after);
  auto to =
      from + static_cast<std::ptrdiff_t>(std::min(limit, static_cast<size_t>(names.end() - from)));
  json out = json::array();
  for (auto it = from; it != to; ++it) out.push_back(s.project_json(*it));
  json reply = {{"projects", out},
                {"next", next_cursor(to != names.end() ? *std::prev(to) : std::string())}};
  co_await send_json(resp, reply);
}

Task<void> patch_project(State& s, Request& req, Reply& resp) {
  Scheduler& sched = s.scheduler();
  std::string name = s.known_project(std::string(req.path_param("name").value_or("")));
  json body = co_await json_body(req);
  if (!body.is_object())
    throw StatusError(400, "the body must be an object: {\"status\", \"rate\", \"burst\"}");
  const ProjectInfo* current = sched.project(name);
  if (!current) throw StatusError(404, "no project '" + name + "'");
  ProjectInfo info = *current;
  for (const auto& [key, v] : body.items()) {
    if (key == "status") {
      std::optional<ProjectStatus> st;
      if (v.is_string()) {
        std::string upper = v.get<std::string>();
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        st = parse_project_status(upper);
      }
      if (!st) throw StatusError(400, "status must be one of RUNNING, STOP, TODO, CHECKING, DEBUG");
      info.status = *st;
    } else if (key == "rate") {
      info.rate = limit_from(v, "rate");
    } else if (key == "burst") {
      info.burst = limit_from(v, "burst");
    } else {
      throw StatusError(400, "unknown field '" + key + "': a project takes status, rate and burst");
    }
  }
  if (!co_await s.engine().update_project(info))
    throw StatusError(404, "no project '" + name + "'");
  log(LogLevel::Info,
      "control: project " + name + " set to " + std::string(project_status_name(info.status)));
  co_await send_json(resp, s.project_json(name));
}

Task<void> get_counters(State& s, Request&, Reply& resp) {
  co_await send_json(resp, s.counters_json());
}

Task<void> get_queues(State& s, Request&, Reply& resp) {
  co_await send_json(resp, s.queues_json());
}

Task<void> get_hosts(State& s, Request&, Reply& resp) {
  json reply = {{"hosts", s.metrics().hosts()}};
  co_await send_json(resp, reply);
}

Task<void> get_errors(State& s, Request&, Reply& resp) {
  json reply = {{"errors", s.metrics().recent_errors()}};
  co_await send_json(resp, reply);
}

// The engine's metrics, the cluster's, or both; a cluster whose Redis cannot be read is
// squall_cluster_up 0 and the rest.
Task<void> get_metrics(State& s, Request&, Reply& resp) {
  std::string text = s.engine_metrics ? s.engine_metrics->prometheus() : std::string();
  if (s.cluster) {
    PrometheusText cluster;
    try {
      co_await s.cluster->prometheus(cluster);
    } catch (const std::exception& e) {
      log(LogLevel::Warning,
          std::string("control: /metrics: cannot read the cluster: ") + e.what());
    }
    text += cluster.text();
  }
  resp.headers().set("Content-Type", PrometheusText::kContentType);
  co_await resp.finish(text);
}

Task<void> get_cluster(State& s, Request&, Reply& resp) {
  ClusterView& view = s.cluster_view();
  std::string text;
  try {
    text = (co_await view.read()).dump();
  } catch (const InvalidArgumentError&) {
    throw;
  } catch (const std::exception& e) {
    throw StatusError(503, "cannot read the cluster from Redis at " + view.peer() + ": " +
                               e.what() + " (is redis-server running there?)");
  }
  resp.set_status(200);
  resp.headers().set("Content-Type", "application/json");
  resp.headers().set("Cache-Control", "no-store");
  co_await resp.finish(text + "\n");
}

json task_summary(const CrawlTask& t) {
  json out = {{"taskid", t.taskid},
              {"project", t.project},
              {"url", t.url},
              {"status", std::string(task_status_name(t.status))},
              {"retried", t.schedule.retried},
              {"lastcrawltime", t.lastcrawltime},
              {"updatetime", t.updatetime}};
  const json track = t.track.read();
  if (auto f = track.find("fetch"); f != track.end() && f->is_object()) {
    out["status_code"] = f->value("status_code", json());
    out["error"] = f->value("error", json());
  }
  return out;
}

Task<void> get_tasks(State& s, Request& req, Reply& resp) {
  EngineStore& store = s.store();
  std::string project = s.project_of(req);
  std::optional<TaskStatus> status;
  if (auto st = req.query_argument("status"); st && !st->empty()) {
    status = parse_task_status(*st);
    if (!status) throw StatusError(400, "status= must be active, success, failed or bad");
  }
  std::string search(req.query_argument("search").value_or(""));
  std::string after(req.query_argument("after").value_or(""));
  size_t limit = static_cast<size_t>(int_argument(req, "limit", kDefaultPage, 1, kMaxPage));
  EngineStore::TaskPage page = co_await store.browse_tasks(project, status, search, after, limit);
  json tasks = json::array();
  for (const CrawlTask& t : page.tasks) tasks.push_back(task_summary(t));
  json reply = {{"tasks", tasks}, {"next", next_cursor(page.next)}};
  co_await send_json(resp, reply);
}

Task<void> get_task(State& s, Request& req, Reply& resp) {
  EngineStore& store = s.store();
  std::string project = s.project_of(req);
  std::string taskid(req.path_param("taskid").value_or(""));
  std::optional<CrawlTask> task = co_await store.get(project, taskid);
  if (!task) throw StatusError(404, "no task '" + taskid + "' in project '" + project + "'");
  json out = task->to_json();
  out["status"] = std::string(task_status_name(task->status));
  co_await send_json(resp, out);
}

Task<void> post_tasks(State& s, Request& req, Reply& resp) {
  s.scheduler();
  json body = co_await json_body(req);
  json list = body.is_object() && body.contains("tasks") ? body["tasks"] : body;
  if (list.is_object()) list = json::array({list});
  if (!list.is_array() || list.empty())
    throw StatusError(400,
                      "the body must be a task ({\"url\", \"project\", ...}), a list of "
                      "them, or {\"tasks\": [...]}");
  std::string fallback(req.query_argument("project").value_or(""));
  std::vector<std::string> names = s.engine().projects();
  if (fallback.empty() && names.size() == 1) fallback = names[0];
  std::vector<CrawlTask> tasks;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object())
      throw StatusError(400, "task " + std::to_string(i) + " is not an object");
    try {
      tasks.push_back(CrawlTask::from_json(list[i], fallback));
    } catch (const Error& e) {
      throw StatusError(400, "task " + std::to_string(i) + ": " + e.what());
    }
    s.known_project(tasks.back().project);
  }
  RequestCounts c = co_await s.engine().request(std::move(tasks));
  json reply = {{"inserted", c.inserted}, {"restarted", c.restarted}, {"cancelled", c.cancelled},
                {"dropped", c.dropped},   {"postponed", c.postponed}, {"rejected", c.rejected}};
  co_await send_json(resp, reply);
}

Task<void> post_fetch(State& s, Request& req, Reply& resp) {
  s.scheduler();
  Fetcher* fetcher = s.engine().fetcher();
  if (!fetcher) throw StatusError(503, "the engine's fetcher has not started yet");
  std::string_view text = co_await req.body();
  std::string_view trimmed = text;
  while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\n'))
    trimmed.remove_prefix(1);
  json task;
  if (trimmed.starts_with("curl ")) {
    task = task_from_curl(trimmed);
  } else {
    task = co_await json_body(req);
    if (task.is_object() && task.contains("curl")) {
      if (!task["curl"].is_string()) throw StatusError(400, "curl must be a command line string");
      task = task_from_curl(task["curl"].get<std::string>());
    }
  }
  if (!task.is_object() || !task.contains("url") || !task["url"].is_string())
    throw StatusError(400,
                      "the body must be a task with a url ({\"url\": ..., \"fetch\": {...}}), "
                      "{\"curl\": \"curl ...\"} or a curl command line");
  if (task.contains("fetch") && !task["fetch"].is_object())
    throw StatusError(400, "fetch must be an object of fetch options");
  std::string project = task.value("project", std::string("_api"));
  CrawlTask t = CrawlTask::for_url(project, task["url"].get<std::string>());
  if (task.contains("fetch")) t.fetch = task["fetch"];
  if (task.contains("process") && task["process"].is_object()) t.process = task["process"];
  // Not in the metrics or the host table: those count what the engine's projects fetch.
  FetchResult r = co_await fetcher->fetch(t);
  json out = r.to_json();
  out["ok"] = r.error.empty() && r.status_code < 400;
  co_await send_json(resp, out);
}

// Reads an optional string field of a debug request.
std::string string_field(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return {};
  if (!it->is_string()) throw StatusError(400, std::string(key) + " must be a string");
  return it->get<std::string>();
}

Task<void> post_debug(State& s, Request& req, Reply& resp) {
  json body = co_await json_body(req);
  if (!body.is_object())
    throw StatusError(400, "the body must be an object: {\"project\", \"url\", \"callback\"}");
  for (const auto& [key, v] : body.items())
    if (key != "project" && key != "url" && key != "callback" && key != "fetch")
      throw StatusError(
          400, "unknown field '" + key + "': a debug step takes project, url, callback and fetch");
  DebugRequest request{.url = string_field(body, "url"),
                       .callback = string_field(body, "callback")};
  if (auto fetch = body.find("fetch"); fetch != body.end() && !fetch->is_null()) {
    if (!fetch->is_object()) throw StatusError(400, "fetch must be an object of fetch options");
    request.fetch = *fetch;
  }
  std::string project = string_field(body, "project");
  if (project.empty()) {
    std::vector<std::string> names = s.engine().projects();
    if (names.size() != 1) throw StatusError(400, "project is required");
    project = names[0];
  }
  s.known_project(project);
  auto target = std::find_if(
      s.options.debug.begin(), s.options.debug.end(),
      [&](const DebuggableProject& d) { return d.runtime && d.runtime->project() == project; });
  if (target == s.options.debug.end())
    throw StatusError(409, "project '" + project +
                               "' has no script runtime: the debugger steps the callbacks of a "
                               "Python project (squall run PROJECT.py --port N)");
  bool start = request.url == "on_start" || (request.url.empty() && request.callback == "on_start");
  if (!start) {
    std::string list;
    for (const std::string& c : target->callbacks) list += (list.empty() ? "" : ", ") + c;
    if (request.url.empty()) throw StatusError(400, "url is required (or on_start)");
    if (request.callback.empty())
      throw StatusError(400, "callback is required (callbacks: " + list + ")");
    if (std::find(target->callbacks.begin(), target->callbacks.end(), request.callback) ==
        target->callbacks.end())
      throw StatusError(404, "project '" + project + "' has no callback '" + request.callback +
                                 "' (callbacks: " + list + ")");
  }
  CrawlTask task = debug_task(*target->runtime, request);
  Fetcher* fetcher = s.engine().fetcher();
  if (!fetcher)
    throw StatusError(503, "the engine's fetcher has not started yet: try again shortly");
  if (s.debug_steps >= kDebugSteps)
    throw StatusError(503, std::to_string(kDebugSteps) +
                               " debug steps are running: try again when one has answered");
  ++s.debug_steps;
  struct Release {
    size_t& count;
    ~Release() { --count; }
  } release{s.debug_steps};
  log(LogLevel::Info,
      "control: debug step of " + project + ": " + task.url + " -> " + task.callback());
  DebugStep step = co_await run_debug_step(*target->runtime, *fetcher, std::move(task));
  co_await send_json(resp, step.to_json());
}

Task<void> get_results(State& s, Request& req, Reply& resp) {
  EngineStore& store = s.result_store();
  std::string project = s.project_of(req);
  std::string search(req.query_argument("search").value_or(""));
  std::string after(req.query_argument("after").value_or(""));
  size_t limit = static_cast<size_t>(int_argument(req, "limit", kDefaultPage, 1, kMaxPage));
  EngineStore::ResultPage page = co_await store.browse_results(project, search, after, limit);
  json results = json::array();
  for (const TaskResult& r : page.results) results.push_back(r.to_json());
  json reply = {{"results", results}, {"next", next_cursor(page.next)}};
  co_await send_json(resp, reply);
}

Task<void> dump_results(State& s, Request& req, Reply& resp) {
  EngineStore& store = s.result_store();
  std::string file(req.path_param("file").value_or(""));
  size_t dot = file.rfind('.');
  std::string format = dot == std::string::npos ? "" : file.substr(dot + 1);
  if (format != "json" && format != "jsonl" && format != "csv")
    throw StatusError(404, "a dump is /api/results/dump/PROJECT.json, .jsonl or .csv");
  std::string project = s.known_project(file.substr(0, dot));
  resp.headers().set("Content-Type", format == "json"    ? "application/json"
                                     : format == "jsonl" ? "application/x-ndjson"
                                                         : "text/csv; charset=utf-8");
  std::string after;
  bool first = true;
  std::vector<std::string> columns;
  if (format == "json") co_await resp.write("[");
  // A page at a time, each sent before the next is read: memory holds one page.
  for (;;) {
    EngineStore::ResultPage page = co_await store.browse_results(project, "", after, kDumpPage);
    std::string out;
    if (format == "csv" && first) {
      // The columns: the fields of the first page's results, in the order they appear; the
      // fields of later results that are not among them go, as JSON, in the "..." column.
      for (const TaskResult& r : page.results)
        if (r.result.is_object())
          for (const auto& [key, v] : r.result.items())
            if (columns.size() < 64 &&
                std::find(columns.begin(), columns.end(), key) == columns.end())
              columns.push_back(key);
      out += "taskid,url";
      for (const std::string& c : columns) out += "," + csv_field(c);
      out += ",...,updatetime\r\n";
    }
    for (const TaskResult& r : page.results) {
      if (format == "json") {
        out += first ? "\n" : ",\n";
        out += dump(r.to_json());
      } else if (format == "jsonl") {
        out += dump(r.to_json()) + "\n";
      } else {
        out += csv_field(r.taskid) + "," + csv_field(r.url);
        json rest = json::object();
        if (r.result.is_object()) {
          for (const std::string& c : columns)
            out += "," + (r.result.contains(c) ? csv_value(r.result[c]) : std::string());
          for (const auto& [key, v] : r.result.items())
            if (std::find(columns.begin(), columns.end(), key) == columns.end()) rest[key] = v;
        } else {
          for (size_t i = 0; i < columns.size(); ++i) out += ",";
          rest["result"] = r.result;
        }
        out += "," + (rest.empty() ? std::string() : csv_field(dump(rest)));
        out += "," + csv_value(r.updatetime) + "\r\n";
      }
      first = false;
    }
    if (format == "csv") first = false;
    co_await resp.write(out);
    co_await resp.flush();
    if (page.next.empty()) break;
    after = std::move(page.next);
  }
  if (format == "json") co_await resp.write(first ? "]\n" : "\n]\n");
  co_await resp.finish();
}

Task<void> get_dashboard(State&, Request&, Reply& resp) {
  resp.headers().set("Content-Type", "text/html; charset=utf-8");
  resp.headers().set("Cache-Control", "no-cache");
  co_await resp.finish(dashboard_page());
}

Task<void> not_found(State&, Request& req, Reply&) {
  throw StatusError(404, "no route " + std::string(req.path()));
  co_return;
}

}  // namespace

ControlServer::ControlServer(Engine& engine, ControlOptions options)
    : state_(std::make_shared<State>(&engine, std::move(options))) {
  routes();
}

ControlServer::ControlServer(ControlOptions options) {
  if (options.cluster_redis.empty())
    throw InvalidArgumentError(
        "control: a control server without an engine watches a cluster: give its Redis "
        "(cluster_redis, --redis)");
  state_ = std::make_shared<State>(nullptr, std::move(options));
  routes();
}

void ControlServer::routes() {
  State& s = *state_;
  if (!s.options.auth.empty()) {
    if (s.options.auth.find(':') == std::string::npos)
      throw InvalidArgumentError("control: --auth must be user:password");
    s.expected_auth = "Basic " + base64_encode(s.options.auth);
  } else if (!loopback(s.options.bind)) {
    throw InvalidArgumentError("control: listening on " + s.options.bind +
                               " (not loopback) requires --auth user:password");
  }
  State* p = &s;
  http::ApplicationOptions app_options;
  app_options.not_found = guarded(p, not_found);
  s.app = http::Application({}, std::move(app_options));
  s.app.add("GET", "/", guarded(p, get_dashboard));
  s.app.add("GET", "/metrics", guarded(p, get_metrics));
  s.app.add("POST", "/api/fetch", guarded(p, post_fetch));
  s.app.add("POST", "/api/debug", guarded(p, post_debug));
  s.app.add("POST", "/api/tasks", guarded(p, post_tasks));
  s.app.add("GET", "/api/tasks", guarded(p, get_tasks));
  s.app.add("GET", "/api/tasks/{taskid}", guarded(p, get_task));
  s.app.add("GET", "/api/projects", guarded(p, get_projects));
  s.app.add("PATCH", "/api/projects/{name}", guarded(p, patch_project));
  s.app.add("GET", "/api/results", guarded(p, get_results));
  s.app.add("GET", "/api/results/dump/{file}", guarded(p, dump_results));
  s.app.add("GET", "/api/counters", guarded(p, get_counters));
  s.app.add("GET", "/api/queues", guarded(p, get_queues));
  s.app.add("GET", "/api/hosts", guarded(p, get_hosts));
  s.app.add("GET", "/api/errors", guarded(p, get_errors));
  s.app.add("GET", "/api/cluster", guarded(p, get_cluster));
  s.app.add({"/api/live", http::handler<LiveFeed>(p)});
}

ControlServer::~ControlServer() {
  if (state_->broadcaster) state_->broadcaster->kill();
  if (state_->engine_metrics) state_->engine_metrics->stop();
  if (state_->cluster) state_->cluster->close();
}

void ControlServer::start() {
  State& s = *state_;
  std::string host = s.options.bind == "localhost" ? "127.0.0.1" : s.options.bind;
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  s.server = &s.app.listen(s.options.port, host);
  if (s.engine_metrics) s.engine_metrics->start();
  s.broadcaster = spawn(s.broadcast());
}

uint16_t ControlServer::port() const noexcept {
  return state_->server ? state_->server->port() : 0;
}

std::string ControlServer::url() const {
  std::string host = state_->options.bind;
  if (host.find(':') != std::string::npos && !host.starts_with('[')) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(port()) + "/";
}

Task<void> ControlServer::stop() {
  State& s = *state_;
  if (s.stopping) co_return;
  s.stopping = true;
  if (s.engine_metrics) s.engine_metrics->stop();
  if (s.broadcaster) {
    s.broadcaster->kill();
    co_await s.broadcaster->join();
    s.broadcaster.reset();
  }
  co_await s.app.stop(std::chrono::seconds(2));
  if (s.cluster) s.cluster->close();
}

}  // namespace squall
