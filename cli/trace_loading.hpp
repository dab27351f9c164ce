// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

#include "cli/terminal_sink.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::cli {

// Reader options every trace-reading command shares: --strict, and a progress line on a terminal only
// (pipes and CI logs get none).
// `max_record_bytes` 0 keeps the reader's default.
trace::ReaderOptions trace_reader_options(bool strict, uint64_t max_record_bytes);

// Reads every trace into `consumer`. Returns kExitOk, or kExitBadInput when --strict stopped at a bad
// record (already reported through the reader's sink).
int read_traces(const std::vector<std::string>& paths, bool strict, trace::TraceReader& reader,
                trace::DrawConsumer& consumer, TerminalSink& sink);

// Names on stderr (an error each) the traces that could not be used as a whole (no capture record first,
// unreadable, a broken document) and returns how many: a command that read any exits 1.
size_t report_unusable_traces(const trace::TraceReader& reader);

}  // namespace shaderbake::cli
