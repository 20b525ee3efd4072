// The net suite, echo part: loopback echo over plain TCP and over TLS, squall beside standalone
// Asio (asio::ssl over the same OpenSSL), both ends of every connection on one thread.
//
// Cases: "<transport>_echo_64k" (a 64 KiB message written and read back: bulk throughput) and
// "<transport>_echo_64b" (a 64-byte round trip: per-message cost), transport tcp or tls; and
// "tcp_echo_64b_1000conn": 1,000 connections at once, each doing 64-byte round trips (one
// iteration is 10 round trips on every connection, one task per connection, then a join), so
// what it weighs is the loop's dispatch of many ready descriptors. Items are round trips. The
// TLS cases verify the certificate (a throwaway self-signed one) on both sides alike.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tcp_server.h"
#include "squall/net/tls.h"

namespace {

// A self-signed certificate for "localhost", made once per process with the openssl tool.
struct Certificate {
  std::filesystem::path dir, cert, key;
  Certificate() {
    std::string pattern = (std::filesystem::temp_directory_path() / "squall-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    cert = dir / "cert.pem";
    key = dir / "key.pem";
    std::string command =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
        "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
        key.string() + " -out " + cert.string() + " 2>/dev/null";
    if (std::system(command.c_str()) != 0) throw std::runtime_error("openssl req failed");
  }
  ~Certificate() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

const Certificate& certificate() {
  static Certificate c;
  return c;
}

constexpr int kConnections = 1000;
constexpr int kRoundTrips = 10;      // per connection and iteration, in the 1,000-connection case
constexpr size_t kSmallEcho = 4096;  // the echo server's buffer in that case

// --- squall ------------------------------------------------------------------------------

// Echoes what it reads, through a buffer of `Size` bytes.
template <size_t Size = 64 << 10>
squall::Task<void> squall_echo(squall::Stream& s) {
  std::string buffer(Size, '\0');
  try {
    for (;;) {
      size_t n = co_await s.read_into(buffer, true);
      co_await s.write(std::string_view(buffer.data(), n));
    }
  } catch (const squall::NetError&) {
  }
}

void echo_squall(benchmark::State& state, size_t message, bool tls) {
  squall::Loop loop;
  auto body = [&]() -> squall::Task<void> {
    squall::ServerOptions server_options;
    squall::ConnectOptions connect;
    if (tls) {
      server_options.tls =
          squall::TlsServerOptions{certificate().cert.string(), certificate().key.string(), {}, {}};
      squall::TlsClientOptions client;
      client.ca_file = certificate().cert.string();
      connect.tls = client;
    }
    squall::LiteralResolver literal;
    connect.resolver = &literal;
    squall::TcpServer server(squall_echo<>, server_options);
    server.listen(squall::Address::ipv4_loopback(0));
    {
      squall::Stream s = co_await squall::tcp_connect("localhost", server.port(), connect);
      std::string out(message, 'x');
      std::string in(message, '\0');
      for (auto _ : state) {
        co_await s.write(std::string_view(out));
        co_await s.read_into(in);
      }
    }
    co_await server.stop();
  };
  squall::run_sync(body());
  state.SetItemsProcessed(state.iterations());
  // Bulk cases are reported as throughput (MB/s), small-message ones per round trip.
  if (message >= 1024) state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(message));
}

// kRoundTrips 64-byte round trips on `s`; the last of `active` to end sets `done`.
squall::Task<void> squall_round_trips(squall::Stream& s, int& active, squall::Event& done,
                                      std::exception_ptr& error) {
  std::string out(64, 'x');
  std::string in(64, '\0');
  try {
    for (int i = 0; i < kRoundTrips; ++i) {
      co_await s.write(std::string_view(out));
      co_await s.read_into(in);
    }
  } catch (...) {
    error = std::current_exception();
  }
  if (--active == 0) done.set();
}

void many_squall(benchmark::State& state) {
  squall::Loop loop;
  auto body = [&]() -> squall::Task<void> {
    squall::ServerOptions options;
    options.backlog = kConnections;
    squall::TcpServer server(squall_echo<kSmallEcho>, options);
    server.listen(squall::Address::ipv4_loopback(0));
    {
      std::vector<squall::Stream> streams;
      for (int i = 0; i < kConnections; ++i)
        streams.push_back(
            co_await squall::tcp_connect(squall::Address::ipv4_loopback(server.port())));
      std::exception_ptr error;
      for (auto _ : state) {
        int active = kConnections;
        squall::Event done;
        for (squall::Stream& s : streams) squall::spawn(squall_round_trips(s, active, done, error));
        co_await done.wait();
        if (error) std::rethrow_exception(error);
      }
    }
    co_await server.stop();
  };
  squall::run_sync(body());
  state.SetItemsProcessed(state.iterations() * kConnections * kRoundTrips);
}

// --- Asio --------------------------------------------------------------------------------

using asio::ip::tcp;

template <size_t Size = 64 << 10, class Socket>
asio::awaitable<void> asio_echo(Socket s) {
  std::string buffer(Size, '\0');
  try {
    for (;;) {
      size_t n = co_await s.async_read_some(asio::buffer(buffer), asio::use_awaitable);
      co_await asio::async_write(s, asio::buffer(buffer.data(), n), asio::use_awaitable);
    }
  } catch (const std::exception&) {
  }
}

template <class Socket>
asio::awaitable<void> asio_client(benchmark::State& state, Socket& s, size_t message) {
  std::string out(message, 'x');
  std::string in(message, '\0');
  for (auto _ : state) {
    co_await asio::async_write(s, asio::buffer(out), asio::use_awaitable);
    co_await asio::async_read(s, asio::buffer(in), asio::use_awaitable);
  }
}

void echo_asio(benchmark::State& state, size_t message, bool tls) {
  asio::io_context io(1);
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto endpoint = acceptor.local_endpoint();
  asio::ssl::context server_ctx(asio::ssl::context::tls_server);
  asio::ssl::context client_ctx(asio::ssl::context::tls_client);
  if (tls) {
    server_ctx.use_certificate_chain_file(certificate().cert.string());
    server_ctx.use_private_key_file(certificate().key.string(), asio::ssl::context::pem);
    client_ctx.load_verify_file(certificate().cert.string());
    client_ctx.set_verify_mode(asio::ssl::verify_peer);
  }
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        tcp::socket accepted = co_await acceptor.async_accept(asio::use_awaitable);
        accepted.set_option(tcp::no_delay(true));
        if (tls) {
          asio::ssl::stream<tcp::socket> secure(std::move(accepted), server_ctx);
          co_await secure.async_handshake(asio::ssl::stream_base::server, asio::use_awaitable);
          co_await asio_echo(std::move(secure));
        } else {
          co_await asio_echo(std::move(accepted));
        }
      },
      asio::detached);
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        tcp::socket socket(io);
        co_await socket.async_connect(endpoint, asio::use_awaitable);
        socket.set_option(tcp::no_delay(true));
        if (tls) {
          asio::ssl::stream<tcp::socket> secure(std::move(socket), client_ctx);
          SSL_set_tlsext_host_name(secure.native_handle(), "localhost");
          secure.set_verify_callback(asio::ssl::host_name_verification("localhost"));
          co_await secure.async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
          co_await asio_client(state, secure, message);
          secure.lowest_layer().close();
        } else {
          co_await asio_client(state, socket, message);
          socket.close();
        }
      },
      asio::detached);
  io.run();
  state.SetItemsProcessed(state.iterations());
  // Bulk cases are reported as throughput (MB/s), small-message ones per round trip.
  if (message >= 1024) state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(message));
}

