// The root of every exception squall throws, and the one table of error kinds.
//
// Coroutine APIs throw typed exceptions derived from squall::Error. Each carries a kind from
// SQUALL_ERROR_KINDS, whose name prefixes every message ("timeout: ..."), so messages are
// consistent and tests can match on the kind rather than the wording.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace squall {

// X(enumerator, name, what it means)
#define SQUALL_ERROR_KINDS(X)                                                          \
  X(Timeout, "timeout", "an operation did not finish within its time limit")           \
  X(Cancelled, "cancelled", "the task was killed while it waited")                     \
  X(WouldBlockForever, "would block forever", "nothing left that could wake the task") \
  X(QueueFull, "queue full", "put_nowait on a queue at its maxsize")                   \
  X(QueueEmpty, "queue empty", "get_nowait on an empty queue")                         \
  X(InvalidState, "invalid state", "an API was used in a state that forbids it")       \
  X(InvalidArgument, "invalid argument", "an argument is out of range or malformed")   \
  X(System, "system", "an operating-system call failed")                               \
  X(Resolve, "resolve", "a host name could not be resolved")                           \
  X(Connect, "connect", "a connection could not be established")                       \
  X(Tls, "tls", "the TLS handshake or a TLS record failed")                            \
  X(Closed, "closed", "the stream or connection is closed")                            \
  X(Protocol, "protocol", "the peer sent bytes that break the protocol")               \
  X(TooLarge, "too large", "a size limit was exceeded")

enum class ErrorKind {
#define SQUALL_X(id, name, doc) id,
  SQUALL_ERROR_KINDS(SQUALL_X)
#undef SQUALL_X
};

// The kind's short name, as it prefixes messages: "timeout", "queue full", ...
std::string_view error_kind_name(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
 public:
  // The message becomes "<kind name>: <detail>".
  Error(ErrorKind kind, std::string_view detail);
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// The kinds that code catches by type get a class of their own.
#define SQUALL_DEFINE_ERROR(Class, Kind)                                        \
  class Class : public Error {                                                  \
   public:                                                                      \
    explicit Class(std::string_view detail) : Error(ErrorKind::Kind, detail) {} \
  };

SQUALL_DEFINE_ERROR(TimeoutError, Timeout)
SQUALL_DEFINE_ERROR(CancelledError, Cancelled)
SQUALL_DEFINE_ERROR(WouldBlockForeverError, WouldBlockForever)
SQUALL_DEFINE_ERROR(QueueFullError, QueueFull)
SQUALL_DEFINE_ERROR(QueueEmptyError, QueueEmpty)
SQUALL_DEFINE_ERROR(InvalidStateError, InvalidState)
SQUALL_DEFINE_ERROR(InvalidArgumentError, InvalidArgument)

// An operating-system call failed; the message names the call and strerror(errno).
class SystemError : public Error {
 public:
  SystemError(std::string_view call, int error_number);
  int error_number() const noexcept { return errno_; }

 private:
  int errno_;
};

// What a caught exception says, for a log line: what() of a std::exception, or a phrase saying
// it was none. Empty for a null pointer.
std::string exception_message(const std::exception_ptr& error);

}  // namespace squall
