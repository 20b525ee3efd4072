// The loop fixture's checks and the log capture.
#include "support/loop_fixture.h"

#include <filesystem>

namespace squall::test {

LoopTest::LoopTest() : loop_(std::make_unique<Loop>()), frames_before_(detail::live_frames()) {}

LoopTest::~LoopTest() = default;

void LoopTest::TearDown() {
  // Let callbacks already queued (done-callbacks, resumptions of finished waits) run out.
  for (int i = 0; i < 100 && loop_->ready_count() > 0; ++i) loop_->run_once(Loop::time());
  EXPECT_EQ(loop_->task_count(), 0u) << "a spawned task was left running";
  EXPECT_EQ(loop_->timer_count(), 0u) << "a timer was left set";
  EXPECT_EQ(loop_->handler_count(), 0u) << "a descriptor was left watched";
  EXPECT_EQ(loop_->ready_count(), 0u) << "callbacks were left queued";
  loop_.reset();
  EXPECT_EQ(detail::live_frames(), frames_before_) << "coroutine frames were not freed";
}

size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

LogCapture::LogCapture()
    : previous_(
          set_log_sink([this](LogLevel, std::string_view line) { lines_.emplace_back(line); })) {}

LogCapture::~LogCapture() {
  set_log_sink(std::move(previous_));
}

bool LogCapture::contains(std::string_view needle) const {
  for (const auto& line : lines_)
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace squall::test
