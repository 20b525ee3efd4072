// Tests for squall/url/charset.h: labels, windows-1252, iconv both ways, and UTF-8 encoding.
#include "squall/url/charset.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/bytes.h"

namespace squall {
namespace {

using namespace std::literals;

// Decodes `bytes` from an exactly sized heap block (so ASan catches over-reads).
std::string decode(TextDecoder& decoder, std::string_view bytes) {
  test::ExactBytes exact(bytes);
  std::string out;
  decoder.decode(exact.view(), out);
  return out;
}

std::string decode(std::string_view label, std::string_view bytes) {
  TextDecoder decoder(label);
  return decode(decoder, bytes);
}

std::string utf8(uint32_t code_point) {
  std::string out;
  append_utf8(out, code_point);
  return out;
}

TEST(Charset, ReadsLabelsAsTheEncodingStandardDoesAndLeavesTheRestToIconv) {
  for (auto [label, name] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"", "UTF-8"},
           {"utf8", "UTF-8"},
           {" UTF-8\t", "UTF-8"},
           {"unicode-1-1-utf-8", "UTF-8"},
           {"UTF-16LE", "UTF-8"},
           {"ucs-2", "UTF-8"},
           {"latin1", "windows-1252"},
           {" US-ASCII ", "windows-1252"},
           {"ISO-8859-1", "windows-1252"},
           {"x-cp1252", "windows-1252"},
           {"EUC-JP", "EUC-JP"},
           {" Shift_JIS\n", "Shift_JIS"},
           {"no-such-encoding", "UTF-8"},
       }) {
    TextDecoder decoder(label);
    EXPECT_EQ(decoder.encoding(), name) << label;
    EXPECT_EQ(decoder.is_utf8(), name == "UTF-8") << label;
  }
}

TEST(Charset, CopiesUtf8AsItIsInvalidBytesIncluded) {
  EXPECT_EQ(decode("utf-8", "caf\xC3\xA9 \xFF\xC3"), "caf\xC3\xA9 \xFF\xC3");
}

TEST(Charset, DecodesWindows1252ByTheEncodingStandardsTable) {
  EXPECT_EQ(decode("windows-1252", "caf\xE9 \x80\x9F \x81\x9D"),
            "caf\xC3\xA9 \xE2\x82\xAC\xC5\xB8 \xC2\x81\xC2\x9D");
  EXPECT_EQ(windows1252_code_point(0x41), 0x41u);
  EXPECT_EQ(windows1252_code_point(0x80), 0x20ACu);
  EXPECT_EQ(windows1252_code_point(0x8D), 0x8Du);
  EXPECT_EQ(windows1252_code_point(0x9F), 0x178u);
  EXPECT_EQ(windows1252_code_point(0xA0), 0xA0u);
  EXPECT_EQ(windows1252_code_point(0xFF), 0xFFu);
}

TEST(Charset, DecodesOtherEncodingsThroughIconvReplacingWhatItCannotConvert) {
  // "日本" in Shift_JIS is 93 FA 96 7B; FF is no Shift_JIS byte, and a lone 93 is cut short.
  EXPECT_EQ(decode("Shift_JIS", "\x93\xFA\x96\x7B"), "\xE6\x97\xA5\xE6\x9C\xAC");
  EXPECT_EQ(decode("Shift_JIS",
                   "\x93\xFA\xFF"
                   "a\x93"),
            "\xE6\x97\xA5\xEF\xBF\xBD"
            "a\xEF\xBF\xBD");
}

TEST(Charset, StartsEachDecodeInTheInitialShiftState) {
  TextDecoder decoder("ISO-2022-JP");
  EXPECT_EQ(decode(decoder, "\x1B$B$\""), "\xE3\x81\x82");  // "あ" after the escape to JIS X 0208
  EXPECT_EQ(decode(decoder, "$\""), "$\"");
}

TEST(Charset, EncodesWindows1252NativelyWithItsFiveC1Bytes) {
  TextEncoder encoder("windows-1252");
  EXPECT_FALSE(encoder.is_utf8());
  std::string out;
  EXPECT_TRUE(encoder.encode('a', out));
  EXPECT_TRUE(encoder.encode(0xE9, out));
  EXPECT_TRUE(encoder.encode(0x20AC, out));
  EXPECT_TRUE(encoder.encode(0x81, out));
  EXPECT_EQ(out, "a\xE9\x80\x81");
  EXPECT_FALSE(encoder.encode(0x80, out));  // byte 0x80 is the euro sign, so U+0080 has none
  EXPECT_FALSE(encoder.encode(0x4E2D, out));
  EXPECT_EQ(out, "a\xE9\x80\x81");
}

TEST(Charset, EncodesThroughIconvKeepingTheShiftStateAcrossCharacters) {
  TextEncoder encoder("ISO-2022-JP");
  std::string out;
  EXPECT_TRUE(encoder.encode(0x3042, out));  // "あ"
  EXPECT_TRUE(encoder.encode(0x3042, out));
  EXPECT_FALSE(encoder.encode(0xD55C, out));  // "한" is not in ISO-2022-JP
  EXPECT_EQ(out, "\x1B$B$\"$\"");
  encoder.reset(out);
  EXPECT_EQ(out, "\x1B$B$\"$\"\x1B(B");
  encoder.reset(out);
  EXPECT_EQ(out, "\x1B$B$\"$\"\x1B(B");

  TextEncoder shift_jis(" shift_jis ");
  std::string bytes;
  EXPECT_TRUE(shift_jis.encode(0x65E5, bytes));  // "日"
  EXPECT_EQ(bytes, "\x93\xFA");
}

TEST(Charset, EncodesAsUtf8ForUtf8AndUtf16LabelsAndLabelsIconvDoesNotKnow) {
  for (std::string_view label :
       {""sv, "utf-8"sv, "UTF-16BE"sv, "unicode"sv, "replacement"sv, "x-no-such-encoding"sv}) {
    TextEncoder encoder(label);
    EXPECT_TRUE(encoder.is_utf8()) << label;
    std::string out;
    EXPECT_TRUE(encoder.encode(0xE9, out)) << label;
    encoder.reset(out);
    EXPECT_EQ(out, "\xC3\xA9") << label;
  }
}

TEST(Charset, AppendsUtf8AtEverySequenceLength) {
  EXPECT_EQ(utf8(0x24), "\x24");
  EXPECT_EQ(utf8(0x7F), "\x7F");
  EXPECT_EQ(utf8(0x80), "\xC2\x80");
  EXPECT_EQ(utf8(0x7FF), "\xDF\xBF");
  EXPECT_EQ(utf8(0x800), "\xE0\xA0\x80");
  EXPECT_EQ(utf8(0xFFFF), "\xEF\xBF\xBF");
  EXPECT_EQ(utf8(0x10000), "\xF0\x90\x80\x80");
  EXPECT_EQ(utf8(0x10FFFF), "\xF4\x8F\xBF\xBF");
}

}  // namespace
}  // namespace squall
