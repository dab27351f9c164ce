// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_verify.hpp"

#include <zstd.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>

#include "lib/bundle/driver_cache.hpp"
#include "lib/bundle/layout_contract.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/compile/spirv_tools.hpp"
#include "lib/core/little_endian.hpp"

namespace shaderbake::bundle {

namespace {

// The execution model of a module's first OpEntryPoint as a VkShaderStageFlagBits, or 0.
uint32_t entry_point_stage(const std::vector<uint32_t>& words) {
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xFFFF;
    if (count == 0) return 0;
    if (opcode == 15 && i + 1 < words.size()) {  // OpEntryPoint ExecutionModel ...
      switch (words[i + 1]) {
        case 0: return 0x1;   // Vertex
        case 4: return 0x10;  // Fragment
        default: return 0;
      }
    }
    i += count;
  }
  return 0;
}

std::string entry_name(const sbk_entry& e) {
  static const char* const kKinds[] = {"?", "specialization", "family", "pipeline"};
  return std::string(kKinds[e.kind <= 3 ? e.kind : 0]) + " " + KeyHash::of({e.key, e.key_size}).to_hex();
}

bool same_layout(const sbk_layout& stored, const LayoutContract& wanted) {
  if (stored.binding_count != wanted.bindings.size() || stored.push_constant_size != wanted.push_constant_size ||
      stored.push_constant_stages != wanted.push_constant_stages)
    return false;
  for (uint32_t i = 0; i < stored.binding_count; ++i) {
    const auto& a = stored.bindings[i];
    const auto& b = wanted.bindings[i];
    if (a.binding != b.binding || a.descriptor_type != b.descriptor_type || a.descriptor_count != b.descriptor_count ||
        a.stage_flags != b.stage_flags)
      return false;
  }
  return true;
}

}  // namespace

