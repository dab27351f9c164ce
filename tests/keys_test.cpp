// SPDX-License-Identifier: MIT
// Key completeness by mutation (schemas/keys.md): every static field that the exact emitter reads changes the
// exact key; dynamic values, ignored words and fields of disabled features do not. The mutations are
// enumerated field by field and bit by bit, so dropping any field from an encoder fails a test here.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "guests/nv2a/nv2a_guest.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

namespace {

using Bytes = std::vector<uint8_t>;

sbk_nv2a_program base_program() {
  sbk_nv2a_program p{};
  p.combiner_control = 0x00011002;  // 2 stages, per-stage c0 and c1
  const uint32_t words[4][2] = {{0x04200000, 0x0C2D0000}, {0x000000C0, 0x00000CD0},
                                {0x18140000, 0x1C300000}, {0x000000C0, 0x00000C00}};
  for (int s = 0; s < 2; ++s) {
    p.rgb_inputs[s] = words[0][s];
    p.rgb_outputs[s] = words[1][s];
    p.alpha_inputs[s] = words[2][s];
    p.alpha_outputs[s] = words[3][s];
  }
  p.final_inputs[0] = 0x0000000C;
  p.final_inputs[1] = 0x00001C00;
  p.texture_modes[0] = SBK_NV2A_TEXTURE_PROJECT2D;
  p.texture_enabled[0] = 1;
  p.texture_modes[1] = SBK_NV2A_TEXTURE_CUBE;  // stage 1 disabled: its mode must not matter
  p.texture_enabled[1] = 0;
  p.alpha_test_enabled = 1;
  p.alpha_test_func = SBK_COMPARE_GREATER;
  return p;
}

Bytes exact_key(const sbk_nv2a_program& p) { return shaderbake::nv2a::program_keys(p).exact_key; }
Bytes family_key(const sbk_nv2a_program& p) { return shaderbake::nv2a::program_keys(p).family_key; }

struct Mutation {
  std::string name;
  std::function<void(sbk_nv2a_program&)> apply;
};

void add_bit_flips(std::vector<Mutation>& out, const std::string& name, uint32_t sbk_nv2a_program::*word) {
  for (int bit = 0; bit < 32; ++bit)
    out.push_back({name + " bit " + std::to_string(bit), [word, bit](sbk_nv2a_program& p) { p.*word ^= 1u << bit; }});
}

void add_array_bit_flips(std::vector<Mutation>& out, const std::string& name,
                         uint32_t (sbk_nv2a_program::*array)[SBK_NV2A_MAX_STAGES], int first, int last) {
  for (int stage = first; stage <= last; ++stage)
    for (int bit = 0; bit < 32; ++bit)
      out.push_back({name + "[" + std::to_string(stage) + "] bit " + std::to_string(bit),
                     [array, stage, bit](sbk_nv2a_program& p) { (p.*array)[stage] ^= 1u << bit; }});
}

std::vector<Mutation> static_field_mutations() {
  std::vector<Mutation> m;
  add_bit_flips(m, "combiner_control", &sbk_nv2a_program::combiner_control);
  add_array_bit_flips(m, "rgb_inputs", &sbk_nv2a_program::rgb_inputs, 0, 1);
  add_array_bit_flips(m, "rgb_outputs", &sbk_nv2a_program::rgb_outputs, 0, 1);
  add_array_bit_flips(m, "alpha_inputs", &sbk_nv2a_program::alpha_inputs, 0, 1);
  add_array_bit_flips(m, "alpha_outputs", &sbk_nv2a_program::alpha_outputs, 0, 1);
  for (int i = 0; i < 2; ++i)
    for (int bit = 0; bit < 32; ++bit)
      m.push_back({"final_inputs[" + std::to_string(i) + "] bit " + std::to_string(bit),
                   [i, bit](sbk_nv2a_program& p) { p.final_inputs[i] ^= 1u << bit; }});
  for (int mode = 0; mode <= SBK_NV2A_TEXTURE_MODE_MAX; ++mode)
    if (mode != SBK_NV2A_TEXTURE_PROJECT2D)
      m.push_back({"texture_modes[0] = " + std::to_string(mode),
                   [mode](sbk_nv2a_program& p) { p.texture_modes[0] = static_cast<uint8_t>(mode); }});
  m.push_back({"texture_enabled[0] off", [](sbk_nv2a_program& p) { p.texture_enabled[0] = 0; }});
  m.push_back({"texture_enabled[1] on", [](sbk_nv2a_program& p) { p.texture_enabled[1] = 1; }});
  m.push_back({"alpha test off", [](sbk_nv2a_program& p) { p.alpha_test_enabled = 0; }});
  for (uint8_t func = 0; func < 7; ++func)  // ALWAYS (7) is "no test": covered by the equivalence test
    if (func != SBK_COMPARE_GREATER)
      m.push_back({"alpha func " + std::to_string(func), [func](sbk_nv2a_program& p) { p.alpha_test_func = func; }});
  return m;
}

TEST(ExactKey, every_static_field_changes_the_key) {
  const Bytes base = exact_key(base_program());
  const auto mutations = static_field_mutations();
  ASSERT_GT(mutations.size(), 390u);
  for (const Mutation& mutation : mutations) {
    sbk_nv2a_program p = base_program();
    mutation.apply(p);
    EXPECT_NE(exact_key(p), base) << "mutation left the exact key unchanged: " << mutation.name;
  }
}

TEST(ExactKey, stage_words_past_the_stage_count_never_reach_the_key) {
  const Bytes base = exact_key(base_program());
  std::vector<Mutation> ignored;
  add_array_bit_flips(ignored, "rgb_inputs", &sbk_nv2a_program::rgb_inputs, 2, 7);
  add_array_bit_flips(ignored, "rgb_outputs", &sbk_nv2a_program::rgb_outputs, 2, 7);
  add_array_bit_flips(ignored, "alpha_inputs", &sbk_nv2a_program::alpha_inputs, 2, 7);
  add_array_bit_flips(ignored, "alpha_outputs", &sbk_nv2a_program::alpha_outputs, 2, 7);
  for (const Mutation& mutation : ignored) {
    sbk_nv2a_program p = base_program();
    mutation.apply(p);
    EXPECT_EQ(exact_key(p), base) << "an ignored word changed the key: " << mutation.name;
  }
}

TEST(ExactKey, texture_modes_of_disabled_stages_never_reach_the_key) {
  const Bytes base = exact_key(base_program());
  for (int stage = 1; stage < 4; ++stage)
    for (int mode = 0; mode <= SBK_NV2A_TEXTURE_MODE_MAX; ++mode) {
      sbk_nv2a_program p = base_program();
      p.texture_modes[stage] = static_cast<uint8_t>(mode);
      EXPECT_EQ(exact_key(p), base) << "disabled stage " << stage << " mode " << mode;
    }
}

TEST(ExactKey, alpha_function_of_a_disabled_test_never_reaches_the_key) {
  sbk_nv2a_program off = base_program();
  off.alpha_test_enabled = 0;
  const Bytes base = exact_key(off);
  for (uint8_t func = 0; func < 8; ++func) {
    off.alpha_test_func = func;
    EXPECT_EQ(exact_key(off), base) << "func " << int(func);
  }
}

TEST(ExactKey, equivalent_encodings_of_one_behaviour_share_a_key) {
  // A disabled alpha test and an ALWAYS test pass every fragment.
  sbk_nv2a_program a = base_program(), b = base_program();
  a.alpha_test_enabled = 0;
  b.alpha_test_func = SBK_COMPARE_ALWAYS;
  EXPECT_EQ(exact_key(a), exact_key(b));
  // A disabled texture stage and an enabled NONE stage both read (0,0,0,1).
  sbk_nv2a_program c = base_program(), d = base_program();
  c.texture_enabled[0] = 0;
  d.texture_modes[0] = SBK_NV2A_TEXTURE_NONE;
  EXPECT_EQ(exact_key(c), exact_key(d));
}

TEST(ExactKey, stage_count_decides_which_words_count) {
  // Raising the stage count brings stage 2's words into the key.
  sbk_nv2a_program p = base_program();
  p.combiner_control = (p.combiner_control & ~0xFFu) | 3u;
  const Bytes three = exact_key(p);
  p.rgb_inputs[2] ^= 0x10;
  EXPECT_NE(exact_key(p), three);
}

TEST(FamilyKey, holds_only_sampler_dimensionality_and_the_depth_write) {
  const sbk_nv2a_program original = base_program();
  const Bytes base = family_key(original);
  for (const Mutation& mutation : static_field_mutations()) {
    sbk_nv2a_program p = base_program();
    mutation.apply(p);
    const bool same_samplers = [&] {
      for (uint32_t s = 0; s < 4; ++s) {
        const uint8_t a = sbk_nv2a_effective_texture_mode(&p, s), b = sbk_nv2a_effective_texture_mode(&original, s);
        if (sbk_nv2a_sampler_dim(a) != sbk_nv2a_sampler_dim(b) ||
            (a == SBK_NV2A_TEXTURE_DOT_ZW) != (b == SBK_NV2A_TEXTURE_DOT_ZW))
          return false;
      }
      return true;
    }();
    EXPECT_EQ(family_key(p) == base, same_samplers) << mutation.name;
  }
}

TEST(FamilyKey, sampler_dimensionality_follows_the_texture_mode) {
  // From the NV2A texture shader programs: which sampler type each mode binds.
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_NONE), SBK_SAMPLER_NONE);
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_PROJECT2D), SBK_SAMPLER_2D);
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_PROJECT3D), SBK_SAMPLER_3D);
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_CUBE), SBK_SAMPLER_CUBE);
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_PASSTHRU), SBK_SAMPLER_NONE);
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_CLIPPLANE), SBK_SAMPLER_NONE);
  EXPECT_EQ(sbk_nv2a_sampler_dim(SBK_NV2A_TEXTURE_DOT_STR_CUBE), SBK_SAMPLER_CUBE);
  EXPECT_EQ(sbk_nv2a_sampler_dim(25), SBK_SAMPLER_NONE);  // reserved code
}

