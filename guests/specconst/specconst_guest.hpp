// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "guests/specconst/shader_library.hpp"
#include "lib/guest/guest_model.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace shaderbake::specconst {

// The specconst guest model: a program is a pipeline's modules (a compute shader, or a vertex and a fragment
// shader, each a GLSL or SPIR-V file a trace names) with the values of their specialization constants. Its
// exact route is each module with the values frozen into it (spirv-opt), so value sets that fold to the same
// SPIR-V share one module. Its fallback family is the modules without values: their generic variants read the
// constants from a uniform block (uniform_fallback.hpp), and admission keeps off it every value set that gives
// a constant the block cannot carry (an array size, a workgroup size, ...) a value other than its default.
//
// The shaders a read names are kept in the model (a ShaderLibrary, by content): the keys name modules by hash,
// so a build compiles what the traces it read named. A model is shared by the commands of one process.
class SpecconstGuest : public GuestModel {
 public:
  std::string_view name() const override { return "specconst"; }
  uint8_t guest_id() const override { return SBK_GUEST_SPECCONST; }
  uint16_t key_schema() const override { return SBK_SPECCONST_KEY_SCHEMA_VERSION; }
  Result<ProgramKeys> decode_program(const json::FieldText& program) const override;
  Status check_dynamic(const json::FieldText& dynamic) const override;
  bool programs_name_files() const override { return true; }
  Result<compile::CompileJob> exact_shader(std::span<const uint8_t> exact_key) const override;
  Result<compile::CompileJob> fallback_shader(std::span<const uint8_t> family_key) const override;
  std::string exact_emitter_id() const override { return "specconst-frozen/1"; }
  std::string fallback_emitter_id() const override { return "specconst-uniform/1"; }
  Result<compile::CompileJob> vertex_shader(std::span<const uint8_t> shader_key, const sbk_host_state& host,
                                            const compile::Reflection& fragment) const override;
  bool dynamic_fallbacks() const override { return false; }
  Result<compile::CompileJob> dynamic_vertex_shader(std::span<const uint8_t> family_key,
                                                    const compile::Reflection& fragment) const override;
  VertexAttributeDefaults vertex_attribute_defaults() const override { return {}; }
  std::string vertex_emitter_id() const override { return "specconst-frozen/2"; }  // /2: unread outputs dropped
  uint32_t rejection_code(std::string_view reason) const override;
  std::string rejection_name(uint32_t code) const override;
  Result<ExactKeyView> describe_exact_key(std::span<const uint8_t> exact_key) const override;
  Status check_family_key(std::span<const uint8_t> family_key) const override;
  Result<std::vector<std::vector<compile::SpecializationValue>>> key_specialization(
      std::span<const uint8_t> exact_key) const override;

  // A module a key names (its stage and hash), as a read of this model loaded it: the module a renderer creates
  // its pipelines from. nullptr when no read named it.
  std::shared_ptr<const LoadedShader> shader(uint32_t vk_stage, std::span<const uint8_t, 16> hash) const {
    return library_.find(vk_stage, hash);
  }

 private:
  // The family's generic module of stage `index` of its modules, made once: a family's vertex job is asked for
  // once per host state it is drawn with, and the rewrite may run spirv-opt's inlining.
  Result<compile::CompileJob> family_job(std::span<const uint8_t> family_key, size_t index) const;

  mutable ShaderLibrary library_;
  mutable std::mutex family_jobs_mutex_;
  mutable std::map<std::pair<std::vector<uint8_t>, size_t>, Result<compile::CompileJob>> family_jobs_;
};

}  // namespace shaderbake::specconst
