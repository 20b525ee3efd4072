// Prometheus: the text format's escaping, numbers and histograms (the whole output is also read
// by Prometheus's own parser in control_server_test).
#include "squall/control/prometheus.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace squall {
namespace {

TEST(PrometheusText, LabelValuesAndHelpAreEscapedAsTheFormatAsks) {
  PrometheusText out;
  out.family("m", "gauge", "a \\ help\nline");
  out.sample("m", {{"a", "q\"uote"}, {"b", "back\\slash\nnew"}}, 1);
  EXPECT_EQ(out.text(),
            "# HELP m a \\\\ help\\nline\n# TYPE m gauge\n"
            "m{a=\"q\\\"uote\",b=\"back\\\\slash\\nnew\"} 1\n");
}

TEST(PrometheusText, NumbersAreExactAndInfinityAndNanSpelledAsPrometheusReadsThem) {
  PrometheusText out;
  out.sample("a", {}, 12345678901234);
  out.sample("b", {}, 0.25);
  out.sample("c", {}, std::numeric_limits<double>::infinity());
  out.sample("d", {}, -std::numeric_limits<double>::infinity());
  out.sample("e", {}, std::nan(""));
  EXPECT_EQ(out.text(), "a 12345678901234\nb 0.25\nc +Inf\nd -Inf\ne NaN\n");
}

TEST(Histogram, BucketsAreCumulativeAndEndWithInfinitySumAndCount) {
  Histogram h({0.1, 1});
  h.observe(0.05);
  h.observe(0.1);  // le is inclusive
  h.observe(0.5);
  h.observe(7);
  PrometheusText out;
  out.histogram("t", {{"p", "x"}}, h);
  EXPECT_EQ(out.text(),
            "t_bucket{p=\"x\",le=\"0.1\"} 2\n"
            "t_bucket{p=\"x\",le=\"1\"} 3\n"
            "t_bucket{p=\"x\",le=\"+Inf\"} 4\n"
            "t_sum{p=\"x\"} 7.6500000000000004\n"
            "t_count{p=\"x\"} 4\n");
}

}  // namespace
}  // namespace squall
