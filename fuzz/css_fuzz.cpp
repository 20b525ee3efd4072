// Fuzzes css_to_xpath and Selector::css: no crash; a selector that translates gives XPath that
// libxml2 compiles and evaluates, at most ~100 times as long as the selector, selecting what
// Selector::css selects; a refusal names an offset within the selector, and css() refuses it with
// the same message.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "squall/crawl/css.h"
#include "squall/crawl/xpath.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

// A page with something for every kind of selector to match.
const squall::HtmlDocument& page() {
  static const squall::HtmlDocument doc = squall::HtmlDocument::parse(R"(<!DOCTYPE html>
<html lang=en-US><head><title>t</title></head><body>
<div id=a class="x y" data-v="foo-bar"><p>one <b>two</b></p><p></p><!-- c --><span>s</span></div>
<ul><li class=x>1</li><li id=l2>2</li><li lang=fr>3 caf&eacute;</li></ul>
<form><input type=checkbox checked><input disabled><select><option selected>o</option></select>
<fieldset disabled><button>b</button></fieldset></form><a href="/x" title="it's">link</a>
</body></html>)");
  return doc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view selector(reinterpret_cast<const char*>(data), size);
  const squall::CssTranslation translation = squall::css_to_xpath(selector);
  const squall::SelectorList found = page().css(selector);
  if (!translation.ok()) {
    check(translation.xpath().empty());
    check(translation.error().starts_with("invalid CSS selector"));
    check(translation.offset() <= selector.size());
    check(!found.ok() && found.error() == translation.error());
    return 0;
  }
  check(translation.offset() == 0 && !translation.xpath().empty());
  check(translation.xpath().size() <= 100 * selector.size() + 64);
  check(page().xpath(translation.xpath()).ok());
  // css() starts from the root element, as root().xpath() does.
  const squall::SelectorList evaluated = page().root().xpath(translation.xpath());
  check(evaluated.ok());
  check(found.ok() && found.getall() == evaluated.getall());
  return 0;
}
