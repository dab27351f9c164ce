// SPDX-License-Identifier: MIT

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <memory>
#include <set>
#include <thread>

#include "cli/bundle_views.hpp"
#include "cli/cache_options.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_paths.hpp"
#include "cli/thread_count.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/trace_loading.hpp"
#include "lib/io/output_file.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/cache/artifact_cache.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/plan/compile_plan.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::cli {

namespace {

// Writes one output file atomically (io::write_output); false after reporting why it could not. The one name a
// trace could share, DIR/manifest.json, is refused up front; modules are named by their content's hash.
bool write_output(const std::filesystem::path& path, const void* data, size_t size) {
  const Status written = io::write_output(path, {static_cast<const uint8_t*>(data), size});
  if (!written) report_output_failure(written.error());
  return static_cast<bool>(written);
}

// The file name suffix of a failed job's source: its stage's GLSL suffix, or .spv for a module.
std::string source_suffix(const compile::CompileJob& job) {
  if (job.language == compile::SourceLanguage::spirv) return ".spv";
  switch (job.stage) {
    case compile::ShaderStage::vertex: return ".vert";
    case compile::ShaderStage::compute: return ".comp";
    case compile::ShaderStage::fragment: break;
  }
  return ".frag";
}

}  // namespace


int run_compile(const CompileOptions& options, const GuestCatalog& guests) {
  if (const int code = refuse_clashing_outputs(
          named_paths("trace", options.traces), {{"-o", options.output}, {"-o", (std::filesystem::path(options.output) / "manifest.json").string()}});
      code != kExitOk)
    return code;
  TerminalSink sink;
  trace::TraceReader reader(guests, trace_reader_options(options.strict, options.max_record_bytes), sink);
  plan::KeyCensus census(reader);
  if (const int code = read_traces(options.traces, options.strict, reader, census, sink); code != kExitOk) return code;
  const size_t unusable_traces = report_unusable_traces(reader);

  const std::unique_ptr<cache::ArtifactCache> artifact_cache = open_artifact_cache(options.cache_dir, options.no_cache, options.cache_url);
  const unsigned threads = compile_threads(options.jobs);
  const auto start = std::chrono::steady_clock::now();
  // No model: no trace could be used, so nothing was drawn.
  plan::CompilePlanResult plan;
  if (const GuestModel* model = reader.model())
    plan = plan::compile_drawn_modules(reader, census, *model, threads, artifact_cache.get());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const cache::CacheStats cache_stats = artifact_cache ? artifact_cache->stats() : cache::CacheStats{};
  report_cache_store_failures(artifact_cache);

  // Modules are stored once by content (the same SPIR-V serves every key that produced it).
  const std::filesystem::path dir = options.output;
  std::error_code ec;
  std::filesystem::create_directories(dir / "modules", ec);
  if (ec) {
    print_error(dir.string() + ": cannot create the output directory: " + ec.message());
    return kExitOutput;
  }
  nlohmann::ordered_json manifest;
  manifest["format"] = "shaderbake-modules/0";
  manifest["toolchain"] = compile::toolchain_fingerprint();
  manifest["modules"] = nlohmann::ordered_json::array();
  manifest["failures"] = nlohmann::ordered_json::array();
  std::set<std::string> written;
  for (const plan::PlannedModule& m : plan.modules) {
    const char* route = m.route == plan::PlannedModule::Route::exact ? "exact" : "fallback";
    if (m.error) {
      print_error(m.error->to_string());
      nlohmann::ordered_json f;
      f["route"] = route;
      f["key"] = m.key_hash.to_hex();
      f["reason"] = m.error->reason;
      f["message"] = m.error->message;
      if (!m.job.source.empty()) {
        const std::filesystem::path source_path = dir / "failed" / (m.key_hash.to_hex() + source_suffix(m.job));
        std::filesystem::create_directories(source_path.parent_path(), ec);
        if (!write_output(source_path, m.job.source.data(), m.job.source.size())) return kExitOutput;
        f["source"] = source_path.lexically_relative(dir).string();
      }
      manifest["failures"].push_back(f);
      continue;
    }
    const auto& words = m.module->spirv;
    const std::string content = KeyHash::of({reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4}).to_hex();
    const std::filesystem::path module_path = dir / "modules" / (content + ".spv");
    if (written.insert(content).second && !write_output(module_path, words.data(), words.size() * 4))
      return kExitOutput;
    nlohmann::ordered_json j;
    j["route"] = route;
    j["key"] = m.key_hash.to_hex();
    j["module"] = module_path.lexically_relative(dir).string();
    j["reflection"] = reflection_json(m.module->reflection);
    manifest["modules"].push_back(j);
  }
  const std::string text = manifest.dump(2) + "\n";
  if (!write_output(dir / "manifest.json", text.data(), text.size())) return kExitOutput;

  nlohmann::ordered_json summary;
  summary["modules_needed"] = plan.modules.size();
  summary["unique_sources"] = plan.unique_sources;
  summary["unique_spirv_modules"] = written.size();
  summary["failures"] = plan.failures;
  summary["threads"] = threads;
  summary["seconds"] = seconds;
  summary["output"] = dir.string();
  summary["cache"] = cache_summary(artifact_cache);
  if (options.json) {
    print_json(summary);
  } else {
    std::printf("%zu modules needed (%llu unique sources) -> %zu unique SPIR-V modules in %s, %llu failures, "
                "%.2f s on %u threads\n",
                plan.modules.size(), static_cast<unsigned long long>(plan.unique_sources), written.size(),
                escape_controls(dir.string()).c_str(), static_cast<unsigned long long>(plan.failures), seconds, threads);
    if (artifact_cache) {
      std::printf("cache %s: %llu hits, %llu misses", escape_controls(artifact_cache->directory().string()).c_str(),
                  static_cast<unsigned long long>(cache_stats.hits), static_cast<unsigned long long>(cache_stats.misses));
      if (cache_stats.corrupt_discarded)
        std::printf(" (%llu corrupt entries discarded)", static_cast<unsigned long long>(cache_stats.corrupt_discarded));
      std::printf("\n");
    }
  }
  return plan.failures || unusable_traces ? kExitFailures : kExitOk;
}

}  // namespace shaderbake::cli