// ---- the texture shader's static fields (NV2A-TEXTURE semantics: which mode reads which field) ----

// Which fields each mode reads, written from the texture-shader semantics (not from the header's helpers).
bool reads_dot_mapping(int mode) {
  return mode == SBK_NV2A_TEXTURE_DOT_PRODUCT || mode == SBK_NV2A_TEXTURE_DOT_ST || mode == SBK_NV2A_TEXTURE_DOT_ZW ||
         mode == SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF || mode == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC ||
         mode == SBK_NV2A_TEXTURE_DOT_STR_3D || mode == SBK_NV2A_TEXTURE_DOT_STR_CUBE ||
         mode == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST;
}
bool reads_input_stage(int mode) {
  return reads_dot_mapping(mode) || mode == SBK_NV2A_TEXTURE_BUMPENVMAP ||
         mode == SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE || mode == SBK_NV2A_TEXTURE_DEPENDENT_AR ||
         mode == SBK_NV2A_TEXTURE_DEPENDENT_GB;
}
bool fetches_texel(int mode) {
  switch (mode) {
    case SBK_NV2A_TEXTURE_PROJECT2D: case SBK_NV2A_TEXTURE_PROJECT3D: case SBK_NV2A_TEXTURE_CUBE:
    case SBK_NV2A_TEXTURE_BUMPENVMAP: case SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE: case SBK_NV2A_TEXTURE_BRDF:
    case SBK_NV2A_TEXTURE_DOT_ST: case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF: case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
    case SBK_NV2A_TEXTURE_DOT_STR_3D: case SBK_NV2A_TEXTURE_DOT_STR_CUBE: case SBK_NV2A_TEXTURE_DEPENDENT_AR:
    case SBK_NV2A_TEXTURE_DEPENDENT_GB: case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST: return true;
    default: return false;
  }
}

