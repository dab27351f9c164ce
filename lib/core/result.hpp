// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace shaderbake {

// Where a problem is: a file position (1-based line and column; 0 = unknown) and, inside a JSON record,
// the RFC 6901 pointer of the field. Any part may be empty.
struct SourceLocation {
  std::string file;
  uint64_t line = 0;
  uint64_t column = 0;
  std::string json_pointer;

  // "file:line:col (at /program/rgb_inputs/3)", omitting the unknown parts.
  std::string to_string() const;
};

// Error classes map onto the CLI's documented exit codes (README, Commands).
enum class ErrorKind {
  bad_input,  // the data is wrong: a trace record, a vector, a bundle
  io,         // a file could not be read or written
  toolchain,  // glslang / SPIRV-Tools / the Vulkan device failed
  internal,   // a broken invariant of shaderbake itself
};

// An error a library function returns instead of printing or exiting. `reason` is a short, stable
// identifier (e.g. "malformed_json") that reports count by; `message` is for people.
struct Error {
  ErrorKind kind = ErrorKind::bad_input;
  std::string reason;
  std::string message;
  SourceLocation where;

  // "file:line:col: message (at /pointer)"
  std::string to_string() const;
};

// A value or an Error. Deliberately small: the library's one result type.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const& { return std::get<1>(state_); }
  Error&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace shaderbake
