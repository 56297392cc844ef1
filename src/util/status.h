// Errors are values: Status says what went wrong, Result<T> carries a value or a Status.
// No exceptions on the hot path; only the CLI layer turns a Status into an exit code.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace memstand {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // the user's input (flag, target, template) is wrong: exit 2
    kIoError,          // a system call or a connection failed
    kProtocol,         // a peer sent something we cannot parse
    kServer,           // a server answered with an error reply
    kNotFound,         // a binary, file or key is missing
    kTimeout,          // a bounded wait ran out
    kFailed,           // an invariant or a check failed
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Protocol(std::string msg) { return Status(Code::kProtocol, std::move(msg)); }
  static Status Server(std::string msg) { return Status(Code::kServer, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Timeout(std::string msg) { return Status(Code::kTimeout, std::move(msg)); }
  static Status Failed(std::string msg) { return Status(Code::kFailed, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  /// Returns a copy whose message is `context: message`.
  Status WithContext(const std::string& context) const {
    return Status(code_, context + ": " + message_);
  }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

/// A value of T or a non-OK Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}                  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace memstand
