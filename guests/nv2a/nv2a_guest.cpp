// SPDX-License-Identifier: MIT
#include "guests/nv2a/nv2a_guest.hpp"

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/fallback_emitter.hpp"
#include "guests/nv2a/program_json.hpp"

namespace shaderbake::nv2a {

ProgramKeys program_keys(const sbk_nv2a_program& program) {
  ProgramKeys keys;
  keys.exact_key.resize(SBK_NV2A_EXACT_KEY_SIZE);
  keys.family_key.resize(SBK_NV2A_FAMILY_KEY_SIZE);
  sbk_nv2a_encode_exact_key(&program, keys.exact_key.data());
  sbk_nv2a_encode_family_key(&program, keys.family_key.data());
  const sbk_nv2a_reason reason = sbk_nv2a_admit(&program, nullptr);
  if (reason != SBK_NV2A_OK) keys.rejection = sbk_nv2a_reason_name(reason);
  return keys;
}

namespace {

Error not_a_key(std::string_view kind) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = "not_a_guest_key";
  e.message = "the key is not an nv2a " + std::string(kind) + " key of schema version " +
              std::to_string(SBK_NV2A_KEY_SCHEMA_VERSION);
  return e;
}

bool is_family_key(std::span<const uint8_t> key) {
  return key.size() == SBK_NV2A_FAMILY_KEY_SIZE && key[0] == SBK_GUEST_NV2A && key[1] == SBK_KEY_KIND_FAMILY &&
         (key[2] | (key[3] << 8)) == SBK_NV2A_KEY_SCHEMA_VERSION;
}

}  // namespace

Result<ProgramKeys> Nv2aGuestModel::decode_program(const json::FieldText& program) const {
  auto decoded = program.parse([&](json::od::value& root, const json::RecordContext& ctx) {
    return nv2a::decode_program(root, ctx, program.pointer());
  });
  if (!decoded) return std::move(decoded).error();
  return program_keys(*decoded);
}

Status Nv2aGuestModel::check_dynamic(const json::FieldText& dynamic) const {
  auto decoded = dynamic.parse([&](json::od::value& root, const json::RecordContext& ctx) {
    return nv2a::decode_dynamic(root, ctx, dynamic.pointer());
  });
  if (!decoded) return std::move(decoded).error();
  return ok_status();
}

namespace {

// A generated GLSL shader as the compile chain takes it.
Result<compile::CompileJob> glsl_job(compile::ShaderStage stage, Result<std::string> source, std::string emitter_id) {
  if (!source) return std::move(source).error();
  compile::CompileJob job;
  job.stage = stage;
  job.source = std::move(*source);
  job.emitter_id = std::move(emitter_id);
  return job;
}

}  // namespace

Result<compile::CompileJob> Nv2aGuestModel::exact_shader(std::span<const uint8_t> exact_key) const {
  sbk_nv2a_program program{};
  if (exact_key.size() != SBK_NV2A_EXACT_KEY_SIZE || sbk_nv2a_decode_exact_key(exact_key.data(), &program) != SBK_OK) {
    Error e = not_a_key("exact");
    e.kind = ErrorKind::internal;
    return e;
  }
  return glsl_job(compile::ShaderStage::fragment, emit_exact_fragment(program), exact_emitter_id());
}

Result<compile::CompileJob> Nv2aGuestModel::fallback_shader(std::span<const uint8_t> family_key) const {
  if (!is_family_key(family_key)) {
    Error e = not_a_key("family");
    e.kind = ErrorKind::internal;
    return e;
  }
  return glsl_job(compile::ShaderStage::fragment, emit_fallback_fragment(family_key.data()), fallback_emitter_id());
}

std::string Nv2aGuestModel::fallback_attachment_rejection(std::span<const uint8_t> family_key,
                                                          const sbk_attachment_signature& attachments) const {
  if (!is_family_key(family_key)) return {};
  const sbk_nv2a_reason reason = sbk_nv2a_admit_attachment(family_key.data(), attachments.depth_format);
  return reason == SBK_NV2A_OK ? std::string() : std::string(sbk_nv2a_reason_name(reason));
}

