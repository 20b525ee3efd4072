// Per-thread recycling of small blocks: coroutine frames and task states come and go at a high
// rate in a handful of sizes, and a free list beats the general allocator for them.
#pragma once

#include <cstddef>

namespace squall::detail {

// A block of at least `size` bytes. Blocks up to 4 KiB come from this thread's free lists;
// each list keeps at most 1024 blocks and all of them at most 8 MiB, so a burst of frees
// returns memory to the system.
// Under AddressSanitizer this is plain operator new, so use-after-free is still caught.
void* pool_allocate(size_t size);
// Returns a block from pool_allocate with the same `size`, from any thread.
void pool_deallocate(void* block, size_t size) noexcept;

}  // namespace squall::detail
