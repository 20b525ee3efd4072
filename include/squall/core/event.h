// Event: a flag tasks can wait for (Tornado's locks.Event). Belongs to one loop; no atomics.
#pragma once

#include <coroutine>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/time.h"

namespace squall {

class Event {
 public:
  class Awaiter : public detail::Waiter {
   public:
    Awaiter(Event& event, TimePoint deadline) noexcept : event_(event), deadline_(deadline) {}
    bool await_ready() const noexcept { return event_.set_; }
    bool await_suspend(std::coroutine_handle<> h) {
      return suspend_in(event_.waiters_, h, deadline_);
    }
    void await_resume() {
      if (finish()) throw TimeoutError("Event.wait: the event was not set in time");
    }

   private:
    Event& event_;
    TimePoint deadline_;
  };

  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  bool is_set() const noexcept { return set_; }
  // Sets the flag and wakes every waiter, in the order they started waiting (then the
  // wait()/iwait() calls waiting on it).
  void set() noexcept {
    set_ = true;
    while (detail::Waiter* w = waiters_.pop_front()) w->wake();
    while (detail::Link* l = links_.pop_front()) l->on_ready();
  }
  void clear() noexcept { set_ = false; }

  // `co_await ev.wait(timeout)`: returns once the flag is set (at once if it is);
  // TimeoutError if the limit passes first.
  [[nodiscard]] Awaiter wait(Timeout timeout = {}) {
    return Awaiter(*this, deadline_after(timeout));
  }

  // What makes an Event Waitable (see wait.h; pass its address): `link` runs at the next
  // set(). Returns false, linking nothing, if the flag is set now.
  bool rawlink(detail::Link& link) noexcept {
    if (set_) return false;
    links_.push_back(link);
    return true;
  }

 private:
  bool set_ = false;
  detail::IntrusiveList<detail::Waiter> waiters_;
  detail::IntrusiveList<detail::Link> links_;
};

}  // namespace squall
