// SPDX-License-Identifier: MIT
// The fallback route: fail-closed admission, the runtime packet, and the ubershader against
// the CPU oracle on a real Vulkan driver, with ONE pipeline per family for thousands of programs.
// SHADERBAKE_SEED picks the seed (printed on failure); SHADERBAKE_FALLBACK_PROGRAMS the count.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/fallback_emitter.hpp"
#include "guests/nv2a/random_program.hpp"
#include "guests/nv2a/route_runner.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/vulkan/executor.hpp"

namespace {

using namespace shaderbake;

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 0) : fallback;
}

std::vector<uint8_t> exact_key(const sbk_nv2a_program& p) {
  std::vector<uint8_t> k(SBK_NV2A_EXACT_KEY_SIZE);
  sbk_nv2a_encode_exact_key(&p, k.data());
  return k;
}

std::vector<uint8_t> family_key(const sbk_nv2a_program& p) {
  std::vector<uint8_t> k(SBK_NV2A_FAMILY_KEY_SIZE);
  sbk_nv2a_encode_family_key(&p, k.data());
  return k;
}

bool agree(const nv2a::PixelOutput& a, const nv2a::PixelOutput& b) {
  if (a.discarded || b.discarded) return a.discarded == b.discarded;
  for (int i = 0; i < 4; ++i)
    if (std::abs(int(a.rgba[i]) - int(b.rgba[i])) > 1) return false;
  return true;
}

std::string text(const nv2a::PixelOutput& o) {
  if (o.discarded) return "discard";
  return std::to_string(o.rgba[0]) + "," + std::to_string(o.rgba[1]) + "," + std::to_string(o.rgba[2]) + "," + std::to_string(o.rgba[3]);
}

// A valid two-stage program with one 2D texture: the base every rejection case breaks in one place.
sbk_nv2a_program valid_program() {
  sbk_nv2a_program p{};
  p.combiner_control = 0x00000002;
  p.rgb_inputs[0] = 0x08040000;   // A = t0, B = v0
  p.rgb_outputs[0] = 0x000000C0;  // AB -> r0
  p.alpha_inputs[0] = 0x18140000;
  p.alpha_outputs[0] = 0x000000C0;
  p.rgb_inputs[1] = 0x0C010000;   // r0 * c0
  p.rgb_outputs[1] = 0x000000C0;
  p.alpha_inputs[1] = 0x1C300000;
  p.alpha_outputs[1] = 0x000000C0;
  p.final_inputs[0] = 0x0000000C;
  p.final_inputs[1] = 0x00001C00;
  p.texture_modes[0] = SBK_NV2A_TEXTURE_PROJECT2D;
  p.texture_enabled[0] = 1;
  return p;
}

void enable(sbk_nv2a_program& p, int stage, uint8_t mode) {
  p.texture_modes[stage] = mode;
  p.texture_enabled[stage] = 1;
}

// Whether the exact emitter serves the program: every texture mode but brdf, which it refuses by name.
bool exact_emitter_implements(const sbk_nv2a_program& p) {
  for (uint32_t s = 0; s < SBK_NV2A_TEXTURE_STAGES; ++s)
    if (sbk_nv2a_effective_texture_mode(&p, s) == SBK_NV2A_TEXTURE_BRDF) return false;
  return true;
}

struct Rejection {
  sbk_nv2a_reason reason;
  std::function<void(sbk_nv2a_program&)> apply;
};

