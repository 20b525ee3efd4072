// SeenSet: exact membership over many URLs, in bounded memory.
#include "squall/crawl/seen.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

namespace squall {
namespace {

TEST(SeenSet, InsertsOnceAndRemembers) {
  SeenSet seen;
  EXPECT_FALSE(seen.contains("http://a/"));
  EXPECT_TRUE(seen.insert("http://a/"));
  EXPECT_FALSE(seen.insert("http://a/"));
  EXPECT_TRUE(seen.contains("http://a/"));
  EXPECT_FALSE(seen.contains("http://a"));
  EXPECT_TRUE(seen.insert(""));
  EXPECT_FALSE(seen.insert(""));
  EXPECT_EQ(seen.size(), 2u);
}

TEST(SeenSet, AMillionUrlsFitInSixteenMebibytesWithoutLoss) {
  SeenSet seen;
  std::string url = "https://docs.example.org/library/section-";
  const size_t base = url.size();
  for (int i = 0; i < 1'000'000; ++i) {
    url.resize(base);
    url += std::to_string(i);
    url += ".html";
    ASSERT_TRUE(seen.insert(url)) << url;
  }
  EXPECT_EQ(seen.size(), 1'000'000u);
  EXPECT_LE(seen.memory(), size_t{16} << 20);
  for (int i = 0; i < 1'000'000; i += 997) {
    url.resize(base);
    url += std::to_string(i);
    url += ".html";
    EXPECT_FALSE(seen.insert(url));
  }
  EXPECT_FALSE(seen.contains("https://docs.example.org/library/section-1000000.html"));
}

TEST(SeenSet, HashesSpreadAcrossNearbyInputs) {
  // URLs that differ in one character, or only in length, must not collide.
  std::unordered_set<uint64_t> hashes;
  std::string url(40, 'a');
  for (size_t pos = 0; pos < url.size(); ++pos)
    for (char c = 'b'; c <= 'z'; ++c) {
      std::string v = url;
      v[pos] = c;
      EXPECT_TRUE(hashes.insert(SeenSet::hash(v)).second) << v;
    }
  for (size_t n = 0; n < 64; ++n)
    EXPECT_TRUE(hashes.insert(SeenSet::hash(std::string(n, 'q'))).second);
  EXPECT_NE(SeenSet::hash(std::string_view("ab\0", 3)), SeenSet::hash("ab"));
}

}  // namespace
}  // namespace squall
