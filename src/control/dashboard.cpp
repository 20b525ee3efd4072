// dashboard: the page, src/control/dashboard.html, compiled in by the build
// (cmake/embed_text.cmake).
#include "squall/control/dashboard.h"

namespace squall {

std::string_view dashboard_page() noexcept {
  static constexpr std::string_view kPage =
#include "control/dashboard_html.inc"
      ;
  return kPage;
}

}  // namespace squall
