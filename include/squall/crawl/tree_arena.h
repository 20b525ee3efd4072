// TreeArena: the memory of one parsed page's tree, taken in blocks and dropped all at once.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define SQUALL_TREE_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SQUALL_TREE_ARENA_ASAN 1
#endif
#endif
#ifdef SQUALL_TREE_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace squall {

// A bump allocator for the nodes and strings of one document (build_html_tree's arena form):
// allocations are carved in order from blocks of kBlockBytes (one of more than a quarter of a
// block gets a block of its own) and none is freed alone; clear() or the destructor drops them
// all at once. Memory held is what was allocated, each rounded up to 8 bytes, plus less than a
// quarter of each block left unused at its end, plus the last block's free room. Dropped blocks
// of the usual size are kept for the dropping thread's next arenas, at most kSpareBlocks of them;
// the rest go back to malloc.
//
// Under AddressSanitizer every allocation is followed by poisoned bytes, so a read past one (a
// string without its NUL) is reported as it would be past a malloc'd one.
//
// One thread at a time; it may be cleared or destroyed on a thread other than the one that
// filled it (its blocks then become that thread's spares).
class TreeArena {
 public:
  static constexpr size_t kBlockBytes = 32 * 1024;
  static constexpr size_t kSpareBlocks = 8;

  TreeArena() = default;
  ~TreeArena() { clear(); }
  TreeArena(const TreeArena&) = delete;
  TreeArena& operator=(const TreeArena&) = delete;

  // `bytes` uninitialised bytes aligned for a pointer; throws std::bad_alloc.
  void* allocate(size_t bytes) {
    const size_t size = ((bytes + 7) & ~size_t{7}) + kRedZone;
    if (size > static_cast<size_t>(limit_ - next_)) return allocate_in_new_block(bytes);
    void* p = next_;
    next_ += size;
#ifdef SQUALL_TREE_ARENA_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#endif
    return p;
  }
  // A zeroed T, which must be a C struct (libxml2's node types). Value-initialised in place: the
  // compiler stores the zeros inline, where a memset call would cost several times more.
  template <typename T>
  T* make() {
    return new (allocate(sizeof(T))) T{};
  }
  // A copy of s[0, n) with a NUL after it.
  char* copy(const char* s, size_t n) {
    auto* out = static_cast<char*>(allocate(n + 1));
    std::memcpy(out, s, n);
    out[n] = '\0';
    return out;
  }

  // Drops every allocation.
  void clear();
  // The bytes of the blocks held (for tests and accounting).
  size_t bytes_held() const noexcept;

 private:
  struct Block {
    Block* next;
    size_t bytes;  // the block's size, header included
  };
  static constexpr size_t kHeader = (sizeof(Block) + 15) & ~size_t{15};
#ifdef SQUALL_TREE_ARENA_ASAN
  static constexpr size_t kRedZone = 16;
#else
  static constexpr size_t kRedZone = 0;
#endif

  void* allocate_in_new_block(size_t bytes);

  Block* blocks_ = nullptr;
  char* next_ = nullptr;
  char* limit_ = nullptr;
};

}  // namespace squall