// One mutation of one stage's texture-shader field, and whether `mode` reads that field.
struct StageFieldMutation {
  std::string name;
  std::function<void(sbk_nv2a_program&)> apply;
  std::function<bool(int mode)> read_by;
};

std::vector<StageFieldMutation> stage_field_mutations(int stage) {
  std::vector<StageFieldMutation> m;
  const std::string s = "stage " + std::to_string(stage) + " ";
  if (stage > 0)
    for (int bit = 0; bit < 4; ++bit)
      m.push_back({s + "dot mapping bit " + std::to_string(bit),
                   [stage, bit](sbk_nv2a_program& p) { p.dot_rgb_mapping ^= 1u << (4 * (stage - 1) + bit); }, reads_dot_mapping});
  if (stage >= 2)
    for (int bit = 0; bit < 4; ++bit)
      m.push_back({s + "input stage bit " + std::to_string(bit),
                   [stage, bit](sbk_nv2a_program& p) { p.other_stage_input ^= 1u << ((stage == 2 ? 16 : 20) + bit); },
                   reads_input_stage});
  for (int bit = 0; bit < 4; ++bit)
    m.push_back({s + "clip bit " + std::to_string(bit),
                 [stage, bit](sbk_nv2a_program& p) { p.clip_plane_mode ^= 1u << (4 * stage + bit); },
                 [](int mode) { return mode == SBK_NV2A_TEXTURE_CLIPPLANE; }});
  m.push_back({s + "alpha kill", [stage](sbk_nv2a_program& p) { p.texture_alpha_kill[stage] ^= 1; }, fetches_texel});
  for (uint8_t key = 1; key < 4; ++key)
    m.push_back({s + "colour key " + std::to_string(key), [stage, key](sbk_nv2a_program& p) { p.texture_color_key[stage] = key; },
                 fetches_texel});
  for (int bit = 0; bit < 4; ++bit)
    m.push_back({s + "signed bit " + std::to_string(bit),
                 [stage, bit](sbk_nv2a_program& p) { p.texture_signed[stage] ^= static_cast<uint8_t>(1u << bit); }, fetches_texel});
  m.push_back({s + "xrgb8", [stage](sbk_nv2a_program& p) { p.texture_format[stage] = SBK_NV2A_FORMAT_XRGB8; }, fetches_texel});
  return m;
}

