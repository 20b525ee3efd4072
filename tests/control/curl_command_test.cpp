// curl_command: shell words and curl's flags as a pyspider task.
#include "squall/control/curl_command.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"

namespace squall {
namespace {

using nlohmann::json;

TEST(SplitShellWords, QuotesAndEscapesJoinAndSplitAsAShellDoes) {
  EXPECT_EQ(split_shell_words(R"(curl 'a b' "c \"d\" \$e" f\ g  h'i'"j")"),
            (std::vector<std::string>{"curl", "a b", "c \"d\" $e", "f g", "hij"}));
  EXPECT_EQ(split_shell_words("curl \\\n  -H x"), (std::vector<std::string>{"curl", "-H", "x"}));
  EXPECT_EQ(split_shell_words("a ''"), (std::vector<std::string>{"a", ""}));
  EXPECT_THROW(split_shell_words("curl 'open"), InvalidArgumentError);
  EXPECT_THROW(split_shell_words("curl \"open"), InvalidArgumentError);
}

TEST(TaskFromCurl, ABrowsersCopyAsCurlBecomesAPostWithHeadersCookiesAndData) {
  json task = task_from_curl(
      "curl 'https://example.com/api?x=1' -H 'Accept: application/json' "
      "-H 'Cookie: a=1; b=two' -H 'User-Agent: Mozilla/5.0' --data-raw '{\"q\":1}' --compressed");
  EXPECT_EQ(task["url"], "https://example.com/api?x=1");
  json f = task["fetch"];
  EXPECT_EQ(f["method"], "POST");
  EXPECT_EQ(f["headers"]["Accept"], "application/json");
  EXPECT_EQ(f["headers"]["Content-Type"], "application/x-www-form-urlencoded");
  EXPECT_EQ(f["cookies"], (json{{"a", "1"}, {"b", "two"}}));
  EXPECT_EQ(f["user_agent"], "Mozilla/5.0");
  EXPECT_EQ(f["data"], "{\"q\":1}");
  EXPECT_EQ(f["use_gzip"], true);
  EXPECT_EQ(f["allow_redirects"], false);
}

TEST(TaskFromCurl, MethodsRedirectsRepeatedDataAndGet) {
  json put = task_from_curl("curl -X PUT -d a=1 -d b=2 -L -k http://h/");
  EXPECT_EQ(put["fetch"]["method"], "PUT");
  EXPECT_EQ(put["fetch"]["data"], "a=1&b=2");
  EXPECT_EQ(put["fetch"]["allow_redirects"], true);
  EXPECT_EQ(put["fetch"]["validate_cert"], false);
  json get = task_from_curl("curl -G -d q=squall --url http://h/search");
  EXPECT_EQ(get["url"], "http://h/search?q=squall");
  EXPECT_FALSE(get["fetch"].contains("data"));
  json head = task_from_curl("curl -sSI -A bot -e http://ref/ http://h/");
  EXPECT_EQ(head["fetch"]["method"], "HEAD");
  EXPECT_EQ(head["fetch"]["user_agent"], "bot");
  EXPECT_EQ(head["fetch"]["headers"]["Referer"], "http://ref/");
}

TEST(TaskFromCurl, WhatItCannotTakeIsRefusedByName) {
  auto message = [](std::string_view line) {
    try {
      task_from_curl(line);
    } catch (const InvalidArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("curl -F a=@file http://h/").find("-F"), std::string::npos);
  EXPECT_NE(message("wget http://h/").find("start with 'curl'"), std::string::npos);
  EXPECT_NE(message("curl -H").find("-H needs a value"), std::string::npos);
  EXPECT_NE(message("curl -H novalue http://h/").find("novalue"), std::string::npos);
  EXPECT_NE(message("curl -s").find("no URL"), std::string::npos);
  EXPECT_NE(message("curl http://a/ http://b/").find("one URL"), std::string::npos);
}

}  // namespace
}  // namespace squall
