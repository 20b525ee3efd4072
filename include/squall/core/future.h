// Future<T> and Promise<T>: results for callback-style code (Tornado's Future), awaitable.
//
//   Promise<int> p;
//   Future<int> f = p.future();
//   legacy_api([p](int v) mutable { p.set_value(v); });   // wrap a callback API
//   int v = co_await f;
//
// Done-callbacks run on the loop after the result is set, never inline (Tornado's add_future).
// A Future belongs to the loop that was current when its Promise was made. If every Promise
// copy is destroyed without a result, the future fails with InvalidStateError ("broken").
#pragma once

#include <coroutine>
#include <exception>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/loop.h"

namespace squall {

template <class T>
class Future;

namespace detail {

template <class T>
struct FutureValue {
  std::optional<T> value;
};
template <>
struct FutureValue<void> {};

template <class T>
class FutureState : public FutureValue<T> {
 public:
  explicit FutureState(Loop& loop) : loop(&loop) {}
  void ref() noexcept { ++refs; }
  void unref() noexcept {
    if (--refs == 0) destroy();
  }
  // Out of line so that GCC 12's -Wuse-after-free does not follow the delete into callers
  // whose other references it cannot count.
  [[gnu::noinline]] void destroy() noexcept { delete this; }
  void complete(std::exception_ptr e);

  Loop* loop;
  uint32_t refs = 0;
  uint32_t promises = 0;
  bool done = false;
  std::exception_ptr error;
  IntrusiveList<Waiter> waiters;
  IntrusiveList<Link> links;
  std::vector<std::function<void(Future<T>)>> callbacks;
};

template <class T>
class StateRef {
 public:
  StateRef() = default;
  explicit StateRef(FutureState<T>* s) noexcept : s_(s) {
    if (s_) s_->ref();
  }
  StateRef(const StateRef& o) noexcept : StateRef(o.s_) {}
  StateRef& operator=(StateRef o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~StateRef() {
    if (s_) s_->unref();
  }
  FutureState<T>* operator->() const noexcept { return s_; }
  FutureState<T>* get() const noexcept { return s_; }

 private:
  FutureState<T>* s_ = nullptr;
};

}  // namespace detail

template <class T>
class Future {
 public:
  Future() = default;

  bool done() const noexcept { return s_->done; }
  // The value of a done future, or its exception rethrown; InvalidStateError if not done.
  std::add_lvalue_reference_t<T> result() const {
    if (!s_->done) throw InvalidStateError("Future.result: the future is not done");
    if (s_->error) std::rethrow_exception(s_->error);
    if constexpr (!std::is_void_v<T>) return *s_->value;
  }
  std::exception_ptr exception() const noexcept { return s_->error; }

  // Runs `fn(future)` on the loop once the future is done (on the next iteration if it is).
  void add_done_callback(std::function<void(Future<T>)> fn) const {
    if (s_->done) {
      s_->loop->call_soon([fn = std::move(fn), f = *this] { fn(f); });
    } else {
      s_->callbacks.push_back(std::move(fn));
    }
  }

  // What makes a Future Waitable (see wait.h): `link` runs when the result is set. Returns
  // false, linking nothing, if it is done.
  bool rawlink(detail::Link& link) const noexcept {
    if (s_->done) return false;
    s_->links.push_back(link);
    return true;
  }

  class Awaiter : public detail::Waiter {
   public:
    explicit Awaiter(detail::StateRef<T> s) noexcept : s_(std::move(s)) {}
    bool await_ready() const noexcept { return s_->done; }
    bool await_suspend(std::coroutine_handle<> h) { return suspend_in(s_->waiters, h); }
    T await_resume() {
      finish();
      if (s_->error) std::rethrow_exception(s_->error);
      if constexpr (!std::is_void_v<T>) return *s_->value;
    }

   private:
    detail::StateRef<T> s_;
  };

  // `co_await future`: its value, or its exception rethrown. The future keeps its result, so
  // any number of tasks may await it.
  Awaiter operator co_await() const noexcept { return Awaiter(s_); }

 private:
  template <class U>
  friend class Promise;
  friend class detail::FutureState<T>;
  explicit Future(detail::StateRef<T> s) noexcept : s_(std::move(s)) {}
  detail::StateRef<T> s_;
};

template <class T>
class Promise {
 public:
  // A new pending future on the current loop.
  Promise() : s_(new detail::FutureState<T>(Loop::current())) { ++s_->promises; }
  Promise(const Promise& o) noexcept : s_(o.s_) { ++s_->promises; }
  Promise& operator=(const Promise&) = delete;
  ~Promise() {
    if (--s_->promises == 0 && !s_->done) {
      s_->complete(std::make_exception_ptr(
          InvalidStateError("broken promise: every Promise was destroyed without a result")));
    }
  }

  Future<T> future() const noexcept { return Future<T>(s_); }
  bool done() const noexcept { return s_->done; }

  // Sets the result; InvalidStateError if it was already set.
  template <class... A>
  void set_value(A&&... value) {
    check_pending();
    if constexpr (!std::is_void_v<T>) s_->value.emplace(std::forward<A>(value)...);
    s_->complete(nullptr);
  }
  void set_exception(std::exception_ptr e) {
    check_pending();
    s_->complete(std::move(e));
  }

 private:
  void check_pending() const {
    if (s_->done) throw InvalidStateError("Promise: the result was already set");
  }
  detail::StateRef<T> s_;
};

template <class T>
void detail::FutureState<T>::complete(std::exception_ptr e) {
  done = true;
  error = std::move(e);
  while (Waiter* w = waiters.pop_front()) w->wake();
  while (Link* l = links.pop_front()) l->on_ready();
  Future<T> self{StateRef<T>(this)};
  for (auto& fn : callbacks) loop->call_soon([fn = std::move(fn), self] { fn(self); });
  callbacks.clear();
}

}  // namespace squall