TEST(ExactKey, a_texture_field_changes_the_key_exactly_where_the_stage_mode_reads_it) {
  int changed = 0, unchanged = 0;
  for (int stage = 0; stage < 4; ++stage)
    for (int mode = 0; mode <= SBK_NV2A_TEXTURE_MODE_MAX; ++mode) {
      sbk_nv2a_program base = base_program();
      base.texture_modes[stage] = static_cast<uint8_t>(mode);
      base.texture_enabled[stage] = 1;
      const Bytes before = exact_key(base);
      for (const StageFieldMutation& mutation : stage_field_mutations(stage)) {
        sbk_nv2a_program p = base;
        mutation.apply(p);
        const bool read = mode < SBK_NV2A_TEXTURE_MODE_COUNT && mutation.read_by(mode);
        EXPECT_EQ(exact_key(p) != before, read) << mutation.name << ", mode " << mode;
        (read ? changed : unchanged) += 1;
        // A disabled stage reads none of its fields.
        p.texture_enabled[stage] = 0;
        sbk_nv2a_program off = base;
        off.texture_enabled[stage] = 0;
        EXPECT_EQ(exact_key(p), exact_key(off)) << mutation.name << " reached the key of a disabled stage";
      }
    }
  EXPECT_GT(changed, 400);
  EXPECT_GT(unchanged, 1000);
}

TEST(ExactKey, undocumented_bits_of_the_texture_words_change_the_key) {
  const Bytes base = exact_key(base_program());
  const std::vector<std::pair<uint32_t sbk_nv2a_program::*, uint32_t>> words = {
      {&sbk_nv2a_program::dot_rgb_mapping, 0xFFFu}, {&sbk_nv2a_program::other_stage_input, 0xFF0000u},
      {&sbk_nv2a_program::clip_plane_mode, 0xFFFFu}};
  for (const auto& [word, documented] : words)
    for (int bit = 0; bit < 32; ++bit) {
      if (documented & (1u << bit)) continue;
      sbk_nv2a_program p = base_program();
      p.*word ^= 1u << bit;
      EXPECT_NE(exact_key(p), base) << "bit " << bit;
      EXPECT_EQ(sbk_nv2a_check_program(&p, nullptr), SBK_NV2A_UNDOCUMENTED_BITS) << "bit " << bit;
    }
}

TEST(ExactKey, decodes_to_a_program_with_the_same_key) {
  // Every mode in every stage, with every field set: the decoded program encodes to the same key.
  for (int stage = 0; stage < 4; ++stage)
    for (int mode = 0; mode <= SBK_NV2A_TEXTURE_MODE_MAX; ++mode) {
      sbk_nv2a_program p = base_program();
      p.texture_modes[stage] = static_cast<uint8_t>(mode);
      p.texture_enabled[stage] = 1;
      p.dot_rgb_mapping = 0x0000F37u | (1u << 20);
      p.other_stage_input = 0x00210000u;
      p.clip_plane_mode = 0x0000A5C3u;
      for (int k = 0; k < 4; ++k) {
        p.texture_alpha_kill[k] = static_cast<uint8_t>(k & 1);
        p.texture_color_key[k] = static_cast<uint8_t>(k);
        p.texture_signed[k] = static_cast<uint8_t>(0x9 ^ k);
        p.texture_format[k] = static_cast<uint8_t>(k >> 1);
      }
      const Bytes key = exact_key(p);
      sbk_nv2a_program decoded{};
      ASSERT_EQ(sbk_nv2a_decode_exact_key(key.data(), &decoded), SBK_OK) << "mode " << mode;
      EXPECT_EQ(exact_key(decoded), key) << "mode " << mode;
    }
  // A key this encoder cannot write (a clip nibble next to a mode that reads none) does not decode.
  Bytes forged = exact_key(base_program());
  forged[152] = 5;
  sbk_nv2a_program decoded{};
  EXPECT_EQ(sbk_nv2a_decode_exact_key(forged.data(), &decoded), SBK_ERROR_INVALID_STATE);
}

