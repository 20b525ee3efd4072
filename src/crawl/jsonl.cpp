// JSON text by hand: JSON lines (one line per page, fields in the documented order), and the
// engine's own JSON writer and reader (append_json, parse_json).
#include "squall/crawl/jsonl.h"

#include <bit>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include "squall/core/error.h"
#include "squall/url/charset.h"

namespace squall {

namespace {

// Digits at a time instead of strftime and snprintf, which took about half of a line's time.
void append_digits(std::string& out, int64_t v, int width) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  for (int pad = width - static_cast<int>(end - buf); pad > 0; --pad) out.push_back('0');
  out.append(buf, end);
}

// "2026-11-29T23:01:02.345Z": UTC, milliseconds.
void append_iso_time(std::string& out, int64_t unix_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> at{milliseconds(unix_ms)};
  const sys_days day = floor<days>(at);
  const year_month_day date(day);
  const hh_mm_ss<milliseconds> time(at - day);
  out.push_back('"');
  append_digits(out, static_cast<int>(date.year()), 4);
  out.push_back('-');
  append_digits(out, static_cast<unsigned>(date.month()), 2);
  out.push_back('-');
  append_digits(out, static_cast<unsigned>(date.day()), 2);
  out.push_back('T');
  append_digits(out, time.hours().count(), 2);
  out.push_back(':');
  append_digits(out, time.minutes().count(), 2);
  out.push_back(':');
  append_digits(out, time.seconds().count(), 2);
  out.push_back('.');
  append_digits(out, time.subseconds().count(), 3);
  out.append("Z\"");
}

// The bytes of the word `x` that a JSON string cannot hold as they are (a quote, a backslash, a
// control character, a byte above 0x7f), as the high bit of each: a borrow can only set bits
// above the first such byte, so the first set bit in memory order is exact.
uint64_t special_bytes(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;
  uint64_t quote = x ^ (kOnes * '"'), backslash = x ^ (kOnes * '\\');
  return (((x - kOnes * 0x20) & ~x) | ((quote - kOnes) & ~quote) |
          ((backslash - kOnes) & ~backslash) | x) &
         kHighs;
}

// The place in its word of special_bytes' first byte.
size_t first_special(uint64_t flags) {
  if constexpr (std::endian::native == std::endian::little)
    return static_cast<size_t>(std::countr_zero(flags)) / 8;
  else
    return static_cast<size_t>(std::countl_zero(flags)) / 8;
}

// The length of the longest prefix of `s` that a JSON string holds as it is (a byte above 0x7f
// is then checked as UTF-8): eight bytes at a time, the last word ending where the string ends;
// a string shorter than a word byte by byte.
size_t plain_prefix(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    if (uint64_t flags = special_bytes(x)) return i + first_special(flags);
  }
  if (i == s.size()) return i;
  if (s.size() >= 8) {  // the last eight bytes, of which those before i are known to be plain
    size_t last = s.size() - 8;
    uint64_t x;
    std::memcpy(&x, s.data() + last, 8);
    uint64_t flags = special_bytes(x);
    return flags ? last + first_special(flags) : s.size();
  }
  for (; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
  }
  return i;
}

