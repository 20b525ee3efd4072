// EngineMessage: dispatches, fetched pages, process outputs and parked tasks round-trip as bytes
// (a body of every byte value included), and a malformed message is refused at every cut, never
// read past.
#include "squall/engine/engine_message.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/core/error.h"

namespace squall {
namespace {

using nlohmann::json;

CrawlTask sample_task() {
  CrawlTask t = CrawlTask::for_url("proj", "http://h/page?q=1");
  t.schedule.priority = 3;
  t.schedule.age = 86400;
  t.schedule.itag = "v2";
  t.fetch = json{{"method", "POST"}, {"data", "a=1"}, {"save", {{"depth", 2}}}};
  t.process = json{{"callback", "detail_page"}};
  t.track = JsonText(json{{"fetch", {{"etag", "\"x\""}}}});
  t.lastcrawltime = 1.7e9;
  return t;
}

FetchResult sample_result() {
  FetchResult r;
  r.status_code = 200;
  r.orig_url = "http://h/page?q=1";
  r.url = "http://h/final";
  r.headers.add("Content-Type", "text/html; charset=latin1");
  r.headers.add("Set-Cookie", "a=1");
  r.headers.add("Set-Cookie", "b=2");
  r.cookies = json{{"a", "1"}, {"b", "2"}};
  for (int i = 0; i < 256; ++i) r.content.push_back(static_cast<char>(i));
  r.encoding = "latin1";
  r.time = 0.125;
  r.save = json{{"depth", 2}};
  r.redirects = {"http://h/page?q=1", "http://h/mid"};
  r.js_script_result = json{{"rendered", true}};
  return r;
}

TEST(EngineMessage, ADispatchRoundTripsWithItsWholeTaskAndToken) {
  Dispatch d{sample_task(), 42};
  Dispatch back = decode_dispatch(encode_dispatch(d));
  EXPECT_EQ(back.task.to_json(), d.task.to_json());
  EXPECT_EQ(back.token, 42u);
}

TEST(EngineMessage, AFetchedPageRoundTripsWithAnyBytesInItsBodyAndRepeatedHeaders) {
  FetchedTask f{{sample_task(), 7}, sample_result()};
  FetchedTask back = decode_fetched(encode_fetched(f));
  EXPECT_EQ(back.dispatch.task.to_json(), f.dispatch.task.to_json());
  EXPECT_EQ(back.dispatch.token, 7u);
  EXPECT_EQ(back.result.to_json(), f.result.to_json());
  EXPECT_EQ(back.result.content, f.result.content);
  EXPECT_EQ(back.result.headers, f.result.headers);
  EXPECT_EQ(back.result.redirects, f.result.redirects);
  EXPECT_EQ(back.result.time, 0.125);

  FetchResult failed;
  failed.orig_url = failed.url = "http://h/x";
  failed.error = "connection refused";
  failed.error_kind = "connect";
  failed.unchanged = true;
  FetchedTask g{{sample_task(), 0}, failed};
  FetchedTask again = decode_fetched(encode_fetched(g));
  EXPECT_EQ(again.result.status_code, 599);
  EXPECT_EQ(again.result.error_kind, "connect");
  EXPECT_TRUE(again.result.unchanged);
  EXPECT_TRUE(again.result.save.is_null());
}

TEST(EngineMessage, AProcessOutputRoundTripsWithItsFollowsAndResultOrNone) {
  ProcessOutput o;
  o.status = StatusPack{"proj", "abc", 9, true, JsonText(json{{"process", {{"ok", true}}}})};
  o.follows = {sample_task(), CrawlTask::for_url("other", "http://h/2")};
  o.result = TaskResult{"abc", "http://h/page", json{{"title", "é\x01"}}, 1.5};
  ProcessOutput back = decode_output(encode_output(o));
  EXPECT_EQ(back.status.project, "proj");
  EXPECT_EQ(back.status.taskid, "abc");
  EXPECT_EQ(back.status.token, 9u);
  EXPECT_TRUE(back.status.ok);
  EXPECT_EQ(back.status.track, o.status.track);
  ASSERT_EQ(back.follows.size(), 2u);
  EXPECT_EQ(back.follows[0].to_json(), o.follows[0].to_json());
  EXPECT_EQ(back.follows[1].project, "other");
  ASSERT_TRUE(back.result);
  EXPECT_EQ(back.result->to_json(), o.result->to_json());

  ProcessOutput bare;
  bare.status.project = "p";
  bare.status.taskid = "t";
  ProcessOutput none = decode_output(encode_output(bare));
  EXPECT_FALSE(none.result);
  EXPECT_TRUE(none.follows.empty());
  EXPECT_FALSE(none.status.ok);
}

TEST(EngineMessage, AParkedTaskRoundTripsAndIsToldFromAnOutputByItsTag) {
  ParkedTask p{"proj", "abc", 9, "127.0.0.1:9", "connect: robots.txt: connection refused"};
  std::string bytes = encode_parked(p);
  ParkedTask back = decode_parked(bytes);
  EXPECT_EQ(back.project, "proj");
  EXPECT_EQ(back.taskid, "abc");
  EXPECT_EQ(back.token, 9u);
  EXPECT_EQ(back.host, "127.0.0.1:9");
  EXPECT_EQ(back.reason, p.reason);

  EXPECT_EQ(engine_message_kind(bytes), EngineMessageKind::Parked);
  EXPECT_EQ(engine_message_kind(encode_output(ProcessOutput{})), EngineMessageKind::Output);
  EXPECT_EQ(engine_message_kind(encode_dispatch(Dispatch{sample_task(), 1})),
            EngineMessageKind::Dispatch);
  EXPECT_EQ(engine_message_kind(encode_fetched(FetchedTask{{sample_task(), 1}, {}})),
            EngineMessageKind::Fetched);
  EXPECT_FALSE(engine_message_kind(""));
  EXPECT_FALSE(engine_message_kind("SQ"));
  EXPECT_FALSE(engine_message_kind("SQX\x01")) << "a kind this squall does not know";
  EXPECT_FALSE(engine_message_kind("{\"taskid\": 1}"));

  // Strict as the others: every cut, trailing bytes and another kind are refused.
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(decode_parked(std::string_view(bytes).substr(0, n)), InvalidArgumentError) << n;
  EXPECT_THROW(decode_parked(bytes + "x"), InvalidArgumentError);
  EXPECT_THROW(decode_output(bytes), InvalidArgumentError);
  try {
    decode_parked(encode_output(ProcessOutput{}));
    ADD_FAILURE();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("parked task message cannot be read"), std::string::npos)
        << e.what();
  }
}

TEST(EngineMessage, EveryCutOfAMessageAndEveryForeignOneIsRefusedSayingWhy) {
  std::string whole = encode_fetched(FetchedTask{{sample_task(), 7}, sample_result()});
  for (size_t n = 0; n < whole.size(); ++n) {
    try {
      decode_fetched(std::string_view(whole).substr(0, n));
      ADD_FAILURE() << "a message cut at " << n << " of " << whole.size() << " was read";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("fetched page message cannot be read"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(decode_fetched(whole + "x"), InvalidArgumentError) << "trailing bytes";
  EXPECT_THROW(decode_dispatch(whole), InvalidArgumentError) << "another kind";
  std::string later = whole;
  later[3] = 2;
  try {
    decode_fetched(later);
    ADD_FAILURE();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("format version is 2"), std::string::npos) << e.what();
  }
  // A list that claims more elements than it has bytes is refused before anything is reserved.
  std::string output = encode_output(ProcessOutput{});
  std::string huge = output.substr(0, output.size() - 2);  // drop the follows count and flag
  for (int i = 0; i < 9; ++i) huge.push_back(static_cast<char>(0xff));
  huge.push_back(0x01);
  EXPECT_THROW(decode_output(huge), InvalidArgumentError);
  // A task that is not one (no url) is refused with the task's own reason.
  std::string bad = encode_dispatch(Dispatch{sample_task(), 1});
  size_t at = bad.find("\"url\"");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 5, "\"urx\"");
  try {
    decode_dispatch(bad);
    ADD_FAILURE();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("task has no url"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace squall
