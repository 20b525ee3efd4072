// Test helpers for parsers: input in exactly sized blocks, and the three ways of splitting it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace squall::test {

// A heap copy of some bytes in a block of exactly their size, so ASan reports any read past the
// end. Each chunk of a split is its own ExactBytes.
class ExactBytes {
 public:
  explicit ExactBytes(std::string_view bytes);
  std::string_view view() const { return {data_.get(), size_}; }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_;
};

// One way of cutting the input into consecutive chunks, with a name for failure messages.
struct Split {
  std::string name;
  std::vector<ExactBytes> chunks;
};

// All bytes at once, one byte at a time, and `random_splits` random cuts from a fixed seed.
std::vector<Split> splits(std::string_view input, int random_splits = 8, uint32_t seed = 12345);

}  // namespace squall::test
