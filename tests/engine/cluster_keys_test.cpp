// Key names under a crawl's namespace: the prefix, and namespaces that would overlap refused.
#include "squall/engine/cluster_keys.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"

namespace squall {
namespace {

TEST(ClusterKeysTest, PutsEveryKeyUnderTheNamespacePrefix) {
  EXPECT_EQ(cluster_prefix("squall"), "squall:squall:");
  EXPECT_EQ(cluster_key("shop-2", "fetch"), "squall:shop-2:fetch");
  EXPECT_EQ(cluster_key(default_cluster_namespace, "components"), "squall:squall:components");
}

TEST(ClusterKeysTest, NamesAStreamAndAGroupForEachOfTheFourHandOffs) {
  ASSERT_EQ(engine_streams.size(), 4u);
  EXPECT_EQ(engine_streams[0].name, "fetch");
  EXPECT_EQ(engine_streams[0].group, "fetchers");
  EXPECT_EQ(engine_streams[3].to, "result-worker");
}

TEST(ClusterKeysTest, RefusesANamespaceThatCouldOverlapAnother) {
  EXPECT_THROW(cluster_prefix(""), InvalidArgumentError);
  EXPECT_THROW(cluster_prefix("a:b"), InvalidArgumentError);
  EXPECT_THROW(cluster_prefix("a b"), InvalidArgumentError);
  EXPECT_THROW(cluster_prefix(std::string_view("a\nb")), InvalidArgumentError);
}

}  // namespace
}  // namespace squall
