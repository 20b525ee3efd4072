// Handler: self.crawl's keywords checked and turned into tasks; Response's accessors.
#include "squall/engine/handler.h"

#include <array>
#include <iterator>
#include <set>
#include <unordered_set>

#include "squall/core/error.h"
#include "squall/crawl/jsonl.h"
#include "squall/crawl/links.h"
#include "squall/http/form.h"

namespace squall {

using nlohmann::json;

// --- Response --------------------------------------------------------------------------------

Response::Response(FetchResult r, const CrawlTask& task)
    : status_code(r.status_code),
      url(std::move(r.url)),
      orig_url(std::move(r.orig_url)),
      headers(std::move(r.headers)),
      cookies(std::move(r.cookies)),
      content(std::move(r.content)),
      encoding(std::move(r.encoding)),
      time(r.time),
      save(std::move(r.save)),
      error(std::move(r.error)),
      error_kind(std::move(r.error_kind)),
      redirects(std::move(r.redirects)),
      task_(&task) {}

void Response::raise_for_status() const {
  if (ok()) return;
  std::string detail = "HTTP " + std::to_string(status_code) + " for " + url;
  if (!error.empty()) detail += ": " + error;
  throw Error(ErrorKind::Protocol, detail);
}

json Response::json() const {
  nlohmann::json j = nlohmann::json::parse(content, nullptr, false);
  if (j.is_discarded())
    throw Error(ErrorKind::InvalidArgument, "the body of " + url + " is not JSON");
  return j;
}

const HtmlDocument& Response::doc() const {
  if (!doc_) doc_ = std::make_unique<HtmlDocument>(HtmlDocument::parse(content, encoding, url));
  return *doc_;
}

const std::vector<std::string>& Response::links() const {
  if (links_) return *links_;
  links_.emplace();
  LinkOptions options;
  if (UrlResult page = Url::parse(url)) options.page_url = *page;
  options.charset = encoding;
  LinkExtractor extractor(options);
  extractor.feed(content);
  extractor.finish();
  std::unordered_set<std::string> seen;
  for (const Link& link : extractor.links()) {
    if (!link.url || !link.url->is_http()) continue;
    std::string href(link.url->href());
    if (size_t hash = href.find('#'); hash != std::string::npos) href.resize(hash);
    if (seen.insert(href).second) links_->push_back(std::move(href));
  }
  return *links_;
}

// --- Handler ---------------------------------------------------------------------------------

namespace {

enum class Kind { Number, Integer, Bool, String, Object, Any, StringOrBool };

struct Keyword {
  std::string_view name;
  Kind kind;
  bool schedule;  // goes to task.schedule, else to task.fetch (callback and taskid aside)
};

// Looked up in order for every keyword of every crawl(): the one nearly every call has comes first.
constexpr Keyword kKeywords[] = {
    {"callback", Kind::String, false},
    {"taskid", Kind::String, false},
    {"priority", Kind::Integer, true},
    {"retries", Kind::Integer, true},
    {"exetime", Kind::Number, true},
    {"age", Kind::Number, true},
    {"itag", Kind::Any, true},
    {"auto_recrawl", Kind::Bool, true},
    {"force_update", Kind::Bool, true},
    {"cancel", Kind::Bool, true},
    {"method", Kind::String, false},
    {"params", Kind::Object, false},
    {"data", Kind::Any, false},
    {"files", Kind::Object, false},
    {"headers", Kind::Object, false},
    {"cookies", Kind::Object, false},
    {"user_agent", Kind::String, false},
    {"connect_timeout", Kind::Number, false},
    {"timeout", Kind::Number, false},
    {"allow_redirects", Kind::Bool, false},
    {"max_redirects", Kind::Integer, false},
    {"validate_cert", Kind::Bool, false},
    {"proxy", Kind::String, false},
    {"etag", Kind::StringOrBool, false},
    {"last_modified", Kind::StringOrBool, false},
    {"use_gzip", Kind::Bool, false},
    {"robots_txt", Kind::Bool, false},
    {"save", Kind::Any, false},
    {"fetch_type", Kind::String, false},
    {"js_script", Kind::String, false},
    {"js_run_at", Kind::String, false},
    {"js_viewport_width", Kind::Integer, false},
    {"js_viewport_height", Kind::Integer, false},
    {"load_images", Kind::Bool, false},
};

const Keyword* keyword(std::string_view name) {
  for (const Keyword& k : kKeywords)
    if (name == k.name) return &k;
  return nullptr;
}

bool fits(Kind kind, const json& v) {
  if (v.is_null()) return true;
  switch (kind) {
    case Kind::Number:
      return v.is_number();
    case Kind::Integer:
      return v.is_number_integer() ||
             (v.is_number() && v.get<double>() == static_cast<double>(v.get<int64_t>()));
    case Kind::Bool:
      return v.is_boolean() || v.is_number_integer();
    case Kind::String:
      return v.is_string();
    case Kind::Object:
      return v.is_object();
    case Kind::StringOrBool:
      return v.is_string() || v.is_boolean();
    case Kind::Any:
      return true;
  }
  return false;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Number:
      return "a number";
    case Kind::Integer:
      return "an integer";
    case Kind::Bool:
      return "true or false";
    case Kind::String:
      return "a string";
    case Kind::Object:
      return "an object";
    case Kind::StringOrBool:
      return "a string or true/false";
    case Kind::Any:
      return "anything";
  }
  return "?";
}

// Form-encodes a params/data object as pyspider does (values that are lists repeat the key).
std::string form_encode(const json& fields) {
  http::Arguments args;
  for (const auto& [name, value] : fields.items()) {
    auto text = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    if (value.is_array())
      for (const json& each : value) args.add(name, text(each));
    else
      args.add(name, text(value));
  }
  return http::urlencode(args);
}

}  // namespace

