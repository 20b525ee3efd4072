// KnownTaskids: a set of taskids by their 64-bit hashes, in 256 tables that grow apart.
#include "squall/engine/known_taskids.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/engine/crawl_task.h"

namespace squall {
namespace {

TEST(KnownTaskidsTest, ATaskidIsKnownOnceInsertedAndOthersAreNot) {
  KnownTaskids known;
  EXPECT_FALSE(known.contains("a"));
  EXPECT_TRUE(known.insert("a"));
  EXPECT_FALSE(known.insert("a"));
  EXPECT_TRUE(known.contains("a"));
  EXPECT_FALSE(known.contains("b"));
  EXPECT_EQ(known.size(), 1u);
}

TEST(KnownTaskidsTest, AHashOfZeroIsKnownOnlyOnceInserted) {
  // 0 marks an empty slot: a taskid hashing to it must not be taken as known (nor ever found)
  // by its matching the first empty slot.
  KnownTaskids known;
  EXPECT_FALSE(known.contains_hash(0));
  EXPECT_TRUE(known.insert_hash(5));  // the same table as 0's, which has empty slots then
  EXPECT_FALSE(known.contains_hash(0));
  EXPECT_TRUE(known.insert_hash(0));
  EXPECT_TRUE(known.contains_hash(0));
  EXPECT_FALSE(known.insert_hash(0));
  EXPECT_TRUE(known.contains_hash(5));
  EXPECT_EQ(known.size(), 2u);
}

TEST(KnownTaskidsTest, EveryTaskidStaysKnownAsTheTablesGrow) {
  KnownTaskids known;
  constexpr int kCount = 200'000;
  for (int i = 0; i < kCount; ++i)
    ASSERT_TRUE(known.insert(default_taskid("http://h/" + std::to_string(i)))) << i;
  EXPECT_EQ(known.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i)
    ASSERT_TRUE(known.contains(default_taskid("http://h/" + std::to_string(i)))) << i;
  int strangers = 0;
  for (int i = kCount; i < 2 * kCount; ++i)
    strangers += known.contains(default_taskid("http://h/" + std::to_string(i)));
  EXPECT_EQ(strangers, 0);
  // At most 4 slots in 5 used, at least 2 in 5 once grown: 10 to 20 bytes a taskid here.
  EXPECT_LE(known.memory(), kCount * 20u + 256 * 64 * 8u);
  EXPECT_GE(known.memory(), kCount * 10u);
}

TEST(KnownTaskidsTest, ClearForgetsEverythingAndFreesTheTables) {
  KnownTaskids known;
  for (int i = 0; i < 1000; ++i) known.insert(std::to_string(i));
  known.clear();
  EXPECT_EQ(known.size(), 0u);
  EXPECT_EQ(known.memory(), 0u);
  EXPECT_FALSE(known.contains("1"));
  EXPECT_TRUE(known.insert("1"));
}

}  // namespace
}  // namespace squall
