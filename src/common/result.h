// Result<T>: a value or an Error that says what failed (operation, errno, peer) — the tool's own errors as
// values.
#pragma once
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace dd {

// What kind of failure an Error is, so callers decide by kind and never by searching the message.
enum class ErrorKind {
  other,        // none of the below
  timeout,      // a deadline passed
  refused,      // the peer refused the connection
  closed,       // the peer closed or reset the connection
  protocol,     // the peer sent something we cannot read (garbage, wrong magic, too large)
  auth,         // the peer failed or refused authentication
  not_found,    // a key, file or library that is not there
  io,           // a local system call failed (see err)
  crashed,      // a process or library died (signal, abort)
  invalid,      // bad input from the user (flags, env, files)
  unavailable,  // a needed component is missing (no GPU, no NCCL, no Gloo)
};

struct Error {
  std::string what;  // human sentence: "connect to 198.18.0.2:29500"
  int err = 0;       // errno where one applies, else 0
  ErrorKind kind = ErrorKind::other;
  std::string peer;  // who did not answer or misbehaved: "198.18.0.2:29500", "rank 3"; "" when local
  int rank = -1;     // the rank involved, -1 when none
  std::string message() const { return err ? what + ": " + std::strerror(err) : what; }

  // The kind a failed system call's errno means: refused, timeout, closed, not_found, else io.
  static ErrorKind kind_of_errno(int e) {
    switch (e) {
      case ECONNREFUSED:
        return ErrorKind::refused;
      case ETIMEDOUT:
        return ErrorKind::timeout;
      case ECONNRESET:
      case EPIPE:
      case ECONNABORTED:
        return ErrorKind::closed;
      case ENOENT:
        return ErrorKind::not_found;
      default:
        return ErrorKind::io;
    }
  }
  // Any kind, with the peer that misbehaved and the errno where one applies.
  static Error make(ErrorKind kind, std::string what, std::string peer = "", int err = 0) {
    Error e{std::move(what), err, kind, std::move(peer)};
    return e;
  }
  // A system call failed just now: errno and its kind are taken from errno.
  static Error from_errno(std::string what, std::string peer = "") {
    int e = errno;
    return make(kind_of_errno(e), std::move(what), std::move(peer), e);
  }
  // A system call failed with errno e (saved earlier).
  static Error sys(int e, std::string what, std::string peer = "") {
    return make(kind_of_errno(e), std::move(what), std::move(peer), e);
  }
  // A deadline passed while waiting on peer (or on the keys named in what).
  static Error timeout(std::string what, std::string peer = "", int err = ETIMEDOUT) {
    return make(ErrorKind::timeout, std::move(what), std::move(peer), err);
  }
  // The peer sent something we cannot read (garbage, wrong magic, an unexpected answer).
  static Error protocol(std::string what, std::string peer = "", int err = 0) {
    return make(ErrorKind::protocol, std::move(what), std::move(peer), err);
  }
  // The peer closed or reset the connection.
  static Error closed(std::string what, std::string peer = "", int err = ECONNRESET) {
    return make(ErrorKind::closed, std::move(what), std::move(peer), err);
  }
  // The peer failed or refused authentication.
  static Error auth(std::string what, std::string peer = "", int err = 0) {
    return make(ErrorKind::auth, std::move(what), std::move(peer), err);
  }
  static Error invalid(std::string what) { return make(ErrorKind::invalid, std::move(what)); }
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }
  T value_or(T other) const { return ok() ? value() : std::move(other); }

 private:
  std::variant<T, Error> v_;
};

// Status: Result without a value.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Status(Ok{}); }

}  // namespace dd
