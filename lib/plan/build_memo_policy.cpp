// SPDX-License-Identifier: MIT
#include "lib/plan/build_memo_policy.hpp"

#include <iterator>
#include <utility>

namespace shaderbake::plan {

namespace {

// The outcome a memo holds, when it has exactly the shape outcome_summary gives (a memo's bytes are untrusted
// like any file's: its checksum is no proof against a crafted entry).
std::optional<nlohmann::ordered_json> remembered_outcome(const std::string& text) {
  nlohmann::ordered_json s = nlohmann::ordered_json::parse(text, nullptr, false);
  if (!s.is_object() || s.size() != std::size(kOutcomeCounts) + 1) return std::nullopt;
  for (const char* field : kOutcomeCounts)
    if (!s.contains(field) || !s[field].is_number_unsigned()) return std::nullopt;
  if (!s.contains("bad_records") || !s["bad_records"].is_object()) return std::nullopt;
  for (const auto& [reason, n] : s["bad_records"].items())
    if (!n.is_number_unsigned()) return std::nullopt;
  return s;
}

}  // namespace

nlohmann::ordered_json outcome_summary(const BundleBuildResult& result, const KeyCensus& census,
                                       const trace::TraceReader& reader) {
  const bundle::WriteStats& w = result.write;
  const uint64_t counts[] = {w.bundle_bytes,
                             census.counts().draws,
                             result.specializations,
                             result.exact_modules,
                             result.families,
                             result.exact_pipelines,
                             result.fallback_pipelines,
                             result.dynamic_fallback_pipelines,
                             result.prewarm_pipelines,
                             w.modules,
                             result.unique_sources,
                             w.raw_module_bytes,
                             w.compressed_module_bytes,
                             w.dictionary_bytes,
                             result.failures.size()};
  static_assert(std::size(counts) == std::size(kOutcomeCounts));
  nlohmann::ordered_json s;
  for (size_t i = 0; i < std::size(kOutcomeCounts); ++i) s[kOutcomeCounts[i]] = counts[i];
  s["bad_records"] = reader.bad_records();
  return s;
}

std::optional<RememberedBuild> recall_build(cache::ArtifactCache& artifact_cache, const cache::ArtifactIdentity& id,
                                            const BuildExitCodes& exit_codes) {
  std::optional<std::vector<uint8_t>> blob = artifact_cache.load_blob(id);
  if (!blob) return std::nullopt;
  Result<cache::BuildOutputs> outputs = cache::decode_build_outputs(*blob);
  if (!outputs) return std::nullopt;
  std::optional<nlohmann::ordered_json> outcome = remembered_outcome(outputs->summary_json);
  if (!outcome || outcome->at("bundle_bytes") != outputs->bundle.size() ||
      outputs->exit_code != (outcome->at("failures") == 0 ? exit_codes.ok : exit_codes.failures))
    return std::nullopt;
  return RememberedBuild{std::move(*outputs), std::move(*outcome)};
}

Result<cache::BuildInputs> describe_build_inputs(const std::vector<std::string>& traces, bool strict,
                                                 uint64_t max_record_bytes, bool specialize) {
  std::optional<std::string> code = cache::loaded_code_identity();
  if (!code) return Error{ErrorKind::internal, "no_build_id", "an object of the running code has no GNU build ID", {}};
  cache::BuildInputs inputs;
  inputs.code_identity = std::move(*code);
  inputs.settings = strict ? "strict" : "";
  if (max_record_bytes != 0) inputs.settings += ";max_record_bytes=" + std::to_string(max_record_bytes);
  if (specialize) inputs.settings += ";specialize";
  for (const std::string& path : traces) {
    Result<cache::TraceFileDigest> digest = cache::digest_trace_file(path);
    if (!digest) return std::move(digest).error();
    inputs.traces.push_back(std::move(*digest));
  }
  return inputs;
}

std::string why_not_remembered(const cache::BuildInputs& inputs, const trace::TraceReader& reader,
                               const BundleBuildResult& result) {
  const auto& files = reader.files();
  if (files.size() != inputs.traces.size()) return "a trace was not read";
  // The memo is keyed by the traces' bytes alone: a build that read other files cannot be recalled by them.
  if (reader.model() != nullptr && reader.model()->programs_name_files())
    return "the " + std::string(reader.model()->name()) + " guest's programs name files outside the traces";
  for (size_t i = 0; i < files.size(); ++i) {
    const cache::TraceFileDigest& before = inputs.traces[i];
    if (!files[i].readable) return before.path + " was not read whole";
    if (files[i].content_bytes != before.bytes || !(files[i].content_digest == before.digest))
      return before.path + " changed while the build read it";
  }
  for (const BuildFailure& f : result.failures)
    if (f.error.kind != ErrorKind::bad_input && f.error.kind != ErrorKind::toolchain)
      return "a failure that may not recur: " + f.error.to_string();
  return {};
}

}  // namespace shaderbake::plan