Handler::Handler(std::string project) : project_(std::move(project)) {}
Handler::~Handler() = default;

void Handler::callback(std::string name, Callback fn, CallbackOptions options) {
  callbacks_[std::move(name)] = {std::move(fn), options};
}

void Handler::every(int64_t seconds, std::function<void()> fn, std::string name) {
  if (seconds <= 0)
    throw Error(ErrorKind::InvalidArgument,
                "every() needs an interval of at least one second, not " + std::to_string(seconds));
  if (name.empty()) name = "every " + std::to_string(seconds) + " s";
  cron_jobs_.push_back(CronJob{std::move(name), seconds, std::move(fn)});
}

const Handler::Callback* Handler::find_callback(const std::string& name,
                                                CallbackOptions* options) const {
  auto it = callbacks_.find(name);
  if (it == callbacks_.end()) return nullptr;
  if (options) *options = it->second.second;
  return &it->second.first;
}

CrawlTask Handler::make_task(std::string_view url, const json& kwargs) const {
  CrawlTask t;
  fill_task(t, url, Url::parse(url, base_url_), kwargs);
  return t;
}

CrawlTask Handler::make_task(const Url& url, const json& kwargs) const {
  CrawlTask t;
  fill_task(t, url.href(), UrlResult(url), kwargs);
  return t;
}

void Handler::fill_task(CrawlTask& t, std::string_view url, UrlResult parsed,
                        const json& kwargs) const {
  if (!kwargs.is_object())
    throw Error(ErrorKind::InvalidArgument, "crawl() keywords must be an object");
  t.project = project_;
  // The keywords are crawl_config's under the call's own, taken in one walk over the two
  // (both sorted by name) rather than merged into a copy: a crawl() per link is common, and
  // most have a keyword or two over an empty or small crawl_config. The schedule's values are
  // read once every keyword has been checked, in from_json's order, as a dict would be.
  std::array<const json*, std::size(kKeywords)> scheduled{};
  auto take = [&](const std::string& name, const json& value) {
    const Keyword* k = keyword(name);
    if (!k) {
      std::string detail = "crawl() got an unexpected keyword argument '" + name + "'";
      throw Error(ErrorKind::InvalidArgument, detail);
    }
    if (!fits(k->kind, value)) {
      std::string detail =
          "crawl() keyword '" + name + "' must be " + kind_name(k->kind) + ", not " + value.dump();
      throw Error(ErrorKind::InvalidArgument, detail);
    }
    if (value.is_null()) return;
    if (k->name == "callback") {
      // Written as the text the store keeps: most follows are stored before they are read.
      const std::string& callback = value.get_ref<const std::string&>();
      std::string process;
      process.reserve(callback.size() + 16);
      JsonObjectWriter(process).string("callback", callback).end();
      t.process = TaskDict::of_text(std::move(process));
    } else if (k->name == "taskid") {
      t.taskid = value.get<std::string>();
    } else if (k->schedule) {
      scheduled[static_cast<size_t>(k - kKeywords)] = &value;
    } else {
      t.fetch[name] = value;
    }
  };
  static const json kNoConfig = json::object();
  const json& config = crawl_config.is_object() ? crawl_config : kNoConfig;
  auto c = config.cbegin(), c_end = config.cend();
  auto o = kwargs.cbegin(), o_end = kwargs.cend();
  while (c != c_end || o != o_end) {
    if (o == o_end || (c != c_end && c.key() < o.key())) {
      take(c.key(), c.value());
      ++c;
      continue;
    }
    if (c != c_end && c.key() == o.key()) {
      // Headers are merged field by field; any other keyword of the call replaces the config's.
      if (o.key() == "headers" && c.value().is_object() && o.value().is_object()) {
        json headers = c.value();
        headers.update(o.value());
        take(o.key(), headers);
      } else {
        take(o.key(), o.value());
      }
      ++c;
    } else {
      take(o.key(), o.value());
    }
    ++o;
  }
  for (size_t i = 0; i < scheduled.size(); ++i)
    if (scheduled[i]) t.schedule.set(kKeywords[i].name, *scheduled[i]);

  // The URL (resolved against the current response), params appended.
  std::string target(parsed ? parsed->href() : url);
  if (!t.fetch.empty()) {
    json& fetch = t.fetch.edit();
    if (auto params = fetch.find("params"); params != fetch.end()) {
      std::string query = form_encode(*params);
      if (!query.empty()) {
        size_t hash = target.find('#');
        std::string fragment = hash == std::string::npos ? "" : target.substr(hash);
        if (hash != std::string::npos) target.resize(hash);
        target += (target.find('?') == std::string::npos ? "?" : "&") + query + fragment;
        parsed = Url::parse(target);
      }
      fetch.erase("params");
    }
    if (auto data = fetch.find("data"); data != fetch.end() && data->is_object()) {
      *data = form_encode(*data);
      if (!fetch.contains("method")) fetch["method"] = "POST";
    } else if (data != fetch.end() && !fetch.contains("method")) {
      fetch["method"] = "POST";
    }
  }
  if (parsed && (parsed->is_http() || parsed->scheme() == "data")) {
    if (parsed->href() == target)
      t.url = std::move(target);
    else
      t.url = std::string(parsed->href());
  } else {
    // Kept as given, marked bad with the reason: it can never be fetched.
    t.url = target;
    t.status = TaskStatus::Bad;
    t.track =
        JsonText(json{{"process", {{"ok", false}, {"exception", "unparsable URL: " + target}}}});
  }
  if (t.taskid.empty()) t.taskid = get_taskid(t);
}

