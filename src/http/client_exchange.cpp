// One HTTP/1.1 exchange of HttpClient: the request head and body out, the response head and
// framed body in, decoded, within the request's limits.
#include <algorithm>
#include <charconv>

#include "client_internal.h"
#include "squall/core/timeout.h"
#include "squall/http/cookie_jar.h"
#include "squall/http/decode.h"
#include "squall/http/h1_connection.h"
#include "squall/http/http_date.h"
#include "squall/http/redirect.h"
#include "squall/net/net_error.h"
#include "squall/net/stream.h"
#include "squall/url/ascii.h"

namespace squall::http {

Task<void> BodyWriter::write(std::string_view bytes) {
  if (bytes.empty()) co_return;
  if (length_ && written_ + bytes.size() > *length_) {
    throw InvalidArgumentError("body_producer wrote more than the request's Content-Length (" +
                               std::to_string(*length_) + " bytes)");
  }
  written_ += bytes.size();
  if (chunked_) {
    std::string size;
    append_chunk_size(size, bytes.size());
    if (capture_) {
      capture_->sent(size);
      capture_->sent(bytes);
      capture_->sent("\r\n");
    }
    co_await stream_->write(std::move(size));
    co_await stream_->write(bytes);
    co_await stream_->write("\r\n");
  } else {
    if (capture_) capture_->sent(bytes);
    co_await stream_->write(bytes);
  }
}

namespace detail {

HeadLimits head_limits(const Settings& s) {
  HeadLimits limits;
  limits.max_head = s.max_header_size;
  limits.max_start_line = std::min<size_t>(limits.max_start_line, s.max_header_size);
  return limits;
}

NetError protocol_error(const Stream& stream, std::string_view what, ParseStatus status) {
  std::string detail(what);
  detail += ": ";
  detail += parse_status_message(status);
  detail += " (";
  detail += parse_status_name(status);
  detail += ')';
  ErrorKind kind = status == ParseStatus::HeadTooLarge || status == ParseStatus::TooManyHeaders ||
                           status == ParseStatus::StartLineTooLong ||
                           status == ParseStatus::TrailersTooLarge
                       ? ErrorKind::TooLarge
                       : ErrorKind::Protocol;
  return NetError(kind, NetPhase::Read, stream.peer(), detail);
}

std::string build_head(const ClientCore& c, const HttpRequest& req, const Settings& s,
                       const Hop& hop, bool chunked, bool keep_alive) {
  std::string head;
  head.reserve(256 + hop.target.path().size());
  head += hop.method;
  head += ' ';
  if (hop.forwarded()) head += hop.target.origin();
  head += hop.target.path();
  head += " HTTP/1.1\r\n";
  auto field = [&head](std::string_view name, std::string_view value) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  };
  if (!hop.headers->contains("Host")) field("Host", hop.target.authority());
  if (!hop.headers->contains("User-Agent")) field("User-Agent", s.user_agent);
  if (hop.forwarded() && !hop.proxy_authorization.empty() &&
      !hop.headers->contains("Proxy-Authorization"))
    field("Proxy-Authorization", hop.proxy_authorization);
  for (const auto& h : c.options.defaults.headers) {
    if (!hop.headers->contains(h.name)) field(h.name, h.value);
  }
  std::string jar = req.cookie_jar ? req.cookie_jar->header_for(hop.target.url) : std::string();
  for (const auto& h : *hop.headers) {
    if (!is_token(h.name) || !is_field_value(h.value))
      throw InvalidArgumentError("request header '" + h.name +
                                 "': the name is not a token or the value holds a control byte");
    if (!jar.empty() && iequals(h.name, "Cookie")) {  // one Cookie field (RFC 6265 §5.4)
      field(h.name, h.value + "; " + jar);
      jar.clear();
      continue;
    }
    field(h.name, h.value);
  }
  if (!jar.empty()) field("Cookie", jar);
  if (hop.credentials && !hop.headers->contains("Authorization")) {
    const std::optional<std::string>* user = s.auth_username;
    const std::optional<std::string>* password = s.auth_password;
    if (!*user && hop.target.user) {
      user = &hop.target.user;
      password = &hop.target.password;
    }
    if (*user) field("Authorization", basic_credentials(**user, *password));
  }
  if (s.decompress && !hop.headers->contains("Accept-Encoding"))
    field("Accept-Encoding", kAcceptEncoding);
  if (req.if_modified_since && !hop.headers->contains("If-Modified-Since"))
    field("If-Modified-Since", format_http_date(*req.if_modified_since));
  if (!req.if_none_match.empty() && !hop.headers->contains("If-None-Match")) {
    if (!is_field_value(req.if_none_match))
      throw InvalidArgumentError("if_none_match holds a control byte");
    field("If-None-Match", req.if_none_match);
  }
  if (hop.producer) {
    if (chunked) field("Transfer-Encoding", "chunked");
  } else if (hop.body && !hop.headers->contains("Content-Length")) {
    if (!hop.body->empty() || hop.method == "POST" || hop.method == "PUT" ||
        hop.method == "PATCH") {
      char digits[24];
      auto [end, ec] = std::to_chars(digits, digits + sizeof digits, hop.body->size());
      field("Content-Length", std::string_view(digits, static_cast<size_t>(end - digits)));
    }
  }
  if (req.expect_continue && (hop.producer || (hop.body && !hop.body->empty())))
    field("Expect", "100-continue");
  if (!keep_alive && !hop.headers->contains("Connection")) field("Connection", "close");
  head += "\r\n";
  return head;
}

namespace {

// Copies the head's fields into the response.
void take_head(const ResponseView& view, HttpResponse& r) {
  r.code = view.status;
  r.reason.assign(view.reason);
  r.headers.clear();
  r.headers.reserve(view.headers.size());
  for (const auto& h : view.headers) r.headers.add(h.name, h.value);
}

// Tornado's header_callback: the final head again, line by line.
void announce_head(const HttpRequest& req, Version version, const HttpResponse& r) {
  std::string line = "HTTP/";
  line += static_cast<char>('0' + version.major);
  line += '.';
  line += static_cast<char>('0' + version.minor);
  line += ' ';
  line += std::to_string(r.code);
  line += ' ';
  line += r.reason;
  line += "\r\n";
  req.header_callback(line);
  for (const auto& h : r.headers) {
    line.assign(h.name);
    line += ": ";
    line += h.value;
    line += "\r\n";
    req.header_callback(line);
  }
  req.header_callback("\r\n");
}

// Reads one response head (any status, 1xx included) into `r`; returns its framing inputs.
struct HeadInfo {
  int status = 0;
  Version version;
  bool keep_alive = true;
  Framing framing;
  size_t consumed = 0;
};

Task<HeadInfo> read_response_head(Stream& stream, std::span<HeaderView> storage, const Settings& s,
                                  const Hop& hop, HttpResponse& r, ExchangeState& x) {
  ResponseView view;
  ParseResult p;
  try {
    p = co_await read_head(stream, view, storage, head_limits(s), &x.first_byte);
  } catch (const NetError& e) {
    if (x.first_byte != TimePoint{} || e.kind() != ErrorKind::Closed) throw;
    throw StaleConnection{std::current_exception()};
  }
  if (p.status == ParseStatus::Incomplete) {
    if (x.first_byte == TimePoint{}) throw StaleConnection{};
    throw NetError(ErrorKind::Closed, NetPhase::Read, stream.peer(),
                   "the server closed the connection in the middle of the response head (" +
                       std::to_string(stream.buffered().size()) + " bytes received)");
  }
  if (p.status != ParseStatus::Ok) throw protocol_error(stream, "bad response head", p.status);
  if (hop.capture) hop.capture->response_head(stream.buffered().substr(0, p.consumed));
  HeadInfo info;
  info.status = view.status;
  info.version = view.version;
  info.consumed = p.consumed;
  ParseStatus fs =
      response_framing(hop.method, view.status, view.version, view.headers, info.framing);
  if (is_error(fs)) throw protocol_error(stream, "bad response framing", fs);
  if (view.status >= 200) {
    // Only the final head is kept; 1xx heads are looked at and dropped.
    take_head(view, r);
    info.keep_alive = keep_alive(view.version, r.headers);
  }
  stream.consume(p.consumed);
  co_return info;
}

// Hands body bytes to their destination. The bytes on the wire are bounded by the BodyReader
// (max_body_size stops an endless body), the decoded bytes by the decoder (a decompression bomb).
struct BodySink {
  HttpResponse& r;
  const HttpRequest& req;
  bool discard;
  ContentDecoder* decoder = nullptr;
  WireCapture* capture = nullptr;

