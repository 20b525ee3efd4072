// Link policy: which tags give links, rel and nofollow, <base> and <meta>, and resolving them.
#include "squall/crawl/links.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "html_tokenizer.h"
#include "squall/url/ascii.h"
#include "squall/url/charset.h"

namespace squall {

namespace detail {

using namespace html;

namespace {

// The attributes each element's start tag is read for: links, the base URL, robots and charset.
constexpr KeptAttributes kKeptAttributes = [] {
  KeptAttributes kept{};
  auto at = [&](Tag tag) -> uint8_t& { return kept[static_cast<size_t>(tag)]; };
  at(Tag::A) = at(Tag::Area) = at(Tag::Link) = 1 << Href | 1 << Rel;
  at(Tag::Iframe) = at(Tag::Frame) = 1 << Src;
  at(Tag::Base) = 1 << Href;
  at(Tag::Meta) = 1 << Name | 1 << Content | 1 << Charset | 1 << HttpEquiv;
  return kept;
}();

// The HTML Standard's "algorithm for extracting a character encoding from a meta element".
std::optional<std::string> charset_from_content(std::string_view s) {
  size_t pos = 0;
  for (;;) {
    size_t at = std::string_view::npos;
    for (size_t i = pos; i + 7 <= s.size(); ++i) {
      if (iequals(s.substr(i, 7), "charset")) {
        at = i;
        break;
      }
    }
    if (at == std::string_view::npos) return std::nullopt;
    size_t i = at + 7;
    while (i < s.size() && is_ascii_whitespace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      pos = at + 7;
      continue;
    }
    ++i;
    while (i < s.size() && is_ascii_whitespace(s[i])) ++i;
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"' || s[i] == '\'') {
      const size_t close = s.find(s[i], i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return std::string(s.substr(i + 1, close - i - 1));
    }
    size_t e = i;
    while (e < s.size() && !is_ascii_whitespace(s[e]) && s[e] != ';') ++e;
    return std::string(s.substr(i, e - i));
  }
}

// Calls f(token) for each token of a list separated by commas and/or ASCII whitespace.
template <typename F>
void for_each_token(std::string_view s, F f) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (is_ascii_whitespace(s[i]) || s[i] == ',')) ++i;
    size_t e = i;
    while (e < s.size() && !is_ascii_whitespace(s[e]) && s[e] != ',') ++e;
    if (e > i) f(s.substr(i, e - i));
    i = e;
  }
}

// Subresource rels: a <link> with one of these is not a page to crawl.
bool is_resource_rel(std::string_view token) {
  static constexpr std::string_view kResource[] = {"stylesheet",
                                                   "icon",
                                                   "shortcut",
                                                   "apple-touch-icon",
                                                   "apple-touch-icon-precomposed",
                                                   "mask-icon",
                                                   "preload",
                                                   "prefetch",
                                                   "preconnect",
                                                   "dns-prefetch",
                                                   "modulepreload",
                                                   "prerender",
                                                   "manifest",
                                                   "pingback",
                                                   "expect",
                                                   "compression-dictionary"};
  for (std::string_view r : kResource) {
    if (iequals(token, r)) return true;
  }
  return false;
}

}  // namespace

// A raw link as found: where its attribute bytes lie in LinkTokenizer::held_, still in the page's
// encoding, references unresolved.
struct RawLink {
  LinkElement element;
  bool has_rel;
  uint32_t value_begin, value_size;
  uint32_t rel_begin, rel_size;
};

// The tokenizer with what LinkExtractor keeps of a page: its links, base, robots and charset.
class LinkTokenizer final : public Tokenizer {
 public:
  // LinkOptions' fields are taken apart, the page URL as the base URL until settle() has read
  // the page's <base>: an extractor is allocated per page, and one under glibc's tcache limit
  // (1,032 bytes) costs a few instructions where a larger one costs thousands.
  explicit LinkTokenizer(LinkOptions options)
      : Tokenizer(kKeptAttributes),
        base_url_(std::move(options.page_url)),
        charset_(std::move(options.charset)),
        on_link_(std::move(options.on_link)),
        held_links_(options.held_links),
        resource_links_(options.resource_links) {}

