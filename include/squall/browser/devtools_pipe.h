// DevToolsPipe: the Chrome DevTools Protocol (CDP) as JSON over a pair of pipes, on the loop.
//
//   DevToolsPipe pipe(to_browser_fd, from_browser_fd);   // takes both descriptors
//   json version = co_await pipe.call("Browser.getVersion");
//   pipe.on_event(session_id, [](const json& event) { ... });   // "method" and "params"
//
// The wire is Chromium's --remote-debugging-pipe: the browser reads commands on its fd 3 and
// writes replies and events on its fd 4, each message one JSON object followed by a NUL byte.
// No port is opened, so nothing but the process that started the browser can drive it.
//
// - call() resumes with the command's "result" object, or throws: squall::Error of kind
//   Protocol with the browser's message for an error reply, TimeoutError (naming the method)
//   when no reply came within the limit, and squall::Error of kind Closed once the browser's end is
//   closed (it exited or crashed); every call in flight fails so when the pipe closes.
// - post() sends a command whose reply nobody waits for (it is dropped when it arrives).
// - Events go to the handler registered for their session ("" for the browser's own); a
//   handler runs on the loop inside the pipe's read, must not block, and may post() or
//   remove itself.
// - A message from the browser larger than max_message_size closes the pipe (a page's HTML
//   comes back through here, so the limit bounds what a page may make us hold).
//
// Threads: everything belongs to the loop current at construction.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "squall/core/future.h"
#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall::browser {

class DevToolsPipe {
 public:
  using EventHandler = std::function<void(const nlohmann::json& event)>;

  // Takes both (non-blocking or not: they are made non-blocking) descriptors and watches the
  // reading one.
  DevToolsPipe(int write_fd, int read_fd, size_t max_message_size = size_t{256} << 20);
  ~DevToolsPipe();
  DevToolsPipe(const DevToolsPipe&) = delete;
  DevToolsPipe& operator=(const DevToolsPipe&) = delete;

  // Sends `method` with `params` (to `session_id`'s target when not empty) and waits for its
  // reply, at most `limit`.
  [[nodiscard]] Task<nlohmann::json> call(std::string method,
                                          nlohmann::json params = nlohmann::json::object(),
                                          std::string session_id = {},
                                          Duration limit = std::chrono::seconds(30));
  // Sends without waiting for the reply; does nothing once closed.
  void post(std::string_view method, nlohmann::json params = nlohmann::json::object(),
            std::string_view session_id = {});

  void on_event(const std::string& session_id, EventHandler handler);
  void remove_events(const std::string& session_id);

  // Closes both descriptors: calls in flight fail with an Error of kind Closed naming `why`.
  void close(std::string_view why = "the DevTools pipe was closed");
  bool closed() const noexcept { return write_fd_ < 0; }
  // Why the pipe closed ("" while open).
  const std::string& close_reason() const noexcept { return close_reason_; }

 private:
  void send(std::string_view method, const nlohmann::json& params, std::string_view session_id,
            int id);
  void flush();
  void on_readable();
  void dispatch(std::string_view message);

  Loop& loop_;
  int write_fd_;
  int read_fd_;
  size_t max_message_size_;
  std::string in_;
  std::string out_;
  bool watching_write_ = false;
  int next_id_ = 0;
  std::map<int, Promise<nlohmann::json>> pending_;
  std::map<std::string, EventHandler, std::less<>> handlers_;
  std::string close_reason_;
};

}  // namespace squall::browser
