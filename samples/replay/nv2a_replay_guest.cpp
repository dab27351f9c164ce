// SPDX-License-Identifier: MIT
#include "samples/replay/nv2a_replay_guest.hpp"

#include <array>
#include <vector>

#include "guests/nv2a/exact_emitter.hpp"
#include "lib/bundle/layout_contract.hpp"
#include "lib/compile/compile_chain.hpp"
#include "runtime_loader/shaderbake_nv2a.h"
#include "samples/replay/compiled_pipelines.hpp"
#include "samples/replay/frame_renderer.hpp"

namespace shaderbake::replay {

namespace {

static_assert(SBK_NV2A_EXACT_KEY_SIZE <= kMaxKeySize && SBK_NV2A_FAMILY_KEY_SIZE <= kMaxKeySize);
static_assert(SBK_NV2A_PACKET_SIZE <= kMaxPacketSize);
static_assert(int{SBK_SAMPLER_2D} == int{kSampler2D} && int{SBK_SAMPLER_3D} == int{kSampler3D} &&
              int{SBK_SAMPLER_CUBE} == int{kSamplerCube});

using Programs = std::vector<sbk_nv2a_program>;

// The old way: generate the exact fragment shader's GLSL and the pass-through vertex shader's, compile both in
// process (the project's compile chain: glslang, spirv-val, spirv-opt, canonical IDs, reflection), derive the
// pipeline layout from their reflection and create the pipeline. The same generators and chain as `shaderbake
// build`, so the pipeline is the one the bundle would have held.
class Nv2aOldWay final : public OldWay {
 public:
  Nv2aOldWay(const Programs& programs, PipelineFactory& factory)
      : programs_(programs), factory_(factory), layouts_(factory) {}

  Result<bool> create(uint32_t program_index, const sbk_host_state* host, DrawBinding* out) override {
    const sbk_nv2a_program& program = programs_[program_index];
    auto source = nv2a::emit_exact_fragment(program);
    if (!source || host == nullptr) return false;  // a program the exact emitter cannot generate: nothing to draw
    ++shader_compiles_;
    auto fragment = compile::compile_glsl(compile::ShaderStage::fragment, *source);
    if (!fragment) return std::move(fragment).error();
    // The pass-through vertex shader of this host's vertex layout, writing what the fragment shader reads.
    ++shader_compiles_;
    auto vertex = compile::compile_glsl(
        compile::ShaderStage::vertex,
        nv2a::emit_vertex_shader(nv2a::vertex_semantic_mask(*host), nv2a::fragment_varyings(fragment->reflection)));
    if (!vertex) return std::move(vertex).error();
    auto contract = bundle::layout_contract(vertex->reflection, fragment->reflection);
    if (!contract) return std::move(contract).error();
    if (Status s = layouts_.fill(*contract, out); !s) return std::move(s).error();
    auto vertex_module = factory_.create_module(vertex->spirv);
    if (!vertex_module) return std::move(vertex_module).error();
    auto fragment_module = factory_.create_module(fragment->spirv);
    if (!fragment_module) return std::move(fragment_module).error();
    auto pipeline = factory_.create_pipeline(*host, *vertex_module, *fragment_module, out->layout);
    if (!pipeline) return std::move(pipeline).error();
    out->pipeline = *pipeline;
    out->program = program_index;
    return true;
  }
  uint64_t shader_compiles() const override { return shader_compiles_; }