TEST(FamilyKey, records_a_depth_writing_stage) {
  sbk_nv2a_program p = base_program();
  p.texture_modes[1] = SBK_NV2A_TEXTURE_DOT_PRODUCT;
  p.texture_enabled[1] = 1;
  const Bytes without = family_key(p);
  p.texture_modes[2] = SBK_NV2A_TEXTURE_DOT_ZW;
  p.texture_enabled[2] = 1;
  const Bytes with = family_key(p);
  ASSERT_EQ(with.size(), 9u);
  EXPECT_EQ(without[8], 0);
  EXPECT_EQ(with[8], 1);
}

// ---- host state and pipeline keys ----

sbk_host_state base_host() {
  sbk_host_state h{};
  h.topology = 3;      // triangle_list
  h.cull_mode = 2;     // back
  h.depth_test = 1;
  h.depth_write = 1;
  h.depth_compare = 3; // less_or_equal
  h.stencil_test = 1;
  h.stencil_front = {0, 2, 0, 7, 0xFF, 0xFF, 1};
  h.stencil_back = {0, 2, 0, 7, 0xFF, 0xFF, 1};
  h.color_count = 1;
  h.color_formats[0] = 37;  // VK_FORMAT_R8G8B8A8_UNORM
  h.blend[0] = {1, 6, 7, 0, 1, 0, 0, 15};
  h.depth_format = 129;     // VK_FORMAT_D24_UNORM_S8_UINT
  h.samples = 1;
  h.dynamic_states = SBK_DYNAMIC_VIEWPORT | SBK_DYNAMIC_SCISSOR;
  h.binding_count = 2;
  h.bindings[0] = {0, 28, 0};
  h.bindings[1] = {1, 8, 0};
  h.attribute_count = 3;
  h.attributes[0] = {SBK_NV2A_LOCATION_POSITION, 0, 109, 0};   // r32g32b32a32_sfloat
  h.attributes[1] = {SBK_NV2A_LOCATION_DIFFUSE, 0, 44, 16};    // b8g8r8a8_unorm
  h.attributes[2] = {SBK_NV2A_LOCATION_TEXCOORD0, 1, 103, 0};  // r32g32_sfloat
  return h;
}

Bytes pipeline_key(const sbk_host_state& h, uint8_t route = SBK_ROUTE_EXACT) {
  const Bytes fragment = exact_key(base_program());
  Bytes out(SBK_PIPELINE_KEY_MAX_SIZE(SBK_NV2A_EXACT_KEY_SIZE));
  size_t size = 0;
  const sbk_result r = sbk_encode_pipeline_key(route, fragment.data(), fragment.size(), &h, out.data(), out.size(), &size);
  EXPECT_EQ(r, SBK_OK);
  out.resize(size);
  return out;
}

struct HostMutation {
  std::string name;
  std::function<void(sbk_host_state&)> apply;
};

