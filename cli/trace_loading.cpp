// SPDX-License-Identifier: MIT
#include "cli/trace_loading.hpp"

#include <unistd.h>

#include <cstdio>

#include "cli/command_output.hpp"
#include "cli/exit_codes.hpp"

namespace shaderbake::cli {

trace::ReaderOptions trace_reader_options(bool strict, uint64_t max_record_bytes) {
  trace::ReaderOptions options;
  options.strict = strict;
  if (max_record_bytes != 0) options.max_record_bytes = max_record_bytes;
  if (::isatty(STDERR_FILENO) != 0)
    options.progress = [](const std::string& path, uint64_t done, uint64_t total) {
      std::fprintf(stderr, "\rreading %s: %3.0f%% (%llu / %llu MB)%s", escape_controls(path).c_str(), total ? 100.0 * done / total : 100.0,
                   static_cast<unsigned long long>(done >> 20), static_cast<unsigned long long>(total >> 20),
                   done >= total ? "\n" : "");
    };
  return options;
}

int read_traces(const std::vector<std::string>& paths, bool strict, trace::TraceReader& reader,
                trace::DrawConsumer& consumer, TerminalSink& sink) {
  for (const std::string& path : paths) {
    const Status s = reader.read_file(path, consumer);
    if (!s && strict) {
      sink.print_suppressed();
      return kExitBadInput;
    }
  }
  sink.print_suppressed();
  return kExitOk;
}

size_t report_unusable_traces(const trace::TraceReader& reader) {
  size_t unusable = 0;
  for (const trace::FileSummary& file : reader.files())
    if (!file.readable) {
      ++unusable;
      print_error(file.path + ": the trace could not be used (see above); its draws are left out");
    }
  return unusable;
}

}  // namespace shaderbake::cli
