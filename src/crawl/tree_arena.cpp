// TreeArena: blocks carved in order, dropped together, a few kept per thread for the next page.
#include "squall/crawl/tree_arena.h"

#include <cstdlib>
#include <new>

namespace squall {

namespace {

// Blocks of kBlockBytes a thread has dropped, for its next arenas: a page's tree takes a few,
// and every page of a crawl thread would otherwise ask malloc for them again.
struct SpareBlocks {
  void* head = nullptr;  // each block's first word links to the next
  size_t count = 0;
  ~SpareBlocks();
};
thread_local SpareBlocks spare_blocks;
// Set once this thread's spare list is destroyed: an arena dropped later (by another
// thread_local's destructor) frees its blocks instead.
thread_local bool spare_blocks_gone = false;

SpareBlocks::~SpareBlocks() {
  while (head != nullptr) {
    void* next = *static_cast<void**>(head);
    std::free(head);
    head = next;
  }
  count = 0;
  spare_blocks_gone = true;
}

void* take_spare() {
  if (spare_blocks_gone || spare_blocks.head == nullptr) return nullptr;
  void* block = spare_blocks.head;
  spare_blocks.head = *static_cast<void**>(block);
  --spare_blocks.count;
  return block;
}

void give_back(void* block, size_t bytes) {
#ifdef SQUALL_TREE_ARENA_ASAN
  ASAN_UNPOISON_MEMORY_REGION(block, bytes);
#endif
  if (bytes != TreeArena::kBlockBytes || spare_blocks_gone ||
      spare_blocks.count >= TreeArena::kSpareBlocks) {
    std::free(block);
    return;
  }
  *static_cast<void**>(block) = spare_blocks.head;
  spare_blocks.head = block;
  ++spare_blocks.count;
}

}  // namespace

void* TreeArena::allocate_in_new_block(size_t bytes) {
  // A large allocation gets a block of its own, and the current block stays open: so no block is
  // left with more than a quarter of it unused.
  if (bytes > kBlockBytes / 4) {
    void* memory = std::malloc(kHeader + bytes);
    if (memory == nullptr) throw std::bad_alloc();
    auto* block = static_cast<Block*>(memory);
    block->bytes = kHeader + bytes;
    block->next = blocks_;
    blocks_ = block;
    return static_cast<char*>(memory) + kHeader;
  }
  void* memory = take_spare();
  if (memory == nullptr) memory = std::malloc(kBlockBytes);
  if (memory == nullptr) throw std::bad_alloc();
  auto* block = static_cast<Block*>(memory);
  block->bytes = kBlockBytes;
  block->next = blocks_;
  blocks_ = block;
  next_ = static_cast<char*>(memory) + kHeader;
  limit_ = static_cast<char*>(memory) + kBlockBytes;
#ifdef SQUALL_TREE_ARENA_ASAN
  ASAN_POISON_MEMORY_REGION(next_, static_cast<size_t>(limit_ - next_));
#endif
  return allocate(bytes);
}

void TreeArena::clear() {
  while (blocks_ != nullptr) {
    Block* next = blocks_->next;
    give_back(blocks_, blocks_->bytes);
    blocks_ = next;
  }
  next_ = limit_ = nullptr;
}

size_t TreeArena::bytes_held() const noexcept {
  size_t total = 0;
  for (const Block* b = blocks_; b != nullptr; b = b->next) total += b->bytes;
  return total;
}

}  // namespace squall