// The length of the valid UTF-8 sequence starting at s[i] (2 to 4), or 0 if it is not one.
size_t utf8_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n = c >= 0xC2 && c <= 0xDF   ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || i + n > s.size()) return 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (RFC 3629's table)
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

// parse_json's reader: a recursive descent over the text, each value built in its place. It
// accepts exactly RFC 8259's JSON; anything it does not read (an error, or a document nested
// deeper than kMaxDepth) is left to nlohmann's reader, which decides.
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  bool document(nlohmann::json& out) {
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    return i_ == s_.size();
  }

 private:
  static constexpr int kMaxDepth = 128;

  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool digit() const { return i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }

  bool value(nlohmann::json& out, int depth) {
    if (i_ >= s_.size()) return false;
    switch (s_[i_]) {
      case '{':
        return object(out, depth);
      case '[':
        return array(out, depth);
      case '"': {
        std::string text;
        if (!string(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't':
        out = true;
        return word("true");
      case 'f':
        out = false;
        return word("false");
      case 'n':
        out = nullptr;
        return word("null");
      default:
        return number(out);
    }
  }

  bool object(nlohmann::json& out, int depth) {
    if (depth >= kMaxDepth) return false;
    ++i_;
    out = nlohmann::json::object();
    auto& members = out.get_ref<nlohmann::json::object_t&>();
    skip_space();
    if (at('}')) {
      ++i_;
      return true;
    }
    std::string key;
    for (;;) {
      if (!at('"') || !string(key)) return false;
      skip_space();
      if (!at(':')) return false;
      ++i_;
      skip_space();
      // A repeated key keeps its last value, as nlohmann's reader does.
      if (!value(members[key], depth + 1)) return false;
      skip_space();
      if (at(',')) {
        ++i_;
        skip_space();
        continue;
      }
      if (!at('}')) return false;
      ++i_;
      return true;
    }
  }

  bool array(nlohmann::json& out, int depth) {
    if (depth >= kMaxDepth) return false;
    ++i_;
    out = nlohmann::json::array();
    auto& items = out.get_ref<nlohmann::json::array_t&>();
    skip_space();
    if (at(']')) {
      ++i_;
      return true;
    }
    for (;;) {
      if (!value(items.emplace_back(), depth + 1)) return false;
      skip_space();
      if (at(',')) {
        ++i_;
        skip_space();
        continue;
      }
      if (!at(']')) return false;
      ++i_;
      return true;
    }
  }

  bool hex4(uint32_t& out) {
    if (s_.size() - i_ < 4) return false;
    out = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      int v = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (v < 0) return false;
      out = out << 4 | static_cast<uint32_t>(v);
    }
    return true;
  }

  // A string from its opening quote: escapes decoded, UTF-8 checked, control characters refused.
  bool string(std::string& out) {
    out.clear();
    ++i_;
    for (;;) {
      size_t run = i_;
      while (run < s_.size()) {
        auto c = static_cast<unsigned char>(s_[run]);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++run;
      }
      out.append(s_.data() + i_, run - i_);
      i_ = run;
      if (i_ >= s_.size()) return false;
      auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        size_t n = utf8_length(s_, i_);
        if (n == 0) return false;
        out.append(s_.data() + i_, n);
        i_ += n;
        continue;
      }
      if (++i_ >= s_.size()) return false;
      switch (s_[i_++]) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp) || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (!word("\\u") || !hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          return false;
      }
    }
  }

  // An integer is nlohmann's: unsigned unless negative, and a double when it does not fit.
  bool number(nlohmann::json& out) {
    size_t start = i_;
    bool negative = at('-');
    if (negative) ++i_;
    if (!digit()) return false;
    if (s_[i_] == '0') {
      ++i_;
    } else {
      while (digit()) ++i_;
    }
    bool integral = true;
    if (at('.')) {
      integral = false;
      ++i_;
      if (!digit()) return false;
      while (digit()) ++i_;
    }
    if (at('e') || at('E')) {
      integral = false;
      ++i_;
      if (at('+') || at('-')) ++i_;
      if (!digit()) return false;
      while (digit()) ++i_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + i_;
    if (integral && negative) {
      int64_t v = 0;
      if (auto [end, ec] = std::from_chars(first, last, v); ec == std::errc() && end == last) {
        out = v;
        return true;
      }
    } else if (integral) {
      uint64_t v = 0;
      if (auto [end, ec] = std::from_chars(first, last, v); ec == std::errc() && end == last) {
        out = v;
        return true;
      }
    }
    double d = 0;
    auto [end, ec] = std::from_chars(first, last, d);
    if (ec != std::errc() || end != last) return false;
    out = d;
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

// Bytes that are not UTF-8 (a server's Content-Type, say) are replaced rather than passed on,
// so that every line parses.
void append_json_string(std::string& out, std::string_view s) {
  size_t i = plain_prefix(s);
  size_t at = out.size();
  if (i == s.size()) {  // nothing to escape, as in most strings: one copy
    out.resize(at + s.size() + 2);
    char* d = out.data() + at;
    d[0] = '"';
    std::memcpy(d + 1, s.data(), s.size());
    d[s.size() + 1] = '"';
    return;
  }
  out.reserve(at + s.size() + 8);
  out.push_back('"');
  out.append(s.substr(0, i));
  while (i < s.size()) {  // s[i] is a byte to escape or check, then a plain run follows
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out.append(escaped);
      ++i;
    } else if (size_t n = utf8_length(s, i)) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\\ufffd");
      ++i;
    }
    size_t run = i + plain_prefix(s.substr(i));
    out.append(s.substr(i, run - i));
    i = run;
  }
  out.push_back('"');
}

void append_json_number(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out.append("null");
    return;
  }
  char digits[32];
  auto end = std::to_chars(digits, digits + sizeof digits, d).ptr;
  std::string_view text(digits, static_cast<size_t>(end - digits));
  out.append(text);
  // Without a fraction or an exponent it would read back as an integer.
  if (text.find_first_of(".e") == std::string_view::npos) out.append(".0");
}

