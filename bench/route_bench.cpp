// SPDX-License-Identifier: MIT
// The cost of the nv2a fallback route next to the exact route, in one run on one Vulkan device:
//  1. pipeline creation (vkCreateGraphicsPipelines, a fresh pipeline every time, no VkPipelineCache, the
//     driver's disk caches off): N exact pipelines of N random programs (combiners with plain fetches, or
//     with --texture-shader every texture-shader mode) vs the ubershader pipelines of
//     their fallback families, plus the SPIR-V size and instruction count of both;
//  2. fragment cost: K programs, each filling a width x height target with one quad through its exact
//     shader and through its family's ubershader fed its packet.
// Prints figures (and with --json the same numbers as JSON); asserts nothing about time.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/fallback_emitter.hpp"
#include "guests/nv2a/random_program.hpp"
#include "guests/nv2a/route_runner.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/vulkan/executor.hpp"
#include "runtime_loader/shaderbake_nv2a.h"

namespace {

using namespace shaderbake;
using FamilyKey = std::array<uint8_t, SBK_NV2A_FAMILY_KEY_SIZE>;

// Exit codes as the README documents them.
constexpr int kExitToolchain = 4;
constexpr int kExitOutput = 5;

struct Options {
  int programs = 100;
  int ubershader_repeats = 20;
  int fill_programs = 20;
  int fill_repeats = 10;
  uint32_t width = 0;   // 0: 1024, or 512 on a CPU rasterizer (lavapipe)
  uint32_t height = 0;
  std::string device = "lavapipe";
  uint64_t seed = 1;
  std::string json;
  bool validation = false;
  bool no_salt = false;
  bool texture_shader = false;
};

// One program of the run, with everything both routes need to draw it.
struct Program {
  sbk_nv2a_program program{};
  nv2a::PixelInputs inputs;
  FamilyKey family{};
  compile::CompiledModule exact;
};

// One pipeline's creation: vkCreateGraphicsPipelines alone, and the whole first use (shader modules,
// pipeline, and a one-pixel draw, which is where a driver that defers its compile, like lavapipe, pays it).
struct Creation {
  double create_ms = 0;
  double first_use_ms = 0;
};

struct Stats {
  size_t count = 0;
  double median = 0, p90 = 0, min = 0, max = 0;
};

Stats stats_of(std::vector<double> values) {
  Stats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  s.count = n;
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.p90 = values[static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1];  // nearest rank
  s.min = values.front();
  s.max = values.back();
  return s;
}

// "[min-max]" of whole numbers.
std::string range_text(const Stats& s) {
  return "[" + std::to_string(std::lround(s.min)) + "-" + std::to_string(std::lround(s.max)) + "]";
}

nlohmann::json to_json(const Stats& s) {
  return {{"count", s.count}, {"median_ms", s.median}, {"p90_ms", s.p90}, {"min_ms", s.min}, {"max_ms", s.max}};
}

// Instructions of a SPIR-V module: after the 5-word header, each instruction's word count is the high 16
// bits of its first word. A zero word count (a malformed module) ends the walk.
size_t instruction_count(const std::vector<uint32_t>& words) {
  size_t count = 0;
  for (size_t i = 5; i < words.size();) {
    const uint32_t length = words[i] >> 16;
    if (length == 0) break;
    ++count;
    i += length;
  }
  return count;
}

// A copy of `words` with one OpSourceExtension "shaderbake route_bench <n>" in the debug section, so that
// every pipeline the benchmark creates has modules no driver has seen in this process: an in-memory
// cache keyed by module contents (which no environment variable turns off) cannot answer it.
std::vector<uint32_t> salted(const std::vector<uint32_t>& words, uint64_t n) {
  constexpr uint32_t kOpSourceExtension = 4;
  // The instructions that precede the debug section (SPIR-V 2.4, logical layout): OpCapability,
  // OpExtension, OpExtInstImport, OpMemoryModel, OpEntryPoint, OpExecutionMode(Id).
  const std::set<uint32_t> preamble = {17, 10, 11, 14, 15, 16, 331};
  size_t at = 5;
  while (at < words.size() && preamble.count(words[at] & 0xFFFF) != 0 && (words[at] >> 16) != 0) at += words[at] >> 16;
  const std::string text = "shaderbake route_bench " + std::to_string(n);
  std::vector<uint32_t> literal((text.size() + 4) / 4, 0);  // nul-terminated, zero-padded to a word
  std::copy(text.begin(), text.end(), reinterpret_cast<char*>(literal.data()));
  std::vector<uint32_t> out(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(at));
  out.push_back(static_cast<uint32_t>(literal.size() + 1) << 16 | kOpSourceExtension);
  out.insert(out.end(), literal.begin(), literal.end());
  out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(at), words.end());
  return out;
}

