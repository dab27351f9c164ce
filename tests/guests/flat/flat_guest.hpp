// SPDX-License-Identifier: MIT
#pragma once

#include "lib/guest/guest_model.hpp"

namespace shaderbake::flat {

// A guest model that exists only in tests: its programs draw one flat colour, or the vertex colour. It goes
// through every command and the loader without the nv2a guest, so a command that still reaches for nv2a fails
// its tests.
//
// Trace "program": {"mode": "solid" | "vertex_color", "color": "0xAARRGGBB"} (both required; unknown fields are
// errors). "dynamic": any object (ignored).
// Exact key (8 bytes): u8 guest (kGuestId), u8 kind (exact), u16 key schema, u8 mode (0 solid, 1 vertex
// colour), u8[3] colour as r, g, b; alpha is runtime data, never in the key. Family key (4 bytes): guest,
// kind (family), key schema. Admission: solid is admitted (the ubershader reads its colour from a uniform
// block), vertex_color is rejected with reason reads_vertex_color (code 1).
// Vertex locations: 0 position, 1 colour. Its traces are of format /2 (it has no /1 semantic names).
class FlatGuest final : public GuestModel {
 public:
  static constexpr uint8_t kGuestId = 250;  // outside the ids of shipped guests
  static constexpr size_t kExactKeySize = 8;
  static constexpr size_t kFamilyKeySize = 4;

  std::string_view name() const override { return "flat"; }
  uint8_t guest_id() const override { return kGuestId; }
  uint16_t key_schema() const override { return 1; }
  Result<ProgramKeys> decode_program(const json::FieldText& program) const override;
  Status check_dynamic(const json::FieldText& dynamic) const override;
  Result<compile::CompileJob> exact_shader(std::span<const uint8_t> exact_key) const override;
  Result<compile::CompileJob> fallback_shader(std::span<const uint8_t> family_key) const override;
  std::string exact_emitter_id() const override { return "flat-exact/1"; }
  std::string fallback_emitter_id() const override { return "flat-fallback/1"; }
  Result<compile::CompileJob> vertex_shader(std::span<const uint8_t> shader_key, const sbk_host_state& host,
                                            const compile::Reflection& fragment) const override;
  Result<compile::CompileJob> dynamic_vertex_shader(std::span<const uint8_t> family_key,
                                                    const compile::Reflection& fragment) const override;
  VertexAttributeDefaults vertex_attribute_defaults() const override;
  std::string vertex_emitter_id() const override { return "flat-vertex/1"; }
  uint32_t rejection_code(std::string_view reason) const override;
  std::string rejection_name(uint32_t code) const override;
  Result<ExactKeyView> describe_exact_key(std::span<const uint8_t> exact_key) const override;
  Status check_family_key(std::span<const uint8_t> family_key) const override;
};

}  // namespace shaderbake::flat
