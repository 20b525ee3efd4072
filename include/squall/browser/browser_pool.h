// BrowserPool: N headless Chromium browsers that render pages one at a time each, restarted
// when they grow, crash or hang.
//
//   BrowserPool pool({});                       // options.browsers browsers, started on demand
//   RenderResult page = co_await pool.render(request);
//
// - render() waits for a browser that is not rendering (FIFO), starts it if it is not running,
//   and renders the request in a fresh context of it (render.h): each page starts with no
//   cookies, cache or storage of another.
// - A browser is closed (its process group killed) after pages_per_browser pages, or when its
//   memory (the proportional set size of it and its renderers) is above restart_mib after a
//   page; the next render that takes its place starts a new one. While a page renders, a
//   browser above page_limit_mib fails that page with an Error of kind TooLarge and is killed.
// - A browser that crashed, exited or hung fails the page it was rendering with an Error of
//   kind Closed, and is killed; its place starts a new browser for the next page. The page is
//   not tried again here: a caller that wants retries (the engine's fetcher) fails the task and
//   its retry rules take it again. Every other failure of render_page goes to the caller as it
//   is, and the browser stays.
// - A browser that cannot be started fails the render (InvalidStateError when there is none
//   installed, saying which package to install).
//
// Destruction kills every browser's process group. Threads: the loop current at construction
// owns the pool.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "squall/browser/chromium.h"
#include "squall/browser/render.h"
#include "squall/core/semaphore.h"
#include "squall/core/task.h"

namespace squall::browser {

// Not an aggregate on purpose: see ChromiumOptions.
struct BrowserPoolOptions {
  BrowserPoolOptions() = default;

  ChromiumOptions chromium;
  size_t browsers = 2;
  size_t pages_per_browser = 200;
  size_t restart_mib = 768;
  size_t page_limit_mib = 2048;
};

struct BrowserPoolStats {
  size_t started = 0;   // browsers started
  size_t recycled = 0;  // closed after pages_per_browser pages or past restart_mib
  size_t failed = 0;    // killed after a crash, an exit, a hang or page_limit_mib
  size_t pages = 0;     // renders that returned a result
};

class BrowserPool {
 public:
  explicit BrowserPool(BrowserPoolOptions options = {});
  ~BrowserPool();
  BrowserPool(const BrowserPool&) = delete;
  BrowserPool& operator=(const BrowserPool&) = delete;

  [[nodiscard]] Task<RenderResult> render(RenderRequest request);

  const BrowserPoolStats& stats() const noexcept { return stats_; }
  const BrowserPoolOptions& options() const noexcept { return options_; }
  // The process groups of the browsers running now (one per browser: its pid).
  std::vector<pid_t> process_groups() const;
  // Every process of those groups.
  std::vector<pid_t> processes() const;
  // Their memory, as Chromium::memory_bytes() counts it, summed.
  size_t memory_bytes() const;
  // Kills every browser now (pages being rendered fail as Closed).
  void close();

 private:
  struct Slot {
    std::unique_ptr<Chromium> browser;
    size_t pages = 0;
  };
  BrowserPoolOptions options_;
  std::vector<Slot> slots_;
  std::vector<size_t> idle_;
  Semaphore free_;
  BrowserPoolStats stats_;
};

}  // namespace squall::browser
