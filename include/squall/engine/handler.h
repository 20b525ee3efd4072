// Handler: a C++ project in the shape of pyspider's BaseHandler.
//
//   class Spider : public Handler {
//    public:
//     Spider() : Handler("spider") {
//       callback("index_page", [this](Response& r) -> std::optional<nlohmann::json> {
//         for (const std::string& url : r.links()) crawl(url, {{"callback", "detail_page"}});
//         return std::nullopt;
//       });
//       callback("detail_page", [](Response& r) -> std::optional<nlohmann::json> {
//         return nlohmann::json{{"url", r.url}, {"title", r.css("title::text").get()}};
//       });
//     }
//     void on_start() override { crawl("http://127.0.0.1:8000/", {{"callback", "index_page"}}); }
//   };
//
// As in pyspider:
// - crawl(url, kwargs) takes self.crawl's keyword arguments as a JSON object: the schedule
//   (priority, retries, exetime, age, itag, auto_recrawl, force_update, cancel), the fetch
//   (method, params, data, headers, cookies, user_agent, timeout, connect_timeout,
//   allow_redirects, max_redirects, validate_cert, proxy, etag, last_modified, use_gzip,
//   robots_txt, save, fetch_type, js_script, js_run_at, js_viewport_width, js_viewport_height,
//   load_images), callback and taskid. `crawl_config` is merged under them. An unknown keyword,
//   or a value of the wrong type, throws squall::Error (InvalidArgument) naming it. A relative
//   URL is resolved against the current response's URL; a Url (a selector's links()) is taken
//   as it is. Keywords that are the same for every follow are best built once, as a member:
//   a JSON object is a tree of allocations.
// - A callback's returned object is the task's result (upserted by taskid); nullopt returns
//   none. A callback that throws fails its task (the message is kept in its track), and the
//   scheduler's retry rules apply; so does a response whose status is not 2xx (or a 304 to a
//   conditional request), unless the callback is registered with catch_status_code_error.
// - Taskids are the MD5 of the URL (get_taskid can be overridden).
// - on_start runs when the engine starts the project; on_message receives send_message's
//   messages from other projects; on_finished runs when the project has nothing left to do.
// - every(seconds, fn) is pyspider's @every: fn runs at each multiple of the interval, in Unix
//   seconds, while the engine runs (cron.h), and calls crawl() as a callback does; giving the
//   crawl an age or an itag is what makes it fetch again.
// A callback runs on the engine's loop and must not block; its time limit is measured (a
// callback over it fails its task), not enforced by interrupting it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/crawl/selector.h"
#include "squall/crawl/xpath.h"
#include "squall/engine/crawl_task.h"
#include "squall/engine/cron.h"
#include "squall/engine/fetcher.h"
#include "squall/engine/schedule_rules.h"

namespace squall {

// What a callback sees: the fetch result with pyspider's Response accessors.
class Response {
 public:
  Response(FetchResult result, const CrawlTask& task);

  int status_code = 599;
  std::string url;       // final, after redirects
  std::string orig_url;  // the task's
  http::Headers headers;
  nlohmann::json cookies;
  std::string content;  // the body's bytes
  std::string encoding;
  double time = 0;
  nlohmann::json save;  // what the task's crawl(save=...) gave
  std::string error;
  std::string error_kind;              // with status 599: "timeout", "connect", "tls", ...
  std::vector<std::string> redirects;  // the URLs that redirected, in order, before `url`

  const CrawlTask& task() const noexcept { return *task_; }
  bool ok() const noexcept { return error.empty() && status_code >= 200 && status_code < 400; }
  // Throws squall::Error (Protocol) with the status and error when !ok() (pyspider's
  // raise_for_status).
  void raise_for_status() const;

  // The body as JSON; throws squall::Error (InvalidArgument) when it is not.
  nlohmann::json json() const;
  // The page parsed as HTML (libxml2, lazily, once), for css() and xpath().
  const HtmlDocument& doc() const;
  XPathResult xpath(std::string_view expression) const { return doc().xpath(expression); }
  // The nodes a CSS selector matches (parsel's response.css(): "a.film::attr(href)",
  // "h1::text"); a selector that does not parse gives a list whose error() says why.
  SelectorList css(std::string_view selector) const { return doc().css(selector); }
  // Every http(s) link of the page (a, area, link, frames), resolved against its base URL,
  // without fragments, each once, in document order.
  const std::vector<std::string>& links() const;

 private:
  const CrawlTask* task_;
  mutable std::unique_ptr<HtmlDocument> doc_;
  mutable std::optional<std::vector<std::string>> links_;
};

struct CallbackOptions {
  bool catch_status_code_error = false;  // pyspider's @catch_status_code_error
  double time_limit = 30;                // seconds (pyspider's process_time_limit)
};

class Handler {
 public:
  using Callback = std::function<std::optional<nlohmann::json>(Response&)>;