std::vector<Rejection> rejections() {
  return {
      {SBK_NV2A_BAD_STAGE_COUNT, [](sbk_nv2a_program& p) { p.combiner_control = 0; }},
      {SBK_NV2A_BAD_STAGE_COUNT, [](sbk_nv2a_program& p) { p.combiner_control = 9; }},
      {SBK_NV2A_INVALID_REGISTER, [](sbk_nv2a_program& p) { p.rgb_inputs[1] = 0x06010000; }},
      {SBK_NV2A_INVALID_REGISTER, [](sbk_nv2a_program& p) { p.final_inputs[0] = 0x0000000C | 0x07000000; }},
      {SBK_NV2A_REGISTER_NOT_ALLOWED_HERE, [](sbk_nv2a_program& p) { p.rgb_inputs[0] = 0x0E040000; }},  // 14 in a stage
      {SBK_NV2A_REGISTER_NOT_ALLOWED_HERE, [](sbk_nv2a_program& p) { p.final_inputs[0] = 0x0E00000C; }},  // 14 in A
      {SBK_NV2A_REGISTER_NOT_ALLOWED_HERE, [](sbk_nv2a_program& p) { p.final_inputs[1] = 0x0F001C00; }},  // 15 in E
      {SBK_NV2A_FOG_ALPHA_IN_GENERAL_STAGE, [](sbk_nv2a_program& p) { p.alpha_inputs[0] = 0x13140000; }},
      {SBK_NV2A_BAD_FINAL_MAPPING, [](sbk_nv2a_program& p) { p.final_inputs[0] = 0x0000004C; }},
      {SBK_NV2A_ALPHA_OF_PRODUCT_OR_SUM, [](sbk_nv2a_program& p) { p.final_inputs[0] = 0x0000001E; }},
      {SBK_NV2A_DOT_OR_BLUE_TO_ALPHA_IN_ALPHA_PORTION, [](sbk_nv2a_program& p) { p.alpha_outputs[0] |= 1u << 13; }},
      {SBK_NV2A_DOT_OR_BLUE_TO_ALPHA_IN_ALPHA_PORTION, [](sbk_nv2a_program& p) { p.alpha_outputs[1] |= 1u << 19; }},
      {SBK_NV2A_RESERVED_OUTPUT_OP, [](sbk_nv2a_program& p) { p.rgb_outputs[0] |= 5u << 15; }},
      {SBK_NV2A_RESERVED_OUTPUT_OP, [](sbk_nv2a_program& p) { p.alpha_outputs[1] |= 7u << 15; }},
      {SBK_NV2A_BAD_DESTINATION, [](sbk_nv2a_program& p) { p.rgb_outputs[0] = 0x000000E0; }},
      {SBK_NV2A_BAD_DESTINATION, [](sbk_nv2a_program& p) { p.alpha_outputs[0] = 0x00000060; }},
      {SBK_NV2A_DUPLICATE_DESTINATION, [](sbk_nv2a_program& p) { p.rgb_outputs[0] = 0x000000CC; }},
      {SBK_NV2A_UNDOCUMENTED_BITS, [](sbk_nv2a_program& p) { p.combiner_control |= 1u << 20; }},
      {SBK_NV2A_UNDOCUMENTED_BITS, [](sbk_nv2a_program& p) { p.rgb_outputs[1] |= 1u << 24; }},
      {SBK_NV2A_UNDOCUMENTED_BITS, [](sbk_nv2a_program& p) { p.final_inputs[1] |= 0x01; }},
      {SBK_NV2A_UNDOCUMENTED_BITS, [](sbk_nv2a_program& p) { p.clip_plane_mode |= 1u << 20; }},
      {SBK_NV2A_UNDOCUMENTED_BITS, [](sbk_nv2a_program& p) { p.other_stage_input |= 1u; }},
      {SBK_NV2A_TEXTURE_MODE_RESERVED, [](sbk_nv2a_program& p) { p.texture_modes[0] = 25; }},
      {SBK_NV2A_BAD_ALPHA_FUNC, [](sbk_nv2a_program& p) { p.alpha_test_enabled = 1; p.alpha_test_func = 9; }},
      {SBK_NV2A_TEXTURE_MODE_ILLEGAL_IN_STAGE, [](sbk_nv2a_program& p) { p.texture_modes[0] = SBK_NV2A_TEXTURE_BUMPENVMAP; }},
      {SBK_NV2A_TEXTURE_MODE_ILLEGAL_IN_STAGE,
       [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_PROJECT2D); enable(p, 2, SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC); }},
      {SBK_NV2A_TEXTURE_PREREQUISITE_MISSING,  // dot_st needs dot_product in the stage before
       [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_PROJECT2D); enable(p, 2, SBK_NV2A_TEXTURE_DOT_ST); }},
      {SBK_NV2A_TEXTURE_PREREQUISITE_MISSING,  // dot_rflct_diff needs a reflect mode in stage 3
       [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_DOT_PRODUCT); enable(p, 2, SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF); }},
      {SBK_NV2A_BAD_INPUT_STAGE,  // stage 0 fetches nothing to read
       [](sbk_nv2a_program& p) { p.texture_modes[0] = SBK_NV2A_TEXTURE_PASSTHRU; enable(p, 1, SBK_NV2A_TEXTURE_BUMPENVMAP); }},
      {SBK_NV2A_BAD_INPUT_STAGE,  // stage 2 reading itself
       [](sbk_nv2a_program& p) { enable(p, 2, SBK_NV2A_TEXTURE_DEPENDENT_GB); p.other_stage_input = 2u << 16; }},
      {SBK_NV2A_BAD_DOT_MAPPING, [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_DOT_PRODUCT); p.dot_rgb_mapping = 5; }},
      {SBK_NV2A_BAD_DOT_MAPPING, [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_DOT_PRODUCT); p.dot_rgb_mapping = 9; }},
      {SBK_NV2A_DEPENDENT_READ_OF_SIGNED,
       [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_DEPENDENT_AR); p.texture_signed[0] = SBK_NV2A_SIGNED_R; }},
      {SBK_NV2A_UNDEFINED_TEXTURE_READ, [](sbk_nv2a_program& p) { p.texture_modes[0] = SBK_NV2A_TEXTURE_CLIPPLANE; }},
      {SBK_NV2A_UNDEFINED_TEXTURE_READ,  // T1 of a dot_product stage, read by the final combiner
       [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_DOT_PRODUCT); p.final_inputs[0] = 0x0000000C | 0x09000000; }},
      {SBK_NV2A_BRDF_UNDEFINED, [](sbk_nv2a_program& p) { enable(p, 1, SBK_NV2A_TEXTURE_PROJECT2D); enable(p, 2, SBK_NV2A_TEXTURE_BRDF); }},
  };
}

