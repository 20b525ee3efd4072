// The fixture for tests that run a loop: a fresh loop per test, left quiet at the end.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/core.h"

namespace squall::test {

// Each test gets its own Loop (current for the test's thread). At the end the fixture checks
// that nothing was left behind: no task, timer, watched descriptor or ready callback, and
// every coroutine frame freed (after the loop is destroyed).
class LoopTest : public ::testing::Test {
 protected:
  LoopTest();
  ~LoopTest() override;
  void TearDown() override;

  // run_sync with a generous limit, so that a broken test fails instead of hanging.
  template <class T>
  T run(Task<T> task, Timeout timeout = std::chrono::seconds(30)) {
    return run_sync(std::move(task), timeout);
  }

  std::unique_ptr<Loop> loop_;
  int64_t frames_before_;
};

// How many descriptors this process has open (entries of /proc/self/fd): tests compare it
// before and after to prove a socket was released.
size_t open_fds();

// Collects log lines while it lives (Tornado's ExpectLog).
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  const std::vector<std::string>& lines() const { return lines_; }
  bool contains(std::string_view needle) const;

 private:
  std::vector<std::string> lines_;
  LogSink previous_;
};

}  // namespace squall::test
