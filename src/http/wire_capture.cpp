// WireCapture: the calls a capture leaves alone do nothing, and the peer's name gives its address.
#include "squall/http/wire_capture.h"

#include "squall/core/error.h"

namespace squall::http {

std::optional<Address> WireCapture::Connection::address() const {
  std::string_view text = peer;
  // A name the stream resolved carries the address it connected to in parentheses.
  if (size_t open = text.rfind(" ("); open != std::string_view::npos && text.ends_with(')'))
    text = text.substr(open + 2, text.size() - open - 3);
  try {
    return Address::parse(text);
  } catch (const InvalidArgumentError&) {
    return std::nullopt;
  }
}

void WireCapture::begin(const Url&, const Connection&) {}
void WireCapture::request_head(std::string_view) {}
void WireCapture::sent(std::string_view) {}
void WireCapture::response_head(std::string_view) {}
void WireCapture::received(std::string_view) {}
void WireCapture::payload(std::string_view) {}
void WireCapture::end(bool) {}

}  // namespace squall::http
