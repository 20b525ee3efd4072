// Tests for the built-in MIME type table.
#include "squall/http/mime.h"

#include <gtest/gtest.h>

namespace squall::http {
namespace {

TEST(MimeType, KnowsTheCommonWebTypes) {
  EXPECT_EQ(mime_type("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(mime_type("site.css"), "text/css; charset=utf-8");
  EXPECT_EQ(mime_type("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(mime_type("data.json"), "application/json");
  EXPECT_EQ(mime_type("logo.png"), "image/png");
  EXPECT_EQ(mime_type("photo.jpg"), "image/jpeg");
  EXPECT_EQ(mime_type("icon.svg"), "image/svg+xml");
  EXPECT_EQ(mime_type("font.woff2"), "font/woff2");
  EXPECT_EQ(mime_type("clip.mp4"), "video/mp4");
  EXPECT_EQ(mime_type("module.wasm"), "application/wasm");
  EXPECT_EQ(mime_type("notes.txt"), "text/plain; charset=utf-8");
  EXPECT_EQ(mime_type("report.pdf"), "application/pdf");
}

TEST(MimeType, ComparesExtensionsWithoutCase) {
  EXPECT_EQ(mime_type("INDEX.HTML"), "text/html; charset=utf-8");
  EXPECT_EQ(mime_type("Photo.JpEg"), "image/jpeg");
}

TEST(MimeType, UsesOnlyTheLastExtensionOfTheFileName) {
  EXPECT_EQ(mime_type("archive.tar.gz"), "application/gzip");
  EXPECT_EQ(mime_type("/srv/www.example/readme"), "application/octet-stream");
  EXPECT_EQ(mime_type("dir.html/file"), "application/octet-stream");
  EXPECT_EQ(mime_type("a/b/c.css"), "text/css; charset=utf-8");
}

TEST(MimeType, FallsBackToOctetStreamForUnknownOrMissingExtensions) {
  EXPECT_EQ(mime_type("Makefile"), "application/octet-stream");
  EXPECT_EQ(mime_type("trailing."), "application/octet-stream");
  EXPECT_EQ(mime_type("x.unknownext"), "application/octet-stream");
  EXPECT_EQ(mime_type("x.averyveryverylongextension"), "application/octet-stream");
  EXPECT_EQ(mime_type(""), "application/octet-stream");
  EXPECT_EQ(mime_type(".html"), "text/html; charset=utf-8");
}

}  // namespace
}  // namespace squall::http
