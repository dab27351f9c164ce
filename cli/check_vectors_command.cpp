// SPDX-License-Identifier: MIT
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "guests/nv2a/route_runner.hpp"
#include "guests/nv2a/vectors.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::cli {

namespace {

std::string rgba_text(const std::array<uint8_t, 4>& c) {
  return "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + "," + std::to_string(c[3]) + ")";
}

std::string describe(const nv2a::PixelOutput& got) { return got.discarded ? "discard" : rgba_text(got.rgba); }

std::string expected_text(const nv2a::VectorCase& c) { return c.expect_discard ? "discard" : rgba_text(c.expect_rgba); }

struct EngineResult {
  std::string engine;
  Result<nv2a::PixelOutput> output;
};

}  // namespace

int run_check_vectors(const CheckVectorsOptions& options) {
  const bool use_oracle = options.engine == "oracle" || options.engine == "all";
  const bool use_exact = options.engine == "exact" || options.engine == "all";
  const bool use_fallback = options.engine == "fallback" || options.engine == "all";

  std::unique_ptr<vulkan::Executor> executor;
  std::unique_ptr<nv2a::RouteRunner> runner;
  if (use_exact || use_fallback) {
    vulkan::ExecutorOptions executor_options;
    executor_options.device = options.device;
    auto created = vulkan::Executor::create(executor_options);
    if (!created) {
      print_error(created.error().to_string());
      return kExitToolchain;
    }
    executor = std::move(*created);
    runner = std::make_unique<nv2a::RouteRunner>(*executor);
    print_note("running shaders on Vulkan device \"" + executor->device_name() + "\"");
  }

  uint64_t passed = 0, failed = 0, skipped = 0;
  bool unusable_file = false;
  for (const std::string& path : options.files) {
    auto file = nv2a::read_vector_file(path);
    if (!file) {
      print_error(file.error().to_string());
      unusable_file = true;
      continue;
    }
    for (const auto& [name, error] : file->bad_cases) {
      std::printf("FAIL %s: %s: unreadable case: %s\n", path.c_str(), name.c_str(), error.to_string().c_str());
      ++failed;
    }
    // Exact-route results, one pipeline per distinct program, every case of that program in one batch.
    std::vector<std::optional<Result<nv2a::PixelOutput>>> exact_results(file->cases.size());
    if (use_exact) {
      std::map<std::vector<uint8_t>, std::vector<size_t>> by_key;
      for (size_t i = 0; i < file->cases.size(); ++i) {
        std::vector<uint8_t> key(SBK_NV2A_EXACT_KEY_SIZE);
        sbk_nv2a_encode_exact_key(&file->cases[i].program, key.data());
        by_key[key].push_back(i);
      }
      for (const auto& [key, indices] : by_key) {
        std::vector<nv2a::PixelInputs> inputs;
        for (size_t i : indices) inputs.push_back(file->cases[i].inputs);
        auto outputs = runner->run_exact(file->cases[indices[0]].program, inputs);
        for (size_t k = 0; k < indices.size(); ++k) {
          if (outputs) exact_results[indices[k]].emplace((*outputs)[k]);
          else exact_results[indices[k]].emplace(outputs.error());
        }
      }
    }
    // Fallback-route results: admitted cases grouped by family, ONE pipeline per family for all of them.
    std::vector<std::optional<Result<nv2a::PixelOutput>>> fallback_results(file->cases.size());
    std::vector<std::string> rejected(file->cases.size());
    if (use_fallback) {
      std::map<std::vector<uint8_t>, std::vector<size_t>> by_family;
      for (size_t i = 0; i < file->cases.size(); ++i) {
        const char* where = nullptr;
        const sbk_nv2a_reason reason = sbk_nv2a_admit(&file->cases[i].program, &where);
        if (reason != SBK_NV2A_OK) {
          rejected[i] = std::string(sbk_nv2a_reason_name(reason)) + " (" + where + ")";
          continue;
        }
        std::vector<uint8_t> family(SBK_NV2A_FAMILY_KEY_SIZE);
        sbk_nv2a_encode_family_key(&file->cases[i].program, family.data());
        by_family[family].push_back(i);
      }
      for (const auto& [family, indices] : by_family) {
        std::vector<nv2a::ProgramCase> cases;
        for (size_t i : indices) cases.push_back({file->cases[i].program, file->cases[i].inputs});
        auto outputs = runner->run_fallback(family, cases);
        for (size_t k = 0; k < indices.size(); ++k) {
          if (outputs) fallback_results[indices[k]].emplace((*outputs)[k]);
          else fallback_results[indices[k]].emplace(outputs.error());
        }
      }
    }
    for (size_t i = 0; i < file->cases.size(); ++i) {
      const nv2a::VectorCase& c = file->cases[i];
      std::vector<EngineResult> results;
      if (use_oracle) results.push_back({"oracle", nv2a::evaluate(c.program, c.inputs)});
      if (use_exact) results.push_back({"exact", std::move(*exact_results[i])});
      if (use_fallback && rejected[i].empty()) results.push_back({"fallback", std::move(*fallback_results[i])});
      if (use_fallback && !rejected[i].empty() && options.engine == "fallback") {
        ++skipped;
        std::printf("skipped %s: %s: admission rejects the program: %s\n", path.c_str(), c.name.c_str(), rejected[i].c_str());
        continue;
      }
      std::string problems;
      for (const EngineResult& r : results) {
        if (!r.output) {
          problems += " [" + r.engine + ": " + r.output.error().message.substr(0, 400) + "]";
        } else if (!nv2a::matches(c, *r.output)) {
          problems += " [" + r.engine + ": got " + describe(*r.output) + "]";
        }
      }
      if (problems.empty()) {
        ++passed;
        if (!options.quiet) std::printf("pass %s: %s\n", path.c_str(), c.name.c_str());
      } else {
        ++failed;
        std::printf("FAIL %s: %s: expected %s%s (%s)\n", path.c_str(), c.name.c_str(), expected_text(c).c_str(),
                    problems.c_str(), c.where.to_string().c_str());
      }
    }
  }
  if (executor && !executor->validation_messages().empty()) {
    for (const std::string& m : executor->validation_messages()) print_error("validation layer: " + m);
    ++failed;
    std::printf("FAIL the Vulkan validation layer reported %zu messages\n", executor->validation_messages().size());
  }
  if (skipped > 0)
    std::printf("%llu passed, %llu failed, %llu skipped\n", static_cast<unsigned long long>(passed),
                static_cast<unsigned long long>(failed), static_cast<unsigned long long>(skipped));
  else
    std::printf("%llu passed, %llu failed\n", static_cast<unsigned long long>(passed), static_cast<unsigned long long>(failed));
  if (unusable_file && failed == 0) return kExitBadInput;
  return failed == 0 && !unusable_file ? kExitOk : kExitFailures;
}

}  // namespace shaderbake::cli