TEST(Admission, accepts_the_valid_base_program) {
  const sbk_nv2a_program p = valid_program();
  EXPECT_EQ(sbk_nv2a_admit(&p, nullptr), SBK_NV2A_OK);
}

TEST(Admission, a_dot_zw_family_needs_a_d16_attachment) {
  sbk_nv2a_program p = valid_program();
  const std::vector<uint8_t> plain = family_key(p);
  enable(p, 1, SBK_NV2A_TEXTURE_DOT_PRODUCT);
  enable(p, 2, SBK_NV2A_TEXTURE_DOT_ZW);
  ASSERT_EQ(sbk_nv2a_admit(&p, nullptr), SBK_NV2A_OK);
  const std::vector<uint8_t> depth = family_key(p);
  // VkFormat: 124 D16_UNORM, 128 D16_UNORM_S8_UINT, 125 X8_D24_UNORM_PACK32, 126 D32_SFLOAT, 129 D24_UNORM_S8_UINT.
  for (uint32_t format : {124u, 128u}) EXPECT_EQ(sbk_nv2a_admit_attachment(depth.data(), format), SBK_NV2A_OK) << format;
  for (uint32_t format : {0u, 125u, 126u, 129u, 130u})
    EXPECT_EQ(sbk_nv2a_admit_attachment(depth.data(), format), SBK_NV2A_DOT_ZW_DEPTH_FORMAT) << format;
  for (uint32_t format : {0u, 124u, 129u}) EXPECT_EQ(sbk_nv2a_admit_attachment(plain.data(), format), SBK_NV2A_OK) << format;
  EXPECT_STREQ(sbk_nv2a_reason_name(SBK_NV2A_DOT_ZW_DEPTH_FORMAT), "dot_zw_depth_format");
}

