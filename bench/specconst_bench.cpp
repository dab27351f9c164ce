// SPDX-License-Identifier: MIT
// The specconst guest's routes, frozen against specialized against fallback, in one run:
//  1. build: N random value sets of each sample shader (lighting.frag with mesh.vert, tonemap.frag with
//     fullscreen.vert, blur.comp) as one trace, built frozen and specialized on T threads without a cache:
//     wall time, value sets per second, modules and bundle size, and what the frozen route would store without
//     dedupe after folding (one module per exact key);
//  2. the same value sets through the shell pipeline a renderer's build would run without shaderbake
//     (glslangValidator once per shader, then spirv-opt --set-spec-const-default-value --freeze-spec-const -O
//     and spirv-val per value set, T at a time with xargs -P);
//  3. on a Vulkan device, K value sets of each fragment shader: pipeline creation (vkCreateGraphicsPipelines, no
//     pipeline cache) of the frozen module, of the generic module with the values in a VkSpecializationInfo and
//     of the family's fallback module (the values in its uniform packet; a renderer creates it once per family,
//     not per value set), first use (creation + the first fill: lavapipe compiles at the first draw), and the
//     fragment cost of a full-target fill through each; and value sets of the compute kernel at its default
//     workgroup width, dispatched over a 1024x256 image on the three routes (creation, first use, dispatch).
// Prints figures (and with --json the same numbers as JSON); asserts nothing about time.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "guests/specconst/fragment_runner.hpp"
#include "guests/specconst/random_values.hpp"
#include "guests/specconst/specconst_guest.hpp"
#include "guests/specconst/uniform_fallback.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/compile/glslang_frontend.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/plan/bundle_plan.hpp"
#include "lib/plan/compile_plan.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"
#include "lib/vulkan/executor.hpp"

namespace {

using namespace shaderbake;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string shaders = std::string(SHADERBAKE_SOURCE_DIR) + "/samples/specconst/shaders";
  int value_sets = 200;
  int device_value_sets = 20;
  int fill_repeats = 10;
  unsigned threads = 2;
  std::string device;  // empty: lavapipe (llvmpipe) when present
  uint64_t seed = 1;
  bool skip_shell = false;
  bool skip_device = false;
  std::string json;
};

struct Stage {
  const char* file;
  const char* stage;  // the trace's stage name
  compile::ShaderStage shader_stage;
};

struct Program {
  Stage shader;        // the one whose constants vary
  const char* vertex;  // its graphics pipeline's vertex shader, or nullptr for compute
};

const Program kPrograms[] = {{{"lighting.frag", "fragment", compile::ShaderStage::fragment}, "mesh.vert"},
                             {{"tonemap.frag", "fragment", compile::ShaderStage::fragment}, "fullscreen.vert"},
                             {{"blur.comp", "compute", compile::ShaderStage::compute}, nullptr}};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Generated {
  std::vector<uint32_t> generic;  // glslang's module of the shader
  sbk_specconst_module scan{};
  std::vector<std::vector<specconst::ConstantValue>> sets;
};

const char* kHost =
    R"({"topology":"triangle_list","color_formats":["r8g8b8a8_unorm"],"vertex":{"bindings":[{"binding":0,"stride":32,"rate":"vertex"}],)"
    R"("attributes":[{"location":0,"binding":0,"format":"r32g32b32_sfloat","offset":0},{"location":1,"binding":0,"format":"r32g32b32_sfloat","offset":12},)"
    R"({"location":2,"binding":0,"format":"r32g32_sfloat","offset":24}]}})";
const char* kPostHost = R"({"topology":"triangle_list","color_formats":["r8g8b8a8_unorm"],"vertex":{"bindings":[],"attributes":[]}})";

