// SPDX-License-Identifier: MIT
// The frozen exact route of the specconst guest on a real Vulkan driver (lavapipe in CI), against the driver's
// own specialization as the oracle: random value sets of the sample fragment shaders are written as a trace,
// read by the guest, and each exact key's module (what `build` stores: the values frozen, folded and optimised)
// is rendered next to the shader's generic module created with the same values in a VkSpecializationInfo.
// Every pixel must be the same (tolerance 0 on the RGBA8 target), with no validation message.
// SHADERBAKE_SEED picks the seed (printed on failure), SHADERBAKE_VALUE_SETS the count per shader.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "guests/specconst/fragment_runner.hpp"
#include "guests/specconst/random_values.hpp"
#include "guests/specconst/specconst_guest.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/compile/glslang_frontend.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/plan/bundle_plan.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"
#include "lib/vulkan/executor.hpp"
#include "runtime_loader/shaderbake_specconst.h"
#include "runtime_loader/shaderbake_vulkan.h"
#include "tests/temp_dir.hpp"

namespace {

using namespace shaderbake;
namespace fs = std::filesystem;

const fs::path kSamples = fs::path(SHADERBAKE_SOURCE_DIR) / "samples/specconst/shaders";

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 0) : fallback;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Draws final : trace::DrawConsumer {
  std::vector<trace::DrawEvent> events;
  void on_draw(const trace::DrawEvent& e) override { events.push_back(e); }
};

struct Shader {
  const char* fragment;
  const char* vertex;  // the trace's vertex stage (in its key; the executor draws with a pass-through)
  uint32_t textures;   // 4x4 RGBA8 textures at bindings 0.. (and lighting's light block at binding 2)
};

const Shader kShaders[] = {{"lighting.frag", "mesh.vert", 2}, {"tonemap.frag", "fullscreen.vert", 1}};

// Random inputs for a case of either shader: flat values for fragment input locations 0..3 (only those a
// route's fragment module reads reach it), 4x4 textures, and for lighting its light block at binding 2
// (directions, colours, ambient, fog colour and density).
struct RandomCase {
  std::array<std::array<float, 4>, 4> inputs;
  vulkan::DrawCase bindings;
};

RandomCase random_case(const Shader& shader, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> signed_unit(-1.0f, 1.0f), unit(0.0f, 1.0f);
  RandomCase c;
  for (auto& input : c.inputs) input = {signed_unit(rng) * 2.0f, signed_unit(rng) * 2.0f, unit(rng), unit(rng) * 20.0f};
  for (uint32_t t = 0; t < shader.textures; ++t) {
    vulkan::TextureBinding tex{t, vulkan::SamplerDim::dim2d, {0, 0, 0, 0}, 4, 4, 1, {}};
    for (int i = 0; i < 64; ++i) tex.texels.push_back(static_cast<uint8_t>(rng()));
    c.bindings.textures.push_back(std::move(tex));
  }
  if (shader.textures == 2) {
    std::vector<uint8_t> block(288);
    for (size_t i = 0; i < 72; ++i) {
      // direction[8] (floats 0-31) signed; colour[8], ambient and the fog colour (32-70) in [0, 1]; fog density.
      const float f = i < 32 ? signed_unit(rng) : i < 71 ? unit(rng) : unit(rng) * 0.2f;
      std::memcpy(block.data() + 4 * i, &f, 4);
    }
    c.bindings.uniforms.push_back({2, std::move(block)});
  }
  return c;
}

// A route's pipeline for a fragment module and the cases as its pass-through reads them.
struct Route {
  vulkan::PipelineSpec spec;
  std::vector<vulkan::DrawCase> cases;
};

Result<Route> route_for(std::vector<uint32_t> fragment_spirv, const compile::Reflection& fragment,
                        const std::vector<RandomCase>& cases) {
  auto spec = specconst::fragment_pipeline(std::move(fragment_spirv), fragment);
  if (!spec) return std::move(spec).error();
  Route r;
  r.spec = std::move(*spec);
  for (const RandomCase& c : cases) {
    vulkan::DrawCase d = c.bindings;
    for (uint32_t location : r.spec.attribute_locations) d.attributes.push_back(c.inputs[location - 1]);
    r.cases.push_back(std::move(d));
  }
  return r;
}