  explicit Handler(std::string project);
  virtual ~Handler();
  Handler(const Handler&) = delete;
  Handler& operator=(const Handler&) = delete;

  const std::string& project() const noexcept { return project_; }

  // Defaults for every crawl() (pyspider's crawl_config), and the retry delays.
  nlohmann::json crawl_config = nlohmann::json::object();
  RetryDelays retry_delay;

  virtual void on_start() {}
  virtual void on_message(const std::string& from_project, const nlohmann::json& message) {
    (void)from_project;
    (void)message;
  }
  virtual void on_finished() {}
  // The taskid of a new task (the URL's MD5 by default).
  virtual std::string get_taskid(const CrawlTask& task) const { return default_taskid(task.url); }

  // --- for the engine ----------------------------------------------------------------------
  bool has_callback(const std::string& name) const { return callbacks_.count(name) != 0; }
  const std::vector<CronJob>& cron_jobs() const noexcept { return cron_jobs_; }

  // What a callback (or a hook) produced; the processor sets the context and collects it.
  struct Output {
    std::vector<CrawlTask> follows;
    std::vector<std::pair<std::string, nlohmann::json>> messages;  // to project, message
    std::vector<std::string> logs;
    // When set, called as soon as follows and messages together reach `batch`: it takes them
    // (and counts them in the handed_ counts), so that a callback that asks for a great many
    // holds at most `batch` at once. What it throws comes out of the crawl() or send_message()
    // that filled the batch.
    std::function<void(Output&)> hand_on;
    size_t batch = 0;
    size_t handed_follows = 0, handed_messages = 0;
  };
  // Runs `fn` with `current` as the task whose response is being handled (null: none), and
  // adds what it asked for to `out`, also when it throws (what it asked for before the
  // exception still counts, as in pyspider); the exception then propagates.
  void collect(const CrawlTask* current, const std::string* base_url,
               const std::function<void()>& fn, Output& out);
  // The registered callback and its options, or null.
  const Callback* find_callback(const std::string& name, CallbackOptions* options) const;

  // A task as crawl(url, kwargs) builds it (crawl_config merged under kwargs); throws
  // squall::Error (InvalidArgument) naming an unknown or mistyped keyword.
  CrawlTask make_task(std::string_view url, const nlohmann::json& kwargs) const;
  // The same for a URL already parsed (a selector's links()): taken as it is, not parsed again.
  CrawlTask make_task(const Url& url, const nlohmann::json& kwargs) const;

 protected:
  // Registers a callback by name (what crawl(..., {{"callback", name}}) refers to).
  void callback(std::string name, Callback fn, CallbackOptions options = {});
  // Runs `fn` every `seconds` (pyspider's @every(minutes=..., seconds=...)); throws squall::Error
  // (InvalidArgument) unless seconds > 0. `name` names it in the task's logs and errors.
  void every(int64_t seconds, std::function<void()> fn, std::string name = {});

  // pyspider's self.crawl: one URL or several with the same keywords.
  void crawl(std::string_view url, const nlohmann::json& kwargs = nlohmann::json::object());
  void crawl(const Url& url, const nlohmann::json& kwargs = nlohmann::json::object());
  void crawl(const std::vector<std::string>& urls,
             const nlohmann::json& kwargs = nlohmann::json::object());
  // A task the project built itself, with no keywords to read: the fast path of a project that
  // makes many follows (squall crawl's). Its project and taskid are filled in when empty.
  void crawl(CrawlTask task);
  // pyspider's self.send_message: `message` reaches `project`'s on_message.
  void send_message(const std::string& project, nlohmann::json message);
  // A line for the task's track (pyspider's print/logging inside a callback).
  void log_line(std::string line);
  // The task being processed; throws squall::Error (InvalidState) outside a callback.
  const CrawlTask& task() const;
  // The response's URL as the callback's crawl() calls resolve against it, parsed once; null
  // outside a callback or when it does not parse.
  const Url* response_url() const noexcept { return base_url_; }

 private:
  void fill_task(CrawlTask& t, std::string_view url, UrlResult parsed,
                 const nlohmann::json& kwargs) const;
  // Adds a follow that `fill` makes, in place, then hands the follows on when they are a batch.
  template <class Fill>
  void add_follow(Fill fill);
  void hand_on_when_full();

  std::string project_;
  std::map<std::string, std::pair<Callback, CallbackOptions>> callbacks_;
  std::vector<CronJob> cron_jobs_;
  Output* out_ = nullptr;
  const CrawlTask* current_ = nullptr;
  const Url* base_url_ = nullptr;  // the response's, while a callback runs
};

}  // namespace squall
