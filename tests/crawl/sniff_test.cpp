// Tests for MIME type parsing and content sniffing, written from the WHATWG MIME Sniffing Standard.
#include "squall/crawl/sniff.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "support/bytes.h"

namespace squall {
namespace {

using namespace std::string_literals;

// The essence of the computed type, with the body in an exactly sized block.
std::string sniffed(std::optional<std::string_view> content_type, std::string_view body,
                    bool no_sniff = false) {
  const test::ExactBytes bytes(body);
  return sniff_mime_type(content_type, bytes.view(), no_sniff).essence();
}

bool html(std::optional<std::string_view> content_type, std::string_view body,
          bool no_sniff = false) {
  const test::ExactBytes bytes(body);
  return is_html(content_type, bytes.view(), no_sniff);
}

std::optional<std::string> serialized(std::string_view input) {
  const test::ExactBytes bytes(input);
  const std::optional<MimeType> mime = parse_mime_type(bytes.view());
  if (!mime) return std::nullopt;
  return mime->serialize();
}

TEST(MimeTypeParsing, TypeAndSubtypeAreLowerCasedAndWhitespaceTrimmed) {
  const std::optional<MimeType> mime = parse_mime_type(" \t TEXT/Html \r\n");
  ASSERT_TRUE(mime);
  EXPECT_EQ(mime->type, "text");
  EXPECT_EQ(mime->subtype, "html");
  EXPECT_EQ(mime->essence(), "text/html");
  EXPECT_TRUE(mime->parameters.empty());
}

TEST(MimeTypeParsing, ParameterNamesAreLowerCasedAndValuesKept) {
  const std::optional<MimeType> mime = parse_mime_type("text/plain ; CharSet=UtF-8;x=Y");
  ASSERT_TRUE(mime);
  EXPECT_EQ(mime->parameter("charset"), "UtF-8");
  EXPECT_EQ(mime->parameter("x"), "Y");
  EXPECT_EQ(mime->serialize(), "text/plain;charset=UtF-8;x=Y");
}

TEST(MimeTypeParsing, MalformedTypesAreFailures) {
  for (std::string_view input :
       {"", " ", "text", "text/", "/html", "te xt/html", "text/ht ml", "text/html\x01",
        "t\xE9xt/html", "text/html@", "(text)/html", ";charset=utf-8"}) {
    EXPECT_EQ(serialized(input), std::nullopt) << input;
  }
}

TEST(MimeTypeParsing, QuotedValuesAreUnescaped) {
  EXPECT_EQ(parse_mime_type("text/html;charset=\"utf-8\"")->parameter("charset"), "utf-8");
  EXPECT_EQ(parse_mime_type("a/b;x=\"a\\\"b\\\\c\"")->parameter("x"), "a\"b\\c");
  EXPECT_EQ(parse_mime_type("a/b;x=\"a;b\"")->parameter("x"), "a;b");
  EXPECT_EQ(parse_mime_type("a/b;x=\"unterminated")->parameter("x"), "unterminated");
  EXPECT_EQ(parse_mime_type("a/b;x=\"trailing\\")->parameter("x"), "trailing\\");
  EXPECT_EQ(parse_mime_type("a/b;x=\"a\" junk;y=z")->parameter("x"), "a");
  EXPECT_EQ(parse_mime_type("a/b;x=\"a\" junk;y=z")->parameter("y"), "z");
}

TEST(MimeTypeParsing, SerializationQuotesWhatIsNotAToken) {
  EXPECT_EQ(serialized("a/b;x=\"a b\""), "a/b;x=\"a b\"");
  EXPECT_EQ(serialized("a/b;x=\"\""), "a/b;x=\"\"");
  EXPECT_EQ(serialized("a/b;x=\"q\\\"\""), "a/b;x=\"q\\\"\"");
  EXPECT_EQ(serialized("a/b;x=\"plain\""), "a/b;x=plain");
}

TEST(MimeTypeParsing, TheFirstOfDuplicateParametersWins) {
  EXPECT_EQ(serialized("text/html;charset=a;CHARSET=b"), "text/html;charset=a");
}

TEST(MimeTypeParsing, InvalidParametersAreSkipped) {
  EXPECT_EQ(serialized("text/html;charset"), "text/html");
  EXPECT_EQ(serialized("text/html;charset="), "text/html");
  EXPECT_EQ(serialized("text/html;charset=   "), "text/html");
  EXPECT_EQ(serialized("text/html;=x"), "text/html");
  EXPECT_EQ(serialized("text/html;ch@rset=x"), "text/html");
  EXPECT_EQ(serialized("text/html;x=a\x7F"), "text/html");
  EXPECT_EQ(serialized("text/html;;;x=1;"), "text/html;x=1");
  EXPECT_EQ(serialized("text/html;x=\xE9"), "text/html;x=\"\xE9\"");
}

TEST(MimeTypeParsing, HtmlTypesAreTextHtmlAndXhtml) {
  EXPECT_TRUE(parse_mime_type("text/html")->is_html());
  EXPECT_TRUE(parse_mime_type("Application/XHTML+XML")->is_html());
  EXPECT_FALSE(parse_mime_type("text/htmlx")->is_html());
  EXPECT_FALSE(parse_mime_type("text/plain")->is_html());
}

TEST(MimeTypeExtraction, TheLastValidValueWins) {
  EXPECT_EQ(extract_mime_type("text/plain, text/html")->serialize(), "text/html");
  EXPECT_EQ(extract_mime_type("text/html, bogus")->serialize(), "text/html");
  EXPECT_EQ(extract_mime_type("text/html, */*")->serialize(), "text/html");
  EXPECT_EQ(extract_mime_type(", ,"), std::nullopt);
  EXPECT_EQ(extract_mime_type("*/*"), std::nullopt);
}

TEST(MimeTypeExtraction, ACharsetCarriesOverToTheSameEssence) {
  EXPECT_EQ(extract_mime_type("text/html;charset=gbk, text/html")->serialize(),
            "text/html;charset=gbk");
  EXPECT_EQ(extract_mime_type("text/plain;charset=gbk, text/html")->serialize(), "text/html");
  EXPECT_EQ(extract_mime_type("text/html;charset=gbk, text/html;charset=utf-8")->serialize(),
            "text/html;charset=utf-8");
}

TEST(MimeTypeExtraction, CommasInsideQuotesDoNotSplit) {
  EXPECT_EQ(extract_mime_type("text/html;x=\"a,b\"")->parameter("x"), "a,b");
}

TEST(Sniffing, HtmlSignaturesAreFoundWhenTheTypeIsMissing) {
  for (std::string_view tag :
       {"!DOCTYPE HTML", "HTML", "HEAD", "SCRIPT", "IFRAME", "H1", "DIV", "FONT", "TABLE", "A",
        "STYLE", "TITLE", "B", "BODY", "BR", "P", "!--"}) {
    for (std::string_view end : {">", " "}) {
      std::string body = "<";
      body.append(tag).append(end).append("rest");
      EXPECT_EQ(sniffed(std::nullopt, body), "text/html") << body;
    }
  }
}

TEST(Sniffing, HtmlSignaturesIgnoreCaseAndLeadingWhitespace) {
  EXPECT_EQ(sniffed(std::nullopt, "\t\n\x0C\r <!doctype html><html>"), "text/html");
  EXPECT_EQ(sniffed(std::nullopt, "<HtMl lang=en>"), "text/html");
  EXPECT_EQ(sniffed(std::nullopt, "<h1>Title</h1>"), "text/html");
}

TEST(Sniffing, AnHtmlSignatureNeedsATagTerminatingByte) {
  EXPECT_EQ(sniffed(std::nullopt, "<html"), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, "<htmlx>"), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, "<br/>"), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, "<!--x-->"), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, "<!DOCTYPE html5>"), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, "\v<html>"), "application/octet-stream");  // VT is binary
  EXPECT_EQ(sniffed(std::nullopt, "x<html>"), "text/plain");
}

