// Fuzzes the tree builder: no crash, and a page it builds, in libxml2's memory and in an arena,
// serializes exactly as libxml2's parser's tree of the same bytes does (a page it leaves to
// libxml2 says nothing).
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "squall/crawl/html_tree_builder.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

std::string serialized(xmlDocPtr doc) {
  xmlChar* bytes = nullptr;
  int size = 0;
  htmlDocDumpMemoryFormat(doc, &bytes, &size, 0);
  std::string out(bytes ? reinterpret_cast<const char*>(bytes) : "", static_cast<size_t>(size));
  xmlFree(bytes);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xmlInitParser();
  const std::string_view page(reinterpret_cast<const char*>(data), size);
  xmlDocPtr built = squall::build_html_tree(page, "utf-8", "http://127.0.0.1/");
  squall::TreeArena arena;
  xmlDocPtr in_arena = squall::build_html_tree(page, "utf-8", "http://127.0.0.1/", arena);
  check((built == nullptr) == (in_arena == nullptr));
  if (built == nullptr) {
    check(arena.bytes_held() == 0);
    return 0;
  }
  xmlDocPtr parsed = htmlReadMemory(
      page.data(), static_cast<int>(page.size()), "http://127.0.0.1/", "utf-8",
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
  check(parsed != nullptr);
  const std::string want = serialized(parsed);
  check(serialized(built) == want);
  check(serialized(in_arena) == want);
  xmlFreeDoc(built);
  squall::free_arena_html_tree(in_arena);
  xmlFreeDoc(parsed);
  return 0;
}
