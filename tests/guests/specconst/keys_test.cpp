// SPDX-License-Identifier: MIT
// shaderbake_specconst.h on the project's own sample shaders (samples/specconst/shaders), compiled by the
// in-process chain the way a renderer's build would: what the scan reads back is held to what the GLSL
// declares, and the exact key to the rules of the guest (every used constant's value changes it, a constant
// the shader ignores does not, a value given at its default equals none). Whether a constant is ignored is
// checked apart from the scan: freezing the module with two values of it gives the same SPIR-V.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "lib/compile/compile_chain.hpp"
#include "lib/compile/glslang_frontend.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace {

using namespace shaderbake;

std::string read_shader(const std::string& name) {
  std::ifstream in(std::string(SHADERBAKE_SOURCE_DIR) + "/samples/specconst/shaders/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Declared {
  uint32_t id;
  sbk_specconst_type type;
  uint64_t default_bits;
  bool used;
};

struct Shader {
  const char* file;
  compile::ShaderStage stage;
  uint32_t vk_stage;
  std::vector<Declared> constants;  // from the GLSL text, by id
};

uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// What each sample declares, read off its source by hand.
std::vector<Shader> samples() {
  return {
      {"lighting.frag", compile::ShaderStage::fragment, 16,
       {{0, SBK_SPECCONST_INT, 1, true},
        {1, SBK_SPECCONST_BOOL, 1, true},
        {2, SBK_SPECCONST_BOOL, 0, true},
        {3, SBK_SPECCONST_FLOAT, float_bits(32.0f), true},
        {4, SBK_SPECCONST_UINT, 4, true},
        {5, SBK_SPECCONST_BOOL, 0, false}}},
      {"tonemap.frag", compile::ShaderStage::fragment, 16,
       {{0, SBK_SPECCONST_INT, 1, true},
        {1, SBK_SPECCONST_BOOL, 0, true},
        {2, SBK_SPECCONST_BOOL, 1, true},
        {3, SBK_SPECCONST_FLOAT, float_bits(1.0f), true},
        {4, SBK_SPECCONST_BOOL, 1, true}}},
      {"fullscreen.vert", compile::ShaderStage::vertex, 1, {{0, SBK_SPECCONST_BOOL, 0, true}}},
      {"blur.comp", compile::ShaderStage::compute, 32,
       {{0, SBK_SPECCONST_UINT, 1, true},  // local_size_x_id: the workgroup width, default 1
        {1, SBK_SPECCONST_INT, 2, true},
        {2, SBK_SPECCONST_BOOL, 1, true}}},
  };
}

struct Scanned {
  std::vector<uint32_t> spirv;
  sbk_specconst_module info{};
};

// The module as glslang writes it, before any optimisation (what a renderer that compiles with
// glslangValidator ships): it keeps the constants nothing reads, which the scan must call unused.
Scanned scan(const Shader& s) {
  Scanned out;
  auto spirv = compile::glsl_to_spirv(s.stage, read_shader(s.file));
  EXPECT_TRUE(spirv) << s.file << ": " << spirv.error().to_string();
  if (!spirv) return out;
  out.spirv = std::move(*spirv);
  EXPECT_EQ(sbk_specconst_scan_module(out.spirv.data(), out.spirv.size(), s.vk_stage, &out.info), SBK_OK);
  return out;
}

// A value set as VkSpecializationInfo holds it: 4-byte values (every sample constant is 32 bits wide).
struct Values {
  std::vector<sbk_specconst_map_entry> map;
  std::vector<uint32_t> data;
  void set(uint32_t id, uint32_t bits) {
    map.push_back({id, static_cast<uint32_t>(4 * data.size()), 4});
    data.push_back(bits);
  }
  sbk_specconst_values view() const {
    return {static_cast<uint32_t>(map.size()), map.data(), 4 * data.size(), data.data()};
  }
};

std::vector<uint8_t> key_of(const sbk_specconst_module& m, const Values& v) {
  const sbk_specconst_module* modules[1] = {&m};
  const sbk_specconst_values values = v.view();
  std::vector<uint8_t> key(SBK_SPECCONST_EXACT_KEY_MAX_SIZE(1, SBK_SPECCONST_MAX_CONSTANTS));
  size_t size = 0;
  EXPECT_EQ(sbk_specconst_encode_exact_key(modules, &values, 1, key.data(), key.size(), &size), SBK_OK);
  key.resize(size);
  return key;
}

// A value other than `bits` of the constant's type.
uint32_t other_value(const Declared& c, uint32_t bits) {
  switch (c.type) {
    case SBK_SPECCONST_BOOL: return bits ? 0u : 1u;
    case SBK_SPECCONST_FLOAT: return float_bits(2.5f) == bits ? float_bits(3.0f) : float_bits(2.5f);
    default: return bits + 1u;
  }
}

TEST(SpecconstScan, reads_back_what_the_glsl_declares) {
  for (const Shader& s : samples()) {
    const Scanned m = scan(s);
    ASSERT_EQ(m.info.constant_count, s.constants.size()) << s.file;
    EXPECT_EQ(m.info.stage, s.vk_stage);
    for (size_t k = 0; k < s.constants.size(); ++k) {
      const sbk_specconst_constant& got = m.info.constants[k];
      const Declared& want = s.constants[k];
      EXPECT_EQ(got.id, want.id) << s.file;
      EXPECT_EQ(got.type, want.type) << s.file << " id " << want.id;
      EXPECT_EQ(got.width, 32) << s.file << " id " << want.id;
      EXPECT_EQ(got.default_bits, want.default_bits) << s.file << " id " << want.id;
      EXPECT_EQ(got.used != 0, want.used) << s.file << " id " << want.id;
    }
  }
}

TEST(SpecconstScan, a_constant_it_calls_unused_freezes_to_the_same_module_whatever_its_value) {
  int unused = 0;
  for (const Shader& s : samples()) {
    const Scanned m = scan(s);
    for (uint32_t k = 0; k < m.info.constant_count; ++k) {
      const sbk_specconst_constant& c = m.info.constants[k];
      if (c.used) continue;
      const Declared& d = s.constants[k];
      const std::vector<compile::SpecializationValue> at_default = {{c.id, {static_cast<uint32_t>(c.default_bits)}}};
      const std::vector<compile::SpecializationValue> other = {{c.id, {other_value(d, static_cast<uint32_t>(c.default_bits))}}};
      auto a = compile::compile_glsl(s.stage, read_shader(s.file), at_default);
      auto b = compile::compile_glsl(s.stage, read_shader(s.file), other);
      ASSERT_TRUE(a && b) << s.file;
      EXPECT_EQ(a->spirv, b->spirv) << s.file << ": constant " << c.id << " is not ignored";
      ++unused;
    }
  }
  EXPECT_EQ(unused, 1);  // lighting.frag's kDebugTint
}

TEST(SpecconstKey, every_used_constant_changes_it_an_ignored_one_and_a_default_do_not) {
  for (const Shader& s : samples()) {
    const Scanned m = scan(s);
    const std::vector<uint8_t> none = key_of(m.info, {});
    Values defaults;
    for (const Declared& c : s.constants) defaults.set(c.id, static_cast<uint32_t>(c.default_bits));
    EXPECT_EQ(key_of(m.info, defaults), none) << s.file << ": every constant given at its default";
    for (const Declared& c : s.constants) {
      Values changed;
      changed.set(c.id, other_value(c, static_cast<uint32_t>(c.default_bits)));
      if (c.used) EXPECT_NE(key_of(m.info, changed), none) << s.file << " id " << c.id;
      else EXPECT_EQ(key_of(m.info, changed), none) << s.file << " id " << c.id;
    }
    // Ids the module does not declare are ignored, as Vulkan ignores them.
    Values stray;
    stray.set(77, 1);
    EXPECT_EQ(key_of(m.info, stray), none) << s.file;
  }
}

TEST(SpecconstKey, distinct_used_values_give_distinct_keys_and_the_module_is_part_of_it) {
  const std::vector<Shader> all = samples();
  const Scanned lighting = scan(all[0]), tonemap = scan(all[1]);
  // Every combination of quality 0-2, the three switches and two specular powers: 48 value sets, 48 keys.
  std::map<std::vector<uint8_t>, int> keys;
  int sets = 0;
  for (uint32_t quality = 0; quality < 3; ++quality)
    for (uint32_t switches = 0; switches < 8; ++switches)
      for (float power : {16.0f, 64.0f}) {
        Values v;
        v.set(0, quality);
        v.set(1, switches & 1);
        v.set(2, (switches >> 1) & 1);
        v.set(5, (switches >> 2) & 1);  // ignored: does not split keys
        v.set(3, float_bits(power));
        ++keys[key_of(lighting.info, v)];
        ++sets;
      }
  EXPECT_EQ(sets, 48);
  EXPECT_EQ(keys.size(), 24u);  // the ignored switch pairs them up
  for (const auto& [key, count] : keys) EXPECT_EQ(count, 2);
  // Another module with the same ids and values has another key.
  Values v;
  v.set(0, 1);
  EXPECT_NE(key_of(lighting.info, v), key_of(tonemap.info, v));
}

TEST(SpecconstKey, a_graphics_pipeline_keys_both_stages_in_order) {
  const std::vector<Shader> all = samples();
  const Scanned vert = scan(all[2]), frag = scan(all[1]);
  const sbk_specconst_module* modules[2] = {&vert.info, &frag.info};
  Values flip, exposure;
  flip.set(0, 1);
  exposure.set(3, float_bits(2.0f));
  auto encode = [&](const Values& a, const Values& b) {
    const sbk_specconst_values values[2] = {a.view(), b.view()};
    std::vector<uint8_t> key(SBK_SPECCONST_EXACT_KEY_MAX_SIZE(2, 8));
    size_t size = 0;
    EXPECT_EQ(sbk_specconst_encode_exact_key(modules, values, 2, key.data(), key.size(), &size), SBK_OK);
    key.resize(size);
    return key;
  };
  const auto both = encode(flip, exposure);
  EXPECT_NE(both, encode({}, exposure));   // the vertex stage's value counts
  EXPECT_NE(both, encode(flip, {}));       // and the fragment stage's
  EXPECT_NE(both, encode(exposure, flip)); // each stage reads its own values (id 0 in the fragment is kCurve)
  EXPECT_EQ(both[4], 2);                   // module count
}

TEST(SpecconstKey, a_compute_kernel_keys_its_workgroup_width_and_the_chain_freezes_it) {
  const Shader blur = samples()[3];
  const Scanned m = scan(blur);
  Values wide;
  wide.set(0, 64);
  EXPECT_NE(key_of(m.info, wide), key_of(m.info, {}));
  // The compile chain compiles the kernel generic and frozen (spirv-val passes both: compile_glsl validates),
  // and the frozen module has no specialization constant left for a pipeline to set.
  auto generic = compile::compile_glsl(blur.stage, read_shader(blur.file));
  ASSERT_TRUE(generic) << generic.error().to_string();
  const std::vector<compile::SpecializationValue> values = {{0, {64}}, {1, {3}}};
  auto frozen = compile::compile_glsl(blur.stage, read_shader(blur.file), values);
  ASSERT_TRUE(frozen) << frozen.error().to_string();
  sbk_specconst_module generic_info{}, frozen_info{};
  ASSERT_EQ(sbk_specconst_scan_module(generic->spirv.data(), generic->spirv.size(), 32, &generic_info), SBK_OK);
  ASSERT_EQ(sbk_specconst_scan_module(frozen->spirv.data(), frozen->spirv.size(), 32, &frozen_info), SBK_OK);
  EXPECT_EQ(generic_info.constant_count, 3u);
  EXPECT_EQ(frozen_info.constant_count, 0u);
  EXPECT_NE(generic->spirv, frozen->spirv);
  // Its interface: two storage buffers and an 8-byte push-constant block.
  ASSERT_EQ(generic->reflection.bindings.size(), 2u);
  EXPECT_EQ(generic->reflection.bindings[0].kind, compile::Reflection::Binding::Kind::storage_buffer);
  EXPECT_EQ(generic->reflection.push_constant_size, 8u);
}

}  // namespace

