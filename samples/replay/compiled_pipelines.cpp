// SPDX-License-Identifier: MIT
#include "samples/replay/compiled_pipelines.hpp"

#include <chrono>

#include "lib/compile/compile_chain.hpp"

namespace shaderbake::replay {

Status ContractLayouts::fill(const bundle::LayoutContract& contract, DrawBinding* out) {
  auto it = layouts_.find(contract);
  if (it == layouts_.end()) {
    const sbk_layout layout = bundle::stored_layout(contract);
    auto created = factory_.create_layout(layout);
    if (!created) return std::move(created).error();
    it = layouts_.emplace(contract, std::make_pair(*created, layout)).first;
  }
  out->layout = it->second.first.layout;
  out->set_layout = it->second.first.set_layout;
  out->contract = it->second.second;
  return ok_status();
}

Result<double> warm_up_process(VkDevice device) {
  const auto start = std::chrono::steady_clock::now();
  auto vertex = compile::compile_glsl(compile::ShaderStage::vertex,
                                      "#version 450\nlayout(location = 0) in vec4 position;\n"
                                      "void main() { gl_Position = position; }\n");
  if (!vertex) return std::move(vertex).error();
  auto fragment = compile::compile_glsl(compile::ShaderStage::fragment,
                                        "#version 450\nlayout(location = 0) out vec4 colour;\n"
                                        "void main() { colour = vec4(1.0); }\n");
  if (!fragment) return std::move(fragment).error();
  sbk_host_state host{};
  host.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  host.color_count = 1;
  host.color_formats[0] = VK_FORMAT_R8G8B8A8_UNORM;
  host.blend[0].write_mask = SBK_WRITE_R | SBK_WRITE_G | SBK_WRITE_B | SBK_WRITE_A;
  host.samples = 1;
  host.binding_count = 1;
  host.bindings[0] = {0, 16, VK_VERTEX_INPUT_RATE_VERTEX};
  host.attribute_count = 1;
  host.attributes[0] = {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0};
  {
    PipelineFactory factory(device, VK_NULL_HANDLE, "shaderbake-replay warm-up");
    auto layout = factory.create_layout(sbk_layout{});
    if (!layout) return std::move(layout).error();
    auto v = factory.create_module(vertex->spirv);
    if (!v) return std::move(v).error();
    auto f = factory.create_module(fragment->spirv);
    if (!f) return std::move(f).error();
    auto pipeline = factory.create_pipeline(host, *v, *f, layout->layout);
    if (!pipeline) return std::move(pipeline).error();
  }  // everything destroyed
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace shaderbake::replay
