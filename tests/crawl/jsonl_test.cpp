// JSON lines output: the crawler's one line per page, its escaping and its offsets.
#include "squall/crawl/jsonl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "squall/core/error.h"
#include "support/process.h"

namespace squall {
namespace {

using test::TempDir;

TEST(JsonLines, StringsAreEscapedAndAlwaysValid) {
  auto quoted = [](std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
  };
  EXPECT_EQ(quoted("http://h/a?b=c"), "\"http://h/a?b=c\"");
  EXPECT_EQ(quoted("say \"hi\" \\ bye"), "\"say \\\"hi\\\" \\\\ bye\"");
  EXPECT_EQ(quoted(std::string("a\n\t\x01", 4)), "\"a\\u000a\\u0009\\u0001\"");
  EXPECT_EQ(quoted("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
  // Not UTF-8: a lone byte, a cut sequence, an overlong form, a surrogate, beyond U+10FFFF.
  for (std::string bad : {"\xff", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    std::string input = "x";
    input.append(bad).append("y");
    std::string out = quoted(input);
    EXPECT_EQ(out.substr(0, 2), "\"x");
    EXPECT_NE(out.find("\\ufffd"), std::string::npos) << out;
    EXPECT_NO_THROW(nlohmann::json::parse(out)) << out;
  }
  EXPECT_EQ(nlohmann::json::parse(quoted(std::string("\0\"\\\x7f", 4))).get<std::string>(),
            std::string("\0\"\\\x7f", 4));
}

// Long strings are scanned a word at a time: a byte that needs escaping is found wherever it
// sits in a word, after plain words, or in the last word, which overlaps the one before.
TEST(JsonLines, AByteToEscapeIsFoundAtEveryPlaceInALongString) {
  const std::pair<std::string, std::string> cases[] = {{"\"", "\\\""},
                                                       {"\\", "\\\\"},
                                                       {"\n", "\\u000a"},
                                                       {"\x1f", "\\u001f"},
                                                       {"\x20", " "},
                                                       {"\x7f", "\x7f"},
                                                       {"!", "!"},
                                                       {"#", "#"},
                                                       {"[", "["},
                                                       {"]", "]"},
                                                       {"\xc3\xa9", "\xc3\xa9"},
                                                       {"\x80", "\\ufffd"},
                                                       {"\xff", "\\ufffd"}};
  for (const auto& [raw, written] : cases) {
    for (size_t at = 0; at <= 40; ++at) {
      std::string input(at, 'a');
      input.append(raw).append(40 - at, 'b');
      std::string expected = "\"";
      expected.append(at, 'a').append(written).append(40 - at, 'b').append("\"");
      std::string out;
      append_json_string(out, input);
      EXPECT_EQ(out, expected) << "byte " << static_cast<int>(static_cast<unsigned char>(raw[0]))
                               << " at " << at;
    }
  }
}

CrawledPage page_of(std::string url) {
  CrawledPage p;
  p.url = url;
  p.final_url = url;
  p.status = 200;
  p.content_type = "text/html";
  p.length = 1234;
  p.elapsed_ms = 1.5;
  p.links = 7;
  return p;
}

// The same value, with the same type at every level (nlohmann's == takes 1 and 1u as equal).
bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !same(*ia, *ib)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

TEST(JsonLines, ParseJsonReadsWhatNlohmannReadsWithTheSameTypes) {
  std::string deep(1000, '[');
  deep += std::string(1000, ']');
  for (std::string text :
       {std::string(R"({"save":{"depth":3,"parent":"http://h/a"}, "callback" : "page"})"),
        std::string(" \t\r\n[1, -1, 0, -0, 18446744073709551615, 18446744073709551616, "
                    "-9223372036854775808, -9223372036854775809, 1.5, -2e3, 1E-300, 0.1e+2] "),
        std::string(R"(["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u4e2d\ud83d\ude00", "\u0000x", "é中😀"])"),
        std::string(R"({"a":1,"a":2,"b":{"a":[true,false,null]},"":{}})"), std::string("[[],{}]"),
        std::string("\"\""), std::string("7"), std::string("true"), std::string("null"), deep}) {
    nlohmann::json ours = parse_json(text);
    EXPECT_FALSE(ours.is_discarded()) << text;
    EXPECT_TRUE(same(ours, nlohmann::json::parse(text))) << text;
  }
  EXPECT_EQ(parse_json(R"({"a":1,"a":2})")["a"], 2);
  EXPECT_TRUE(parse_json("18446744073709551616").is_number_float());
  EXPECT_TRUE(parse_json("-0").is_number_integer());
  EXPECT_TRUE(parse_json("5").is_number_unsigned());
  EXPECT_EQ(parse_json(R"("\ud83d\ude00")"), "\xF0\x9F\x98\x80");
  // nlohmann's reader stops at a NUL byte, and so does parse_json, through it.
  EXPECT_EQ(parse_json(std::string("1\0", 2)), 1);
}

TEST(JsonLines, ParseJsonRefusesWhatIsNotOneJsonDocument) {
  for (std::string text : std::initializer_list<std::string>{"",
                                                             " ",
                                                             "01",
                                                             "1.",
                                                             ".5",
                                                             "+1",
                                                             "-",
                                                             "1e",
                                                             "1e+",
                                                             "[1,]",
                                                             "[1 2]",
                                                             "{\"a\":1,}",
                                                             "{\"a\"}",
                                                             "{a:1}",
                                                             "{\"a\":1",
                                                             "[",
                                                             "\"abc",
                                                             "tru",
                                                             "nul",
                                                             "falsey",
                                                             "NaN",
                                                             "Infinity",
                                                             "1e400",
                                                             "[1] x",
                                                             "\"\\x\"",
                                                             "\"\\u12\"",
                                                             "\"\\ud800\"",
                                                             "\"\\udc00\"",
                                                             "\"\\ud800\\u0041\"",
                                                             std::string("\"a\x01\""),
                                                             std::string("\"\xff\""),
                                                             std::string("\"\xc0\xaf\""),
                                                             std::string("\"\xed\xa0\x80\"")}) {
    EXPECT_TRUE(parse_json(text).is_discarded()) << text;
    EXPECT_TRUE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
  }
}

TEST(JsonLines, AJsonValueIsWrittenAsDumpWritesItAndReadsBackEqual) {
  auto text = [](const nlohmann::json& v) {
    std::string out;
    append_json(out, v);
    return out;
  };
  nlohmann::json value = {{"ok", true},
                          {"none", nullptr},
                          {"n", -42},
                          {"big", 18446744073709551615ull},
                          {"time", 0.25},
                          {"whole", 3.0},
                          {"tiny", 1e-300},
                          {"list", {1, "two", {{"three", false}}, nlohmann::json::array()}},
                          {"empty", nlohmann::json::object()},
                          {"url", "http://h/a?b=\"c\"\\"}};
  std::string out = text(value);
  // Compact and in key order, as dump() writes it.
  EXPECT_EQ(out, value.dump());
  EXPECT_EQ(nlohmann::json::parse(out), value);
  // A double keeps its fraction, so it reads back as a double.
  EXPECT_EQ(text(3.0), "3.0");
  EXPECT_TRUE(nlohmann::json::parse(text(3.0)).is_number_float());
  EXPECT_EQ(text(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(text(std::nan("")), "null");
  // Control characters are written as code point escapes, and bytes that are not UTF-8 still give
  // text that parses.
  EXPECT_EQ(text("a\nb"), "\"a\\u000ab\"");
  EXPECT_EQ(nlohmann::json::parse(text(std::string("a\xff"))), "a\ufffd");
}

TEST(JsonLines, AnObjectWrittenMemberByMemberIsWhatAppendJsonWritesForItsMembers) {
  // Members given in key order, the order append_json writes an object's: the same text.
  std::string out;
  JsonObjectWriter w(out);
  w.null("error").integer("length", -12);
  JsonObjectWriter inner(w.member("nested"));
  inner.number("nan", std::nan("")).number("whole", 3.0);
  inner.end();
  // Keys are escaped as values are, however long.
  const std::string long_key(60, 'z');
  w.boolean("ok", true).integer("q\"uote\n", 1).number("time", 0.25);
  w.string("url", "http://h/\"a\"\xff").integer(long_key, 2).integer(long_key + "\\", 3);
  w.end();
  nlohmann::json same = {
      {"error", nullptr}, {"length", -12}, {"nested", {{"nan", nullptr}, {"whole", 3.0}}},
      {"ok", true},       {"time", 0.25},  {"url", "http://h/\"a\"\xff"},
      {"q\"uote\n", 1},   {long_key, 2},   {long_key + "\\", 3}};
  std::string expected;
  append_json(expected, same);
  EXPECT_EQ(out, expected);
  EXPECT_TRUE(nlohmann::json::parse(out)["nested"]["whole"].is_number_float());
  std::string empty;
  JsonObjectWriter(empty).end();
  EXPECT_EQ(empty, "{}");
}

TEST(JsonLines, APageIsOneLineWithTheFieldsInTheirDocumentedOrder) {
  TempDir dir;
  std::string path = (dir.path() / "out.jsonl").string();
  // 2026-11-29T23:01:02.345Z
  const int64_t fetched_at = 1795993262345;
  {
    JsonLinesWriter out = JsonLinesWriter::open(path);
    CrawledPage start = page_of("http://h/");
    out.write(start, fetched_at);
    CrawledPage gone = page_of("http://h/gone");
    gone.status = 404;
    gone.depth = 1;
    gone.parent = "http://h/";
    gone.error = "HTTP 404 Not Found";
    gone.links = 0;
    out.write(gone, fetched_at + 1);
  }
  EXPECT_EQ(test::read_file(path),
            "{\"url\":\"http://h/\",\"final_url\":\"http://h/\",\"status\":200,\"depth\":0,"
            "\"parent\":null,\"content_type\":\"text/html\",\"length\":1234,"
            "\"fetched_at\":\"2026-11-29T23:01:02.345Z\",\"elapsed_ms\":1.500,\"links\":7,"
            "\"error\":null,\"error_kind\":null,\"title\":null,\"redirects\":[],"
            "\"content_length\":null,\"last_modified\":null,\"etag\":null}\n"
            "{\"url\":\"http://h/gone\",\"final_url\":\"http://h/gone\",\"status\":404,"
            "\"depth\":1,\"parent\":\"http://h/\",\"content_type\":\"text/html\","
            "\"length\":1234,\"fetched_at\":\"2026-11-29T23:01:02.346Z\",\"elapsed_ms\":1.500,"
            "\"links\":0,\"error\":\"HTTP 404 Not Found\",\"error_kind\":null,\"title\":null,"
            "\"redirects\":[],\"content_length\":null,\"last_modified\":null,\"etag\":null}\n");
}

TEST(JsonLines, TheFetchTimeIsUtcToTheMillisecondAndTheElapsedTimeHasThreeDecimals) {
  auto fields = [](int64_t fetched_at, double elapsed_ms) {
    CrawledPage p = page_of("http://127.0.0.1/");
    p.elapsed_ms = elapsed_ms;
    std::string line;
    append_page_line(line, p, fetched_at, false);
    nlohmann::json j = nlohmann::json::parse(line);
    return j["fetched_at"].get<std::string>() + " " + j["elapsed_ms"].dump();
  };
  EXPECT_EQ(fields(0, 0), "1970-01-01T00:00:00.000Z 0.0");
  EXPECT_EQ(fields(951782400007, 12.3456), "2000-02-29T00:00:00.007Z 12.346");
  EXPECT_EQ(fields(1704067199999, 0.0004), "2023-12-31T23:59:59.999Z 0.0");
  std::string line;
  CrawledPage p = page_of("http://127.0.0.1/");
  p.elapsed_ms = 2.0625;
  append_page_line(line, p, 1796000000000, false);
  EXPECT_NE(line.find("\"fetched_at\":\"2026-11-30T00:53:20.000Z\",\"elapsed_ms\":2.062,"),
            std::string::npos)
      << line << "(rounded half to even, as printf's %.3f)";
}

TEST(JsonLines, TitleRedirectsHeadersAndOutlinksAreWrittenWhenKnown) {
  TempDir dir;
  std::string path = (dir.path() / "out.jsonl").string();
  {
    JsonLinesWriter out = JsonLinesWriter::open(path, true);
    CrawledPage p = page_of("http://h/old");
    p.final_url = "http://h/new";
    p.title = "A \"quoted\" title";
    p.redirects = {"http://h/old", "http://h/older"};
    p.content_length = 1234;
    p.last_modified = "Sun, 29 Nov 2026 23:01:02 GMT";
    p.etag = "\"abc\"";
    p.outlinks = {"http://h/a", "http://other/b"};
    out.write(p, 0);
    CrawledPage failed = page_of("http://h/down");
    failed.status = 599;
    failed.error = "connect: connection refused";
    failed.error_kind = "connect";
    out.write(failed, 0);
  }
  std::istringstream lines(test::read_file(path));
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["title"], "A \"quoted\" title");
  EXPECT_EQ(j["redirects"], nlohmann::json::array({"http://h/old", "http://h/older"}));
  EXPECT_EQ(j["content_length"], 1234);
  EXPECT_EQ(j["last_modified"], "Sun, 29 Nov 2026 23:01:02 GMT");
  EXPECT_EQ(j["etag"], "\"abc\"");
  EXPECT_EQ(j["outlinks"], nlohmann::json::array({"http://h/a", "http://other/b"}));
  EXPECT_EQ(line.substr(line.find("\"outlinks\"")),
            "\"outlinks\":[\"http://h/a\",\"http://other/b\"]}")
      << "outlinks come last";
  ASSERT_TRUE(std::getline(lines, line));
  j = nlohmann::json::parse(line);
  EXPECT_EQ(j["status"], 599);
  EXPECT_EQ(j["error_kind"], "connect");
  EXPECT_EQ(j["outlinks"], nlohmann::json::array());
}

TEST(JsonLines, TheOffsetAfterFlushIsTheFileLengthAndTheFileIsAppendedTo) {
  TempDir dir;
  std::string path = dir.write("out.jsonl", "{\"earlier\":1}\n").string();
  JsonLinesWriter out = JsonLinesWriter::open(path);
  out.write(page_of("http://h/"), 0);
  out.flush();
  ASSERT_TRUE(out.offset());
  std::string contents = test::read_file(path);
  EXPECT_EQ(*out.offset(), contents.size());
  EXPECT_TRUE(contents.starts_with("{\"earlier\":1}\n{\"url\":")) << contents;
  EXPECT_TRUE(contents.ends_with("}\n")) << contents;
}

TEST(JsonLines, LinesAreWrittenToTheFileInBlocksOf64KiBUntilAFlush) {
  TempDir dir;
  std::string path = (dir.path() / "out.jsonl").string();
  JsonLinesWriter opened = JsonLinesWriter::open(path);
  JsonLinesWriter out = std::move(opened);  // its buffer goes with the file
  size_t written = 0;
  int lines = 0;
  auto write_until = [&](size_t bytes) {
    while (written < bytes) {
      CrawledPage p = page_of("http://h/" + std::to_string(lines++));
      std::string line;
      append_page_line(line, p, 0, false);
      written += line.size();
      out.write(p, 0);
    }
  };
  // Past stdio's default buffer for a file (its 4 KiB block) and short of 64 KiB.
  write_until(32 * 1024);
  EXPECT_EQ(test::read_file(path).size(), 0u);
  write_until(80 * 1024);
  EXPECT_EQ(test::read_file(path).size(), size_t{64} * 1024);
  out.flush();
  EXPECT_EQ(test::read_file(path).size(), written);
}

TEST(JsonLines, StandardOutputHasNoOffset) {
  JsonLinesWriter out = JsonLinesWriter::open("-");
  EXPECT_FALSE(out.offset());
}

TEST(JsonLines, AFileThatCannotBeOpenedIsAnErrorNamingIt) {
  TempDir dir;
  std::string path = (dir.path() / "missing" / "out.jsonl").string();
  try {
    JsonLinesWriter::open(path);
    FAIL() << "opened " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::System);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace squall
