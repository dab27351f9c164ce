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
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "guests/specconst/fragment_runner.hpp"
#include "guests/specconst/key_view.hpp"
#include "guests/specconst/random_values.hpp"
#include "guests/specconst/specconst_guest.hpp"
#include "lib/core/hex.hpp"
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

// A stage's values (VkSpecializationInfo contents) as the runtime header reads them; `entries` keeps the map.
sbk_specconst_values header_values(const vulkan::StageSpecialization& stage, std::vector<sbk_specconst_map_entry>& entries) {
  entries.clear();
  for (const auto& e : stage.entries) entries.push_back({e.constant_id, e.offset, e.size});
  return {static_cast<uint32_t>(entries.size()), entries.data(), stage.data.size(), stage.data.data()};
}

// The fallback packet of a pipeline of `scans` created with `values` (one per stage), as a renderer writes it.
std::vector<uint8_t> packet_of(const std::vector<const sbk_specconst_module*>& scans,
                               const std::vector<vulkan::StageSpecialization>& values) {
  std::vector<std::vector<sbk_specconst_map_entry>> entries(values.size());
  std::vector<sbk_specconst_values> header;
  for (size_t s = 0; s < values.size(); ++s) header.push_back(header_values(values[s], entries[s]));
  std::vector<uint8_t> packet(SBK_SPECCONST_PACKET_MAX_SIZE);
  size_t size = 0;
  EXPECT_EQ(sbk_specconst_encode_packet(scans.data(), header.data(), static_cast<uint32_t>(scans.size()), packet.data(),
                                        packet.size(), &size),
            SBK_OK);
  packet.resize(size);
  return packet;
}

// The family's generic module (what `build` stores for the fallback route), compiled by the chain.
Result<compile::CompiledModule> fallback_module(const specconst::SpecconstGuest& model, std::span<const uint8_t> exact_key) {
  auto view = model.describe_exact_key(exact_key);
  if (!view) return std::move(view).error();
  if (view->admission != 0)
    return Error{ErrorKind::internal, "rejected", "admission rejects the key: " + model.rejection_name(view->admission), {}};
  auto job = model.fallback_shader(view->family_key);
  if (!job) return std::move(job).error();
  return compile::compile_job(*job);
}

bool same_pixels(const std::vector<vulkan::PixelResult>& a, const std::vector<vulkan::PixelResult>& b, size_t k) {
  return a[k].discarded == b[k].discarded && a[k].rgba == b[k].rgba;
}

std::string rgba(const vulkan::PixelResult& p) {
  return std::to_string(p.rgba[0]) + "," + std::to_string(p.rgba[1]) + "," + std::to_string(p.rgba[2]) + "," +
         std::to_string(p.rgba[3]) + (p.discarded ? " (discarded)" : "");
}

