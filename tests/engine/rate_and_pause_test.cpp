// A project's token bucket and its pause after failures in a row.
#include <gtest/gtest.h>

#include "squall/engine/failure_pause.h"
#include "squall/engine/token_bucket.h"

namespace squall {
namespace {

TEST(TokenBucket, StartsFullAtBurstWhichDefaultsToTenTimesTheRate) {
  TokenBucket b(2);
  EXPECT_EQ(b.burst(), 20);
  int taken = 0;
  while (b.take(100)) ++taken;
  EXPECT_EQ(taken, 20);
  EXPECT_FALSE(b.take(100));
}

TEST(TokenBucket, RefillsAtTheRateUpToTheBurstAndNoFurther) {
  TokenBucket b(2, 4);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(b.take(0));
  EXPECT_FALSE(b.take(0.4));  // 0.8 tokens
  EXPECT_DOUBLE_EQ(b.next_token(0.4), 0.5);
  EXPECT_TRUE(b.take(0.5));
  EXPECT_FALSE(b.take(0.5));
  EXPECT_DOUBLE_EQ(b.tokens(1000), 4);  // capped at the burst after a long idle
}

TEST(TokenBucket, RateZeroDispatchesNothingAndInfinityNeverWaits) {
  TokenBucket stopped(0);
  EXPECT_FALSE(stopped.take(0));
  EXPECT_FALSE(stopped.take(1e9));
  EXPECT_EQ(stopped.next_token(5), TokenBucket::kUnlimited);
  TokenBucket free;
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(free.take(0));
}

TEST(FailurePause, TenFailuresInARowPauseTheProjectAndNineDoNot) {
  FailurePause p;
  for (int i = 0; i < 9; ++i) p.outcome(false, 10);
  EXPECT_EQ(p.state(10), FailurePause::State::Running);
  p.outcome(true, 10);  // a success breaks the run
  for (int i = 0; i < 9; ++i) p.outcome(false, 11);
  EXPECT_EQ(p.state(11), FailurePause::State::Running);
  p.outcome(false, 11);
  EXPECT_EQ(p.state(11), FailurePause::State::Paused);
  EXPECT_EQ(p.allowance(11), 0u);
}

TEST(FailurePause, AfterFiveMinutesThreeTasksAreLetThroughAndOneSuccessResumes) {
  FailurePause p;
  for (int i = 0; i < 10; ++i) p.outcome(false, 0);
  EXPECT_EQ(p.state(299), FailurePause::State::Paused);
  EXPECT_EQ(p.state(300), FailurePause::State::Checking);
  EXPECT_EQ(p.allowance(300), 3u);
  p.dispatched(300);
  p.dispatched(300);
  EXPECT_EQ(p.allowance(300), 1u);
  p.dispatched(300);
  EXPECT_EQ(p.allowance(300), 0u);
  p.outcome(false, 301);
  p.outcome(true, 302);
  EXPECT_EQ(p.state(302), FailurePause::State::Running);
}

TEST(FailurePause, ThreeFailuresWhileCheckingPauseAgain) {
  FailurePause p;
  for (int i = 0; i < 10; ++i) p.outcome(false, 0);
  ASSERT_EQ(p.state(300), FailurePause::State::Checking);
  p.outcome(false, 301);
  p.outcome(false, 302);
  EXPECT_EQ(p.state(302), FailurePause::State::Checking);
  p.outcome(false, 303);
  EXPECT_EQ(p.state(303), FailurePause::State::Paused);
  EXPECT_EQ(p.state(602), FailurePause::State::Paused);
  EXPECT_EQ(p.state(603), FailurePause::State::Checking);
}

}  // namespace
}  // namespace squall
