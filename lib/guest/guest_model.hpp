// SPDX-License-Identifier: MIT
#pragma once

// The one seam between lib/ and a guest model. lib/ reads traces, plans builds, writes, verifies and reports
// on bundles through this interface and never names a guest; each model lives in guests/<name>/ and is listed
// in guests/registry.cpp. docs/architecture.md walks through adding one.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/compile/compile_chain.hpp"
#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "lib/json/json_reader.hpp"
#include "lib/trace/vulkan_names.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake {

namespace vulkan {
class Executor;
}

// The canonical identities of one guest program.
struct ProgramKeys {
  std::vector<uint8_t> exact_key;   // every static field the exact emitter reads
  std::vector<uint8_t> family_key;  // only what the fallback ubershader cannot take at run time
  // Why the fallback route may not serve this program (admission's reason), or empty when it is admitted.
  std::string rejection;
  // A compute pipeline: its shader keys are a compute stage's, and its records carry no host state.
  bool compute = false;
};

// The vertex locations a guest's vertex stage can read, and what each reads when a host state supplies no
// attribute there: the DYNAMIC_FALLBACKS section's location mask and defaults (schemas/bundle.md).
struct VertexAttributeDefaults {
  uint32_t location_mask = 0;                                        // bit L: location L can be read
  std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS> values{};  // finite; zero outside the mask
};

// What a guest says of an exact key read back from a bundle (verify, inspect, reports): the key decoded, and
// admission run again on it.
struct ExactKeyView {
  // The key's fields, as the guest's trace records write them; where a key holds a digest of what a record
  // names (a file's content, say), the digest in hex.
  nlohmann::ordered_json program;
  uint32_t admission = 0;          // the rejection code admission gives now; 0 = admitted
  std::string admission_where;     // what admission looked at when it rejected (may be empty)
  std::vector<uint8_t> family_key;  // the family an admitted key belongs to; empty when rejected
};

// One case of a guest's test-vector file, checked on the engines asked for.
struct VectorCaseOutcome {
  enum class Kind : uint8_t { passed, failed, skipped };
  std::string name;
  Kind kind = Kind::passed;
  // For a failed case: what was expected and what each engine gave; for a skipped one, why.
  std::string detail;
};

struct VectorEngines {
  bool oracle = false;    // the guest's CPU reference
  bool exact = false;     // the exact route's shaders on a Vulkan device
  bool fallback = false;  // the fallback ubershader on a Vulkan device
  bool only_fallback = false;  // fallback alone was asked: a program admission rejects is skipped, not failed
};

// A guest model. Implementations are immutable after construction and safe to call from several threads.
class GuestModel {
 public:
  virtual ~GuestModel() = default;

  // ---- identity ----
  // The "guest" name of trace capture records and vector files.
  virtual std::string_view name() const = 0;
  // The bundle header's guest id (an SBK_GUEST_* value of runtime_loader/shaderbake.h) and the version of
  // this model's key layouts: a bundle of another id or key schema is refused by name.
  virtual uint8_t guest_id() const = 0;
  virtual uint16_t key_schema() const = 0;

  // ---- ingest: a trace record's guest fields ----
  // Decodes a record's "program" value (json::FieldText::parse gives its JSON) and returns its canonical
  // keys. Errors name the record position and field, with the reasons of lib/json/json_reader.hpp or the
  // guest's own.
  virtual Result<ProgramKeys> decode_program(const json::FieldText& program) const = 0;
  // Checks a record's "dynamic" value (runtime values: never part of a key).
  virtual Status check_dynamic(const json::FieldText& dynamic) const = 0;
  // Whether programs name files outside the traces (a shader a record refers to by path): a build then
  // depends on more than the traces' bytes, and the build memo, keyed by those, keeps none of its builds.
  virtual bool programs_name_files() const { return false; }
  // Trace format /1 named vertex attributes by the guest's semantics; the location each name stands for.
  // Empty (the default) for a guest that has no /1 traces: their "semantic" then names nothing.
  virtual std::span<const vulkan_names::Name> vertex_semantics() const { return {}; }

