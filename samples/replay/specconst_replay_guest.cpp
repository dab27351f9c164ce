// SPDX-License-Identifier: MIT
#include "samples/replay/specconst_replay_guest.hpp"

#include <cstring>
#include <map>
#include <vector>

#include "guests/specconst/key_view.hpp"
#include "guests/specconst/specconst_guest.hpp"
#include "lib/bundle/layout_contract.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/core/byte_io.hpp"
#include "runtime_loader/shaderbake_specconst.h"
#include "samples/replay/compiled_pipelines.hpp"
#include "samples/replay/frame_renderer.hpp"

namespace shaderbake::replay {

namespace {

static_assert(SBK_SPECCONST_EXACT_KEY_MAX_SIZE(SBK_SPECCONST_MAX_STAGES, SBK_SPECCONST_MAX_STAGES * SBK_SPECCONST_MAX_CONSTANTS) <=
              kMaxKeySize);
static_assert(SBK_SPECCONST_PACKET_MAX_SIZE <= kMaxPacketSize);

// One stage of a program: its module and the values it is created with, in both shapes the runtime takes
// them (the header's VkSpecializationInfo-shaped values; a bundle-shaped block for sbk_vk_fill_*).
struct Stage {
  std::shared_ptr<const specconst::LoadedShader> shader;
  std::vector<sbk_specconst_map_entry> map;
  std::vector<uint8_t> map_bytes;  // 12 bytes per entry: id, offset, size (little-endian)
  std::vector<uint8_t> data;
};

struct Program {
  bool compute = false;
  uint32_t stage_count = 0;
  Stage stages[SBK_SPECCONST_MAX_STAGES];
  const sbk_specconst_module* modules[SBK_SPECCONST_MAX_STAGES]{};
  sbk_specconst_values values[SBK_SPECCONST_MAX_STAGES]{};
  std::map<uint32_t, uint8_t> sampler_dims;  // binding -> sbk_sampler_dim, from the modules' reflection
  bundle::LayoutContract contract;           // the renderer's own layout for its modules
  sbk_specialization specialization{};       // the values, for the old way's pipeline

  Program() = default;
  Program(const Program&) = delete;  // values/specialization point into stages
  Program& operator=(const Program&) = delete;
};

using Programs = std::vector<std::unique_ptr<Program>>;

class SpecconstOldWay final : public OldWay {
 public:
  SpecconstOldWay(const Programs& programs, PipelineFactory& factory)
      : programs_(programs), factory_(factory), layouts_(factory) {}

  Result<bool> create(uint32_t program_index, const sbk_host_state* host, DrawBinding* out) override {
    const Program& p = *programs_[program_index];
    if (Status s = layouts_.fill(p.contract, out); !s) return std::move(s).error();
    VkShaderModule modules[SBK_SPECCONST_MAX_STAGES]{};
    for (uint32_t i = 0; i < p.stage_count; ++i) {
      auto module = module_of(*p.stages[i].shader);
      if (!module) return std::move(module).error();
      modules[i] = *module;
    }
    Result<VkPipeline> pipeline =
        p.compute ? factory_.create_compute_pipeline(modules[0], out->layout, &p.specialization)
        : host    ? factory_.create_pipeline(*host, modules[0], modules[1], out->layout, &p.specialization)
                  : Result<VkPipeline>(VkPipeline{VK_NULL_HANDLE});
    if (!pipeline) return std::move(pipeline).error();
    out->pipeline = *pipeline;
    out->compute = p.compute;
    out->program = program_index;
    return out->pipeline != VK_NULL_HANDLE;
  }
  uint64_t shader_compiles() const override { return 0; }  // the renderer ships its SPIR-V

 private:
  Result<VkShaderModule> module_of(const specconst::LoadedShader& shader) {
    if (auto it = modules_.find(&shader); it != modules_.end()) return it->second;
    auto made = factory_.create_module(shader.words);
    if (!made) return made;
    modules_.emplace(&shader, *made);
    return made;
  }

  const Programs& programs_;
  PipelineFactory& factory_;
  ContractLayouts layouts_;
  std::map<const specconst::LoadedShader*, VkShaderModule> modules_;
};

class SpecconstReplayGuest final : public ReplayGuest {
 public:
  explicit SpecconstReplayGuest(Programs programs) : programs_(std::move(programs)) {
    const float half = 0.5f;
    uniform_block_.resize(16384);  // the smallest maxUniformBufferRange Vulkan allows
    for (size_t at = 0; at + 4 <= uniform_block_.size(); at += 4) std::memcpy(&uniform_block_[at], &half, 4);
    graphics_push_.resize(256);
    for (size_t word = 0; word < 64; ++word) {
      const float v = (word % 16) % 5 == 0 ? 1.0f : 0.0f;  // column-major identity matrices, one per 64 bytes
      std::memcpy(&graphics_push_[4 * word], &v, 4);
    }
    compute_push_.assign(256, 0);
  }

  std::string_view name() const override { return "specconst"; }
  sbk_result check_bundle(const sbk_bundle& bundle) const override { return sbk_specconst_check_bundle(&bundle); }
  uint32_t program_count() const override { return static_cast<uint32_t>(programs_.size()); }
  bool is_compute(uint32_t program) const override { return programs_[program]->compute; }