  // Decodes and resolves the links once the page has ended.
  void finish();

  std::optional<Url> base_url_;  // LinkOptions::page_url until settled
  std::string charset_;
  std::function<void(Link&&)> on_link_;
  size_t held_links_;
  bool resource_links_;
  // Fixed when the links are first resolved: at finish(), or (streaming) once held_links are
  // held.
  std::optional<TextDecoder> decoder_;
  std::string held_;  // the bytes of raw_links_
  std::vector<RawLink> raw_links_;
  std::vector<Link> links_;
  std::optional<std::string> raw_base_;
  std::optional<std::string> base_href_;
  std::optional<std::string> meta_charset_;
  RobotsMeta robots_;
  std::optional<std::string> raw_title_;  // capped at kMaxTitleBytes
  std::optional<std::string> title_;
  bool finished_ = false;

 private:
  void start_tag(Tag tag, const Attributes& attributes) override;
  void title_text(std::string_view bytes) override {
    std::string& t = raw_title_ ? *raw_title_ : raw_title_.emplace();
    t.append(bytes.substr(
        0, LinkExtractor::kMaxTitleBytes - std::min(t.size(), LinkExtractor::kMaxTitleBytes)));
  }
  void meta(const Attributes& attributes);
  // A raw link found: held, or (streaming, once settled) resolved and handed on at once.
  void found(LinkElement element, std::string_view value, std::optional<std::string_view> rel);
  // Fixes the decoder and the base URL from what the page has said so far, and resolves the
  // links held.
  void settle();
  bool settled() const noexcept { return decoder_.has_value(); }
  // The encoding a link's query is written in; empty for UTF-8.
  std::string_view query_encoding() const noexcept {
    return decoder_->is_utf8() ? std::string_view() : std::string_view(decoder_->encoding());
  }
  // Attribute bytes → UTF-8 → references resolved → (strip) whitespace stripped, into `out`
  // (whose buffer is reused).
  void decode(std::string_view bytes, bool strip, std::string& out);
  // Sets every field of `link` (which may be one handed on before, so that its buffers are
  // reused) from a raw link's element, value and rel (nullopt without one); false when it is a
  // resource link that is not reported.
  bool resolve(LinkElement element, std::string_view value, std::optional<std::string_view> rel,
               Link& link);
  void emit(Link&& link);
};

void LinkTokenizer::start_tag(Tag tag, const Attributes& a) {
  switch (tag) {
    case Tag::A:
    case Tag::Area:
    case Tag::Link:
      if (a.has(Href)) {
        const LinkElement element = tag == Tag::A      ? LinkElement::A
                                    : tag == Tag::Area ? LinkElement::Area
                                                       : LinkElement::Link;
        std::optional<std::string_view> rel;
        if (a.has(Rel)) rel = a.value(Rel);
        found(element, a.value(Href), rel);
      }
      break;
    case Tag::Iframe:
    case Tag::Frame:
      if (a.has(Src)) {
        found(tag == Tag::Iframe ? LinkElement::Iframe : LinkElement::Frame, a.value(Src),
              std::nullopt);
      }
      break;
    case Tag::Base:
      if (!raw_base_ && a.has(Href)) raw_base_.emplace(a.value(Href));
      break;
    case Tag::Meta:
      meta(a);
      break;
    default:
      break;
  }
}

