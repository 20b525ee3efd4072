// Text encodings: the Encoding Standard's labels, windows-1252 natively, every other one by iconv.
#include "squall/url/charset.h"

#include <iconv.h>

#include <array>
#include <cerrno>

#include "squall/url/ascii.h"

namespace squall {

namespace detail {

// An iconv conversion descriptor, closed on destruction.
class Iconv {
 public:
  Iconv(const std::string& to, const std::string& from)
      : cd_(iconv_open(to.c_str(), from.c_str())) {}
  ~Iconv() {
    if (ok()) iconv_close(cd_);
  }
  Iconv(const Iconv&) = delete;
  Iconv& operator=(const Iconv&) = delete;
  bool ok() const { return cd_ != reinterpret_cast<iconv_t>(-1); }

  // Forgets the shift state without writing anything.
  void restart() { iconv(cd_, nullptr, nullptr, nullptr, nullptr); }

  // Converts `in` from the current shift state, appending to `out`. With `replace_invalid`, each
  // byte iconv cannot convert becomes U+FFFD (the output is UTF-8) and the state restarts;
  // without it, false at the first such byte, with the output before it appended.
  bool convert(std::string_view in, std::string& out, bool replace_invalid) {
    char* src = const_cast<char*>(in.data());
    size_t left = in.size();
    char buf[256];
    while (left > 0) {
      char* dst = buf;
      size_t room = sizeof buf;
      const size_t r = iconv(cd_, &src, &left, &dst, &room);
      out.append(buf, static_cast<size_t>(dst - buf));
      if (r == static_cast<size_t>(-1) && errno != E2BIG) {
        if (!replace_invalid) return false;
        out += "\xEF\xBF\xBD";
        ++src;
        --left;
        restart();
      }
    }
    return true;
  }

  // Appends what takes the output back to the initial shift state.
  void reset(std::string& out) {
    char buf[16];
    char* dst = buf;
    size_t room = sizeof buf;
    if (iconv(cd_, nullptr, nullptr, &dst, &room) != static_cast<size_t>(-1)) {
      out.append(buf, static_cast<size_t>(dst - buf));
    }
  }

 private:
  iconv_t cd_;
};

}  // namespace detail

namespace {

using detail::CharsetKind;

// The Encoding Standard's labels for UTF-8 and UTF-16 (both read as UTF-8) and for
// windows-1252 (ISO-8859-1 and US-ASCII are windows-1252 there); any other label goes to iconv as
// written. Sets `name` to the canonical name.
CharsetKind classify_label(std::string_view label, std::string& name) {
  static constexpr std::string_view kUtf8[] = {
      "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8",           "utf8",
      "x-unicode20utf8",   "utf-16",        "utf-16le",      "utf-16be",        "unicodefffe",
      "unicodefeff",       "ucs-2",         "csunicode",     "iso-10646-ucs-2", "unicode"};
  static constexpr std::string_view k1252[] = {"ansi_x3.4-1968",
                                               "ascii",
                                               "cp1252",
                                               "cp819",
                                               "csisolatin1",
                                               "ibm819",
                                               "iso-8859-1",
                                               "iso-ir-100",
                                               "iso8859-1",
                                               "iso88591",
                                               "iso_8859-1",
                                               "iso_8859-1:1987",
                                               "l1",
                                               "latin1",
                                               "us-ascii",
                                               "windows-1252",
                                               "x-cp1252",
                                               "x-user-defined"};
  label = strip_ascii_whitespace(label);
  // No label is UTF-8 too (iconv would read "" as the locale's encoding).
  if (label.empty()) {
    name = "UTF-8";
    return CharsetKind::Utf8;
  }
  for (std::string_view l : kUtf8) {
    if (iequals(label, l)) {
      name = "UTF-8";
      return CharsetKind::Utf8;
    }
  }
  for (std::string_view l : k1252) {
    if (iequals(label, l)) {
      name = "windows-1252";
      return CharsetKind::Windows1252;
    }
  }
  name.assign(label);
  return CharsetKind::Iconv;
}

// windows-1252's bytes 0x80-0x9F; 0 marks the five the Encoding Standard maps to C1 controls.
constexpr std::array<uint16_t, 32> kWindows1252High = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

}  // namespace

void append_utf8(std::string& out, uint32_t code_point) {
  const uint32_t cp = code_point;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

uint32_t windows1252_code_point(unsigned char byte) noexcept {
  if (byte >= 0x80 && byte < 0xA0 && kWindows1252High[byte - 0x80] != 0) {
    return kWindows1252High[byte - 0x80];
  }
  return byte;
}

TextDecoder::TextDecoder(std::string_view label) {
  kind_ = classify_label(label, encoding_);
  if (kind_ != CharsetKind::Iconv) return;
  iconv_ = std::make_unique<detail::Iconv>("UTF-8", encoding_);
  if (!iconv_->ok()) {
    iconv_.reset();
    kind_ = CharsetKind::Utf8;
    encoding_ = "UTF-8";
  }
}

TextDecoder::~TextDecoder() = default;
TextDecoder::TextDecoder(TextDecoder&&) noexcept = default;
TextDecoder& TextDecoder::operator=(TextDecoder&&) noexcept = default;

void TextDecoder::decode(std::string_view bytes, std::string& out) {
  switch (kind_) {
    case CharsetKind::Utf8:
      out.append(bytes);
      return;
    case CharsetKind::Windows1252:
      for (unsigned char b : bytes) append_utf8(out, windows1252_code_point(b));
      return;
    case CharsetKind::Iconv:
      iconv_->restart();
      iconv_->convert(bytes, out, true);
      return;
  }
}

TextEncoder::TextEncoder(std::string_view label) {
  std::string name;
  kind_ = classify_label(label, name);
  if (kind_ != CharsetKind::Iconv) return;
  iconv_ = std::make_unique<detail::Iconv>(name, "UTF-8");
  if (!iconv_->ok()) {
    iconv_.reset();
    kind_ = CharsetKind::Utf8;
  }
}

TextEncoder::~TextEncoder() = default;
TextEncoder::TextEncoder(TextEncoder&&) noexcept = default;
TextEncoder& TextEncoder::operator=(TextEncoder&&) noexcept = default;

bool TextEncoder::encode(uint32_t code_point, std::string& out) {
  switch (kind_) {
    case CharsetKind::Utf8:
      append_utf8(out, code_point);
      return true;
    case CharsetKind::Windows1252:
      if (code_point < 0x80 || (code_point >= 0xA0 && code_point <= 0xFF)) {
        out += static_cast<char>(code_point);
        return true;
      }
      // O(32), and only for the few characters above U+00FF.
      for (unsigned b = 0x80; b < 0xA0; ++b) {
        if (windows1252_code_point(static_cast<unsigned char>(b)) == code_point) {
          out += static_cast<char>(b);
          return true;
        }
      }
      return false;
    case CharsetKind::Iconv: {
      std::string utf8;
      append_utf8(utf8, code_point);
      const size_t before = out.size();
      if (iconv_->convert(utf8, out, false)) return true;
      out.resize(before);
      return false;
    }
  }
  return false;
}

void TextEncoder::reset(std::string& out) {
  if (iconv_) iconv_->reset(out);
}

}  // namespace squall
