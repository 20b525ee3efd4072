// TaskResult: pyspider's dump line of a result.
#include "squall/engine/result_store.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/crawl/jsonl.h"

namespace squall {
namespace {

using nlohmann::json;

TEST(TaskResult, ItsDumpLineIsWrittenAsItsObjectWouldBe) {
  TaskResult r;
  r.taskid = "a6bf1757fff057f266b697df9cf176fd";
  r.url = "http://h.test/a?q=\"x\"&\xc3\xa9";
  r.updatetime = 1765000000.123456;
  for (const json& result : {json{{"title", "Tab\there \"quoted\" \\ \xe2\x82\xac"},
                                  {"n", 3},
                                  {"list", {1, 2.5, nullptr}}},
                             json(nullptr), json("text"), json::object()}) {
    r.result = result;
    std::string expected;
    append_json(expected, r.to_json());
    std::string line = "prefix ";
    r.append_json_text(line);
    EXPECT_EQ(line, "prefix " + expected);
    json back = json::parse(line.substr(7));
    EXPECT_EQ(back["result"], result);
    EXPECT_EQ(back["url"], r.url);
    EXPECT_EQ(back["updatetime"].get<double>(), r.updatetime);
  }
}

}  // namespace
}  // namespace squall
