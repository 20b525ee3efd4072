// Callback: the move-only callable that the loop queues, with inline storage for small captures.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace squall {

// A move-only `void()` callable. Captures of up to three pointers live inline, so queueing a
// typical callback (a handle, a pointer, a small lambda) never allocates; larger ones go to the
// heap. Invoking an empty Callback is undefined; test with `explicit operator bool`.
class Callback {
 public:
  Callback() noexcept = default;

  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, Callback> && std::is_invocable_v<D&>>>
  Callback(F&& f) {  // NOLINT(google-explicit-constructor): lambdas convert implicitly
    if constexpr (fits_inline<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &inline_ops<D>;
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
      ops_ = &heap_ops<D>;
    }
  }

  Callback(Callback&& other) noexcept : ops_(other.ops_) {
    if (ops_) ops_->move(storage_, other.storage_);
    other.ops_ = nullptr;
  }

  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      reset();
      ops_ = other.ops_;
      if (ops_) ops_->move(storage_, other.storage_);
      other.ops_ = nullptr;
    }
    return *this;
  }

  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  void operator()() { ops_->invoke(storage_); }

  void reset() noexcept {
    if (ops_) ops_->destroy(storage_);
    ops_ = nullptr;
  }

 private:
  static constexpr size_t kInline = 3 * sizeof(void*);

  template <class D>
  static constexpr bool fits_inline =
      sizeof(D) <= kInline &&
      alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;

  struct Ops {
    void (*invoke)(void*);
    void (*move)(void* to, void* from) noexcept;  // leaves `from` destroyed
    void (*destroy)(void*) noexcept;
  };

  template <class D>
  static constexpr Ops inline_ops{[](void* p) { (*static_cast<D*>(p))(); },
                                  [](void* to, void* from) noexcept {
                                    ::new (to) D(std::move(*static_cast<D*>(from)));
                                    static_cast<D*>(from)->~D();
                                  },
                                  [](void* p) noexcept { static_cast<D*>(p)->~D(); }};

  template <class D>
  static constexpr Ops heap_ops{
      [](void* p) { (**static_cast<D**>(p))(); },
      [](void* to, void* from) noexcept { *static_cast<D**>(to) = *static_cast<D**>(from); },
      [](void* p) noexcept { delete *static_cast<D**>(p); }};

  alignas(std::max_align_t) unsigned char storage_[kInline];
  const Ops* ops_ = nullptr;
};

}  // namespace squall
