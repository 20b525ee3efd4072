// Sitemaps: gzip undone by magic, then libxml2's SAX push parser (XML) or lines (text), each loc
// handed on as it ends.
#include "squall/crawl/sitemap.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "squall/core/error.h"
#include "squall/http/decode.h"
#include "squall/url/ascii.h"

namespace squall {

namespace detail {

struct SitemapState {
  std::function<void(std::string_view)> sink;
  SitemapLimits limits;
  SitemapKind kind = SitemapKind::Unknown;
  enum class Mode : uint8_t { Start, Xml, Text } mode = Mode::Start;

  std::string magic;  // the first two bytes, until gzip is told from plain
  bool gzip_decided = false;
  std::optional<http::ContentDecoder> gunzip;
  std::string head;  // plain bytes before the form (XML or text) is told

  xmlParserCtxtPtr xml = nullptr;
  int depth = 0;
  std::string ns;       // the root element's namespace, which <url>, <sitemap> and <loc> share
  bool entry = false;   // inside <url> of a urlset or <sitemap> of an index
  bool in_loc = false;  // inside its <loc>
  bool too_long = false;
  std::string loc;  // the loc or text line being read

  size_t urls = 0;
  size_t bytes = 0;
  bool truncated = false;
  bool stopped = false;
  bool finished = false;
  std::string error;

  ~SitemapState() {
    if (!xml) return;
    // A DOCTYPE makes libxml2 build a document for its internal subset even under SAX; the
    // context does not own it.
    if (xml->myDoc) xmlFreeDoc(xml->myDoc);
    xmlFreeParserCtxt(xml);
  }

  void stop() {
    stopped = true;
    if (xml) xmlStopParser(xml);
  }
  void fail(std::string message) {
    if (stopped) return;
    error = std::move(message);
    stop();
  }

  void emit(std::string_view raw) {
    std::string_view value = strip_ascii_whitespace(raw);
    if (value.empty() || value.size() > SitemapParser::kMaxLocBytes) return;
    if (urls == limits.max_urls) {
      truncated = true;
      stop();
      return;
    }
    ++urls;
    sink(value);
  }

  // --- gzip ---------------------------------------------------------------------------------

  void feed(std::string_view bytes) {
    if (!gzip_decided) {
      size_t take = std::min(2 - magic.size(), bytes.size());
      magic.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      if (magic.size() < 2) return;
      decide_gzip();
    }
    compressed(bytes);
  }

  void decide_gzip() {
    gzip_decided = true;
    // max_bytes + 1 lets plain() see that the limit was passed before the decoder refuses more.
    if (magic == "\x1f\x8b") gunzip.emplace("gzip", limits.max_bytes + 1);
    std::string held = std::move(magic);
    compressed(held);
  }

  void compressed(std::string_view bytes) {
    if (stopped || bytes.empty()) return;
    if (!gunzip) {
      plain(bytes);
      return;
    }
    try {
      gunzip->feed(bytes, [this](std::string_view decoded) { plain(decoded); });
    } catch (const http::DecodeError& e) {
      if (e.kind() != ErrorKind::TooLarge) {
        fail(std::string("gzip: ") + e.what());
      } else if (!stopped) {  // inflates past max_bytes: the limit, not an error
        truncated = true;
        stop();
      }
    }
  }

  // --- the file's form ----------------------------------------------------------------------

  void plain(std::string_view bytes) {
    if (stopped) return;
    bool over = bytes.size() > limits.max_bytes - this->bytes;
    if (over) bytes = bytes.substr(0, limits.max_bytes - this->bytes);
    this->bytes += bytes.size();
    route(bytes);
    if (over && !stopped) {
      truncated = true;
      stop();
    }
  }

  void route(std::string_view bytes) {
    switch (mode) {
      case Mode::Start:
        head.append(bytes);
        decide_form(false);
        break;
      case Mode::Xml:
        push_xml(bytes, false);
        break;
      case Mode::Text:
        push_text(bytes);
        break;
    }
  }

  // XML when the first character after a byte order mark and whitespace is '<', else text.
  void decide_form(bool at_end) {
    std::string_view h = head;
    if (h.starts_with("\xEF\xBB\xBF")) h.remove_prefix(3);
    size_t first = 0;
    while (first < h.size() && is_ascii_whitespace(h[first])) ++first;
    if (first == h.size() && !at_end && head.size() < 4096) return;
    if (!at_end && head.size() < 3 && std::string_view("\xEF\xBB\xBF").starts_with(head)) return;
    const bool is_xml = first < h.size() && h[first] == '<';
    std::string held = std::move(head);
    head.clear();
    if (is_xml) {
      mode = Mode::Xml;
      start_xml();
      push_xml(held, false);
    } else {
      mode = Mode::Text;
      kind = SitemapKind::Text;
      push_text(std::string_view(held).substr(held.starts_with("\xEF\xBB\xBF") ? 3 : 0));
    }
  }

  // --- text ---------------------------------------------------------------------------------

  void push_text(std::string_view bytes) {
    while (!bytes.empty() && !stopped) {
      size_t nl = bytes.find('\n');
      std::string_view part = bytes.substr(0, nl);
      if (!too_long && loc.size() + part.size() <= SitemapParser::kMaxLocBytes)
        loc.append(part);
      else
        too_long = true;
      if (nl == std::string_view::npos) return;
      end_line();
      bytes.remove_prefix(nl + 1);
    }
  }

