// Fuzzes the engine's messages (engine_message.h): whatever the bytes, each decoder either
// refuses them with InvalidArgumentError or returns a value whose encoding decodes to the same
// value again, and a message that decodes is of the kind its tag names. It never reads past the
// input nor aborts.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "squall/core/error.h"
#include "squall/engine/engine_message.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    squall::Dispatch d = squall::decode_dispatch(bytes);
    squall::Dispatch again = squall::decode_dispatch(squall::encode_dispatch(d));
    check(again.task.to_json() == d.task.to_json() && again.token == d.token);
  } catch (const squall::InvalidArgumentError&) {
  }
  try {
    squall::FetchedTask f = squall::decode_fetched(bytes);
    std::string encoded = squall::encode_fetched(f);
    check(squall::encode_fetched(squall::decode_fetched(encoded)) == encoded);
  } catch (const squall::InvalidArgumentError&) {
  }
  try {
    squall::ProcessOutput o = squall::decode_output(bytes);
    std::string encoded = squall::encode_output(o);
    check(squall::encode_output(squall::decode_output(encoded)) == encoded);
  } catch (const squall::InvalidArgumentError&) {
  }
  try {
    squall::ParkedTask p = squall::decode_parked(bytes);
    check(squall::engine_message_kind(bytes) == squall::EngineMessageKind::Parked);
    std::string encoded = squall::encode_parked(p);
    squall::ParkedTask again = squall::decode_parked(encoded);
    check(again.project == p.project && again.taskid == p.taskid && again.token == p.token &&
          again.host == p.host && again.reason == p.reason);
  } catch (const squall::InvalidArgumentError&) {
  }
  return 0;
}
