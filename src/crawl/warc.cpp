// WARC 1.1 records, each its own gzip member, appended to one file.
#include "squall/crawl/warc.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <random>
#include <utility>

#include "squall/core/error.h"

namespace squall {

namespace {

// A version 4 UUID as a URN in angle brackets, as WARC-Record-ID wants it.
std::string record_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~uint64_t{0xf000}) | 0x4000;                    // version 4
  lo = (lo & ~(uint64_t{0xc} << 60)) | (uint64_t{8} << 60);  // RFC 4122 variant
  char out[64];
  std::snprintf(out, sizeof out, "<urn:uuid:%08x-%04x-%04x-%04x-%012llx>",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return out;
}

void field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append(": ").append(value).append("\r\n");
}

// `bytes` as one gzip member appended to `out`.
void gzip_member(std::string_view bytes, std::string& out) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error(ErrorKind::System, "zlib: cannot start a gzip member");
  out.resize(deflateBound(&z, bytes.size()));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw Error(ErrorKind::System, "zlib: gzip member did not finish");
}

}  // namespace

std::string warc_date(std::chrono::system_clock::time_point time) {
  std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

namespace {

// "sha1:" and the RFC 4648 base 32 of a SHA-1 digest.
std::string base32_digest(const unsigned char* digest, unsigned int length) {
  // 20 bytes are exactly 32 characters, no padding.
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out = "sha1:";
  uint64_t buffer = 0;
  int bits = 0;
  for (unsigned i = 0; i < length; ++i) {
    buffer = (buffer << 8) | digest[i];
    bits += 8;
    while (bits >= 5) {
      out.push_back(kAlphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (5 - bits)) & 31]);
  return out;
}

}  // namespace

std::string warc_sha1(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha1(), nullptr);
  return base32_digest(digest, length);
}

namespace detail {

// A SHA-1 taken over bytes as they come.
class Sha1 {
 public:
  Sha1() : ctx_(EVP_MD_CTX_new()) { restart(); }
  ~Sha1() { EVP_MD_CTX_free(ctx_); }
  Sha1(const Sha1&) = delete;
  Sha1& operator=(const Sha1&) = delete;
  void restart() { EVP_DigestInit_ex(ctx_, EVP_sha1(), nullptr); }
  void update(std::string_view bytes) { EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()); }
  std::string finish() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx_, digest, &length);
    return base32_digest(digest, length);
  }

 private:
  EVP_MD_CTX* ctx_;
};

}  // namespace detail

WarcRecorder::WarcRecorder(size_t max_response_bytes)
    : max_response_bytes_(max_response_bytes), digest_(std::make_unique<detail::Sha1>()) {}

WarcRecorder::~WarcRecorder() = default;

void WarcRecorder::begin(const Url& url, const Connection& connection) {
  WarcExchange& x = current_.emplace();
  x.url = url.dedup_key();
  if (auto address = connection.address()) x.ip_address = address->host();
  x.date = std::chrono::system_clock::now();
  digest_->restart();
}

void WarcRecorder::request_head(std::string_view head) {
  sent(head);
}

void WarcRecorder::sent(std::string_view bytes) {
  if (current_) current_->request.append(bytes);
}

void WarcRecorder::response_head(std::string_view head) {
  received(head);
}

void WarcRecorder::received(std::string_view bytes) {
  if (!current_) return;
  std::string& r = current_->response;
  size_t room = max_response_bytes_ - std::min(r.size(), max_response_bytes_);
  if (bytes.size() > room) current_->truncated = "length";
  r.append(bytes.substr(0, room));
}

void WarcRecorder::payload(std::string_view bytes) {
  if (current_) digest_->update(bytes);
}

void WarcRecorder::end(bool complete) {
  if (!current_) return;
  WarcExchange x = std::move(*current_);
  current_.reset();
  if (x.response.empty()) return;  // nothing came back: no response to archive
  if (!complete && x.truncated.empty()) x.truncated = "disconnect";
  std::string digest = digest_->finish();
  if (x.truncated.empty()) x.payload_digest = std::move(digest);
  exchanges_.push_back(std::move(x));
}

