// Waiting on many tasks: wait, iwait, joinall and gather (gevent's and Tornado's verbs).
//
//   for (IWait it(handles, 5s); auto h = co_await it.next();) use(*h);  // completion order
//   auto done = co_await wait(handles, 5s, 2);    // the first two to finish, within 5 s
//   co_await joinall(handles, {}, /*raise_error=*/true);
//   std::vector<int> values = co_await gather(std::move(tasks));
#pragma once

#include <coroutine>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "squall/core/detail/task_state.h"
#include "squall/core/spawn.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall {

// Yields the given handles as their tasks finish, in completion order (those already finished
// first, in the order given), until all are yielded or the time limit passes. Not movable:
// keep it in a local. Handles are any AnyTaskHandle or TaskHandle<T>.
template <class H>
class IWait {
 public:
  IWait(std::vector<H> handles, Timeout timeout = {})
      : handles_(std::move(handles)),
        links_(std::make_unique<Slot[]>(handles_.size())),
        deadline_(deadline_after(timeout)) {
    for (size_t i = 0; i < handles_.size(); ++i) {
      links_[i].owner = this;
      links_[i].index = i;
      if (handles_[i].done()) {
        done_.push_back(i);
      } else {
        handles_[i].state().link(links_[i]);
      }
    }
  }
  IWait(const IWait&) = delete;
  IWait& operator=(const IWait&) = delete;
  ~IWait() {
    for (size_t i = 0; i < handles_.size(); ++i) links_[i].leave();
  }

  class NextAwaiter : public detail::Waiter {
   public:
    explicit NextAwaiter(IWait& it) noexcept : it_(it) {}
    bool await_ready() const noexcept {
      return !it_.done_.empty() || it_.yielded_ == it_.handles_.size() ||
             Clock::now() >= it_.deadline_;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      if (!suspend(h, it_.deadline_)) return false;
      it_.waiter_ = this;
      return true;
    }
    // The next finished handle, or nullopt when all were yielded or the time is up.
    std::optional<H> await_resume() {
      if (it_.waiter_ == this) it_.waiter_ = nullptr;
      finish();
      if (it_.done_.empty()) return std::nullopt;
      size_t i = it_.done_.front();
      it_.done_.pop_front();
      ++it_.yielded_;
      return it_.handles_[i];
    }

   private:
    void on_cancel() noexcept override { it_.waiter_ = nullptr; }
    IWait& it_;
  };

  [[nodiscard]] NextAwaiter next() { return NextAwaiter(*this); }

 private:
  struct Slot final : detail::Link {
    IWait* owner = nullptr;
    size_t index = 0;
    void on_done(detail::TaskState&) noexcept override {
      owner->done_.push_back(index);
      if (owner->waiter_) std::exchange(owner->waiter_, nullptr)->wake();
    }
    void leave() noexcept { ListHook<Link>::unlink(); }
  };

  std::vector<H> handles_;
  std::unique_ptr<Slot[]> links_;
  TimePoint deadline_;
  std::deque<size_t> done_;
  size_t yielded_ = 0;
  detail::Waiter* waiter_ = nullptr;
};

// The handles that finished, in completion order: all of them, or the first `count`, or those
// finished when the time limit passed.
template <class H>
Task<std::vector<H>> wait(std::vector<H> handles, Timeout timeout = {},
                          std::optional<size_t> count = {}) {
  std::vector<H> finished;
  size_t want = count.value_or(handles.size());
  IWait<H> it(std::move(handles), timeout);
  while (finished.size() < want) {
    auto h = co_await it.next();
    if (!h) break;
    finished.push_back(std::move(*h));
  }
  co_return finished;
}

// Waits for all the tasks (or the time limit). With raise_error, the first task to fail (in
// completion order) has its exception rethrown as soon as it fails. Returns the finished ones.
template <class H>
Task<std::vector<H>> joinall(std::vector<H> handles, Timeout timeout = {},
                             bool raise_error = false) {
  std::vector<H> finished;
  IWait<H> it(std::move(handles), timeout);
  while (auto h = co_await it.next()) {
    if (raise_error) {
      if (auto e = h->exception()) std::rethrow_exception(e);
    }
    finished.push_back(std::move(*h));
  }
  co_return finished;
}

// Runs the tasks concurrently and returns their values in the order given. If one fails, the
// others are killed and awaited, then its exception is rethrown.
template <class T>
Task<std::vector<T>> gather(std::vector<Task<T>> tasks) {
  std::vector<TaskHandle<T>> handles;
  handles.reserve(tasks.size());
  for (auto& t : tasks) handles.push_back(spawn(std::move(t)));
  std::exception_ptr failure;
  {
    IWait<TaskHandle<T>> it(handles);
    while (auto h = co_await it.next()) {
      if (auto e = h->exception()) {
        failure = e;
        break;
      }
    }
  }
  if (failure) {
    for (auto& h : handles) h.kill();
    for (auto& h : handles) {
      co_await h.join();
      h.exception();  // handled: we report the first failure
    }
    std::rethrow_exception(failure);
  }
  std::vector<T> values;
  values.reserve(handles.size());
  for (auto& h : handles) values.push_back(std::move(h.value()));
  co_return values;
}

}  // namespace squall
