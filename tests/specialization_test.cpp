// SPDX-License-Identifier: MIT
// Specialization values in the compile chain: frozen into the module exactly as if the source had declared
// plain constants with those values (the oracle: the same source with the defaults edited by hand), checked
// against the module's declarations, and part of a job's identity in compile_all.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "lib/compile/compile_chain.hpp"
#include "lib/compile/spirv_tools.hpp"

using namespace shaderbake;
using compile::ShaderStage;
using compile::SpecializationValue;

namespace {

// A fragment shader whose loop count and branch come from the constants `constants` declares: the
// specialization constants N (id 3) and USE (id 5), or plain constants of the same names for the oracle.
// TWICE is an OpSpecConstantOp over N when N is a specialization constant.
std::string fragment_with(std::string_view constants) {
  return "#version 450\n" + std::string(constants) +
         "const int TWICE = N * 2;\n"
         "layout(location = 0) in vec4 colour;\n"
         "layout(location = 0) out vec4 result;\n"
         "void main() {\n"
         "  vec4 sum = vec4(0.0);\n"
         "  for (int i = 0; i < N; ++i) sum += colour * float(i + 1);\n"
         "  if (USE) sum = sum.wzyx * float(TWICE);\n"
         "  result = sum;\n"
         "}\n";
}

const std::string kSpecialized = fragment_with(
    "layout(constant_id = 3) const int N = 1;\n"
    "layout(constant_id = 5) const bool USE = false;\n");

const std::vector<SpecializationValue> kFourAndTrue = {{3, {4}}, {5, {1}}};

// OpSpecConstantTrue, OpSpecConstantFalse, OpSpecConstant, OpSpecConstantComposite and OpSpecConstantOp
// (opcodes 48-52) in the module.
size_t spec_constant_instructions(const std::vector<uint32_t>& spirv) {
  size_t count = 0;
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t word_count = spirv[at] >> 16, opcode = spirv[at] & 0xFFFF;
    if (word_count == 0) {
      ADD_FAILURE() << "malformed instruction at word " << at;
      break;
    }
    if (opcode >= 48 && opcode <= 52) ++count;
    at += word_count;
  }
  return count;
}

// A module as its header, its instructions before the first OpFunction (debug, annotations, types, constants,
// variables) in sorted order, and its functions' instructions in module order.
struct OrderFreeGlobals {
  std::vector<uint32_t> header;
  std::vector<std::vector<uint32_t>> globals;
  std::vector<std::vector<uint32_t>> functions;
  friend bool operator==(const OrderFreeGlobals&, const OrderFreeGlobals&) = default;
};

OrderFreeGlobals order_free_globals(const std::vector<uint32_t>& spirv) {
  OrderFreeGlobals out;
  out.header.assign(spirv.begin(), spirv.begin() + std::min<size_t>(5, spirv.size()));
  bool in_functions = false;
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t word_count = spirv[at] >> 16;
    if (word_count == 0 || word_count > spirv.size() - at) {
      ADD_FAILURE() << "malformed instruction at word " << at;
      break;
    }
    if ((spirv[at] & 0xFFFF) == 54 /* OpFunction */) in_functions = true;
    (in_functions ? out.functions : out.globals).emplace_back(spirv.begin() + at, spirv.begin() + at + word_count);
    at += word_count;
  }
  std::sort(out.globals.begin(), out.globals.end());
  return out;
}

compile::CompiledModule compiled(ShaderStage stage, const std::string& source,
                                 const std::vector<SpecializationValue>& values = {}) {
  auto module = compile::compile_glsl(stage, source, values);
  EXPECT_TRUE(module) << module.error().to_string();
  return module ? std::move(module).value() : compile::CompiledModule{};
}

}  // namespace

