// The streaming multipart/form-data parser: a small state machine over a bounded buffer.
#include "squall/http/multipart.h"

#include <cstdio>
#include <random>
#include <utility>

#include "squall/http/message.h"
#include "squall/url/ascii.h"

namespace squall::http {

namespace {

// bchars (RFC 2046 §5.1.1): DIGIT / ALPHA / "'()+_,-./:=?" and space (not last).
bool boundary_char(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos;
}

// Splits "type; a=1; b=\"x;y\"" into its parameters: name (lower-cased) → value, unquoted,
// with backslash escapes in quoted strings undone. `s` starts after the first ';'.
std::vector<std::pair<std::string, std::string>> parameters(std::string_view s) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ';')) ++i;
    size_t name_start = i;
    while (i < s.size() && s[i] != '=' && s[i] != ';') ++i;
    std::string name;
    for (char c : trim_ows(s.substr(name_start, i - name_start))) name.push_back(ascii_lower(c));
    std::string value;
    if (i < s.size() && s[i] == '=') {
      ++i;
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      if (i < s.size() && s[i] == '"') {
        ++i;
        while (i < s.size() && s[i] != '"') {
          if (s[i] == '\\' && i + 1 < s.size()) ++i;
          value.push_back(s[i++]);
        }
        if (i < s.size()) ++i;  // the closing quote
        while (i < s.size() && s[i] != ';') ++i;
      } else {
        size_t start = i;
        while (i < s.size() && s[i] != ';') ++i;
        value = std::string(trim_ows(s.substr(start, i - start)));
      }
    }
    if (!name.empty()) out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

// RFC 5987 ext-value: charset'language'percent-encoded; only UTF-8 and ISO-8859-1 (kept as
// bytes) are worth honouring, and browsers send UTF-8.
std::optional<std::string> ext_value(std::string_view v) {
  size_t q1 = v.find('\'');
  if (q1 == std::string_view::npos) return std::nullopt;
  size_t q2 = v.find('\'', q1 + 1);
  if (q2 == std::string_view::npos) return std::nullopt;
  return percent_decode(v.substr(q2 + 1));
}

}  // namespace

std::optional<std::string> multipart_boundary(std::string_view content_type) {
  size_t semi = content_type.find(';');
  std::string_view type = trim_ows(content_type.substr(0, semi));
  if (type.size() < 10 || !iequals(type.substr(0, 10), "multipart/")) return std::nullopt;
  if (semi == std::string_view::npos) return std::nullopt;
  for (auto& [name, value] : parameters(content_type.substr(semi + 1))) {
    if (name != "boundary") continue;
    if (value.empty() || value.size() > 70 || value.back() == ' ') return std::nullopt;
    for (char c : value) {
      if (!boundary_char(c)) return std::nullopt;
    }
    return value;
  }
  return std::nullopt;
}

MultipartParser::MultipartParser(std::string boundary, MultipartCallbacks callbacks,
                                 MultipartLimits limits)
    : callbacks_(std::move(callbacks)), limits_(limits) {
  delimiter_.reserve(boundary.size() + 4);
  delimiter_.append("\r\n--").append(boundary);
  // The first delimiter may open the body with no CRLF before it: a virtual CRLF in front
  // lets one search find both forms.
  buffer_ = "\r\n";
}

void MultipartParser::fail(ErrorKind kind, std::string_view why) {
  state_ = State::Failed;
  buffer_.clear();
  offset_ = 0;
  std::string detail = "multipart body: ";
  detail.append(why);
  throw Error(kind, detail);
}

void MultipartParser::feed(std::string_view bytes) {
  if (state_ == State::Failed) throw InvalidStateError("multipart parser: fed after an error");
  if (state_ == State::Epilogue) return;
  buffer_.append(bytes);
  parse();
  // Drop what was parsed; what stays is at most a head in progress or a delimiter's worth.
  buffer_.erase(0, offset_);
  offset_ = 0;
}

void MultipartParser::finish() {
  if (state_ == State::Failed) throw InvalidStateError("multipart parser: finished after an error");
  if (state_ != State::Epilogue) fail(ErrorKind::Protocol, "ends before the closing delimiter");
}

