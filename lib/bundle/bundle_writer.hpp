// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/key_hash.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::bundle {

// Identity of a module: the hash of its SPIR-V bytes (modules are stored once by content).
struct ModuleId {
  KeyHash content;
  friend bool operator==(const ModuleId&, const ModuleId&) = default;
  friend auto operator<=>(const ModuleId&, const ModuleId&) = default;
};

// What a pipeline layout must provide: descriptor set 0 and a push-constant range (sbk_layout's fields).
struct LayoutContract {
  struct Binding {
    uint32_t binding = 0, descriptor_type = 0, descriptor_count = 1, stage_flags = 0;
    friend auto operator<=>(const Binding&, const Binding&) = default;
  };
  std::vector<Binding> bindings;  // ascending binding numbers
  uint32_t push_constant_size = 0;
  uint32_t push_constant_stages = 0;
  friend auto operator<=>(const LayoutContract&, const LayoutContract&) = default;
};

// Versions a bundle records in its header and META section.
// The guest fields are the guest model's (GuestModel::guest_id, key_schema, name): serialize refuses a bundle
// whose guest is left SBK_GUEST_NONE.
struct BundleIdentity {
  uint8_t guest = SBK_GUEST_NONE;
  uint16_t key_schema = 0;
  std::string guest_name;
  std::string toolchain_fingerprint;
  std::map<std::string, std::string> generators;  // emitter -> version, e.g. "exact" -> "<guest>-exact/1"
};

// What differs between two identities ("toolchain: A vs B", the first field that does), or nullopt when they are
// equal: bundles of different identities never merge.
std::optional<std::string> identity_difference(const BundleIdentity& a, const BundleIdentity& b);

class CompressionMemo;     // lib/bundle/compression_memo.hpp
struct CompressedModules;  // lib/bundle/module_compression.hpp

struct WriteOptions {
  int compression_level = 19;
  size_t dictionary_capacity = 16 * 1024;  // bytes; 0 = no dictionary
  // Let a module's frame be compressed against a resembling module's content too (schemas/bundle.md, MODULES).
  bool parents = true;
  unsigned threads = 1;                    // compression threads; the bytes never depend on it
  CompressionMemo* memo = nullptr;
};

struct WriteStats {
  uint64_t modules = 0;
  uint64_t raw_module_bytes = 0;
  uint64_t compressed_module_bytes = 0;
  uint64_t dictionary_bytes = 0;
  bool compression_memo_hit = false;
  uint64_t entries = 0;
  uint64_t bundle_bytes = 0;
};

// Collects a bundle's content in any order and serialises it (schemas/bundle.md). The output depends only on
// the set of things added, never on the order of the calls or the thread count: modules are ordered by
// content hash, layouts by value, entries by key hash (then key bytes), dynamic-state fallback recipes by
// (family entry, attachment signature). The one order that is content is the prewarm order: the order of the
// add_prewarm calls. Not thread-safe.
class BundleBuilder {
 public:
  explicit BundleBuilder(BundleIdentity identity) : identity_(std::move(identity)) {}

  // Adds a module (once per content) and returns its id. `vk_stage` is VkShaderStageFlagBits.
  ModuleId add_module(uint32_t vk_stage, std::span<const uint32_t> spirv);

  // Exact key -> its exact fragment module (or why there is none) and the admission result
  // (guest reason code, 0 = admitted).
  void add_specialization(std::span<const uint8_t> exact_key, uint32_t status, std::optional<ModuleId> fragment,
                          uint32_t rejection);
  // Family key -> its ubershader module (or why there is none).
  void add_family(std::span<const uint8_t> family_key, uint32_t status, std::optional<ModuleId> fragment);
  // Pipeline key -> a complete recipe. The key's fragment identity must be added too (add_specialization for
  // the exact route, add_family for the fallback route) as ready with `fragment` as its module; its host state
  // must be a canonical encoding (sbk_encode_host_state). serialize checks both.
  void add_pipeline(std::span<const uint8_t> pipeline_key, ModuleId vertex, ModuleId fragment,
                    const LayoutContract& layout);
  // Compute pipeline key ([0, 4, route, 1], u16 length, the shader's key) -> its compute module and layout; the
  // shader's key must be added as for add_pipeline.
  void add_compute_pipeline(std::span<const uint8_t> compute_pipeline_key, ModuleId compute,
                            const LayoutContract& layout);
  // The VkSpecializationInfo contents of a pipeline added with add_pipeline or add_compute_pipeline
  // (SPECIALIZATION_DATA): per stage, (constant id, offset, size) map entries in ascending constant id and the
  // data they index. A bundle with any has the section.
  using SpecializationStage = compile::SpecializationData;
  void set_specialization(std::span<const uint8_t> pipeline_key, SpecializationStage vertex, SpecializationStage shader);

  // A dynamic-state fallback recipe (DYNAMIC_FALLBACKS): the pipeline of `family_key`'s family for every host
  // state whose attachment signature is `signature`. The family must be added as ready with `fragment` as its
  // module, `vertex` must be a vertex module, and the signature one a host state can have (sbk_attachment_signature_of
  // of a valid host state); set_vertex_defaults must be called too. A bundle with any of these has the section.
  void add_dynamic_fallback(std::span<const uint8_t> family_key, ModuleId vertex, ModuleId fragment,
                            const LayoutContract& layout, const sbk_attachment_signature& signature);
  // The location mask and defaults of the recipes' vertex modules (finite values, zero outside the mask, no
  // bit at or above SBK_VERTEX_LOCATIONS). Calling it gives the bundle a DYNAMIC_FALLBACKS section, with or
  // without recipes.
  void set_vertex_defaults(uint32_t location_mask,
                           const std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS>& defaults);
  // Appends an exact pipeline (added with add_pipeline, exact route) to the prewarm order (PREWARM), with the
  // frame of its first draw (clamped to 0..2^32-1). Each key at most once. Any call gives the bundle the section.
  void add_prewarm(std::span<const uint8_t> pipeline_key, int64_t first_frame);