asio::awaitable<void> asio_round_trips(tcp::socket& s) {
  std::string out(64, 'x');
  std::string in(64, '\0');
  for (int i = 0; i < kRoundTrips; ++i) {
    co_await asio::async_write(s, asio::buffer(out), asio::use_awaitable);
    co_await asio::async_read(s, asio::buffer(in), asio::use_awaitable);
  }
}

void many_asio(benchmark::State& state) {
  asio::io_context io(1);
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto endpoint = acceptor.local_endpoint();
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        try {
          for (;;) {
            tcp::socket accepted = co_await acceptor.async_accept(asio::use_awaitable);
            accepted.set_option(tcp::no_delay(true));
            asio::co_spawn(io, asio_echo<kSmallEcho>(std::move(accepted)), asio::detached);
          }
        } catch (const std::exception&) {  // the acceptor closed
        }
      },
      asio::detached);
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        std::vector<tcp::socket> sockets;
        for (int i = 0; i < kConnections; ++i) {
          tcp::socket& socket = sockets.emplace_back(io);
          co_await socket.async_connect(endpoint, asio::use_awaitable);
          socket.set_option(tcp::no_delay(true));
        }
        std::exception_ptr error;
        asio::steady_timer done(io);
        for (auto _ : state) {
          int active = kConnections;
          done.expires_at(asio::steady_timer::time_point::max());
          for (tcp::socket& socket : sockets) {
            asio::co_spawn(io, asio_round_trips(socket), [&](std::exception_ptr e) {
              if (e) error = e;
              if (--active == 0) done.cancel();
            });
          }
          asio::error_code ignored;
          co_await done.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
          if (error) std::rethrow_exception(error);
        }
        for (tcp::socket& socket : sockets) socket.close();
        acceptor.close();
      },
      asio::detached);
  io.run();
  state.SetItemsProcessed(state.iterations() * kConnections * kRoundTrips);
}

