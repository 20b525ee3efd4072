// Text encodings as web pages label them: bytes decoded to UTF-8, code points encoded back.
//
// A label is read as the Encoding Standard (https://encoding.spec.whatwg.org) reads it: ASCII
// case-insensitive, surrounding ASCII whitespace ignored. Two encodings are handled natively:
// UTF-8, whose labels here include UTF-16's (as the HTML Standard reads a UTF-16 <meta> label, and
// as the URL Standard encodes a UTF-16 page's queries), and windows-1252, whose labels include
// ISO-8859-1's and US-ASCII's, which the standard folds into it. Every other label is given to
// glibc's iconv as written; an empty label, and one iconv does not know, mean UTF-8. Where iconv's
// tables differ from the Encoding Standard's (a few Shift_JIS, Big5 and GB18030 code points), the
// bytes differ too.
//
// TextDecoder and TextEncoder own an iconv descriptor when they use one, so each belongs to one
// thread at a time; they have no loop and do no I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace squall {

namespace detail {
class Iconv;
// How an encoding is handled: natively, or through iconv.
enum class CharsetKind : uint8_t { Utf8, Windows1252, Iconv };
}  // namespace detail

// Appends `code_point` (at most 0x10FFFF) in UTF-8.
void append_utf8(std::string& out, uint32_t code_point);

// The code point windows-1252 decodes `byte` to: the byte's own value, except for the 27 bytes
// of 0x80-0x9F that the Encoding Standard maps to other characters (0x80 is U+20AC, the euro
// sign); its five unassigned bytes there (0x81, 0x8D, 0x8F, 0x90, 0x9D) stay C1 controls.
uint32_t windows1252_code_point(unsigned char byte) noexcept;

// Decodes text in one encoding to UTF-8.
class TextDecoder {
 public:
  // The decoder for `label` (see the top of this header); never fails: a label iconv does not
  // know decodes as UTF-8.
  explicit TextDecoder(std::string_view label);
  ~TextDecoder();
  TextDecoder(TextDecoder&&) noexcept;
  TextDecoder& operator=(TextDecoder&&) noexcept;

  // The encoding decoded from, by its canonical name: "UTF-8", "windows-1252", or the label as
  // given to iconv (whitespace-stripped, case kept).
  const std::string& encoding() const noexcept { return encoding_; }
  // Whether decode() copies its input as it is.
  bool is_utf8() const noexcept { return kind_ == detail::CharsetKind::Utf8; }

  // Appends `bytes` decoded to UTF-8. UTF-8 input is copied as it is, invalid sequences
  // included; windows-1252 is decoded byte by byte; through iconv, each byte it cannot convert
  // becomes U+FFFD. Every call starts in the encoding's initial state.
  void decode(std::string_view bytes, std::string& out);

 private:
  detail::CharsetKind kind_ = detail::CharsetKind::Utf8;
  std::string encoding_;
  std::unique_ptr<detail::Iconv> iconv_;
};

// Encodes code points in one encoding, one at a time, as the URL Standard's "percent-encode
// after encoding" asks for.
class TextEncoder {
 public:
  // The encoder for `label` (see the top of this header); never fails: a label iconv does not
  // know encodes as UTF-8.
  explicit TextEncoder(std::string_view label);
  ~TextEncoder();
  TextEncoder(TextEncoder&&) noexcept;
  TextEncoder& operator=(TextEncoder&&) noexcept;

  // Whether encode() writes UTF-8.
  bool is_utf8() const noexcept { return kind_ == detail::CharsetKind::Utf8; }

  // Appends `code_point` (a Unicode scalar value) in the encoding; false, with nothing appended,
  // when the encoding has no such character. A stateful encoding (ISO-2022-JP) keeps its shift
  // state from one call to the next, so a character may come after the escape that selects its
  // character set.
  bool encode(uint32_t code_point, std::string& out);
  // Appends what takes a stateful encoding back to its initial state (ISO-2022-JP's escape to
  // ASCII), nothing for every other encoding: call it after the last character, and before any
  // text of one's own between characters.
  void reset(std::string& out);

 private:
  detail::CharsetKind kind_ = detail::CharsetKind::Utf8;
  std::unique_ptr<detail::Iconv> iconv_;
};

}  // namespace squall
