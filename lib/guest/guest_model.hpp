// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "lib/json/json_reader.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake {

// The canonical identities of one guest program.
struct ProgramKeys {
  std::vector<uint8_t> exact_key;   // every static field the exact emitter reads
  std::vector<uint8_t> family_key;  // only what the fallback ubershader cannot take at run time
  // Why the fallback route may not serve this program (admission's reason), or empty when it is admitted.
  std::string rejection;
};

// The vertex locations a guest's vertex stage can read, and what each reads when a host state supplies no
// attribute there: the DYNAMIC_FALLBACKS section's location mask and defaults (schemas/bundle.md).
struct VertexAttributeDefaults {
  uint32_t location_mask = 0;                                        // bit L: location L can be read
  std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS> values{};  // finite; zero outside the mask
};

// What lib/ needs to know of a guest model: how to read its records. Implemented per model in guests/
// (guests/nv2a), handed to lib/ by the CLI, so lib/ never depends on a guest model.
// Implementations are immutable after construction and safe to call from several threads.
class GuestModel {
 public:
  virtual ~GuestModel() = default;

  // The "guest" name traces carry in their capture record ("nv2a").
  virtual std::string_view name() const = 0;

  // Decodes a record's "program" object and returns its canonical keys. Errors name the field.
  virtual Result<ProgramKeys> decode_program(json::od::value& program, const json::RecordContext& ctx,
                                             const json::Pointer& pointer) const = 0;

  // The generated source of the exact shader an exact key names (programs that behave alike can share
  // one), or an error (e.g. a feature the emitter lacks). For dedupe on generated source.
  virtual Result<std::string> exact_source(std::span<const uint8_t> exact_key) const = 0;

  // The generated source of a fallback family's ubershader.
  virtual Result<std::string> fallback_source(std::span<const uint8_t> family_key) const = 0;

  // The emitter and version behind exact_source / fallback_source ("nv2a-exact/1"): part of every compiled
  // artifact's identity, so that a new emitter version never meets an older one's entries.
  virtual std::string exact_emitter_id() const = 0;
  virtual std::string fallback_emitter_id() const = 0;

  // The pass-through vertex shader of a pipeline: a function of the host's vertex attributes and of the
  // inputs the fragment module reads (together, the pipeline's vertex interface).
  virtual Result<std::string> vertex_source(const sbk_host_state& host, const compile::Reflection& fragment) const = 0;
  // The vertex shader of a dynamic-state fallback pipeline: reads every location the guest can supply
  // (vertex_attribute_defaults().location_mask; location = semantic) and writes what `fragment` reads, so one
  // module serves any vertex layout the host sets at draw time (absent locations are fed their defaults).
  virtual Result<std::string> dynamic_vertex_source(const compile::Reflection& fragment) const = 0;
  // The location mask and defaults that vertex shader's inputs assume: a location the host supplies no
  // attribute for must read exactly what vertex_source's shader passes for a missing semantic.
  virtual VertexAttributeDefaults vertex_attribute_defaults() const = 0;
  virtual std::string vertex_emitter_id() const = 0;

  // The stable number of an admission reason (a ProgramKeys::rejection name) that bundles store; 0 is
  // "admitted" (empty name). Unknown names map to UINT32_MAX.
  virtual uint32_t rejection_code(std::string_view reason) const = 0;

  // Checks a record's "dynamic" object (runtime values: never part of a key).
  virtual Status check_dynamic(json::od::value& dynamic, const json::RecordContext& ctx,
                               const json::Pointer& pointer) const = 0;
};

}  // namespace shaderbake
