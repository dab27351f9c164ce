// SPDX-License-Identifier: MIT
// guests/specconst/unread_outputs on glslang's SPIR-V of the sample vertex shader and of small shaders written
// here: spirv-val accepts every result, SPIRV-Cross's reflection of it lists exactly the outputs the fragment
// stage reads (and every input the source had), an output written through an access chain is kept, and damaged
// words are refused by name.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "guests/specconst/unread_outputs.hpp"
#include "lib/compile/glslang_frontend.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/compile/spirv_tools.hpp"

namespace {

using namespace shaderbake;

std::vector<uint32_t> vertex_spirv(const std::string& source) {
  auto words = compile::glsl_to_spirv(compile::ShaderStage::vertex, source);
  EXPECT_TRUE(words) << words.error().to_string();
  return words ? *words : std::vector<uint32_t>{};
}

std::string sample_vertex_shader() {
  std::ifstream in(std::string(SHADERBAKE_SOURCE_DIR) + "/samples/specconst/shaders/mesh.vert");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<uint32_t> locations(const std::vector<compile::Reflection::Variable>& variables) {
  std::set<uint32_t> out;
  for (const auto& v : variables) out.insert(v.location);
  return out;
}

TEST(UnreadOutputs, OutputsTheFragmentStageDoesNotReadLeaveTheInterface) {
  const auto source = vertex_spirv(sample_vertex_shader());
  auto before = compile::reflect_spirv(source);
  ASSERT_TRUE(before);
  ASSERT_EQ(locations(before->outputs), (std::set<uint32_t>{0, 1, 2, 3}));
  // Every subset of the four outputs read: the rest go, the inputs stay, the module stays valid.
  for (uint32_t mask = 0; mask < 16; ++mask) {
    std::set<uint32_t> read;
    for (uint32_t l = 0; l < 4; ++l)
      if (mask >> l & 1) read.insert(l);
    auto trimmed = specconst::drop_unread_outputs(source, read);
    ASSERT_TRUE(trimmed) << trimmed.error().to_string();
    EXPECT_TRUE(compile::validate_spirv(*trimmed)) << "read mask " << mask;
    auto after = compile::reflect_spirv(*trimmed);
    ASSERT_TRUE(after);
    EXPECT_EQ(locations(after->outputs), read) << "read mask " << mask;
    EXPECT_EQ(after->inputs, before->inputs) << "read mask " << mask;
    EXPECT_EQ(after->push_constant_size, before->push_constant_size);
    if (mask == 15) {
      EXPECT_EQ(*trimmed, source) << "nothing to drop: the words are returned as they were";
    }
  }
}

TEST(UnreadOutputs, AnOutputWrittenThroughAnAccessChainIsKept) {
  const auto source = vertex_spirv(
      "#version 450\n"
      "layout(location = 0) out vec4 whole;\n"
      "layout(location = 1) out vec4 part;\n"
      "void main() { whole = vec4(1.0); part.y = 2.0; gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n");
  auto trimmed = specconst::drop_unread_outputs(source, {});
  ASSERT_TRUE(trimmed) << trimmed.error().to_string();
  EXPECT_TRUE(compile::validate_spirv(*trimmed));
  auto after = compile::reflect_spirv(*trimmed);
  ASSERT_TRUE(after);
  EXPECT_EQ(locations(after->outputs), (std::set<uint32_t>{1}));
}

TEST(UnreadOutputs, TwoDroppedOutputsOfOneTypeShareOnePrivatePointerType) {
  const auto source = vertex_spirv(
      "#version 450\n"
      "layout(location = 0) out vec2 a;\n"
      "layout(location = 1) out vec2 b;\n"
      "layout(location = 2) out vec2 c;\n"
      "void main() { a = vec2(1.0); b = a * 2.0; c = b; gl_Position = vec4(c, 0.0, 1.0); }\n");
  auto trimmed = specconst::drop_unread_outputs(source, {2});
  ASSERT_TRUE(trimmed) << trimmed.error().to_string();
  EXPECT_TRUE(compile::validate_spirv(*trimmed));
  EXPECT_EQ((*trimmed)[3], source[3] + 1) << "one new id: the one private pointer type both dropped outputs share";
  auto after = compile::reflect_spirv(*trimmed);
  ASSERT_TRUE(after);
  EXPECT_EQ(locations(after->outputs), (std::set<uint32_t>{2}));
}

TEST(UnreadOutputs, APrivatePointerTypeDeclaredLaterIsNotUsedEarlier) {
  // glslang declares a type where it is first needed: the output's vec4 pointer, then later a private vec4's.
  const auto source = vertex_spirv(
      "#version 450\n"
      "layout(location = 0) out vec4 dropped;\n"
      "vec4 global_value;\n"
      "void main() { dropped = vec4(1.0); global_value = dropped * 2.0; gl_Position = global_value; }\n");
  auto trimmed = specconst::drop_unread_outputs(source, {});
  ASSERT_TRUE(trimmed) << trimmed.error().to_string();
  EXPECT_TRUE(compile::validate_spirv(*trimmed));
  auto after = compile::reflect_spirv(*trimmed);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->outputs.empty());
}

TEST(UnreadOutputs, OutputsOfMoreThanOneLocationAreKept) {
  const auto source = vertex_spirv(
      "#version 450\n"
      "layout(location = 0) out mat4 matrix;\n"
      "layout(location = 4) out vec4 list[2];\n"
      "layout(location = 6) out vec4 single;\n"
      "void main() { matrix = mat4(1.0); list = vec4[2](vec4(1.0), vec4(2.0)); single = vec4(3.0);\n"
      "  gl_Position = vec4(0.0); }\n");
  auto trimmed = specconst::drop_unread_outputs(source, {});
  ASSERT_TRUE(trimmed) << trimmed.error().to_string();
  EXPECT_TRUE(compile::validate_spirv(*trimmed));
  auto after = compile::reflect_spirv(*trimmed);
  ASSERT_TRUE(after);
  EXPECT_EQ(locations(after->outputs), (std::set<uint32_t>{0, 4})) << "only the single-location output goes";
}

TEST(UnreadOutputs, AFragmentShaderWithMultiLocationInputsIsSaidSo) {
  auto fragment = [](const char* source) {
    auto words = compile::glsl_to_spirv(compile::ShaderStage::fragment, source);
    EXPECT_TRUE(words);
    auto single = specconst::inputs_take_one_location_each(words ? *words : std::vector<uint32_t>{});
    EXPECT_TRUE(single);
    return single && *single;
  };
  EXPECT_TRUE(fragment("#version 450\nlayout(location = 0) in vec3 a;\nlayout(location = 1) in float b;\n"
                       "layout(location = 0) out vec4 o;\nvoid main() { o = vec4(a, b) + gl_FragCoord; }\n"));
  EXPECT_FALSE(fragment("#version 450\nlayout(location = 0) in mat4 m;\nlayout(location = 0) out vec4 o;\n"
                        "void main() { o = m[1]; }\n"));
  EXPECT_FALSE(fragment("#version 450\nlayout(location = 0) in vec4 v[2];\nlayout(location = 0) out vec4 o;\n"
                        "void main() { o = v[1]; }\n"));
}

TEST(UnreadOutputs, DamagedWordsAreRefusedByName) {
  auto source = vertex_spirv(sample_vertex_shader());
  ASSERT_GT(source.size(), 20u);
  // The last instruction (OpFunctionEnd, one word) claims five: it runs past the end.
  source.back() = 5u << 16 | (source.back() & 0xFFFFu);
  auto trimmed = specconst::drop_unread_outputs(source, {0});
  ASSERT_FALSE(trimmed);
  EXPECT_EQ(trimmed.error().reason, "vertex_rewrite_failed");
  source.back() &= 0xFFFFu;  // a word count of zero
  EXPECT_FALSE(specconst::drop_unread_outputs(source, {0}));
  EXPECT_FALSE(specconst::drop_unread_outputs(std::vector<uint32_t>{0x07230203u}, {}));
}

}  // namespace
