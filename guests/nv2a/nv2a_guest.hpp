// SPDX-License-Identifier: MIT
#pragma once

#include "lib/guest/guest_model.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// Canonical keys of an nv2a program, computed by the runtime header (the one definition a renderer shares).
ProgramKeys program_keys(const sbk_nv2a_program& program);

// The nv2a guest model as lib/ sees it: ingest, emitters and the reader side. Running its test vectors on a
// device is Nv2aGuest's (guests/nv2a/vector_check.hpp), which the registry lists.
class Nv2aGuestModel : public GuestModel {
 public:
  std::string_view name() const override { return "nv2a"; }
  uint8_t guest_id() const override { return SBK_GUEST_NV2A; }
  uint16_t key_schema() const override { return SBK_NV2A_KEY_SCHEMA_VERSION; }
  Result<ProgramKeys> decode_program(const json::FieldText& program) const override;
  Status check_dynamic(const json::FieldText& dynamic) const override;
  Result<compile::CompileJob> exact_shader(std::span<const uint8_t> exact_key) const override;
  Result<compile::CompileJob> fallback_shader(std::span<const uint8_t> family_key) const override;
  std::string fallback_attachment_rejection(std::span<const uint8_t> family_key,
                                            const sbk_attachment_signature& attachments) const override;
  std::string exact_emitter_id() const override;
  std::string fallback_emitter_id() const override;
  Result<compile::CompileJob> vertex_shader(std::span<const uint8_t> shader_key, const sbk_host_state& host,
                                            const compile::Reflection& fragment) const override;
  Result<compile::CompileJob> dynamic_vertex_shader(std::span<const uint8_t> family_key,
                                                    const compile::Reflection& fragment) const override;
  std::span<const vulkan_names::Name> vertex_semantics() const override;
  VertexAttributeDefaults vertex_attribute_defaults() const override;
  std::string vertex_emitter_id() const override;
  uint32_t rejection_code(std::string_view reason) const override;
  std::string rejection_name(uint32_t code) const override;
  Result<ExactKeyView> describe_exact_key(std::span<const uint8_t> exact_key) const override;
  Status check_family_key(std::span<const uint8_t> family_key) const override;
};

}  // namespace shaderbake::nv2a
