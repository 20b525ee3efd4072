// Descriptor waits from tasks: readiness, timeouts, and kill releasing the interest.
#include "squall/core/io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

class IoTest : public test::LoopTest {
 protected:
  void SetUp() override { ASSERT_EQ(pipe(fds_), 0); }
  void TearDown() override {
    close(fds_[0]);
    close(fds_[1]);
    LoopTest::TearDown();
  }
  int fds_[2];
};

TEST_F(IoTest, WaitReadableResumesWhenDataArrives) {
  auto body = [this]() -> Task<IoEvents> {
    loop_->call_later(2ms, [this] { (void)!write(fds_[1], "x", 1); });
    co_return co_await wait_readable(fds_[0]);
  };
  EXPECT_TRUE(any(run(body()) & IoEvents::Read));
  EXPECT_EQ(loop_->handler_count(), 0u);
}

TEST_F(IoTest, WaitWritableIsImmediateOnAnEmptyPipe) {
  auto body = [this]() -> Task<IoEvents> { co_return co_await wait_writable(fds_[1], 1s); };
  EXPECT_TRUE(any(run(body()) & IoEvents::Write));
}

TEST_F(IoTest, WaitReadableTimesOutAndStopsWatching) {
  auto body = [this]() -> Task<void> {
    EXPECT_THROW(co_await wait_readable(fds_[0], 2ms), TimeoutError);
    EXPECT_EQ(loop_->handler_count(), 0u);
  };
  run(body());
}

TEST_F(IoTest, KillingATaskBlockedOnADescriptorReleasesTheInterest) {
  auto body = [this]() -> Task<void> {
    auto reader = [](int fd) -> Task<void> { co_await wait_readable(fd); };
    auto r = spawn(reader(fds_[0]));
    co_await sleep(0s);
    EXPECT_EQ(loop_->handler_count(), 1u);
    r.kill();
    co_await r.join();
    EXPECT_EQ(loop_->handler_count(), 0u);
  };
  run(body());
}

}  // namespace
}  // namespace squall
