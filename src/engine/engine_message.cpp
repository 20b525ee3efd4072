// The components' messages as bytes: a tag, a version, then LEB128-length-prefixed fields.
#include "squall/engine/engine_message.h"

#include <cstring>
#include <limits>

#include "squall/core/error.h"
#include "squall/crawl/jsonl.h"

namespace squall {

namespace {

using nlohmann::json;

constexpr char kMagic0 = 'S';
constexpr char kMagic1 = 'Q';
constexpr char kVersion = 1;
constexpr char kDispatch = 'D';
constexpr char kFetched = 'F';
constexpr char kOutput = 'O';
constexpr char kParked = 'P';

class Writer {
 public:
  explicit Writer(char kind) {
    out_.push_back(kMagic0);
    out_.push_back(kMagic1);
    out_.push_back(kind);
    out_.push_back(kVersion);
  }
  void u64(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void bytes(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void f64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
  void json_text(const json& j) {
    scratch_.clear();
    append_json(scratch_, j);
    bytes(scratch_);
  }
  void task(const CrawlTask& t) { json_text(t.to_json()); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
  std::string scratch_;
};

class Reader {
 public:
  Reader(std::string_view in, char kind, const char* what) : in_(in), what_(what) {
    if (in_.size() < 4 || in_[0] != kMagic0 || in_[1] != kMagic1)
      fail("it is not a squall engine message");
    if (in_[2] != kind) fail(std::string("it is a message of another kind ('") + in_[2] + "')");
    if (in_[3] != kVersion)
      fail("its format version is " + std::to_string(static_cast<int>(in_[3])) +
           ", not the one this squall reads (" + std::to_string(kVersion) + ")");
    at_ = 4;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= in_.size()) fail("it ends inside a number");
      auto byte = static_cast<unsigned char>(in_[at_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    fail("a number is longer than 64 bits");
  }
  std::string_view bytes() {
    uint64_t n = u64();
    if (n > in_.size() - at_) fail("a field runs past its end");
    std::string_view s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  double f64() {
    if (in_.size() - at_ < 8) fail("it ends inside a number");
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i)
      bits |= static_cast<uint64_t>(static_cast<unsigned char>(in_[at_ + i])) << (8 * i);
    at_ += 8;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  // A count of elements that each take at least one more byte: never more than what is left.
  size_t count() {
    uint64_t n = u64();
    if (n > in_.size() - at_) fail("a list claims more elements than it has bytes");
    return static_cast<size_t>(n);
  }
  bool flag() {
    uint64_t v = u64();
    if (v > 1) fail("a flag is neither 0 nor 1");
    return v == 1;
  }
  json json_text() {
    std::string_view text = bytes();
    json j = parse_json(text);
    if (j.is_discarded()) fail("a JSON field does not parse");
    return j;
  }
  // A JSON object's text, checked but not parsed into a value: the scheduler stores it as it is.
  JsonText object_text() {
    std::string_view text = bytes();
    if (!text.empty() && (text.front() != '{' || !json::accept(text)))
      fail("a JSON object field is not one");
    return JsonText::of_text(std::string(text));
  }
  CrawlTask task() {
    json j = json_text();
    try {
      return CrawlTask::from_json(j);
    } catch (const Error& e) {
      fail(std::string("a task in it is refused: ") + e.what());
    }
  }
  void end() {
    if (at_ != in_.size()) fail("bytes follow its last field");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw InvalidArgumentError(std::string("a ") + what_ + " message cannot be read: " + why);
  }

 private:
  std::string_view in_;
  size_t at_ = 0;
  const char* what_;
};

void write_result(Writer& w, const FetchResult& r) {
  w.u64(static_cast<uint32_t>(r.status_code));
  w.bytes(r.orig_url);
  w.bytes(r.url);
  w.u64(r.headers.size());
  for (const http::Header& h : r.headers) {
    w.bytes(h.name);
    w.bytes(h.value);
  }
  w.json_text(r.cookies);
  w.bytes(r.content);
  w.bytes(r.encoding);
  w.f64(r.time);
  w.json_text(r.save);
  w.bytes(r.error);
  w.bytes(r.error_kind);
  w.u64(r.redirects.size());
  for (const std::string& url : r.redirects) w.bytes(url);
  w.u64(r.unchanged ? 1 : 0);
  w.json_text(r.js_script_result);
}

FetchResult read_result(Reader& r) {
  FetchResult f;
  uint64_t status = r.u64();
  if (status > 999) r.fail("a status code is past 999");
  f.status_code = static_cast<int>(status);
  f.orig_url = r.bytes();
  f.url = r.bytes();
  size_t headers = r.count();
  f.headers.reserve(headers);
  for (size_t i = 0; i < headers; ++i) {
    std::string_view name = r.bytes();
    f.headers.add(name, r.bytes());
  }
  f.cookies = r.json_text();
  f.content = r.bytes();
  f.encoding = r.bytes();
  f.time = r.f64();
  f.save = r.json_text();
  f.error = r.bytes();
  f.error_kind = r.bytes();
  size_t redirects = r.count();
  f.redirects.reserve(redirects);
  for (size_t i = 0; i < redirects; ++i) f.redirects.emplace_back(r.bytes());
  f.unchanged = r.flag();
  f.js_script_result = r.json_text();
  return f;
}

}  // namespace

std::string encode_dispatch(const Dispatch& d) {
  Writer w(kDispatch);
  w.task(d.task);
  w.u64(d.token);
  return w.take();
}

Dispatch decode_dispatch(std::string_view bytes) {
  Reader r(bytes, kDispatch, "dispatch");
  Dispatch d;
  d.task = r.task();
  d.token = r.u64();
  r.end();
  return d;
}

std::string encode_fetched(const FetchedTask& f) {
  Writer w(kFetched);
  w.task(f.dispatch.task);
  w.u64(f.dispatch.token);
  write_result(w, f.result);
  return w.take();
}

FetchedTask decode_fetched(std::string_view bytes) {
  Reader r(bytes, kFetched, "fetched page");
  FetchedTask f;
  f.dispatch.task = r.task();
  f.dispatch.token = r.u64();
  f.result = read_result(r);
  r.end();
  return f;
}

std::string encode_output(const ProcessOutput& o) {
  Writer w(kOutput);
  w.bytes(o.status.project);
  w.bytes(o.status.taskid);
  w.u64(o.status.token);
  w.u64(o.status.ok ? 1 : 0);
  w.bytes(o.status.track.text());
  w.u64(o.follows.size());
  for (const CrawlTask& t : o.follows) w.task(t);
  w.u64(o.result ? 1 : 0);
  if (o.result) {
    w.bytes(o.result->taskid);
    w.bytes(o.result->url);
    w.json_text(o.result->result);
    w.f64(o.result->updatetime);
  }
  return w.take();
}

ProcessOutput decode_output(std::string_view bytes) {
  Reader r(bytes, kOutput, "process output");
  ProcessOutput o;
  o.status.project = r.bytes();
  o.status.taskid = r.bytes();
  o.status.token = r.u64();
  o.status.ok = r.flag();
  o.status.track = r.object_text();
  size_t follows = r.count();
  o.follows.reserve(follows);
  for (size_t i = 0; i < follows; ++i) o.follows.push_back(r.task());
  if (r.flag()) {
    TaskResult result;
    result.taskid = r.bytes();
    result.url = r.bytes();
    result.result = r.json_text();
    result.updatetime = r.f64();
    o.result = std::move(result);
  }
  r.end();
  return o;
}

std::string encode_parked(const ParkedTask& p) {
  Writer w(kParked);
  w.bytes(p.project);
  w.bytes(p.taskid);
  w.u64(p.token);
  w.bytes(p.host);
  w.bytes(p.reason);
  return w.take();
}

ParkedTask decode_parked(std::string_view bytes) {
  Reader r(bytes, kParked, "parked task");
  ParkedTask p;
  p.project = r.bytes();
  p.taskid = r.bytes();
  p.token = r.u64();
  p.host = r.bytes();
  p.reason = r.bytes();
  r.end();
  return p;
}

std::optional<EngineMessageKind> engine_message_kind(std::string_view bytes) noexcept {
  if (bytes.size() < 4 || bytes[0] != kMagic0 || bytes[1] != kMagic1) return std::nullopt;
  switch (bytes[2]) {
    case kDispatch:
      return EngineMessageKind::Dispatch;
    case kFetched:
      return EngineMessageKind::Fetched;
    case kOutput:
      return EngineMessageKind::Output;
    case kParked:
      return EngineMessageKind::Parked;
    default:
      return std::nullopt;
  }
}

}  // namespace squall
