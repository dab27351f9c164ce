// SPDX-License-Identifier: MIT
// glslang on sources that are hostile to its recursion: a long chain of left-associative operators builds a tree
// as deep as the chain, which glslang walks recursively (20,000 operands overflowed an 8 MiB stack). The front
// end must compile such a source or refuse it by name, from any caller's thread, never overflow a stack.
#include <gtest/gtest.h>

#include <pthread.h>

#include <string>

#include "lib/compile/glslang_frontend.hpp"

namespace {

using namespace shaderbake;

// A fragment shader whose one statement sums `operands` copies of x.
std::string operator_chain(size_t operands) {
  std::string chain = "x";
  for (size_t i = 1; i < operands; ++i) chain += "+x";
  return "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() {\n  float x = gl_FragCoord.x;\n  x = " + chain +
         ";\n  color = vec4(x);\n}\n";
}

struct Call {
  std::string source;
  Result<std::vector<uint32_t>> result = Error{};
};

// glsl_to_spirv from a thread whose own stack is 256 KiB: what glslang needs must not come from the caller's.
Result<std::vector<uint32_t>> compile_from_a_small_stack(std::string source) {
  Call call{std::move(source)};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 256 << 10);
  pthread_t thread;
  EXPECT_EQ(pthread_create(
                &thread, &attributes,
                [](void* argument) -> void* {
                  auto* c = static_cast<Call*>(argument);
                  c->result = compile::glsl_to_spirv(compile::ShaderStage::fragment, c->source);
                  return nullptr;
                },
                &call),
            0);
  pthread_attr_destroy(&attributes);
  pthread_join(thread, nullptr);
  return std::move(call.result);
}

TEST(GlslFrontend, a_hundred_thousand_operand_chain_compiles_from_a_small_caller_stack) {
  const std::string source = operator_chain(100000);  // ~200 KB, under the 512 KiB bound
  auto spirv = compile_from_a_small_stack(source);
  ASSERT_TRUE(spirv) << spirv.error().to_string();
  EXPECT_GT(spirv->size(), 100000u) << "one instruction per operand at least";
}

TEST(GlslFrontend, a_source_over_the_bound_is_refused_by_name) {
  auto spirv = compile::glsl_to_spirv(compile::ShaderStage::fragment, operator_chain(300000));  // ~600 KB
  ASSERT_FALSE(spirv);
  EXPECT_EQ(spirv.error().reason, "glsl_too_large");
}

TEST(GlslFrontend, macros_that_expand_past_the_bound_are_refused_by_name) {
  // A 1 KB file whose macros expand to 262,144 operands.
  const std::string source =
      "#version 450\nlayout(location = 0) out vec4 color;\n"
      "#define A x+x+x+x+x+x+x+x\n#define B A+A+A+A+A+A+A+A\n#define C B+B+B+B+B+B+B+B\n"
      "#define D C+C+C+C+C+C+C+C\n#define E D+D+D+D+D+D+D+D\n#define F E+E+E+E+E+E+E+E\n"
      "void main() {\n  float x = gl_FragCoord.x;\n  x = F;\n  color = vec4(x);\n}\n";
  auto spirv = compile_from_a_small_stack(source);
  ASSERT_FALSE(spirv);
  EXPECT_EQ(spirv.error().reason, "glsl_too_large");
}

}  // namespace