TEST(Specialization, frozen_values_give_the_module_of_the_source_with_those_defaults) {
  const compile::CompiledModule unspecialized = compiled(ShaderStage::fragment, kSpecialized);
  ASSERT_GE(spec_constant_instructions(unspecialized.spirv), 3u);  // N, USE and TWICE: the test means something

  const compile::CompiledModule specialized = compiled(ShaderStage::fragment, kSpecialized, kFourAndTrue);
  ASSERT_FALSE(specialized.spirv.empty());
  EXPECT_TRUE(compile::validate_spirv(specialized.spirv));
  EXPECT_EQ(spec_constant_instructions(specialized.spirv), 0u);
  EXPECT_NE(specialized.spirv, unspecialized.spirv);

  // The oracle: the same source with plain constants of those values. The words are the same but for where one
  // constant is declared: glslang folds float(TWICE) to 8.0 where the source has it, while in the specialized
  // module spirv-opt's folding (after the freeze) declares 8.0 after the last global. The order of constant
  // declarations means nothing (spirv-val checks each is declared before use), and SPVRemapper's IDs are
  // content-derived, so the globals are compared as a set and everything else word for word.
  const compile::CompiledModule by_hand =
      compiled(ShaderStage::fragment, fragment_with("const int N = 4;\nconst bool USE = true;\n"));
  EXPECT_EQ(order_free_globals(specialized.spirv), order_free_globals(by_hand.spirv));
  EXPECT_EQ(specialized.spirv.size(), by_hand.spirv.size());
  EXPECT_EQ(specialized.reflection, by_hand.reflection);

  // The order of the values does not matter.
  const std::vector<SpecializationValue> reversed(kFourAndTrue.rbegin(), kFourAndTrue.rend());
  EXPECT_EQ(compiled(ShaderStage::fragment, kSpecialized, reversed).spirv, specialized.spirv);
}

TEST(Specialization, frozen_values_give_the_same_words_when_no_pass_creates_a_constant) {
  // As above with TWICE used as an int only (a loop bound): no folding after the freeze declares anything new.
  const std::string body =
      "const int TWICE = N * 2;\n"
      "layout(location = 0) in vec4 colour;\n"
      "layout(location = 0) out vec4 result;\n"
      "void main() {\n"
      "  vec4 sum = colour;\n"
      "  for (int i = 0; i < N; ++i) sum += colour;\n"
      "  if (USE)\n"
      "    for (int i = 0; i < TWICE; ++i) sum = sum.wzyx + colour;\n"
      "  result = sum;\n"
      "}\n";
  const std::string source =
      "#version 450\nlayout(constant_id = 3) const int N = 1;\n"
      "layout(constant_id = 5) const bool USE = false;\n" +
      body;
  const compile::CompiledModule specialized = compiled(ShaderStage::fragment, source, kFourAndTrue);
  EXPECT_EQ(spec_constant_instructions(specialized.spirv), 0u);
  EXPECT_EQ(specialized.spirv,
            compiled(ShaderStage::fragment, "#version 450\nconst int N = 4;\nconst bool USE = true;\n" + body).spirv);
}

TEST(Specialization, a_constant_without_a_value_is_frozen_at_its_default) {
  const compile::CompiledModule only_n = compiled(ShaderStage::fragment, kSpecialized, {{3, {4}}});
  EXPECT_EQ(spec_constant_instructions(only_n.spirv), 0u);
  EXPECT_EQ(only_n.spirv,
            compiled(ShaderStage::fragment, fragment_with("const int N = 4;\nconst bool USE = false;\n")).spirv);
}