  void set_report(std::string json) { report_ = std::move(json); }

  // ---- unions (lib/bundle/builder_union.cpp): merging bundles of different capture sessions ----
  // Adds `other`'s content to this one's: its modules, and every entry, specialization data and dynamic-state
  // fallback recipe this one lacks. What this one has already must carry the same content in `other` (modules,
  // layout, status, rejection code, specialization data; a recipe's modules and layout), else an error (reason
  // conflicting_key) naming the key and what differs, never first-wins; this builder is then left part-merged.
  // `other`'s prewarm keys this order lacks follow this order's, in `other`'s order. The identities must be
  // equal (reason identity_mismatch). The report is not taken.
  Status absorb(BundleBuilder other);
  // Fills in the dynamic-state fallback recipes a union lacks: every family with a recipe gets one (its modules
  // and layout) for each attachment signature of the exact graphics pipelines and recipes held, as one build of
  // all the sessions' traces makes them, unless `refused(family key, signature)`. Returns how many were added.
  size_t complete_dynamic_fallbacks(
      const std::function<bool(std::span<const uint8_t>, const sbk_attachment_signature&)>& refused);
  // What the builder holds, counted as a build report counts it.
  struct ContentCounts {
    uint64_t specializations = 0;          // exact-route shader entries
    uint64_t families = 0;                 // family entries
    uint64_t exact_pipelines = 0;          // exact-route pipelines (graphics and compute)
    uint64_t fallback_pipelines = 0;       // fallback-route pipelines
    uint64_t specialized_pipelines = 0;    // pipelines with specialization data
    uint64_t dynamic_fallback_pipelines = 0;
    uint64_t prewarm_pipelines = 0;
    uint64_t exact_modules = 0;            // distinct modules of ready exact-route shader entries
    uint64_t vertex_modules = 0;           // distinct vertex-stage modules
    std::map<uint32_t, uint64_t> rejections;  // exact-route shader entries by stored rejection code (0 left out)
  };
  ContentCounts counts() const;

  // Adding the same key twice is a caller bug: serialize reports it (reason "duplicate_key").
  Result<std::vector<uint8_t>> serialize(const WriteOptions& options, WriteStats* stats = nullptr) const;

 private:
  struct Module {
    uint32_t stage;
    std::vector<uint32_t> words;
  };
  struct Entry {
    std::vector<uint8_t> key;
    KeyHash hash;
    uint32_t kind = 0;  // the key's second byte
    uint32_t status = SBK_STATUS_READY;
    std::optional<ModuleId> fragment, vertex;
    std::optional<LayoutContract> layout;
    uint32_t rejection = 0;
  };

  struct DynamicFallback {
    std::vector<uint8_t> family_key;
    ModuleId vertex, fragment;
    LayoutContract layout;
    sbk_attachment_signature signature;
  };
  struct Prewarm {
    std::vector<uint8_t> pipeline_key;
    uint32_t first_frame;
  };

  // The content in the orders the bytes follow: entries by key hash (then key bytes), modules by content hash,
  // layouts by value.
  struct Canonical {
    std::vector<const Entry*> entries;  // index order
    std::vector<ModuleId> module_ids;
    std::vector<const std::vector<uint32_t>*> module_words;
    std::map<ModuleId, uint32_t> module_index;        // position in module order
    std::map<LayoutContract, uint32_t> layout_index;  // position in value order
    std::unordered_map<std::string_view, uint32_t> entry_index;  // key bytes (views of the entries') -> position
  };
  struct Specialization {
    std::vector<uint8_t> pipeline_key;
    SpecializationStage vertex, shader;
  };

  Entry& new_entry(std::span<const uint8_t> key);
  // The canonical orders of what was added; a key added twice is an error (reason "duplicate_key").
  Result<Canonical> canonical() const;

  // The writers of the sections, one each (a writer of several sections returns them by type).
  // MODULES, MODULE_DATA and, with a dictionary, DICTIONARY: the module table and the frames, in module order.
  std::map<uint32_t, std::vector<uint8_t>> module_sections(const CompressedModules& compressed) const;
  // RECORDS, SHADER_KEYS, HOST_STATES and HOST_STATE_PARTS: a row per entry in index order, and the keys and
  // host states the rows refer to, each stored once.
  static Result<std::map<uint32_t, std::vector<uint8_t>>> record_sections(const Canonical& canonical);
  // INDEX: the hash directory and each entry's hash tag, in index order.
  static std::vector<uint8_t> index_section(const std::vector<const Entry*>& entries);
  // SPECIALIZATION_DATA, when any pipeline has some.
  Result<std::map<uint32_t, std::vector<uint8_t>>> specialization_sections(const Canonical& canonical) const;
  // The DYNAMIC_FALLBACKS and PREWARM sections (those there is content for), over the entries in index order.
  Result<std::map<uint32_t, std::vector<uint8_t>>> router_sections(const Canonical& canonical) const;

  BundleIdentity identity_;
  std::map<ModuleId, Module> modules_;
  std::vector<Entry> entries_;
  std::vector<DynamicFallback> dynamic_fallbacks_;
  std::optional<std::pair<uint32_t, std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS>>> vertex_defaults_;
  std::vector<Prewarm> prewarm_;
  std::vector<Specialization> specializations_;
  std::string report_;
};

}  // namespace shaderbake::bundle
