// Content negotiation: Accept-Encoding weights and the compressible media types.
#include "squall/http/content_negotiation.h"

#include <algorithm>

#include "squall/http/message.h"

namespace squall::http {

namespace {

// A qvalue ("1", "0.5", "0.000") in thousandths; -1 when malformed.
int parse_qvalue(std::string_view v) noexcept {
  if (v.empty() || v.size() > 5 || (v[0] != '0' && v[0] != '1')) return -1;
  int thousandths = (v[0] - '0') * 1000;
  if (v.size() == 1) return thousandths;
  if (v[1] != '.') return -1;
  int scale = 100;
  for (char c : v.substr(2)) {
    if (c < '0' || c > '9') return -1;
    thousandths += (c - '0') * scale;
    scale /= 10;
  }
  return thousandths <= 1000 ? thousandths : -1;
}

}  // namespace

std::vector<ContentCoding> acceptable_codings(std::string_view accept_encoding,
                                              std::initializer_list<ContentCoding> offered) {
  struct Weighed {
    ContentCoding coding;
    int named = -1;  // the weight the field gives it by name; -1 when not named
  };
  std::vector<Weighed> weights;
  for (ContentCoding c : offered) weights.push_back({c});
  int star = -1;
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view element = trim_ows(accept_encoding.substr(0, comma));
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    size_t semi = element.find(';');
    std::string_view name = trim_ows(element.substr(0, semi));
    std::string_view params =
        semi == std::string_view::npos ? std::string_view() : element.substr(semi + 1);
    int q = 1000;
    while (!params.empty()) {
      size_t next = params.find(';');
      std::string_view param = trim_ows(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view() : params.substr(next + 1);
      if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=')
        q = parse_qvalue(trim_ows(param.substr(2)));
    }
    if (name.empty() || q < 0) continue;
    if (name == "*") {
      star = std::max(star, q);
      continue;
    }
    for (Weighed& w : weights) {
      std::string_view coding = content_coding_name(w.coding);
      if (iequals(name, coding) || (w.coding == ContentCoding::Gzip && iequals(name, "x-gzip")))
        w.named = std::max(w.named, q);
    }
  }
  std::vector<std::pair<int, ContentCoding>> allowed;
  for (const Weighed& w : weights) {
    int q = w.named >= 0 ? w.named : star;
    if (q > 0) allowed.emplace_back(q, w.coding);
  }
  std::stable_sort(allowed.begin(), allowed.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<ContentCoding> out;
  out.reserve(allowed.size());
  for (const auto& a : allowed) out.push_back(a.second);
  return out;
}

bool compressible_type(std::string_view media_type) noexcept {
  std::string_view type = trim_ows(media_type.substr(0, media_type.find(';')));
  if (istarts_with(type, "text/")) return true;
  static constexpr std::string_view kTypes[] = {
      "application/json",         "application/javascript",  "application/xml",
      "application/wasm",         "image/svg+xml",           "application/manifest+json",
      "application/x-javascript", "image/vnd.microsoft.icon"};
  for (std::string_view t : kTypes)
    if (iequals(type, t)) return true;
  size_t plus = type.rfind('+');
  if (plus != std::string_view::npos && istarts_with(type, "application/")) {
    std::string_view suffix = type.substr(plus);
    return iequals(suffix, "+json") || iequals(suffix, "+xml");
  }
  return false;
}

}  // namespace squall::http