std::string family_name(const FamilyKey& key) {
  static const char* kHex = "0123456789abcdef";
  std::string text;
  for (uint8_t b : key) {
    text += kHex[b >> 4];
    text += kHex[b & 15];
  }
  return text;
}

bool pixels_agree(const vulkan::FillTiming& a, const vulkan::FillTiming& b) {
  if (a.discarded != b.discarded) return false;
  for (size_t i = 0; i < 4; ++i) {
    if (std::abs(int{a.first_pixel[i]} - int{b.first_pixel[i]}) > 1) return false;
  }
  return true;
}

class Bench {
 public:
  Bench(const Options& options, vulkan::Executor& executor) : options_(options), executor_(executor) {}

  // Each step returns false after printing an error.
  bool make_programs();
  bool time_pipeline_creation();
  bool time_fills();
  void print_spirv();
  nlohmann::json& report() { return report_; }

 private:
  Result<const compile::CompiledModule*> vertex_module(uint32_t varyings);
  Result<const compile::CompiledModule*> ubershader(const FamilyKey& family);
  vulkan::PipelineSpec spec_for(const compile::CompiledModule& fragment, const compile::CompiledModule& vertex) const;
  vulkan::DrawCase exact_draw(const Program& p) const;
  vulkan::DrawCase fallback_draw(const Program& p, const compile::CompiledModule& uber) const;
  Result<Creation> create_once(const compile::CompiledModule& fragment, const vulkan::DrawCase& draw);

  const Options& options_;
  vulkan::Executor& executor_;
  std::vector<Program> programs_;
  std::map<uint32_t, compile::CompiledModule> vertex_modules_;  // by varying mask
  std::map<FamilyKey, compile::CompiledModule> ubershaders_;
  std::vector<FamilyKey> created_families_;  // the families whose ubershader pipeline was timed
  uint64_t salt_ = 0;
  nlohmann::json report_;
};

bool Bench::make_programs() {
  nv2a::RandomPrograms random(options_.seed);
  std::set<std::string> sources;
  size_t duplicates = 0, not_admitted = 0, not_emitted = 0;
  // Distinct exact sources only: two programs with the same generated source would share one module.
  for (size_t drawn = 0; static_cast<int>(programs_.size()) < options_.programs; ++drawn) {
    if (drawn > 100u * static_cast<size_t>(options_.programs) + 1000) {
      std::fprintf(stderr, "error: %zu random programs gave only %zu usable ones\n", drawn, programs_.size());
      return false;
    }
    Program p;
    if (options_.texture_shader) {
      p.program = random.texture_program();
      p.inputs = random.texture_inputs(p.program);
    } else {
      p.program = random.program();
      p.inputs = random.inputs();
    }
    if (sbk_nv2a_admit(&p.program, nullptr) != SBK_NV2A_OK) {
      ++not_admitted;
      continue;
    }
    auto source = nv2a::emit_exact_fragment(p.program);
    if (!source) {
      ++not_emitted;
      continue;
    }
    if (!sources.insert(*source).second) {
      ++duplicates;
      continue;
    }
    auto module = compile::compile_glsl(compile::ShaderStage::fragment, *source);
    if (!module) {
      std::fprintf(stderr, "error: exact shader of program %zu: %s\n", programs_.size(),
                   module.error().to_string().c_str());
      return false;
    }
    p.exact = std::move(*module);
    sbk_nv2a_encode_family_key(&p.program, p.family.data());
    programs_.push_back(std::move(p));
  }
  report_["programs"] = {{"count", programs_.size()},
                         {"kind", options_.texture_shader ? "texture_shader" : "combiners"},
                         {"skipped_duplicate_source", duplicates},
                         {"skipped_not_admitted", not_admitted},
                         {"skipped_not_emitted", not_emitted}};
  return true;
}