// `count` random value sets of `shader`'s constants (`scan`) as draws of a trace in `dir`; the sets in `sets`.
fs::path write_value_set_trace(const fs::path& dir, const Shader& shader, const sbk_specconst_module& scan,
                               uint64_t count, std::mt19937_64& rng,
                               std::vector<std::vector<specconst::ConstantValue>>& sets) {
  std::string trace = R"({"type":"capture","format":"shaderbake-trace/2","guest":"specconst"})" "\n";
  for (uint64_t n = 0; n < count; ++n) {
    sets.push_back(specconst::random_values(scan, rng));
    trace += R"({"type":"draw","frame":0,"draw":)" + std::to_string(n) + R"(,"program":{"vertex":{"shader":"shaders/)" +
             shader.vertex + R"("},"fragment":{"shader":"shaders/)" + shader.fragment + R"(","constants":)" +
             specconst::constants_json(sets.back()) + R"(}},"host":{"topology":"triangle_list","color_formats":["r8g8b8a8_unorm"],"vertex":{"bindings":[],"attributes":[]}}})" "\n";
  }
  const fs::path path = dir / (std::string(shader.fragment) + "." + std::to_string(sets.size()) + ".jsonl");
  std::ofstream(path) << trace;
  return path;
}

// The sample shaders under `dir`/shaders.
void copy_samples(const fs::path& dir) {
  fs::create_directories(dir / "shaders");
  for (const Shader& s : kShaders) {
    fs::copy_file(kSamples / s.fragment, dir / "shaders" / s.fragment, fs::copy_options::overwrite_existing);
    fs::copy_file(kSamples / s.vertex, dir / "shaders" / s.vertex, fs::copy_options::overwrite_existing);
  }
}

