// SPDX-License-Identifier: MIT
#include "guests/specconst/specconst_guest.hpp"

#include <set>

#include "guests/specconst/key_view.hpp"
#include "guests/specconst/program_json.hpp"
#include "guests/specconst/uniform_fallback.hpp"
#include "guests/specconst/unread_outputs.hpp"
#include "lib/core/hex.hpp"

namespace shaderbake::specconst {

namespace {

Error unknown_module(const KeyModule& m) {
  return Error{ErrorKind::internal, "unknown_module",
               "the key names a module (stage " + std::to_string(m.stage) + ", hash " + hex_bytes(m.hash) +
                   ") that no trace read by this process named",
               {}};
}

constexpr uint32_t kVertex = 0x1;
constexpr uint32_t kCompute = 0x20;

// The scans of a key's modules, as the library holds them.
Result<std::vector<std::shared_ptr<const LoadedShader>>> shaders_of(const ShaderLibrary& library,
                                                                   const std::vector<KeyModule>& modules) {
  std::vector<std::shared_ptr<const LoadedShader>> out;
  for (const KeyModule& m : modules) {
    auto shader = library.find(m.stage, m.hash);
    if (!shader) return unknown_module(m);
    out.push_back(std::move(shader));
  }
  return out;
}

// The family's generic module of stage `index` of its modules (uniform_fallback_module), as a compile job.
Result<compile::CompileJob> fallback_job(const ShaderLibrary& library, std::span<const uint8_t> family_key, size_t index,
                                         const std::string& emitter_id) {
  auto modules = read_family_key(family_key);
  if (!modules) return std::move(modules).error();
  if (index >= modules->size())
    return Error{ErrorKind::internal, "not_a_graphics_key", "a compute program has no vertex stage", {}};
  auto shaders = shaders_of(library, *modules);
  if (!shaders) return std::move(shaders).error();
  const sbk_specconst_module* scans[SBK_SPECCONST_MAX_STAGES];
  for (size_t s = 0; s < shaders->size(); ++s) scans[s] = &(*shaders)[s]->scan;
  PacketPlacement placement;
  placement.binding = sbk_specconst_packet_binding(scans, static_cast<uint32_t>(shaders->size()));
  for (size_t s = 0; s < index; ++s) placement.first_word += sbk_specconst_packet_words(scans[s]);
  const LoadedShader& shader = *(*shaders)[index];
  auto words = uniform_fallback_module(shader.words, shader.scan, placement);
  if (!words) return std::move(words).error();
  compile::CompileJob job;
  job.stage = shader.stage;
  job.language = compile::SourceLanguage::spirv;
  job.source.assign(reinterpret_cast<const char*>(words->data()), words->size() * 4);
  job.emitter_id = emitter_id;
  return job;
}

std::string stage_name(uint32_t stage) {
  return stage == kVertex ? "vertex" : stage == kCompute ? "compute" : "fragment";
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
  sbk_specconst_admission admission;
  if (sbk_specconst_admit_key(keys.exact_key.data(), keys.exact_key.size(), &admission) != SBK_OK)
    return Error{ErrorKind::internal, "invalid_values", "the program's exact key does not read back", {}};
  keys.rejection = rejection_name(admission.reason);
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

Result<compile::CompileJob> SpecconstGuest::family_job(std::span<const uint8_t> family_key, size_t index) const {
  std::pair<std::vector<uint8_t>, size_t> id(std::vector<uint8_t>(family_key.begin(), family_key.end()), index);
  {
    std::lock_guard lock(family_jobs_mutex_);
    if (auto it = family_jobs_.find(id); it != family_jobs_.end()) return it->second;
  }
  auto job = fallback_job(library_, family_key, index, fallback_emitter_id());
  std::lock_guard lock(family_jobs_mutex_);
  return family_jobs_.emplace(std::move(id), std::move(job)).first->second;
}

Result<compile::CompileJob> SpecconstGuest::fallback_shader(std::span<const uint8_t> family_key) const {
  auto modules = read_family_key(family_key);
  if (!modules) return std::move(modules).error();
  return family_job(family_key, modules->size() - 1);
}

Result<compile::CompileJob> SpecconstGuest::vertex_shader(std::span<const uint8_t> shader_key, const sbk_host_state&,
                                                          const compile::Reflection& fragment) const {
  if (shader_key.size() >= 2 && shader_key[1] == SBK_KEY_KIND_FAMILY)
    return family_job(shader_key, 0);
  auto modules = read_exact_key(shader_key);
  if (!modules) return std::move(modules).error();
  if (modules->size() != 2)
    return Error{ErrorKind::internal, "not_a_graphics_key", "a compute program has no vertex stage", {}};
  const KeyModule& m = modules->front();
  auto shader = library_.find(m.stage, m.hash);
  if (!shader) return unknown_module(m);
  // The outputs the pipeline's fragment module (frozen: it may read fewer than its source) does not read go,
  // when the fragment shader's inputs each take one location (then the reflection's locations are all it reads).
  std::vector<uint32_t> words = shader->words;
  const KeyModule& f = modules->back();
  if (auto fragment_shader = library_.find(f.stage, f.hash)) {
    auto single = inputs_take_one_location_each(fragment_shader->words);
    if (!single) return std::move(single).error();
    if (*single) {
      std::set<uint32_t> read;
      for (const auto& input : fragment.inputs) read.insert(input.location);
      auto trimmed = drop_unread_outputs(shader->words, read);
      if (!trimmed) return std::move(trimmed).error();
      words = std::move(*trimmed);
    }
  }
  compile::CompileJob job;
  job.stage = compile::ShaderStage::vertex;
  job.language = compile::SourceLanguage::spirv;
  job.source.assign(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  job.emitter_id = vertex_emitter_id();
  job.specialization = specialization_of(m);
  return job;
}

Result<compile::CompileJob> SpecconstGuest::dynamic_vertex_shader(std::span<const uint8_t> family_key,
                                                                  const compile::Reflection&) const {
  if (Status s = check_family_key(family_key); !s) return std::move(s).error();
  return Error{ErrorKind::internal, "no_dynamic_fallback",
               "the specconst guest has no dynamic-state fallback pipelines (its programs bring their vertex stage)", {}};
}

uint32_t SpecconstGuest::rejection_code(std::string_view reason) const {
  if (reason.empty()) return SBK_SPECCONST_ADMITTED;
  for (uint32_t code = 1; code < SBK_SPECCONST_REASON_COUNT; ++code)
    if (reason == sbk_specconst_reason_name(code)) return code;
  return UINT32_MAX;
}

std::string SpecconstGuest::rejection_name(uint32_t code) const {
  if (code == SBK_SPECCONST_ADMITTED) return {};
  if (const char* name = sbk_specconst_reason_name(code)) return name;
  return "unknown_" + std::to_string(code);
}

Result<ExactKeyView> SpecconstGuest::describe_exact_key(std::span<const uint8_t> exact_key) const {
  auto modules = read_exact_key(exact_key);
  if (!modules) return std::move(modules).error();
  sbk_specconst_admission admission;
  if (sbk_specconst_admit_key(exact_key.data(), exact_key.size(), &admission) != SBK_OK)
    return Error{ErrorKind::bad_input, "not_a_guest_key", "the key's admission fields do not read", {}};
  ExactKeyView view;
  view.program = program_json(*modules);
  view.admission = admission.reason;
  if (admission.reason != SBK_SPECCONST_ADMITTED) {
    view.admission_where = stage_name(admission.stage) + " constant_id " + std::to_string(admission.constant_id);
    return view;
  }
  // The family: the key's modules without values.
  std::vector<sbk_specconst_module> family(modules->size());
  const sbk_specconst_module* pointers[SBK_SPECCONST_MAX_STAGES];
  for (size_t s = 0; s < modules->size(); ++s) {
    family[s].stage = (*modules)[s].stage;
    std::copy((*modules)[s].hash.begin(), (*modules)[s].hash.end(), family[s].hash);
    pointers[s] = &family[s];
  }
  view.family_key.resize(SBK_SPECCONST_FAMILY_KEY_SIZE(modules->size()));
  size_t size = 0;
  if (sbk_specconst_encode_family_key(pointers, static_cast<uint32_t>(modules->size()), view.family_key.data(),
                                      view.family_key.size(), &size) != SBK_OK)
    return Error{ErrorKind::internal, "not_a_guest_key", "the key's modules do not encode as a family key", {}};
  return view;
}

Result<std::vector<std::vector<compile::SpecializationValue>>> SpecconstGuest::key_specialization(
    std::span<const uint8_t> exact_key) const {
  auto modules = read_exact_key(exact_key);
  if (!modules) return std::move(modules).error();
  std::vector<std::vector<compile::SpecializationValue>> out;
  for (const KeyModule& m : *modules) out.push_back(specialization_of(m));
  return out;
}

Status SpecconstGuest::check_family_key(std::span<const uint8_t> family_key) const {
  auto modules = read_family_key(family_key);
  if (!modules) return std::move(modules).error();
  return ok_status();
}

}  // namespace shaderbake::specconst