  void encode_keys(uint32_t program_index, const sbk_host_state*, DrawKeys* out) const override {
    const Program& p = *programs_[program_index];
    out->exact_size = out->family_size = 0;
    if (sbk_specconst_encode_exact_key(p.modules, p.values, p.stage_count, out->exact, kMaxKeySize, &out->exact_size) !=
        SBK_OK) {
      out->exact_size = 0;  // cannot happen for values read back from a key; a miss all the same
      return;
    }
    sbk_specconst_admission admission;
    if (sbk_specconst_admit_key(out->exact, out->exact_size, &admission) != SBK_OK ||
        admission.reason != SBK_SPECCONST_ADMITTED)
      return;  // fail-closed: a constant the packet cannot carry is off its default
    if (sbk_specconst_encode_family_key(p.modules, p.stage_count, out->family, kMaxKeySize, &out->family_size) != SBK_OK)
      out->family_size = 0;
  }
  size_t encode_packet(uint32_t program_index, uint8_t* out, uint32_t* binding) const override {
    const Program& p = *programs_[program_index];
    size_t size = 0;
    *binding = sbk_specconst_packet_binding(p.modules, p.stage_count);
    if (sbk_specconst_encode_packet(p.modules, p.values, p.stage_count, out, kMaxPacketSize, &size) != SBK_OK) return 0;
    return size;
  }

  uint8_t sampler_dim(uint32_t program, uint32_t binding) const override {
    const auto& dims = programs_[program]->sampler_dims;
    const auto it = dims.find(binding);
    return it == dims.end() ? 0 : it->second;
  }
  std::span<const uint8_t> uniform_block() const override { return uniform_block_; }
  std::span<const uint8_t> push_constants(bool compute) const override { return compute ? compute_push_ : graphics_push_; }
  uint32_t position_location() const override { return 0; }

  std::unique_ptr<OldWay> old_way(PipelineFactory& factory) const override {
    return std::make_unique<SpecconstOldWay>(programs_, factory);
  }

 private:
  Programs programs_;
  std::vector<uint8_t> uniform_block_, graphics_push_, compute_push_;
};

Error not_replayable(std::string reason, std::string message) {
  return Error{ErrorKind::bad_input, std::move(reason), std::move(message), {}};
}

}  // namespace

Result<std::unique_ptr<ReplayGuest>> make_specconst_replay_guest(const trace::TraceReader& reader) {
  const auto* model = dynamic_cast<const specconst::SpecconstGuest*>(reader.model());
  if (!model) return not_replayable("not_specconst", "the trace's programs are not specconst programs");
  std::map<const specconst::LoadedShader*, compile::Reflection> reflections;
  Programs programs;
  for (uint32_t index = 0; index < reader.exact_keys().size(); ++index) {
    auto key = specconst::read_exact_key(reader.exact_keys().bytes(index));
    if (!key) return std::move(key).error();
    auto program = std::make_unique<Program>();
    Program& p = *program;
    p.stage_count = static_cast<uint32_t>(key->size());
    std::vector<const compile::Reflection*> reflected;
    for (uint32_t i = 0; i < p.stage_count; ++i) {
      const specconst::KeyModule& m = (*key)[i];
      Stage& stage = p.stages[i];
      stage.shader = model->shader(m.stage, m.hash);
      if (!stage.shader)
        return not_replayable("shader_not_found", "program " + std::to_string(index) + " names a module the trace reader did not load");
      const compile::SpecializationData values = compile::specialization_data(specconst::specialization_of(m));
      ByteWriter map_bytes;  // the bundle's layout of map entries, as sbk_vk_fill_* read them
      for (const auto& e : values.entries) {
        stage.map.push_back({e.constant_id, e.offset, e.size});
        map_bytes.u32(e.constant_id);
        map_bytes.u32(e.offset);
        map_bytes.u32(e.size);
      }
      stage.map_bytes = std::move(map_bytes.data());
      stage.data = values.data;
      p.modules[i] = &stage.shader->scan;
      p.values[i] = {static_cast<uint32_t>(stage.map.size()), stage.map.data(), stage.data.size(), stage.data.data()};
      auto [it, fresh] = reflections.try_emplace(stage.shader.get());
      if (fresh) {
        auto reflection = compile::reflect_spirv(stage.shader->words);
        if (!reflection) return std::move(reflection).error();
        it->second = std::move(*reflection);
      }
      reflected.push_back(&it->second);
      for (const auto& b : it->second.bindings)
        if (b.set == 0 && b.kind == compile::Reflection::Binding::Kind::sampled_image) p.sampler_dims[b.binding] = b.dim;
    }
    p.compute = p.stage_count == 1 && p.modules[0]->stage == 0x20u;  // VK_SHADER_STAGE_COMPUTE_BIT
    sbk_specialization_block* blocks[2] = {&p.specialization.vertex, &p.specialization.shader};
    for (uint32_t i = 0; i < p.stage_count; ++i) {
      sbk_specialization_block& block = *blocks[p.compute ? 1 : i];
      block.map_count = static_cast<uint32_t>(p.stages[i].map.size());
      block.map = p.stages[i].map_bytes.empty() ? nullptr : p.stages[i].map_bytes.data();
      block.data_size = static_cast<uint32_t>(p.stages[i].data.size());
      block.data = p.stages[i].data.empty() ? nullptr : p.stages[i].data.data();
    }
    auto contract = p.compute ? bundle::compute_layout_contract(*reflected[0])
                    : p.stage_count == 2 ? bundle::layout_contract(*reflected[0], *reflected[1])
                                         : Result<bundle::LayoutContract>(not_replayable(
                                               "not_specconst", "program " + std::to_string(index) + " is neither compute nor graphics"));
    if (!contract) return std::move(contract).error();
    p.contract = std::move(*contract);
    programs.push_back(std::move(program));
  }
  return std::unique_ptr<ReplayGuest>(std::make_unique<SpecconstReplayGuest>(std::move(programs)));
}

}  // namespace shaderbake::replay
