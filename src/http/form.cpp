// Percent-encoding and urlencoded arguments.
#include "squall/http/form.h"

#include <string>

#include "squall/core/error.h"
#include "squall/url/ascii.h"

namespace squall::http {

namespace {

bool unreserved(unsigned char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

std::string percent_encode(std::string_view s, bool plus_for_space) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (unreserved(c)) {
      out.push_back(ch);
    } else if (c == ' ' && plus_for_space) {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 15]);
    }
  }
  return out;
}

void Arguments::add(std::string name, std::string value) {
  items_.emplace_back(std::move(name), std::move(value));
}

std::optional<std::string_view> Arguments::get(std::string_view name) const noexcept {
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
    if (it->first == name) return std::string_view(it->second);
  }
  return std::nullopt;
}

std::vector<std::string_view> Arguments::get_all(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [n, v] : items_) {
    if (n == name) out.emplace_back(v);
  }
  return out;
}

bool Arguments::contains(std::string_view name) const noexcept {
  for (const auto& item : items_) {
    if (item.first == name) return true;
  }
  return false;
}

Arguments parse_query(std::string_view query, size_t max_fields) {
  Arguments args;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) continue;
    if (args.size() == max_fields) {
      std::string detail = "more than ";
      detail.append(std::to_string(max_fields)).append(" arguments in a query or form");
      throw Error(ErrorKind::TooLarge, detail);
    }
    size_t eq = piece.find('=');
    if (eq == std::string_view::npos) {
      args.add(percent_decode(piece, true), {});
    } else {
      args.add(percent_decode(piece.substr(0, eq), true),
               percent_decode(piece.substr(eq + 1), true));
    }
  }
  return args;
}

std::string urlencode(const Arguments& args) {
  std::string out;
  for (const auto& [name, value] : args) {
    if (!out.empty()) out.push_back('&');
    out.append(percent_encode(name, true));
    out.push_back('=');
    out.append(percent_encode(value, true));
  }
  return out;
}

}  // namespace squall::http