TEST(FrozenRoute, renders_what_the_driver_renders_with_the_same_specialization_values) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261205);
  const uint64_t value_sets = env_or("SHADERBAKE_VALUE_SETS", 500);
  constexpr size_t kCasesPerValueSet = 32;
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  test_support::TempDir dir("specconst_frozen");
  copy_samples(dir.path());
  std::mt19937_64 rng(seed);
  uint64_t compared = 0, disagreements = 0, distinct_modules = 0;
  for (const Shader& shader : kShaders) {
    // The generic module: glslang's SPIR-V of the sample, the module the keys hash and the oracle specializes.
    auto generic = compile::glsl_to_spirv(compile::ShaderStage::fragment, slurp(kSamples / shader.fragment));
    ASSERT_TRUE(generic) << generic.error().to_string();
    sbk_specconst_module scan;
    ASSERT_EQ(sbk_specconst_scan_module(generic->data(), generic->size(), 16, &scan), SBK_OK);
    auto generic_reflection = compile::reflect_spirv(*generic);
    ASSERT_TRUE(generic_reflection) << generic_reflection.error().to_string();

    // The value sets as a trace, read by the guest.
    std::vector<std::vector<specconst::ConstantValue>> sets;
    const fs::path trace_path = write_value_set_trace(dir.path(), shader, scan, value_sets, rng, sets);
    specconst::SpecconstGuest model;
    CollectingSink sink;
    trace::TraceReader reader(model, {}, sink);
    Draws draws;
    ASSERT_TRUE(reader.read_file(trace_path.string(), draws).ok());
    ASSERT_EQ(draws.events.size(), value_sets) << (sink.entries.empty() ? "" : sink.entries[0].error.to_string());

    std::vector<std::vector<uint32_t>> modules_seen;
    for (uint64_t n = 0; n < value_sets; ++n) {
      auto job = model.exact_shader(reader.exact_keys().bytes(draws.events[n].program));
      ASSERT_TRUE(job) << job.error().to_string();
      auto frozen = compile::compile_job(*job);
      ASSERT_TRUE(frozen) << "seed " << seed << " " << shader.fragment << " value set " << n << ": " << frozen.error().to_string();
      if (std::find(modules_seen.begin(), modules_seen.end(), frozen->spirv) == modules_seen.end())
        modules_seen.push_back(frozen->spirv);

      std::vector<RandomCase> cases;
      for (size_t k = 0; k < kCasesPerValueSet; ++k) cases.push_back(random_case(shader, rng));
      auto exact = route_for(frozen->spirv, frozen->reflection, cases);
      ASSERT_TRUE(exact) << exact.error().to_string();
      auto oracle = route_for(*generic, *generic_reflection, cases);
      ASSERT_TRUE(oracle) << oracle.error().to_string();
      oracle->spec.fragment_specialization = specconst::stage_specialization(specconst::specialization_values(sets[n]));
      auto got = (*executor)->run(exact->spec, exact->cases);
      ASSERT_TRUE(got) << got.error().to_string();
      auto want = (*executor)->run(oracle->spec, oracle->cases);
      ASSERT_TRUE(want) << want.error().to_string();
      for (size_t k = 0; k < cases.size(); ++k) {
        ++compared;
        const auto& a = (*got)[k];
        const auto& b = (*want)[k];
        if (a.discarded == b.discarded && a.rgba == b.rgba) continue;
        if (++disagreements <= 10) {
          std::string constants;
          for (const specconst::ConstantValue& v : sets[n]) constants += " " + std::to_string(v.id) + "=" + v.json;
          ADD_FAILURE() << "seed " << seed << " " << shader.fragment << " value set " << n << " {" << constants
                        << " } case " << k << ": frozen " << int(a.rgba[0]) << "," << int(a.rgba[1]) << ","
                        << int(a.rgba[2]) << "," << int(a.rgba[3]) << " vs driver " << int(b.rgba[0]) << ","
                        << int(b.rgba[1]) << "," << int(b.rgba[2]) << "," << int(b.rgba[3]);
        }
      }
    }
    distinct_modules += modules_seen.size();
    std::printf("%s: %llu value sets -> %llu exact keys -> %zu distinct frozen modules\n", shader.fragment,
                static_cast<unsigned long long>(value_sets), static_cast<unsigned long long>(reader.exact_keys().size()),
                modules_seen.size());
  }
  EXPECT_EQ(disagreements, 0u) << "of " << compared << " pixels (seed " << seed << ")";
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
  EXPECT_GT(distinct_modules, 10u) << "the value sets must exercise the shaders";
}

