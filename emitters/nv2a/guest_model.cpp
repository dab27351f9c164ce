// SPDX-License-Identifier: MIT
#include "emitters/nv2a/guest_model.hpp"

#include "emitters/nv2a/exact_emitter.hpp"
#include "emitters/nv2a/fallback_emitter.hpp"
#include "emitters/nv2a/program_json.hpp"

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

Result<ProgramKeys> Nv2aGuestModel::decode_program(json::od::value& program, const json::RecordContext& ctx,
                                                   const json::Pointer& pointer) const {
  auto decoded = nv2a::decode_program(program, ctx, pointer);
  if (!decoded) return std::move(decoded).error();
  return program_keys(*decoded);
}

Status Nv2aGuestModel::check_dynamic(json::od::value& dynamic, const json::RecordContext& ctx,
                                     const json::Pointer& pointer) const {
  auto decoded = nv2a::decode_dynamic(dynamic, ctx, pointer);
  if (!decoded) return std::move(decoded).error();
  return ok_status();
}

Result<std::string> Nv2aGuestModel::exact_source(std::span<const uint8_t> exact_key) const {
  sbk_nv2a_program program{};
  if (exact_key.size() != SBK_NV2A_EXACT_KEY_SIZE || sbk_nv2a_decode_exact_key(exact_key.data(), &program) != SBK_OK) {
    Error e;
    e.kind = ErrorKind::internal;
    e.reason = "not_an_nv2a_exact_key";
    e.message = "the key is not an nv2a exact key of schema version " + std::to_string(SBK_NV2A_KEY_SCHEMA_VERSION);
    return e;
  }
  return emit_exact_fragment(program);
}

Result<std::string> Nv2aGuestModel::fallback_source(std::span<const uint8_t> family_key) const {
  if (family_key.size() != SBK_NV2A_FAMILY_KEY_SIZE || family_key[0] != SBK_GUEST_NV2A ||
      family_key[1] != SBK_KEY_KIND_FAMILY || (family_key[2] | (family_key[3] << 8)) != SBK_NV2A_KEY_SCHEMA_VERSION) {
    Error e;
    e.kind = ErrorKind::internal;
    e.reason = "not_an_nv2a_family_key";
    e.message = "the key is not an nv2a family key of schema version " + std::to_string(SBK_NV2A_KEY_SCHEMA_VERSION);
    return e;
  }
  return emit_fallback_fragment(family_key.data());
}

}  // namespace shaderbake::nv2a