 private:
  const Programs& programs_;
  PipelineFactory& factory_;
  ContractLayouts layouts_;
  uint64_t shader_compiles_ = 0;
};

class Nv2aReplayGuest final : public ReplayGuest {
 public:
  explicit Nv2aReplayGuest(Programs programs) : programs_(std::move(programs)) {
    for (const sbk_nv2a_program& program : programs_) {
      std::array<uint8_t, SBK_NV2A_TEXTURE_STAGES> dims{};
      for (uint32_t s = 0; s < SBK_NV2A_TEXTURE_STAGES; ++s)
        dims[s] = static_cast<uint8_t>(sbk_nv2a_sampler_dim(sbk_nv2a_effective_texture_mode(&program, s)));
      sampler_dims_.push_back(dims);
    }
    // Fixed combiner constants that are not zero, so that they count in the pixels; they never reach a key.
    sbk_nv2a_dynamic dynamic{};
    for (uint32_t i = 0; i < SBK_NV2A_MAX_STAGES; ++i) {
      dynamic.c0[i] = 0xC0804020u + 0x01030507u * i;  // ARGB
      dynamic.c1[i] = 0x6020A0E0u + 0x07050301u * i;
    }
    dynamic.final_c0 = 0x80406080u;
    dynamic.final_c1 = 0xFF30C090u;
    dynamic.fog_color = 0xFF8090A0u;
    dynamic.alpha_ref = 0x20;
    sbk_nv2a_pack_dynamic(&dynamic, dynamic_block_.data());
  }

  std::string_view name() const override { return "nv2a"; }
  sbk_result check_bundle(const sbk_bundle& bundle) const override { return sbk_nv2a_check_bundle(&bundle); }
  uint32_t program_count() const override { return static_cast<uint32_t>(programs_.size()); }
  bool is_compute(uint32_t) const override { return false; }

  void encode_keys(uint32_t program_index, const sbk_host_state* host, DrawKeys* out) const override {
    const sbk_nv2a_program& program = programs_[program_index];
    sbk_nv2a_encode_exact_key(&program, out->exact);
    out->exact_size = SBK_NV2A_EXACT_KEY_SIZE;
    out->family_size = 0;
    // Admission of the draw with its family key encoded once: the program (sbk_nv2a_admit), then the family
    // on the draw's depth attachment; what sbk_nv2a_admit_draw answers. Fail-closed: a refused draw has none.
    if (host == nullptr || sbk_nv2a_admit(&program, nullptr) != SBK_NV2A_OK) return;
    sbk_nv2a_encode_family_key(&program, out->family);
    if (sbk_nv2a_admit_attachment(out->family, host->depth_format) == SBK_NV2A_OK) out->family_size = SBK_NV2A_FAMILY_KEY_SIZE;
  }
  size_t encode_packet(uint32_t program_index, uint8_t* out, uint32_t* binding) const override {
    sbk_nv2a_encode_packet(&programs_[program_index], out);  // the program, as runtime data for the ubershader
    *binding = SBK_NV2A_BINDING_PACKET;
    return SBK_NV2A_PACKET_SIZE;
  }

  // Bindings 0-3 are the texture stages.
  uint8_t sampler_dim(uint32_t program, uint32_t binding) const override {
    return binding < SBK_NV2A_TEXTURE_STAGES ? sampler_dims_[program][binding] : 0;
  }
  std::span<const uint8_t> uniform_block() const override { return dynamic_block_; }
  std::span<const uint8_t> push_constants(bool) const override { return {}; }
  uint32_t position_location() const override { return SBK_NV2A_LOCATION_POSITION; }

  std::unique_ptr<OldWay> old_way(PipelineFactory& factory) const override {
    return std::make_unique<Nv2aOldWay>(programs_, factory);
  }

 private:
  Programs programs_;
  std::vector<std::array<uint8_t, SBK_NV2A_TEXTURE_STAGES>> sampler_dims_;
  std::array<uint8_t, SBK_NV2A_DYNAMIC_BLOCK_SIZE> dynamic_block_{};
};

}  // namespace

Result<std::unique_ptr<ReplayGuest>> make_nv2a_replay_guest(const trace::TraceReader& reader) {
  Programs programs(reader.exact_keys().size());
  for (uint32_t p = 0; p < reader.exact_keys().size(); ++p) {
    const auto key = reader.exact_keys().bytes(p);
    if (key.size() != SBK_NV2A_EXACT_KEY_SIZE || sbk_nv2a_decode_exact_key(key.data(), &programs[p]) != SBK_OK)
      return Error{ErrorKind::bad_input, "not_nv2a", "the trace's programs are not nv2a programs", {}};
  }
  return std::unique_ptr<ReplayGuest>(std::make_unique<Nv2aReplayGuest>(std::move(programs)));
}

}  // namespace shaderbake::replay
