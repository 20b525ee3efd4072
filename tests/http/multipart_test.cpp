// Tests for the multipart/form-data parser, fed whole, byte by byte and in random splits.
#include "squall/http/multipart.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"
#include "support/bytes.h"

namespace squall::http {
namespace {

// What the callbacks saw, as one flat transcript that is easy to compare.
std::string transcript(std::string_view body, std::string_view boundary,
                       const std::vector<std::string_view>& chunks, MultipartLimits limits = {}) {
  std::string out;
  MultipartParser parser(std::string(boundary),
                         {.on_part =
                              [&](const PartHead& h) {
                                out.append("[part name=").append(h.name);
                                if (h.filename) out.append(" file=").append(*h.filename);
                                out.append(" type=").append(h.content_type).append("]");
                              },
                          .on_data = [&](std::string_view d) { out.append(d); },
                          .on_part_end = [&] { out.append("[end]"); }},
                         limits);
  (void)body;
  for (auto c : chunks) parser.feed(c);
  parser.finish();
  EXPECT_TRUE(parser.done());
  return out;
}

void expect_all_splits(std::string_view body, std::string_view boundary, std::string_view want) {
  for (const auto& split : test::splits(body)) {
    std::vector<std::string_view> chunks;
    for (const auto& c : split.chunks) chunks.push_back(c.view());
    EXPECT_EQ(transcript(body, boundary, chunks), want) << split.name;
  }
}

constexpr std::string_view kForm =
    "--XyZ\r\n"
    "Content-Disposition: form-data; name=\"title\"\r\n"
    "\r\n"
    "Hello\r\nworld\r\n"
    "--XyZ\r\n"
    "Content-Disposition: form-data; name=\"upload\"; filename=\"a \\\"b\\\".txt\"\r\n"
    "Content-Type: text/plain\r\n"
    "\r\n"
    "line one --XyZ is no delimiter without a CRLF before it\r\n\r\n--Xy\r\n-XyZ\r\n"
    "--XyZ--\r\n";

TEST(MultipartParser, ReportsFieldsAndFilesWhateverTheSplit) {
  expect_all_splits(kForm, "XyZ",
                    "[part name=title type=text/plain]Hello\r\nworld[end]"
                    "[part name=upload file=a \"b\".txt type=text/plain]"
                    "line one --XyZ is no delimiter without a CRLF before it\r\n\r\n--Xy\r\n-XyZ"
                    "[end]");
}

TEST(MultipartParser, IgnoresPreambleEpilogueAndPaddingAfterDelimiters) {
  std::string body =
      "This is the preamble.\r\n--b  \t\r\n"
      "\r\n"
      "no fields at all\r\n"
      "--b\r\n"
      "content-disposition: form-data; name=empty\r\n"
      "\r\n"
      "\r\n"
      "--b--  epilogue, ignored \r\n--b\r\n";
  expect_all_splits(body, "b",
                    "[part name= type=text/plain]no fields at all[end]"
                    "[part name=empty type=text/plain][end]");
}

TEST(MultipartParser, PrefersTheExtendedFilenameParameter) {
  std::string body =
      "--b\r\n"
      "Content-Disposition: form-data; name=f; filename=\"plain.txt\"; "
      "filename*=UTF-8''%C3%A9t%C3%A9.txt\r\n"
      "Content-Type: application/octet-stream\r\n\r\n"
      "x\r\n--b--";
  MultipartForm form = parse_multipart(body, "b");
  ASSERT_EQ(form.files.size(), 1u);
  EXPECT_EQ(form.files[0].filename, "\xc3\xa9t\xc3\xa9.txt");
  EXPECT_EQ(form.files[0].content_type, "application/octet-stream");
  EXPECT_EQ(form.files[0].body, "x");
}

TEST(ParseMultipart, SeparatesFieldsFromFiles) {
  MultipartForm form = parse_multipart(kForm, "XyZ");
  EXPECT_EQ(form.fields.get("title"), "Hello\r\nworld");
  ASSERT_EQ(form.files.size(), 1u);
  EXPECT_EQ(form.files[0].name, "upload");
  EXPECT_EQ(form.files[0].filename, "a \"b\".txt");
}

void expect_error(std::string_view body, ErrorKind kind, MultipartLimits limits = {}) {
  try {
    (void)parse_multipart(body, "b", limits);
    ADD_FAILURE() << "accepted: " << body;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
  }
}

TEST(MultipartParser, RefusesMalformedBodiesWithProtocolErrors) {
  expect_error("", ErrorKind::Protocol);
  expect_error("--b\r\nContent-Disposition: form-data; name=a\r\n\r\nunterminated",
               ErrorKind::Protocol);
  expect_error("--bX\r\n\r\nx\r\n--b--", ErrorKind::Protocol);
  expect_error("--b\r\nno colon here\r\n\r\nx\r\n--b--", ErrorKind::Protocol);
  expect_error("--b\r\nbad name: v\r\n\r\nx\r\n--b--", ErrorKind::Protocol);
}

TEST(MultipartParser, EnforcesItsLimits) {
  std::string many;
  for (int i = 0; i < 4; ++i) many += "--b\r\n\r\nx\r\n";
  many += "--b--";
  EXPECT_EQ(parse_multipart(many, "b", {.max_parts = 4}).fields.size(), 4u);
  expect_error(many, ErrorKind::TooLarge, {.max_parts = 3});
  std::string big_head =
      std::string("--b\r\nX-Long: ").append(200, 'a').append("\r\n\r\nx\r\n--b--");
  expect_error(big_head, ErrorKind::TooLarge, {.max_head_size = 100});
  // Without its end in sight, too: the head is refused as soon as it outgrows the limit.
  std::string endless_head = std::string("--b\r\nX-Long: ").append(500, 'a');
  MultipartParser p("b", {}, {.max_head_size = 100});
  EXPECT_THROW(p.feed(endless_head), Error);
  EXPECT_THROW(p.feed("more"), InvalidStateError);
  expect_error(std::string(1000, 'p') + "\r\n--b\r\n\r\nx\r\n--b--", ErrorKind::TooLarge,
               {.max_preamble = 500});
}

TEST(MultipartParser, StreamsLargePartsInBoundedMemory) {
  size_t received = 0;
  size_t largest_piece = 0;
  MultipartParser parser("boundary", {.on_data = [&](std::string_view d) {
                           received += d.size();
                           largest_piece = std::max(largest_piece, d.size());
                         }});
  parser.feed("--boundary\r\nContent-Disposition: form-data; name=f; filename=big\r\n\r\n");
  std::string chunk(64 * 1024, 'z');
  for (int i = 0; i < 64; ++i) parser.feed(chunk);
  parser.feed("\r\n--boundary--\r\n");
  parser.finish();
  EXPECT_EQ(received, 64u * chunk.size());
  EXPECT_LE(largest_piece, chunk.size() + 16);
}

TEST(MultipartBoundary, ReadsTheBoundaryOfMultipartTypesOnly) {
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=abc123"), "abc123");
  EXPECT_EQ(multipart_boundary("Multipart/Form-Data;BOUNDARY=\"a b:c\""), "a b:c");
  EXPECT_EQ(multipart_boundary("multipart/mixed; charset=x; boundary=----WebKitFormBoundaryZ"),
            "----WebKitFormBoundaryZ");
  EXPECT_EQ(multipart_boundary("text/plain; boundary=abc"), std::nullopt);
  EXPECT_EQ(multipart_boundary("multipart/form-data"), std::nullopt);
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary="), std::nullopt);
  EXPECT_EQ(multipart_boundary(std::string("multipart/form-data; boundary=").append(71, 'a')),
            std::nullopt);
  EXPECT_EQ(multipart_boundary("multipart/form-data; boundary=\"bad\r\n\""), std::nullopt);
}

TEST(FormatMultipart, ABodyItBuildsParsesBackToTheSameFieldsAndFiles) {
  std::string boundary = make_multipart_boundary();
  EXPECT_EQ(boundary.size(), 40u);
  EXPECT_TRUE(multipart_boundary("multipart/form-data; boundary=" + boundary));
  std::string body = format_multipart(
      {{"name", std::nullopt, "", "squall"},
       {"upload", "a \"quoted\"\r\nname.txt", "text/plain", "line 1\r\n--not a boundary\r\n"},
       {"empty", std::nullopt, "", ""}},
      boundary);
  EXPECT_NE(body.find("filename=\"a %22quoted%22%0D%0Aname.txt\""), std::string::npos) << body;
  MultipartForm form = parse_multipart(body, boundary);
  EXPECT_EQ(form.fields.get("name"), "squall");
  EXPECT_EQ(form.fields.get("empty"), "");
  ASSERT_EQ(form.files.size(), 1u);
  EXPECT_EQ(form.files[0].name, "upload");
  EXPECT_EQ(form.files[0].filename, "a %22quoted%22%0D%0Aname.txt");
  EXPECT_EQ(form.files[0].content_type, "text/plain");
  EXPECT_EQ(form.files[0].body, "line 1\r\n--not a boundary\r\n");
}

}  // namespace
}  // namespace squall::http
