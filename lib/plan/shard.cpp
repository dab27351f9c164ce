// SPDX-License-Identifier: MIT
#include "lib/plan/shard.hpp"

#include <charconv>
#include <cstdlib>
#include <vector>

#include "lib/core/byte_io.hpp"
#include "lib/core/key_hash.hpp"

namespace shaderbake::plan {

namespace {

constexpr uint32_t kMaxShards = 4096;

Error shard_error(std::string message) { return Error{ErrorKind::bad_input, "bad_shard", std::move(message), {}}; }

std::optional<uint32_t> parse_number(std::string_view text) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

uint32_t shard_of(const PlannedModule& module, uint32_t count) {
  if (count <= 1) return 0;
  if (module.job.source.empty()) return static_cast<uint32_t>(KeyHash::of(module.key).low % count);
  // The job as compile::job_identity has it: stage, language, source, canonical values. (A specialized build's
  // exact jobs hold no values: every key of one shader is one job, compiled once, in one shard.)
  ByteWriter w;
  w.u8(static_cast<uint8_t>(module.job.stage));
  w.u8(static_cast<uint8_t>(module.job.language));
  w.field_u64(byte_span(module.job.source));
  const auto canonical = compile::canonical_specialization(module.job.specialization);
  w.u32(static_cast<uint32_t>(canonical.size()));
  for (const compile::SpecializationValue& v : canonical) {
    w.u32(v.constant_id);
    w.u32(static_cast<uint32_t>(v.words.size()));
    for (uint32_t word : v.words) w.u32(word);
  }
  return static_cast<uint32_t>(KeyHash::of(w.data()).low % count);
}

Result<Shard> parse_shard(std::string_view text, std::string_view index_variable) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return shard_error("--shard " + std::string(text) + ": not K/N or auto/N");
  const auto count = parse_number(text.substr(slash + 1));
  if (!count || *count == 0 || *count > kMaxShards)
    return shard_error("--shard " + std::string(text) + ": N must be a whole number from 1 to " + std::to_string(kMaxShards));
  const std::string_view index_text = text.substr(0, slash);
  std::optional<uint32_t> index;
  if (index_text == "auto") {
    std::vector<std::string> names;
    if (!index_variable.empty()) names.emplace_back(index_variable);
    names.emplace_back("SLURM_ARRAY_TASK_ID");
    names.emplace_back("JOB_COMPLETION_INDEX");
    std::string tried;
    for (const std::string& name : names) {
      tried += (tried.empty() ? "" : ", ") + name;
      const char* value = std::getenv(name.c_str());
      if (!value || !*value) continue;
      index = parse_number(value);
      if (!index) return shard_error("--shard auto: $" + name + " is \"" + value + "\", not a shard index");
      break;
    }
    if (!index) return shard_error("--shard auto/" + std::to_string(*count) + ": none of " + tried + " is set");
  } else {
    index = parse_number(index_text);
    if (!index) return shard_error("--shard " + std::string(text) + ": K must be a whole number or auto");
  }
  if (*index >= *count)
    return shard_error("--shard: index " + std::to_string(*index) + " is not below the shard count " + std::to_string(*count) +
                       " (indices run 0.." + std::to_string(*count - 1) + ", as Slurm array and Kubernetes completion indices do)");
  return Shard{*index, *count};
}

}  // namespace shaderbake::plan
