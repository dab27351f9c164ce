// SPDX-License-Identifier: MIT
// shaderbake build: traces -> keys -> plan -> compile -> bundle; or, when no input changed since a build the
// artifact cache remembers, that build's outputs (cache::BuildOutputs).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <thread>

#include "cli/cache_options.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/trace_loading.hpp"
#include "emitters/nv2a/guest_model.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/cache/artifact_cache.hpp"
#include "lib/cache/build_memo.hpp"
#include "lib/plan/bundle_plan.hpp"
#include "lib/plan/key_census.hpp"

namespace shaderbake::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::string kib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

uint64_t count(const nlohmann::ordered_json& summary, const char* field) { return summary.at(field).get<uint64_t>(); }

// The summary's fields that depend on the inputs alone: the same for every build of the same traces, so a
// memo keeps them.
nlohmann::ordered_json outcome_summary(const plan::BundleBuildResult& result, const plan::KeyCensus& census,
                                       const trace::TraceReader& reader) {
  const bundle::WriteStats& w = result.write;
  nlohmann::ordered_json s;
  s["bundle_bytes"] = w.bundle_bytes;
  s["draws"] = census.counts().draws;
  s["specializations"] = result.specializations;
  s["families"] = result.families;
  s["exact_pipelines"] = result.exact_pipelines;
  s["fallback_pipelines"] = result.fallback_pipelines;
  s["modules"] = w.modules;
  s["unique_sources"] = result.unique_sources;
  s["raw_module_bytes"] = w.raw_module_bytes;
  s["compressed_module_bytes"] = w.compressed_module_bytes;
  s["dictionary_bytes"] = w.dictionary_bytes;
  s["failures"] = result.failures.size();
  s["bad_records"] = reader.bad_records();
  return s;
}

// Prints the summary of a finished build (`outcome` from outcome_summary, whether just made or remembered).
void print_summary(const BuildOptions& options, const nlohmann::ordered_json& outcome, unsigned threads,
                   double seconds, const std::unique_ptr<cache::ArtifactCache>& artifact_cache, const char* memo) {
  nlohmann::ordered_json summary;
  summary["output"] = options.output;
  summary.update(outcome);
  summary["threads"] = threads;
  summary["seconds"] = seconds;
  summary["cache"] = cache_summary(artifact_cache);
  summary["build_memo"] = memo;
  if (options.json) {
    std::printf("%s\n", summary.dump(2).c_str());
    return;
  }
  std::printf("%s: %s, %llu draws -> %llu exact keys, %llu families, %llu exact + %llu fallback pipelines\n",
              options.output.c_str(), kib(count(summary, "bundle_bytes")).c_str(),
              static_cast<unsigned long long>(count(summary, "draws")),
              static_cast<unsigned long long>(count(summary, "specializations")),
              static_cast<unsigned long long>(count(summary, "families")),
              static_cast<unsigned long long>(count(summary, "exact_pipelines")),
              static_cast<unsigned long long>(count(summary, "fallback_pipelines")));
  std::printf("modules: %llu (SPIR-V %s -> %s + %s dictionary), %llu failures, %.2f s on %u threads\n",
              static_cast<unsigned long long>(count(summary, "modules")), kib(count(summary, "raw_module_bytes")).c_str(),
              kib(count(summary, "compressed_module_bytes")).c_str(), kib(count(summary, "dictionary_bytes")).c_str(),
              static_cast<unsigned long long>(count(summary, "failures")), seconds, threads);
  if (!artifact_cache) return;
  if (std::string_view(memo) == "hit") {
    std::printf("cache %s: no input changed since a build it remembers: outputs copied from it\n",
                artifact_cache->directory().string().c_str());
    return;
  }
  const cache::CacheStats stats = artifact_cache->stats();
  std::printf("cache %s: %llu hits, %llu misses\n", artifact_cache->directory().string().c_str(),
              static_cast<unsigned long long>(stats.hits), static_cast<unsigned long long>(stats.misses));
}

// True when `path` is a regular file holding exactly `bytes`.
bool holds_exactly(const std::string& path, std::span<const uint8_t> bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  bool same = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) == bytes.size();
  std::vector<uint8_t> chunk(size_t{1} << 20);
  for (size_t at = 0; same && at < bytes.size();) {
    const ssize_t n = ::read(fd, chunk.data(), std::min(chunk.size(), bytes.size() - at));
    if (n < 0 && errno == EINTR) continue;
    same = n > 0 && std::memcmp(chunk.data(), bytes.data() + at, static_cast<size_t>(n)) == 0;
    at += n > 0 ? static_cast<size_t>(n) : 0;
  }
  ::close(fd);
  return same;
}

// Writes an output file. A file that already holds these bytes is left as it is, its modification time set
// to now (so that make-like tools see it as made by this run).
Status write_output(const std::string& path, std::span<const uint8_t> bytes, bool may_exist_already) {
  if (may_exist_already && holds_exactly(path, bytes) && ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) == 0)
    return ok_status();
  return bundle::write_file_atomic(path, bytes);
}

