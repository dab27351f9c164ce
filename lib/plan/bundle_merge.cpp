// SPDX-License-Identifier: MIT
#include "lib/plan/bundle_merge.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "lib/bundle/bundle_readback.hpp"

namespace shaderbake::plan {

namespace {

using json = nlohmann::ordered_json;

constexpr uint64_t kMaxShards = 4096;  // as build --shard takes

Error merge_error(const std::string& reason, const std::string& message) {
  return Error{ErrorKind::bad_input, reason, message, {}};
}

struct ShardFile {
  std::string path;
  bundle::BundleFile file;
  bundle::BundleIdentity identity;
  json report;
  uint32_t index = 0, count = 1;
  std::vector<uint64_t> prewarm_positions;
};

Result<ShardFile> open_shard(const std::string& path) {
  auto file = bundle::BundleFile::open(path);
  if (!file) return std::move(file).error();
  auto identity = bundle::read_identity(*file);
  if (!identity) return std::move(identity).error();
  auto report_text = file->report_json();
  if (!report_text) return std::move(report_text).error();
  json report = json::parse(*report_text, nullptr, /*allow_exceptions=*/false);
  if (!report.is_object())
    return merge_error("merge_not_a_shard", path + ": the bundle has no build report to merge by");
  ShardFile out{path, std::move(*file), std::move(*identity), std::move(report), 0, 1, {}};
  if (out.report.contains("shard")) {
    const json& s = out.report["shard"];
    if (!s.is_object() || !s.contains("index") || !s["index"].is_number_unsigned() || !s.contains("count") ||
        !s["count"].is_number_unsigned() || !s.contains("prewarm_positions") || !s["prewarm_positions"].is_array() ||
        s["index"].get<uint64_t>() >= kMaxShards || s["count"].get<uint64_t>() > kMaxShards)
      return merge_error("merge_not_a_shard", path + ": the report's shard data does not read");
    out.index = static_cast<uint32_t>(s["index"].get<uint64_t>());
    out.count = static_cast<uint32_t>(s["count"].get<uint64_t>());
    for (const json& p : s["prewarm_positions"]) {
      if (!p.is_number_unsigned()) return merge_error("merge_not_a_shard", path + ": a prewarm position is not a number");
      out.prewarm_positions.push_back(p.get<uint64_t>());
    }
    if (out.count == 0 || out.index >= out.count)
      return merge_error("merge_not_a_shard", path + ": shard " + std::to_string(out.index) + " of " + std::to_string(out.count));
  }
  return out;
}

// What must be the same in every shard of one build.
std::string identity_text(const bundle::BundleIdentity& id) {
  json j = {{"guest", id.guest_name}, {"guest_id", id.guest}, {"key_schema", id.key_schema}, {"toolchain", id.toolchain_fingerprint}};
  for (const auto& [name, version] : id.generators) j["generators"][name] = version;
  return j.dump();
}

constexpr const char* kFailureFields[] = {"route", "key", "reason", "message"};

uint64_t count_of(const json& report, const char* field) {
  return report.contains(field) && report[field].is_number_unsigned() ? report[field].get<uint64_t>() : 0;
}

}  // namespace

Result<MergeResult> merge_shards(const std::vector<std::string>& paths, const bundle::WriteOptions& write) {
  if (paths.empty()) return merge_error("merge_missing_shard", "no bundle to merge");
  std::vector<ShardFile> shards;
  for (const std::string& path : paths) {
    auto shard = open_shard(path);
    if (!shard) return std::move(shard).error();
    shards.push_back(std::move(*shard));
  }
  const ShardFile& first = shards.front();
  if (shards.size() > 1 && !first.report.contains("shard"))
    return merge_error("merge_not_a_shard", first.path + ": not a shard (no shard data in its report): merge takes the "
                                            "shards of one build (build --shard K/N)");
  std::map<uint32_t, const ShardFile*> by_index;
  for (const ShardFile& s : shards) {
    if (identity_text(s.identity) != identity_text(first.identity))
      return merge_error("merge_mismatch", s.path + ": another guest, key schema, toolchain or generator than " + first.path +
                                               " (" + identity_text(s.identity) + " vs " + identity_text(first.identity) + ")");
    if (s.count != first.count)
      return merge_error("merge_mismatch", s.path + ": shard " + std::to_string(s.index) + " of " + std::to_string(s.count) +
                                               ", but " + first.path + " is one of " + std::to_string(first.count));
    // The shard data but the shard's own (index, prewarm positions): the scheme and the build's settings.
    auto settings = [](const json& report) {
      json s = report.value("shard", json::object());
      if (s.is_object()) {
        s.erase("index");
        s.erase("prewarm_positions");
      }
      return s;
    };
    if (settings(s.report) != settings(first.report))
      return merge_error("merge_mismatch", s.path + ": built with other shard settings than " + first.path + " (" +
                                               settings(s.report).dump() + " vs " + settings(first.report).dump() + ")");
    for (const char* field : {"format", "guest", "toolchain", "inputs", "draws", "frames"})
      if (s.report.value(field, json()) != first.report.value(field, json()))
        return merge_error("merge_mismatch", s.path + ": its build report's \"" + std::string(field) + "\" differs from " +
                                                 first.path + "'s: not shards of one build");
    auto [it, fresh] = by_index.emplace(s.index, &s);
    if (!fresh)
      return merge_error("merge_duplicate_shard", "shard " + std::to_string(s.index) + " of " + std::to_string(s.count) +
                                                      " is given twice: " + it->second->path + " and " + s.path);
  }
  for (uint32_t k = 0; k < first.count; ++k)
    if (!by_index.count(k))
      return merge_error("merge_missing_shard", "shard " + std::to_string(k) + " of " + std::to_string(first.count) +
                                                    " is missing (given: " + std::to_string(shards.size()) + " of them)");

  // Every shard's contents into one builder; the prewarm order and the report are the merge's.
  bundle::BundleBuilder builder(first.identity);
  std::set<bundle::ModuleId> exact_modules, vertex_modules;
  std::vector<std::tuple<uint64_t, std::vector<uint8_t>, uint32_t>> prewarm;  // position, pipeline key, first frame
  for (const auto& [index, s] : by_index) {
    auto read = bundle::read_contents(s->file, builder, {.prewarm = false, .report = false});
    if (!read) return std::move(read).error();
    exact_modules.insert(read->exact_modules.begin(), read->exact_modules.end());
    vertex_modules.insert(read->vertex_modules.begin(), read->vertex_modules.end());
    const bool sharded = s->report.contains("shard");
    if (sharded && s->prewarm_positions.size() != read->prewarm.size())
      return merge_error("merge_not_a_shard", s->path + ": its report records " + std::to_string(s->prewarm_positions.size()) +
                                                  " prewarm positions for " + std::to_string(read->prewarm.size()) +
                                                  " prewarm pipelines");
    for (size_t p = 0; p < read->prewarm.size(); ++p)
      prewarm.emplace_back(sharded ? s->prewarm_positions[p] : p, std::move(read->prewarm[p].pipeline_key),
                           read->prewarm[p].first_frame);
  }
  std::sort(prewarm.begin(), prewarm.end());
  for (size_t i = 0; i < prewarm.size(); ++i) {
    if (i > 0 && std::get<0>(prewarm[i]) == std::get<0>(prewarm[i - 1]))
      return merge_error("merge_conflict", "two shards put a pipeline at prewarm position " + std::to_string(std::get<0>(prewarm[i])));
    builder.add_prewarm(std::get<1>(prewarm[i]), std::get<2>(prewarm[i]));
  }

  // The report: the first shard's, in its field order, with the counts of all.
  json report = first.report;
  report.erase("shard");
  for (const char* field : {"specializations", "specialized_pipelines", "families", "exact_pipelines", "fallback_pipelines",
                            "dynamic_fallback_pipelines", "prewarm_pipelines", "unique_sources"}) {
    uint64_t sum = 0;
    for (const ShardFile& s : shards) sum += count_of(s.report, field);
    if (report.contains(field)) report[field] = sum;
  }
  if (report.contains("exact_modules")) report["exact_modules"] = exact_modules.size();
  if (report.contains("vertex_modules")) report["vertex_modules"] = vertex_modules.size();
  std::map<std::string, uint64_t> rejections;
  json failures = json::array();
  for (const ShardFile& s : shards) {
    if (s.report.contains("rejections") && s.report["rejections"].is_object())
      for (const auto& [reason, n] : s.report["rejections"].items())
        if (n.is_number_unsigned()) rejections[reason] += n.get<uint64_t>();
    if (s.report.contains("failures") && s.report["failures"].is_array())
      for (const json& f : s.report["failures"]) {
        const bool readable = f.is_object() && std::all_of(std::begin(kFailureFields), std::end(kFailureFields), [&](const char* name) {
          return f.contains(name) && f[name].is_string();
        });
        if (!readable) return merge_error("merge_not_a_shard", s.path + ": a failure in its report does not read");
        failures.push_back(f);
      }
  }
  // The whole build's order: route, key, message, reason (as the build sorts them).
  std::stable_sort(failures.begin(), failures.end(), [](const json& a, const json& b) {
    auto field = [](const json& f, const char* name) { return f[name].get<std::string>(); };  // checked above
    return std::make_tuple(field(a, "route"), field(a, "key"), field(a, "message"), field(a, "reason")) <
           std::make_tuple(field(b, "route"), field(b, "key"), field(b, "message"), field(b, "reason"));
  });
  if (report.contains("rejections")) report["rejections"] = rejections;
  if (report.contains("failures")) report["failures"] = failures;

  MergeResult out;
  out.shards = first.count;
  out.report_json = report.dump();
  builder.set_report(out.report_json);
  auto bytes = builder.serialize(write, &out.write);
  if (!bytes) {
    Error e = std::move(bytes).error();
    if (e.reason == "duplicate_key") {
      e.reason = "merge_conflict";
      e.message = "one key in two shards: " + e.message;
    }
    return e;
  }
  out.bytes = std::move(*bytes);
  return out;
}

}  // namespace shaderbake::plan