TEST(Admission, every_reason_rejects_and_the_program_stays_on_its_exact_route) {
  std::vector<bool> covered(SBK_NV2A_REASON_COUNT, false);
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  nv2a::RouteRunner runner(**executor);
  nv2a::RandomPrograms random(5);
  const std::vector<nv2a::PixelInputs> inputs = {random.inputs()};
  for (const Rejection& r : rejections()) {
    sbk_nv2a_program p = valid_program();
    r.apply(p);
    const char* where = nullptr;
    const sbk_nv2a_reason got = sbk_nv2a_admit(&p, &where);
    EXPECT_EQ(got, r.reason) << "expected " << sbk_nv2a_reason_name(r.reason) << ", got " << sbk_nv2a_reason_name(got);
    covered[r.reason] = true;
    // The fallback route refuses it, naming the same reason.
    auto fallback = runner.run_fallback(family_key(p), std::vector<nv2a::ProgramCase>{{p, inputs[0]}});
    ASSERT_FALSE(fallback) << sbk_nv2a_reason_name(r.reason);
    EXPECT_EQ(fallback.error().reason, sbk_nv2a_reason_name(r.reason));
    // The exact route still serves it (the emulator would run it), except a texture mode the exact
    // emitter has not implemented either.
    auto exact = runner.run_exact(p, inputs);
    if (!exact_emitter_implements(p)) {
      ASSERT_FALSE(exact);
      EXPECT_EQ(exact.error().reason, "brdf_undefined");
    } else {
      EXPECT_TRUE(exact) << sbk_nv2a_reason_name(r.reason) << ": " << exact.error().to_string();
    }
  }
  covered[SBK_NV2A_SUM_WITH_DOT_PRODUCT] = true;     // retired: a sum next to a dot product is defined
  covered[SBK_NV2A_TEXTURE_MODE_UNSUPPORTED] = true;  // retired: the ubershader implements every mode
  covered[SBK_NV2A_DOT_ZW_DEPTH_FORMAT] = true;       // of an attachment: a_dot_zw_family_needs_a_d16_attachment
  for (int reason = 1; reason < SBK_NV2A_REASON_COUNT; ++reason)
    EXPECT_TRUE(covered[reason]) << "no rejection test for " << sbk_nv2a_reason_name(static_cast<sbk_nv2a_reason>(reason));
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

TEST(Packet, round_trips_every_admitted_program_in_c) {
  nv2a::RandomPrograms random(env_or("SHADERBAKE_SEED", 20261129) + 2);
  for (int i = 0; i < 10000; ++i) {
    sbk_nv2a_program p = random.program();
    // Garbage past the stage count and in disabled texture stages: the packet must not carry it.
    for (uint32_t s = sbk_nv2a_stage_count(&p); s < SBK_NV2A_MAX_STAGES; ++s) p.rgb_inputs[s] = 0xDEADBEEF;
    std::vector<uint8_t> packet(SBK_NV2A_PACKET_SIZE);
    sbk_nv2a_encode_packet(&p, packet.data());
    const std::vector<uint8_t> family = family_key(p);
    sbk_nv2a_program decoded{};
    ASSERT_EQ(sbk_nv2a_decode_packet(packet.data(), family.data(), &decoded), SBK_OK);
    ASSERT_EQ(exact_key(decoded), exact_key(p)) << "program " << i;
  }
  // A family key of another kind or version is refused.
  std::vector<uint8_t> packet(SBK_NV2A_PACKET_SIZE), family = family_key(valid_program());
  sbk_nv2a_program out{};
  family[1] = SBK_KEY_KIND_EXACT;
  EXPECT_EQ(sbk_nv2a_decode_packet(packet.data(), family.data(), &out), SBK_ERROR_INVALID_STATE);
}

TEST(Packet, the_shipped_glsl_declaration_decodes_what_c_encodes_on_the_gpu) {
  // A test shader with the ubershader's own packet declaration writes packet word N (N from an attribute)
  // as four bytes; the program re-derived from what the GPU read must equal the one encoded.
  const std::string fragment = "#version 450\n" + nv2a::fallback_packet_declaration() +
                               "layout(location = 0) in vec4 in_v0;\nlayout(location = 0) out vec4 out_color;\n"
                               "void main() {\n  uint n = uint(in_v0.x * 255.0 + 0.5);\n"
                               "  uint w = n < 32u ? packet.stages[n / 4u][n % 4u] : packet.control[n - 32u];\n"
                               "  out_color = vec4(uvec4(w, w >> 8u, w >> 16u, w >> 24u) & 255u) / 255.0;\n}\n";
  auto frag = compile::compile_glsl(compile::ShaderStage::fragment, fragment);
  ASSERT_TRUE(frag) << frag.error().to_string();
  auto vert = compile::compile_glsl(compile::ShaderStage::vertex, nv2a::emit_vertex_shader(0x3, 0x1));
  ASSERT_TRUE(vert) << vert.error().to_string();
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  nv2a::RandomPrograms random(env_or("SHADERBAKE_SEED", 20261129) + 3);
  std::vector<sbk_nv2a_program> programs;
  std::vector<vulkan::DrawCase> cases;
  constexpr int kWords = SBK_NV2A_PACKET_SIZE / 4;
  for (int i = 0; i < 60; ++i) {
    programs.push_back(random.program());
    std::vector<uint8_t> packet(SBK_NV2A_PACKET_SIZE);
    sbk_nv2a_encode_packet(&programs.back(), packet.data());
    for (int n = 0; n < kWords; ++n) {
      vulkan::DrawCase c;
      c.attributes.push_back({static_cast<float>(n) / 255.0f, 0, 0, 1});
      c.uniforms.push_back({SBK_NV2A_BINDING_PACKET, packet});
      cases.push_back(std::move(c));
    }
  }
  vulkan::PipelineSpec spec{vert->spirv, frag->spirv, {1}};
  auto pixels = (*executor)->run(spec, cases);
  ASSERT_TRUE(pixels) << pixels.error().to_string();
  for (size_t i = 0; i < programs.size(); ++i) {
    std::vector<uint8_t> gpu_packet;
    for (int n = 0; n < kWords; ++n) {
      const auto& px = (*pixels)[i * kWords + n];
      gpu_packet.insert(gpu_packet.end(), px.rgba.begin(), px.rgba.end());
    }
    sbk_nv2a_program decoded{};
    ASSERT_EQ(sbk_nv2a_decode_packet(gpu_packet.data(), family_key(programs[i]).data(), &decoded), SBK_OK);
    EXPECT_EQ(exact_key(decoded), exact_key(programs[i])) << "program " << i;
  }
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

TEST(FallbackRoute, one_pipeline_per_family_agrees_with_the_oracle_and_the_exact_route) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261129);
  const uint64_t count = env_or("SHADERBAKE_FALLBACK_PROGRAMS", 10000);
  const uint64_t exact_count = env_or("SHADERBAKE_FALLBACK_EXACT_PROGRAMS", 300);
  // Six families: the sampler layouts games use most, so each pipeline serves well over a thousand programs.
  static constexpr uint8_t kFamilies[6][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 3, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {2, 3, 1, 0}};
  static constexpr uint8_t kModeOf[4] = {SBK_NV2A_TEXTURE_NONE, SBK_NV2A_TEXTURE_PROJECT2D, SBK_NV2A_TEXTURE_PROJECT3D,
                                         SBK_NV2A_TEXTURE_CUBE};
  nv2a::RandomPrograms random(seed);
  std::map<std::vector<uint8_t>, std::vector<nv2a::ProgramCase>> by_family;
  for (uint64_t i = 0; i < count; ++i) {
    nv2a::ProgramCase c{random.program(), random.inputs()};
    const uint8_t* family = kFamilies[i % 6];
    for (int t = 0; t < 4; ++t) {
      c.program.texture_modes[t] = kModeOf[family[t]];
      c.program.texture_enabled[t] = family[t] != 0 || random.below(2) == 0;  // enabled NONE reads like disabled
    }
    ASSERT_EQ(sbk_nv2a_admit(&c.program, nullptr), SBK_NV2A_OK);
    by_family[family_key(c.program)].push_back(c);
  }
  ASSERT_EQ(by_family.size(), 6u);
  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  nv2a::RouteRunner runner(**executor);
  uint64_t compared = 0, disagreements = 0, exact_compared = 0;
  for (const auto& [family, cases] : by_family) {
    auto gpu = runner.run_fallback(family, cases);  // ONE pipeline: only the packet changes
    ASSERT_TRUE(gpu) << gpu.error().to_string();
    for (size_t k = 0; k < cases.size(); ++k) {
      auto cpu = nv2a::evaluate(cases[k].program, cases[k].inputs);
      ASSERT_TRUE(cpu) << cpu.error().to_string();
      ++compared;
      if (!agree(*cpu, (*gpu)[k])) {
        ++disagreements;
        ADD_FAILURE() << "seed " << seed << ", family " << int(family[4]) << int(family[5]) << int(family[6]) << int(family[7])
                      << ", case " << k << ": oracle " << text(*cpu) << " vs fallback " << text((*gpu)[k]) << "\n"
                      << nv2a::emit_exact_fragment(cases[k].program).value();
      }
      if (exact_compared < exact_count && k % 6 == 0) {
        auto exact = runner.run_exact(cases[k].program, std::vector<nv2a::PixelInputs>{cases[k].inputs});
        ASSERT_TRUE(exact) << exact.error().to_string();
        ++exact_compared;
        EXPECT_TRUE(agree((*exact)[0], (*gpu)[k]))
            << "seed " << seed << ": exact " << text((*exact)[0]) << " vs fallback " << text((*gpu)[k]);
      }
    }
  }
  EXPECT_EQ(disagreements, 0u) << "of " << compared << " programs (seed " << seed << ")";
  EXPECT_GE(exact_compared, std::min<uint64_t>(exact_count, count / 6));
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

// Depth agrees within one Z16 step: dot_zw's floor(dot_{i-1} / dot_i) may fall either side of an integer
// when the GPU's division rounds differently from the CPU's.
bool agree_with_depth(const nv2a::PixelOutput& a, const nv2a::PixelOutput& b) {
  if (!agree(a, b)) return false;
  if (a.discarded || (!a.depth_z16 && !b.depth_z16)) return true;
  return a.depth_z16 && b.depth_z16 && std::abs(int(*a.depth_z16) - int(*b.depth_z16)) <= 1;
}

std::string text_with_depth(const nv2a::PixelOutput& o) {
  return text(o) + (o.depth_z16 ? " depth " + std::to_string(*o.depth_z16) : "");
}

TEST(FallbackRoute, texture_shader_programs_agree_with_the_oracle_and_with_their_exact_shaders) {
  const uint64_t seed = env_or("SHADERBAKE_SEED", 20261129) + 11;
  const uint64_t count = env_or("SHADERBAKE_TEXTURE_PROGRAMS", 10000);
  const uint64_t exact_count = env_or("SHADERBAKE_TEXTURE_EXACT_PROGRAMS", 300);
  nv2a::RandomPrograms random(seed);
  std::map<std::vector<uint8_t>, std::vector<nv2a::ProgramCase>> by_family;
  std::vector<uint64_t> mode_uses(SBK_NV2A_TEXTURE_MODE_COUNT, 0);
  for (uint64_t i = 0; i < count; ++i) {
    nv2a::ProgramCase c;
    c.program = random.texture_program();
    c.inputs = random.texture_inputs(c.program);
    const char* where = nullptr;
    ASSERT_EQ(sbk_nv2a_admit(&c.program, &where), SBK_NV2A_OK) << "program " << i << " at " << where;
    for (uint32_t t = 0; t < SBK_NV2A_TEXTURE_STAGES; ++t) ++mode_uses[sbk_nv2a_effective_texture_mode(&c.program, t)];
    by_family[family_key(c.program)].push_back(std::move(c));
  }
  // Every mode the model defines runs (brdf is refused: its semantics are unknown).
  for (uint8_t m = 1; m < SBK_NV2A_TEXTURE_MODE_COUNT; ++m)
    if (m != SBK_NV2A_TEXTURE_BRDF && count >= 10000) {
      EXPECT_GE(mode_uses[m], 50u) << "texture mode " << int(m);
    }

  auto executor = vulkan::Executor::create({});
  ASSERT_TRUE(executor) << executor.error().to_string();
  nv2a::RouteRunner runner(**executor);
  const uint64_t exact_every = std::max<uint64_t>(1, count / std::max<uint64_t>(1, exact_count));
  uint64_t compared = 0, disagreements = 0, exact_compared = 0, exact_disagreements = 0, discarded = 0, depth = 0, n = 0;
  for (const auto& [family, cases] : by_family) {
    auto gpu = runner.run_fallback(family, cases);  // ONE pipeline per family: only the packet changes
    ASSERT_TRUE(gpu) << gpu.error().to_string();
    for (size_t k = 0; k < cases.size(); ++k, ++n) {
      auto cpu = nv2a::evaluate(cases[k].program, cases[k].inputs);
      ASSERT_TRUE(cpu) << cpu.error().to_string();
      ++compared;
      discarded += cpu->discarded;
      depth += cpu->depth_z16.has_value();
      if (!agree_with_depth(*cpu, (*gpu)[k])) {
        if (++disagreements <= 5)
          ADD_FAILURE() << "seed " << seed << ", case " << k << " of its family: oracle " << text_with_depth(*cpu)
                        << " vs fallback " << text_with_depth((*gpu)[k]) << "\n"
                        << nv2a::emit_exact_fragment(cases[k].program).value();
      }
      if (n % exact_every == 0 && exact_compared < exact_count) {
        auto exact = runner.run_exact(cases[k].program, std::vector<nv2a::PixelInputs>{cases[k].inputs});
        ASSERT_TRUE(exact) << exact.error().to_string();
        ++exact_compared;
        if (!agree_with_depth(*cpu, (*exact)[0]) && ++exact_disagreements <= 5)
          ADD_FAILURE() << "seed " << seed << ": oracle " << text_with_depth(*cpu) << " vs exact " << text_with_depth((*exact)[0])
                        << "\n" << nv2a::emit_exact_fragment(cases[k].program).value();
      }
    }
  }
  std::printf("texture-shader programs: %llu through %zu ubershader pipelines (%llu discarded, %llu writing depth), "
              "%llu through their exact shaders; disagreements: %llu ubershader, %llu exact\n",
              (unsigned long long)compared, by_family.size(), (unsigned long long)discarded, (unsigned long long)depth,
              (unsigned long long)exact_compared, (unsigned long long)disagreements, (unsigned long long)exact_disagreements);
  EXPECT_EQ(disagreements, 0u) << "of " << compared << " programs (seed " << seed << ")";
  EXPECT_EQ(exact_disagreements, 0u) << "of " << exact_compared << " exact programs (seed " << seed << ")";
  EXPECT_GE(exact_compared, std::min(exact_count, count));
  EXPECT_TRUE((*executor)->validation_messages().empty()) << (*executor)->validation_messages().front();
}

}  // namespace
