// The client benchmark's libcurl peer: the same load as examples/loadgen, over curl_multi.
//
// `concurrency` easy handles, each re-added as soon as it finishes until REQUESTS have been
// made; CURLMOPT_MAX_HOST_CONNECTIONS caps the connections at the concurrency and each easy
// handle keeps its connection alive, so every request after the first on a handle reuses it.
// Bodies are counted and dropped. Prints the same JSON line as loadgen.
//
// bench/client_bench.py compiles it (g++ -O2 ... -lcurl) and runs it pinned to one core:
//   client_curl http://127.0.0.1:8080/1k.bin 200000 64
#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

size_t discard(char*, size_t size, size_t count, void* total) {
  *static_cast<size_t*>(total) += size * count;
  return size * count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: client_curl URL REQUESTS CONCURRENCY\n");
    return 2;
  }
  const char* url = argv[1];
  long requests = std::atol(argv[2]);
  long concurrency = std::atol(argv[3]);
  if (requests <= 0 || concurrency <= 0) return 2;

  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM* multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, concurrency);
  curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, concurrency);
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, concurrency);

  size_t body_bytes = 0;
  long started = 0, done = 0, errors = 0;
  std::vector<CURL*> handles;
  for (long i = 0; i < concurrency && started < requests; ++i, ++started) {
    CURL* easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &body_bytes);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_multi_add_handle(multi, easy);
    handles.push_back(easy);
  }

  auto start = std::chrono::steady_clock::now();
  int running = 0;
  do {
    curl_multi_perform(multi, &running);
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* easy = msg->easy_handle;
      long code = 0;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
      ++done;
      if (msg->data.result != CURLE_OK || code != 200) {
        if (errors++ == 0) {
          std::fprintf(stderr, "client_curl: first error: %s (HTTP %ld)\n",
                       curl_easy_strerror(msg->data.result), code);
        }
      }
      curl_multi_remove_handle(multi, easy);
      if (started < requests) {
        ++started;
        curl_multi_add_handle(multi, easy);  // the handle keeps its connection for the next
        ++running;
      }
    }
    if (running) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  } while (running || done < started);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (CURL* easy : handles) curl_easy_cleanup(easy);
  curl_multi_cleanup(multi);
  curl_global_cleanup();
  std::printf(
      "{\"requests\": %ld, \"errors\": %ld, \"concurrency\": %ld, \"seconds\": %.6f, "
      "\"requests_per_second\": %.1f}\n",
      done, errors, concurrency, seconds, done / seconds);
  return errors == 0 ? 0 : 1;
}
