// pyspider's @every: which ticks a job is due at, and the processor running the due ones.
#include "squall/engine/cron.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"
#include "squall/engine/processor.h"

namespace squall {
namespace {

using nlohmann::json;

TEST(Cron, AJobIsDueAtTheMultiplesOfItsInterval) {
  EXPECT_TRUE(cron_due(60, 59, 60));
  EXPECT_FALSE(cron_due(60, 60, 61));  // not again until 120
  EXPECT_FALSE(cron_due(60, 60, 119));
  EXPECT_TRUE(cron_due(60, 60, 120));
  EXPECT_TRUE(cron_due(1, 100, 101));
  EXPECT_FALSE(cron_due(1, 101, 101));  // the same tick twice is no tick
  EXPECT_FALSE(cron_due(0, 0, 100));    // no interval, never
}

TEST(Cron, AfterAPauseAJobRunsOnceNotOncePerMissedTick) {
  // An hour passed between two ticks: a job every 5 minutes is due, once.
  EXPECT_TRUE(cron_due(300, 1000, 4600));
  // A daily job whose hour did not come in that gap is not.
  EXPECT_FALSE(cron_due(86400, 1000, 4600));
}

TEST(Cron, TheNextTickIsTheEarliestDueOfAnyJob) {
  EXPECT_EQ(next_cron_tick(60, 59), 60);
  EXPECT_EQ(next_cron_tick(60, 60), 120);
  std::vector<CronJob> jobs = {{"a", 300, {}}, {"b", 7, {}}};
  EXPECT_EQ(next_cron_tick(jobs, 1000), 1001);  // 7 × 143
  EXPECT_EQ(next_cron_tick(jobs, 1001), 1008);
  EXPECT_EQ(next_cron_tick(std::vector<CronJob>{}, 1000), std::nullopt);
}

class Clocks : public Handler {
 public:
  Clocks() : Handler("clocks") {
    every(60, [this] {
      ran.push_back("minute");
      crawl("data:,minute", {{"itag", "m"}});
    });
    every(7, [this] { ran.push_back("seven"); });
    every(3600, [this] { ran.push_back("hour"); });
    every(
        5,
        [this] {
          ran.push_back("broken");
          throw std::runtime_error("no clock today");
        },
        "broken clock");
  }
  std::vector<std::string> ran;
};

FetchResult fetched(const CrawlTask& task) {
  FetchResult r;
  r.status_code = 200;
  r.url = r.orig_url = task.url;
  r.save = task.fetch["save"];
  return r;
}

TEST(Cron, TheProcessorRunsTheJobsDueAtTheTickAndOnlyThose) {
  Clocks h;
  Processor processor(h);
  // (59, 120]: the minute (60, 120) and seven (63, ...) are due; the hour and the broken clock
  // (every 5: 60, 65, ...) too, but the broken one throws.
  Dispatch d{Processor::cron_task("clocks", 120, 59), 0};
  ProcessOutput out = processor.run(d, fetched(d.task));
  EXPECT_EQ(h.ran, (std::vector<std::string>{"minute", "seven", "broken"}));
  ASSERT_EQ(out.follows.size(), 1u);
  EXPECT_EQ(out.follows[0].url, "data:,minute");
  EXPECT_FALSE(out.status.ok);
  std::string exception = out.status.track.read()["process"]["exception"];
  EXPECT_NE(exception.find("broken clock: no clock today"), std::string::npos) << exception;

  // One second later nothing is due but the jobs whose multiple it is.
  h.ran.clear();
  Dispatch next{Processor::cron_task("clocks", 126, 125), 0};
  ProcessOutput quiet = processor.run(next, fetched(next.task));
  EXPECT_EQ(h.ran, (std::vector<std::string>{"seven"}));
  EXPECT_TRUE(quiet.status.ok);
  EXPECT_TRUE(quiet.follows.empty());
}

TEST(Cron, APyspiderTickWithoutItsPredecessorIsOneSecondAfterIt) {
  Clocks h;
  Processor processor(h);
  Dispatch d{Processor::cron_task("clocks", 120, 0), 0};
  d.task.fetch["save"] = {{"tick", 120}};  // as pyspider's scheduler sends it
  processor.run(d, fetched(d.task));
  EXPECT_EQ(h.ran, (std::vector<std::string>{"minute", "broken"}));  // 120 % 7 != 0
}

TEST(Cron, AnIntervalBelowOneSecondIsRefused) {
  struct Bad : Handler {
    Bad() : Handler("bad") {
      every(0, [] {});
    }
  };
  EXPECT_THROW(Bad(), Error);
}

}  // namespace
}  // namespace squall