int run(const Options& o) {
  const fs::path dir = fs::temp_directory_path() / ("shaderbake_specconst_bench_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "shaders");
  for (const auto& entry : fs::directory_iterator(o.shaders)) fs::copy_file(entry.path(), dir / "shaders" / entry.path().filename());
  nlohmann::ordered_json out;
  out["value_sets_per_shader"] = o.value_sets;
  out["threads"] = o.threads;

  // The trace: every value set of every shader, one draw (or dispatch) each.
  std::mt19937_64 rng(o.seed);
  std::vector<Generated> generated;
  std::string trace = R"({"type":"capture","format":"shaderbake-trace/2","guest":"specconst","generator":"specconst_bench"})" "\n";
  int n = 0;
  for (const Program& p : kPrograms) {
    Generated g;
    auto words = compile::glsl_to_spirv(p.shader.shader_stage, slurp(dir / "shaders" / p.shader.file));
    if (!words) {
      std::fprintf(stderr, "error: %s\n", words.error().to_string().c_str());
      return 4;
    }
    g.generic = std::move(*words);
    sbk_specconst_scan_module(g.generic.data(), g.generic.size(), 0, &g.scan);
    for (int i = 0; i < o.value_sets; ++i) {
      g.sets.push_back(specconst::random_values(g.scan, rng));
      std::string program = std::string("{\"") + p.shader.stage + "\":{\"shader\":\"shaders/" + p.shader.file +
                            "\",\"constants\":" + specconst::constants_json(g.sets.back()) + "}";
      if (p.vertex) program += std::string(",\"vertex\":{\"shader\":\"shaders/") + p.vertex + "\"}";
      program += "}";
      trace += R"({"type":"draw","frame":)" + std::to_string(n / 100) + R"(,"draw":)" + std::to_string(n % 100) +
               R"(,"program":)" + program;
      if (p.vertex) trace += std::string(",\"host\":") + (std::string_view(p.vertex) == "mesh.vert" ? kHost : kPostHost);
      trace += "}\n";
      ++n;
    }
    generated.push_back(std::move(g));
  }
  const fs::path trace_path = dir / "session.jsonl";
  std::ofstream(trace_path) << trace;

  // 1. build, frozen and specialized.
  std::printf("build of %d value sets (%d per shader, 3 shaders) on %u threads, no cache:\n", n, o.value_sets, o.threads);
  for (int specialize = 0; specialize < 2; ++specialize) {
    const auto start = Clock::now();
    specconst::SpecconstGuest model;
    CollectingSink sink;
    trace::TraceReader reader(model, {}, sink);
    plan::KeyCensus census(reader);
    if (!reader.read_file(trace_path.string(), census).ok() || !sink.entries.empty()) {
      std::fprintf(stderr, "error: the generated trace does not read: %s\n",
                   sink.entries.empty() ? "" : sink.entries[0].error.to_string().c_str());
      return 6;
    }
    plan::BundleBuildOptions options;
    options.threads = o.threads;
    options.write.threads = o.threads;
    options.specialize = specialize == 1;
    auto built = plan::build_bundle(reader, census, model, options);
    const double wall = seconds_since(start);
    if (!built) {
      std::fprintf(stderr, "error: %s\n", built.error().to_string().c_str());
      return 4;
    }
    nlohmann::ordered_json b;
    b["seconds"] = wall;
    b["value_sets_per_second"] = n / wall;
    b["exact_keys"] = built->specializations;
    b["exact_modules"] = built->exact_modules;
    b["modules"] = built->write.modules;
    b["raw_module_bytes"] = built->write.raw_module_bytes;
    b["bundle_bytes"] = built->write.bundle_bytes;
    b["families"] = built->families;
    b["fallback_pipelines"] = built->fallback_pipelines;
    b["failures"] = built->failures.size();
    const char* name = specialize ? "specialized" : "frozen";
    std::printf("  %-12s %7.2f s  %8.1f value sets/s  %5llu exact keys -> %5llu exact modules, %5llu modules, "
                "SPIR-V %8llu B, bundle %8llu B, %llu families, %zu failures\n",
                name, wall, n / wall, static_cast<unsigned long long>(built->specializations),
                static_cast<unsigned long long>(built->exact_modules), static_cast<unsigned long long>(built->write.modules),
                static_cast<unsigned long long>(built->write.raw_module_bytes),
                static_cast<unsigned long long>(built->write.bundle_bytes),
                static_cast<unsigned long long>(built->families), built->failures.size());
    if (!specialize) {
      // Without dedupe after folding: one module per exact key, its own bytes.
      auto plan = plan::compile_drawn_modules(reader, census, model, o.threads);
      uint64_t raw = 0;
      for (const plan::PlannedModule& m : plan.modules)
        if (m.module) raw += 4 * m.module->spirv.size();
      b["without_dedupe_modules"] = plan.modules.size();
      b["without_dedupe_raw_module_bytes"] = raw;
      std::printf("  %-12s %5zu modules, SPIR-V %8llu B (one module per exact key: no dedupe after folding)\n",
                  "frozen/nodup", plan.modules.size(), static_cast<unsigned long long>(raw));
    }
    out["build"][name] = b;
  }

  // 2. the shell pipeline.
  if (!o.skip_shell) {
    const fs::path work = dir / "shell";
    fs::create_directories(work);
    std::string jobs;
    int k = 0;
    for (size_t p = 0; p < std::size(kPrograms); ++p)
      for (const auto& set : generated[p].sets) {
        std::string values;
        for (const specconst::ConstantValue& v : set) values += (values.empty() ? "" : " ") + std::to_string(v.id) + ":" + v.json;
        const std::string out_spv = (work / (std::to_string(k++) + ".spv")).string();
        // A value set with every constant at its default sets none (spirv-opt refuses an empty list).
        const std::string set_values = values.empty() ? "" : "--set-spec-const-default-value '" + values + "' ";
        jobs += "spirv-opt " + set_values + "--freeze-spec-const -O " +
                (work / (std::string(kPrograms[p].shader.file) + ".spv")).string() + " -o " + out_spv +
                " && spirv-val --target-env vulkan1.0 " + out_spv + "\n";
      }
    std::ofstream(work / "jobs.txt") << jobs;
    const auto start = Clock::now();
    std::string glslang;
    for (const Program& p : kPrograms)
      glslang += "glslangValidator -V --target-env vulkan1.0 -o " + (work / (std::string(p.shader.file) + ".spv")).string() +
                 " " + (dir / "shaders" / p.shader.file).string() + " >/dev/null && ";
    const std::string command = glslang + "tr '\\n' '\\0' < " + (work / "jobs.txt").string() + " | xargs -0 -P " +
                                std::to_string(o.threads) + " -n 1 sh -c";
    const int rc = std::system(command.c_str());
    const double wall = seconds_since(start);
    out["shell"] = {{"seconds", wall}, {"value_sets_per_second", n / wall}, {"exit", rc}};
    std::printf("  %-12s %7.2f s  %8.1f value sets/s  (glslangValidator + spirv-opt --freeze-spec-const -O + spirv-val, "
                "xargs -P %u; exit %d)\n",
                "shell", wall, n / wall, o.threads, rc);
  }

  // 3. on a device: pipeline creation and fill cost, frozen vs specialized.
  if (!o.skip_device) {
    vulkan::ExecutorOptions eo;
    eo.device = o.device;
    eo.validation = false;
    auto executor = vulkan::Executor::create(eo);
    if (!executor) {
      std::fprintf(stderr, "error: %s\n", executor.error().to_string().c_str());
      return 4;
    }
    std::printf("device %s: %d value sets per fragment shader, fills of 512x512, %d timed each:\n",
                (*executor)->device_name().c_str(), o.device_value_sets, o.fill_repeats);
    out["device"]["name"] = (*executor)->device_name();
    for (size_t p = 0; p < 2; ++p) {
      const Program& program = kPrograms[p];
      auto generic_reflection = compile::reflect_spirv(generated[p].generic);
      // The family's fallback module (its pipeline's vertex stage comes first in the packet).
      auto vertex = compile::glsl_to_spirv(compile::ShaderStage::vertex, slurp(dir / "shaders" / program.vertex));
      if (!vertex) return 4;
      sbk_specconst_module vertex_scan;
      sbk_specconst_scan_module(vertex->data(), vertex->size(), 1, &vertex_scan);
      const sbk_specconst_module* scans[] = {&vertex_scan, &generated[p].scan};
      specconst::PacketPlacement placement{sbk_specconst_packet_binding(scans, 2), sbk_specconst_packet_words(&vertex_scan)};
      auto fallback_words = specconst::uniform_fallback_module(generated[p].generic, generated[p].scan, placement);
      if (!fallback_words) return 4;
      auto fallback = compile::compile_spirv(compile::ShaderStage::fragment, *fallback_words);
      if (!fallback) {
        std::fprintf(stderr, "error: %s\n", fallback.error().to_string().c_str());
        return 4;
      }
      std::vector<double> create[3], first_use[3], fill[3];
      for (int i = 0; i < o.device_value_sets && i < o.value_sets; ++i) {
        const auto values = specconst::specialization_values(generated[p].sets[i]);
        auto frozen = compile::compile_spirv(compile::ShaderStage::fragment, generated[p].generic, values);
        if (!frozen || !generic_reflection) {
          std::fprintf(stderr, "error: a value set does not compile\n");
          return 4;
        }
        const vulkan::StageSpecialization stage_values = compile::specialization_data(values);
        for (int route = 0; route < 3; ++route) {
          auto spec = route == 0   ? specconst::fragment_pipeline(frozen->spirv, frozen->reflection)
                      : route == 1 ? specconst::fragment_pipeline(generated[p].generic, *generic_reflection)
                                   : specconst::fragment_pipeline(fallback->spirv, fallback->reflection);
          if (!spec) return 4;
          if (route == 1) spec->fragment_specialization = stage_values;
          vulkan::DrawCase draw;
          for (size_t a = 0; a < spec->attribute_locations.size(); ++a) draw.attributes.push_back({0.3f, 0.6f, 0.5f, 4.0f});
          for (uint32_t t = 0; t < (p == 0 ? 2u : 1u); ++t)
            draw.textures.push_back({t, vulkan::SamplerDim::dim2d, {200, 120, 60, 255}, 1, 1, 1, {}});
          if (p == 0) draw.uniforms.push_back({2, std::vector<uint8_t>(288, 0x3e)});
          if (route == 2) {
            std::vector<sbk_specconst_map_entry> map;
            for (const auto& e : stage_values.entries) map.push_back({e.constant_id, e.offset, e.size});
            const sbk_specconst_values header[] = {
                {0, nullptr, 0, nullptr},
                {static_cast<uint32_t>(map.size()), map.data(), stage_values.data.size(), stage_values.data.data()}};
            std::vector<uint8_t> packet(SBK_SPECCONST_PACKET_MAX_SIZE);
            size_t size = 0;
            if (sbk_specconst_encode_packet(scans, header, 2, packet.data(), packet.size(), &size) != SBK_OK) return 4;
            packet.resize(size);
            draw.uniforms.push_back({placement.binding, std::move(packet)});
          }
          auto timing = (*executor)->time_fill(*spec, draw, 512, 512, o.fill_repeats);
          if (!timing) {
            std::fprintf(stderr, "error: %s\n", timing.error().to_string().c_str());
            return 4;
          }
          create[route].push_back(timing->pipeline_create_ms);
          first_use[route].push_back(timing->pipeline_create_ms + timing->first_fill_ms);
          fill[route].push_back(timing->median_ms);
        }
      }
      nlohmann::ordered_json d;
      for (int route = 0; route < 3; ++route) {
        const char* name = route == 0 ? "frozen" : route == 1 ? "specialized" : "fallback";
        d[name] = {{"pipeline_create_median_ms", median(create[route])},
                   {"first_use_median_ms", median(first_use[route])},
                   {"fill_median_ms", median(fill[route])}};
        std::printf("  %-14s %-12s pipeline creation median %8.3f ms, first use (creation + first fill) %8.3f ms, "
                    "fill median %8.3f ms\n",
                    program.shader.file, name, median(create[route]), median(first_use[route]), median(fill[route]));
      }
      auto ratio = [](const std::vector<double>& a, const std::vector<double>& b) { return median(a) / std::max(1e-9, median(b)); };
      std::printf("  %-14s specialized/frozen: creation %.2fx, first use %.2fx, fill %.2fx\n", program.shader.file,
                  ratio(create[1], create[0]), ratio(first_use[1], first_use[0]), ratio(fill[1], fill[0]));
      std::printf("  %-14s fallback/frozen: creation %.2fx (once per family), first use %.2fx, fill %.2fx\n",
                  program.shader.file, ratio(create[2], create[0]), ratio(first_use[2], first_use[0]),
                  ratio(fill[2], fill[0]));
      out["device"][program.shader.file] = d;
    }

    // The kernel: value sets at its default workgroup width (the one width its fallback serves), each dispatched
    // over a 1024x256 image frozen, specialized and through the fallback with its packet.
    const Generated& blur = generated[2];
    const sbk_specconst_module* blur_scans[] = {&blur.scan};
    const specconst::PacketPlacement blur_placement{sbk_specconst_packet_binding(blur_scans, 1), 0};
    auto blur_fallback_words = specconst::uniform_fallback_module(blur.generic, blur.scan, blur_placement);
    if (!blur_fallback_words) return 4;
    auto blur_fallback = compile::compile_spirv(compile::ShaderStage::compute, *blur_fallback_words);
    if (!blur_fallback) {
      std::fprintf(stderr, "error: %s\n", blur_fallback.error().to_string().c_str());
      return 4;
    }
    constexpr uint32_t kImageWidth = 1024, kImageHeight = 256;
    std::vector<uint8_t> image(size_t{kImageWidth} * kImageHeight * 16);
    for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<uint8_t>(i % 4 == 3 ? 0x3f : rng());
    std::vector<double> create[3], first_use[3], cost[3], wall[3];
    bool timestamps = false;
    for (const auto& set : blur.sets) {
      if (static_cast<int>(cost[0].size()) == o.device_value_sets) break;
      if (std::any_of(set.begin(), set.end(), [](const specconst::ConstantValue& v) { return v.id == 0 && v.bits != 1; }))
        continue;
      const auto values = specconst::specialization_values(set);
      auto frozen = compile::compile_spirv(compile::ShaderStage::compute, blur.generic, values);
      if (!frozen) return 4;
      vulkan::ComputeSpec spec;
      spec.storage_buffers = {image, std::vector<uint8_t>(image.size(), 0)};
      spec.push_constants.resize(8);
      std::memcpy(spec.push_constants.data(), &kImageWidth, 4);
      std::memcpy(spec.push_constants.data() + 4, &kImageHeight, 4);
      spec.groups = {kImageWidth, kImageHeight, 1};  // the default workgroup: 1x1x1
      const vulkan::StageSpecialization stage_values = compile::specialization_data(values);
      for (int route = 0; route < 3; ++route) {
        vulkan::ComputeSpec r = spec;
        r.spirv = route == 0 ? frozen->spirv : route == 1 ? blur.generic : blur_fallback->spirv;
        if (route == 1) r.specialization = stage_values;
        if (route == 2) {
          std::vector<sbk_specconst_map_entry> map;
          for (const auto& e : stage_values.entries) map.push_back({e.constant_id, e.offset, e.size});
          const sbk_specconst_values header{static_cast<uint32_t>(map.size()), map.data(), stage_values.data.size(),
                                            stage_values.data.data()};
          std::vector<uint8_t> packet(SBK_SPECCONST_PACKET_MAX_SIZE);
          size_t size = 0;
          if (sbk_specconst_encode_packet(blur_scans, &header, 1, packet.data(), packet.size(), &size) != SBK_OK) return 4;
          packet.resize(size);
          r.uniforms = {{blur_placement.binding, std::move(packet)}};
        }
        auto timing = (*executor)->time_compute(r, o.fill_repeats);
        if (!timing) {
          std::fprintf(stderr, "error: %s\n", timing.error().to_string().c_str());
          return 4;
        }
        timestamps = timing->gpu_timestamps;
        create[route].push_back(timing->pipeline_create_ms);
        first_use[route].push_back(timing->pipeline_create_ms + timing->first_dispatch_ms);
        cost[route].push_back(timing->median_ms);
        wall[route].push_back(timing->wall_median_ms);
      }
    }
    std::printf("  blur.comp: %zu value sets at the default workgroup width, dispatches over %ux%u (%s):\n",
                cost[0].size(), kImageWidth, kImageHeight, timestamps ? "GPU timestamps" : "wall clock");
    nlohmann::ordered_json d;
    for (int route = 0; route < 3; ++route) {
      const char* name = route == 0 ? "frozen" : route == 1 ? "specialized" : "fallback";
      d[name] = {{"pipeline_create_median_ms", median(create[route])},
                 {"first_use_median_ms", median(first_use[route])},
                 {"dispatch_median_ms", median(cost[route])},
                 {"dispatch_submit_wait_median_ms", median(wall[route])}};
      std::printf("  %-14s %-12s pipeline creation median %8.3f ms, first use (creation + first dispatch) %8.3f ms, "
                  "dispatch median %8.3f ms (submit + wait %8.3f ms)\n",
                  "blur.comp", name, median(create[route]), median(first_use[route]), median(cost[route]),
                  median(wall[route]));
    }
    out["device"]["blur.comp"] = d;
  }
  fs::remove_all(dir);
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << out.dump(2) << "\n";
    if (!f) return 5;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("The specconst guest's exact route, frozen against specialized: build, module count and size, pipeline "
               "creation and fill cost on a Vulkan device, and a shell pipeline of glslangValidator + spirv-opt");
  app.add_option("--shaders", o.shaders, "The sample shaders' directory");
  app.add_option("--value-sets", o.value_sets, "Random value sets per shader")->check(CLI::Range(1, 100000));
  app.add_option("--device-value-sets", o.device_value_sets, "Value sets per fragment shader on the device")
      ->check(CLI::Range(0, 10000));
  app.add_option("--fill-repeats", o.fill_repeats, "Timed fills per pipeline")->check(CLI::Range(1, 1000));
  app.add_option("-j,--threads", o.threads, "Build threads (and xargs -P of the shell pipeline)")->check(CLI::Range(1, 256));
  app.add_option("--device", o.device, "Vulkan device name substring (default: lavapipe when present)");
  app.add_option("--seed", o.seed, "Seed of the value sets");
  app.add_flag("--skip-shell", o.skip_shell, "Leave out the shell pipeline");
  app.add_flag("--skip-device", o.skip_device, "Leave out the device measurements");
  app.add_option("--json", o.json, "Also write the figures as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  return run(o);
}
