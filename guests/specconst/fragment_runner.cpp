// SPDX-License-Identifier: MIT
#include "guests/specconst/fragment_runner.hpp"

#include <algorithm>

#include "lib/compile/compile_chain.hpp"

namespace shaderbake::specconst {

Result<vulkan::PipelineSpec> fragment_pipeline(std::vector<uint32_t> fragment_spirv, const compile::Reflection& fragment) {
  static const char* kTypes[] = {"float", "float", "vec2", "vec3", "vec4"};
  static const char* kSwizzles[] = {".x", ".x", ".xy", ".xyz", ""};
  vulkan::PipelineSpec spec;
  std::string glsl = "#version 450\nlayout(location = 0) in vec4 position;\n", body;
  for (const auto& input : fragment.inputs) {
    const uint32_t l = input.location, n = std::min(input.components, 4u);
    glsl += "layout(location = " + std::to_string(l + 1) + ") in vec4 a" + std::to_string(l) + ";\n";
    glsl += "layout(location = " + std::to_string(l) + ") out " + kTypes[n] + " v" + std::to_string(l) + ";\n";
    body += " v" + std::to_string(l) + " = a" + std::to_string(l) + kSwizzles[n] + ";";
    spec.attribute_locations.push_back(l + 1);
  }
  auto vertex = compile::compile_glsl(compile::ShaderStage::vertex, glsl + "void main() { gl_Position = position;" + body + " }\n");
  if (!vertex) return std::move(vertex).error();
  spec.vertex_spirv = std::move(vertex->spirv);
  spec.fragment_spirv = std::move(fragment_spirv);
  return spec;
}

}  // namespace shaderbake::specconst
