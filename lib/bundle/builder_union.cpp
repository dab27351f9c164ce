// SPDX-License-Identifier: MIT
// BundleBuilder's unions: one builder's content added to another's with every shared key held to the same
// content, the dynamic-state fallback recipes a union lacks, and the counts a build report gives.
#include <array>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "lib/bundle/attachment_signature.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_writer.hpp"

namespace shaderbake::bundle {

namespace {

std::string key_text(std::span<const uint8_t> key) { return std::string(key.begin(), key.end()); }

// What a key names, for messages: its kind, and a pipeline's route ("exact-route pipeline").
std::string kind_name(std::span<const uint8_t> key) {
  const uint8_t kind = key.size() >= 2 ? key[1] : 0;
  const bool pipeline = kind == SBK_KEY_KIND_PIPELINE || kind == SBK_KEY_KIND_COMPUTE_PIPELINE;
  const char* route = !pipeline ? "" : key.size() >= 3 && key[2] == SBK_ROUTE_EXACT ? "exact-route " : "fallback-route ";
  return route + std::string(key_kind_name(kind));
}

std::string module_text(const std::optional<ModuleId>& id) { return id ? "module " + id->content.to_hex() : "no module"; }

Error conflict(std::span<const uint8_t> key, const std::string& what) {
  return Error{ErrorKind::bad_input, "conflicting_key",
               "key " + KeyHash::of(key).to_hex() + " (" + kind_name(key) + ") has different content in the bundles: " + what, {}};
}

}  // namespace

std::optional<std::string> identity_difference(const BundleIdentity& a, const BundleIdentity& b) {
  auto generators = [](const BundleIdentity& id) {
    std::string out;
    for (const auto& [name, version] : id.generators) out += (out.empty() ? "" : ", ") + name + " " + version;
    return out;
  };
  const std::pair<const char*, std::pair<std::string, std::string>> fields[] = {
      {"guest", {a.guest_name + " (id " + std::to_string(a.guest) + ")", b.guest_name + " (id " + std::to_string(b.guest) + ")"}},
      {"key schema", {std::to_string(a.key_schema), std::to_string(b.key_schema)}},
      {"toolchain", {a.toolchain_fingerprint, b.toolchain_fingerprint}},
      {"generators", {generators(a), generators(b)}}};
  for (const auto& [field, values] : fields)
    if (values.first != values.second) return std::string(field) + ": " + values.first + " vs " + values.second;
  return std::nullopt;
}

Status BundleBuilder::absorb(BundleBuilder other) {
  if (auto difference = identity_difference(identity_, other.identity_))
    return Error{ErrorKind::bad_input, "identity_mismatch", "another " + *difference, {}};

  for (auto& [id, module] : other.modules_) {
    const uint32_t stage = module.stage;
    auto [it, fresh] = modules_.try_emplace(id, std::move(module));
    if (!fresh && it->second.stage != stage)
      return Error{ErrorKind::bad_input, "conflicting_key", "module " + id.content.to_hex() + " is of two stages", {}};
  }

  std::unordered_map<std::string, size_t> entry_of;
  for (size_t i = 0; i < entries_.size(); ++i) entry_of.emplace(key_text(entries_[i].key), i);
  std::unordered_set<std::string> shared;
  for (Entry& e : other.entries_) {
    const std::string key = key_text(e.key);
    auto it = entry_of.find(key);
    if (it == entry_of.end()) {
      entries_.push_back(std::move(e));
      continue;
    }
    const Entry& mine = entries_[it->second];
    if (mine.status != e.status)
      return conflict(e.key, "status " + std::to_string(mine.status) + " vs " + std::to_string(e.status));
    if (mine.rejection != e.rejection)
      return conflict(e.key, "rejection code " + std::to_string(mine.rejection) + " vs " + std::to_string(e.rejection));
    if (mine.fragment != e.fragment)
      return conflict(e.key, "shader " + module_text(mine.fragment) + " vs " + module_text(e.fragment));
    if (mine.vertex != e.vertex)
      return conflict(e.key, "vertex " + module_text(mine.vertex) + " vs " + module_text(e.vertex));
    if (mine.layout != e.layout) return conflict(e.key, "the pipeline layouts differ");
    shared.insert(key);
  }

  // Specialization data: a shared pipeline has the same data on both sides, or none on either.
  std::unordered_map<std::string, size_t> data_of;
  for (size_t i = 0; i < specializations_.size(); ++i) data_of.emplace(key_text(specializations_[i].pipeline_key), i);
  std::set<std::string> other_data;
  for (Specialization& s : other.specializations_) {
    const std::string key = key_text(s.pipeline_key);
    other_data.insert(key);
    auto it = data_of.find(key);
    if (!shared.count(key)) {
      specializations_.push_back(std::move(s));
      continue;
    }
    if (it == data_of.end())
      return conflict(s.pipeline_key, "specialization data in one bundle only (built with and without --specialize?)");
    const Specialization& mine = specializations_[it->second];
    if (mine.vertex != s.vertex || mine.shader != s.shader) return conflict(s.pipeline_key, "the specialization data differ");
  }
  for (const auto& [key, index] : data_of)
    if (shared.count(key) && !other_data.count(key))
      return conflict(specializations_[index].pipeline_key,
                      "specialization data in one bundle only (built with and without --specialize?)");

  // A family's recipes share its modules and layout (one vertex shader per family): the same on both sides.
  std::map<std::string, const DynamicFallback*> family_recipe;
  for (const DynamicFallback& d : dynamic_fallbacks_) family_recipe.emplace(key_text(d.family_key), &d);
  for (const DynamicFallback& d : other.dynamic_fallbacks_) {
    auto it = family_recipe.find(key_text(d.family_key));
    if (it != family_recipe.end() &&
        (it->second->vertex != d.vertex || it->second->fragment != d.fragment || it->second->layout != d.layout))
      return conflict(d.family_key, "its dynamic-state fallback recipes' modules or layout differ");
  }
  std::map<std::pair<std::string, SignatureWords>, size_t> recipe_of;
  for (size_t i = 0; i < dynamic_fallbacks_.size(); ++i)
    recipe_of.emplace(std::pair(key_text(dynamic_fallbacks_[i].family_key), signature_words(dynamic_fallbacks_[i].signature)), i);
  for (DynamicFallback& d : other.dynamic_fallbacks_) {
    auto it = recipe_of.find({key_text(d.family_key), signature_words(d.signature)});
    if (it == recipe_of.end()) {
      dynamic_fallbacks_.push_back(std::move(d));
      continue;
    }
    const DynamicFallback& mine = dynamic_fallbacks_[it->second];
    if (mine.vertex != d.vertex || mine.fragment != d.fragment || mine.layout != d.layout)
      return conflict(d.family_key, "its dynamic-state fallback recipe for one attachment signature differs");
  }

  if (vertex_defaults_ && other.vertex_defaults_ && *vertex_defaults_ != *other.vertex_defaults_)
    return Error{ErrorKind::bad_input, "conflicting_key", "the bundles' vertex attribute defaults differ", {}};
  if (!vertex_defaults_) vertex_defaults_ = other.vertex_defaults_;

  std::unordered_set<std::string> prewarmed;
  for (const Prewarm& p : prewarm_) prewarmed.insert(key_text(p.pipeline_key));
  for (Prewarm& p : other.prewarm_)
    if (prewarmed.insert(key_text(p.pipeline_key)).second) prewarm_.push_back(std::move(p));
  return ok_status();
}

size_t BundleBuilder::complete_dynamic_fallbacks(
    const std::function<bool(std::span<const uint8_t>, const sbk_attachment_signature&)>& refused) {
  std::set<SignatureWords> signatures;
  for (const Entry& e : entries_) {
    if (e.kind != SBK_KEY_KIND_PIPELINE || e.key.size() < 3 || e.key[2] != SBK_ROUTE_EXACT) continue;
    uint8_t route = 0;
    const uint8_t* shader_key = nullptr;
    size_t shader_key_size = 0;
    sbk_host_state host;
    if (sbk_decode_pipeline_key(e.key.data(), e.key.size(), &route, &shader_key, &shader_key_size, &host) != SBK_OK)
      continue;  // serialize refuses it by name
    sbk_attachment_signature signature;
    sbk_attachment_signature_of(&host, &signature);
    signatures.insert(signature_words(signature));
  }
  std::map<std::string, const DynamicFallback*> family_recipe;  // a family's modules and layout (one per family)
  std::set<std::pair<std::string, SignatureWords>> held;
  for (const DynamicFallback& d : dynamic_fallbacks_) {
    signatures.insert(signature_words(d.signature));
    family_recipe.emplace(key_text(d.family_key), &d);
    held.emplace(key_text(d.family_key), signature_words(d.signature));
  }
  std::vector<DynamicFallback> added;
  for (const auto& [family, recipe] : family_recipe)
    for (const SignatureWords& words : signatures) {
      if (held.count({family, words})) continue;
      const sbk_attachment_signature signature = signature_of_words(words);
      if (refused(recipe->family_key, signature)) continue;
      added.push_back({recipe->family_key, recipe->vertex, recipe->fragment, recipe->layout, signature});
    }
  const size_t count = added.size();
  for (DynamicFallback& d : added) dynamic_fallbacks_.push_back(std::move(d));
  return count;
}

BundleBuilder::ContentCounts BundleBuilder::counts() const {
  ContentCounts c;
  std::set<ModuleId> exact_modules;
  for (const Entry& e : entries_) {
    const bool exact_route = e.key.size() >= 3 && e.key[2] == SBK_ROUTE_EXACT;
    switch (e.kind) {
      case SBK_KEY_KIND_EXACT:
        ++c.specializations;
        if (e.status == SBK_STATUS_READY && e.fragment) exact_modules.insert(*e.fragment);
        if (e.rejection != 0) ++c.rejections[e.rejection];
        break;
      case SBK_KEY_KIND_FAMILY: ++c.families; break;
      case SBK_KEY_KIND_PIPELINE:
      case SBK_KEY_KIND_COMPUTE_PIPELINE: ++(exact_route ? c.exact_pipelines : c.fallback_pipelines); break;
      default: break;
    }
  }
  c.exact_modules = exact_modules.size();
  for (const auto& [id, m] : modules_)
    if (m.stage == 0x1) ++c.vertex_modules;  // VK_SHADER_STAGE_VERTEX_BIT
  c.specialized_pipelines = specializations_.size();
  c.dynamic_fallback_pipelines = dynamic_fallbacks_.size();
  c.prewarm_pipelines = prewarm_.size();
  return c;
}

}  // namespace shaderbake::bundle