  // ---- emit ----
  // What the compile chain compiles for a key: a shader's stage, source (generated GLSL, or a module the
  // guest read), emitter id and the specialization values frozen into it (compile::CompileJob).
  // The shader of the exact route that an exact key names (a fragment or compute stage; programs that behave
  // alike can share one), or an error (e.g. a feature the emitter lacks). Dedupe counts distinct jobs.
  virtual Result<compile::CompileJob> exact_shader(std::span<const uint8_t> exact_key) const = 0;
  // The shader of a fallback family (the ubershader).
  virtual Result<compile::CompileJob> fallback_shader(std::span<const uint8_t> family_key) const = 0;
  // Why a family's ubershader may not serve draws rendering into `attachments` (an admission reason, as
  // rejection_code names them), or empty when it may: a model whose semantics hold for some attachment
  // formats only. Such draws get no fallback pipeline and no dynamic-state recipe. Default: every one.
  virtual std::string fallback_attachment_rejection(std::span<const uint8_t> family_key,
                                                    const sbk_attachment_signature& attachments) const {
    (void)family_key;
    (void)attachments;
    return {};
  }
  // The emitter and version behind the exact and fallback shaders ("<guest>-exact/1"): part of every compiled
  // artifact's identity, so that a new emitter version never meets an older one's entries.
  virtual std::string exact_emitter_id() const = 0;
  virtual std::string fallback_emitter_id() const = 0;
  // The vertex shader of a graphics pipeline whose fragment identity is `shader_key` (an exact key on the exact
  // route, a family key on the fallback route): a guest that generates it does so from the host's vertex
  // attributes and the inputs the fragment module reads (together, the pipeline's vertex interface); a guest
  // whose programs bring their own vertex stage names it through the key.
  virtual Result<compile::CompileJob> vertex_shader(std::span<const uint8_t> shader_key, const sbk_host_state& host,
                                                    const compile::Reflection& fragment) const = 0;
  // Whether a family has dynamic-state fallback pipelines (one per attachment signature, the host's vertex
  // layout and fixed-function state set at draw time). A guest whose programs bring their own vertex stage has
  // none: that stage reads what its program reads, not the guest's location mask with defaults.
  virtual bool dynamic_fallbacks() const { return true; }
  // The vertex shader of a family's dynamic-state fallback pipeline: reads every location of
  // vertex_attribute_defaults().location_mask and writes what `fragment` reads, so one module serves any vertex
  // layout the host sets at draw time (absent locations are fed their defaults).
  virtual Result<compile::CompileJob> dynamic_vertex_shader(std::span<const uint8_t> family_key,
                                                            const compile::Reflection& fragment) const = 0;
  // The location mask and defaults that vertex shader's inputs assume: a location the host supplies no
  // attribute for must read exactly what vertex_shader's module reads there.
  virtual VertexAttributeDefaults vertex_attribute_defaults() const = 0;
  virtual std::string vertex_emitter_id() const = 0;

  // ---- the reader side: verify, inspect, reports ----
  // The stable number of an admission reason (a ProgramKeys::rejection name) that bundles store; 0 is
  // "admitted" (empty name). Unknown names map to UINT32_MAX.
  virtual uint32_t rejection_code(std::string_view reason) const = 0;
  // The name of a stored rejection code; "unknown_<code>" for a code this model does not define.
  virtual std::string rejection_name(uint32_t code) const = 0;
  // Decodes an exact key of this model and runs admission on it again; an error when the bytes are not one.
  virtual Result<ExactKeyView> describe_exact_key(std::span<const uint8_t> exact_key) const = 0;
  // Checks that bytes are a family key of this model (an error naming what is wrong otherwise).
  virtual Status check_family_key(std::span<const uint8_t> family_key) const = 0;
  // The specialization values an exact key gives its pipeline's stages (vertex then fragment, or the compute
  // stage): what `build --specialize` stores with the pipeline, so verify holds the stored data to the key.
  // Default: a guest whose keys carry no values (every stage empty).
  virtual Result<std::vector<std::vector<compile::SpecializationValue>>> key_specialization(
      std::span<const uint8_t> exact_key) const {
    (void)exact_key;
    return std::vector<std::vector<compile::SpecializationValue>>{};
  }

  // ---- test vectors (optional) ----
  // Runs one of this guest's vector files (`text`, read from `path`, which names it in locations) on the
  // engines asked for (`executor` is set when exact or fallback is). An error when the file as a whole cannot
  // be read; a case it cannot read is a failed case. Models without a vector format keep this default, which
  // says so.
  virtual Result<std::vector<VectorCaseOutcome>> check_vector_file(const std::string& path, std::string_view text,
                                                                   const VectorEngines& engines,
                                                                   vulkan::Executor* executor) const;
};

}  // namespace shaderbake