void MultipartParser::parse() {
  const size_t keep = delimiter_.size() - 1;  // a delimiter may start in these last bytes
  while (true) {
    std::string_view rest = std::string_view(buffer_).substr(offset_);
    switch (state_) {
      case State::Preamble: {
        size_t pos = rest.find(delimiter_);
        if (pos == std::string_view::npos) {
          size_t skip = rest.size() > keep ? rest.size() - keep : 0;
          preamble_seen_ += skip;
          offset_ += skip;
          if (preamble_seen_ > limits_.max_preamble) {
            fail(ErrorKind::TooLarge, "no boundary within the preamble limit");
          }
          return;
        }
        if (preamble_seen_ + pos > limits_.max_preamble) {
          fail(ErrorKind::TooLarge, "no boundary within the preamble limit");
        }
        offset_ += pos + delimiter_.size();
        state_ = State::AfterDelimiter;
        break;
      }
      case State::AfterDelimiter: {
        if (rest.size() < 2) return;
        if (rest.substr(0, 2) == "--") {
          offset_ = buffer_.size();
          state_ = State::Epilogue;
          return;
        }
        // Transport padding (whitespace) may sit between a delimiter and its CRLF.
        size_t i = 0;
        while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
        if (i > 256) fail(ErrorKind::Protocol, "too much padding after a delimiter");
        if (rest.size() < i + 2) return;
        if (rest.substr(i, 2) != "\r\n")
          fail(ErrorKind::Protocol, "a delimiter is not followed by CRLF");
        offset_ += i + 2;
        state_ = State::Head;
        break;
      }
      case State::Head: {
        size_t end;
        if (rest.substr(0, 2) == "\r\n") {
          end = 0;  // a part with no fields
        } else {
          end = rest.find("\r\n\r\n");
          if (end == std::string_view::npos) {
            if (rest.size() > limits_.max_head_size) {
              fail(ErrorKind::TooLarge, "a part head is too large");
            }
            return;
          }
          end += 2;
        }
        if (end > limits_.max_head_size) fail(ErrorKind::TooLarge, "a part head is too large");
        if (++parts_ > limits_.max_parts) fail(ErrorKind::TooLarge, "too many parts");
        parse_head(rest.substr(0, end));
        offset_ += end + 2;
        state_ = State::Body;
        break;
      }
      case State::Body: {
        size_t pos = rest.find(delimiter_);
        if (pos == std::string_view::npos) {
          if (rest.size() > keep) {
            size_t emit = rest.size() - keep;
            if (callbacks_.on_data) callbacks_.on_data(rest.substr(0, emit));
            offset_ += emit;
          }
          return;
        }
        if (pos > 0 && callbacks_.on_data) callbacks_.on_data(rest.substr(0, pos));
        if (callbacks_.on_part_end) callbacks_.on_part_end();
        offset_ += pos + delimiter_.size();
        state_ = State::AfterDelimiter;
        break;
      }
      case State::Epilogue:
      case State::Failed:
        offset_ = buffer_.size();
        return;
    }
  }
}

void MultipartParser::parse_head(std::string_view head) {
  PartHead part;
  while (!head.empty()) {
    size_t eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    head = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) fail(ErrorKind::Protocol, "a part field has no colon");
    std::string_view name = line.substr(0, colon);
    std::string_view value = trim_ows(line.substr(colon + 1));
    if (!is_token(name)) fail(ErrorKind::Protocol, "a part field name is not a token");
    part.headers.add(name, value);
  }
  if (auto cd = part.headers.get("Content-Disposition")) {
    size_t semi = cd->find(';');
    if (semi != std::string_view::npos) {
      std::optional<std::string> ext_filename;
      for (auto& [name, value] : parameters(cd->substr(semi + 1))) {
        if (name == "name")
          part.name = std::move(value);
        else if (name == "filename")
          part.filename = std::move(value);
        else if (name == "filename*")
          ext_filename = ext_value(value);
      }
      if (ext_filename) part.filename = std::move(ext_filename);
    }
  }
  auto type = part.headers.get("Content-Type");
  part.content_type = type ? std::string(*type) : std::string("text/plain");
  if (callbacks_.on_part) callbacks_.on_part(part);
}

MultipartForm parse_multipart(std::string_view body, std::string_view boundary,
                              const MultipartLimits& limits) {
  MultipartForm form;
  std::optional<PartHead> current;
  std::string data;
  MultipartParser parser(
      std::string(boundary),
      {.on_part =
           [&](const PartHead& head) {
             current = head;
             data.clear();
           },
       .on_data = [&](std::string_view bytes) { data.append(bytes); },
       .on_part_end =
           [&] {
             if (current->filename) {
               form.files.push_back({std::move(current->name), std::move(*current->filename),
                                     std::move(current->content_type), std::move(data)});
             } else {
               form.fields.add(std::move(current->name), std::move(data));
             }
             data = {};
           }},
      limits);
  parser.feed(body);
  parser.finish();
  return form;
}

namespace {

// A name or filename inside the Content-Disposition's quotes.
void append_quoted(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    if (c == '"') {
      out += "%22";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace

std::string make_multipart_boundary() {
  std::random_device random;
  std::uniform_int_distribution<unsigned long long> digits;
  char text[24 + 16 + 1];
  std::snprintf(text, sizeof text, "------------------------%016llx", digits(random));
  return text;
}

std::string format_multipart(const std::vector<MultipartPart>& parts, std::string_view boundary) {
  std::string out;
  for (const auto& part : parts) {
    out += "--";
    out += boundary;
    out += "\r\nContent-Disposition: form-data; name=";
    append_quoted(out, part.name);
    if (part.filename) {
      out += "; filename=";
      append_quoted(out, *part.filename);
    }
    out += "\r\n";
    if (!part.content_type.empty()) {
      out += "Content-Type: ";
      out += part.content_type;
      out += "\r\n";
    }
    out += "\r\n";
    out += part.body;
    out += "\r\n";
  }
  out += "--";
  out += boundary;
  out += "--\r\n";
  return out;
}

}  // namespace squall::http