TEST(Sniffing, OnlyTheFirst1445BytesAreExamined) {
  EXPECT_EQ(sniffed(std::nullopt, std::string(1439, ' ') + "<html>"), "text/html");
  EXPECT_EQ(sniffed(std::nullopt, std::string(1440, ' ') + "<html>"), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, std::string(2000, 'a') + "\x01"), "text/plain");
}

TEST(Sniffing, TinyBodiesAreReadSafely) {
  for (std::string_view body : {"", "<", "<h", "<!", "<!-", "\xFF", "\xFF\xD8", "\x1A\x45\xDF\xA3",
                                "RIFF", "\x00\x00\x00\x0C"}) {
    EXPECT_FALSE(sniffed(std::nullopt, body).empty());
  }
}

TEST(Sniffing, XmlIsFoundAfterWhitespace) {
  EXPECT_EQ(sniffed(std::nullopt, "  <?xml version=\"1.0\"?><rss>"), "text/xml");
}

TEST(Sniffing, UnknownTypesAreSniffedLikeAMissingOne) {
  for (std::string_view type : {"unknown/unknown", "application/unknown", "*/*", "UNKNOWN/unknown",
                                "garbage", "text/html/x"})
    EXPECT_EQ(sniffed(type, "<html>"), "text/html") << type;
}

