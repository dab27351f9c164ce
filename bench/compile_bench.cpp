// SPDX-License-Identifier: MIT
// Compile-chain throughput: variants/s of shaderbake's in-process chain (glslang -> spirv-val -> spirv-opt
// -> spirv-val -> canonical IDs -> spirv-val -> reflection) on 1 and 2 threads, side by side with a shell
// pipeline of the CLI tools (glslangValidator | spirv-opt -O | spirv-val) over the same generated sources.
// Prints figures; asserts nothing about time.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/random_program.hpp"
#include "lib/compile/compile_chain.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Compile-chain throughput: in-process vs a shell pipeline of the CLI tools."};
  int variants = 400, shell_variants = 60;
  uint64_t seed = 1;
  app.add_option("--variants", variants, "Distinct exact variants for the in-process runs");
  app.add_option("--shell-variants", shell_variants, "Variants for the (slow) shell pipeline");
  app.add_option("--seed", seed, "Random program seed");
  CLI11_PARSE(app, argc, argv);

  using namespace shaderbake;
  using Clock = std::chrono::steady_clock;
  nv2a::RandomPrograms random(seed);
  std::vector<compile::CompileJob> jobs;
  while (static_cast<int>(jobs.size()) < variants) jobs.push_back({compile::ShaderStage::fragment, nv2a::emit_exact_fragment(random.program()).value()});
  // Warm up glslang's one-time tables so they do not count against the first run.
  (void)compile::compile_glsl(compile::ShaderStage::fragment, jobs[0].source);

  std::printf("%-44s %10s %10s %12s\n", "chain", "variants", "seconds", "variants/s");
  double in_process_1 = 0;
  for (unsigned threads : {1u, 2u}) {
    const auto start = Clock::now();
    const auto results = compile::compile_all(jobs, threads);
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    size_t failures = 0;
    for (const auto& r : results) failures += !r;
    if (threads == 1) in_process_1 = jobs.size() / s;
    std::printf("%-44s %10zu %10.3f %12.1f%s\n", ("in-process, " + std::to_string(threads) + " thread(s)").c_str(),
                jobs.size(), s, jobs.size() / s, failures ? "  (failures!)" : "");
  }

  const auto dir = std::filesystem::temp_directory_path() / ("sbk_compile_bench_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (int i = 0; i < shell_variants; ++i) std::ofstream(dir / (std::to_string(i) + ".frag")) << jobs[i].source;
  const auto start = Clock::now();
  int failures = 0;
  for (int i = 0; i < shell_variants; ++i) {
    const std::string base = (dir / std::to_string(i)).string();
    const std::string command = "glslangValidator -V --target-env vulkan1.0 -o " + base + ".spv " + base +
                                ".frag >/dev/null && spirv-opt -O " + base + ".spv -o " + base + ".opt.spv && spirv-val --target-env vulkan1.0 " +
                                base + ".opt.spv";
    failures += std::system(command.c_str()) != 0;
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  std::filesystem::remove_all(dir);
  std::printf("%-44s %10d %10.3f %12.1f%s\n", "shell: glslangValidator | spirv-opt | spirv-val", shell_variants, s,
              shell_variants / s, failures ? "  (failures!)" : "");
  std::printf("in-process (1 thread) / shell pipeline: %.1fx\n", in_process_1 / (shell_variants / s));
  return 0;
}
