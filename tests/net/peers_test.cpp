// The real-peer helpers every integration test relies on: they start, answer and stop.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "support/process.h"

namespace squall::test {
namespace {

// One blocking HTTP/1.0 exchange with 127.0.0.1:port; the whole reply.
std::string http10_get(uint16_t port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  EXPECT_EQ(write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) reply.append(buf, static_cast<size_t>(n));
  close(fd);
  return reply;
}

TEST(Peers, NginxServesItsConfigurationAndStops) {
  TempDir dir;
  uint16_t port = free_port();
  Process nginx = start_nginx(dir, "location = /abc { return 200 'abc'; }", port);
  dir.write("hello.txt", "hello\n");
  std::string reply = http10_get(port, "/abc");
  EXPECT_EQ(reply.substr(0, 15), "HTTP/1.1 200 OK");
  EXPECT_EQ(reply.substr(reply.size() - 3), "abc");
  reply = http10_get(port, "/hello.txt");
  EXPECT_EQ(reply.substr(reply.size() - 6), "hello\n");
  int status = nginx.stop();
  EXPECT_TRUE(WIFEXITED(status) || WIFSIGNALED(status));
  EXPECT_FALSE(nginx.running());
}

TEST(Peers, HttpbinAnswers) {
  uint16_t port = 0;
  Process httpbin = start_httpbin(port);
  std::string reply = http10_get(port, "/status/418");
  EXPECT_NE(reply.find(" 418 "), std::string::npos) << reply;
}

TEST(Peers, SelfSignedCertificateNamesTheHost) {
  TempDir dir;
  CertFiles files = make_self_signed(dir, "server", "localhost");
  EXPECT_GT(std::filesystem::file_size(files.cert), 0u);
  EXPECT_GT(std::filesystem::file_size(files.key), 0u);
  Process x509 = Process::start(
      {"openssl", "x509", "-in", files.cert.string(), "-noout", "-ext", "subjectAltName"});
  ASSERT_NE(x509.wait(std::chrono::seconds(10)), -1);
  EXPECT_NE(x509.output().find("DNS:localhost"), std::string::npos) << x509.output();
}

TEST(Peers, StartingAMissingProgramFailsClearly) {
  EXPECT_THROW(Process::start({"squall-no-such-program"}), std::runtime_error);
}

}  // namespace
}  // namespace squall::test
