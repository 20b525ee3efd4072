// EngineMessage: what the engine's components hand each other through a queue between processes
// (Redis Streams, stream_queue.h), as bytes: a dispatch (scheduler → fetcher), a fetched page
// (fetcher → processor), a process output (processor → scheduler and result worker) and a
// parked task (fetcher → scheduler, beside the outputs: a task of a host it gave up on).
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

#include <cstdint>
#include <optional>
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

// A dispatched task that the fetcher did not fetch because its host is unavailable (its
// robots.txt could not be fetched, fetch_stage.h): the scheduler takes it back untried
// (Scheduler::release), as the embedded engine parks it.
struct ParkedTask {
  std::string project;
  std::string taskid;
  uint64_t token = 0;  // the dispatch's
  std::string host;    // host:port
  std::string reason;  // UnavailableHost's kind and message
};

std::string encode_parked(const ParkedTask& parked);
ParkedTask decode_parked(std::string_view bytes);

// Which message `bytes` holds, by its tag alone (its decoder checks the rest): a stream that
// carries two kinds (the outcome stream: outputs and parked tasks) picks the decoder so.
// Nullopt for bytes that are not an engine message or of a kind this squall does not know;
// decoding them says why.
enum class EngineMessageKind { Dispatch, Fetched, Output, Parked };
std::optional<EngineMessageKind> engine_message_kind(std::string_view bytes) noexcept;

}  // namespace squall