TEST(Specialization, a_vertex_module_is_frozen_but_keeps_the_inputs_it_does_not_read) {
  const std::string source =
      "#version 450\n"
      "layout(constant_id = 1) const float SCALE = 1.0;\n"
      "layout(location = 0) in vec4 position;\n"
      "layout(location = 1) in vec4 unread;\n"
      "void main() { gl_Position = position * SCALE; }\n";
  const compile::CompiledModule frozen = compiled(ShaderStage::vertex, source, {{1, {0x40000000u}}});  // 2.0f
  EXPECT_EQ(spec_constant_instructions(frozen.spirv), 0u);
  ASSERT_EQ(frozen.reflection.inputs.size(), 2u);  // no performance passes: the unread input stays
  EXPECT_EQ(frozen.reflection.inputs[1].location, 1u);
  std::string by_hand = source;
  by_hand.replace(by_hand.find("layout(constant_id = 1) const float SCALE = 1.0;"),
                  std::string_view("layout(constant_id = 1) const float SCALE = 1.0;").size(),
                  "const float SCALE = 2.0;");
  EXPECT_EQ(frozen.spirv, compiled(ShaderStage::vertex, by_hand).spirv);
}

TEST(Specialization, values_the_module_cannot_take_fail_naming_the_constant_id) {
  auto failure = [](const std::vector<SpecializationValue>& values) {
    auto module = compile::compile_glsl(ShaderStage::fragment, kSpecialized, values);
    return module ? Error{} : module.error();
  };
  const Error unknown = failure({{3, {4}}, {7, {1}}});
  EXPECT_EQ(unknown.reason, "unknown_specialization_constant");
  EXPECT_EQ(unknown.kind, ErrorKind::bad_input);
  EXPECT_NE(unknown.message.find("constant_id 7"), std::string::npos) << unknown.message;

  const Error twice = failure({{3, {4}}, {5, {1}}, {3, {4}}});
  EXPECT_EQ(twice.reason, "duplicate_specialization_constant");
  EXPECT_NE(twice.message.find("constant_id 3"), std::string::npos) << twice.message;

  EXPECT_EQ(failure({{3, {4, 0}}}).reason, "bad_specialization_value");  // N is 32-bit: one word
  EXPECT_EQ(failure({{3, {}}}).reason, "bad_specialization_value");
  EXPECT_EQ(failure({{5, {2}}}).reason, "bad_specialization_value");  // a bool is 0 or 1
  EXPECT_NE(failure({{5, {2}}}).message.find("constant_id 5"), std::string::npos);
}

TEST(Specialization, compile_all_tells_jobs_apart_by_their_values_and_compiles_identical_ones_once) {
  const std::vector<SpecializationValue> two_and_true = {{3, {2}}, {5, {1}}};
  const std::vector<SpecializationValue> reversed(kFourAndTrue.rbegin(), kFourAndTrue.rend());
  const std::vector<compile::CompileJob> jobs = {
      {ShaderStage::fragment, kSpecialized, "test/1", kFourAndTrue},
      {ShaderStage::fragment, kSpecialized, "test/1", two_and_true},
      {ShaderStage::fragment, kSpecialized, "test/1", kFourAndTrue},
      {ShaderStage::fragment, kSpecialized, "test/1", reversed},  // the same values: the same job
      {ShaderStage::fragment, kSpecialized, "test/1", {}},
  };
  size_t unique = 0;
  const auto results = compile::compile_all(jobs, 2, nullptr, [&](size_t, size_t total) { unique = total; });
  EXPECT_EQ(unique, 3u);
  for (size_t i = 0; i < results.size(); ++i) ASSERT_TRUE(results[i]) << i << ": " << results[i].error().to_string();
  EXPECT_NE(results[0]->spirv, results[1]->spirv);
  EXPECT_NE(results[0]->spirv, results[4]->spirv);
  EXPECT_EQ(results[2]->spirv, results[0]->spirv);
  EXPECT_EQ(results[3]->spirv, results[0]->spirv);
  EXPECT_EQ(results[0]->spirv, compiled(ShaderStage::fragment, kSpecialized, kFourAndTrue).spirv);
  EXPECT_EQ(results[1]->spirv, compiled(ShaderStage::fragment, kSpecialized, two_and_true).spirv);
  // Without values the module is the plain chain's, specialization constants and all.
  EXPECT_EQ(results[4]->spirv, compiled(ShaderStage::fragment, kSpecialized).spirv);
  EXPECT_GE(spec_constant_instructions(results[4]->spirv), 3u);
}
