// CrawlTask in pyspider's dict shape.
#include "squall/engine/crawl_task.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <string>

#include "squall/core/error.h"
#include "squall/engine/processor.h"

namespace squall {
namespace {

using nlohmann::json;

TEST(CrawlTask, TheDefaultTaskidIsTheMd5OfTheUrl) {
  // md5("http://example.com/") as pyspider's md5string gives it.
  EXPECT_EQ(default_taskid("http://example.com/"), "a6bf1757fff057f266b697df9cf176fd");
  EXPECT_EQ(CrawlTask::for_url("p", "http://example.com/").taskid,
            "a6bf1757fff057f266b697df9cf176fd");
}

TEST(CrawlTask, TheDefaultTaskidIsRfc1321sMd5AtEveryLengthAcrossTheBlockEdges) {
  // RFC 1321's test suite.
  EXPECT_EQ(default_taskid(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(default_taskid("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(default_taskid("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(default_taskid("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(default_taskid("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(default_taskid("1234567890123456789012345678901234567890"
                           "1234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
  // Every length up to four blocks, so the tail's one and two block cases at each offset
  // (55, 56 and 63 bytes are the edges), of bytes of every value, against OpenSSL's MD5.
  std::string text;
  for (size_t length = 0; length <= 260; ++length) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    ASSERT_EQ(EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_md5(), nullptr), 1);
    std::string hex;
    for (unsigned int i = 0; i < size; ++i) {
      static constexpr char kHex[] = "0123456789abcdef";
      hex += kHex[digest[i] >> 4];
      hex += kHex[digest[i] & 15];
    }
    EXPECT_EQ(default_taskid(text), hex) << "length " << length;
    text.push_back(static_cast<char>((length * 151 + 7) & 0xff));
  }
}

TEST(CrawlTask, ADictFromAScriptBecomesATaskWithDefaultsForWhatItLeavesOut) {
  json dict = {{"url", "http://h/a"},
               {"schedule", {{"priority", 2}, {"itag", 7}, {"auto_recrawl", 1}}},
               {"fetch", {{"method", "POST"}}},
               {"process", {{"callback", "detail_page"}}}};
  CrawlTask t = CrawlTask::from_json(dict, "proj");
  EXPECT_EQ(t.project, "proj");
  EXPECT_EQ(t.taskid, default_taskid("http://h/a"));
  EXPECT_EQ(t.status, TaskStatus::Active);
  EXPECT_EQ(t.schedule.priority, 2);
  EXPECT_EQ(t.schedule.retries, 3);
  EXPECT_EQ(t.schedule.age, -1);
  EXPECT_EQ(t.schedule.itag, "7");
  EXPECT_TRUE(t.schedule.auto_recrawl);
  EXPECT_EQ(t.callback(), "detail_page");
  EXPECT_EQ(CrawlTask::from_json(t.to_json()).to_json(), t.to_json());
}

TEST(CrawlTask, AScheduleFieldIsSetByNameAsFromJsonReadsIt) {
  TaskSchedule s;
  EXPECT_TRUE(s.set("priority", 4));
  EXPECT_TRUE(s.set("itag", 7));
  EXPECT_TRUE(s.set("auto_recrawl", 1));
  EXPECT_TRUE(s.set("age", nullptr));  // null keeps the default
  EXPECT_FALSE(s.set("callback", "page"));
  EXPECT_EQ(s.priority, 4);
  EXPECT_EQ(s.itag, "7");
  EXPECT_TRUE(s.auto_recrawl);
  EXPECT_EQ(s.age, -1);
  try {
    s.set("retries", "three");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'retries'"), std::string::npos);
  }
}

TEST(CrawlTask, AMalformedDictIsAnErrorThatNamesTheField) {
  auto message = [](const json& j) {
    try {
      CrawlTask::from_json(j, "p");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(json{{"taskid", "x"}}).find("no url"), std::string::npos);
  EXPECT_NE(
      message(json{{"url", "http://h/"}, {"schedule", {{"priority", "high"}}}}).find("'priority'"),
      std::string::npos);
  EXPECT_NE(message(json{{"url", "http://h/"}, {"fetch", "GET"}}).find("'fetch'"),
            std::string::npos);
  EXPECT_NE(message(json{{"url", "http://h/"}, {"status", 9}}).find("'status'"), std::string::npos);
  EXPECT_NE(message(json::array()).find("object"), std::string::npos);
}

TEST(CrawlTask, ATrackIsHeldAsTextAndReadBackAsTheObject) {
  json track = {{"fetch", {{"status_code", 200}, {"etag", "\"x\""}}}, {"process", {{"ok", true}}}};
  JsonText held(track);
  EXPECT_EQ(held.text(), track.dump());
  EXPECT_EQ(held.read(), track);
  EXPECT_EQ(JsonText::of_text(track.dump()), held);
  // {} in any form is empty, and text that is not an object reads as {}.
  EXPECT_TRUE(JsonText(json::object()).empty());
  EXPECT_TRUE(JsonText(json::array({1})).empty());
  EXPECT_TRUE(JsonText::of_text("{}").empty());
  EXPECT_EQ(JsonText::of_text("[1]").read(), json::object());
  EXPECT_EQ(JsonText::of_text("{broken").read(), json::object());
  // A task dict carries it as the object, and a dict's track comes back as text.
  CrawlTask t = CrawlTask::for_url("p", "http://h/");
  t.track = held;
  json dict = t.to_json();
  EXPECT_EQ(dict["track"], track);
  EXPECT_EQ(CrawlTask::from_json(dict).track, held);
  EXPECT_EQ(CrawlTask::for_url("p", "http://h/").to_json()["track"], json::object());
}

TEST(CrawlTask, TheTrackOfAFailedFetchKeepsTheStartOfItsBodyAndOfASuccessNone) {
  FetchResult fetched;
  fetched.status_code = 404;
  fetched.url = "http://h/missing";
  fetched.content = std::string(1500, 'x') + "\xff";
  fetched.time = 0.5;
  fetched.headers.add("ETag", "\"v1\"");
  json failed = Processor::end_track(Processor::begin_track(fetched), false, fetched.content,
                                     R"({"exception":"HTTP 404","ok":false})")
                    .read();
  EXPECT_EQ(failed["fetch"]["status_code"], 404);
  EXPECT_EQ(failed["fetch"]["ok"], false);
  EXPECT_EQ(failed["fetch"]["etag"], "\"v1\"");
  EXPECT_EQ(failed["fetch"]["length"], 1501);
  EXPECT_EQ(failed["fetch"]["error"], nullptr);
  EXPECT_EQ(failed["fetch"]["content"], std::string(1000, 'x'));
  EXPECT_EQ(failed["process"]["exception"], "HTTP 404");
  fetched.status_code = 200;
  json ok =
      Processor::end_track(Processor::begin_track(fetched), true, fetched.content, R"({"ok":true})")
          .read();
  EXPECT_EQ(ok["fetch"]["ok"], true);
  EXPECT_FALSE(ok["fetch"].contains("content"));
  EXPECT_EQ(ok["process"]["ok"], true);
}

TEST(CrawlTask, StatusNamesArePyspiders) {
  EXPECT_EQ(task_status_name(TaskStatus::Bad), "bad");
  EXPECT_EQ(parse_task_status("success"), TaskStatus::Success);
  EXPECT_FALSE(parse_task_status("done"));
}

}  // namespace
}  // namespace squall