namespace {

// A SPIR-V instruction: its word count and opcode, then its operands.
void emit(std::vector<uint32_t>& words, uint32_t opcode, std::initializer_list<uint32_t> operands) {
  words.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
  words.insert(words.end(), operands);
}

TEST(SpecconstScan, finds_a_constants_type_whatever_else_word_1_of_an_earlier_instruction_holds) {
  // Ids numbered in order of appearance, as an assembler gives them: the constant's type is %5, and the
  // instructions before its declaration hold 5 in their word 1 for other reasons (OpEntryPoint's execution
  // model GLCompute = 5, an OpName of %5, OpCapability 5 = Float16... any enum).
  std::vector<uint32_t> m = {0x07230203u, 0x00010000u, 0, 8, 0};
  emit(m, 17, {1});                           // OpCapability Shader
  emit(m, 14, {0, 1});                        // OpMemoryModel Logical GLSL450
  emit(m, 15, {5, 1, 0x6E69616Du, 0});        // OpEntryPoint GLCompute %1 "main"
  emit(m, 5, {5, 0x6e69u});                   // OpName %5 "in"
  emit(m, 71, {2, 1, 9});                     // OpDecorate %2 SpecId 9
  emit(m, 19, {3});                           // OpTypeVoid %3
  emit(m, 21, {5, 32, 0});                    // OpTypeInt %5 32 0 (uint)
  emit(m, 50, {5, 2, 7});                     // OpSpecConstant %5 %2 7
  emit(m, 128, {5, 6, 2, 2});                 // OpIAdd %5 %6 %2 %2 (a use)
  sbk_specconst_module scan;
  ASSERT_EQ(sbk_specconst_scan_module(m.data(), m.size(), 32, &scan), SBK_OK);
  ASSERT_EQ(scan.constant_count, 1u);
  EXPECT_EQ(scan.constants[0].id, 9u);
  EXPECT_EQ(scan.constants[0].type, SBK_SPECCONST_UINT);
  EXPECT_EQ(scan.constants[0].width, 32u);
  EXPECT_EQ(scan.constants[0].default_bits, 7u);
  EXPECT_EQ(scan.constants[0].used, 1u);
  // A constant whose type is not a scalar (here a vector type %5) is still refused.
  std::vector<uint32_t> v = {0x07230203u, 0x00010000u, 0, 8, 0};
  emit(v, 71, {2, 1, 9});
  emit(v, 21, {4, 32, 0});
  emit(v, 23, {5, 4, 2});                     // OpTypeVector %5 %4 2
  emit(v, 50, {5, 2, 7});
  EXPECT_EQ(sbk_specconst_scan_module(v.data(), v.size(), 32, &scan), SBK_ERROR_INVALID_STATE);
}

}  // namespace