WarcWriter WarcWriter::open(const std::filesystem::path& path, WarcOptions options) {
  WarcWriter w;
  w.path_ = path;
  w.options_ = std::move(options);
  w.file_ = std::fopen(path.c_str(), "ab");
  if (!w.file_)
    throw Error(ErrorKind::System,
                "cannot open WARC file " + path.string() + ": " + std::strerror(errno));
  std::fseek(w.file_, 0, SEEK_END);
  long size = std::ftell(w.file_);
  w.offset_ = size > 0 ? static_cast<uint64_t>(size) : 0;
  if (w.offset_ == 0) {
    std::string info = "software: " + w.options_.software +
                       "\r\nformat: WARC File Format 1.1\r\n"
                       "conformsTo: http://iipc.github.io/warc-specifications/specifications/"
                       "warc-format/warc-1.1/\r\n";
    if (!w.options_.description.empty()) info += "description: " + w.options_.description + "\r\n";
    w.write_record("warcinfo", {}, "application/warc-fields", info, Clock::now(), {});
  }
  return w;
}

WarcWriter::WarcWriter(WarcWriter&& other) noexcept
    : path_(std::move(other.path_)),
      options_(std::move(other.options_)),
      file_(std::exchange(other.file_, nullptr)),
      offset_(other.offset_),
      records_(other.records_) {}

WarcWriter& WarcWriter::operator=(WarcWriter&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    options_ = std::move(other.options_);
    file_ = std::exchange(other.file_, nullptr);
    offset_ = other.offset_;
    records_ = other.records_;
  }
  return *this;
}

WarcWriter::~WarcWriter() {
  close();
}

void WarcWriter::close() noexcept {
  if (file_) std::fclose(std::exchange(file_, nullptr));
}

std::string WarcWriter::write_exchange(const WarcExchange& x) {
  std::string id =
      write_response(x.url, x.response, x.date, x.ip_address, x.payload_digest, x.truncated);
  write_request(x.url, x.request, x.date, id);
  return id;
}

std::string WarcWriter::write_response(std::string_view url, std::string_view response,
                                       Clock::time_point date, std::string_view ip_address,
                                       std::string_view payload_digest,
                                       std::string_view truncated) {
  return write_record(
      "response", url, "application/http;msgtype=response", response, date,
      {.ip_address = ip_address, .payload_digest = payload_digest, .truncated = truncated});
}

std::string WarcWriter::write_request(std::string_view url, std::string_view request,
                                      Clock::time_point date, std::string_view concurrent_to) {
  return write_record("request", url, "application/http;msgtype=request", request, date,
                      {.concurrent_to = concurrent_to});
}

std::string WarcWriter::write_record(std::string_view type, std::string_view url,
                                     std::string_view content_type, std::string_view block,
                                     Clock::time_point date, const Fields& f) {
  std::string id = record_id();
  std::string& r = scratch_;
  r.clear();
  r.append("WARC/1.1\r\n");
  field(r, "WARC-Type", type);
  field(r, "WARC-Record-ID", id);
  field(r, "WARC-Date", warc_date(date));
  if (!url.empty()) field(r, "WARC-Target-URI", url);
  if (type == "warcinfo") field(r, "WARC-Filename", path_.filename().string());
  if (!f.ip_address.empty()) field(r, "WARC-IP-Address", f.ip_address);
  if (!f.concurrent_to.empty()) field(r, "WARC-Concurrent-To", f.concurrent_to);
  field(r, "Content-Type", content_type);
  field(r, "WARC-Block-Digest", warc_sha1(block));
  if (!f.payload_digest.empty()) field(r, "WARC-Payload-Digest", f.payload_digest);
  if (!f.truncated.empty()) field(r, "WARC-Truncated", f.truncated);
  field(r, "Content-Length", std::to_string(block.size()));
  r.append("\r\n").append(block).append("\r\n\r\n");
  if (options_.gzip) {
    gzip_member(r, packed_);
    append(packed_);
  } else {
    append(r);
  }
  ++records_;
  return id;
}

void WarcWriter::append(std::string_view bytes) {
  if (!file_) throw Error(ErrorKind::InvalidState, "WARC writer is closed");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw Error(ErrorKind::System,
                "cannot write WARC file " + path_.string() + ": " + std::strerror(errno));
  offset_ += bytes.size();
}

void WarcWriter::flush() {
  if (file_ && std::fflush(file_) != 0)
    throw Error(ErrorKind::System,
                "cannot write WARC file " + path_.string() + ": " + std::strerror(errno));
}

}  // namespace squall
