// Chromium: one headless Chromium process started by squall and driven over its DevTools pipe.
//
//   std::unique_ptr<Chromium> browser = co_await Chromium::start({});
//   json v = co_await browser->pipe().call("Browser.getVersion");
//   // ~Chromium kills its process group and removes its profile directory
//
// Start-up: the executable is options.executable, else $SQUALL_CHROMIUM, else the first of
// chromium-headless-shell and chromium found in PATH (Debian's packages of those names). None
// found is an InvalidStateError that says which package to install. The browser runs with
// --headless and --remote-debugging-pipe (no port is opened), in a process group of its own, in
// a fresh profile directory under options.scratch_dir, and dies with this process
// (PR_SET_PDEATHSIG), so an exit of squall by any means leaves no browser behind.
//
// It is started so that it reaches nothing by itself: no component updates, no background
// networking, no sync, translation, safe browsing, crash reports or metrics, pop-ups refused
// (--block-new-web-contents), and its default network context sent to a proxy on a loopback
// port that answers nothing; pages are rendered in browser contexts of their own, which name
// their proxy (direct or the task's, see render.h). With options.allowed_hosts, host names
// other than those resolve to nothing (--host-resolver-rules).
//
// Errors after start-up surface through the pipe: a browser that exits or crashes closes it, and
// calls in flight fail with an Error of kind Closed; alive() then says false. The browser's exit
// is looked for every 200 ms too (its helpers may keep the pipe open after it died): its process
// group is then killed and the pipe closed.
//
// Threads: the loop current at start() owns it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "squall/browser/devtools_pipe.h"
#include "squall/core/periodic.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall::browser {

// Not an aggregate on purpose (the constructor): GCC 12 copies an aggregate temporary with string
// members bytewise when it lives across a co_await, as start()'s default argument does.
struct ChromiumOptions {
  ChromiumOptions() = default;

  std::string executable;                  // see above
  std::filesystem::path scratch_dir;       // the profile's parent; empty: $TMPDIR, else /tmp
  std::vector<std::string> allowed_hosts;  // empty: any host a page asks for
  std::vector<std::string> extra_args;     // appended to the command line
  // A page's JavaScript heap (V8's old space) at most this; a page past it crashes its renderer.
  size_t js_heap_mib = 512;
  Duration start_timeout = std::chrono::seconds(30);
};

// The executable start() would run ("" when there is none), and the error for none.
std::string find_chromium(const std::string& configured = {});
std::string no_chromium_message();

class Chromium {
 public:
  // Starts a browser and waits until it answers on the pipe (Browser.getVersion), at most
  // options.start_timeout. Throws InvalidStateError when there is no browser to start,
  // SystemError when it cannot be started, and an Error of kind Closed with the end of its log
  // when it exits before answering.
  [[nodiscard]] static Task<std::unique_ptr<Chromium>> start(ChromiumOptions options = {});

  ~Chromium();
  Chromium(const Chromium&) = delete;
  Chromium& operator=(const Chromium&) = delete;

  DevToolsPipe& pipe() noexcept { return *pipe_; }
  pid_t pid() const noexcept { return pid_; }
  // The browser's version string ("HeadlessChrome/156.0...").
  const std::string& product() const noexcept { return product_; }

  // The pipe is open and the browser process has not exited.
  bool alive();
  // SIGKILL to the whole process group, the browser reaped, the pipe closed (calls in flight fail
  // naming `why`). Idempotent.
  void kill(std::string_view why = "the browser was killed");
  // The memory of the browser and its renderers: the sum of their proportional set sizes (each
  // shared page counted once across them), in bytes.
  size_t memory_bytes() const;
  // The processes of its group still running (the browser, its zygotes, GPU and renderers).
  std::vector<pid_t> processes() const;
  // The last `bytes` of what the browser wrote on stderr.
  std::string log_tail(size_t bytes = 2000) const;

 private:
  Chromium() = default;
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::filesystem::path profile_;
  std::unique_ptr<DevToolsPipe> pipe_;
  std::unique_ptr<PeriodicCallback> watchdog_;
  std::string product_;
};

}  // namespace squall::browser