void LinkTokenizer::meta(const Attributes& a) {
  if (a.has(Name) && a.has(Content) &&
      iequals(strip_ascii_whitespace(decode_attribute(a.value(Name))), "robots")) {
    for_each_token(decode_attribute(a.value(Content)), [this](std::string_view token) {
      if (iequals(token, "noindex")) robots_.noindex = true;
      if (iequals(token, "nofollow")) robots_.nofollow = true;
      if (iequals(token, "none")) robots_.noindex = robots_.nofollow = true;
    });
  }
  if (meta_charset_) return;
  if (a.has(Charset)) {
    const std::string value(strip_ascii_whitespace(decode_attribute(a.value(Charset))));
    if (!value.empty()) meta_charset_ = value;
  } else if (a.has(HttpEquiv) && a.has(Content) &&
             iequals(strip_ascii_whitespace(decode_attribute(a.value(HttpEquiv))),
                     "content-type")) {
    meta_charset_ = charset_from_content(decode_attribute(a.value(Content)));
  }
}

void LinkTokenizer::found(LinkElement element, std::string_view value,
                          std::optional<std::string_view> rel) {
  if (settled()) {
    Link link;
    if (resolve(element, value, rel, link)) emit(std::move(link));
    return;
  }
  // Held in one buffer: a page's links cost no allocation each. The first link makes room for
  // about 50 (most pages' links) in two allocations, each under glibc's tcache limit (1,032
  // bytes), where growing from one would take a dozen.
  if (raw_links_.empty()) {
    raw_links_.reserve(1024 / sizeof(RawLink));
    held_.reserve(1000);
  }
  RawLink raw{element,
              rel.has_value(),
              static_cast<uint32_t>(held_.size()),
              static_cast<uint32_t>(value.size()),
              0,
              0};
  held_.append(value);
  if (rel) {
    raw.rel_begin = static_cast<uint32_t>(held_.size());
    raw.rel_size = static_cast<uint32_t>(rel->size());
    held_.append(*rel);
  }
  raw_links_.push_back(raw);
  if (on_link_ && raw_links_.size() >= held_links_) settle();
}

void LinkTokenizer::decode(std::string_view bytes, bool strip, std::string& out) {
  // Most links are UTF-8 without a reference, CR or NUL: their bytes are the link, and the
  // memchr calls cost less than string::find_first_of, which looks for the set at each byte.
  auto has = [bytes](char c) { return std::memchr(bytes.data(), c, bytes.size()) != nullptr; };
  if (decoder_->is_utf8() && !has('&') && !has('\r') && !has('\0')) {
    out.assign(strip ? strip_ascii_whitespace(bytes) : bytes);
    return;
  }
  std::string utf8;
  if (!decoder_->is_utf8()) {
    decoder_->decode(bytes, utf8);
    bytes = utf8;
  }
  out = decode_attribute(bytes);
  if (!strip) return;
  // After decoding: "&#32;" and "&Tab;" are whitespace too.
  const std::string_view kept = strip_ascii_whitespace(out);
  if (kept.size() == out.size()) return;
  out.erase(static_cast<size_t>(kept.data() + kept.size() - out.data()));
  out.erase(0, static_cast<size_t>(kept.data() - out.data()));
}

void LinkTokenizer::settle() {
  decoder_.emplace(!charset_.empty() ? std::string_view(charset_)
                   : meta_charset_   ? std::string_view(*meta_charset_)
                                     : std::string_view("utf-8"));
  if (raw_base_) decode(*raw_base_, true, base_href_.emplace());
  if (base_url_ && base_href_) {
    // The URL Standard encodes the query of a special URL (other than ws, wss) in the document's
    // encoding; the URL parser does, given the encoding's name.
    if (UrlResult base = Url::parse(*base_href_, &*base_url_, query_encoding()))
      base_url_ = std::move(base).value();
  }
  if (!on_link_) links_.reserve(raw_links_.size());
  const std::string_view held = held_;
  // One Link for all: a callback that leaves its strings in place lends their buffers to the
  // next link, which then costs no allocation.
  Link link;
  for (const RawLink& raw : raw_links_) {
    std::optional<std::string_view> rel;
    if (raw.has_rel) rel = held.substr(raw.rel_begin, raw.rel_size);
    if (resolve(raw.element, held.substr(raw.value_begin, raw.value_size), rel, link))
      emit(std::move(link));
  }
  raw_links_.clear();
  raw_links_.shrink_to_fit();
  held_.clear();
  held_.shrink_to_fit();
}