std::string& JsonObjectWriter::key(std::string_view key) {
  if (!first_) out_.push_back(',');
  first_ = false;
  append_json_string(out_, key);
  out_.push_back(':');
  return out_;
}

JsonObjectWriter& JsonObjectWriter::integer(std::string_view key, int64_t v) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  this->key(key).append(digits, end);
  return *this;
}

void append_json(std::string& out, const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  char digits[32];
  switch (value.type()) {
    case Type::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.get_ref<const nlohmann::json::object_t&>()) {
        if (!first) out.push_back(',');
        first = false;
        append_json_string(out, key);
        out.push_back(':');
        append_json(out, item);
      }
      out.push_back('}');
      return;
    }
    case Type::array: {
      out.push_back('[');
      bool first = true;
      for (const nlohmann::json& item : value) {
        if (!first) out.push_back(',');
        first = false;
        append_json(out, item);
      }
      out.push_back(']');
      return;
    }
    case Type::string:
      append_json_string(out, value.get_ref<const std::string&>());
      return;
    case Type::boolean:
      out.append(value.get<bool>() ? "true" : "false");
      return;
    case Type::number_integer: {
      auto end = std::to_chars(digits, digits + sizeof digits, value.get<int64_t>()).ptr;
      out.append(digits, end);
      return;
    }
    case Type::number_unsigned: {
      auto end = std::to_chars(digits, digits + sizeof digits, value.get<uint64_t>()).ptr;
      out.append(digits, end);
      return;
    }
    case Type::number_float:
      append_json_number(out, value.get<double>());
      return;
    case Type::binary:
    case Type::discarded:
    case Type::null:
      out.append("null");
      return;
  }
}

nlohmann::json parse_json(std::string_view text) {
  nlohmann::json out;
  if (JsonReader(text).document(out)) return out;
  return nlohmann::json::parse(text, nullptr, false);
}

nlohmann::json parse_json_object(std::string_view text) {
  if (text.empty()) return nlohmann::json::object();
  nlohmann::json j = parse_json(text);
  if (!j.is_object()) return nlohmann::json::object();
  return j;
}