void tcp_echo_64k_squall(benchmark::State& s) {
  echo_squall(s, 64 << 10, false);
}
void tcp_echo_64k_asio(benchmark::State& s) {
  echo_asio(s, 64 << 10, false);
}
void tcp_echo_64b_squall(benchmark::State& s) {
  echo_squall(s, 64, false);
}
void tcp_echo_64b_asio(benchmark::State& s) {
  echo_asio(s, 64, false);
}
void tcp_echo_64b_1000conn_squall(benchmark::State& s) {
  many_squall(s);
}
void tcp_echo_64b_1000conn_asio(benchmark::State& s) {
  many_asio(s);
}
void tls_echo_64k_squall(benchmark::State& s) {
  echo_squall(s, 64 << 10, true);
}
void tls_echo_64k_asio(benchmark::State& s) {
  echo_asio(s, 64 << 10, true);
}
void tls_echo_64b_squall(benchmark::State& s) {
  echo_squall(s, 64, true);
}
void tls_echo_64b_asio(benchmark::State& s) {
  echo_asio(s, 64, true);
}

}  // namespace

BENCHMARK(tcp_echo_64k_squall)->Name("tcp_echo_64k/squall")->UseRealTime();
BENCHMARK(tcp_echo_64k_asio)->Name("tcp_echo_64k/asio")->UseRealTime();
BENCHMARK(tcp_echo_64b_squall)->Name("tcp_echo_64b/squall")->UseRealTime();
BENCHMARK(tcp_echo_64b_asio)->Name("tcp_echo_64b/asio")->UseRealTime();
BENCHMARK(tcp_echo_64b_1000conn_squall)->Name("tcp_echo_64b_1000conn/squall")->UseRealTime();
BENCHMARK(tcp_echo_64b_1000conn_asio)->Name("tcp_echo_64b_1000conn/asio")->UseRealTime();
BENCHMARK(tls_echo_64k_squall)->Name("tls_echo_64k/squall")->UseRealTime();
BENCHMARK(tls_echo_64k_asio)->Name("tls_echo_64k/asio")->UseRealTime();
BENCHMARK(tls_echo_64b_squall)->Name("tls_echo_64b/squall")->UseRealTime();
BENCHMARK(tls_echo_64b_asio)->Name("tls_echo_64b/asio")->UseRealTime();

BENCHMARK_MAIN();
