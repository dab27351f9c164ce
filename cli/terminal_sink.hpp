// SPDX-License-Identifier: MIT
#pragma once

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "lib/core/diagnostics.hpp"

namespace shaderbake::cli {

// Prints diagnostics to stderr as "warning: FILE:LINE:COL: message (at /pointer)". After `per_reason_limit`
// messages of one reason it stays quiet about that reason; print_suppressed() says how many were held back.
class TerminalSink final : public DiagnosticSink {
 public:
  explicit TerminalSink(uint64_t per_reason_limit = 10) : limit_(per_reason_limit) {}

  void report(Severity severity, const Error& error) override {
    std::lock_guard lock(mutex_);
    uint64_t& count = counts_[error.reason];
    if (++count > limit_ && severity != Severity::error) return;
    const char* prefix = severity == Severity::error ? "error" : severity == Severity::warning ? "warning" : "note";
    std::fprintf(stderr, "%s: %s [%s]\n", prefix, error.to_string().c_str(), error.reason.c_str());
  }

  void print_suppressed() const {
    std::lock_guard lock(mutex_);
    for (const auto& [reason, count] : counts_)
      if (count > limit_)
        std::fprintf(stderr, "note: %llu more [%s] diagnostics not shown\n",
                     static_cast<unsigned long long>(count - limit_), reason.c_str());
  }

 private:
  uint64_t limit_;
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> counts_;
};

}  // namespace shaderbake::cli