std::span<const uint8_t> as_bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// The memo identity of this build, or nullopt when it cannot have one (no build ID, a trace that is not a
// regular file): then it runs every stage, as with --no-build-memo.
std::optional<cache::BuildInputs> describe_inputs(const BuildOptions& options) {
  std::optional<std::string> build_id = cache::executable_build_id();
  if (!build_id) return std::nullopt;
  cache::BuildInputs inputs;
  inputs.executable_build_id = *build_id;
  inputs.compressor_version = bundle::compressor_version();
  inputs.settings = options.strict ? "strict" : "";
  for (const std::string& path : options.traces) {
    Result<cache::TraceFileDigest> digest = cache::digest_trace_file(path);
    if (!digest) return std::nullopt;
    inputs.traces.push_back(std::move(*digest));
  }
  return inputs;
}

// True when every trace still has the digest it had before the build read it.
bool traces_unchanged(const cache::BuildInputs& before) {
  for (const cache::TraceFileDigest& t : before.traces) {
    Result<cache::TraceFileDigest> now = cache::digest_trace_file(t.path);
    if (!now || !(*now == t)) return false;
  }
  return true;
}

// A remembered build: its diagnostics, outputs and exit code, as the build that made them had them.
int replay(const BuildOptions& options, const cache::BuildOutputs& memo, unsigned threads, Clock::time_point start,
           const std::unique_ptr<cache::ArtifactCache>& artifact_cache) {
  std::fputs(memo.diagnostics.c_str(), stderr);
  for (const auto& [path, bytes] : {std::pair{options.output, std::span<const uint8_t>(memo.bundle)},
                                    std::pair{options.report, as_bytes(memo.report_json)}}) {
    if (path.empty()) continue;
    if (const Status s = write_output(path, bytes, true); !s) {
      std::fprintf(stderr, "error: %s\n", s.error().to_string().c_str());
      return kExitOutput;
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  print_summary(options, nlohmann::ordered_json::parse(memo.summary_json), threads, seconds, artifact_cache, "hit");
  return memo.exit_code;
}

}  // namespace

int run_build(const BuildOptions& options) {
  const auto start = Clock::now();
  const unsigned threads = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::unique_ptr<cache::ArtifactCache> artifact_cache = open_artifact_cache(options.cache_dir, options.no_cache);

  std::optional<cache::BuildInputs> inputs;
  std::optional<cache::ArtifactIdentity> memo_id;
  if (artifact_cache && !options.no_build_memo && (inputs = describe_inputs(options))) {
    memo_id = cache::memo_identity(*artifact_cache, *inputs);
    if (std::optional<std::vector<uint8_t>> blob = artifact_cache->load_blob(*memo_id)) {
      if (Result<cache::BuildOutputs> memo = cache::decode_build_outputs(*blob))
        return replay(options, *memo, threads, start, artifact_cache);
    }
  }

  TerminalSink sink;
  nv2a::Nv2aGuestModel model;
  trace::TraceReader reader(model, trace_reader_options(options.strict), sink);
  plan::KeyCensus census(reader);
  if (const int code = read_traces(options.traces, options.strict, reader, census, sink); code != kExitOk) return code;
  if (census.counts().draws == 0) {
    std::fprintf(stderr, "error: the traces hold no usable draw: nothing to build (see the warnings above)\n");
    return kExitBadInput;
  }

  plan::BundleBuildOptions build;
  build.threads = threads;
  build.cache = artifact_cache.get();
  build.write.threads = build.threads;
  std::optional<CacheCompressionMemo> compression_memo;
  if (artifact_cache) {
    compression_memo.emplace(*artifact_cache);
    build.write.memo = &*compression_memo;
  }
  if (::isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "compiling on %u threads...\n", build.threads);
  auto result = plan::build_bundle(reader, census, model, build);
  if (!result) {
    std::fprintf(stderr, "error: %s\n", result.error().to_string().c_str());
    return result.error().kind == ErrorKind::toolchain ? kExitToolchain : kExitFailures;
  }
  for (const plan::BuildFailure& f : result->failures) sink.print_line("error: " + f.error.to_string());

  cache::BuildOutputs outputs;
  outputs.exit_code = result->failures.empty() ? kExitOk : kExitFailures;
  outputs.report_json = nlohmann::ordered_json::parse(result->report_json).dump(2) + "\n";
  outputs.summary_json = outcome_summary(*result, census, reader).dump();
  for (const auto& [path, bytes] : {std::pair{options.output, std::span<const uint8_t>(result->bytes)},
                                    std::pair{options.report, as_bytes(outputs.report_json)}}) {
    if (path.empty()) continue;
    if (const Status s = write_output(path, bytes, false); !s) {
      std::fprintf(stderr, "error: %s\n", s.error().to_string().c_str());
      return kExitOutput;
    }
  }
  outputs.diagnostics = sink.transcript();
  outputs.bundle = std::move(result->bytes);
  const char* memo_state = "off";
  if (memo_id) {
    memo_state = "miss";
    // Only saves time: a memo that cannot be stored costs the next build its shortcut.
    if (traces_unchanged(*inputs))
      (void)artifact_cache->store_blob(*memo_id, cache::encode_build_outputs(outputs));
  }
  report_cache_store_failures(artifact_cache);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  print_summary(options, nlohmann::ordered_json::parse(outputs.summary_json), threads, seconds, artifact_cache,
                memo_state);
  return outputs.exit_code;
}

}  // namespace shaderbake::cli
