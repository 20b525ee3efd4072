// Prometheus: metrics in Prometheus's text exposition format (version 0.0.4), written by us.
//
//   PrometheusText out;
//   out.family("squall_pages_total", "counter", "Pages fetched, by status class");
//   out.sample("squall_pages_total", {{"project", "crawl"}, {"class", "2xx"}}, 42);
//   Histogram latency(Histogram::latency_bounds());
//   latency.observe(0.012);
//   out.family("squall_fetch_seconds", "histogram", "Fetch latency");
//   out.histogram("squall_fetch_seconds", {{"project", "crawl"}}, latency);
//   resp.set_header("Content-Type", PrometheusText::kContentType);
//   co_await resp.finish(out.text());
//
// Label values are escaped as the format asks (backslash, double quote, line feed), HELP text
// too (backslash, line feed); values are written exactly (integers without an exponent) with
// NaN and ±Inf spelled as Prometheus reads them. A histogram's buckets are cumulative, end with
// le="+Inf", and come with its _sum and _count. Names are the caller's: they must already be
// valid metric and label names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace squall {

using MetricLabels = std::vector<std::pair<std::string_view, std::string_view>>;

// Observations counted in buckets by upper bound (le), with their sum and count.
class Histogram {
 public:
  // Upper bounds, ascending; +Inf is implied after the last.
  explicit Histogram(std::vector<double> bounds);
  // Seconds from 1 ms to 60 s, for fetch latency.
  static std::vector<double> latency_bounds();

  void observe(double value);
  const std::vector<double>& bounds() const noexcept { return bounds_; }
  // Observations in each bucket alone (not cumulative), one more than bounds() (+Inf last).
  const std::vector<uint64_t>& counts() const noexcept { return counts_; }
  double sum() const noexcept { return sum_; }
  uint64_t count() const noexcept { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
  uint64_t count_ = 0;
};

class PrometheusText {
 public:
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // A family's # HELP and # TYPE lines; its samples follow. `type`: counter, gauge, histogram.
  void family(std::string_view name, std::string_view type, std::string_view help);
  // `name{labels} value`.
  void sample(std::string_view name, const MetricLabels& labels, double value);
  // The _bucket lines (cumulative, with le), _sum and _count of `h` under `name`.
  void histogram(std::string_view name, const MetricLabels& labels, const Histogram& h);

  const std::string& text() const noexcept { return out_; }

 private:
  void labels(const MetricLabels& labels, std::string_view le = {});
  void value(double v);
  std::string out_;
};

}  // namespace squall
