// SPDX-License-Identifier: MIT
#pragma once

#include "lib/guest/guest_model.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// Canonical keys of an nv2a program, computed by the runtime header (the one definition a renderer shares).
ProgramKeys program_keys(const sbk_nv2a_program& program);

// The nv2a guest model as lib/ sees it.
class Nv2aGuestModel final : public GuestModel {
 public:
  std::string_view name() const override { return "nv2a"; }
  Result<ProgramKeys> decode_program(json::od::value& program, const json::RecordContext& ctx,
                                     const json::Pointer& pointer) const override;
  Status check_dynamic(json::od::value& dynamic, const json::RecordContext& ctx,
                       const json::Pointer& pointer) const override;
  Result<std::string> exact_source(std::span<const uint8_t> exact_key) const override;
  Result<std::string> fallback_source(std::span<const uint8_t> family_key) const override;
  std::string exact_emitter_id() const override;
  std::string fallback_emitter_id() const override;
  Result<std::string> vertex_source(const sbk_host_state& host, const compile::Reflection& fragment) const override;
  Result<std::string> dynamic_vertex_source(const compile::Reflection& fragment) const override;
  VertexAttributeDefaults vertex_attribute_defaults() const override;
  std::string vertex_emitter_id() const override;
  uint32_t rejection_code(std::string_view reason) const override;
};

}  // namespace shaderbake::nv2a
