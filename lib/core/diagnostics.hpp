// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

#include "lib/core/result.hpp"

namespace shaderbake {

enum class Severity { note, warning, error };

// Where the library sends what it would otherwise print. The library never writes to a terminal; the CLI
// (or a test) decides. Implementations must be callable from any thread the caller hands work to.
class DiagnosticSink {
 public:
  virtual ~DiagnosticSink() = default;
  virtual void report(Severity severity, const Error& error) = 0;
};

// Keeps every diagnostic: for tests and for callers that print later.
class CollectingSink final : public DiagnosticSink {
 public:
  struct Entry {
    Severity severity;
    Error error;
  };
  void report(Severity severity, const Error& error) override { entries.push_back({severity, error}); }
  std::vector<Entry> entries;
};

}  // namespace shaderbake
