// Size-class free lists for coroutine frames and task states, one set per thread.
#include "squall/core/detail/frame_pool.h"

#include <new>

// GCC says __SANITIZE_ADDRESS__, clang says __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define SQUALL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SQUALL_ASAN 1
#endif
#endif

namespace squall::detail {

#if defined(SQUALL_ASAN)

void* pool_allocate(size_t size) {
  return ::operator new(size);
}
void pool_deallocate(void* block, size_t) noexcept {
  ::operator delete(block);
}

#else

namespace {

constexpr size_t kGranule = 32;
constexpr size_t kClasses = 128;  // blocks up to 128 * 32 = 4 KiB (an HTTP fetch's frame is ~2 KiB)
constexpr size_t kMaxKept = 1024;                  // free blocks kept per class...
constexpr size_t kMaxKeptBytes = size_t{8} << 20;  // ...and in all, per thread

struct FreeBlock {
  FreeBlock* next;
};

struct Pool {
  FreeBlock* head[kClasses] = {};
  size_t kept[kClasses] = {};
  size_t kept_bytes = 0;
  ~Pool() {
    for (size_t c = 0; c < kClasses; ++c) {
      while (FreeBlock* b = head[c]) {
        head[c] = b->next;
        ::operator delete(b);
      }
    }
  }
};

thread_local Pool pool;

size_t size_class(size_t size) {
  return (size + kGranule - 1) / kGranule - 1;
}

// The bytes of a block of class `c`.
size_t class_bytes(size_t c) {
  return (c + 1) * kGranule;
}

}  // namespace

void* pool_allocate(size_t size) {
  size_t c = size_class(size);
  if (c >= kClasses) return ::operator new(size);
  Pool& p = pool;
  if (FreeBlock* b = p.head[c]) {
    p.head[c] = b->next;
    --p.kept[c];
    p.kept_bytes -= class_bytes(c);
    return b;
  }
  return ::operator new(class_bytes(c));
}

void pool_deallocate(void* block, size_t size) noexcept {
  size_t c = size_class(size);
  if (c >= kClasses) {
    ::operator delete(block);
    return;
  }
  Pool& p = pool;
  if (p.kept[c] >= kMaxKept || p.kept_bytes + class_bytes(c) > kMaxKeptBytes) {
    ::operator delete(block);
    return;
  }
  auto* b = static_cast<FreeBlock*>(block);
  b->next = p.head[c];
  p.head[c] = b;
  ++p.kept[c];
  p.kept_bytes += class_bytes(c);
}

#endif

}  // namespace squall::detail
