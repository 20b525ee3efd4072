// `squall links`: the links a crawler would follow from one HTML document.
#include <fstream>
#include <istream>
#include <ostream>

#include "squall/cli/links_command.h"
#include "squall/crawl/links.h"
#include "squall/url/url.h"

namespace squall::cli {

int run_links(const LinksCommand& command, std::istream& in, std::ostream& out, std::ostream& err) {
  LinkOptions options;
  if (command.base) {
    auto base = Url::parse(*command.base);
    if (!base) {
      err << "squall links: the base '" << *command.base
          << "' is not a URL: " << url_error_message(base.error())
          << " (give the page's absolute URL, such as https://example.com/docs/)\n";
      return 2;
    }
    options.page_url = std::move(base).value();
  }
  std::ifstream file;
  std::istream* source = &in;
  if (command.file != "-") {
    file.open(command.file, std::ios::binary);
    if (!file) {
      err << "squall links: cannot read '" << command.file
          << "' (give an HTML file, or - for standard input)\n";
      return 2;
    }
    source = &file;
  }
  LinkExtractor extractor(std::move(options));
  char chunk[64 * 1024];
  while (source->read(chunk, sizeof chunk) || source->gcount() > 0)
    extractor.feed({chunk, static_cast<size_t>(source->gcount())});
  extractor.finish();

  size_t relative = 0;
  for (const Link& link : extractor.links()) {
    std::optional<Url> absolute = link.url;
    if (!absolute && !command.base) {
      auto parsed = Url::parse(link.raw);
      if (parsed)
        absolute = std::move(parsed).value();
      else
        ++relative;
    }
    if (!absolute || !absolute->is_http()) continue;
    out << absolute->href();
    if (command.all) {
      out << '\t' << link_element_name(link.element) << '\t' << link.rel << '\t'
          << (link.nofollow ? "nofollow" : "follow");
    }
    out << '\n';
  }
  if (relative > 0) {
    err << "squall links: " << relative
        << " relative links left out; give --base with the page's URL to resolve them\n";
  }
  return 0;
}

}  // namespace squall::cli
