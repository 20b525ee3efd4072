// Waiting on many things at once: wait, iwait, joinall, killall, gather and wait_idle
// (gevent's and Tornado's verbs).
//
//   for (IWait it(handles, 5s); auto h = co_await it.next();) use(*h);  // completion order
//   auto done = co_await wait(handles, 5s, 2);    // the first two to finish, within 5 s
//   co_await wait(events, {}, 1);                 // std::vector<Event*>: the first one set
//   co_await joinall(handles, {}, /*raise_error=*/true);
//   co_await killall(handles);                    // kill them all, wait until they are gone
//   std::vector<int> values = co_await gather(std::move(tasks));
//   bool idle = co_await wait_idle(10s);          // gevent.wait(): until nothing is left to run
//
// wait, iwait and joinall take any Waitable: task handles (AnyTaskHandle, TaskHandle<T>),
// Future<T>, or the address of an Event; one vector holds one kind. They yield what they were
// given, as gevent does.
#pragma once

#include <concepts>
#include <coroutine>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/spawn.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall {

// Something wait(), iwait() and joinall() can wait for (gevent's rawlink protocol):
// `w.rawlink(link)` arranges for `link.on_ready()` to run once `w` is ready, or returns false,
// linking nothing, if it already is. The link leaves by itself when its owner is done with it.
// A task handle is ready when its task finished, a Future when it has its result, an Event
// when it is set.
template <class W>
concept Waitable = requires(W& w, detail::Link& link) {
  { w.rawlink(link) } -> std::same_as<bool>;
};

// What the waiting verbs hold: a Waitable by value (handles and futures are references to
// shared state already), or a pointer to one (an Event, which cannot be copied).
template <class E>
concept WaitableItem = Waitable<E> ||(std::is_pointer_v<E>&& Waitable<std::remove_pointer_t<E>>);

namespace detail {
template <class E>
auto& waitable(E& item) noexcept {
  if constexpr (std::is_pointer_v<E>) {
    return *item;
  } else {
    return item;
  }
}
}  // namespace detail

// Yields the given items as they become ready, in that order (those already ready first, in
// the order given), until all are yielded or the time limit passes. Not movable: keep it in a
// local.
template <WaitableItem E>
class IWait {
 public:
  IWait(std::vector<E> items, Timeout timeout = {})
      : items_(std::move(items)),
        links_(std::make_unique<Slot[]>(items_.size())),
        deadline_(deadline_after(timeout)) {
    for (size_t i = 0; i < items_.size(); ++i) {
      links_[i].owner = this;
      links_[i].index = i;
      if (!detail::waitable(items_[i]).rawlink(links_[i])) done_.push_back(i);
    }
  }
  IWait(const IWait&) = delete;
  IWait& operator=(const IWait&) = delete;
  ~IWait() {
    for (size_t i = 0; i < items_.size(); ++i) links_[i].leave();
  }

  class NextAwaiter : public detail::Waiter {
   public:
    explicit NextAwaiter(IWait& it) noexcept : it_(it) {}
    bool await_ready() const noexcept {
      return !it_.done_.empty() || it_.yielded_ == it_.items_.size() ||
             Clock::now() >= it_.deadline_;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      if (!suspend(h, it_.deadline_)) return false;
      it_.waiter_ = this;
      return true;
    }
    // The next ready item, or nullopt when all were yielded or the time is up.
    std::optional<E> await_resume() {
      if (it_.waiter_ == this) it_.waiter_ = nullptr;
      finish();
      if (it_.done_.empty()) return std::nullopt;
      size_t i = it_.done_.front();
      it_.done_.pop_front();
      ++it_.yielded_;
      return it_.items_[i];
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
    void on_ready() noexcept override {
      owner->done_.push_back(index);
      if (owner->waiter_) std::exchange(owner->waiter_, nullptr)->wake();
    }
    void leave() noexcept { ListHook<Link>::unlink(); }
  };

  std::vector<E> items_;
  std::unique_ptr<Slot[]> links_;
  TimePoint deadline_;
  std::deque<size_t> done_;
  size_t yielded_ = 0;
  detail::Waiter* waiter_ = nullptr;
};

// gevent's joinall: waits for all the items, or the first `count` of them, or the time limit;
// returns those that finished, in completion order. With raise_error, the first to finish
// with an exception (a task handle's or a future's, in completion order) has it rethrown as
// soon as it is seen.
template <WaitableItem E>
Task<std::vector<E>> joinall(std::vector<E> items, Timeout timeout = {}, bool raise_error = false,
                             std::optional<size_t> count = {}) {
  std::vector<E> finished;
  size_t want = count.value_or(items.size());
  IWait<E> it(std::move(items), timeout);
  while (finished.size() < want) {
    auto item = co_await it.next();
    if (!item) break;
    if constexpr (requires { detail::waitable(*item).exception(); }) {
      if (raise_error) {
        if (auto e = detail::waitable(*item).exception()) std::rethrow_exception(e);
      }
    }
    finished.push_back(std::move(*item));
  }
  co_return finished;
}

// gevent's wait(objects, timeout, count): the items that became ready, in that order: all of
// them, or the first `count`, or those ready when the time limit passed. joinall without
// raise_error, as in gevent.
template <WaitableItem E>
Task<std::vector<E>> wait(std::vector<E> items, Timeout timeout = {},
                          std::optional<size_t> count = {}) {
  return joinall(std::move(items), timeout, false, count);
}

// gevent's killall: kills every task with `error` (by default CancelledError; see
// AnyTaskHandle::kill for what a task that ends with it counts as) and, with `block`, waits
// until every one has ended: TimeoutError if some are still running when `timeout` passes
// (gevent raises Timeout). Without `block` it returns at once, the kills delivered as the
// loop runs on. Tasks that had finished already are left as they were.
template <class H>
requires std::derived_from<H, AnyTaskHandle> Task<void> killall(std::vector<H> handles,
                                                                std::exception_ptr error = nullptr,
                                                                bool block = true,
                                                                Timeout timeout = {}) {
  for (const H& h : handles) h.kill(error);
  if (!block) co_return;
  size_t total = handles.size();
  std::vector<H> ended = co_await squall::wait<H>(std::move(handles), timeout);
  if (ended.size() < total) {
    throw TimeoutError("killall: " + std::to_string(total - ended.size()) + " of " +
                       std::to_string(total) + " tasks were still running at the time limit");
  }
}

// gevent's wait() with no objects (Hub.join): waits until the loop is idle but for this wait,
// meaning nothing is left that could make progress: no ready callback or task, timer, watched
// descriptor, cross-thread callback or KeepAlive (a task blocked on something nothing can set
// does not count, as a greenlet blocked so does not keep gevent's loop alive). Yields true if
// the loop went idle, false if `timeout` passed first. Works from any task, or from outside
// every task as `run_sync(wait_idle(timeout))`, which runs the loop until it is idle.
[[nodiscard]] Task<bool> wait_idle(Timeout timeout = {});

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