// The exact and fallback routes of the graphics samples against the driver's own specialization: random value
// sets, each drawn three ways over the same random inputs (the frozen module; the family's generic module with the
// value set's packet; the generic module glslang made, created with the values in a VkSpecializationInfo).
TEST(FrozenRoute, renders_what_the_driver_renders_with_the_same_specialization_values) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261205);
  const uint64_t value_sets = env_or("SHADERBAKE_VALUE_SETS", 500);
  constexpr size_t kCasesPerValueSet = 32;
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  test_support::TempDir dir("specconst_frozen");
  copy_samples(dir.path());
  std::mt19937_64 rng(seed);
  uint64_t compared = 0, disagreements = 0, distinct_modules = 0, fallback_value_sets = 0;
  for (const Shader& shader : kShaders) {
    // The generic module: glslang's SPIR-V of the sample, the module the keys hash and the oracle specializes.
    auto generic = compile::glsl_to_spirv(compile::ShaderStage::fragment, slurp(kSamples / shader.fragment));
    ASSERT_TRUE(generic) << generic.error().to_string();
    sbk_specconst_module scan;
    ASSERT_EQ(sbk_specconst_scan_module(generic->data(), generic->size(), 16, &scan), SBK_OK);
    auto generic_reflection = compile::reflect_spirv(*generic);
    ASSERT_TRUE(generic_reflection) << generic_reflection.error().to_string();
    auto vertex = compile::glsl_to_spirv(compile::ShaderStage::vertex, slurp(kSamples / shader.vertex));
    ASSERT_TRUE(vertex) << vertex.error().to_string();
    sbk_specconst_module vertex_scan;
    ASSERT_EQ(sbk_specconst_scan_module(vertex->data(), vertex->size(), 1, &vertex_scan), SBK_OK);
    const std::vector<const sbk_specconst_module*> scans = {&vertex_scan, &scan};
    const uint32_t packet_binding = sbk_specconst_packet_binding(scans.data(), 2);
    std::optional<compile::CompiledModule> generic_fallback;

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
      oracle->spec.fragment_specialization = compile::specialization_data(specconst::specialization_values(sets[n]));
      auto got = (*executor)->run(exact->spec, exact->cases);
      ASSERT_TRUE(got) << got.error().to_string();
      auto want = (*executor)->run(oracle->spec, oracle->cases);
      ASSERT_TRUE(want) << want.error().to_string();

      // The fallback route: one generic module for every value set of the family, the values in its packet.
      if (!generic_fallback) {
        auto made = fallback_module(model, reader.exact_keys().bytes(draws.events[n].program));
        ASSERT_TRUE(made) << made.error().to_string();
        generic_fallback = std::move(*made);
      }
      const std::vector<uint8_t> packet = packet_of(scans, {{}, oracle->spec.fragment_specialization});
      ASSERT_FALSE(packet.empty());
      auto fallback = route_for(generic_fallback->spirv, generic_fallback->reflection, cases);
      ASSERT_TRUE(fallback) << fallback.error().to_string();
      for (vulkan::DrawCase& d : fallback->cases) d.uniforms.push_back({packet_binding, packet});
      auto fell = (*executor)->run(fallback->spec, fallback->cases);
      ASSERT_TRUE(fell) << fell.error().to_string();
      ++fallback_value_sets;
      for (size_t k = 0; k < cases.size(); ++k) {
        ++compared;
        if (same_pixels(*got, *want, k) && same_pixels(*fell, *want, k)) continue;
        if (++disagreements <= 10) {
          std::string constants;
          for (const specconst::ConstantValue& v : sets[n]) constants += " " + std::to_string(v.id) + "=" + v.json;
          ADD_FAILURE() << "seed " << seed << " " << shader.fragment << " value set " << n << " {" << constants
                        << " } case " << k << ": frozen " << rgba((*got)[k]) << ", fallback " << rgba((*fell)[k])
                        << " vs driver " << rgba((*want)[k]);
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
  std::printf("%llu value sets, %llu cases each drawn by the frozen and the fallback route and by the driver, %llu disagreements\n",
              static_cast<unsigned long long>(fallback_value_sets), static_cast<unsigned long long>(compared),
              static_cast<unsigned long long>(disagreements));
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
    // The specialized bundle has one fragment module for every key and one vertex module, and the family's two
    // fallback modules (the same shaders reading their constants from the packet).
    EXPECT_EQ(sbk_bundle_module_count(&bundles[1]), 4u);
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
// The largest distance between the floats of two buffers of one size; `unequal` counts the floats that differ.
uint32_t worst_ulps(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, uint64_t& unequal) {
  uint32_t worst = 0;
  for (size_t i = 0; i + 4 <= got.size() && i + 4 <= want.size(); i += 4) {
    float a, b;
    std::memcpy(&a, got.data() + i, 4);
    std::memcpy(&b, want.data() + i, 4);
    const uint32_t ulps = ulp_distance(a, b);
    unequal += ulps != 0;
    worst = std::max(worst, ulps);
  }
  return worst;
}

// A dispatch of blur.comp over a random 70x5 image of vec4s (values in [-4, 4]) at workgroup width `width`:
// storage buffer 0 the source, 1 the output (zeroed), push constants the image size. The module is the caller's.
vulkan::ComputeSpec blur_dispatch(std::mt19937_64& rng, uint32_t width) {
  constexpr uint32_t kWidth = 70, kHeight = 5;
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
  return spec;
}

TEST(FrozenRoute, computes_what_the_driver_computes_with_the_same_specialization_values) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261207);
  const uint64_t value_sets = std::max<uint64_t>(20, env_or("SHADERBAKE_VALUE_SETS", 500) / 5);
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

  uint64_t disagreements = 0, compared_floats = 0, unequal_floats = 0, admitted = 0, rejected = 0;
  uint32_t max_ulps = 0;
  const sbk_specconst_module* scans[] = {&scan};
  std::optional<compile::CompiledModule> generic_fallback;
  for (uint64_t n = 0; n < value_sets; ++n) {
    auto job = model.exact_shader(reader.exact_keys().bytes(draws.events[n].program));
    ASSERT_TRUE(job) << job.error().to_string();
    auto frozen = compile::compile_job(*job);
    ASSERT_TRUE(frozen) << frozen.error().to_string();
    uint32_t width = 1;  // the constant's default
    for (const auto& v : sets[n])
      if (v.id == 0) width = static_cast<uint32_t>(v.bits);
    vulkan::ComputeSpec spec = blur_dispatch(rng, width);
    const std::vector<uint8_t> source = spec.storage_buffers[0];
    spec.spirv = frozen->spirv;
    auto got = (*executor)->run_compute(spec);
    ASSERT_TRUE(got) << got.error().to_string();
    spec.spirv = *generic;
    spec.specialization = compile::specialization_data(specconst::specialization_values(sets[n]));
    auto want = (*executor)->run_compute(spec);
    ASSERT_TRUE(want) << want.error().to_string();
    std::vector<std::vector<uint8_t>> results = {(*got)[1]};

    // The fallback route: admitted only at the default workgroup width (the packet cannot size a workgroup).
    const auto key = reader.exact_keys().bytes(draws.events[n].program);
    auto view = model.describe_exact_key(key);
    ASSERT_TRUE(view) << view.error().to_string();
    if (width != 1) {
      EXPECT_EQ(model.rejection_name(view->admission), "workgroup_size") << "value set " << n;
      ++rejected;
    } else {
      ASSERT_EQ(view->admission, 0u) << "value set " << n;
      if (!generic_fallback) {
        auto made = fallback_module(model, key);
        ASSERT_TRUE(made) << made.error().to_string();
        generic_fallback = std::move(*made);
      }
      vulkan::ComputeSpec fallback = spec;
      fallback.spirv = generic_fallback->spirv;
      fallback.specialization = {};
      fallback.uniforms = {{sbk_specconst_packet_binding(scans, 1), packet_of({&scan}, {spec.specialization})}};
      auto fell = (*executor)->run_compute(fallback);
      ASSERT_TRUE(fell) << fell.error().to_string();
      results.push_back((*fell)[1]);
      ++admitted;
    }
    uint32_t worst = 0;
    for (const std::vector<uint8_t>& result : results) {
      compared_floats += result.size() / 4;
      worst = std::max(worst, worst_ulps(result, (*want)[1], unequal_floats));
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
  std::printf("blur.comp: %llu value sets (%llu through the fallback route too, %llu rejected), %llu floats compared, "
              "%llu unequal, at most %u ULP apart\n",
              static_cast<unsigned long long>(value_sets), static_cast<unsigned long long>(admitted),
              static_cast<unsigned long long>(rejected), static_cast<unsigned long long>(compared_floats),
              static_cast<unsigned long long>(unequal_floats), max_ulps);
  EXPECT_GT(admitted, 0u);
  EXPECT_GT(rejected, 0u);
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

// Every value set of the sample session (samples/specconst/traces/session.jsonl) on each route against the
// driver's own specialization: the frozen module, the family's generic module with its packet (where admission
// takes the value set), and glslang's module of the shader created with the values. Graphics: every pixel equal
// (RGBA8); compute: within 3 ULP per float, as above.
TEST(AllRoutes, every_value_set_of_the_sample_session_computes_what_the_driver_computes) {
  const fs::path root = fs::path(SHADERBAKE_SOURCE_DIR) / "samples/specconst";
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  // Each sample shader's generic module and scan, by module hash (what the keys name).
  struct Generic {
    std::string file;
    std::vector<uint32_t> words;
    sbk_specconst_module scan;
  };
  std::map<std::string, Generic> generic;
  for (const auto& [file, stage, vk_stage] :
       {std::tuple{"lighting.frag", compile::ShaderStage::fragment, 16u}, {"tonemap.frag", compile::ShaderStage::fragment, 16u},
        {"mesh.vert", compile::ShaderStage::vertex, 1u}, {"fullscreen.vert", compile::ShaderStage::vertex, 1u},
        {"blur.comp", compile::ShaderStage::compute, 32u}}) {
    Generic g{file, {}, {}};
    auto words = compile::glsl_to_spirv(stage, slurp(root / "shaders" / file));
    ASSERT_TRUE(words) << words.error().to_string();
    g.words = std::move(*words);
    ASSERT_EQ(sbk_specconst_scan_module(g.words.data(), g.words.size(), vk_stage, &g.scan), SBK_OK);
    const std::string hash = hex_bytes(g.scan.hash);
    generic.emplace(hash, std::move(g));
  }

  specconst::SpecconstGuest model;
  CollectingSink sink;
  trace::TraceReader reader(model, {}, sink);
  Draws draws;
  ASSERT_TRUE(reader.read_file((root / "traces/session.jsonl").string(), draws).ok());
  ASSERT_TRUE(sink.entries.empty()) << sink.entries[0].error.to_string();
  std::mt19937_64 rng(20261208);
  std::map<std::vector<uint8_t>, compile::CompiledModule> fallbacks;  // by family key
  uint64_t graphics = 0, compute = 0, through_fallback = 0, rejected = 0, disagreements = 0;
  for (uint32_t p = 0; p < reader.exact_keys().size(); ++p) {
    const auto key = reader.exact_keys().bytes(p);
    auto modules = specconst::read_exact_key(key);
    ASSERT_TRUE(modules) << modules.error().to_string();
    std::vector<const Generic*> shaders;
    std::vector<const sbk_specconst_module*> scans;
    std::vector<vulkan::StageSpecialization> values;
    for (const specconst::KeyModule& m : *modules) {
      auto it = generic.find(hex_bytes(m.hash));
      ASSERT_NE(it, generic.end()) << "the session names a module that is no sample shader";
      shaders.push_back(&it->second);
      scans.push_back(&it->second.scan);
      values.push_back(compile::specialization_data(specconst::specialization_of(m)));
    }
    auto job = model.exact_shader(key);
    ASSERT_TRUE(job) << job.error().to_string();
    auto frozen = compile::compile_job(*job);
    ASSERT_TRUE(frozen) << frozen.error().to_string();
    auto view = model.describe_exact_key(key);
    ASSERT_TRUE(view) << view.error().to_string();
    const compile::CompiledModule* fallback = nullptr;
    if (view->admission == 0) {
      auto it = fallbacks.find(view->family_key);
      if (it == fallbacks.end()) {
        auto made = fallback_module(model, key);
        ASSERT_TRUE(made) << made.error().to_string();
        it = fallbacks.emplace(view->family_key, std::move(*made)).first;
      }
      fallback = &it->second;
      ++through_fallback;
    } else {
      ++rejected;
    }
    const std::vector<uint8_t> packet = fallback ? packet_of(scans, values) : std::vector<uint8_t>();
    const uint32_t packet_binding = sbk_specconst_packet_binding(scans.data(), static_cast<uint32_t>(scans.size()));

    if (modules->size() == 1) {  // the blur kernel
      ++compute;
      uint32_t width = 1;
      for (const auto& c : modules->front().constants)
        if (c.id == 0) width = static_cast<uint32_t>(c.bits);
      vulkan::ComputeSpec spec = blur_dispatch(rng, width);
      spec.spirv = shaders[0]->words;
      spec.specialization = values[0];
      auto want = (*executor)->run_compute(spec);
      ASSERT_TRUE(want) << want.error().to_string();
      std::vector<vulkan::ComputeSpec> routes(1, spec);
      routes[0].spirv = frozen->spirv;
      routes[0].specialization = {};
      if (fallback) {
        routes.push_back(routes[0]);
        routes[1].spirv = fallback->spirv;
        routes[1].uniforms = {{packet_binding, packet}};
      }
      for (const vulkan::ComputeSpec& route : routes) {
        auto got = (*executor)->run_compute(route);
        ASSERT_TRUE(got) << got.error().to_string();
        uint64_t unequal = 0;
        if (worst_ulps((*got)[1], (*want)[1], unequal) > 3 && ++disagreements <= 10)
          ADD_FAILURE() << "blur.comp, key " << p << ": more than 3 ULP from the driver";
      }
      continue;
    }
    ++graphics;
    const Shader& shader = shaders[1]->file == "lighting.frag" ? kShaders[0] : kShaders[1];
    std::vector<RandomCase> cases;
    for (size_t k = 0; k < 16; ++k) cases.push_back(random_case(shader, rng));
    auto oracle = route_for(shaders[1]->words, *compile::reflect_spirv(shaders[1]->words), cases);
    ASSERT_TRUE(oracle) << oracle.error().to_string();
    oracle->spec.fragment_specialization = values[1];
    auto want = (*executor)->run(oracle->spec, oracle->cases);
    ASSERT_TRUE(want) << want.error().to_string();
    std::vector<Route> routes;
    auto exact = route_for(frozen->spirv, frozen->reflection, cases);
    ASSERT_TRUE(exact) << exact.error().to_string();
    routes.push_back(std::move(*exact));
    if (fallback) {
      auto generic_route = route_for(fallback->spirv, fallback->reflection, cases);
      ASSERT_TRUE(generic_route) << generic_route.error().to_string();
      for (vulkan::DrawCase& d : generic_route->cases) d.uniforms.push_back({packet_binding, packet});
      routes.push_back(std::move(*generic_route));
    }
    for (size_t r = 0; r < routes.size(); ++r) {
      auto got = (*executor)->run(routes[r].spec, routes[r].cases);
      ASSERT_TRUE(got) << got.error().to_string();
      for (size_t k = 0; k < cases.size(); ++k)
        if (!same_pixels(*got, *want, k) && ++disagreements <= 10)
          ADD_FAILURE() << shaders[1]->file << ", key " << p << " case " << k << ": " << (r == 0 ? "frozen " : "fallback ")
                        << rgba((*got)[k]) << " vs driver " << rgba((*want)[k]);
    }
  }
  std::printf("session: %llu graphics and %llu compute value sets; %llu through the fallback route too, %llu rejected\n",
              static_cast<unsigned long long>(graphics), static_cast<unsigned long long>(compute),
              static_cast<unsigned long long>(through_fallback), static_cast<unsigned long long>(rejected));
  EXPECT_EQ(disagreements, 0u);
  EXPECT_GT(graphics, 5u);
  EXPECT_GT(compute, 1u);
  EXPECT_GT(through_fallback, 5u);
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

}  // namespace
