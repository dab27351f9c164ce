// SPDX-License-Identifier: MIT
#include "guests/specconst/specconst_guest.hpp"

#include "guests/specconst/key_view.hpp"
#include "guests/specconst/program_json.hpp"

namespace shaderbake::specconst {

namespace {

Error unknown_module(const KeyModule& m) {
  return Error{ErrorKind::internal, "unknown_module",
               "the key names a module (stage " + std::to_string(m.stage) + ", hash " + hash_hex(m.hash) +
                   ") that no trace read by this process named",
               {}};
}

Error no_fallback_shader() {
  return Error{ErrorKind::internal, "no_fallback_route", "the specconst guest has no fallback shader yet", {}};
}

}  // namespace

Result<ProgramKeys> SpecconstGuest::decode_program(const json::FieldText& text) const {
  auto decoded = text.parse([&](json::od::value& root, const json::RecordContext& ctx) {
    return specconst::decode_program(root, ctx, text.pointer(), library_);
  });
  if (!decoded) return std::move(decoded).error();
  const sbk_specconst_module* modules[SBK_SPECCONST_MAX_STAGES];
  sbk_specconst_values values[SBK_SPECCONST_MAX_STAGES];
  const uint32_t count = static_cast<uint32_t>(decoded->stages.size());
  size_t constants = 0;
  for (uint32_t s = 0; s < count; ++s) {
    modules[s] = &decoded->stages[s].shader->scan;
    values[s] = decoded->stages[s].values();
    constants += modules[s]->constant_count;
  }
  ProgramKeys keys;
  keys.exact_key.resize(SBK_SPECCONST_EXACT_KEY_MAX_SIZE(count, constants));
  size_t size = 0;
  // The decoder checked ids, types and sizes against each module, so the header accepts the values.
  if (sbk_specconst_encode_exact_key(modules, values, count, keys.exact_key.data(), keys.exact_key.size(), &size) != SBK_OK)
    return Error{ErrorKind::internal, "invalid_values", "the program's values do not encode as a key", {}};
  keys.exact_key.resize(size);
  keys.family_key.resize(SBK_SPECCONST_FAMILY_KEY_SIZE(count));
  if (sbk_specconst_encode_family_key(modules, count, keys.family_key.data(), keys.family_key.size(), &size) != SBK_OK)
    return Error{ErrorKind::internal, "invalid_values", "the program's modules do not encode as a family key", {}};
  keys.rejection = std::string(kNoFallbackRoute);
  keys.compute = count == 1;
  return keys;
}

Status SpecconstGuest::check_dynamic(const json::FieldText& dynamic) const {
  // Every value of this guest's programs is part of its key: "dynamic" has no field.
  return dynamic.parse([&](json::od::value& root, const json::RecordContext& ctx) -> Status {
    auto object = json::read_object(root, ctx, dynamic.pointer());
    if (!object) return std::move(object).error();
    uint64_t seen = 0;
    return json::for_each_field(*object, std::span<const std::string_view>(), true, ctx, dynamic.pointer(), &seen,
                                [](size_t, json::od::value&, const json::Pointer&) { return ok_status(); });
  });
}

Result<compile::CompileJob> SpecconstGuest::exact_shader(std::span<const uint8_t> exact_key) const {
  auto modules = read_exact_key(exact_key);
  if (!modules) return std::move(modules).error();
  const KeyModule& m = modules->back();  // the fragment (or compute) stage
  auto shader = library_.find(m.stage, m.hash);
  if (!shader) return unknown_module(m);
  compile::CompileJob job;
  job.stage = shader->stage;
  job.language = compile::SourceLanguage::spirv;
  job.source.assign(reinterpret_cast<const char*>(shader->words.data()), shader->words.size() * 4);
  job.emitter_id = exact_emitter_id();
  job.specialization = specialization_of(m);
  return job;
}

Result<compile::CompileJob> SpecconstGuest::fallback_shader(std::span<const uint8_t> family_key) const {
  if (Status s = check_family_key(family_key); !s) return std::move(s).error();
  return no_fallback_shader();
}

Result<compile::CompileJob> SpecconstGuest::vertex_shader(std::span<const uint8_t> shader_key, const sbk_host_state&,
                                                          const compile::Reflection&) const {
  auto modules = read_exact_key(shader_key);
  if (!modules) return std::move(modules).error();
  if (modules->size() != 2)
    return Error{ErrorKind::internal, "not_a_graphics_key", "a compute program has no vertex stage", {}};
  const KeyModule& m = modules->front();
  auto shader = library_.find(m.stage, m.hash);
  if (!shader) return unknown_module(m);
  compile::CompileJob job;
  job.stage = compile::ShaderStage::vertex;
  job.language = compile::SourceLanguage::spirv;
  job.source.assign(reinterpret_cast<const char*>(shader->words.data()), shader->words.size() * 4);
  job.emitter_id = vertex_emitter_id();
  job.specialization = specialization_of(m);
  return job;
}

Result<compile::CompileJob> SpecconstGuest::dynamic_vertex_shader(std::span<const uint8_t> family_key,
                                                                  const compile::Reflection&) const {
  if (Status s = check_family_key(family_key); !s) return std::move(s).error();
  return no_fallback_shader();
}

uint32_t SpecconstGuest::rejection_code(std::string_view reason) const {
  if (reason.empty()) return 0;
  if (reason == kNoFallbackRoute) return 1;
  return UINT32_MAX;
}

std::string SpecconstGuest::rejection_name(uint32_t code) const {
  if (code == 0) return {};
  if (code == 1) return std::string(kNoFallbackRoute);
  return "unknown_" + std::to_string(code);
}

Result<ExactKeyView> SpecconstGuest::describe_exact_key(std::span<const uint8_t> exact_key) const {
  auto modules = read_exact_key(exact_key);
  if (!modules) return std::move(modules).error();
  ExactKeyView view;
  view.program = program_json(*modules);
  view.admission = rejection_code(kNoFallbackRoute);
  return view;
}

Status SpecconstGuest::check_family_key(std::span<const uint8_t> family_key) const {
  auto modules = read_family_key(family_key);
  if (!modules) return std::move(modules).error();
  return ok_status();
}

}  // namespace shaderbake::specconst