TEST(PipelineKey, every_enabled_host_field_changes_the_key) {
  const std::vector<HostMutation> mutations = {
      {"topology", [](sbk_host_state& h) { h.topology = 4; }},
      {"polygon_mode", [](sbk_host_state& h) { h.polygon_mode = 1; }},
      {"cull_mode", [](sbk_host_state& h) { h.cull_mode = 1; }},
      {"front_face", [](sbk_host_state& h) { h.front_face = 1; }},
      {"depth_test", [](sbk_host_state& h) { h.depth_test = 0; }},
      {"depth_write", [](sbk_host_state& h) { h.depth_write = 0; }},
      {"depth_compare", [](sbk_host_state& h) { h.depth_compare = 1; }},
      {"stencil_test", [](sbk_host_state& h) { h.stencil_test = 0; }},
      {"stencil front fail", [](sbk_host_state& h) { h.stencil_front.fail_op = 1; }},
      {"stencil front pass", [](sbk_host_state& h) { h.stencil_front.pass_op = 1; }},
      {"stencil front depth_fail", [](sbk_host_state& h) { h.stencil_front.depth_fail_op = 1; }},
      {"stencil front compare", [](sbk_host_state& h) { h.stencil_front.compare_op = 1; }},
      {"stencil front compare_mask", [](sbk_host_state& h) { h.stencil_front.compare_mask = 1; }},
      {"stencil front write_mask", [](sbk_host_state& h) { h.stencil_front.write_mask = 1; }},
      {"stencil front reference", [](sbk_host_state& h) { h.stencil_front.reference = 2; }},
      {"stencil back fail", [](sbk_host_state& h) { h.stencil_back.fail_op = 1; }},
      {"stencil back reference", [](sbk_host_state& h) { h.stencil_back.reference = 2; }},
      {"color format", [](sbk_host_state& h) { h.color_formats[0] = 44; }},
      {"second attachment", [](sbk_host_state& h) { h.color_count = 2; h.color_formats[1] = 37; h.blend[1].write_mask = 15; }},
      {"blend enable", [](sbk_host_state& h) { h.blend[0].enable = 0; }},
      {"blend src_color", [](sbk_host_state& h) { h.blend[0].src_color = 1; }},
      {"blend dst_color", [](sbk_host_state& h) { h.blend[0].dst_color = 1; }},
      {"blend color_op", [](sbk_host_state& h) { h.blend[0].color_op = 1; }},
      {"blend src_alpha", [](sbk_host_state& h) { h.blend[0].src_alpha = 0; }},
      {"blend dst_alpha", [](sbk_host_state& h) { h.blend[0].dst_alpha = 1; }},
      {"blend alpha_op", [](sbk_host_state& h) { h.blend[0].alpha_op = 1; }},
      {"write mask", [](sbk_host_state& h) { h.blend[0].write_mask = 7; }},
      {"depth format", [](sbk_host_state& h) { h.depth_format = 130; }},
      {"samples", [](sbk_host_state& h) { h.samples = 4; }},
      {"dynamic line width", [](sbk_host_state& h) { h.dynamic_states |= SBK_DYNAMIC_LINE_WIDTH; }},
      {"binding stride", [](sbk_host_state& h) { h.bindings[0].stride = 32; }},
      {"binding rate", [](sbk_host_state& h) { h.bindings[1].input_rate = 1; }},
      {"binding number", [](sbk_host_state& h) { h.bindings[1].binding = 2; h.attributes[2].binding = 2; }},
      {"attribute format", [](sbk_host_state& h) { h.attributes[1].format = 37; }},
      {"attribute offset", [](sbk_host_state& h) { h.attributes[1].offset = 12; }},
      {"attribute binding", [](sbk_host_state& h) { h.attributes[1].binding = 1; }},
      {"attribute location", [](sbk_host_state& h) { h.attributes[2].location = SBK_NV2A_LOCATION_TEXCOORD1; }},
      {"attribute removed", [](sbk_host_state& h) { h.attribute_count = 2; }},
  };
  const Bytes base = pipeline_key(base_host());
  for (const HostMutation& mutation : mutations) {
    sbk_host_state h = base_host();
    mutation.apply(h);
    EXPECT_NE(pipeline_key(h), base) << "host mutation left the pipeline key unchanged: " << mutation.name;
  }
}

