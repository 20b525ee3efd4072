// EngineMessage: what the engine's components hand each other through a queue between processes
// (Redis Streams, stream_queue.h), as bytes: a dispatch (scheduler → fetcher), a fetched page
// (fetcher → processor) and a process output (processor → scheduler and result worker).
//
//   std::string bytes = encode_dispatch(d);
//   Dispatch back = decode_dispatch(bytes);          // InvalidArgumentError when malformed
//
// In one process the components pass these values as they are; across processes each crosses
// as one queue entry, so a page's body (any bytes) goes as it is, with no base64 and no JSON
// escaping: a message is a tag and a format version, then length-prefixed fields (LEB128
// lengths). A task's dicts travel as their JSON text (CrawlTask::to_json), which is what the
// stores keep too.
//
// Decoding is strict: a message of another kind or version, a length past the end, trailing
// bytes, bad JSON or a task that CrawlTask::from_json refuses throws InvalidArgumentError saying
// what is wrong, never reads out of bounds, and allocates no more than the message's own size
// (a hostile or corrupt entry costs what it weighs). A queue sends such an entry to its
// dead-letter stream rather than retrying it.
#pragma once

#include <string>
#include <string_view>

#include "squall/engine/fetcher.h"
#include "squall/engine/project_runtime.h"
#include "squall/engine/scheduler.h"

namespace squall {

// A fetched task: the dispatch that asked for it and what its fetch gave.
struct FetchedTask {
  Dispatch dispatch;
  FetchResult result;
};

std::string encode_dispatch(const Dispatch& dispatch);
Dispatch decode_dispatch(std::string_view bytes);

std::string encode_fetched(const FetchedTask& fetched);
FetchedTask decode_fetched(std::string_view bytes);

std::string encode_output(const ProcessOutput& output);
ProcessOutput decode_output(std::string_view bytes);

}  // namespace squall
