// SPDX-License-Identifier: MIT
#include "guests/nv2a/vector_check.hpp"

#include <map>
#include <optional>

#include "guests/nv2a/route_runner.hpp"
#include "guests/nv2a/vectors.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::nv2a {

namespace {

std::string rgba_text(const std::array<uint8_t, 4>& c) {
  return "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + "," +
         std::to_string(c[3]) + ")";
}

std::string depth_text(const std::optional<uint16_t>& z) { return z ? " depth " + std::to_string(*z) : ""; }

std::string describe(const PixelOutput& got) {
  return (got.discarded ? "discard" : rgba_text(got.rgba)) + depth_text(got.depth_z16);
}

std::string expected_text(const VectorCase& c) {
  return (c.expect_discard ? "discard" : rgba_text(c.expect_rgba)) + depth_text(c.expect_depth_z16);
}

struct EngineResult {
  std::string engine;
  Result<PixelOutput> output;
};

using RouteResults = std::vector<std::optional<Result<PixelOutput>>>;

// Hands the outputs of one batch (or its error) to the cases it ran, `indices[k]` being output k's case.
void scatter(const Result<std::vector<PixelOutput>>& outputs, const std::vector<size_t>& indices, RouteResults& results) {
  for (size_t k = 0; k < indices.size(); ++k) {
    if (outputs) results[indices[k]].emplace((*outputs)[k]);
    else results[indices[k]].emplace(outputs.error());
  }
}

// Exact-route results: one pipeline per distinct program, every case of that program in one batch.
RouteResults run_exact_cases(const VectorFile& file, RouteRunner& runner) {
  RouteResults results(file.cases.size());
  std::map<std::vector<uint8_t>, std::vector<size_t>> by_key;
  for (size_t i = 0; i < file.cases.size(); ++i) {
    if (file.cases[i].expect_rejected) continue;  // nothing to render
    std::vector<uint8_t> key(SBK_NV2A_EXACT_KEY_SIZE);
    sbk_nv2a_encode_exact_key(&file.cases[i].program, key.data());
    by_key[key].push_back(i);
  }
  for (const auto& [key, indices] : by_key) {
    std::vector<PixelInputs> inputs;
    for (size_t i : indices) inputs.push_back(file.cases[i].inputs);
    scatter(runner.run_exact(file.cases[indices[0]].program, inputs), indices, results);
  }
  return results;
}

// Fallback-route results: admitted cases grouped by family, ONE pipeline per family for all of them.
// `rejected[i]` is admission's reason for a case it keeps off the fallback route.
RouteResults run_fallback_cases(const VectorFile& file, RouteRunner& runner, std::vector<std::string>& rejected) {
  RouteResults results(file.cases.size());
  std::map<std::vector<uint8_t>, std::vector<size_t>> by_family;
  for (size_t i = 0; i < file.cases.size(); ++i) {
    if (file.cases[i].expect_rejected) continue;  // nothing to render
    const char* where = nullptr;
    const sbk_nv2a_reason reason = sbk_nv2a_admit(&file.cases[i].program, &where);
    if (reason != SBK_NV2A_OK) {
      rejected[i] = std::string(sbk_nv2a_reason_name(reason)) + " (" + where + ")";
      continue;
    }
    std::vector<uint8_t> family(SBK_NV2A_FAMILY_KEY_SIZE);
    sbk_nv2a_encode_family_key(&file.cases[i].program, family.data());
    by_family[family].push_back(i);
  }
  for (const auto& [family, indices] : by_family) {
    std::vector<ProgramCase> cases;
    for (size_t i : indices) cases.push_back({file.cases[i].program, file.cases[i].inputs});
    scatter(runner.run_fallback(family, cases), indices, results);
  }
  return results;
}

}  // namespace

Result<std::vector<VectorCaseOutcome>> Nv2aGuest::check_vector_file(const std::string& path, std::string_view text,
                                                                    const VectorEngines& engines,
                                                                    vulkan::Executor* executor) const {
  auto file = parse_vector_text(path, text);
  if (!file) return std::move(file).error();
  std::vector<VectorCaseOutcome> out;
  for (const auto& [name, error] : file->bad_cases)
    out.push_back({name, VectorCaseOutcome::Kind::failed, "unreadable case: " + error.to_string()});

  std::optional<RouteRunner> runner;
  if ((engines.exact || engines.fallback) && executor != nullptr) runner.emplace(*executor);
  RouteResults exact_results(file->cases.size());
  if (engines.exact && runner) exact_results = run_exact_cases(*file, *runner);
  std::vector<std::string> rejected(file->cases.size());
  RouteResults fallback_results(file->cases.size());
  if (engines.fallback && runner) fallback_results = run_fallback_cases(*file, *runner, rejected);

  for (size_t i = 0; i < file->cases.size(); ++i) {
    const VectorCase& c = file->cases[i];
    if (c.expect_rejected) {
      // The case asserts the program is invalid: the model's validity check must refuse it (every engine
      // alike; admission refuses what validity refuses, and more while the ubershader lacks a mode).
      const char* where = nullptr;
      const sbk_nv2a_reason reason = sbk_nv2a_check_program(&c.program, &where);
      if (reason != SBK_NV2A_OK)
        out.push_back({c.name, VectorCaseOutcome::Kind::skipped,
                       std::string("rejected as expected: ") + sbk_nv2a_reason_name(reason) + " (" + where + ")"});
      else
        out.push_back({c.name, VectorCaseOutcome::Kind::failed,
                       "the case says the program is rejected (" + *c.expect_rejected + "), but it is valid (" +
                           c.where.to_string() + ")"});
      continue;
    }
    if (engines.fallback && !rejected[i].empty() && engines.only_fallback) {
      out.push_back({c.name, VectorCaseOutcome::Kind::skipped, "admission rejects the program: " + rejected[i]});
      continue;
    }
    std::vector<EngineResult> results;
    if (engines.oracle) results.push_back({"oracle", evaluate(c.program, c.inputs)});
    auto add_route = [&](const char* engine, RouteResults& route) {
      if (route[i]) results.push_back({engine, std::move(*route[i])});
      else results.push_back({engine, Error{ErrorKind::internal, "no_device", "no Vulkan device to run it on", {}}});
    };
    if (engines.exact) add_route("exact", exact_results);
    if (engines.fallback && rejected[i].empty()) add_route("fallback", fallback_results);
    std::string problems;
    for (const EngineResult& r : results) {
      if (!r.output) problems += " [" + r.engine + ": " + r.output.error().message.substr(0, 400) + "]";
      else if (!matches(c, *r.output)) problems += " [" + r.engine + ": got " + describe(*r.output) + "]";
    }
    if (problems.empty()) out.push_back({c.name, VectorCaseOutcome::Kind::passed, {}});
    else
      out.push_back({c.name, VectorCaseOutcome::Kind::failed,
                     "expected " + expected_text(c) + problems + " (" + c.where.to_string() + ")"});
  }
  return out;
}

}  // namespace shaderbake::nv2a
