// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "cli/command_output.hpp"
#include "lib/core/diagnostics.hpp"

namespace shaderbake::cli {

// Prints diagnostics to stderr as "warning: FILE:LINE:COL: message (at /pointer)". After `per_reason_limit`
// messages of one reason it stays quiet about that reason; print_suppressed() says how many were held back.
// With `keep_transcript`, every line it prints is also kept in transcript(), for a command that must print the
// same lines again later (build's memo).
class TerminalSink final : public DiagnosticSink {
 public:
  explicit TerminalSink(uint64_t per_reason_limit = 10, bool keep_transcript = false)
      : limit_(per_reason_limit), keep_transcript_(keep_transcript) {}

  void report(Severity severity, const Error& error) override {
    std::lock_guard lock(mutex_);
    uint64_t& count = counts_[error.reason];
    if (++count > limit_ && severity != Severity::error) return;
    const char* prefix = severity == Severity::error ? "error" : severity == Severity::warning ? "warning" : "note";
    emit(std::string(prefix) + ": " + error.to_string() + " [" + error.reason + "]");
  }

  void print_suppressed() {
    std::lock_guard lock(mutex_);
    for (const auto& [reason, count] : counts_)
      if (count > limit_)
        emit("note: " + std::to_string(count - limit_) + " more [" + reason + "] diagnostics not shown");
  }

  // Prints one line of the command's own (an error about an output, a failure) the same way.
  void print_line(std::string_view line) {
    std::lock_guard lock(mutex_);
    emit(line);
  }

  std::string transcript() const {
    std::lock_guard lock(mutex_);
    return transcript_;
  }

 private:
  // mutex_ held. Lines are escaped (command_output.hpp's escape_controls): messages quote trace data.
  void emit(std::string_view line) {
    print_stderr_line(line, line.substr(0, 7) == "error: ");
    if (keep_transcript_) transcript_ += escape_controls(line) + "\n";
  }

  uint64_t limit_;
  bool keep_transcript_;
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> counts_;
  std::string transcript_;  // guarded by mutex_
};

}  // namespace shaderbake::cli