JsonLinesWriter JsonLinesWriter::open(const std::string& path, bool links) {
  if (path == "-") return JsonLinesWriter(stdout, false, links);
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (!file)
    throw Error(ErrorKind::System,
                "cannot open " + path + " for JSON lines: " + std::strerror(errno));
  // A line is a few hundred bytes: stdio's default buffer (the file system's block, 4 KiB)
  // would make a write(2) every ten pages, where the crawl flushes at each commit anyway. The
  // buffer is given: glibc ignores the size when setvbuf is to allocate it.
  JsonLinesWriter w(file, true, links);
  w.buffer_ = std::make_unique<char[]>(kBufferSize);
  std::setvbuf(file, w.buffer_.get(), _IOFBF, kBufferSize);
  return w;
}

JsonLinesWriter::JsonLinesWriter(JsonLinesWriter&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      owned_(std::exchange(other.owned_, false)),
      links_(other.links_),
      line_(std::move(other.line_)),
      buffer_(std::move(other.buffer_)) {}

JsonLinesWriter& JsonLinesWriter::operator=(JsonLinesWriter&& other) noexcept {
  if (this != &other) {
    close();
    file_ = std::exchange(other.file_, nullptr);
    owned_ = std::exchange(other.owned_, false);
    links_ = other.links_;
    line_ = std::move(other.line_);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

JsonLinesWriter::~JsonLinesWriter() {
  close();
}

void JsonLinesWriter::close() noexcept {
  if (file_ && owned_) std::fclose(file_);
  file_ = nullptr;
  buffer_.reset();  // stdio's buffer: after the file that wrote from it
}

// A general JSON library cost the crawl a sixth of its CPU: this runs for every page.
void append_page_line(std::string& j, const CrawledPage& p, int64_t fetched_at, bool links) {
  auto text = [&j](const char* key, std::string_view v, bool null_if_empty = false) {
    j.append(key);
    if (null_if_empty && v.empty())
      j.append("null");
    else
      append_json_string(j, v);
  };
  auto number = [&j](const char* key, auto v) {
    j.append(key);
    j.append(std::to_string(v));
  };
  text("{\"url\":", p.url);
  text(",\"final_url\":", p.final_url);
  number(",\"status\":", p.status);
  number(",\"depth\":", p.depth);
  text(",\"parent\":", p.parent, true);
  text(",\"content_type\":", p.content_type);
  number(",\"length\":", p.length);
  j.append(",\"fetched_at\":");
  append_iso_time(j, fetched_at);
  j.append(",\"elapsed_ms\":");
  char elapsed[64];
  // As printf's %.3f: the same digits, without parsing a format string each line.
  auto [end, ec] =
      std::to_chars(elapsed, elapsed + sizeof elapsed, p.elapsed_ms, std::chars_format::fixed, 3);
  if (ec == std::errc())
    j.append(elapsed, end);
  else
    j.append("null");
  number(",\"links\":", p.links);
  text(",\"error\":", p.error, true);
  text(",\"error_kind\":", p.error_kind, true);
  j.append(",\"title\":");
  if (p.title)
    append_json_string(j, *p.title);
  else
    j.append("null");
  auto list = [&j](const char* key, const std::vector<std::string>& items) {
    j.append(key);
    j.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) j.push_back(',');
      append_json_string(j, items[i]);
    }
    j.push_back(']');
  };
  list(",\"redirects\":", p.redirects);
  if (p.content_length)
    number(",\"content_length\":", *p.content_length);
  else
    j.append(",\"content_length\":null");
  text(",\"last_modified\":", p.last_modified, true);
  text(",\"etag\":", p.etag, true);
  if (links) list(",\"outlinks\":", p.outlinks);
  j.append("}\n");
}

void JsonLinesWriter::write(const CrawledPage& p, int64_t fetched_at) {
  line_.clear();
  append_page_line(line_, p, fetched_at, links_);
  std::fwrite(line_.data(), 1, line_.size(), file_);
}

void JsonLinesWriter::flush() {
  std::fflush(file_);
}

std::optional<uint64_t> JsonLinesWriter::offset() const {
  if (!owned_) return std::nullopt;
  return static_cast<uint64_t>(std::ftell(file_));
}

}  // namespace squall
