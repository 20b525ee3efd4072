// BrowserPool: free browsers as a stack of slot indexes behind a semaphore; recycling after use.
#include "squall/browser/browser_pool.h"

#include <algorithm>

#include "squall/core/error.h"

namespace squall::browser {

namespace {

// Gives the slot back however the render ends (a kill of the rendering task included).
class SlotLease {
 public:
  SlotLease(std::vector<size_t>& idle, Semaphore& free, size_t index)
      : idle_(idle), free_(free), index_(index) {}
  ~SlotLease() {
    idle_.push_back(index_);
    free_.release();
  }
  SlotLease(const SlotLease&) = delete;
  SlotLease& operator=(const SlotLease&) = delete;

 private:
  std::vector<size_t>& idle_;
  Semaphore& free_;
  size_t index_;
};

}  // namespace

BrowserPool::BrowserPool(BrowserPoolOptions options)
    : options_(std::move(options)), free_(std::max<size_t>(1, options_.browsers)) {
  options_.browsers = std::max<size_t>(1, options_.browsers);
  options_.pages_per_browser = std::max<size_t>(1, options_.pages_per_browser);
  slots_.resize(options_.browsers);
  // Popped from the back: the first render takes slot 0.
  for (size_t i = options_.browsers; i-- > 0;) idle_.push_back(i);
}

BrowserPool::~BrowserPool() {
  close();
}

void BrowserPool::close() {
  for (auto& slot : slots_) {
    slot.browser.reset();
    slot.pages = 0;
  }
}

Task<RenderResult> BrowserPool::render(RenderRequest request) {
  co_await free_.acquire();
  size_t index = idle_.back();
  idle_.pop_back();
  SlotLease lease(idle_, free_, index);
  Slot& slot = slots_[index];
  if (slot.browser && !slot.browser->alive()) {
    slot.browser.reset();
    ++stats_.failed;
  }
  if (!slot.browser) {
    slot.browser = co_await Chromium::start(options_.chromium);
    slot.pages = 0;
    ++stats_.started;
  }
  if (request.memory_limit_bytes == 0) request.memory_limit_bytes = options_.page_limit_mib << 20;
  std::exception_ptr failure;
  RenderResult result;
  try {
    result = co_await render_page(*slot.browser, request);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Closed || e.kind() == ErrorKind::TooLarge ||
        !slot.browser->alive()) {
      slot.browser.reset();
      ++stats_.failed;
    }
    failure = std::current_exception();
  }
  if (failure) std::rethrow_exception(failure);
  ++stats_.pages;
  if (++slot.pages >= options_.pages_per_browser ||
      slot.browser->memory_bytes() > (options_.restart_mib << 20)) {
    slot.browser.reset();
    ++stats_.recycled;
  }
  co_return result;
}

std::vector<pid_t> BrowserPool::process_groups() const {
  std::vector<pid_t> out;
  for (const auto& slot : slots_)
    if (slot.browser) out.push_back(slot.browser->pid());
  return out;
}

std::vector<pid_t> BrowserPool::processes() const {
  std::vector<pid_t> out;
  for (const auto& slot : slots_)
    if (slot.browser)
      for (pid_t p : slot.browser->processes()) out.push_back(p);
  return out;
}

size_t BrowserPool::memory_bytes() const {
  size_t total = 0;
  for (const auto& slot : slots_)
    if (slot.browser) total += slot.browser->memory_bytes();
  return total;
}

}  // namespace squall::browser