TEST(PipelineKey, fields_of_disabled_features_and_dynamic_values_never_reach_the_key) {
  const std::vector<std::pair<HostMutation, HostMutation>> cases = {
      // {how to disable the feature, a field of the disabled feature}
      {{"depth test off", [](sbk_host_state& h) { h.depth_test = 0; }},
       {"depth write and compare", [](sbk_host_state& h) { h.depth_write = 0; h.depth_compare = 5; }}},
      {{"no depth attachment", [](sbk_host_state& h) { h.depth_format = 0; }},
       {"depth and stencil state", [](sbk_host_state& h) { h.depth_test = 0; h.stencil_test = 0; h.depth_compare = 1; }}},
      {{"depth format without stencil", [](sbk_host_state& h) { h.depth_format = 126; }},  // D32_SFLOAT
       {"stencil state", [](sbk_host_state& h) { h.stencil_test = 0; h.stencil_front.pass_op = 5; }}},
      {{"stencil test off", [](sbk_host_state& h) { h.stencil_test = 0; }},
       {"stencil faces", [](sbk_host_state& h) { h.stencil_front = {1, 1, 1, 1, 1, 1, 9}; h.stencil_back.reference = 7; }}},
      {{"blend off", [](sbk_host_state& h) { h.blend[0].enable = 0; }},
       {"blend factors", [](sbk_host_state& h) { h.blend[0].src_color = 2; h.blend[0].alpha_op = 4; }}},
      {{"dynamic stencil reference", [](sbk_host_state& h) { h.dynamic_states |= SBK_DYNAMIC_STENCIL_REFERENCE; }},
       {"stencil reference", [](sbk_host_state& h) { h.stencil_front.reference = 200; h.stencil_back.reference = 3; }}},
      {{"dynamic stencil masks",
        [](sbk_host_state& h) { h.dynamic_states |= SBK_DYNAMIC_STENCIL_COMPARE_MASK | SBK_DYNAMIC_STENCIL_WRITE_MASK; }},
       {"stencil masks", [](sbk_host_state& h) { h.stencil_front.compare_mask = 3; h.stencil_back.write_mask = 1; }}},
  };
  for (const auto& [disable, field] : cases) {
    sbk_host_state a = base_host();
    disable.apply(a);
    sbk_host_state b = a;
    field.apply(b);
    EXPECT_EQ(pipeline_key(a), pipeline_key(b)) << field.name << " mattered under " << disable.name;
  }
}

TEST(PipelineKey, declaration_order_of_bindings_and_attributes_does_not_matter) {
  sbk_host_state a = base_host(), b = base_host();
  std::swap(b.bindings[0], b.bindings[1]);
  std::swap(b.attributes[0], b.attributes[2]);
  EXPECT_EQ(pipeline_key(a), pipeline_key(b));
}

TEST(PipelineKey, route_and_fragment_identity_are_part_of_the_key) {
  EXPECT_NE(pipeline_key(base_host(), SBK_ROUTE_EXACT), pipeline_key(base_host(), SBK_ROUTE_FALLBACK));
  const sbk_host_state h = base_host();
  Bytes fragment = exact_key(base_program());
  Bytes a(512), b(512);
  size_t sa = 0, sb = 0;
  ASSERT_EQ(sbk_encode_pipeline_key(SBK_ROUTE_EXACT, fragment.data(), fragment.size(), &h, a.data(), a.size(), &sa), SBK_OK);
  fragment[20] ^= 1;
  ASSERT_EQ(sbk_encode_pipeline_key(SBK_ROUTE_EXACT, fragment.data(), fragment.size(), &h, b.data(), b.size(), &sb), SBK_OK);
  a.resize(sa);
  b.resize(sb);
  EXPECT_NE(a, b);
}

TEST(HostState, inconsistent_states_are_refused) {
  auto refused = [](const std::function<void(sbk_host_state&)>& f) {
    sbk_host_state h = base_host();
    f(h);
    size_t size = 0;
    return sbk_encode_host_state(&h, nullptr, 0, &size) == SBK_ERROR_INVALID_STATE;
  };
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.topology = 11; }));
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.samples = 3; }));
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.attributes[1].location = SBK_NV2A_LOCATION_POSITION; }));  // duplicate
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.attributes[2].binding = 5; }));  // undeclared binding
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.bindings[1].binding = 0; }));    // duplicate binding
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.color_count = 9; }));
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.blend[0].src_color = 40; }));
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.depth_format = 37; }));  // a colour format
  EXPECT_TRUE(refused([](sbk_host_state& h) { h.dynamic_states = 1u << 20; }));
  EXPECT_FALSE(refused([](sbk_host_state&) {}));
}

TEST(HostState, a_small_buffer_reports_the_size_it_needs) {
  const sbk_host_state h = base_host();
  size_t needed = 0;
  ASSERT_EQ(sbk_encode_host_state(&h, nullptr, 0, &needed), SBK_ERROR_BUFFER_TOO_SMALL);
  Bytes out(needed);
  size_t written = 0;
  ASSERT_EQ(sbk_encode_host_state(&h, out.data(), out.size(), &written), SBK_OK);
  EXPECT_EQ(written, needed);
  EXPECT_LE(needed, size_t{SBK_HOST_STATE_MAX_SIZE});
}

}  // namespace