struct Signature {
  std::string body;
  std::string_view essence;
};

TEST(Sniffing, BinarySignaturesAreRecognised) {
  const Signature cases[] = {
      {"%PDF-1.7\n", "application/pdf"},
      {"%!PS-Adobe-3.0", "application/postscript"},
      {"\x89PNG\r\n\x1A\n\x00\x00"s, "image/png"},
      {"GIF87a..", "image/gif"},
      {"GIF89a..", "image/gif"},
      {"\xFF\xD8\xFF\xE0", "image/jpeg"},
      {"BM....", "image/bmp"},
      {"\x00\x00\x01\x00\x01\x00"s, "image/x-icon"},
      {"\x00\x00\x02\x00\x01\x00"s, "image/x-icon"},
      {"RIFF\x10\x00\x00\x00WEBPVP8 "s, "image/webp"},
      {".snd....", "audio/basic"},
      {"FORM\x00\x00\x00\x10"
       "AIFF"s,
       "audio/aiff"},
      {"ID3\x03\x00"s, "audio/mpeg"},
      {"OggS\x00\x02"s, "application/ogg"},
      {"MThd\x00\x00\x00\x06\x00\x01"s, "audio/midi"},
      {"RIFF\x10\x00\x00\x00"
       "AVI LIST"s,
       "video/avi"},
      {"RIFF\x10\x00\x00\x00WAVEfmt "s, "audio/wave"},
      {"\x00\x00\x00\x18"
       "ftypmp42\x00\x00\x00\x00isommp42"s,
       "video/mp4"},
      {"\x00\x00\x00\x14"
       "ftypisom\x00\x00\x00\x00mp41"s,
       "video/mp4"},
      {"\x1A\x45\xDF\xA3\x9F\x42\x86\x81\x01\x42\x82\x84webm\x42\x87"s, "video/webm"},
      {"\x1F\x8B\x08\x00"s, "application/x-gzip"},
      {"PK\x03\x04\x14\x00"s, "application/zip"},
      {"Rar \x1A\x07\x00\xCF"s, "application/x-rar-compressed"},
      {"\xFE\xFF\x00h"s, "text/plain"},
      {"\xFF\xFEh\x00"s, "text/plain"},
      {"\xEF\xBB\xBFhello", "text/plain"},
      {"plain words\r\n\x1B[0m escape is text", "text/plain"},
      {"\x00\x01\x02 binary"s, "application/octet-stream"},
      {"\x00\x00\x00\x18"
       "ftypqt  \x00\x00\x00\x00qt  "s,
       "application/octet-stream"},
  };
  for (const Signature& c : cases) EXPECT_EQ(sniffed(std::nullopt, c.body), c.essence) << c.essence;
}

TEST(Sniffing, NosniffIsTheFirstValueOfXContentTypeOptions) {
  EXPECT_TRUE(is_nosniff("nosniff"));
  EXPECT_TRUE(is_nosniff("  NoSniff "));
  EXPECT_TRUE(is_nosniff("nosniff, other"));
  EXPECT_FALSE(is_nosniff("other, nosniff"));
  EXPECT_FALSE(is_nosniff("nosniff;x"));
  EXPECT_FALSE(is_nosniff(""));
}

