// SPDX-License-Identifier: MIT
#include "lib/bundle/layout_contract.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <utility>

namespace shaderbake::bundle {

namespace {

constexpr uint32_t kVkStageVertex = 0x1;     // VK_SHADER_STAGE_VERTEX_BIT
constexpr uint32_t kVkStageFragment = 0x10;  // VK_SHADER_STAGE_FRAGMENT_BIT
constexpr uint32_t kVkStageCompute = 0x20;   // VK_SHADER_STAGE_COMPUTE_BIT

uint32_t descriptor_type(compile::Reflection::Binding::Kind kind) {
  switch (kind) {
    case compile::Reflection::Binding::Kind::sampled_image: return 1;   // COMBINED_IMAGE_SAMPLER
    case compile::Reflection::Binding::Kind::uniform_buffer: return 6;  // UNIFORM_BUFFER
    case compile::Reflection::Binding::Kind::storage_buffer: return 7;  // STORAGE_BUFFER
  }
  return 0;
}

}  // namespace

namespace {

// The contract of modules at (reflection, stage bit) pairs: each binding with the stages that use it.
Result<LayoutContract> contract_of(std::span<const std::pair<const compile::Reflection*, uint32_t>> stages) {
  std::map<uint32_t, LayoutContract::Binding> bindings;
  LayoutContract out;
  for (const auto& [reflection, stage] : stages) {
    for (const auto& b : reflection->bindings) {
      if (b.set != 0)
        return Error{ErrorKind::internal, "unsupported_descriptor_set",
                     "a module uses descriptor set " + std::to_string(b.set) + "; layout contracts describe set 0 only", {}};
      auto [it, inserted] = bindings.try_emplace(b.binding, LayoutContract::Binding{b.binding, descriptor_type(b.kind), 1, 0});
      if (!inserted && it->second.descriptor_type != descriptor_type(b.kind))
        return Error{ErrorKind::internal, "conflicting_bindings",
                     "binding " + std::to_string(b.binding) + " has different types in the two stages", {}};
      it->second.stage_flags |= stage;
    }
    if (reflection->push_constant_size) {
      out.push_constant_size = std::max(out.push_constant_size, reflection->push_constant_size);
      out.push_constant_stages |= stage;
    }
  }
  if (bindings.size() > SBK_MAX_LAYOUT_BINDINGS)
    return Error{ErrorKind::internal, "too_many_bindings", "a pipeline needs more than 16 bindings", {}};
  for (const auto& [number, binding] : bindings) out.bindings.push_back(binding);
  return out;
}

}  // namespace

Result<LayoutContract> layout_contract(const compile::Reflection& vertex, const compile::Reflection& fragment) {
  const std::pair<const compile::Reflection*, uint32_t> stages[] = {{&vertex, kVkStageVertex}, {&fragment, kVkStageFragment}};
  return contract_of(stages);
}

Result<LayoutContract> compute_layout_contract(const compile::Reflection& compute) {
  const std::pair<const compile::Reflection*, uint32_t> stages[] = {{&compute, kVkStageCompute}};
  return contract_of(stages);
}

LayoutContract contract_of_stored(const sbk_layout& stored) {
  LayoutContract out;
  for (uint32_t i = 0; i < stored.binding_count && i < SBK_MAX_LAYOUT_BINDINGS; ++i) {
    const sbk_layout_binding& b = stored.bindings[i];
    out.bindings.push_back({b.binding, b.descriptor_type, b.descriptor_count, b.stage_flags});
  }
  out.push_constant_size = stored.push_constant_size;
  out.push_constant_stages = stored.push_constant_stages;
  return out;
}

sbk_layout stored_layout(const LayoutContract& contract) {
  sbk_layout out{};
  out.binding_count = static_cast<uint32_t>(std::min<size_t>(contract.bindings.size(), SBK_MAX_LAYOUT_BINDINGS));
  out.push_constant_size = contract.push_constant_size;
  out.push_constant_stages = contract.push_constant_stages;
  for (uint32_t i = 0; i < out.binding_count; ++i) {
    const auto& b = contract.bindings[i];
    out.bindings[i] = {b.binding, b.descriptor_type, b.descriptor_count, b.stage_flags};
  }
  return out;
}

}  // namespace shaderbake::bundle