Result<const compile::CompiledModule*> Bench::vertex_module(uint32_t varyings) {
  auto found = vertex_modules_.find(varyings);
  if (found != vertex_modules_.end()) return &found->second;
  auto module =
      compile::compile_glsl(compile::ShaderStage::vertex, nv2a::emit_vertex_shader(1u | (varyings << 1), varyings));
  if (!module) return std::move(module).error();
  return &vertex_modules_.emplace(varyings, std::move(*module)).first->second;
}

Result<const compile::CompiledModule*> Bench::ubershader(const FamilyKey& family) {
  auto found = ubershaders_.find(family);
  if (found != ubershaders_.end()) return &found->second;
  auto module = compile::compile_glsl(compile::ShaderStage::fragment, nv2a::emit_fallback_fragment(family.data()));
  if (!module) return std::move(module).error();
  return &ubershaders_.emplace(family, std::move(*module)).first->second;
}

// The verification layout of route_runner: the position plus exactly the semantics whose varyings the
// fragment shader reads, each at its semantic's location.
vulkan::PipelineSpec Bench::spec_for(const compile::CompiledModule& fragment,
                                     const compile::CompiledModule& vertex) const {
  vulkan::PipelineSpec spec;
  spec.vertex_spirv = vertex.spirv;
  spec.fragment_spirv = fragment.spirv;
  spec.attribute_locations = nv2a::attribute_locations(nv2a::fragment_varyings(fragment.reflection));
  return spec;
}

vulkan::DrawCase Bench::exact_draw(const Program& p) const { return nv2a::draw_case_for(p.inputs, p.exact.reflection); }

vulkan::DrawCase Bench::fallback_draw(const Program& p, const compile::CompiledModule& uber) const {
  vulkan::DrawCase draw = nv2a::draw_case_for(p.inputs, uber.reflection);
  std::vector<uint8_t> packet(SBK_NV2A_PACKET_SIZE);
  sbk_nv2a_encode_packet(&p.program, packet.data());
  draw.uniforms.push_back({SBK_NV2A_BINDING_PACKET, std::move(packet)});
  return draw;
}

// One fresh pipeline of `fragment` (and its vertex shader), both salted unless --no-salt, drawn once.
Result<Creation> Bench::create_once(const compile::CompiledModule& fragment, const vulkan::DrawCase& draw) {
  auto vertex = vertex_module(nv2a::fragment_varyings(fragment.reflection));
  if (!vertex) return std::move(vertex).error();
  vulkan::PipelineSpec spec = spec_for(fragment, **vertex);
  if (!options_.no_salt) {
    spec.vertex_spirv = salted(spec.vertex_spirv, salt_);
    spec.fragment_spirv = salted(spec.fragment_spirv, salt_);
    ++salt_;
  }
  const auto start = std::chrono::steady_clock::now();
  auto pixels = executor_.run(spec, std::span<const vulkan::DrawCase>(&draw, 1));
  const auto end = std::chrono::steady_clock::now();
  if (!pixels) return std::move(pixels).error();
  return Creation{executor_.last_pipeline_create_ms(), std::chrono::duration<double, std::milli>(end - start).count()};
}

