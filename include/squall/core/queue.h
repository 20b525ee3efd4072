// Queues for tasks with Tornado's semantics (tornado.queues): Queue (FIFO), PriorityQueue
// (smallest first) and LifoQueue. One loop; no atomics.
//
//   Queue<std::string> q(100);            // maxsize 100; 0 means unbounded
//   co_await q.put(url);                  // waits while full
//   std::string next = co_await q.get();  // waits while empty
//   q.task_done();                        // after processing what get() returned
//   co_await q.join(300s);                // until every item put has been marked done
//
// Waiters are served first come, first served. A put while getters wait hands the item
// straight to the longest-waiting getter. A killed or timed-out waiter leaves the line and
// loses nothing: a putter's item is never inserted, and an item already handed to a getter
// is still returned to it (the kill then arrives at its next suspension point).
#pragma once

#include <coroutine>
#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/time.h"

namespace squall {

namespace detail {

template <class T>
struct FifoStore {
  std::deque<T> items;
  void push(T&& v) { items.push_back(std::move(v)); }
  T pop() {
    T v = std::move(items.front());
    items.pop_front();
    return v;
  }
  size_t size() const noexcept { return items.size(); }
};

template <class T>
struct LifoStore {
  std::vector<T> items;
  void push(T&& v) { items.push_back(std::move(v)); }
  T pop() {
    T v = std::move(items.back());
    items.pop_back();
    return v;
  }
  size_t size() const noexcept { return items.size(); }
};

template <class T, class Compare>
struct HeapStore {
  std::vector<T> items;
  // std heap functions build a max-heap for `less`; invert to pop the smallest first.
  static bool after(const T& a, const T& b) { return Compare{}(b, a); }
  void push(T&& v) {
    items.push_back(std::move(v));
    std::push_heap(items.begin(), items.end(), after);
  }
  T pop() {
    std::pop_heap(items.begin(), items.end(), after);
    T v = std::move(items.back());
    items.pop_back();
    return v;
  }
  size_t size() const noexcept { return items.size(); }
};

}  // namespace detail

template <class T, class Store>
class BasicQueue {
 public:
  // maxsize 0: unbounded.
  explicit BasicQueue(size_t maxsize = 0) : maxsize_(maxsize) { finished_.set(); }
  BasicQueue(const BasicQueue&) = delete;
  BasicQueue& operator=(const BasicQueue&) = delete;

  size_t maxsize() const noexcept { return maxsize_; }
  size_t qsize() const noexcept { return store_.size(); }
  bool empty() const noexcept { return store_.size() == 0; }
  bool full() const noexcept { return maxsize_ > 0 && store_.size() >= maxsize_; }
  // Items put and not yet marked with task_done().
  size_t unfinished() const noexcept { return unfinished_; }

  class GetAwaiter : public detail::Waiter {
   public:
    GetAwaiter(BasicQueue& q, TimePoint deadline) noexcept : q_(q), deadline_(deadline) {}
    bool await_ready() {
      if (q_.empty()) return false;
      slot_.emplace(q_.take());
      return true;
    }
    bool await_suspend(std::coroutine_handle<> h) { return suspend_in(q_.getters_, h, deadline_); }
    T await_resume() {
      finish();  // rethrows a kill that interrupted the wait
      // No item and no kill: the time limit passed.
      if (!slot_) throw TimeoutError("Queue.get: no item arrived in time");
      return std::move(*slot_);
    }

   private:
    friend class BasicQueue;
    BasicQueue& q_;
    TimePoint deadline_;
    std::optional<T> slot_;
  };

  class PutAwaiter : public detail::Waiter {
   public:
    PutAwaiter(BasicQueue& q, T item, TimePoint deadline)
        : q_(q), item_(std::move(item)), deadline_(deadline) {}
    bool await_ready() {
      if (!q_.getters_.empty() || !q_.full()) {
        q_.insert(std::move(*item_));
        item_.reset();
        return true;
      }
      return false;
    }
    bool await_suspend(std::coroutine_handle<> h) { return suspend_in(q_.putters_, h, deadline_); }
    void await_resume() {
      finish();  // rethrows a kill that interrupted the wait
      // Not inserted and no kill: the time limit passed.
      if (item_) throw TimeoutError("Queue.put: no room became free in time");
    }

   private:
    friend class BasicQueue;
    BasicQueue& q_;
    std::optional<T> item_;  // empty once inserted
    TimePoint deadline_;
  };

  // `co_await q.get(timeout)`: the next item, waiting while empty; TimeoutError if the limit
  // passes first.
  [[nodiscard]] GetAwaiter get(Timeout timeout = {}) {
    return GetAwaiter(*this, deadline_after(timeout));
  }
  // `co_await q.put(item, timeout)`: inserts, waiting while full; TimeoutError if the limit
  // passes first (the item is then not inserted).
  [[nodiscard]] PutAwaiter put(T item, Timeout timeout = {}) {
    return PutAwaiter(*this, std::move(item), deadline_after(timeout));
  }

  // The next item at once, or QueueEmptyError.
  T get_nowait() {
    if (empty()) throw QueueEmptyError("Queue.get_nowait: the queue is empty");
    return take();
  }
  // Inserts at once, or QueueFullError when at maxsize.
  void put_nowait(T item) {
    if (getters_.empty() && full()) throw QueueFullError("Queue.put_nowait: the queue is full");
    insert(std::move(item));
  }

  // Marks one item returned by get() as processed. InvalidStateError if called more often
  // than items were put.
  void task_done() {
    if (unfinished_ == 0)
      throw InvalidStateError("Queue.task_done: called more times than items were put");
    if (--unfinished_ == 0) finished_.set();
  }
  // `co_await q.join(timeout)`: returns once every item put has been marked done;
  // TimeoutError if the limit passes first.
  [[nodiscard]] Event::Awaiter join(Timeout timeout = {}) { return finished_.wait(timeout); }

 private:
  // Adds an item, or hands it to the longest-waiting getter.
  void insert(T&& item) {
    ++unfinished_;
    finished_.clear();
    if (auto* w = getters_.pop_front()) {
      auto* getter = static_cast<GetAwaiter*>(w);
      getter->slot_.emplace(std::move(item));
      getter->wake();
    } else {
      store_.push(std::move(item));
    }
  }

  // Removes the next item, then lets the longest-waiting putter in.
  T take() {
    T item = store_.pop();
    if (auto* w = putters_.pop_front()) {
      auto* putter = static_cast<PutAwaiter*>(w);
      insert(std::move(*putter->item_));
      putter->item_.reset();
      putter->wake();
    }
    return item;
  }

  size_t maxsize_;
  Store store_;
  size_t unfinished_ = 0;
  Event finished_;
  detail::IntrusiveList<detail::Waiter> getters_;
  detail::IntrusiveList<detail::Waiter> putters_;
};

template <class T>
using Queue = BasicQueue<T, detail::FifoStore<T>>;
template <class T, class Compare = std::less<T>>
using PriorityQueue = BasicQueue<T, detail::HeapStore<T, Compare>>;
template <class T>
using LifoQueue = BasicQueue<T, detail::LifoStore<T>>;

}  // namespace squall
