// SPDX-License-Identifier: MIT
// The exact route on a real Vulkan driver (lavapipe in CI) against the CPU oracle, on random valid
// programs. SHADERBAKE_SEED picks the seed (printed on failure), SHADERBAKE_PROGRAMS the count.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/route_runner.hpp"
#include "guests/nv2a/random_program.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/vulkan/executor.hpp"

namespace {

using namespace shaderbake;

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 0) : fallback;
}

std::string rgba(const nv2a::PixelOutput& o) {
  if (o.discarded) return "discard";
  return std::to_string(o.rgba[0]) + "," + std::to_string(o.rgba[1]) + "," + std::to_string(o.rgba[2]) + "," +
         std::to_string(o.rgba[3]);
}

bool agree(const nv2a::PixelOutput& a, const nv2a::PixelOutput& b) {
  if (a.discarded || b.discarded) return a.discarded == b.discarded;
  for (int i = 0; i < 4; ++i)
    if (std::abs(int(a.rgba[i]) - int(b.rgba[i])) > 1) return false;
  return true;
}

TEST(RandomPrograms, are_valid_and_reproducible) {
  nv2a::RandomPrograms a(7), b(7);
  for (int i = 0; i < 20000; ++i) {
    const sbk_nv2a_program p = a.program();
    const char* where = nullptr;
    ASSERT_EQ(sbk_nv2a_check_program(&p, &where), SBK_NV2A_OK) << "program " << i << " at " << where;
    const sbk_nv2a_program q = b.program();
    ASSERT_EQ(std::memcmp(&p, &q, sizeof p), 0);
  }
}

TEST(ExactRoute, agrees_with_the_oracle_on_random_programs_on_a_real_driver) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261129);
  const uint64_t programs = env_or("SHADERBAKE_PROGRAMS", 300);
  constexpr int kInputsPerProgram = 4;
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  nv2a::RouteRunner runner(**executor);
  nv2a::RandomPrograms random(seed);
  uint64_t disagreements = 0, compared = 0;
  for (uint64_t n = 0; n < programs; ++n) {
    const sbk_nv2a_program program = random.program();
    std::vector<nv2a::PixelInputs> inputs;
    for (int k = 0; k < kInputsPerProgram; ++k) inputs.push_back(random.inputs());
    auto gpu = runner.run_exact(program, inputs);
    ASSERT_TRUE(gpu) << "seed " << seed << " program " << n << ": " << gpu.error().to_string();
    for (int k = 0; k < kInputsPerProgram; ++k) {
      auto cpu = nv2a::evaluate(program, inputs[k]);
      ASSERT_TRUE(cpu) << cpu.error().to_string();
      ++compared;
      if (!agree(*cpu, (*gpu)[k])) {
        ++disagreements;
        ADD_FAILURE() << "seed " << seed << " program " << n << " input " << k << ": oracle " << rgba(*cpu)
                      << " vs exact " << rgba((*gpu)[k]) << "\n"
                      << nv2a::emit_exact_fragment(program).value();
      }
    }
  }
  EXPECT_EQ(disagreements, 0u) << "of " << compared << " pixels (seed " << seed << ")";
  EXPECT_TRUE((*executor)->validation_messages().empty())
      << (*executor)->validation_messages().size() << " validation messages, first: "
      << ((*executor)->validation_messages().empty() ? "" : (*executor)->validation_messages()[0]);
}

TEST(CompileChain, every_generated_module_passes_the_spirv_val_tool) {
  // Independent of the library's own validation: write modules out and run the spirv-val executable
  // (scripts/setup installs it; a machine without it, like a bare GPU box, skips this one check).
  if (std::system("command -v spirv-val >/dev/null 2>&1") != 0) GTEST_SKIP() << "spirv-val is not installed";
  nv2a::RandomPrograms random(env_or("SHADERBAKE_SEED", 20261129) + 1);
  std::vector<compile::CompileJob> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back({compile::ShaderStage::fragment, nv2a::emit_exact_fragment(random.program()).value()});
  for (uint32_t mask : {0x01u, 0xFFu, 0x13u})
    jobs.push_back({compile::ShaderStage::vertex, nv2a::emit_vertex_shader(mask, nv2a::kAllVaryings)});
  const auto modules = compile::compile_all(jobs, 2);
  const auto dir = std::filesystem::temp_directory_path() / ("sbk_spv_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < modules.size(); ++i) {
    ASSERT_TRUE(modules[i]) << modules[i].error().to_string();
    const auto path = dir / (std::to_string(i) + ".spv");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(modules[i]->spirv.data()), static_cast<std::streamsize>(modules[i]->spirv.size() * 4));
    const std::string command = "spirv-val --target-env vulkan1.0 " + path.string() + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << "spirv-val refused module " << i << "\n" << jobs[i].source;
  }
  std::filesystem::remove_all(dir);
}

TEST(CompileChain, the_first_compiles_of_a_process_may_run_on_many_threads_at_once) {
  // Each test runs in its own process (gtest_discover_tests), so these are this process's first remaps:
  // glslang's lazily filled tables once raced here and crashed.
  nv2a::RandomPrograms random(7);
  std::vector<compile::CompileJob> jobs;
  for (int i = 0; i < 16; ++i) jobs.push_back({compile::ShaderStage::fragment, nv2a::emit_exact_fragment(random.program()).value()});
  for (const auto& r : compile::compile_all(jobs, 8)) EXPECT_TRUE(r) << r.error().to_string();
}

TEST(CompileChain, is_deterministic_across_threads) {
  nv2a::RandomPrograms random(99);
  std::vector<compile::CompileJob> jobs;
  for (int i = 0; i < 24; ++i) jobs.push_back({compile::ShaderStage::fragment, nv2a::emit_exact_fragment(random.program()).value()});
  jobs.push_back(jobs[3]);  // a duplicate source compiles once and comes back at both places
  const auto one = compile::compile_all(jobs, 1);
  const auto two = compile::compile_all(jobs, 2);
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(one[i] && two[i]);
    EXPECT_EQ(one[i]->spirv, two[i]->spirv) << i;
  }
  EXPECT_EQ(one[3]->spirv, one.back()->spirv);
}

TEST(CompileChain, a_compile_error_names_its_reason_and_others_still_compile) {
  std::vector<compile::CompileJob> jobs = {{compile::ShaderStage::fragment, "#version 450\nvoid main() { undefined_name = 1; }\n"},
                                           {compile::ShaderStage::vertex, nv2a::emit_vertex_shader(1, 0)}};
  const auto out = compile::compile_all(jobs, 2);
  ASSERT_FALSE(out[0]);
  EXPECT_EQ(out[0].error().reason, "glsl_compile_error");
  EXPECT_NE(out[0].error().message.find("undefined_name"), std::string::npos);
  EXPECT_TRUE(out[1]);
}

}  // namespace
