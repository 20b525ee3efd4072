// The HTTP/1.1 server connection: heads parsed in place, bodies by their framing, responses
// framed and written with as few system calls and coroutine frames as a request allows.
#include "server_connection.h"

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "squall/core/error.h"
#include "squall/core/log.h"

namespace squall::http::detail {

using namespace std::string_view_literals;

namespace {

// Response bytes buffered before write() sends them on its own.
constexpr size_t kWriteBuffer = 64 * 1024;
// send_file() copies files up to this size instead of handing them to sendfile.
constexpr size_t kSmallFile = 16 * 1024;
// After a response that leaves input unread (an error, a refused body), the connection reads
// and drops what the client still sends for up to this long before closing, so the kernel does
// not answer those bytes with a reset that could destroy the response in flight.
constexpr Duration kLinger = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 1 << 20;

// The Date header, formatted once per second per thread (RFC 9110 §5.6.7 IMF-fixdate).
std::string_view date_header() {
  thread_local time_t cached = -1;
  thread_local char line[64];
  thread_local size_t length = 0;
  time_t now = ::time(nullptr);
  if (now != cached) {
    struct tm tm;
    ::gmtime_r(&now, &tm);
    length = ::strftime(line, sizeof line, "Date: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
    cached = now;
  }
  return {line, length};
}

void append_number(std::string& out, uint64_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out.append(digits, end);
}

// Writes a response head into a buffer on the stack with memcpy, and into `out` in one append
// at the end (or whenever the buffer fills): a head is a dozen short pieces, and a string append
// for each cost more than everything else in building it.
class HeadBuilder {
 public:
  explicit HeadBuilder(std::string& out) noexcept : out_(out) {}
  HeadBuilder(const HeadBuilder&) = delete;
  HeadBuilder& operator=(const HeadBuilder&) = delete;
  ~HeadBuilder() { out_.append(buf_, used_); }

  HeadBuilder& operator<<(std::string_view s) {
    if (s.size() > sizeof buf_ - used_) {
      out_.append(buf_, used_);
      used_ = 0;
      if (s.size() > sizeof buf_) {
        out_.append(s);
        return *this;
      }
    }
    std::memcpy(buf_ + used_, s.data(), s.size());
    used_ += s.size();
    return *this;
  }
  HeadBuilder& operator<<(uint64_t n) {
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    return *this << std::string_view(digits, static_cast<size_t>(end - digits));
  }

 private:
  std::string& out_;
  size_t used_ = 0;
  char buf_[512];
};

bool has_list_token(std::string_view list, std::string_view token) noexcept {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view element = list.substr(0, comma);
    while (!element.empty() && (element.front() == ' ' || element.front() == '\t'))
      element.remove_prefix(1);
    while (!element.empty() && (element.back() == ' ' || element.back() == '\t'))
      element.remove_suffix(1);
    if (iequals(element, token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// "1.2.3.4:80" → "1.2.3.4"; "[::1]:80" → "::1".
std::string_view host_of(std::string_view peer) noexcept {
  if (!peer.empty() && peer.front() == '[') {
    size_t close = peer.find(']');
    return close == std::string_view::npos ? peer : peer.substr(1, close - 1);
  }
  size_t colon = peer.rfind(':');
  return colon == std::string_view::npos ? peer : peer.substr(0, colon);
}

bool parse_length(std::string_view text, uint64_t& out) noexcept {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

ServerShared::ServerShared(Handler h, HttpServerOptions o, Loop& l)
    : handler(std::move(h)), options(std::move(o)), loop(&l) {}

ServerShared::~ServerShared() = default;

std::unique_ptr<Exchange> ServerShared::take_exchange(Stream& stream) {
  std::unique_ptr<Exchange> x;
  if (exchanges.empty()) {
    x = std::make_unique<Exchange>(*this);
  } else {
    x = std::move(exchanges.back());
    exchanges.pop_back();
  }
  x->attach(stream);
  return x;
}

void ServerShared::give_exchange(std::unique_ptr<Exchange> x) noexcept {
  // An exchange whose fields were fitted to its request (fit_fields) has no room for the next.
  if (exchanges.size() < kKeptExchanges && !x->fitted()) exchanges.push_back(std::move(x));
}

Connection::~Connection() {
  if (x_) s_.give_exchange(std::move(x_));
}

// One coroutine frame per connection holds the Connection and waits in it while idle, with no
// frame below it: stream.wait_readable() is a plain awaiter.
Task<void> Connection::serve(std::shared_ptr<ServerShared> shared, Stream& stream) {
  Connection c(*shared, stream);
  const HttpServerOptions& o = shared->options;
  bool close = true, linger = false;
  try {
    while (!shared->stopping) {
      if (stream.buffered().empty()) {
        // Idle: the client owes us the first byte of its next request.
        if (c.x_) shared->give_exchange(std::move(c.x_));
        Duration limit = c.first_ ? o.header_timeout : o.idle_timeout;
        size_t n = 0;
        shared->idle.push_back(c);
        try {
          squall::detail::RollingTimeout::Armed armed(c.timeout_, Clock::now() + limit, limit);
          co_await stream.wait_readable();
          n = co_await stream.read_more();
        } catch (const TimeoutError&) {
        } catch (const NetError&) {
        }
        c.unlink();
        if (n == 0 || shared->stopping) break;
      }
      if (!c.x_) c.x_ = shared->take_exchange(stream);
      bool keep = co_await c.x_->read_head(c.timeout_) && co_await c.x_->serve_request();
      if (c.x_->upgraded()) co_return;  // the stream is the handler's, and it is done with it
      c.x_->end_request();
      c.first_ = false;
      if (!keep) {
        linger = c.x_->linger();
        break;
      }
    }
  } catch (const NetError&) {
    // The client went away or the connection failed: nothing left to answer.
    close = false;
  }
  if (close) co_await c.close_connection(linger);
}

Task<bool> Exchange::read_head(squall::detail::RollingTimeout& timeout) {
  const TimePoint deadline = Clock::now() + o_.header_timeout;
  const HeadLimits limits{o_.max_request_line, o_.max_header_size};
  const std::span<HeaderView> fields(fields_.get(), o_.max_headers);
  // The usual case, a head that came in one read, is parsed here without a coroutine frame.
  ParseResult r = parse_request(stream_->buffered(), view_, fields, limits);
  if (r.status == ParseStatus::Incomplete) {
    bool timed_out = false;
    try {
      squall::detail::RollingTimeout::Armed armed(timeout, deadline, o_.header_timeout);
      r = co_await http::read_head(*stream_, view_, fields, limits);
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    if (timed_out) {
      co_await answer_error(408, "the request head did not arrive in time");
      co_return false;
    }
    if (r.status == ParseStatus::Incomplete) co_return false;  // closed mid-head: no one to answer
  }
  if (r.status != ParseStatus::Ok) {
    co_await answer_error(parse_status_http_code(r.status), parse_status_message(r.status));
    co_return false;
  }
  head_begin_ = stream_->buffered().data();
  head_size_ = r.consumed;
  skip_ = r.consumed;

  head_parsed_ = true;
  pinned_head_ = false;
  int status = 0;
  std::string_view message;
  if (!setup_request(status, message)) {
    co_await answer_error(status, message);
    co_return false;
  }
  co_return true;
}

// Fills the request from the parsed head and decides its framing. False (with the status and
// message to answer) when the head is acceptable to the parser but not to a server.
bool Exchange::setup_request(int& error_status, std::string_view& error_message) {
  ServerRequest& r = req_;
  r.method_ = view_.method;
  r.target_ = view_.target;
  r.version_ = view_.version;
  r.fields_ = view_.headers;
  r.headers_.reset();
  std::string_view target = view_.target;
  if (target.front() != '/' && target != "*") {
    // absolute-form ("http://host/p?q") carries a path after the authority; authority-form
    // (CONNECT) has none, and the whole target stands for it.
    size_t scheme = target.find("://");
    if (scheme != std::string_view::npos) {
      size_t slash = target.find_first_of("/?", scheme + 3);
      target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
  }
  size_t question = target.find('?');
  if (question == std::string_view::npos) {
    r.path_ = target;
    r.query_ = {};
  } else {
    r.path_ = target.substr(0, question);
    r.query_ = target.substr(question + 1);
  }
  if (r.path_.empty()) r.path_ = "/";

  // One pass over the fields for what the server itself needs.
  size_t hosts = 0;
  bool close = false, keep_alive_token = false;
  std::optional<std::string_view> expect, real_ip, forwarded_for, forwarded_proto;
  for (const HeaderView& h : view_.headers) {
    switch (h.name.size()) {
      case 4:
        if (iequals(h.name, "Host")) ++hosts;
        break;
      case 6:
        if (iequals(h.name, "Expect")) expect = h.value;
        break;
      case 8:
        if (o_.xheaders && iequals(h.name, "X-Scheme")) forwarded_proto = h.value;
        break;
      case 9:
        if (o_.xheaders && iequals(h.name, "X-Real-Ip")) real_ip = h.value;
        break;
      case 10:
        if (iequals(h.name, "Connection")) {
          close = close || has_list_token(h.value, "close");
          keep_alive_token = keep_alive_token || has_list_token(h.value, "keep-alive");
        }
        break;
      case 15:
        if (o_.xheaders && iequals(h.name, "X-Forwarded-For")) forwarded_for = h.value;
        break;
      case 17:
        if (o_.xheaders && iequals(h.name, "X-Forwarded-Proto")) forwarded_proto = h.value;
        break;
      default:
        break;
    }
  }
  const bool http11 = view_.version >= Version{1, 1};
  keep_alive_ = !close && (http11 || keep_alive_token);
  r.keep_alive_ = keep_alive_;
  head_request_ = view_.method == "HEAD";

  r.remote_ip_ = host_of(stream_->peer());
  r.protocol_ = stream_->tls() ? "https" : "http";
  if (real_ip && !real_ip->empty()) {
    r.remote_ip_ = *real_ip;
  } else if (forwarded_for) {
    std::string_view last = *forwarded_for;
    size_t comma = last.rfind(',');
    if (comma != std::string_view::npos) last = last.substr(comma + 1);
    last = trim_ows(last);
    if (!last.empty()) r.remote_ip_ = last;
  }
  if (forwarded_proto) {
    std::string_view proto = trim_ows(*forwarded_proto);
    if (proto == "http" || proto == "https") r.protocol_ = proto;
  }

  body_.start({}, 0);  // no body until the framing says there is one
  expect_continue_ = continue_sent_ = false;
  body_error_status_ = 0;
  Framing framing;
  ParseStatus fs = request_framing(view_.version, view_.headers, framing);
  if (fs != ParseStatus::Ok) {
    error_status = parse_status_http_code(fs);
    error_message = parse_status_message(fs);
    return false;
  }
  if (hosts > 1 || (http11 && hosts == 0)) {
    error_status = 400;
    error_message = hosts ? "the request has several Host fields" : "the request has no Host field";
    return false;
  }
  if (body_.start(framing, o_.max_body_size) == ParseStatus::BodyTooLarge) {
    error_status = 413;
    error_message = "the declared body is larger than this server accepts";
    return false;
  }
  if (expect) {
    if (!iequals(*expect, "100-continue")) {
      error_status = 417;
      error_message = "the only expectation this server meets is 100-continue";
      return false;
    }
    expect_continue_ = http11 && !body_.done();
  }
  return true;
}

Task<bool> Exchange::serve_request() {
  if (o_.access_log || o_.access_log_sink) start_ = Clock::now();  // only the log line needs it
  reset_response();
  std::exception_ptr failure;
  try {
    {
      StopHookScope hook(*this);
      co_await s_.handler(req_, resp_);
    }
    // A handler that returns without finishing has its response finished for it.
    if (!resp_.finished_) co_await finish();
  } catch (const CancelledError&) {
    throw;
  } catch (...) {
    failure = std::current_exception();
  }
  if (upgraded_) {
    // The other protocol ran in the handler; the connection ends with it.
    if (failure) log_failure(failure);
    log_access(101, 0);
    s_.served.store(s_.served.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    co_return false;
  }
  if (failure) {
    if (stream_->closed()) std::rethrow_exception(failure);
    int status = body_error_status_ ? body_error_status_ : 500;
    std::string what = exception_message(failure);
    if (status == 500) log_failure(failure);
    if (resp_.headers_sent_) {
      // Part of the answer is out: the only honest end is to cut the connection.
      log_access(resp_.status_, resp_.bytes_written_);
      co_return false;
    }
    reset_response();
    resp_.status_ = status;
    resp_.headers_.set("Content-Type", "text/plain; charset=utf-8");
    body_buf_.append(std::to_string(status)).append(" ").append(reason_phrase(status));
    if (o_.debug || status != 500) body_buf_.append(": ").append(what);
    body_buf_.append("\n");
    resp_.bytes_written_ = body_buf_.size();
    if (status != 500) keep_alive_ = false;
    co_await finish();
  }
  log_access(resp_.status_, resp_.bytes_written_);
  s_.served.store(s_.served.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (!keep_alive_) {
    if (!body_.done()) linger_ = true;
    co_return false;
  }
  if (!body_.done()) co_await drain_body();
  co_return keep_alive_ && !s_.stopping;
}

void Exchange::log_failure(const std::exception_ptr& failure) {
  std::string line = "request ";
  line.append(req_.method_).append(" ").append(req_.target_).append(" from ");
  line.append(peer()).append(" failed: ").append(exception_message(failure));
  log(LogLevel::Error, line);
}

Task<Stream> Exchange::upgrade(const ResponseHead& head) {
  if (resp_.headers_sent_) throw InvalidStateError("upgrade() after the response's head was sent");
  if (req_.has_body()) throw InvalidStateError("upgrade() of a request with a body");
  if (head.status != 101) throw InvalidArgumentError("upgrade() answers with 101");
  std::string out = "HTTP/1.1 101 ";
  out.append(head.reason.empty() ? reason_phrase(101) : std::string_view(head.reason));
  out.append("\r\n");
  for (const Header& h : head.headers) {
    if (!is_token(h.name) || (!h.value.empty() && !is_field_value(h.value)))
      throw InvalidArgumentError("upgrade header " + h.name + " is not a token or a field value");
    out.append(h.name).append(": ").append(h.value).append("\r\n");
  }
  out.append("\r\n");
  // The request's views must outlive the buffer and the peer's name the stream: both are the
  // new owner's now.
  pin_head();
  fit_fields();
  peer_ = stream_->peer();
  const std::string& name = stream_->peer();
  if (req_.remote_ip_.data() >= name.data() && req_.remote_ip_.data() < name.data() + name.size())
    req_.remote_ip_ = std::string_view(peer_).substr(
        static_cast<size_t>(req_.remote_ip_.data() - name.data()), req_.remote_ip_.size());
  resp_.status_ = 101;
  resp_.headers_sent_ = resp_.finished_ = true;
  keep_alive_ = false;
  upgraded_ = true;
  stream_->consume(skip_);
  skip_ = 0;
  co_await stream_->write(std::move(out));
  co_return std::move(*stream_);
}

void Exchange::on_server_stop(std::function<void()> hook) {
  if (s_.stopping) {
    if (hook) hook();
    return;
  }
  stop_hook_ = std::move(hook);
  if (!linked()) s_.stop_hooks.push_back(*this);
}

void Exchange::run_stop_hook() {
  std::function<void()> hook = std::move(stop_hook_);
  stop_hook_ = nullptr;
  if (hook) hook();
}

void Exchange::reset_response() {
  resp_.status_ = 200;
  resp_.reason_.clear();
  resp_.headers_.clear();
  resp_.headers_sent_ = false;
  resp_.finished_ = false;
  resp_.bytes_written_ = 0;
  body_allowed_ = true;
  chunked_ = false;
  declared_length_.reset();
  sent_body_ = 0;
  body_buf_.clear();
}

// The answer to a request the handler never sees; the connection closes after it.
Task<void> Exchange::answer_error(int status, std::string_view message) {
  std::string body = std::to_string(status);
  body.append(" ").append(reason_phrase(status)).append(": ").append(message).append("\n");
  s_.scratch.clear();
  s_.scratch.append("HTTP/1.1 ");
  append_number(s_.scratch, static_cast<uint64_t>(status));
  s_.scratch.append(" ").append(reason_phrase(status)).append("\r\n").append(date_header());
  if (!o_.server_name.empty()) s_.scratch.append("Server: ").append(o_.server_name).append("\r\n");
  s_.scratch.append("Content-Type: text/plain; charset=utf-8\r\nContent-Length: ");
  append_number(s_.scratch, body.size());
  s_.scratch.append("\r\nConnection: close\r\n\r\n").append(body);
  keep_alive_ = false;
  linger_ = true;
  if (head_parsed_) {
    start_ = Clock::now();
    resp_.status_ = status;
    log_access(status, body.size());
  } else if (o_.access_log || o_.access_log_sink) {
    std::string line = "bad request from ";
    line.append(peer()).append(": ").append(std::to_string(status)).append(" ").append(message);
    log(LogLevel::Info, line);
  }
  co_await stream_->write(std::string_view(s_.scratch));
}

void Exchange::log_access(int status, uint64_t bytes) {
  if (!o_.access_log && !o_.access_log_sink) return;
  AccessLogEntry e{peer(), req_.method_, req_.target_,         req_.version_,
                   status, bytes,        Clock::now() - start_};
  e.referer = req_.header("Referer").value_or(std::string_view());
  e.user_agent = req_.header("User-Agent").value_or(std::string_view());
  if (o_.access_log_sink) {
    o_.access_log_sink(e);
    return;
  }
  std::string line(e.peer);
  line.append(" \"").append(e.method).append(" ").append(e.target).append(" HTTP/");
  line.push_back(static_cast<char>('0' + e.version.major));
  line.push_back('.');
  line.push_back(static_cast<char>('0' + e.version.minor));
  line.append("\" ");
  append_number(line, static_cast<uint64_t>(status));
  line.push_back(' ');
  append_number(line, bytes);
  char ms[32];
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(e.duration).count();
  std::snprintf(ms, sizeof ms, " %.2fms", static_cast<double>(micros) / 1000.0);
  line.append(ms);
  log(LogLevel::Info, line);
}

// The head's views point into the stream's buffer, which the next read may move: copy the head
// once and point the views at the copy.
void Exchange::pin_head() {
  if (pinned_head_ || !head_parsed_) return;
  pinned_.assign(head_begin_, head_size_);
  const char* old_begin = head_begin_;
  const char* old_end = head_begin_ + head_size_;
  auto rebase = [&](std::string_view& v) {
    if (v.data() >= old_begin && v.data() < old_end)
      v = std::string_view(pinned_.data() + (v.data() - old_begin), v.size());
  };
  rebase(req_.method_);
  rebase(req_.target_);
  rebase(req_.path_);
  rebase(req_.query_);
  rebase(req_.remote_ip_);
  rebase(req_.protocol_);
  for (HeaderView& h : view_.headers) {
    rebase(h.name);
    rebase(h.value);
  }
  head_begin_ = pinned_.data();
  pinned_head_ = true;
}

void Exchange::fit_fields() {
  size_t n = view_.headers.size();
  auto fitted = std::make_unique<HeaderView[]>(n);
  std::copy(view_.headers.begin(), view_.headers.end(), fitted.get());
  fields_ = std::move(fitted);
  view_.headers = std::span<HeaderView>(fields_.get(), n);
  req_.fields_ = view_.headers;
  fitted_ = true;
}

void Exchange::body_error(int status, ErrorKind kind, std::string_view message) {
  body_error_status_ = status;
  keep_alive_ = false;
  std::string detail = "request body from ";
  detail.append(peer()).append(": ").append(message);
  throw Error(kind, detail);
}

Task<void> Exchange::fill_body() {
  pin_head();
  stream_->consume(skip_);
  skip_ = 0;
  size_t n = 0;
  if (o_.body_timeout) {
    bool timed_out = false;
    try {
      squall::detail::TimeoutScope scope(Clock::now() + *o_.body_timeout, *o_.body_timeout);
      n = co_await stream_->read_more();
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    if (timed_out) {
      body_error_status_ = 408;
      keep_alive_ = false;
      throw TimeoutError("the request body did not arrive in time");
    }
  } else {
    n = co_await stream_->read_more();
  }
  if (n == 0) body_error(400, ErrorKind::Protocol, "the client closed the connection mid-body");
}

Task<size_t> Exchange::read_body(std::span<char> into) {
  if (body_.done() || into.empty()) co_return 0;
  if (expect_continue_ && !continue_sent_) {
    continue_sent_ = true;
    if (!resp_.headers_sent_)
      co_await stream_->write(std::string_view("HTTP/1.1 100 Continue\r\n\r\n"));
  }
  for (;;) {
    std::string_view available = stream_->buffered().substr(skip_);
    if (!available.empty()) {
      // No more body than `into` can take, so the data always fits.
      auto step = body_.decode(available, into.size());
      skip_ += step.consumed;
      if (step.status == ParseStatus::BodyTooLarge)
        body_error(413, ErrorKind::TooLarge, "the body is larger than this server accepts");
      if (is_error(step.status))
        body_error(
            parse_status_http_code(step.status),
            parse_status_http_code(step.status) == 431 ? ErrorKind::TooLarge : ErrorKind::Protocol,
            parse_status_message(step.status));
      if (!step.data.empty()) {
        std::memcpy(into.data(), step.data.data(), step.data.size());
        co_return step.data.size();
      }
      if (body_.done()) co_return 0;
      continue;
    }
    co_await fill_body();
  }
}

// Reads and drops a body the handler left unread, so the next request can follow; a body
// bigger than max_drain_size closes the connection instead.
Task<void> Exchange::drain_body() {
  char scratch[4096];
  uint64_t drained = 0;
  try {
    while (!body_.done()) {
      size_t n = co_await read_body(scratch);
      drained += n;
      if (drained > o_.max_drain_size) break;
    }
  } catch (const CancelledError&) {
    throw;
  } catch (const std::exception&) {
  }
  if (!body_.done()) {
    keep_alive_ = false;
    linger_ = true;
  }
}

Task<void> Connection::close_connection(bool linger) {
  try {
    {
      // A client that stops reading must not hold the connection forever.
      const Duration limit = s_.options.idle_timeout;
      squall::detail::TimeoutScope scope(Clock::now() + limit, limit);
      co_await stream_.shutdown_write();
    }
    if (linger && !s_.stopping) {
      // stop() closes lingering connections at once, as it does idle ones.
      s_.idle.push_back(*this);
      squall::detail::TimeoutScope scope(Clock::now() + kLinger, kLinger);
      size_t total = 0;
      for (;;) {
        stream_.consume(stream_.buffered().size());
        size_t n = co_await stream_.read_more();
        total += n;
        if (n == 0 || total > kLingerBytes) break;
      }
    }
  } catch (const CancelledError&) {
    unlink();
    throw;
  } catch (const std::exception&) {
    // The client went away or the time ran out: closing is all that is left.
  }
  unlink();
}

// --- the response --------------------------------------------------------------------------

void Exchange::build_head(std::string& out, bool finishing) {
  ServerResponse& r = resp_;
  const int status = r.status_;
  body_allowed_ = !(head_request_ || status < 200 || status == 204 || status == 304);
  bool has_date = false, has_server = false, has_connection = false, has_length = false;
  bool handler_close = false;

  HeadBuilder head(out);
  head << "HTTP/1.1 "sv << static_cast<uint64_t>(status) << " "sv
       << (r.reason_.empty() ? reason_phrase(status) : std::string_view(r.reason_)) << "\r\n"sv;
  for (const Header& h : r.headers_) {
    if (!is_token(h.name) || (!h.value.empty() && !is_field_value(h.value))) {
      std::string m = "response header ";
      m.append(h.name).append(" is not a token, or its value holds a control byte");
      throw InvalidArgumentError(m);
    }
    switch (h.name.size()) {
      case 4:
        has_date = has_date || iequals(h.name, "Date");
        break;
      case 6:
        has_server = has_server || iequals(h.name, "Server");
        break;
      case 10:
        if (iequals(h.name, "Connection")) {
          has_connection = true;
          handler_close = handler_close || has_list_token(h.value, "close");
        }
        break;
      case 14:
        if (iequals(h.name, "Content-Length")) {
          uint64_t n = 0;
          if (!parse_length(h.value, n))
            throw InvalidArgumentError("response Content-Length is not a decimal number");
          has_length = true;
          declared_length_ = n;
        }
        break;
      case 17:
        if (iequals(h.name, "Transfer-Encoding"))
          throw InvalidArgumentError("Transfer-Encoding is chosen by the server, not the handler");
        break;
      default:
        break;
    }
    head << h.name << ": "sv << h.value << "\r\n"sv;
  }
  if (!has_date) head << date_header();
  if (!has_server && !o_.server_name.empty()) head << "Server: "sv << o_.server_name << "\r\n"sv;

  if (!has_length) {
    if (!body_allowed_) {
      if (head_request_ && finishing && status >= 200 && status != 204 && status != 304) {
        head << "Content-Length: "sv << r.bytes_written_ << "\r\n"sv;
      }
    } else if (finishing) {
      head << "Content-Length: "sv << uint64_t{body_buf_.size()} << "\r\n"sv;
      declared_length_ = body_buf_.size();
    } else if (req_.version_ >= Version{1, 1}) {
      head << "Transfer-Encoding: chunked\r\n"sv;
      chunked_ = true;
    } else {
      keep_alive_ = false;  // HTTP/1.0 without a length: the close ends the body
    }
  }
  // The client cannot tell where an unread body ends unless we read it: close when we will not.
  if (!body_.done()) {
    bool refused = expect_continue_ && !continue_sent_;
    bool too_big =
        body_.framing().kind == BodyKind::Length && body_.remaining() > o_.max_drain_size;
    if (refused || too_big) keep_alive_ = false;
  }
  if (handler_close || s_.stopping) keep_alive_ = false;
  if (!has_connection) {
    if (!keep_alive_) {
      head << "Connection: close\r\n"sv;
    } else if (req_.version_ < Version{1, 1}) {
      head << "Connection: keep-alive\r\n"sv;
    }
  }
  head << "\r\n"sv;
  r.headers_sent_ = true;
}

void Exchange::append_body(std::string& out, std::string_view data) {
  if (!body_allowed_ || data.empty()) return;
  if (declared_length_ && sent_body_ + data.size() > *declared_length_) {
    throw InvalidStateError("the response body is longer than its Content-Length");
  }
  sent_body_ += data.size();
  if (chunked_) {
    append_chunk_size(out, data.size());
    out.append(data).append("\r\n");
  } else {
    out.append(data);
  }
}

// write, flush and finish do their work before they return, and return a ready task when the
// stream took the bytes at once (the usual case): no coroutine frame for a response that fits.
Task<void> Exchange::write(std::string_view bytes) {
  if (resp_.finished_) throw InvalidStateError("write() after finish()");
  resp_.bytes_written_ += bytes.size();
  if (head_request_) return Task<void>::ready();  // counted for Content-Length, never sent
  body_buf_.append(bytes);
  if (body_buf_.size() > kWriteBuffer) return flush(false);
  return Task<void>::ready();
}

Task<void> Exchange::flush(bool finishing) {
  s_.scratch.clear();
  if (!resp_.headers_sent_) build_head(s_.scratch, finishing);
  append_body(s_.scratch, body_buf_);
  body_buf_.clear();
  if (finishing && chunked_) s_.scratch.append(kLastChunk);
  if (s_.scratch.empty()) return Task<void>::ready();
  return stream_->write(std::string_view(s_.scratch));
}

Task<void> Exchange::finish() {
  if (resp_.finished_) return Task<void>::ready();
  resp_.finished_ = true;
  Task<void> sending = flush(true);
  if (body_allowed_ && declared_length_ && sent_body_ < *declared_length_) {
    std::string line = "response to ";
    line.append(req_.method_).append(" ").append(req_.target_).append(" ended after ");
    line.append(std::to_string(sent_body_)).append(" of its ");
    line.append(std::to_string(*declared_length_)).append(" bytes: closing the connection");
    log(LogLevel::Warning, line);
    keep_alive_ = false;
  }
  return sending;
}

Task<void> Exchange::send_file(int fd, off_t offset, size_t count) {
  if (resp_.finished_) throw InvalidStateError("send_file() after finish()");
  if (!resp_.headers_sent_ && !resp_.headers_.contains("Content-Length")) {
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, body_buf_.size() + count).ptr;
    resp_.headers_.add("Content-Length", std::string_view(digits, end));
  }
  if (head_request_) {
    resp_.bytes_written_ += count;
    co_return;
  }
  if (count <= kSmallFile) {
    // A small file joins the buffered body: head and body then leave in one write, where
    // sendfile would cost a second system call and a second packet.
    size_t at = body_buf_.size();
    body_buf_.resize(at + count);
    size_t got = 0;
    while (got < count) {
      ssize_t n =
          ::pread(fd, body_buf_.data() + at + got, count - got, offset + static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        body_buf_.resize(at);
        throw SystemError("pread (the file is shorter than the range to send)",
                          n < 0 ? errno : EIO);
      }
      got += static_cast<size_t>(n);
    }
    resp_.bytes_written_ += count;
    co_return;
  }
  resp_.bytes_written_ += count;
  co_await flush(false);
  if (!body_allowed_ || count == 0) co_return;
  if (declared_length_ && sent_body_ + count > *declared_length_)
    throw InvalidStateError("the response body is longer than its Content-Length");
  sent_body_ += count;
  if (chunked_) {
    s_.scratch.clear();
    append_chunk_size(s_.scratch, count);
    co_await stream_->write(std::string_view(s_.scratch));
  }
  co_await stream_->send_file(fd, offset, count);
  if (chunked_) co_await stream_->write(std::string_view("\r\n"));
}

}  // namespace squall::http::detail
