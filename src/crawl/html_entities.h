// The HTML Standard's named character references, for the link tokenizer (private to src/crawl).
#pragma once

#include <cstddef>
#include <string_view>

namespace squall::detail {

struct NamedReference {
  std::string_view name;  // without '&', with ';' when the standard's name has one
  std::string_view utf8;  // the code points it stands for
};

// Sorted by name, so a lookup can binary-search it. scripts/gen_html_entities.py writes it.
extern const NamedReference kNamedReferences[];
constexpr size_t kNamedReferenceCount = 2231;

}  // namespace squall::detail
