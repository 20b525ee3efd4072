// TaskDict: a task's dict, held as its text until read.
#include "squall/engine/task_dict.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/core/spawn.h"
#include "squall/crawl/jsonl.h"
#include "squall/engine/crawl_task.h"
#include "squall/engine/sqlite_store.h"
#include "support/process.h"

namespace squall {
namespace {

using nlohmann::json;

std::string text_of(const TaskDict& d) {
  std::string out;
  d.append_text(out);
  return out;
}

TEST(TaskDict, TextIsReadAsTheObjectItWrites) {
  TaskDict d = TaskDict::of_text(R"({"method":"POST","save":{"depth":2}})");
  EXPECT_FALSE(d.empty());
  EXPECT_EQ(d.value("method", ""), "POST");
  EXPECT_EQ(d["save"]["depth"], 2);
  EXPECT_TRUE(d.contains("save"));
  EXPECT_EQ(d.find("nothing"), d.end());
  EXPECT_EQ(d, json({{"method", "POST"}, {"save", {{"depth", 2}}}}));
  const json& object = d;
  EXPECT_EQ(object.size(), 2u);
}

TEST(TaskDict, TextIsWrittenAsItCameUntilTheDictIsChanged) {
  // Members out of append_json's order show that the text is the one given, not a rewrite.
  const std::string given = R"({"save":{"b":1,"a":2},"method":"GET"})";
  TaskDict d = TaskDict::of_text(given);
  EXPECT_EQ(text_of(d), given);
  EXPECT_EQ(d.value("method", ""), "GET");  // read: still the same text
  EXPECT_EQ(text_of(d), given);
  d["method"] = "POST";  // changed: written from the object
  EXPECT_EQ(text_of(d), R"({"method":"POST","save":{"a":2,"b":1}})");
  d.erase("save");
  EXPECT_EQ(text_of(d), R"({"method":"POST"})");
}

TEST(TaskDict, EmptyTextAnEmptyObjectAndAnythingButAnObjectAreAllEmpty) {
  EXPECT_TRUE(TaskDict().empty());
  EXPECT_TRUE(TaskDict::of_text("").empty());
  EXPECT_TRUE(TaskDict::of_text("{}").empty());
  EXPECT_TRUE(TaskDict(json::object()).empty());
  EXPECT_EQ(TaskDict().json(), json::object());
  EXPECT_EQ(TaskDict(json::array({1, 2})).json(), json::object());
  EXPECT_EQ(TaskDict(json()).json(), json::object());
  // Text that is not an object reads as {}, as a stored dict always did.
  EXPECT_EQ(TaskDict::of_text("[1,2]").json(), json::object());
  EXPECT_EQ(TaskDict::of_text("{\"cut").json(), json::object());
  // So does an object changed into something else.
  TaskDict changed = TaskDict::of_text(R"({"a":1})");
  changed.edit() = 5;
  EXPECT_TRUE(changed.empty());
  EXPECT_EQ(changed.json(), json::object());
  EXPECT_EQ(text_of(changed), "{}");
  TaskDict made = {{"callback", "index_page"}};
  EXPECT_EQ(made.value("callback", ""), "index_page");
  EXPECT_EQ(text_of(made), R"({"callback":"index_page"})");
}

TEST(TaskDict, ACopyIsIndependentOfItsOriginal) {
  TaskDict a = TaskDict::of_text(R"({"x":1})");
  TaskDict b = a;
  b["x"] = 2;
  EXPECT_EQ(a["x"], 1);
  EXPECT_EQ(text_of(a), R"({"x":1})");
  EXPECT_EQ(b["x"], 2);
  EXPECT_FALSE(a == b);
}

// A task's dicts go into the store as the text they came as, and come back as that text: the
// store neither rewrites nor needs to read them.
TEST(TaskDict, ATasksDictsAreStoredAndReadBackAsText) {
  test::TempDir dir;
  auto store = SqliteStore::open(dir.path() / "tasks.db");
  CrawlTask t = CrawlTask::for_url("p", "http://127.0.0.1/a");
  const std::string fetch = R"({"save":{"z":1,"a":[1,2]},"headers":{"X-A":"1"}})";
  t.fetch = TaskDict::of_text(fetch);
  t.process = {{"callback", "detail_page"}};
  run_sync(store->insert(t, 1));
  std::optional<CrawlTask> back = run_sync(store->get("p", t.taskid));
  ASSERT_TRUE(back);
  EXPECT_EQ(text_of(back->fetch), fetch);
  EXPECT_EQ(back->fetch["headers"]["X-A"], "1");
  EXPECT_EQ(back->callback(), "detail_page");
  EXPECT_EQ(back->to_json()["fetch"], json::parse(fetch));
}

}  // namespace
}  // namespace squall