void Handler::collect(const CrawlTask* current, const std::string* base_url,
                      const std::function<void()>& fn, Output& out) {
  Output* saved_out = std::exchange(out_, &out);
  const CrawlTask* saved_task = std::exchange(current_, current);
  // The response's URL, parsed once for every crawl() the callback makes.
  std::optional<Url> base;
  if (base_url) {
    if (UrlResult r = Url::parse(*base_url)) base = std::move(*r);
  }
  const Url* saved_base = std::exchange(base_url_, base ? &*base : nullptr);
  struct Restore {
    Handler* h;
    Output* o;
    const CrawlTask* t;
    const Url* b;
    ~Restore() {
      h->out_ = o;
      h->current_ = t;
      h->base_url_ = b;
    }
  } restore{this, saved_out, saved_task, saved_base};
  fn();
}

void Handler::crawl(std::string_view url, const json& kwargs) {
  add_follow([&](CrawlTask& t) { fill_task(t, url, Url::parse(url, base_url_), kwargs); });
}

void Handler::crawl(const Url& url, const json& kwargs) {
  add_follow([&](CrawlTask& t) { fill_task(t, url.href(), UrlResult(url), kwargs); });
}

void Handler::crawl(CrawlTask task) {
  add_follow([&](CrawlTask& t) {
    t = std::move(task);
    if (t.project.empty()) t.project = project_;
    if (t.taskid.empty()) t.taskid = get_taskid(t);
  });
}

template <class Fill>
void Handler::add_follow(Fill fill) {
  if (!out_) throw Error(ErrorKind::InvalidState, "crawl() is for callbacks and hooks");
  // Made in place at the end of the follows, which come by the dozen (a page's links): room for
  // some at once, not grown one by one.
  std::vector<CrawlTask>& follows = out_->follows;
  if (follows.capacity() == 0) follows.reserve(16);
  try {
    fill(follows.emplace_back());
  } catch (...) {
    follows.pop_back();  // a follow whose keywords are wrong is none: the error is the caller's
    throw;
  }
  hand_on_when_full();
}

void Handler::hand_on_when_full() {
  Output& out = *out_;
  if (out.hand_on && out.follows.size() + out.messages.size() >= out.batch) out.hand_on(out);
}

void Handler::crawl(const std::vector<std::string>& urls, const json& kwargs) {
  for (const std::string& url : urls) crawl(url, kwargs);
}

void Handler::send_message(const std::string& project, json message) {
  if (!out_) throw Error(ErrorKind::InvalidState, "send_message() is for callbacks and hooks");
  out_->messages.emplace_back(project, std::move(message));
  hand_on_when_full();
}

void Handler::log_line(std::string line) {
  if (out_) out_->logs.push_back(std::move(line));
}

const CrawlTask& Handler::task() const {
  if (!current_) throw Error(ErrorKind::InvalidState, "task() is for callbacks");
  return *current_;
}

}  // namespace squall
