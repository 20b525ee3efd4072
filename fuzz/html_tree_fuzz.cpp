// Fuzzes the tree builder: no crash, and a page it builds serializes exactly as libxml2's parser's
// tree of the same bytes does (a page it leaves to libxml2 says nothing).
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
  if (built == nullptr) return 0;
  xmlDocPtr parsed = htmlReadMemory(
      page.data(), static_cast<int>(page.size()), "http://127.0.0.1/", "utf-8",
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
  check(parsed != nullptr);
  check(serialized(built) == serialized(parsed));
  xmlFreeDoc(built);
  xmlFreeDoc(parsed);
  return 0;
}
