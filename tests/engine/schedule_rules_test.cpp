// pyspider's scheduling rules, each named as a sentence, each with a case where it must not fire.
#include "squall/engine/schedule_rules.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "squall/core/error.h"

namespace squall {
namespace {

constexpr double kNow = 1'700'000'000;
constexpr double kHour = 3600;

KnownTask known(TaskStatus status, double lastcrawltime = kNow - 10, std::string itag = "") {
  KnownTask k;
  k.status = status;
  k.lastcrawltime = lastcrawltime;
  k.schedule.itag = std::move(itag);
  return k;
}

TEST(ScheduleRules, ANewTaskidIsInsertedAndAKnownOneIsDropped) {
  TaskSchedule request;
  EXPECT_EQ(judge_request(request, std::nullopt, kNow), RequestVerdict::Insert);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Active), kNow), RequestVerdict::Drop);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success), kNow), RequestVerdict::Drop);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Failed), kNow), RequestVerdict::Drop);
}

TEST(ScheduleRules, ForceUpdateRestartsAKnownTaskButWaitsForOneInWork) {
  TaskSchedule request;
  request.force_update = true;
  EXPECT_EQ(judge_request(request, known(TaskStatus::Active), kNow), RequestVerdict::Restart);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success), kNow), RequestVerdict::Restart);
  KnownTask busy = known(TaskStatus::Active);
  busy.in_work = true;
  EXPECT_EQ(judge_request(request, busy, kNow), RequestVerdict::Postpone);
  request.force_update = false;
  EXPECT_EQ(judge_request(request, busy, kNow), RequestVerdict::Drop);
}

TEST(ScheduleRules, AChangedItagRestartsAFinishedTaskAndTheSameItagDoesNot) {
  TaskSchedule request;
  request.itag = "v2";
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success, kNow, "v1"), kNow),
            RequestVerdict::Restart);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success, kNow, "v2"), kNow),
            RequestVerdict::Drop);
  // An active task is not restarted by an itag: it is going to run anyway.
  EXPECT_EQ(judge_request(request, known(TaskStatus::Active, kNow, "v1"), kNow),
            RequestVerdict::Drop);
}

TEST(ScheduleRules, AnAgeRestartsATaskOnlyOnceItHasPassedSinceTheLastCrawl) {
  TaskSchedule request;
  request.age = 10 * 24 * kHour;
  double crawled = kNow - 10 * 24 * kHour;
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success, crawled - 1), kNow),
            RequestVerdict::Restart);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success, crawled), kNow),
            RequestVerdict::Drop);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Failed, crawled - 1), kNow),
            RequestVerdict::Restart);
  request.age = -1;  // never recrawl
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success, 0), kNow), RequestVerdict::Drop);
}

TEST(ScheduleRules, CancelMarksARestartedTaskBadAndIgnoresAnUnknownOne) {
  TaskSchedule request;
  request.cancel = true;
  request.force_update = true;
  EXPECT_EQ(judge_request(request, known(TaskStatus::Active), kNow), RequestVerdict::Cancel);
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success), kNow), RequestVerdict::Cancel);
  EXPECT_EQ(judge_request(request, std::nullopt, kNow), RequestVerdict::Drop);
  request.force_update = false;  // a cancel that does not restart changes nothing
  EXPECT_EQ(judge_request(request, known(TaskStatus::Success), kNow), RequestVerdict::Drop);
}

TEST(ScheduleRules, RetryDelaysArePyspidersThenTwentyFourHoursForEveryLaterRetry) {
  RetryDelays d;
  EXPECT_EQ(d.after(0), 30);
  EXPECT_EQ(d.after(1), kHour);
  EXPECT_EQ(d.after(2), 6 * kHour);
  EXPECT_EQ(d.after(3), 12 * kHour);
  EXPECT_EQ(d.after(4), 24 * kHour);
  EXPECT_EQ(d.after(40), 24 * kHour);
}

TEST(ScheduleRules, AProjectsRetryDelayReplacesTheDefaults) {
  RetryDelays d = RetryDelays::from_json(nlohmann::json{{"0", 5}, {"1", 60}, {"", 600}});
  EXPECT_EQ(d.after(0), 5);
  EXPECT_EQ(d.after(1), 60);
  EXPECT_EQ(d.after(2), 600);
  RetryDelays only = RetryDelays::from_json(nlohmann::json{{"0", 1}});
  EXPECT_EQ(only.after(3), 24 * kHour);
  EXPECT_THROW(RetryDelays::from_json(nlohmann::json{{"x", 1}}), Error);
  EXPECT_THROW(RetryDelays::from_json(nlohmann::json{{"0", "soon"}}), Error);
  EXPECT_THROW(RetryDelays::from_json(nlohmann::json::array()), Error);
}

TEST(ScheduleRules, AFailureIsRetriedAfterItsDelayUntilTheRetriesRunOut) {
  TaskSchedule s;  // retries 3
  RetryDelays d;
  for (int retried = 0; retried < 3; ++retried) {
    s.retried = retried;
    OutcomeVerdict v = judge_failure(s, d, kNow);
    EXPECT_TRUE(v.retry);
    EXPECT_EQ(v.status, TaskStatus::Active);
    EXPECT_EQ(v.schedule.retried, retried + 1);
    EXPECT_EQ(v.schedule.exetime, kNow + d.after(retried));
  }
  s.retried = 3;
  OutcomeVerdict last = judge_failure(s, d, kNow);
  EXPECT_FALSE(last.retry);
  EXPECT_EQ(last.status, TaskStatus::Failed);
  s.retries = 0;
  s.retried = 0;
  EXPECT_EQ(judge_failure(s, d, kNow).status, TaskStatus::Failed);
}

TEST(ScheduleRules, ARetryDelayNeverExceedsTheAge) {
  TaskSchedule s;
  s.retried = 1;  // 1 h by default
  s.age = 600;
  EXPECT_EQ(judge_failure(s, RetryDelays(), kNow).schedule.exetime, kNow + 600);
  s.age = 2 * kHour;  // longer than the delay: the delay stands
  EXPECT_EQ(judge_failure(s, RetryDelays(), kNow).schedule.exetime, kNow + kHour);
}

TEST(ScheduleRules, AnAutoRecrawlTaskNeverFailsAndComesBackEveryAge) {
  TaskSchedule s;
  s.auto_recrawl = true;
  s.age = 300;
  s.retried = 99;
  OutcomeVerdict failed = judge_failure(s, RetryDelays(), kNow);
  EXPECT_TRUE(failed.retry);
  EXPECT_EQ(failed.status, TaskStatus::Active);
  EXPECT_EQ(failed.schedule.exetime, kNow + 300);
  OutcomeVerdict done = judge_success(s, kNow);
  EXPECT_EQ(done.status, TaskStatus::Active);
  EXPECT_EQ(done.schedule.exetime, kNow + 300);
  // Without an age, auto_recrawl does nothing.
  s.age = -1;
  EXPECT_EQ(judge_success(s, kNow).status, TaskStatus::Success);
  EXPECT_EQ(judge_failure(s, RetryDelays(), kNow).status, TaskStatus::Failed);
}

TEST(ScheduleRules, ASuccessEndsTheTaskAndClearsItsRetries) {
  TaskSchedule s;
  s.retried = 2;
  OutcomeVerdict v = judge_success(s, kNow);
  EXPECT_EQ(v.status, TaskStatus::Success);
  EXPECT_EQ(v.schedule.retried, 0);
  EXPECT_FALSE(v.retry);
}

}  // namespace
}  // namespace squall