// The specialized route as a renderer meets it: a bundle built with BundleBuildOptions::specialize holds one
// generic module per shader and each pipeline's values in SPECIALIZATION_DATA; the loader hands them back
// (sbk_bundle_specialization). Each exact pipeline, created from that module with those values, must render what
// the frozen bundle's pipeline for the same key renders (and the frozen route what the driver renders, above).
TEST(SpecializedRoute, renders_what_the_frozen_route_renders_from_the_bundles) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261206);
  const uint64_t value_sets = env_or("SHADERBAKE_VALUE_SETS", 500) / 5;
  constexpr size_t kCasesPerValueSet = 16;
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  test_support::TempDir dir("specconst_specialized");
  copy_samples(dir.path());
  std::mt19937_64 rng(seed);
  uint64_t compared = 0, disagreements = 0, specialized_values = 0;
  for (const Shader& shader : kShaders) {
    auto generic = compile::glsl_to_spirv(compile::ShaderStage::fragment, slurp(kSamples / shader.fragment));
    ASSERT_TRUE(generic) << generic.error().to_string();
    sbk_specconst_module scan;
    ASSERT_EQ(sbk_specconst_scan_module(generic->data(), generic->size(), 16, &scan), SBK_OK);
    std::vector<std::vector<specconst::ConstantValue>> sets;
    const fs::path trace_path = write_value_set_trace(dir.path(), shader, scan, value_sets, rng, sets);

    specconst::SpecconstGuest model;
    CollectingSink sink;
    trace::TraceReader reader(model, {}, sink);
    plan::KeyCensus census(reader);
    ASSERT_TRUE(reader.read_file(trace_path.string(), census).ok());
    ASSERT_TRUE(sink.entries.empty()) << sink.entries[0].error.to_string();
    // The two bundles of the same trace, and the loader on each.
    std::array<std::vector<uint8_t>, 2> bytes;
    std::array<sbk_bundle, 2> bundles{};
    for (int specialize = 0; specialize < 2; ++specialize) {
      plan::BundleBuildOptions options;
      options.specialize = specialize == 1;
      auto built = plan::build_bundle(reader, census, model, options);
      ASSERT_TRUE(built) << built.error().to_string();
      ASSERT_TRUE(built->failures.empty()) << built->failures[0].error.to_string();
      bytes[specialize] = std::move(built->bytes);
      ASSERT_EQ(sbk_bundle_open_memory(&bundles[specialize], bytes[specialize].data(), bytes[specialize].size()), SBK_OK);
      ASSERT_EQ(sbk_bundle_check_sections(&bundles[specialize]), SBK_OK);
    }
    // The specialized bundle has one fragment module for every key (and one vertex module).
    EXPECT_EQ(sbk_bundle_module_count(&bundles[1]), 2u);
    EXPECT_GT(sbk_bundle_module_count(&bundles[0]), 10u);

    const KeyInterner& pipelines = census.pipeline_keys();
    for (uint32_t p = 0; p < pipelines.size(); ++p) {
      const auto key = pipelines.bytes(p);
      std::array<std::vector<uint32_t>, 2> fragment;
      std::array<compile::Reflection, 2> reflection;
      vulkan::StageSpecialization values;
      for (int b = 0; b < 2; ++b) {
        sbk_entry entry;
        ASSERT_EQ(sbk_bundle_find(&bundles[b], key.data(), key.size(), &entry), SBK_OK) << "pipeline " << p;
        sbk_module_info info;
        ASSERT_EQ(sbk_bundle_module_info(&bundles[b], entry.fragment_module, &info), SBK_OK);
        fragment[b].resize(info.raw_size / 4);
        size_t size = 0;
        ASSERT_EQ(sbk_bundle_read_module(&bundles[b], entry.fragment_module, fragment[b].data(), info.raw_size, &size, nullptr),
                  SBK_OK);
        auto reflected = compile::reflect_spirv(fragment[b]);
        ASSERT_TRUE(reflected) << reflected.error().to_string();
        reflection[b] = std::move(*reflected);
        sbk_specialization spec;
        const sbk_result r = sbk_bundle_specialization(&bundles[b], entry.index, &spec);
        if (b == 0) {
          EXPECT_EQ(r, SBK_NOT_FOUND) << "a frozen pipeline has no specialization data";
          continue;
        }
        if (r == SBK_NOT_FOUND) continue;  // every constant at its default
        ASSERT_EQ(r, SBK_OK);
        // As a renderer creates it: the recipe's create info, then its specialization data from the bundle.
        sbk_host_state host;
        ASSERT_EQ(sbk_bundle_entry_host_state(&bundles[b], entry.index, &host), SBK_OK);
        sbk_vk_pipeline_storage storage;
        VkGraphicsPipelineCreateInfo create;
        sbk_vk_fill_pipeline(&host, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, &storage, &create);
        ASSERT_EQ(sbk_vk_fill_specialization(&spec, &storage), SBK_OK);
        // The vertex stage's too: a key holds every used constant's value, defaults made explicit.
        const VkSpecializationInfo* vertex_values = create.pStages[0].pSpecializationInfo;
        ASSERT_NE(vertex_values, nullptr);
        EXPECT_EQ(vertex_values->dataSize, 4u * vertex_values->mapEntryCount);
        const VkSpecializationInfo* given = create.pStages[1].pSpecializationInfo;
        ASSERT_NE(given, nullptr);
        for (uint32_t m = 0; m < given->mapEntryCount; ++m)
          values.entries.push_back({given->pMapEntries[m].constantID, given->pMapEntries[m].offset,
                                    static_cast<uint32_t>(given->pMapEntries[m].size)});
        const auto* data = static_cast<const uint8_t*>(given->pData);
        values.data.assign(data, data + given->dataSize);
        specialized_values += given->mapEntryCount;
      }
      std::vector<RandomCase> cases;
      for (size_t k = 0; k < kCasesPerValueSet; ++k) cases.push_back(random_case(shader, rng));
      auto frozen = route_for(fragment[0], reflection[0], cases);
      ASSERT_TRUE(frozen) << frozen.error().to_string();
      auto specialized = route_for(fragment[1], reflection[1], cases);
      ASSERT_TRUE(specialized) << specialized.error().to_string();
      specialized->spec.fragment_specialization = values;
      auto a = (*executor)->run(frozen->spec, frozen->cases);
      ASSERT_TRUE(a) << a.error().to_string();
      auto b = (*executor)->run(specialized->spec, specialized->cases);
      ASSERT_TRUE(b) << b.error().to_string();
      for (size_t k = 0; k < cases.size(); ++k) {
        ++compared;
        if ((*a)[k].discarded == (*b)[k].discarded && (*a)[k].rgba == (*b)[k].rgba) continue;
        if (++disagreements <= 10)
          ADD_FAILURE() << "seed " << seed << " " << shader.fragment << " pipeline " << p << " case " << k << ": frozen "
                        << int((*a)[k].rgba[0]) << "," << int((*a)[k].rgba[1]) << "," << int((*a)[k].rgba[2])
                        << " vs specialized " << int((*b)[k].rgba[0]) << "," << int((*b)[k].rgba[1]) << ","
                        << int((*b)[k].rgba[2]);
      }
    }
    for (sbk_bundle& b : bundles) sbk_bundle_close(&b);
  }
  EXPECT_EQ(disagreements, 0u) << "of " << compared << " pixels (seed " << seed << ")";
  EXPECT_GT(specialized_values, 50u) << "the pipelines must carry values";
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