bool LinkTokenizer::resolve(LinkElement element, std::string_view value,
                            std::optional<std::string_view> rel, Link& link) {
  link.element = element;
  link.nofollow = robots_.nofollow;
  link.rel.clear();
  const bool is_link = element == LinkElement::Link;
  bool resource = is_link && !rel;
  if (rel) {
    decode(*rel, false, link.rel);
    bool any = false;
    for_each_token(link.rel, [&](std::string_view token) {
      any = true;
      if (iequals(token, "nofollow")) link.nofollow = true;
      if (is_link && is_resource_rel(token)) resource = true;
    });
    if (is_link && !any) resource = true;
  }
  if (resource && !resource_links_) return false;
  decode(value, true, link.raw);
  link.url.reset();
  if (base_url_) {
    if (UrlResult url = Url::parse(link.raw, &*base_url_, query_encoding()))
      link.url = std::move(url).value();
  }
  return true;
}

void LinkTokenizer::emit(Link&& link) {
  if (on_link_)
    on_link_(std::move(link));
  else
    links_.push_back(std::move(link));
}

void LinkTokenizer::finish() {
  if (finished_) return;
  finished_ = true;
  end();
  if (!settled()) settle();
  if (raw_title_) {
    // document.title: ASCII whitespace stripped, and each run of it inside made one space.
    std::string text;
    decode(*raw_title_, true, text);
    std::string& t = title_.emplace();
    for (char ch : text) {
      if (!is_ascii_whitespace(ch))
        t.push_back(ch);
      else if (!t.empty() && t.back() != ' ')
        t.push_back(' ');
    }
  }
}

}  // namespace detail

std::string_view link_element_name(LinkElement element) noexcept {
  switch (element) {
    case LinkElement::A:
      return "a";
    case LinkElement::Area:
      return "area";
    case LinkElement::Link:
      return "link";
    case LinkElement::Iframe:
      return "iframe";
    case LinkElement::Frame:
      return "frame";
  }
  return "a";
}

LinkExtractor::LinkExtractor(LinkOptions options)
    : impl_(std::make_unique<detail::LinkTokenizer>(std::move(options))) {}
LinkExtractor::~LinkExtractor() = default;
LinkExtractor::LinkExtractor(LinkExtractor&&) noexcept = default;
LinkExtractor& LinkExtractor::operator=(LinkExtractor&&) noexcept = default;

void LinkExtractor::feed(std::string_view chunk) {
  impl_->feed(chunk);
}
void LinkExtractor::finish() {
  impl_->finish();
}
const std::vector<Link>& LinkExtractor::links() const noexcept {
  return impl_->links_;
}
const std::optional<std::string>& LinkExtractor::base_href() const noexcept {
  return impl_->base_href_;
}
const std::optional<Url>& LinkExtractor::base_url() const noexcept {
  return impl_->base_url_;
}
RobotsMeta LinkExtractor::robots() const noexcept {
  return impl_->robots_;
}
const std::optional<std::string>& LinkExtractor::meta_charset() const noexcept {
  return impl_->meta_charset_;
}
const std::string& LinkExtractor::encoding() const noexcept {
  static const std::string unsettled;
  return impl_->decoder_ ? impl_->decoder_->encoding() : unsettled;
}
const std::optional<std::string>& LinkExtractor::title() const noexcept {
  return impl_->title_;
}

std::vector<Link> extract_links(std::string_view html, LinkOptions options) {
  LinkExtractor extractor(std::move(options));
  extractor.feed(html);
  extractor.finish();
  return extractor.links();
}

}  // namespace squall