std::vector<VerifyCheck> verify_bundle(const BundleFile& file) {
  const sbk_bundle& b = file.handle();
  std::deque<VerifyCheck> checks;  // a deque: the references each check keeps stay valid as checks are added

  VerifyCheck& sections = checks.emplace_back(VerifyCheck{"sections", 1, {}});
  if (sbk_bundle_check_sections(&b) != SBK_OK) sections.failures.push_back("a section checksum does not match");

  // ---- index ----
  VerifyCheck& index = checks.emplace_back(VerifyCheck{"index", 0, {}});
  std::vector<std::optional<sbk_entry>> entries(sbk_bundle_entry_count(&b));
  {
    uint64_t size = 0;
    const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_INDEX, &size);
    const uint32_t bits = load_u32_le(section + 4);
    const uint64_t prefix = 16 + ((4 * ((uint64_t{1} << bits) + 1) + 7) & ~uint64_t{7});
    KeyHash previous_hash;
    std::vector<uint8_t> previous_key;
    for (uint32_t i = 0; i < entries.size(); ++i) {
      ++index.checked;
      const uint8_t* e = section + prefix + uint64_t{i} * SBK_BUNDLE_INDEX_ENTRY_SIZE;
      const KeyHash stored{load_u64_le(e), load_u64_le(e + 8)};
      auto entry = file.entry(i);
      if (!entry) {
        index.failures.push_back("entry " + std::to_string(i) + ": " + entry.error().message);
        continue;
      }
      entries[i] = *entry;
      const std::span<const uint8_t> key(entry->key, entry->key_size);
      const KeyHash actual = KeyHash::of(key);
      if (!(stored == actual))
        index.failures.push_back("entry " + std::to_string(i) + ": stored hash is not the hash of its key");
      const std::vector<uint8_t> key_bytes(key.begin(), key.end());
      if (i > 0 && !(previous_hash.high < actual.high ||
                     (previous_hash.high == actual.high &&
                      (previous_hash.low < actual.low || (previous_hash.low == actual.low && previous_key < key_bytes)))))
        index.failures.push_back("entry " + std::to_string(i) + ": out of order (or a duplicate key)");
      previous_hash = actual;
      previous_key = key_bytes;
      const uint64_t bucket = bits ? actual.high >> (64 - bits) : 0;
      const uint32_t first = load_u32_le(section + 16 + 4 * bucket), last = load_u32_le(section + 16 + 4 * (bucket + 1));
      if (i < first || i >= last)
        index.failures.push_back("entry " + std::to_string(i) + ": the directory does not send its bucket here");
      sbk_entry found;
      if (sbk_bundle_find(&b, entry->key, entry->key_size, &found) != SBK_OK || found.index != i)
        index.failures.push_back("entry " + std::to_string(i) + ": a probe for its own key does not find it");
    }
  }

  // ---- modules ----
  VerifyCheck& modules = checks.emplace_back(VerifyCheck{"modules", 0, {}});
  std::vector<std::optional<std::vector<uint32_t>>> words(sbk_bundle_module_count(&b));
  std::vector<uint32_t> stages(words.size(), 0);
  const std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  for (uint32_t m = 0; m < words.size(); ++m) {
    ++modules.checked;
    sbk_module_info info;
    auto module = file.module_words(m, dctx.get());
    if (!module || sbk_bundle_module_info(&b, m, &info) != SBK_OK) {
      modules.failures.push_back(module ? "module " + std::to_string(m) + ": bad entry" : module.error().message);
      continue;
    }
    if (const Status valid = compile::validate_spirv(*module); !valid)
      modules.failures.push_back("module " + std::to_string(m) + ": spirv-val: " + valid.error().message);
    if (entry_point_stage(*module) != info.stage)
      modules.failures.push_back("module " + std::to_string(m) + ": its stage field does not match its entry point");
    stages[m] = info.stage;
    words[m] = std::move(*module);
  }

  // ---- recipes and specializations ----
  VerifyCheck& recipes = checks.emplace_back(VerifyCheck{"recipes", 0, {}});
  VerifyCheck& specializations = checks.emplace_back(VerifyCheck{"specializations", 0, {}});
  std::map<uint32_t, std::optional<compile::Reflection>> reflections;
  auto reflection_of = [&](uint32_t m) -> const std::optional<compile::Reflection>& {
    auto [it, inserted] = reflections.try_emplace(m);
    if (inserted && m < words.size() && words[m]) {
      auto r = compile::reflect_spirv(*words[m]);
      if (r) it->second = std::move(*r);
    }
    return it->second;
  };
  for (const auto& entry : entries) {
    if (!entry) continue;
    const std::string name = entry_name(*entry);
    if (entry->kind == SBK_KEY_KIND_EXACT || entry->kind == SBK_KEY_KIND_FAMILY) {
      ++specializations.checked;
      if (entry->fragment_module != SBK_NO_MODULE && words[entry->fragment_module] && stages[entry->fragment_module] != 0x10)
        specializations.failures.push_back(name + ": its module is not a fragment shader");
      if (entry->kind == SBK_KEY_KIND_EXACT) {
        sbk_nv2a_program program;
        if (entry->key_size != SBK_NV2A_EXACT_KEY_SIZE || sbk_nv2a_decode_exact_key(entry->key, &program) != SBK_OK) {
          specializations.failures.push_back(name + ": the key is not an nv2a exact key");
          continue;
        }
        const uint32_t admitted = sbk_nv2a_admit(&program, nullptr);
        if (admitted != entry->rejection)
          specializations.failures.push_back(name + ": stored admission '" +
                                             sbk_nv2a_reason_name(static_cast<sbk_nv2a_reason>(entry->rejection % SBK_NV2A_REASON_COUNT)) +
                                             "' but admission says '" +
                                             sbk_nv2a_reason_name(static_cast<sbk_nv2a_reason>(admitted)) + "'");
      } else if (entry->key_size != SBK_NV2A_FAMILY_KEY_SIZE) {
        specializations.failures.push_back(name + ": the key is not an nv2a family key");
      }
      continue;
    }
    ++recipes.checked;
    uint8_t route = 0;
    const uint8_t* fragment_key = nullptr;
    size_t fragment_size = 0;
    sbk_host_state host;
    if (sbk_decode_pipeline_key(entry->key, entry->key_size, &route, &fragment_key, &fragment_size, &host) != SBK_OK) {
      recipes.failures.push_back(name + ": the key does not decode");
      continue;
    }
    if (!words[entry->vertex_module] || !words[entry->fragment_module]) {
      recipes.failures.push_back(name + ": uses a module that cannot be read (above)");
      continue;
    }
    if (stages[entry->vertex_module] != 0x1 || stages[entry->fragment_module] != 0x10) {
      recipes.failures.push_back(name + ": its modules are not a vertex and a fragment shader");
      continue;
    }
    sbk_entry owner;
    if (sbk_bundle_find(&b, fragment_key, fragment_size, &owner) != SBK_OK)
      recipes.failures.push_back(name + ": its fragment key has no record of its own");
    else if (owner.fragment_module != entry->fragment_module)
      recipes.failures.push_back(name + ": its fragment module is not the one its fragment key's record names");
    const auto& vertex = reflection_of(entry->vertex_module);
    const auto& fragment = reflection_of(entry->fragment_module);
    if (!vertex || !fragment) {
      recipes.failures.push_back(name + ": its modules cannot be reflected");
      continue;
    }
    for (const auto& input : vertex->inputs) {
      bool provided = false;
      for (uint32_t a = 0; a < host.attribute_count; ++a) provided |= host.attributes[a].semantic == input.location;
      if (!provided)
        recipes.failures.push_back(name + ": the vertex module reads location " + std::to_string(input.location) +
                                   " but the host state has no such attribute");
    }
    auto wanted = layout_contract(*vertex, *fragment);
    auto stored = file.layout(entry->layout);
    if (!stored || !wanted || !same_layout(*stored, *wanted))
      recipes.failures.push_back(name + ": its layout is not the one its modules require");
  }

  // ---- driver caches (only when the bundle has been warmed) ----
  uint64_t driver_cache_size = 0;
  if (const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_DRIVER_CACHE, &driver_cache_size)) {
    VerifyCheck& driver_caches = checks.emplace_back(VerifyCheck{"driver_caches", 0, {}});
    const DriverCacheSection read = read_driver_cache_section({section, driver_cache_size});
    driver_caches.failures = read.problems;
    // The runtime loader must hand each blob out, and exactly this one: two readers of one format agreeing.
    for (const DriverCacheEntry& entry : read.entries) {
      ++driver_caches.checked;
      const void* data = nullptr;
      size_t size = 0;
      const sbk_result r = sbk_bundle_driver_cache(&b, entry.identity.vendor_id, entry.identity.device_id,
                                                   entry.identity.driver_version,
                                                   entry.identity.pipeline_cache_uuid.data(), &data, &size);
      if (r != SBK_OK)
        driver_caches.failures.push_back("driver cache for " + to_string(entry.identity) + ": the loader says " +
                                         sbk_result_name(r));
      else if (data != entry.data.data() || size != entry.data.size())
        driver_caches.failures.push_back("driver cache for " + to_string(entry.identity) +
                                         ": the loader hands out other bytes than the entry names");
    }
  }
  return {checks.begin(), checks.end()};
}

}  // namespace shaderbake::bundle