  void deliver(std::string_view bytes) {
    if (discard || bytes.empty()) return;
    if (decoder) {
      decoder->feed(bytes, [this](std::string_view decoded) { hand_over(decoded); });
    } else {
      hand_over(bytes);
    }
  }
  void hand_over(std::string_view bytes) {
    if (req.streaming_callback) {
      req.streaming_callback(bytes);
    } else {
      r.body.append(bytes);
    }
  }
  // Direct reads into the body string skip deliver(): only without decoding, streaming or
  // capture.
  bool direct() const noexcept {
    return !discard && !decoder && !req.streaming_callback && !capture;
  }
};

NetError body_error(const Stream& stream, const BodyReader& body, ParseStatus status) {
  if (status == ParseStatus::BodyTooLarge) {
    const Framing& f = body.framing();
    std::string limit = std::to_string(body.max_body());
    if (f.kind == BodyKind::Length && f.length > body.max_body())
      return NetError(ErrorKind::TooLarge, NetPhase::Read, stream.peer(),
                      "the response announces " + std::to_string(f.length) +
                          " body bytes, more than max_body_size (" + limit + ")");
    return NetError(ErrorKind::TooLarge, NetPhase::Read, stream.peer(),
                    "the response body exceeds max_body_size (" + limit + " bytes)");
  }
  if (status == ParseStatus::Incomplete) {
    std::string detail = "the server closed the connection in the middle of the body (";
    detail += std::to_string(body.received());
    detail += " bytes received, ";
    if (body.framing().kind == BodyKind::Length) {
      detail += std::to_string(body.framing().length);
      detail += " announced)";
    } else {
      detail += "chunked)";
    }
    return NetError(ErrorKind::Closed, NetPhase::Read, stream.peer(), detail);
  }
  return protocol_error(stream, "bad chunked body", status);
}

// Straight into the body string: what is buffered first, then reads into the string itself.
Task<void> read_length_direct(Stream& stream, BodyReader& body, HttpResponse& r) {
  size_t base = r.body.size();
  // What the stream holds is appended; only the rest, read straight into the body, is first
  // made room for (and zero-filled).
  r.body.reserve(base + body.remaining());
  size_t have = std::min<uint64_t>(body.remaining(), stream.buffered().size());
  r.body.append(stream.buffered().data(), have);
  stream.consume(have);
  body.took(have);
  if (!body.done()) r.body.resize(base + body.received() + body.remaining());
  try {
    while (!body.done()) {
      body.took(co_await stream.read_into(
          std::span<char>(r.body.data() + base + body.received(), body.remaining()), true));
    }
  } catch (const NetError& e) {
    r.body.resize(base + body.received());
    if (e.kind() == ErrorKind::Closed) throw body_error(stream, body, ParseStatus::Incomplete);
    throw;
  }
}

Task<void> read_body(Stream& stream, const Framing& framing, const Settings& s, BodySink& sink,
                     HttpResponse& r) {
  ChunkedLimits limits;
  limits.max_trailers = s.max_header_size;
  BodyReader body(MessageKind::Response, limits);
  if (ParseStatus st = body.start(framing, s.max_body_size); is_error(st))
    throw body_error(stream, body, st);
  if (sink.direct() && framing.kind == BodyKind::Length) {
    co_await read_length_direct(stream, body, r);
    co_return;
  }
  while (!body.done()) {
    std::string_view buf = stream.buffered();
    if (buf.empty()) {
      if (co_await stream.read_more() == 0) {
        if (ParseStatus st = body.end_of_input(); st != ParseStatus::Ok)
          throw body_error(stream, body, st);
        break;
      }
      continue;
    }
    auto step = body.decode(buf);
    if (is_error(step.status)) throw body_error(stream, body, step.status);
    if (sink.capture) {
      sink.capture->received(buf.substr(0, step.consumed));
      sink.capture->payload(step.data);
    }
    sink.deliver(step.data);
    stream.consume(step.consumed);
  }
  if (framing.kind == BodyKind::Chunked) r.trailers = body.trailers();
}

}  // namespace

// One request and its response on `stream`.
Task<void> exchange(ClientCore& c, Stream& stream, const HttpRequest& req, const Settings& s,
                    const Hop& hop, HttpResponse& r, ExchangeState& x) {
  bool chunked = hop.producer && !hop.headers->contains("Content-Length");
  bool keep = c.pool.closed() ? false : c.options.idle_timeout.count() > 0;
  std::span<HeaderView> fields(c.fields.get(), kMaxFields);
  std::string head = build_head(c, req, s, hop, chunked, keep);
  bool has_body = hop.producer || (hop.body && !hop.body->empty());
  bool expect = req.expect_continue && has_body;
  // A small memory body goes in the same write as the head: one system call, one segment.
  bool body_in_head = !expect && !hop.producer && hop.body && hop.body->size() <= 64 * 1024;

  auto send_body = [&]() -> Task<void> {
    if (hop.producer) {
      std::optional<uint64_t> length;
      if (auto cl = hop.headers->get("Content-Length")) {
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), v);
        if (ec != std::errc() || p != cl->data() + cl->size())
          throw InvalidArgumentError("request Content-Length is not a number");
        length = v;
      }
      BodyWriter writer(stream, chunked, length, hop.capture);
      co_await (*hop.producer)(writer);
      if (length && writer.written() != *length)
        throw InvalidArgumentError("body_producer wrote " + std::to_string(writer.written()) +
                                   " bytes, not the request's Content-Length of " +
                                   std::to_string(*length));
      if (chunked) {
        if (hop.capture) hop.capture->sent(kLastChunk);
        co_await stream.write(kLastChunk);
      }
    } else if (hop.body && !hop.body->empty()) {
      if (hop.capture) hop.capture->sent(*hop.body);
      co_await stream.write(std::string_view(*hop.body));
    }
  };

  if (hop.capture) {
    hop.capture->request_head(head);
    if (body_in_head) hop.capture->sent(*hop.body);
  }
  if (body_in_head) head += *hop.body;
  try {
    co_await stream.write(std::move(head));
  } catch (const NetError& e) {
    if (e.kind() == ErrorKind::Closed) throw StaleConnection{std::current_exception()};
    throw;
  }
  x.request_sent = true;
  c.stats.requests++;

  HeadInfo info;
  bool have_final = false;
  bool body_skipped = false;
  if (expect) {
    bool got = false;
    TimePoint wait_until = Loop::time() + 1s;
    try {
      info = co_await with_deadline(wait_until, read_response_head(stream, fields, s, hop, r, x));
      got = true;
    } catch (const TimeoutError&) {
      if (Loop::time() < wait_until) throw;  // an outer limit
    }
    if (got && info.status >= 200) {
      have_final = true;
      body_skipped = true;  // the server answered without the body: it cannot be reused
    } else {
      co_await send_body();
    }
  } else if (!body_in_head) {
    co_await send_body();
  }
  co_await stream.flush();

  while (!have_final) {
    info = co_await read_response_head(stream, fields, s, hop, r, x);
    if (info.status >= 200) have_final = true;
    // 101 would switch protocols, which the client never asks for: treat it as final garbage.
    if (info.status == 101)
      throw NetError(ErrorKind::Protocol, NetPhase::Read, stream.peer(),
                     "the server switched protocols (101) without being asked");
  }

  x.follow = false;
  if (s.follow_redirects && is_redirect(info.status)) {
    if (auto loc = r.headers.get("Location")) {
      x.follow = true;
      x.location.assign(*loc);
    }
  }
  // As in Tornado, a head that only leads to the next hop is not announced.
  if (!x.follow && req.header_callback) announce_head(req, info.version, r);
  BodySink sink{r, req, x.follow};
  sink.capture = hop.capture;
  std::optional<ContentDecoder> decoder;
  if (s.decompress && !x.follow && info.framing.kind != BodyKind::None) {
    if (auto coding = r.headers.get("Content-Encoding")) {
      // DecodeError for a coding it does not know.
      decoder.emplace(*coding, s.max_body_size, RatioGuard{.max_ratio = s.max_decode_ratio});
      if (decoder->identity()) {
        decoder.reset();
      } else {
        // As Tornado does: the body is no longer encoded, the field says what was undone.
        std::string consumed(*coding);
        r.headers.remove("Content-Encoding");
        r.headers.add("X-Consumed-Content-Encoding", consumed);
        sink.decoder = &*decoder;
      }
    }
  }
  r.body.clear();
  if (sink.direct() && info.framing.kind == BodyKind::Length)
    r.body.reserve(std::min<uint64_t>(info.framing.length, s.max_body_size));
  co_await read_body(stream, info.framing, s, sink, r);
  if (decoder) decoder->finish();
  x.reusable = keep && info.keep_alive && !info.framing.must_close && !body_skipped &&
               info.framing.kind != BodyKind::UntilClose && info.framing.kind != BodyKind::Tunnel;
}

}  // namespace detail

}  // namespace squall::http
