// Exactly sized blocks and input splits for parser tests.
#include "support/bytes.h"

#include <algorithm>
#include <cstring>
#include <random>

namespace squall::test {

ExactBytes::ExactBytes(std::string_view bytes)
    : data_(std::make_unique<char[]>(bytes.size())), size_(bytes.size()) {
  if (size_) std::memcpy(data_.get(), bytes.data(), size_);
}

namespace {
Split cut_at(std::string name, std::string_view input, std::vector<size_t> cuts) {
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  Split split{std::move(name), {}};
  size_t start = 0;
  for (size_t cut : cuts) {
    if (cut <= start || cut >= input.size()) continue;
    split.chunks.emplace_back(input.substr(start, cut - start));
    start = cut;
  }
  split.chunks.emplace_back(input.substr(start));
  return split;
}
}  // namespace

std::vector<Split> splits(std::string_view input, int random_splits, uint32_t seed) {
  std::vector<Split> result;
  result.push_back(cut_at("whole", input, {}));
  std::vector<size_t> every;
  for (size_t i = 1; i < input.size(); ++i) every.push_back(i);
  result.push_back(cut_at("byte-by-byte", input, every));
  std::mt19937 rng(seed);
  for (int i = 0; i < random_splits && input.size() > 1; ++i) {
    std::uniform_int_distribution<size_t> pos(1, input.size() - 1);
    std::uniform_int_distribution<size_t> count(1, std::min<size_t>(input.size() - 1, 16));
    std::vector<size_t> cuts(count(rng));
    for (auto& c : cuts) c = pos(rng);
    result.push_back(cut_at("random#" + std::to_string(i), input, cuts));
  }
  return result;
}

}  // namespace squall::test
