// SPDX-License-Identifier: MIT
#include "guests/nv2a/route_runner.hpp"

#include "guests/nv2a/fallback_emitter.hpp"

#include <algorithm>

#include "guests/nv2a/exact_emitter.hpp"
#include "lib/compile/compile_chain.hpp"

namespace shaderbake::nv2a {

namespace {

std::array<float, 4> colour_floats(uint32_t argb) {
  return {static_cast<float>((argb >> 16) & 0xFF) / 255.0f, static_cast<float>((argb >> 8) & 0xFF) / 255.0f,
          static_cast<float>(argb & 0xFF) / 255.0f, static_cast<float>(argb >> 24) / 255.0f};
}

std::array<uint8_t, 4> colour_bytes(uint32_t argb) {
  return {static_cast<uint8_t>(argb >> 16), static_cast<uint8_t>(argb >> 8), static_cast<uint8_t>(argb),
          static_cast<uint8_t>(argb >> 24)};
}

// A texture stage's input as the executor binds it: the 1x1 colour, or the image's texels as RGBA8.
vulkan::TextureBinding texture_binding(uint32_t binding, vulkan::SamplerDim dim, const PixelInputs& inputs) {
  vulkan::TextureBinding t{binding, dim, colour_bytes(inputs.textures[binding])};
  if (const std::optional<TextureImage>& image = inputs.images[binding]; image && !image->is_flat()) {
    t.width = image->width;
    t.height = image->height;
    t.depth = image->depth;
    for (uint32_t texel : image->texels) {
      const auto rgba = colour_bytes(texel);
      t.texels.insert(t.texels.end(), rgba.begin(), rgba.end());
    }
  } else if (image) {
    t.rgba = colour_bytes(image->texels[0]);
  }
  return t;
}

}  // namespace

vulkan::DrawCase draw_case_for(const PixelInputs& inputs, const compile::Reflection& fragment) {
  vulkan::DrawCase c;
  // One attribute per varying the fragment shader reads, in location order (see attribute_locations); the
  // texture coordinates of stage t at location 3 + t.
  const uint32_t varyings = fragment_varyings(fragment);
  for (uint32_t l = 0; l < 7; ++l) {
    if (!((varyings >> l) & 1)) continue;
    if (l == 0) c.attributes.push_back(colour_floats(inputs.v0));
    else if (l == 1) c.attributes.push_back(colour_floats(inputs.v1));
    else if (l == 2) c.attributes.push_back({canonical_fog_factor(inputs.fog_factor), 0.0f, 0.0f, 1.0f});
    else c.attributes.push_back(inputs.texcoords[l - 3]);
  }
  for (const compile::Reflection::Binding& b : fragment.bindings) {
    if (b.kind == compile::Reflection::Binding::Kind::sampled_image && b.binding < SBK_NV2A_TEXTURE_STAGES) {
      c.textures.push_back(texture_binding(b.binding, static_cast<vulkan::SamplerDim>(b.dim), inputs));
    } else if (b.kind == compile::Reflection::Binding::Kind::uniform_buffer && b.binding == SBK_NV2A_BINDING_DYNAMIC) {
      std::vector<uint8_t> block(SBK_NV2A_DYNAMIC_BLOCK_SIZE);
      sbk_nv2a_pack_dynamic(&inputs.dynamic, block.data());
      c.uniforms.push_back({b.binding, std::move(block)});
    }
  }
  return c;
}

Result<const compile::CompiledModule*> RouteRunner::compiled(compile::ShaderStage stage, const std::string& source) {
  auto found = modules_.find(source);
  if (found != modules_.end()) return &found->second;
  auto module = compile::compile_glsl(stage, source);
  if (!module) {
    Error e = std::move(module).error();
    e.message += "\n--- generated source ---\n" + source;
    return e;
  }
  return &modules_.emplace(source, std::move(*module)).first->second;
}

Result<const compile::CompiledModule*> RouteRunner::fragment_module(const sbk_nv2a_program& program) {
  auto source = emit_exact_fragment(program);
  if (!source) return std::move(source).error();
  return compiled(compile::ShaderStage::fragment, *source);
}

Result<std::vector<PixelOutput>> RouteRunner::render(const compile::CompiledModule& fragment,
                                                     std::vector<vulkan::DrawCase> cases, bool writes_depth) {
  // The verification vertex layout: the position plus exactly the semantics whose varyings the fragment
  // shader reads, each at its semantic's location.
  const uint32_t varyings = fragment_varyings(fragment.reflection);
  auto vertex = compiled(compile::ShaderStage::vertex, emit_vertex_shader(1u | (varyings << 1), varyings));
  if (!vertex) return std::move(vertex).error();
  vulkan::PipelineSpec spec;
  spec.vertex_spirv = (*vertex)->spirv;
  spec.fragment_spirv = fragment.spirv;
  spec.attribute_locations = attribute_locations(varyings);
  spec.depth_z16 = writes_depth;
  auto pixels = executor_.run(spec, cases);
  if (!pixels) return std::move(pixels).error();
  std::vector<PixelOutput> out;
  out.reserve(pixels->size());
  for (const vulkan::PixelResult& p : *pixels) {
    PixelOutput o;
    o.rgba = p.rgba;
    o.discarded = p.discarded;
    if (writes_depth && !p.discarded) o.depth_z16 = p.depth_z16;
    for (int i = 0; i < 4; ++i) o.value[i] = static_cast<float>(p.rgba[i]) / 255.0f;
    out.push_back(o);
  }
  return out;
}

Result<std::vector<PixelOutput>> RouteRunner::run_exact(const sbk_nv2a_program& program,
                                                        std::span<const PixelInputs> inputs) {
  auto fragment = fragment_module(program);
  if (!fragment) return std::move(fragment).error();
  std::vector<vulkan::DrawCase> cases;
  cases.reserve(inputs.size());
  for (const PixelInputs& in : inputs) cases.push_back(draw_case_for(in, (*fragment)->reflection));
  bool writes_depth = false;
  for (uint32_t s = 0; s < SBK_NV2A_TEXTURE_STAGES; ++s)
    writes_depth = writes_depth || sbk_nv2a_effective_texture_mode(&program, s) == SBK_NV2A_TEXTURE_DOT_ZW;
  return render(**fragment, std::move(cases), writes_depth);
}

Result<std::vector<PixelOutput>> RouteRunner::run_fallback(const std::vector<uint8_t>& family_key,
                                                           std::span<const ProgramCase> cases) {
  if (family_key.size() != SBK_NV2A_FAMILY_KEY_SIZE) {
    Error e;
    e.kind = ErrorKind::internal;
    e.reason = "bad_family_key";
    e.message = "a fallback family key has " + std::to_string(SBK_NV2A_FAMILY_KEY_SIZE) + " bytes";
    return e;
  }
  auto fragment = compiled(compile::ShaderStage::fragment, emit_fallback_fragment(family_key.data()));
  if (!fragment) return std::move(fragment).error();
  std::vector<vulkan::DrawCase> draws;
  draws.reserve(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const char* where = nullptr;
    const sbk_nv2a_reason reason = sbk_nv2a_admit(&cases[i].program, &where);
    std::array<uint8_t, SBK_NV2A_FAMILY_KEY_SIZE> family{};
    sbk_nv2a_encode_family_key(&cases[i].program, family.data());
    if (reason != SBK_NV2A_OK || !std::equal(family.begin(), family.end(), family_key.begin())) {
      Error e;
      e.kind = ErrorKind::internal;
      e.reason = reason != SBK_NV2A_OK ? sbk_nv2a_reason_name(reason) : "wrong_family";
      e.message = "case " + std::to_string(i) + " cannot take the fallback route of this family: " + e.reason;
      return e;
    }
    vulkan::DrawCase draw = draw_case_for(cases[i].inputs, (*fragment)->reflection);
    std::vector<uint8_t> packet(SBK_NV2A_PACKET_SIZE);
    sbk_nv2a_encode_packet(&cases[i].program, packet.data());
    draw.uniforms.push_back({SBK_NV2A_BINDING_PACKET, std::move(packet)});
    draws.push_back(std::move(draw));
  }
  return render(**fragment, std::move(draws), family_key[8] != 0);
}

}  // namespace shaderbake::nv2a
