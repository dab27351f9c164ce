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

// One file given to merge.
struct InputBundle {
  std::string path;
  bundle::BundleFile file;
  bundle::BundleIdentity identity;
  json report;
  bool sharded = false;
  uint32_t index = 0, count = 1;
  std::vector<uint64_t> prewarm_positions;
};

Result<InputBundle> open_input(const std::string& path) {
  auto file = bundle::BundleFile::open(path);
  if (!file) return std::move(file).error();
  auto identity = bundle::read_identity(*file);
  if (!identity) return std::move(identity).error();
  auto report_text = file->report_json();
  if (!report_text) return std::move(report_text).error();
  json report = json::parse(*report_text, nullptr, /*allow_exceptions=*/false);
  if (!report.is_object()) return merge_error("merge_not_a_shard", path + ": the bundle has no build report to merge by");
  InputBundle out{path, std::move(*file), std::move(*identity), std::move(report), false, 0, 1, {}};
  if (out.report.contains("shard")) {
    const json& s = out.report["shard"];
    if (!s.is_object() || !s.contains("index") || !s["index"].is_number_unsigned() || !s.contains("count") ||
        !s["count"].is_number_unsigned() || !s.contains("prewarm_positions") || !s["prewarm_positions"].is_array() ||
        s["index"].get<uint64_t>() >= kMaxShards || s["count"].get<uint64_t>() > kMaxShards)
      return merge_error("merge_not_a_shard", path + ": the report's shard data does not read");
    out.sharded = true;
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

// What the report says the build read: the same in every shard of one build.
json build_inputs(const json& report) {
  return {{"inputs", report.value("inputs", json())}, {"draws", report.value("draws", json())},
          {"frames", report.value("frames", json())}};
}

// What the shards of one build share: the shard data but the shard's own (index, prewarm positions), and
// whether the build specialized.
json shard_settings(const json& report) {
  json s = report.value("shard", json::object());
  if (s.is_object()) {
    s.erase("index");
    s.erase("prewarm_positions");
  }
  return {{"shard", s}, {"specialize", report.value("specialize", json())}};
}

uint64_t count_of(const json& report, const char* field) {
  return report.contains(field) && report[field].is_number_unsigned() ? report[field].get<uint64_t>() : 0;
}

constexpr const char* kFailureFields[] = {"route", "key", "reason", "message"};

// A report's failures, each checked to read.
Result<std::vector<json>> failures_of(const InputBundle& b) {
  std::vector<json> out;
  if (!b.report.contains("failures")) return out;
  if (!b.report["failures"].is_array()) return merge_error("merge_bad_report", b.path + ": its report's failures do not read");
  for (const json& f : b.report["failures"]) {
    const bool readable = f.is_object() && std::all_of(std::begin(kFailureFields), std::end(kFailureFields), [&](const char* name) {
      return f.contains(name) && f[name].is_string();
    });
    if (!readable) return merge_error("merge_bad_report", b.path + ": a failure in its report does not read");
    out.push_back(f);
  }
  return out;
}

// Failures in the order a build writes them (route, key, message, reason); with `once`, each once (a union's).
json sorted_failures(std::vector<json> failures, bool once) {
  auto tuple_of = [](const json& f) {
    auto field = [&](const char* name) { return f[name].get<std::string>(); };  // checked by failures_of
    return std::make_tuple(field("route"), field("key"), field("message"), field("reason"));
  };
  std::stable_sort(failures.begin(), failures.end(), [&](const json& a, const json& b) { return tuple_of(a) < tuple_of(b); });
  if (once)
    failures.erase(std::unique(failures.begin(), failures.end(), [&](const json& a, const json& b) { return tuple_of(a) == tuple_of(b); }),
                 failures.end());
  json out = json::array();
  for (json& f : failures) out.push_back(std::move(f));
  return out;
}

// The report's counts of what `builder` holds, in the report's own field order (fields it lacks stay out).
void recount(json& report, const bundle::BundleBuilder& builder, const GuestModel& model) {
  const auto c = builder.counts();
  const std::pair<const char*, uint64_t> fields[] = {{"specializations", c.specializations},
                                                     {"exact_modules", c.exact_modules},
                                                     {"specialized_pipelines", c.specialized_pipelines},
                                                     {"families", c.families},
                                                     {"exact_pipelines", c.exact_pipelines},
                                                     {"fallback_pipelines", c.fallback_pipelines},
                                                     {"dynamic_fallback_pipelines", c.dynamic_fallback_pipelines},
                                                     {"prewarm_pipelines", c.prewarm_pipelines},
                                                     {"vertex_modules", c.vertex_modules}};
  for (const auto& [field, value] : fields)
    if (report.contains(field)) report[field] = value;
  if (report.contains("rejections")) {
    std::map<std::string, uint64_t> by_name;
    for (const auto& [code, n] : c.rejections) by_name[model.rejection_name(code)] += n;
    report["rejections"] = by_name;
  }
}

// One build's content and report, from its bundle or the shards of it.
struct Build {
  std::vector<const InputBundle*> files;  // its shards by index, or its one bundle
  bundle::BundleBuilder builder;
  json report;
};

Result<Build> read_build(std::vector<const InputBundle*> files, const GuestModel& model) {
  const InputBundle& first = *files.front();
  Build out{std::move(files), bundle::BundleBuilder(first.identity), first.report};
  if (!first.sharded) {
    auto read = bundle::read_contents(first.file, out.builder, {.prewarm = true, .report = false});
    if (!read) return std::move(read).error();
    return out;
  }
  std::vector<std::tuple<uint64_t, std::vector<uint8_t>, uint32_t>> prewarm;  // position, pipeline key, first frame
  std::vector<json> failures;
  uint64_t unique_sources = 0;
  for (const InputBundle* s : out.files) {
    auto read = bundle::read_contents(s->file, out.builder, {.prewarm = false, .report = false});
    if (!read) return std::move(read).error();
    if (s->prewarm_positions.size() != read->prewarm.size())
      return merge_error("merge_not_a_shard", s->path + ": its report records " + std::to_string(s->prewarm_positions.size()) +
                                                  " prewarm positions for " + std::to_string(read->prewarm.size()) +
                                                  " prewarm pipelines");
    for (size_t p = 0; p < read->prewarm.size(); ++p)
      prewarm.emplace_back(s->prewarm_positions[p], std::move(read->prewarm[p].pipeline_key), read->prewarm[p].first_frame);
    auto f = failures_of(*s);
    if (!f) return std::move(f).error();
    failures.insert(failures.end(), f->begin(), f->end());
    unique_sources += count_of(s->report, "unique_sources");  // shards compile disjoint jobs
  }
  std::sort(prewarm.begin(), prewarm.end());
  for (size_t i = 0; i < prewarm.size(); ++i) {
    if (i > 0 && std::get<0>(prewarm[i]) == std::get<0>(prewarm[i - 1]))
      return merge_error("merge_conflict", "two shards put a pipeline at prewarm position " + std::to_string(std::get<0>(prewarm[i])));
    out.builder.add_prewarm(std::get<1>(prewarm[i]), std::get<2>(prewarm[i]));
  }
  out.report.erase("shard");
  if (out.report.contains("unique_sources")) out.report["unique_sources"] = unique_sources;
  if (out.report.contains("failures")) out.report["failures"] = sorted_failures(std::move(failures), false);
  recount(out.report, out.builder, model);
  return out;
}

// The capture sessions a build stands for: a merged bundle's own list (each session an object with its inputs),
// else one made from its report.
Result<json> sessions_of(const Build& b) {
  const std::string& path = b.files.front()->path;
  if (b.report.contains("sessions")) {
    const json& list = b.report["sessions"];
    const bool readable = list.is_array() && std::all_of(list.begin(), list.end(), [](const json& s) {
      return s.is_object() && s.contains("inputs") && s["inputs"].is_array() &&
             std::all_of(s["inputs"].begin(), s["inputs"].end(), [](const json& i) { return i.is_object(); });
    });
    if (!readable) return merge_error("merge_bad_report", path + ": its report's capture sessions do not read");
    return list;
  }
  json session;
  session["bundles"] = json::array();
  for (const InputBundle* f : b.files) session["bundles"].push_back(f->path);
  session["shards"] = b.files.front()->count;
  session["inputs"] = json::array();
  if (b.report.contains("inputs") && b.report["inputs"].is_array())
    for (const json& input : b.report["inputs"])
      if (input.is_object()) session["inputs"].push_back(input);
  for (const char* field : {"draws", "frames", "specializations", "exact_pipelines", "fallback_pipelines", "unique_sources"})
    if (b.report.contains(field)) session[field] = b.report[field];
  return json::array({session});
}

// What tells one capture session from another: its traces as read (capture record, record and draw counts),
// not the paths they were read from (one trace under two spellings is one session; two captures saved under
// one path are two). Empty when the report records no traces: such sessions are never taken for one another.
std::string session_identity(const json& session) {
  json identity = json::array();
  for (json input : session["inputs"]) {  // checked by sessions_of
    input.erase("path");
    identity.push_back(std::move(input));
  }
  return identity.empty() ? std::string() : identity.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string paths_text(const json& session) {
  std::string out;
  for (const json& input : session["inputs"])
    if (input.contains("path") && input["path"].is_string()) out += (out.empty() ? "" : ", ") + input["path"].get<std::string>();
  return out.empty() ? "(no traces recorded)" : out;
}

// The builds among the inputs, in the order of their first file; the shards of each checked to be all of one build.
Result<std::vector<std::vector<const InputBundle*>>> group_builds(const std::vector<InputBundle>& inputs) {
  std::vector<std::vector<const InputBundle*>> groups;
  std::map<std::string, size_t> group_of_inputs;  // a sharded build's inputs -> its group
  for (const InputBundle& b : inputs) {
    if (!b.sharded) {
      groups.push_back({&b});
      continue;
    }
    auto [it, fresh] = group_of_inputs.emplace(build_inputs(b.report).dump(), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&b);
  }
  for (auto& group : groups) {
    const InputBundle& first = *group.front();
    if (!first.sharded) continue;
    std::map<uint32_t, const InputBundle*> by_index;
    for (const InputBundle* s : group) {
      if (s->count != first.count)
        return merge_error("merge_mismatch", s->path + ": shard " + std::to_string(s->index) + " of " + std::to_string(s->count) +
                                                 ", but " + first.path + " (of the same traces) is one of " + std::to_string(first.count));
      if (shard_settings(s->report) != shard_settings(first.report))
        return merge_error("merge_mismatch", s->path + ": built with other shard settings than " + first.path + " (" +
                                                 shard_settings(s->report).dump() + " vs " + shard_settings(first.report).dump() + ")");
      auto [it, fresh] = by_index.emplace(s->index, s);
      if (!fresh)
        return merge_error("merge_duplicate_shard", "shard " + std::to_string(s->index) + " of " + std::to_string(s->count) +
                                                        " is given twice: " + it->second->path + " and " + s->path);
    }
    for (uint32_t k = 0; k < first.count; ++k)
      if (!by_index.count(k))
        return merge_error("merge_missing_shard", "shard " + std::to_string(k) + " of " + std::to_string(first.count) + " of " +
                                                      first.path + "'s build is missing (given: " + std::to_string(group.size()) +
                                                      " of them)");
    group.clear();
    for (const auto& [index, s] : by_index) group.push_back(s);
  }
  return groups;
}

}  // namespace

Result<MergeResult> merge_bundles(const std::vector<std::string>& paths, const GuestCatalog& guests,
                                  const bundle::WriteOptions& write) {
  if (paths.empty()) return merge_error("merge_missing_shard", "no bundle to merge");
  std::vector<InputBundle> inputs;
  for (const std::string& path : paths) {
    auto input = open_input(path);
    if (!input) return std::move(input).error();
    inputs.push_back(std::move(*input));
  }
  const InputBundle& first = inputs.front();
  for (const InputBundle& b : inputs)
    if (auto difference = bundle::identity_difference(b.identity, first.identity))
      return merge_error("merge_mismatch", b.path + ": built with another " + *difference + " (" + first.path + ")");
  auto model = guests.for_bundle(first.file.handle(), first.path);
  if (!model) return std::move(model).error();
  auto groups = group_builds(inputs);
  if (!groups) return std::move(groups).error();

  std::vector<Build> builds;
  for (auto& group : *groups) {
    auto build = read_build(std::move(group), **model);
    if (!build) return std::move(build).error();
    builds.push_back(std::move(*build));
  }
  MergeResult out;
  out.bundles = static_cast<uint32_t>(inputs.size());
  out.builds = static_cast<uint32_t>(builds.size());
  Build& merged = builds.front();
  auto first_sessions = sessions_of(merged);
  if (!first_sessions) return std::move(first_sessions).error();
  json sessions = std::move(*first_sessions);
  if (builds.size() > 1) {
    // Builds made with and without --specialize hold the same keys with other content: refused as a whole.
    for (const Build& b : builds)
      if (b.report.contains("specialize") && merged.report.contains("specialize") &&
          b.report["specialize"] != merged.report["specialize"])
        return merge_error("merge_mismatch", b.files.front()->path + ": built " +
                                                 (b.report["specialize"] == true ? "with" : "without") + " --specialize, " +
                                                 merged.files.front()->path + " " +
                                                 (merged.report["specialize"] == true ? "with" : "without"));
    std::map<std::string, std::string> session_files;  // a session's identity -> the file that brought it
    auto note_sessions = [&](const json& list, const std::string& path) -> Status {
      for (const json& session : list) {
        const std::string identity = session_identity(session);
        if (identity.empty()) continue;
        auto [it, fresh] = session_files.emplace(identity, path);
        if (!fresh)
          return merge_error("merge_duplicate_session", "the capture session of " + paths_text(session) + " is in both " +
                                                            it->second + " and " + path);
      }
      return ok_status();
    };
    if (auto s = note_sessions(sessions, merged.files.front()->path); !s) return std::move(s).error();
    std::vector<json> failures;
    auto add_failures = [&](const Build& b) -> Status {
      for (const InputBundle* f : b.files) {
        auto read = failures_of(*f);
        if (!read) return std::move(read).error();
        failures.insert(failures.end(), read->begin(), read->end());
      }
      return ok_status();
    };
    if (auto s = add_failures(merged); !s) return std::move(s).error();
    json& report = merged.report;
    uint64_t draws = count_of(report, "draws"), frames = count_of(report, "frames");
    for (size_t i = 1; i < builds.size(); ++i) {
      Build& next = builds[i];
      const std::string& path = next.files.front()->path;
      auto next_sessions = sessions_of(next);
      if (!next_sessions) return std::move(next_sessions).error();
      if (auto s = note_sessions(*next_sessions, path); !s) return std::move(s).error();
      for (const json& session : *next_sessions) sessions.push_back(session);
      if (auto s = add_failures(next); !s) return std::move(s).error();
      if (auto s = merged.builder.absorb(std::move(next.builder)); !s) {
        Error e = std::move(s).error();
        return merge_error(e.reason == "conflicting_key" ? "merge_conflict" : "merge_mismatch", path + ": " + e.message);
      }
      if (report.contains("inputs") && report["inputs"].is_array() && next.report.contains("inputs") &&
          next.report["inputs"].is_array())
        for (const json& input : next.report["inputs"]) report["inputs"].push_back(input);
      draws += count_of(next.report, "draws");
      frames += count_of(next.report, "frames");
    }
    if (model.value()->dynamic_fallbacks())
      out.dynamic_fallbacks_completed = merged.builder.complete_dynamic_fallbacks(
          [&](std::span<const uint8_t> family, const sbk_attachment_signature& signature) {
            return !model.value()->fallback_attachment_rejection(family, signature).empty();
          });
    if (report.contains("draws")) report["draws"] = draws;
    if (report.contains("frames")) report["frames"] = frames;
    report.erase("unique_sources");  // distinct sources across builds: not in any bundle
    recount(report, merged.builder, **model);
    report["failures"] = sorted_failures(std::move(failures), true);
    report["sessions"] = sessions;
  }
  out.sessions = static_cast<uint32_t>(sessions.size());
  out.report_json = merged.report.dump(-1, ' ', false, json::error_handler_t::replace);  // paths need not be UTF-8
  merged.builder.set_report(out.report_json);
  auto bytes = merged.builder.serialize(write, &out.write);
  if (!bytes) {
    Error e = std::move(bytes).error();
    if (e.reason == "duplicate_key") {
      e.reason = "merge_conflict";
      e.message = "one key in two shards of one build: " + e.message;
    }
    return e;
  }
  out.bytes = std::move(*bytes);
  return out;
}

}  // namespace shaderbake::plan