// Distance in units in the last place between two finite floats (their bit patterns in a monotonic order).
uint32_t ulp_distance(float a, float b) {
  auto ordered = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? int64_t{INT32_MIN} - i : int64_t{i};
  };
  const int64_t d = ordered(a) - ordered(b);
  return static_cast<uint32_t>(d < 0 ? -d : d);
}

// The compute kernel (blur.comp): random workgroup widths (local_size_x_id), radii and directions, frozen by the
// guest's exact route, dispatched over the same random image as the generic module with the values in a
// VkSpecializationInfo. Tolerance: 3 units in the last place per float. The kernel divides by a constant the
// frozen module folds and the generic one computes, and Vulkan lets OpFDiv be off by 2.5 ULP: a driver may
// divide by a literal and by a run-time value differently (lavapipe does, by 1 ULP on some texels).
TEST(FrozenRoute, computes_what_the_driver_computes_with_the_same_specialization_values) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261207);
  const uint64_t value_sets = std::max<uint64_t>(20, env_or("SHADERBAKE_VALUE_SETS", 500) / 5);
  constexpr uint32_t kWidth = 70, kHeight = 5;
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  test_support::TempDir dir("specconst_compute");
  fs::create_directories(dir.path() / "shaders");
  fs::copy_file(kSamples / "blur.comp", dir.path() / "shaders/blur.comp");
  auto generic = compile::glsl_to_spirv(compile::ShaderStage::compute, slurp(kSamples / "blur.comp"));
  ASSERT_TRUE(generic) << generic.error().to_string();
  sbk_specconst_module scan;
  ASSERT_EQ(sbk_specconst_scan_module(generic->data(), generic->size(), 32, &scan), SBK_OK);
  std::mt19937_64 rng(seed);
  std::vector<std::vector<specconst::ConstantValue>> sets;
  std::string trace = R"({"type":"capture","format":"shaderbake-trace/2","guest":"specconst"})" "\n";
  static const uint32_t kWorkgroupWidths[] = {1, 7, 32, 64, 128};
  for (uint64_t n = 0; n < value_sets; ++n) {
    auto values = specconst::random_values(scan, rng);
    // The workgroup width must be one a device runs: at least 1, within maxComputeWorkGroupSize.
    std::erase_if(values, [](const specconst::ConstantValue& v) { return v.id == 0; });
    if (rng() % 4 != 0) {
      const uint32_t width = kWorkgroupWidths[rng() % 5];
      values.insert(values.begin(), {0, 32, width, std::to_string(width)});
    }
    sets.push_back(values);
    trace += R"({"type":"draw","frame":0,"draw":)" + std::to_string(n) +
             R"(,"program":{"compute":{"shader":"shaders/blur.comp","constants":)" + specconst::constants_json(values) + "}}}\n";
  }
  const fs::path trace_path = dir.path() / "blur.jsonl";
  std::ofstream(trace_path) << trace;
  specconst::SpecconstGuest model;
  CollectingSink sink;
  trace::TraceReader reader(model, {}, sink);
  Draws draws;
  ASSERT_TRUE(reader.read_file(trace_path.string(), draws).ok());
  ASSERT_EQ(draws.events.size(), value_sets) << (sink.entries.empty() ? "" : sink.entries[0].error.to_string());

  uint64_t disagreements = 0, compared_floats = 0, unequal_floats = 0;
  uint32_t max_ulps = 0;
  for (uint64_t n = 0; n < value_sets; ++n) {
    auto job = model.exact_shader(reader.exact_keys().bytes(draws.events[n].program));
    ASSERT_TRUE(job) << job.error().to_string();
    auto frozen = compile::compile_job(*job);
    ASSERT_TRUE(frozen) << frozen.error().to_string();
    uint32_t width = 1;  // the constant's default
    for (const auto& v : sets[n])
      if (v.id == 0) width = static_cast<uint32_t>(v.bits);
    vulkan::ComputeSpec spec;
    std::vector<uint8_t> source(kWidth * kHeight * 16);
    for (size_t i = 0; i < source.size() / 4; ++i) {
      const float f = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
      std::memcpy(source.data() + 4 * i, &f, 4);
    }
    spec.storage_buffers = {source, std::vector<uint8_t>(source.size(), 0)};
    spec.push_constants.resize(8);
    std::memcpy(spec.push_constants.data(), &kWidth, 4);
    std::memcpy(spec.push_constants.data() + 4, &kHeight, 4);
    spec.groups = {(kWidth + width - 1) / width, kHeight, 1};
    spec.spirv = frozen->spirv;
    auto got = (*executor)->run_compute(spec);
    ASSERT_TRUE(got) << got.error().to_string();
    spec.spirv = *generic;
    spec.specialization = specconst::stage_specialization(specconst::specialization_values(sets[n]));
    auto want = (*executor)->run_compute(spec);
    ASSERT_TRUE(want) << want.error().to_string();
    compared_floats += (*got)[1].size() / 4;
    uint32_t worst = 0;
    for (size_t i = 0; i < (*got)[1].size() / 4; ++i) {
      float a, b;
      std::memcpy(&a, (*got)[1].data() + 4 * i, 4);
      std::memcpy(&b, (*want)[1].data() + 4 * i, 4);
      const uint32_t ulps = ulp_distance(a, b);
      unequal_floats += ulps != 0;
      worst = std::max(worst, ulps);
    }
    max_ulps = std::max(max_ulps, worst);
    if (worst > 3 && ++disagreements <= 10) {
      std::string constants;
      for (const auto& v : sets[n]) constants += " " + std::to_string(v.id) + "=" + v.json;
      ADD_FAILURE() << "seed " << seed << " value set " << n << " {" << constants << " }: outputs " << worst
                    << " ULP apart";
    }
    EXPECT_NE((*want)[1], std::vector<uint8_t>(source.size(), 0)) << "the kernel wrote nothing (value set " << n << ")";
  }
  EXPECT_EQ(disagreements, 0u) << "of " << value_sets << " dispatches (seed " << seed << ")";
  std::printf("blur.comp: %llu value sets, %llu floats compared, %llu unequal, at most %u ULP apart\n",
              static_cast<unsigned long long>(value_sets), static_cast<unsigned long long>(compared_floats),
              static_cast<unsigned long long>(unequal_floats), max_ulps);
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

}  // namespace
