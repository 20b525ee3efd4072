// TaskCounters: pyspider's 5m, 1h, 1d and all, and their round trip through the store's JSON.
#include "squall/engine/task_counters.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace squall {
namespace {

TEST(TaskCounters, AnEventCountsInEveryWindowUntilItSlidesOut) {
  TaskCounters c;
  c.event(CounterKind::Success, 1000);
  c.event(CounterKind::Success, 1001);
  c.event(CounterKind::Retry, 1002);
  auto r = c.report(1005);
  EXPECT_EQ(r["5m"]["success"], 2);
  EXPECT_EQ(r["5m"]["retry"], 1);
  EXPECT_EQ(r["1h"]["success"], 2);
  EXPECT_EQ(r["1d"]["success"], 2);
  // Five minutes on, the 5m window has forgotten them and the hour has not.
  auto later = c.report(1000 + 300 + 10);
  EXPECT_EQ(later["5m"]["success"], 0);
  EXPECT_EQ(later["1h"]["success"], 2);
  auto next_day = c.report(1000 + 86400 + 600);
  EXPECT_EQ(next_day["1d"]["success"], 0);
}

TEST(TaskCounters, AllHoldsStateTotalsWithoutARetryCount) {
  TaskCounters c;
  c.total(CounterKind::Pending, 5);
  c.total(CounterKind::Pending, -2);
  c.total(CounterKind::Success, 2);
  c.event(CounterKind::Retry, 0);
  auto r = c.report(0);
  EXPECT_EQ(r["all"]["pending"], 3);
  EXPECT_EQ(r["all"]["success"], 2);
  EXPECT_EQ(r["all"]["retry"], 0);
}

TEST(TaskCounters, SurviveARoundTripThroughTheirSavedForm) {
  TaskCounters c;
  for (int i = 0; i < 50; ++i) c.event(CounterKind::Pending, 1000 + i * 7);
  c.total(CounterKind::Failed, 4);
  TaskCounters back;
  back.restore(nlohmann::json::parse(c.save().dump()));
  EXPECT_EQ(back.report(1400), c.report(1400));
  EXPECT_EQ(back.totals(), c.totals());
  TaskCounters junk;
  junk.restore(nlohmann::json("not counters"));  // ignored, not thrown
  EXPECT_EQ(junk.report(0)["all"]["failed"], 0);
}

}  // namespace
}  // namespace squall
