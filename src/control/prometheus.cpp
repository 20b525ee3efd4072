// Prometheus: the exposition format's escaping and number spelling.
#include "squall/control/prometheus.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace squall {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

std::vector<double> Histogram::latency_bounds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

void Histogram::observe(double value) {
  auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<size_t>(at - bounds_.begin())];
  sum_ += value;
  ++count_;
}

namespace {

void escaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (quote && c == '"')
      out += "\\\"";
    else
      out += c;
  }
}

}  // namespace

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  escaped(out_, help, false);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void PrometheusText::labels(const MetricLabels& labels, std::string_view le) {
  if (labels.empty() && le.empty()) return;
  out_ += '{';
  bool first = true;
  for (const auto& [name, v] : labels) {
    if (!first) out_ += ',';
    first = false;
    out_ += name;
    out_ += "=\"";
    escaped(out_, v, true);
    out_ += '"';
  }
  if (!le.empty()) {
    if (!first) out_ += ',';
    out_ += "le=\"";
    out_ += le;
    out_ += '"';
  }
  out_ += '}';
}

void PrometheusText::value(double v) {
  if (std::isnan(v)) {
    out_ += "NaN";
  } else if (std::isinf(v)) {
    out_ += v > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[40];
    if (v == std::floor(v) && std::fabs(v) < 1e15)
      std::snprintf(buf, sizeof buf, "%.0f", v);
    else
      std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
  }
}

void PrometheusText::sample(std::string_view name, const MetricLabels& l, double v) {
  out_ += name;
  labels(l);
  out_ += ' ';
  value(v);
  out_ += '\n';
}

void PrometheusText::histogram(std::string_view name, const MetricLabels& l, const Histogram& h) {
  uint64_t cumulative = 0;
  std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i <= h.bounds().size(); ++i) {
    cumulative += h.counts()[i];
    std::string le;
    if (i < h.bounds().size()) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%g", h.bounds()[i]);
      le = buf;
    } else {
      le = "+Inf";
    }
    out_ += bucket;
    labels(l, le);
    out_ += ' ';
    value(static_cast<double>(cumulative));
    out_ += '\n';
  }
  sample(std::string(name) + "_sum", l, h.sum());
  sample(std::string(name) + "_count", l, static_cast<double>(h.count()));
}

}  // namespace squall
