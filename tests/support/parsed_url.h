// A URL a test writes out, parsed: the test fails when it does not parse.
#pragma once

#include <gtest/gtest.h>

#include <string_view>

#include "squall/url/url.h"

namespace squall::test {

inline Url url(std::string_view text) {
  UrlResult u = Url::parse(text);
  EXPECT_TRUE(u) << text;
  return *std::move(u);
}

}  // namespace squall::test
