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

// A raw link as found: attribute bytes still in the page's encoding, references unresolved.
struct RawLink {
  LinkElement element;
  std::string value;
  std::string rel;
  bool has_rel;
};

// The tokenizer with what LinkExtractor keeps of a page: its links, base, robots and charset.
class LinkTokenizer final : public Tokenizer {
 public:
  explicit LinkTokenizer(LinkOptions options)
      : Tokenizer(kKeptAttributes), options_(std::move(options)) {}

  // Decodes and resolves the links once the page has ended.
  void finish();

  LinkOptions options_;
  // Fixed when the links are first resolved: at finish(), or (streaming) once held_links are
  // held.
  std::optional<TextDecoder> decoder_;
  std::string query_encoding_;  // the encoding a link's query is written in; "" for UTF-8
  std::string utf8_;            // decode()'s buffer
  std::vector<RawLink> raw_links_;
  std::vector<Link> links_;
  std::optional<std::string> raw_base_;
  std::optional<std::string> base_href_;
  std::optional<Url> base_url_;
  std::optional<std::string> meta_charset_;
  RobotsMeta robots_;
  std::string encoding_;
  std::optional<std::string> raw_title_;  // capped at kMaxTitleBytes
  std::optional<std::string> title_;
  bool finished_ = false;

 private:
  void start_tag(Tag tag, Attributes& attributes) override;
  void title_text(std::string_view bytes) override {
    std::string& t = raw_title_ ? *raw_title_ : raw_title_.emplace();
    t.append(bytes.substr(
        0, LinkExtractor::kMaxTitleBytes - std::min(t.size(), LinkExtractor::kMaxTitleBytes)));
  }
  void meta(const Attributes& attributes);
  // A raw link found: held, or (streaming, once settled) resolved and handed on at once.
  void found(RawLink raw);
  // Fixes the decoder and the base URL from what the page has said so far, and resolves the
  // links held.
  void settle();
  bool settled() const noexcept { return decoder_.has_value(); }
  // Attribute bytes → UTF-8 → references resolved → (strip) whitespace stripped.
  std::string decode(std::string_view bytes, bool strip = true);
  // decode() of bytes the caller gives up: taken as they are when nothing in them changes.
  std::string decode_owned(std::string& bytes, bool strip = true);
  std::optional<Url> parse(const std::string& input, const Url* base) const;
  // The link `raw` makes, unless it is a resource link that is not reported.
  std::optional<Link> resolve(RawLink& raw);
  void emit(Link&& link);
};

void LinkTokenizer::start_tag(Tag tag, Attributes& a) {
  switch (tag) {
    case Tag::A:
    case Tag::Area:
    case Tag::Link:
      if (a.has(Href)) {
        const LinkElement element = tag == Tag::A      ? LinkElement::A
                                    : tag == Tag::Area ? LinkElement::Area
                                                       : LinkElement::Link;
        found({element, std::move(a.values[Href]), std::move(a.values[Rel]), a.has(Rel)});
      }
      break;
    case Tag::Iframe:
    case Tag::Frame:
      if (a.has(Src)) {
        found({tag == Tag::Iframe ? LinkElement::Iframe : LinkElement::Frame,
               std::move(a.values[Src]),
               {},
               false});
      }
      break;
    case Tag::Base:
      if (!raw_base_ && a.has(Href)) raw_base_ = std::move(a.values[Href]);
      break;
    case Tag::Meta:
      meta(a);
      break;
    default:
      break;
  }
}

void LinkTokenizer::meta(const Attributes& a) {
  const auto& v = a.values;
  if (a.has(Name) && a.has(Content) &&
      iequals(strip_ascii_whitespace(decode_attribute(v[Name])), "robots")) {
    for_each_token(decode_attribute(v[Content]), [this](std::string_view token) {
      if (iequals(token, "noindex")) robots_.noindex = true;
      if (iequals(token, "nofollow")) robots_.nofollow = true;
      if (iequals(token, "none")) robots_.noindex = robots_.nofollow = true;
    });
  }
  if (meta_charset_) return;
  if (a.has(Charset)) {
    const std::string value(strip_ascii_whitespace(decode_attribute(v[Charset])));
    if (!value.empty()) meta_charset_ = value;
  } else if (a.has(HttpEquiv) && a.has(Content) &&
             iequals(strip_ascii_whitespace(decode_attribute(v[HttpEquiv])), "content-type")) {
    meta_charset_ = charset_from_content(decode_attribute(v[Content]));
  }
}

