// TreeArena: aligned, zeroed and NUL-terminated allocations, dropped together, blocks reused.
#include "squall/crawl/tree_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace squall {
namespace {

struct Node {
  void* pointer;
  int number;
  char text[20];
};

TEST(TreeArena, GivesZeroedStructsAlignedForPointers) {
  TreeArena arena;
  for (int i = 0; i < 10'000; ++i) {
    Node* node = arena.make<Node>();
    ASSERT_EQ(reinterpret_cast<uintptr_t>(node) % alignof(void*), 0u);
    ASSERT_EQ(node->pointer, nullptr);
    ASSERT_EQ(node->number, 0);
    node->number = i;
    std::memset(node->text, 'x', sizeof node->text);
    // Odd sizes between structs must not leave the next one unaligned.
    arena.copy("abcdefg", static_cast<size_t>(i % 7));
  }
}

TEST(TreeArena, CopiesStringsWithTheirTerminatingNul) {
  TreeArena arena;
  const std::string text = "caf\xC3\xA9 & bar";
  char* copy = arena.copy(text.data(), text.size());
  EXPECT_EQ(std::string(copy), text);
  EXPECT_EQ(std::string(arena.copy(text.data(), 3)), "caf");
  EXPECT_EQ(std::string(arena.copy("", 0)), "");
}

TEST(TreeArena, KeepsEveryAllocationUntilItIsCleared) {
  TreeArena arena;
  std::vector<char*> strings;
  for (int i = 0; i < 20'000; ++i) {
    const std::string s = "string " + std::to_string(i);
    strings.push_back(arena.copy(s.data(), s.size()));
  }
  for (int i = 0; i < 20'000; ++i)
    ASSERT_EQ(std::string(strings[i]), "string " + std::to_string(i));
  EXPECT_GT(arena.bytes_held(), TreeArena::kBlockBytes);
  arena.clear();
  EXPECT_EQ(arena.bytes_held(), 0u);
  EXPECT_STREQ(arena.copy("again", 5), "again");
}

TEST(TreeArena, HoldsLittleMoreThanItGaveOut) {
  TreeArena arena;
  size_t given = 0;
  for (int i = 0; i < 100'000; ++i) {
    const size_t size = 8 + static_cast<size_t>(i % 200);
    arena.allocate(size);
    given += size;
  }
  EXPECT_LT(arena.bytes_held(), given * 3 / 2 + TreeArena::kBlockBytes);
}

TEST(TreeArena, GivesALargeAllocationABlockOfItsOwnAndKeepsFillingTheCurrentOne) {
  TreeArena arena;
  char* first = static_cast<char*>(arena.allocate(16));
  const size_t held = arena.bytes_held();
  const std::string big(TreeArena::kBlockBytes * 3, 'b');
  char* copy = arena.copy(big.data(), big.size());
  EXPECT_EQ(std::string(copy, big.size()), big);
  EXPECT_GE(arena.bytes_held(), held + big.size());
  // The next small allocation still comes from the first block, right after the first.
  char* second = static_cast<char*>(arena.allocate(16));
  EXPECT_GT(second, first);
  EXPECT_LT(second, first + TreeArena::kBlockBytes);
}

TEST(TreeArena, ReusesTheBlocksAnArenaOfThisThreadDropped) {
  void* first = nullptr;
  {
    TreeArena arena;
    first = arena.allocate(64);
  }
  TreeArena next;
  EXPECT_EQ(next.allocate(64), first);
}

TEST(TreeArena, MayBeDroppedOnAnotherThreadWhoseSparesItsBlocksBecome) {
  auto arena = std::make_unique<TreeArena>();
  void* first = arena->allocate(64);
  for (int i = 0; i < 1000; ++i) arena->copy("text", 4);
  void* reused = nullptr;
  std::thread([&] {
    arena.reset();
    TreeArena next;
    reused = next.allocate(64);
  }).join();
  EXPECT_EQ(reused, first);
}

}  // namespace
}  // namespace squall
