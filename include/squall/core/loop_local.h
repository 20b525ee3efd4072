// loop_local<T>(loop): one T per loop, made on first use and destroyed with the loop: the
// per-loop state of the layers above core, such as HttpClient::shared().
//
//   struct Shared { std::unique_ptr<HttpClient> client; };
//   Shared& s = loop_local<Shared>(Loop::current());
//
// ~Loop destroys a loop's objects after the frames of its tasks (so no task still uses them) and
// before its own timers and descriptors (so they may still remove theirs), the newest first. An
// object therefore never outlives its loop, as one kept in a thread_local map by Loop* would
// (and then touch a destroyed loop when the thread exits). Any thread may make and find its
// loops' objects; an object belongs to its loop's thread.
#pragma once

#include <memory>
#include <typeinfo>

namespace squall {

class Loop;

namespace detail {

struct LoopLocalBase {
  virtual ~LoopLocalBase() = default;
};

template <class T>
struct LoopLocalHolder final : LoopLocalBase {
  T value;
};

// The loop's object of `type`, or null.
LoopLocalBase* find_loop_local(const Loop& loop, const std::type_info& type);
// Keeps `object` as the loop's object of `type` and returns it.
LoopLocalBase* add_loop_local(const Loop& loop, const std::type_info& type,
                              std::unique_ptr<LoopLocalBase> object);
// Destroys the loop's objects, newest first (called by ~Loop).
void destroy_loop_locals(const Loop& loop) noexcept;

}  // namespace detail

template <class T>
T& loop_local(Loop& loop) {
  detail::LoopLocalBase* found = detail::find_loop_local(loop, typeid(T));
  if (!found)
    found = detail::add_loop_local(loop, typeid(T), std::make_unique<detail::LoopLocalHolder<T>>());
  return static_cast<detail::LoopLocalHolder<T>*>(found)->value;
}

}  // namespace squall
