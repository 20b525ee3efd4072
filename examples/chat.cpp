// Tornado's websocket chat demo in squall: a page, a shared cache of the last messages, and every
// message broadcast to every open socket; a closed socket is forgotten at once, and one that
// reads too slowly is closed rather than buffered for without end.
//
// Run: build/release/examples/chat            listens on a free port, opens two sockets, chats
//                                              between them, checks what each saw and exits
//      build/release/examples/chat --port P   serves http://127.0.0.1:P/ until Ctrl-C: open it
//                                              in two browser tabs
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "squall/core.h"
#include "squall/http/server.h"
#include "squall/http/web.h"
#include "squall/http/websocket_client.h"
#include "squall/http/websocket_handler.h"
#include "squall/net/tcp_client.h"

using namespace squall;
using namespace squall::http;
using namespace std::chrono_literals;

namespace {

struct ChatSocket;

// What every socket shares: who listens and the last messages (Tornado's cache_size = 200).
// One loop serves it all, so nothing here needs a lock.
struct Chat {
  static constexpr size_t kCacheSize = 200;
  std::set<ChatSocket*> waiters;
  std::deque<nlohmann::json> cache;
  uint64_t next_id = 1;
};

// A broadcast write's wait: a socket that closed meanwhile just misses the message.
Task<void> ignore_closed(Task<void> write) {
  try {
    co_await std::move(write);
  } catch (const WebSocketClosedError&) {
  }
}

struct ChatSocket : WebSocketHandler {
  // Bytes a socket may have waiting to leave before it counts as too slow to keep.
  static constexpr size_t kMaxBacklog = size_t{1} << 20;

  explicit ChatSocket(Chat* chat) : chat_(*chat) {}

  // Tornado's demo turns compression on.
  std::optional<WsCompressionOptions> compression_options() const override {
    return WsCompressionOptions{};
  }
  Task<void> open() override {
    chat_.waiters.insert(this);
    return Task<void>::ready();
  }
  void on_close() override { chat_.waiters.erase(this); }

  Task<void> on_message(WsMessage message) override {
    nlohmann::json parsed = nlohmann::json::parse(message.data, nullptr, false);
    if (!parsed.is_object() || !parsed["body"].is_string()) co_return;  // not a chat message
    std::string body = parsed["body"];
    uint64_t id = chat_.next_id++;
    nlohmann::json chat = {{"id", id},
                           {"body", body},
                           {"html", "<div class=\"message\" id=\"m" + std::to_string(id) + "\">" +
                                        html_escape(body) + "</div>"}};
    chat_.cache.push_back(chat);
    if (chat_.cache.size() > Chat::kCacheSize) chat_.cache.pop_front();
    const std::string text = chat.dump();
    for (ChatSocket* waiter : chat_.waiters) waiter->send(text);
  }

  // Queues `text` without making the sender wait for this socket's reader (the frame is queued
  // when write_message is called; the spawned task only waits for it to drain).
  void send(const std::string& text) {
    try {
      if (websocket().buffered_amount() > kMaxBacklog) {
        spawn(close(ws_close::kPolicyViolation, "reading too slowly"));
        return;
      }
      spawn(ignore_closed(write_message(text)));
    } catch (const WebSocketClosedError&) {
      // Closing already: it misses the message.
    }
  }

  Chat& chat_;
};

constexpr std::string_view kPageTop = R"(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>squall chat</title>
<style>body{font-family:sans-serif}.message{margin:.2em 0}</style></head>
<body><div id="inbox">
)";
constexpr std::string_view kPageBottom = R"(</div>
<form id="form"><input id="body" autocomplete="off" autofocus><button>Post</button></form>
<script>
const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/chatsocket");
ws.onmessage = (e) => {
  const chat = JSON.parse(e.data);
  if (document.getElementById("m" + chat.id)) return;
  document.getElementById("inbox").insertAdjacentHTML("beforeend", chat.html);
};
document.getElementById("form").onsubmit = (e) => {
  e.preventDefault();
  const input = document.getElementById("body");
  ws.send(JSON.stringify({body: input.value}));
  input.value = "";
};
</script></body></html>
)";

Application make_app(Chat& chat) {
  Application app({{"/chatsocket", handler<ChatSocket>(&chat)}});
  app.add("GET", "/", [&chat](Request&, Response& response) -> Task<void> {
    std::string page(kPageTop);
    for (const nlohmann::json& message : chat.cache)
      page += message["html"].get<std::string>() + "\n";
    page += kPageBottom;
    response.set_header("Content-Type", "text/html; charset=utf-8");
    co_await response.finish(page);
  });
  return app;
}

Task<std::string> read_body(WebSocket& ws) {
  std::optional<WsMessage> m = co_await ws.read_message();
  co_return m ? nlohmann::json::parse(m->data)["body"].get<std::string>() : "(closed)";
}

Task<int> self_test() {
  Chat chat;
  Application app = make_app(chat);
  HttpServer& server = app.listen(0);
  std::string base = "127.0.0.1:" + std::to_string(server.port());
  std::printf("listening on http://%s/\n", base.c_str());

  WebSocketConnectOptions options;
  options.compression = true;
  WebSocket alice = co_await websocket_connect("ws://" + base + "/chatsocket", options);
  WebSocket bob = co_await websocket_connect("ws://" + base + "/chatsocket", options);
  co_await alice.write_message(R"({"body": "hello <bob>"})");
  std::string at_alice = co_await read_body(alice);
  std::string at_bob = co_await read_body(bob);
  std::printf("alice sent \"hello <bob>\"; alice saw \"%s\", bob saw \"%s\"\n", at_alice.c_str(),
              at_bob.c_str());
  co_await bob.close();
  while (chat.waiters.size() != 1) co_await sleep(1ms);  // the server has seen bob's close
  co_await alice.write_message(R"({"body": "bob left"})");
  std::string again = co_await read_body(alice);
  std::printf("after bob left: %zu socket open, alice saw \"%s\"\n", chat.waiters.size(),
              again.c_str());

  Stream page = co_await tcp_connect("127.0.0.1", server.port());
  co_await page.write("GET / HTTP/1.1\r\nHost: " + base + "\r\nConnection: close\r\n\r\n");
  std::string html = co_await page.read_until_close();
  bool escaped = html.find("hello &lt;bob&gt;</div>") != std::string::npos;
  std::printf("the page shows the cache, escaped: %s\n", escaped ? "yes" : "no");
  co_await alice.close();
  co_await app.stop(2s);
  bool ok = at_alice == "hello <bob>" && at_bob == "hello <bob>" && again == "bob left" &&
            escaped && chat.waiters.empty();
  co_return ok ? 0 : 1;
}

// One worker serves everything, so the shared Chat is only ever touched from its loop.
int serve(int port) {
  Chat chat;
  Application app = make_app(chat);
  HttpWorkers servers(1, Address::parse("127.0.0.1:" + std::to_string(port)),
                      [&app] { return app.handler(); });
  std::printf("chat on http://127.0.0.1:%u/ (Ctrl-C stops)\n", servers.address().port());
  std::fflush(stdout);
  int signal_number = wait_for_shutdown_signal();
  std::printf("signal %d: stopping\n", signal_number);
  servers.stop(2s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int port = -1;
  if (argc == 3 && std::strcmp(argv[1], "--port") == 0) {
    port = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: chat [--port P]\n");
    return 2;
  }
  try {
    if (port >= 0) return serve(port);
    return run_sync(self_test(), 10s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chat: %s\n", e.what());
    return 1;
  }
}
