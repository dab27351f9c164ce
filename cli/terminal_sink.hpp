// SPDX-License-Identifier: MIT
#pragma once

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

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
  // mutex_ held. Messages quote trace data: control characters (C0 and DEL bytes, and the C1 controls
  // U+0080-U+009F, which are 0xC2 0x80-0x9F in UTF-8: a NUL, a newline, a terminal escape) are written as
  // \xNN per byte, so that one record prints as one whole line and cannot drive the terminal.
  void emit(std::string_view line) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(line.size() + 1);
    auto escape = [&out](unsigned char byte) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    };
    for (size_t i = 0; i < line.size(); ++i) {
      const auto byte = static_cast<unsigned char>(line[i]);
      const auto next = i + 1 < line.size() ? static_cast<unsigned char>(line[i + 1]) : 0;
      if (byte == 0xC2 && next >= 0x80 && next <= 0x9F) {
        escape(byte);
        escape(next);
        ++i;
      } else if (byte < 0x20 || byte == 0x7F) {
        escape(byte);
      } else {
        out.push_back(static_cast<char>(byte));
      }
    }
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stderr);
    if (keep_transcript_) transcript_ += out;
  }

  uint64_t limit_;
  bool keep_transcript_;
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> counts_;
  std::string transcript_;  // guarded by mutex_
};

}  // namespace shaderbake::cli