TEST(Sniffing, NosniffWithoutATypeNeverYieldsHtml) {
  EXPECT_EQ(sniffed(std::nullopt, "<html>", true), "text/plain");
  EXPECT_EQ(sniffed(std::nullopt, "%PDF-1.4", true), "application/pdf");
}

TEST(Sniffing, NosniffKeepsTheSuppliedType) {
  EXPECT_EQ(sniffed("text/plain", "\x00\x01"s, true), "text/plain");
  EXPECT_EQ(sniffed("image/gif", "\x89PNG\r\n\x1A\n", true), "image/gif");
}

TEST(Sniffing, TheApacheBugTypesAreCheckedForBinary) {
  const std::string png = "\x89PNG\r\n\x1A\n\x00\x00\x00\x0DIHDR"s;
  for (std::string_view type : {"text/plain", "text/plain; charset=ISO-8859-1",
                                "text/plain; charset=iso-8859-1", "text/plain; charset=UTF-8"}) {
    EXPECT_EQ(sniffed(type, png), "image/png") << type;
    EXPECT_EQ(sniffed(type, "\x00\x01 data"s), "application/octet-stream") << type;
    EXPECT_EQ(sniffed(type, "just text"), "text/plain") << type;
    EXPECT_EQ(sniffed(type, "\xFF\xFE\x00\x01"s), "text/plain") << type;
    EXPECT_EQ(sniffed(type, "<html>\x01"), "application/octet-stream") << type;
  }
  // Only those exact strings: anything else stands as supplied.
  EXPECT_EQ(sniffed("text/plain; charset=utf-8", png), "text/plain");
  EXPECT_EQ(sniffed("text/plain;charset=UTF-8", png), "text/plain");
}

TEST(Sniffing, XmlTypesStandAsSupplied) {
  EXPECT_EQ(sniffed("application/xhtml+xml", "\x89PNG\r\n\x1A\n"), "application/xhtml+xml");
  EXPECT_EQ(sniffed("text/xml", "<html>"), "text/xml");
  EXPECT_EQ(sniffed("image/svg+xml", "GIF89a"), "image/svg+xml");
}

TEST(Sniffing, TextHtmlThatIsReallyAFeedIsAFeed) {
  EXPECT_EQ(sniffed("text/html", "<?xml version=\"1.0\"?>\n<rss version=\"2.0\">"),
            "application/rss+xml");
  EXPECT_EQ(sniffed("text/html", "\xEF\xBB\xBF<!-- c --><!DOCTYPE x>\n<feed xmlns=\"\">"),
            "application/atom+xml");
  EXPECT_EQ(sniffed("text/html",
                    "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" "
                    "xmlns=\"http://purl.org/rss/1.0/\">"),
            "application/rss+xml");
  EXPECT_EQ(sniffed("text/html", "<rdf:RDF xmlns=\"http://purl.org/rss/1.0/\">"), "text/html");
  EXPECT_EQ(sniffed("text/html", "<html><rss>"), "text/html");
  EXPECT_EQ(sniffed("text/html", "text <rss>"), "text/html");
  EXPECT_EQ(sniffed("text/html", "<!-- unterminated <rss>"), "text/html");
  // The field in any case, bare or with parameters, is read alike; nosniff keeps it as sent.
  for (std::string_view field : {"TEXT/HTML", "Text/Html", "text/html; charset=utf-8"}) {
    EXPECT_EQ(sniffed(field, "<rss version=\"2.0\">"), "application/rss+xml") << field;
    EXPECT_EQ(sniffed(field, "<rss version=\"2.0\">", true), "text/html") << field;
    EXPECT_EQ(sniffed(field, "<p>"), "text/html") << field;
  }
}

TEST(Sniffing, TheSuppliedTypeKeepsItsParameters) {
  const MimeType mime = sniff_mime_type("text/html; charset=Shift_JIS", "<p>");
  EXPECT_EQ(mime.serialize(), "text/html;charset=Shift_JIS");
}

