// SPDX-License-Identifier: MIT
#include <cstdio>
#include <memory>

#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/guest/vector_file.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::cli {

namespace {

// Runs a vector file through the model its "guest" names.
Result<std::vector<VectorCaseOutcome>> check_file(const std::string& path, const GuestCatalog& guests,
                                                  const VectorEngines& engines, vulkan::Executor* executor) {
  auto file = read_vector_file_text(path);
  if (!file) return std::move(file).error();
  const GuestModel* model = guests.find(file->guest);
  if (model == nullptr) {
    Error e;
    e.reason = "wrong_guest";
    e.message = "the vectors are for guest \"" + file->guest.substr(0, 60) + "\", but this build reads " + guests.names();
    e.where.file = path;
    return e;
  }
  return model->check_vector_file(path, file->text, engines, executor);
}

}  // namespace

int run_check_vectors(const CheckVectorsOptions& options, const GuestCatalog& guests) {
  VectorEngines engines;
  engines.oracle = options.engine == "oracle" || options.engine == "all";
  engines.exact = options.engine == "exact" || options.engine == "all";
  engines.fallback = options.engine == "fallback" || options.engine == "all";
  engines.only_fallback = options.engine == "fallback";

  std::unique_ptr<vulkan::Executor> executor;
  if (engines.exact || engines.fallback) {
    vulkan::ExecutorOptions executor_options;
    executor_options.device = options.device;
    auto created = vulkan::Executor::create(executor_options);
    if (!created) {
      print_error(created.error().to_string());
      return kExitToolchain;
    }
    executor = std::move(*created);
    print_note("running shaders on Vulkan device \"" + executor->device_name() + "\"");
  }

  uint64_t passed = 0, failed = 0, skipped = 0;
  bool unusable_file = false;
  for (const std::string& path : options.files) {
    auto outcomes = check_file(path, guests, engines, executor.get());
    if (!outcomes) {
      print_error(outcomes.error().to_string());
      unusable_file = true;
      continue;
    }
    for (const VectorCaseOutcome& c : *outcomes) {
      switch (c.kind) {
        case VectorCaseOutcome::Kind::passed:
          ++passed;
          if (!options.quiet) std::printf("pass %s: %s\n", path.c_str(), c.name.c_str());
          break;
        case VectorCaseOutcome::Kind::failed:
          ++failed;
          std::printf("FAIL %s: %s: %s\n", path.c_str(), c.name.c_str(), c.detail.c_str());
          break;
        case VectorCaseOutcome::Kind::skipped:
          ++skipped;
          std::printf("skipped %s: %s: %s\n", path.c_str(), c.name.c_str(), c.detail.c_str());
          break;
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