std::string Nv2aGuestModel::exact_emitter_id() const { return "nv2a-exact/" + std::to_string(kExactEmitterVersion); }

std::string Nv2aGuestModel::fallback_emitter_id() const {
  return "nv2a-fallback/" + std::to_string(kFallbackEmitterVersion);
}

Result<compile::CompileJob> Nv2aGuestModel::vertex_shader(std::span<const uint8_t> /*shader_key*/,
                                                          const sbk_host_state& host,
                                                          const compile::Reflection& fragment) const {
  return glsl_job(compile::ShaderStage::vertex, emit_vertex_shader(vertex_semantic_mask(host), fragment_varyings(fragment)),
                  vertex_emitter_id());
}

Result<compile::CompileJob> Nv2aGuestModel::dynamic_vertex_shader(std::span<const uint8_t> /*family_key*/,
                                                                  const compile::Reflection& fragment) const {
  return glsl_job(compile::ShaderStage::vertex, emit_vertex_shader(kAllSemantics, fragment_varyings(fragment)),
                  vertex_emitter_id());
}

std::span<const vulkan_names::Name> Nv2aGuestModel::vertex_semantics() const {
  static constexpr vulkan_names::Name kSemantics[] = {
      {"position", SBK_NV2A_LOCATION_POSITION},   {"diffuse", SBK_NV2A_LOCATION_DIFFUSE},
      {"specular", SBK_NV2A_LOCATION_SPECULAR},   {"fog", SBK_NV2A_LOCATION_FOG},
      {"texcoord0", SBK_NV2A_LOCATION_TEXCOORD0}, {"texcoord1", SBK_NV2A_LOCATION_TEXCOORD1},
      {"texcoord2", SBK_NV2A_LOCATION_TEXCOORD2}, {"texcoord3", SBK_NV2A_LOCATION_TEXCOORD3}};
  return kSemantics;
}

VertexAttributeDefaults Nv2aGuestModel::vertex_attribute_defaults() const {
  VertexAttributeDefaults out;
  out.location_mask = kAllSemantics;
  for (uint32_t s = 0; s < SBK_NV2A_LOCATION_COUNT; ++s) out.values[s] = kSemanticDefaults[s];
  return out;
}

std::string Nv2aGuestModel::vertex_emitter_id() const { return "nv2a-vertex/" + std::to_string(kExactEmitterVersion); }

uint32_t Nv2aGuestModel::rejection_code(std::string_view reason) const {
  if (reason.empty()) return SBK_NV2A_OK;
  for (uint32_t r = 1; r < SBK_NV2A_REASON_COUNT; ++r)
    if (reason == sbk_nv2a_reason_name(static_cast<sbk_nv2a_reason>(r))) return r;
  return UINT32_MAX;
}

std::string Nv2aGuestModel::rejection_name(uint32_t code) const {
  if (code < SBK_NV2A_REASON_COUNT) return sbk_nv2a_reason_name(static_cast<sbk_nv2a_reason>(code));
  return "unknown_" + std::to_string(code);
}

Result<ExactKeyView> Nv2aGuestModel::describe_exact_key(std::span<const uint8_t> exact_key) const {
  sbk_nv2a_program program{};
  if (exact_key.size() != SBK_NV2A_EXACT_KEY_SIZE || sbk_nv2a_decode_exact_key(exact_key.data(), &program) != SBK_OK)
    return not_a_key("exact");
  ExactKeyView view;
  view.program = program_json(program);
  const char* where = nullptr;
  const sbk_nv2a_reason reason = sbk_nv2a_admit(&program, &where);
  view.admission = reason;
  if (reason != SBK_NV2A_OK) {
    view.admission_where = where != nullptr ? where : "";
  } else {
    view.family_key.resize(SBK_NV2A_FAMILY_KEY_SIZE);
    sbk_nv2a_encode_family_key(&program, view.family_key.data());
  }
  return view;
}

Status Nv2aGuestModel::check_family_key(std::span<const uint8_t> family_key) const {
  if (!is_family_key(family_key)) return not_a_key("family");
  return ok_status();
}

}  // namespace shaderbake::nv2a
