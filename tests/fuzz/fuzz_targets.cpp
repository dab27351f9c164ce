// SPDX-License-Identifier: MIT
#include "tests/fuzz/fuzz_targets.hpp"

#include <string>
#include <string_view>

#include "emitters/nv2a/guest_model.hpp"
#include "emitters/nv2a/oracle.hpp"
#include "emitters/nv2a/vectors.hpp"
#include "lib/core/diagnostics.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::fuzz {

namespace {

// Keeps nothing: the fuzzers only care that reporting works.
class NullSink final : public DiagnosticSink {
 public:
  void report(Severity, const Error& error) override { (void)error.to_string(); }
};

}  // namespace

void trace_reader(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const bool document_form = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  NullSink sink;
  nv2a::Nv2aGuestModel model;
  trace::ReaderOptions options;
  options.memo_limit_bytes = 1 << 16;  // small, so the fuzzer also walks the past-the-limit path
  trace::TraceReader reader(model, options, sink);
  plan::KeyCensus census(reader);
  (void)reader.read_text("fuzz.jsonl", text, document_form, census);
  (void)census.counts();
}

void vector_reader(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = nv2a::parse_vector_text("fuzz.json", text);
  if (!file) return;
  for (const nv2a::VectorCase& c : file->cases) (void)nv2a::evaluate(c.program, c.inputs);
}

}  // namespace shaderbake::fuzz