void LinkTokenizer::found(RawLink raw) {
  if (!settled()) {
    raw_links_.push_back(std::move(raw));
    if (options_.on_link && raw_links_.size() >= options_.held_links) settle();
    return;
  }
  if (std::optional<Link> link = resolve(raw)) emit(std::move(*link));
}

namespace {

// Strips ASCII whitespace from both ends of `s`, in place.
void strip_in_place(std::string& s) {
  const std::string_view kept = strip_ascii_whitespace(s);
  if (kept.size() == s.size()) return;
  s.erase(static_cast<size_t>(kept.data() + kept.size() - s.data()));
  s.erase(0, static_cast<size_t>(kept.data() - s.data()));
}

}  // namespace

std::string LinkTokenizer::decode(std::string_view bytes, bool strip) {
  if (!decoder_->is_utf8()) {
    utf8_.clear();
    decoder_->decode(bytes, utf8_);
    bytes = utf8_;
  }
  std::string decoded = decode_attribute(bytes);
  if (strip) strip_in_place(decoded);  // after decoding: "&#32;" and "&Tab;" are whitespace too
  return decoded;
}

// Most links are UTF-8 without a character reference: their bytes are the link, and a page's
// links cost an allocation and a copy fewer each.
std::string LinkTokenizer::decode_owned(std::string& bytes, bool strip) {
  // Three memchr calls: string::find_first_of looks for the set at each byte.
  auto has = [&bytes](char c) { return std::memchr(bytes.data(), c, bytes.size()) != nullptr; };
  if (!decoder_->is_utf8() || has('&') || has('\r') || has('\0')) return decode(bytes, strip);
  std::string decoded = std::move(bytes);
  if (strip) strip_in_place(decoded);
  return decoded;
}

// The URL Standard encodes the query of a special URL (other than ws, wss) in the document's
// encoding; the URL parser does, given the encoding's name.
std::optional<Url> LinkTokenizer::parse(const std::string& input, const Url* base) const {
  UrlResult result = Url::parse(input, base, query_encoding_);
  if (!result) return std::nullopt;
  return std::move(result).value();
}

void LinkTokenizer::settle() {
  decoder_.emplace(!options_.charset.empty() ? std::string_view(options_.charset)
                   : meta_charset_           ? std::string_view(*meta_charset_)
                                             : std::string_view("utf-8"));
  encoding_ = decoder_->encoding();
  if (!decoder_->is_utf8()) query_encoding_ = encoding_;
  if (raw_base_) base_href_ = decode(*raw_base_);
  if (options_.page_url) {
    base_url_ = options_.page_url;
    if (base_href_) {
      if (std::optional<Url> base = parse(*base_href_, &*options_.page_url)) base_url_ = base;
    }
  }
  if (!options_.on_link) links_.reserve(raw_links_.size());
  for (RawLink& raw : raw_links_)
    if (std::optional<Link> link = resolve(raw)) emit(std::move(*link));
  raw_links_.clear();
  raw_links_.shrink_to_fit();
}

std::optional<Link> LinkTokenizer::resolve(RawLink& raw) {
  Link link;
  link.element = raw.element;
  link.raw = decode_owned(raw.value);
  bool resource = raw.element == LinkElement::Link && !raw.has_rel;
  if (raw.has_rel) {
    link.rel = decode_owned(raw.rel, false);
    bool any = false;
    for_each_token(link.rel, [&](std::string_view token) {
      any = true;
      if (iequals(token, "nofollow")) link.nofollow = true;
      if (raw.element == LinkElement::Link && is_resource_rel(token)) resource = true;
    });
    if (raw.element == LinkElement::Link && !any) resource = true;
  }
  if (resource && !options_.resource_links) return std::nullopt;
  if (robots_.nofollow) link.nofollow = true;
  if (base_url_) link.url = parse(link.raw, &*base_url_);
  return link;
}

void LinkTokenizer::emit(Link&& link) {
  if (options_.on_link)
    options_.on_link(std::move(link));
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
    std::string text = decode(*raw_title_);
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
  return impl_->encoding_;
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