bool Bench::time_pipeline_creation() {
  // The families of the programs, most programs first (ties by key bytes): the ubershader creations go
  // round-robin over them, so M creations cover min(M, families) distinct ubershaders.
  std::map<FamilyKey, size_t> members;
  for (const Program& p : programs_) ++members[p.family];
  std::vector<std::pair<FamilyKey, size_t>> families(members.begin(), members.end());
  std::stable_sort(families.begin(), families.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<FamilyKey, size_t> first_member;
  for (size_t i = programs_.size(); i-- > 0;) first_member[programs_[i].family] = i;

  // Compile every module first, so that the timed loop does nothing but create pipelines.
  const size_t uber_count = static_cast<size_t>(options_.ubershader_repeats);
  for (size_t r = 0; r < std::min(uber_count, families.size()); ++r) {
    auto uber = ubershader(families[r].first);
    if (!uber) {
      std::fprintf(stderr, "error: ubershader of family %s: %s\n", family_name(families[r].first).c_str(),
                   uber.error().to_string().c_str());
      return false;
    }
    created_families_.push_back(families[r].first);
  }

  // Exact and ubershader creations interleaved, so that drift of a noisy machine falls on both alike.
  std::fprintf(stderr, "creating %zu exact and %zu ubershader pipelines (%zu families)...\n", programs_.size(),
               uber_count, families.size());
  std::vector<double> exact_ms, uber_ms, exact_use_ms, uber_use_ms;
  for (size_t i = 0; i < std::max(programs_.size(), uber_count); ++i) {
    if (i < programs_.size()) {
      auto ms = create_once(programs_[i].exact, exact_draw(programs_[i]));
      if (!ms) {
        std::fprintf(stderr, "error: exact pipeline of program %zu: %s\n", i, ms.error().to_string().c_str());
        return false;
      }
      exact_ms.push_back(ms->create_ms);
      exact_use_ms.push_back(ms->first_use_ms);
    }
    if (i < uber_count) {
      const FamilyKey& family = created_families_[i % created_families_.size()];
      const compile::CompiledModule& uber = ubershaders_.at(family);
      auto ms = create_once(uber, fallback_draw(programs_[first_member.at(family)], uber));
      if (!ms) {
        std::fprintf(stderr, "error: ubershader pipeline of family %s: %s\n", family_name(family).c_str(),
                     ms.error().to_string().c_str());
        return false;
      }
      uber_ms.push_back(ms->create_ms);
      uber_use_ms.push_back(ms->first_use_ms);
    }
  }
  const Stats exact = stats_of(exact_ms);
  const Stats uber = stats_of(uber_ms);
  const double ratio = exact.median > 0 ? uber.median / exact.median : 0;
  const Stats exact_use = stats_of(exact_use_ms);
  const Stats uber_use = stats_of(uber_use_ms);
  const double use_ratio = exact_use.median > 0 ? uber_use.median / exact_use.median : 0;

  std::printf("\n1. Pipeline creation (vkCreateGraphicsPipelines, fresh pipeline each time, no pipeline cache%s)\n",
              options_.no_salt ? "" : ", every module salted");
  std::printf("   %-26s %6s %10s %10s %10s %10s\n", "pipeline", "count", "median ms", "p90 ms", "min ms", "max ms");
  std::printf("   %-26s %6zu %10.3f %10.3f %10.3f %10.3f\n", "exact", exact.count, exact.median, exact.p90, exact.min,
              exact.max);
  std::printf("   %-26s %6zu %10.3f %10.3f %10.3f %10.3f\n", "ubershader", uber.count, uber.median, uber.p90, uber.min,
              uber.max);
  std::printf("   %-26s %6zu %10.3f %10.3f %10.3f %10.3f\n", "exact, first use", exact_use.count, exact_use.median,
              exact_use.p90, exact_use.min, exact_use.max);
  std::printf("   %-26s %6zu %10.3f %10.3f %10.3f %10.3f\n", "ubershader, first use", uber_use.count, uber_use.median,
              uber_use.p90, uber_use.min, uber_use.max);
  std::printf("   ubershader: %zu creations over %zu of the programs' %zu families; first creation %.3f ms\n",
              uber.count, created_families_.size(), families.size(), uber_ms.empty() ? 0.0 : uber_ms.front());
  std::printf("   ratio ubershader median / exact median: %.2fx (first use: %.2fx)\n", ratio, use_ratio);
  std::printf("   first use: wall time of modules + pipeline + a one-pixel draw, where a driver that defers its\n"
              "   compile to the first draw (lavapipe) pays it\n");

  report_["pipeline_creation"] = {{"exact", to_json(exact)},
                                  {"ubershader", to_json(uber)},
                                  {"ubershader_first_ms", uber_ms.empty() ? 0.0 : uber_ms.front()},
                                  {"ubershader_families_created", created_families_.size()},
                                  {"families_of_programs", families.size()},
                                  {"salted_modules", !options_.no_salt},
                                  {"ratio_ubershader_to_exact_median", ratio},
                                  {"exact_first_use", to_json(exact_use)},
                                  {"ubershader_first_use", to_json(uber_use)},
                                  {"ratio_first_use_ubershader_to_exact_median", use_ratio}};
  return true;
}

void Bench::print_spirv() {
  std::vector<double> exact_bytes, exact_instructions, uber_bytes, uber_instructions;
  for (const Program& p : programs_) {
    exact_bytes.push_back(static_cast<double>(p.exact.spirv.size() * 4));
    exact_instructions.push_back(static_cast<double>(instruction_count(p.exact.spirv)));
  }
  for (const FamilyKey& family : created_families_) {
    const compile::CompiledModule& uber = ubershaders_.at(family);
    uber_bytes.push_back(static_cast<double>(uber.spirv.size() * 4));
    uber_instructions.push_back(static_cast<double>(instruction_count(uber.spirv)));
  }
  const Stats eb = stats_of(exact_bytes), ei = stats_of(exact_instructions);
  const Stats ub = stats_of(uber_bytes), ui = stats_of(uber_instructions);
  std::printf("\n   SPIR-V (optimized, canonical IDs; medians, [min-max])\n");
  std::printf("   %-26s %10s %16s %14s %18s\n", "module", "bytes", "[range]", "instructions", "[range]");
  std::printf("   %-26s %10.0f %16s %14.0f %18s\n", "exact", eb.median, range_text(eb).c_str(), ei.median,
              range_text(ei).c_str());
  std::printf("   %-26s %10.0f %16s %14.0f %18s\n", "ubershader", ub.median, range_text(ub).c_str(), ui.median,
              range_text(ui).c_str());
  const double byte_ratio = eb.median > 0 ? ub.median / eb.median : 0;
  const double instruction_ratio = ei.median > 0 ? ui.median / ei.median : 0;
  std::printf("   ratio ubershader / exact median: %.2fx bytes, %.2fx instructions\n", byte_ratio, instruction_ratio);
  report_["spirv"] = {{"exact_median_bytes", eb.median},
                      {"exact_min_bytes", eb.min},
                      {"exact_max_bytes", eb.max},
                      {"exact_median_instructions", ei.median},
                      {"ubershader_median_bytes", ub.median},
                      {"ubershader_min_bytes", ub.min},
                      {"ubershader_max_bytes", ub.max},
                      {"ubershader_median_instructions", ui.median},
                      {"ubershader_modules", ub.count},
                      {"ratio_bytes", byte_ratio},
                      {"ratio_instructions", instruction_ratio}};
}

bool Bench::time_fills() {
  const bool cpu_rasterizer = executor_.device_name().find("llvmpipe") != std::string::npos;
  const uint32_t width = options_.width != 0 ? options_.width : (cpu_rasterizer ? 512 : 1024);
  const uint32_t height = options_.height != 0 ? options_.height : (cpu_rasterizer ? 512 : 1024);
  const size_t count = std::min(programs_.size(), static_cast<size_t>(options_.fill_programs));
  const auto repeats = static_cast<uint32_t>(options_.fill_repeats);
  std::fprintf(stderr, "filling %ux%u with %zu programs, both routes, %u timed fills each...\n", width, height, count,
               repeats);

  std::vector<double> exact_ms, uber_ms, ratios, exact_first, uber_first;
  size_t disagreements = 0;
  bool gpu_clock = true;
  nlohmann::json rows = nlohmann::json::array();
  std::printf("\n2. Fragment cost: one quad over a %ux%u target, every pixel one fragment invocation; ms per fill,\n"
              "   median of %u fills after a warm-up (first fill: the warm-up, with any compile deferred to the first draw)\n",
              width, height, repeats);
  std::printf("   %4s %16s %6s %11s %14s %8s %13s %13s %7s\n", "prog", "family", "stages", "exact ms",
              "ubershader ms", "ratio", "exact first", "uber first", "pixel");
  for (size_t i = 0; i < count; ++i) {
    const Program& p = programs_[i];
    auto uber = ubershader(p.family);
    auto exact_vertex = vertex_module(nv2a::fragment_varyings(p.exact.reflection));
    if (!uber || !exact_vertex) {
      std::fprintf(stderr, "error: program %zu: %s\n", i,
                   (!uber ? uber.error() : exact_vertex.error()).to_string().c_str());
      return false;
    }
    auto uber_vertex = vertex_module(nv2a::fragment_varyings((*uber)->reflection));
    if (!uber_vertex) {
      std::fprintf(stderr, "error: program %zu: %s\n", i, uber_vertex.error().to_string().c_str());
      return false;
    }
    auto exact = executor_.time_fill(spec_for(p.exact, **exact_vertex), exact_draw(p), width, height, repeats);
    if (!exact) {
      std::fprintf(stderr, "error: exact fill of program %zu: %s\n", i, exact.error().to_string().c_str());
      return false;
    }
    auto fallback = executor_.time_fill(spec_for(**uber, **uber_vertex), fallback_draw(p, **uber), width, height, repeats);
    if (!fallback) {
      std::fprintf(stderr, "error: ubershader fill of program %zu: %s\n", i, fallback.error().to_string().c_str());
      return false;
    }
    gpu_clock = gpu_clock && exact->gpu_timestamps && fallback->gpu_timestamps;
    const double ratio = exact->median_ms > 0 ? fallback->median_ms / exact->median_ms : 0;
    const bool agree = pixels_agree(*exact, *fallback);
    disagreements += !agree;
    exact_ms.push_back(exact->median_ms);
    uber_ms.push_back(fallback->median_ms);
    ratios.push_back(ratio);
    exact_first.push_back(exact->first_fill_ms);
    uber_first.push_back(fallback->first_fill_ms);
    const uint32_t stages = sbk_nv2a_stage_count(&p.program);
    std::printf("   %4zu %16s %6u %11.3f %14.3f %7.2fx %13.3f %13.3f %7s\n", i, family_name(p.family).c_str(), stages,
                exact->median_ms, fallback->median_ms, ratio, exact->first_fill_ms, fallback->first_fill_ms,
                agree ? "same" : "DIFFER");
    rows.push_back({{"program", i},
                    {"family", family_name(p.family)},
                    {"stages", stages},
                    {"exact_ms", exact->median_ms},
                    {"ubershader_ms", fallback->median_ms},
                    {"ratio", ratio},
                    {"exact_wall_ms", exact->wall_median_ms},
                    {"ubershader_wall_ms", fallback->wall_median_ms},
                    {"exact_first_fill_ms", exact->first_fill_ms},
                    {"ubershader_first_fill_ms", fallback->first_fill_ms},
                    {"pixels_agree", agree}});
  }
  const Stats exact = stats_of(exact_ms), uber = stats_of(uber_ms), ratio = stats_of(ratios);
  const Stats ef = stats_of(exact_first), uf = stats_of(uber_first);
  std::printf("   %4s %16s %6s %11.3f %14.3f %7.2fx %13.3f %13.3f\n", "all", "medians", "", exact.median, uber.median,
              ratio.median, ef.median, uf.median);
  std::printf("   ratio: ubershader / exact per program; 'all' gives the median of those ratios, range %.2fx-%.2fx\n",
              ratio.min, ratio.max);
  std::printf("   clock: %s\n",
              gpu_clock ? "GPU timestamps around the render pass (clear + draw)" : "wall clock around submit + wait");
  if (disagreements > 0) {
    std::printf("   warning: %zu program(s) gave a different pixel (0,0) on the two routes (tolerance 1)\n", disagreements);
  }
  report_["fill"] = {{"width", width},
                     {"height", height},
                     {"repeats", repeats},
                     {"clock", gpu_clock ? "gpu_timestamps" : "wall"},
                     {"programs", rows},
                     {"exact_median_ms", exact.median},
                     {"ubershader_median_ms", uber.median},
                     {"ratio_median", ratio.median},
                     {"ratio_min", ratio.min},
                     {"ratio_max", ratio.max},
                     {"exact_first_fill_median_ms", ef.median},
                     {"ubershader_first_fill_median_ms", uf.median},
                     {"pixel_disagreements", disagreements}};
  return true;
}

int run(const Options& options) {
  // Driver disk caches off, before the instance exists (drivers read these when they load): Mesa, and
  // NVIDIA's proprietary driver. bench/route_bench.sh sets them too.
  ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  ::setenv("__GL_SHADER_DISK_CACHE", "0", 1);

  vulkan::ExecutorOptions executor_options;
  // Mesa's lavapipe calls itself "llvmpipe (LLVM ...)".
  executor_options.device = options.device == "lavapipe" ? std::string("llvmpipe") : options.device;
  executor_options.validation = options.validation;
  auto executor = vulkan::Executor::create(executor_options);
  if (!executor) {
    std::fprintf(stderr, "error: %s\n", executor.error().to_string().c_str());
    return kExitToolchain;
  }
  vulkan::Executor& device = **executor;
  std::printf("device: %s\n", device.device_name().c_str());
  std::printf("programs: %d random %s (seed %llu), ubershader creations: %d, fill programs: %d\n", options.programs,
              options.texture_shader ? "texture-shader programs" : "combiner programs with plain fetches",
              static_cast<unsigned long long>(options.seed), options.ubershader_repeats, options.fill_programs);

  Bench bench(options, device);
  bench.report()["device"] = device.device_name();
  bench.report()["seed"] = options.seed;
  bench.report()["validation"] = device.validation_active();
  if (!bench.make_programs() || !bench.time_pipeline_creation()) return kExitToolchain;
  bench.print_spirv();
  if (!bench.time_fills()) return kExitToolchain;

  if (device.validation_active()) {
    std::printf("\nvalidation layer: %zu message(s)\n", device.validation_messages().size());
    for (const std::string& m : device.validation_messages()) std::printf("   %s\n", m.c_str());
    bench.report()["validation_messages"] = device.validation_messages().size();
  }
  if (!options.json.empty()) {
    std::ofstream out(options.json);
    out << bench.report().dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "error: could not write %s\n", options.json.c_str());
      return kExitOutput;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The cost of the nv2a fallback route (ubershader) next to the exact route, on one Vulkan device."};
  Options options;
  app.add_option("--programs", options.programs, "Random programs (distinct exact sources) for pipeline creation")
      ->check(CLI::PositiveNumber);
  app.add_option("--ubershader-repeats", options.ubershader_repeats,
                 "Ubershader pipeline creations, round-robin over the programs' families")
      ->check(CLI::PositiveNumber);
  app.add_option("--fill-programs", options.fill_programs, "Programs (the first of --programs) whose fills are timed")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--fill-repeats", options.fill_repeats, "Timed fills per program and route")->check(CLI::PositiveNumber);
  app.add_option("--width", options.width, "Fill target width (default 1024; 512 on lavapipe)")->check(CLI::PositiveNumber);
  app.add_option("--height", options.height, "Fill target height (default 1024; 512 on lavapipe)")
      ->check(CLI::PositiveNumber);
  app.add_option("--device", options.device,
                 "Vulkan device: substring of its name, case-insensitive (\"lavapipe\" means Mesa's llvmpipe)");
  app.add_option("--seed", options.seed, "Random program seed");
  app.add_option("--json", options.json, "Also write the figures as JSON to this file");
  app.add_flag("--validation", options.validation, "Enable the Khronos validation layer (slows pipeline creation)");
  app.add_flag("--texture-shader", options.texture_shader,
               "Random programs whose texture stages run every texture-shader mode (bump-env, dot products, "
               "reflections, clip planes, texel controls); default: combiner programs with plain fetches");
  app.add_flag("--no-salt", options.no_salt,
               "Create pipelines from the modules as compiled (a driver's in-memory cache may then answer repeats)");
  CLI11_PARSE(app, argc, argv);
  return run(options);
}