  void end_line() {
    if (!too_long) emit(loc);
    loc.clear();
    too_long = false;
  }

  // --- XML ----------------------------------------------------------------------------------

  void start_xml() {
    xmlSAXHandler sax;
    std::memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_text;
    sax.cdataBlock = on_text;
    xml = xmlCreatePushParserCtxt(&sax, this, nullptr, 0, nullptr);
    if (!xml) {
      fail("libxml2 could not make a parser");
      return;
    }
    // No network, no error printing; entities are never substituted (no getEntity handler and
    // no XML_PARSE_NOENT), and XML_PARSE_HUGE stays off so libxml2's own size limits hold.
    xmlCtxtUseOptions(xml, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  }

  void push_xml(std::string_view bytes, bool terminate) {
    if (!xml || stopped) return;
    constexpr size_t kPiece = 1 << 20;
    do {
      size_t n = std::min(bytes.size(), kPiece);
      bool last = terminate && n == bytes.size();
      int rc = xmlParseChunk(xml, bytes.data(), static_cast<int>(n), last ? 1 : 0);
      if (stopped) return;
      if (rc != 0) {
        const xmlError* e = xmlCtxtGetLastError(xml);
        std::string message = e && e->message ? e->message : "malformed XML";
        while (!message.empty() && is_ascii_whitespace(message.back())) message.pop_back();
        fail("not XML: line " + std::to_string(e ? e->line : 0) + ": " + message);
        return;
      }
      bytes.remove_prefix(n);
    } while (!bytes.empty());
  }

  // The SAX callbacks get the user data the parser was made with: this state.
  static SitemapState& of(void* ctx) { return *static_cast<SitemapState*>(ctx); }

  static void on_start(void* ctx, const xmlChar* localname, const xmlChar*, const xmlChar* uri, int,
                       const xmlChar**, int, int, const xmlChar**) {
    SitemapState& s = of(ctx);
    std::string_view name(reinterpret_cast<const char*>(localname));
    std::string_view ns = uri ? std::string_view(reinterpret_cast<const char*>(uri)) : "";
    ++s.depth;
    if (s.depth == 1) {
      s.ns.assign(ns.substr(0, 256));
      if (name == "urlset") {
        s.kind = SitemapKind::UrlSet;
      } else if (name == "sitemapindex") {
        s.kind = SitemapKind::Index;
      } else {
        s.fail("not a sitemap: the root element is <" + std::string(name.substr(0, 64)) +
               ">, not <urlset> or <sitemapindex>");
      }
    } else if (s.depth == 2) {
      s.entry = ns == s.ns && ((s.kind == SitemapKind::UrlSet && name == "url") ||
                               (s.kind == SitemapKind::Index && name == "sitemap"));
    } else if (s.depth == 3 && s.entry && name == "loc" && ns == s.ns) {
      s.in_loc = true;
      s.too_long = false;
      s.loc.clear();
    }
  }

  static void on_end(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    SitemapState& s = of(ctx);
    if (s.depth == 3 && s.in_loc) {
      s.in_loc = false;
      if (!s.too_long) s.emit(s.loc);
    } else if (s.depth == 2) {
      s.entry = false;
    }
    --s.depth;
  }

  static void on_text(void* ctx, const xmlChar* text, int length) {
    SitemapState& s = of(ctx);
    if (!s.in_loc || s.too_long) return;
    if (s.loc.size() + static_cast<size_t>(length) > SitemapParser::kMaxLocBytes) {
      s.too_long = true;
      return;
    }
    s.loc.append(reinterpret_cast<const char*>(text), static_cast<size_t>(length));
  }

  void finish() {
    if (finished) return;
    finished = true;
    if (!gzip_decided) decide_gzip();
    if (gunzip && !stopped) {
      try {
        gunzip->finish();
      } catch (const http::DecodeError& e) {
        fail(std::string("gzip: ") + e.what());
      }
    }
    if (stopped) return;
    if (mode == Mode::Start) decide_form(true);
    if (mode == Mode::Xml) {
      push_xml({}, true);
    } else if (mode == Mode::Text && !stopped) {
      end_line();
    }
  }
};

}  // namespace detail

SitemapParser::SitemapParser(std::function<void(std::string_view loc)> sink, SitemapLimits limits)
    : state_(std::make_unique<detail::SitemapState>()) {
  xmlInitParser();
  state_->sink = std::move(sink);
  state_->limits = limits;
}

SitemapParser::~SitemapParser() = default;

void SitemapParser::feed(std::string_view bytes) {
  if (!state_->finished) state_->feed(bytes);
}

void SitemapParser::finish() {
  state_->finish();
}

SitemapKind SitemapParser::kind() const noexcept {
  return state_->kind;
}
size_t SitemapParser::urls() const noexcept {
  return state_->urls;
}
bool SitemapParser::truncated() const noexcept {
  return state_->truncated;
}
const std::string& SitemapParser::error() const noexcept {
  return state_->error;
}

}  // namespace squall