TEST(Sniffing, ImageTypesAreCorrectedOnlyByImageSignatures) {
  EXPECT_EQ(sniffed("image/gif", "\x89PNG\r\n\x1A\n"), "image/png");
  EXPECT_EQ(sniffed("image/gif", "<html>"), "image/gif");
  EXPECT_EQ(sniffed("video/mp4", "OggS\x00"s), "application/ogg");
  EXPECT_EQ(sniffed("audio/x-anything", "RIFF\x00\x00\x00\x00WAVE"s), "audio/wave");
}

TEST(Sniffing, OctetStreamStandsInTheStandardsAlgorithm) {
  EXPECT_EQ(sniffed("application/octet-stream", "<html>"), "application/octet-stream");
}

TEST(IsHtml, HtmlContentTypesAreHtmlWhateverTheBytes) {
  EXPECT_TRUE(html("text/html", ""));
  EXPECT_TRUE(html("TEXT/HTML; charset=windows-1252", "\x00\x01"s));
  EXPECT_TRUE(html("application/xhtml+xml", "<?xml version=\"1.0\"?>"));
  EXPECT_TRUE(html("text/html", "plain words"));
}

TEST(IsHtml, OtherContentTypesAreNotHtmlEvenIfTheyLookIt) {
  EXPECT_FALSE(html("text/plain", "<html><body>"));
  EXPECT_FALSE(html("text/plain; charset=utf-8", "<html><body>"));
  EXPECT_FALSE(html("image/png", "<html>"));
  EXPECT_FALSE(html("application/json", "<html>"));
  EXPECT_FALSE(html("text/html", "<?xml version=\"1.0\"?><rss>"));
}

TEST(IsHtml, AMissingOrUnknownTypeIsSniffed) {
  EXPECT_TRUE(html(std::nullopt, "<!DOCTYPE html>"));
  EXPECT_TRUE(html("", "<html>"));
  EXPECT_TRUE(html("*/*", "  <div>"));
  EXPECT_FALSE(html(std::nullopt, "just text"));
  EXPECT_FALSE(html(std::nullopt, "\x89PNG\r\n\x1A\n"));
}

TEST(IsHtml, OctetStreamIsSniffedUnlessNosniff) {
  EXPECT_TRUE(html("application/octet-stream", "<html><body>"));
  EXPECT_TRUE(html("Application/Octet-Stream; x=y", "\n<!-- comment -->"));
  EXPECT_FALSE(html("application/octet-stream", "\x00<html>"s));
  EXPECT_FALSE(html("application/octet-stream", "<html><body>", true));
  EXPECT_FALSE(html(std::nullopt, "<html>", true));
}

TEST(Charset, AByteOrderMarkNamesItsEncoding) {
  EXPECT_EQ(bom_encoding("\xEF\xBB\xBF<html>"), "UTF-8");
  EXPECT_EQ(bom_encoding("\xFE\xFF\x00<"s), "UTF-16BE");
  EXPECT_EQ(bom_encoding("\xFF\xFE<\x00"s), "UTF-16LE");
  EXPECT_EQ(bom_encoding("\xEF\xBB"), std::nullopt);
  EXPECT_EQ(bom_encoding(""), std::nullopt);
}

TEST(Charset, TheContentTypeCharsetParameterIsReturnedAsWritten) {
  EXPECT_EQ(content_type_charset("text/html; charset=Shift_JIS"), "Shift_JIS");
  EXPECT_EQ(content_type_charset("text/html;charset=\"windows-1252\""), "windows-1252");
  EXPECT_EQ(content_type_charset("text/html"), std::nullopt);
  EXPECT_EQ(content_type_charset("text/html;charset=\"\""), std::nullopt);
  EXPECT_EQ(content_type_charset("not a type; charset=utf-8"), std::nullopt);
  EXPECT_EQ(content_type_charset(std::nullopt), std::nullopt);
  EXPECT_EQ(content_type_charset("text/html;charset=gbk, text/html"), "gbk");
}

TEST(Charset, AByteOrderMarkOverridesTheContentType) {
  EXPECT_EQ(declared_charset("text/html; charset=windows-1252", "\xEF\xBB\xBF<p>"), "UTF-8");
  EXPECT_EQ(declared_charset("text/html; charset=windows-1252", "<p>"), "windows-1252");
  EXPECT_EQ(declared_charset(std::nullopt, "<p>"), std::nullopt);
}

}  // namespace
}  // namespace squall
