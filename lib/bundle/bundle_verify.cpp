// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_verify.hpp"

#include <xxhash.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <tuple>

#include "lib/bundle/driver_cache.hpp"
#include "lib/bundle/layout_contract.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/compile/spirv_tools.hpp"
#include "lib/core/hex.hpp"
#include "lib/core/little_endian.hpp"
#include "lib/trace/vulkan_names.hpp"

namespace shaderbake::bundle {

namespace {

constexpr uint32_t kStageVertex = 0x1;     // VK_SHADER_STAGE_VERTEX_BIT
constexpr uint32_t kStageFragment = 0x10;  // VK_SHADER_STAGE_FRAGMENT_BIT
constexpr uint32_t kStageCompute = 0x20;   // VK_SHADER_STAGE_COMPUTE_BIT
constexpr uint32_t kContractStages = kStageVertex | kStageFragment;

// A layout contract's stage flags: vertex and/or fragment (graphics pipelines), or compute alone.
bool contract_stages(uint32_t flags) { return flags != 0 && ((flags & ~kContractStages) == 0 || flags == kStageCompute); }

// Vulkan's guaranteed minimum limits (VkPhysicalDeviceLimits, "Required Limits"): what a bundle may ask of
// any device, since the checks run before a device is chosen.
constexpr uint32_t kMaxPushConstantsSize = 128;
constexpr uint32_t kMaxVertexInputBindings = 16;
constexpr uint32_t kMaxVertexInputBindingStride = 2048;
constexpr uint32_t kMaxVertexInputAttributeOffset = 2047;

// A rule one damaged table can break once per row (a directory of 2^24 words) reports its first rows only.
constexpr uint64_t kLinesPerRule = 8;

// Adds failure lines to a check, at most kLinesPerRule per rule, then one line saying how many more.
class Failures {
 public:
  explicit Failures(VerifyCheck& check) : check_(check) {}
  Failures(const Failures&) = delete;
  Failures& operator=(const Failures&) = delete;
  ~Failures() {
    for (const auto& [rule, count] : counts_)
      if (count > kLinesPerRule)
        check_.failures.push_back("... and " + std::to_string(count - kLinesPerRule) + " more like that (" + rule + ")");
  }
  void add(const std::string& rule, std::string line) {
    if (++counts_[rule] <= kLinesPerRule) check_.failures.push_back(std::move(line));
  }

 private:
  VerifyCheck& check_;
  std::map<std::string, uint64_t> counts_;
};

uint64_t align8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

// Reserved fields are written as zero; a reader of a later minor version may give them a meaning, so only a
// bundle of a minor this code knows (3.0) is held to the zero.
bool reserved_must_be_zero(const sbk_bundle& b) { return sbk_bundle_format_minor(&b) <= SBK_BUNDLE_FORMAT_MINOR; }

std::string section_name(uint32_t type) {
  static const char* const kNames[] = {"?",           "META",         "INDEX",             "RECORDS",
                                       "MODULES",     "MODULE_DATA",  "DICTIONARY",        "LAYOUTS",
                                       "REPORT",      "DRIVER_CACHE", "DYNAMIC_FALLBACKS", "PREWARM",
                                       "SHADER_KEYS", "HOST_STATES",  "HOST_STATE_PARTS",  "SPECIALIZATION_DATA"};
  static_assert(std::size(kNames) == SBK_SECTION_TYPE_COUNT);
  return type > 0 && type < SBK_SECTION_TYPE_COUNT ? kNames[type] : "section type " + std::to_string(type);
}

std::string entry_name(const sbk_bundle& b, const sbk_entry& e) {
  return std::string(key_kind_name(e.kind)) + " " + KeyHash::of(entry_key(b, e)).to_hex();
}

std::string stage_name(uint32_t stage) {
  return stage == kStageVertex     ? "vertex"
         : stage == kStageFragment ? "fragment"
         : stage == kStageCompute  ? "compute"
                                   : "stage " + hex_word(stage);
}

bool known(std::span<const vulkan_names::Name> table, uint32_t value) {
  return std::any_of(table.begin(), table.end(), [&](const vulkan_names::Name& n) { return n.value == value; });
}

// The first OpEntryPoint of a module: its execution model as a VkShaderStageFlagBits (0 for any other model)
// and its name. Nothing when the module has none or its instruction stream is broken.
struct EntryPoint {
  uint32_t stage = 0;
  std::string name;
};
std::optional<EntryPoint> first_entry_point(const std::vector<uint32_t>& words) {
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xFFFF;
    if (count == 0 || count > words.size() - i) return std::nullopt;
    if (opcode == 15 && count >= 4) {  // OpEntryPoint ExecutionModel <id> Name ...
      EntryPoint out;
      out.stage = words[i + 1] == 0 ? kStageVertex : words[i + 1] == 4 ? kStageFragment : words[i + 1] == 5 ? kStageCompute : 0;
      for (size_t w = i + 3; w < i + count; ++w) {
        bool ended = false;
        for (int byte = 0; byte < 4 && !ended; ++byte) {
          const char c = static_cast<char>((words[w] >> (8 * byte)) & 0xFF);
          ended = c == '\0';
          if (!ended && out.name.size() < 64) out.name.push_back(c);
        }
        if (ended) break;
      }
      return out;
    }
    i += count;
  }
  return std::nullopt;
}

// What the module pass learnt about one module, for the recipes. `usable`: it passed every module check.
struct ModuleFacts {
  bool usable = false;
  uint32_t stage = 0;
  compile::Reflection reflection;
};

// The entries of the bundle that read (damaged ones are the index check's to report).
std::vector<sbk_entry> readable_entries(const sbk_bundle& b) {
  std::vector<sbk_entry> out;
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&b); ++i) {
    sbk_entry e;
    if (sbk_bundle_entry_at(&b, i, &e) == SBK_OK) out.push_back(e);
  }
  return out;
}

// The dynamic-state fallback recipes that read (damaged ones are the dynamic_fallbacks check's to report).
std::vector<sbk_dynamic_fallback> readable_dynamic_fallbacks(const sbk_bundle& b) {
  std::vector<sbk_dynamic_fallback> out;
  for (uint32_t i = 0; i < sbk_bundle_dynamic_fallback_count(&b); ++i) {
    sbk_dynamic_fallback d;
    if (sbk_bundle_dynamic_fallback(&b, i, &d) == SBK_OK) out.push_back(d);
  }
  return out;
}

// Why recipe `r` (its 64 bytes) breaks the rules the loader refused it for, rule by rule (schemas/bundle.md,
// DYNAMIC_FALLBACKS): what a failure line names.
std::vector<std::string> recipe_rules_broken(const sbk_bundle& b, const uint8_t* r) {
  std::vector<std::string> out;
  const uint32_t family = load_u32_le(r), vertex = load_u32_le(r + 4), fragment = load_u32_le(r + 8),
                 layout = load_u32_le(r + 12), colors = load_u32_le(r + 16), samples = load_u32_le(r + 20);
  sbk_entry entry;
  if (sbk_bundle_entry_at(&b, family, &entry) != SBK_OK)
    out.push_back("its family entry " + std::to_string(family) + " is no readable entry of the index");
  else if (entry.kind != SBK_KEY_KIND_FAMILY || entry.status != SBK_STATUS_READY)
    out.push_back("its family entry " + std::to_string(family) + " is not a ready family");
  else if (entry.fragment_module != fragment)
    out.push_back("its fragment module " + std::to_string(fragment) + " is not the family's (" +
                  std::to_string(entry.fragment_module) + ")");
  sbk_module_info info;
  if (sbk_bundle_module_info(&b, vertex, &info) != SBK_OK || info.stage != kStageVertex)
    out.push_back("its vertex module " + std::to_string(vertex) + " is not a readable vertex module");
  if (layout >= sbk_bundle_layout_count(&b))
    out.push_back("its layout " + std::to_string(layout) + " is past the layout count");
  if (colors > SBK_MAX_COLOR_ATTACHMENTS) out.push_back("colour attachment count " + std::to_string(colors) + " (at most 8)");
  if (samples == 0 || samples > 64 || (samples & (samples - 1)) != 0)
    out.push_back("samples " + std::to_string(samples) + " (1, 2, 4, ... 64)");
  if (load_u32_le(r + 28) != 0) out.push_back("the reserved field (bytes 28-31) is not zero");
  for (uint32_t i = std::min<uint32_t>(colors, SBK_MAX_COLOR_ATTACHMENTS); i < SBK_MAX_COLOR_ATTACHMENTS; ++i)
    if (load_u32_le(r + 32 + 4 * i) != 0) {
      out.push_back("colour format " + std::to_string(i) + " past the count is not zero");
      break;
    }
  if (out.empty()) out.push_back("the loader refuses it");
  return out;
}

// "dynamic_fallbacks": the DYNAMIC_FALLBACKS section (only when the bundle has one), with the module pass's facts.
std::optional<VerifyCheck> check_dynamic_fallbacks(const sbk_bundle& b, const std::vector<ModuleFacts>& facts) {
  uint64_t size = 0;
  const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_DYNAMIC_FALLBACKS, &size);
  if (section == nullptr) return std::nullopt;
  VerifyCheck out{"dynamic_fallbacks", 0, {}};
  Failures failures(out);
  uint32_t mask = 0;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  const sbk_result defaults_read = sbk_bundle_vertex_defaults(&b, &mask, defaults);
  if (defaults_read != SBK_OK)
    failures.add("defaults", std::string("vertex defaults: a default is not finite, a location outside the mask is not "
                                         "zero or the mask names a location past 15 (") +
                                 sbk_result_name(defaults_read) + ")");
  const uint32_t count = sbk_bundle_dynamic_fallback_count(&b);
  for (uint32_t i = 0; i < count; ++i) {
    ++out.checked;
    const std::string name = "dynamic fallback " + std::to_string(i);
    const uint8_t* r = section + SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE + uint64_t{i} * SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE;
    // Sorted by (family entry, then the u32 fields of bytes 16..63), each (family, signature) once.
    if (i > 0) {
      const uint8_t* previous = r - SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE;
      int order = 0;
      for (uint32_t f = 0; f < 13 && order == 0; ++f) {
        const uint64_t at = f == 0 ? 0 : 12 + 4 * f;
        const uint32_t a = load_u32_le(previous + at), c = load_u32_le(r + at);
        order = a < c ? -1 : a > c ? 1 : 0;
      }
      if (order >= 0)
        failures.add("recipe order", name + ": " + (order == 0 ? "the same family and attachment signature as recipe "
                                                               : "not after recipe ") +
                                         std::to_string(i - 1) + " (sorted by family entry, then signature; each once)");
    }
    sbk_dynamic_fallback d;
    if (const sbk_result read = sbk_bundle_dynamic_fallback(&b, i, &d); read != SBK_OK) {
      for (const std::string& rule : recipe_rules_broken(b, r)) failures.add("recipe rule", name + ": " + rule);
      continue;
    }
    const sbk_attachment_signature& s = d.signature;
    for (uint32_t c = 0; c < s.color_count; ++c)
      if (!known(vulkan_names::color_formats(), s.color_formats[c]))
        failures.add("recipe formats", name + ": colour attachment " + std::to_string(c) + " has format " +
                                           std::to_string(s.color_formats[c]) + ", not one the trace format names");
    if (!known(vulkan_names::depth_formats(), s.depth_format))
      failures.add("recipe formats", name + ": depth format " + std::to_string(s.depth_format) +
                                         " is not one the trace format names");
    const ModuleFacts& vertex = facts[d.vertex_module];
    const ModuleFacts& fragment = facts[d.fragment_module];
    if (!vertex.usable || !fragment.usable) {
      failures.add("recipe modules", name + ": uses a module that failed the module checks (module " +
                                         std::to_string(vertex.usable ? d.fragment_module : d.vertex_module) + ")");
      continue;
    }
    if (vertex.stage != kStageVertex || fragment.stage != kStageFragment) {
      failures.add("recipe modules", name + ": its modules are a " + stage_name(vertex.stage) + " and a " +
                                         stage_name(fragment.stage) + " shader, not a vertex and a fragment shader");
      continue;
    }
    // The vertex module may read every location of the mask (a renderer feeds each one, the defaults where the
    // host state has no attribute) and nothing else.
    for (const auto& input : vertex.reflection.inputs)
      if (defaults_read == SBK_OK && (input.location >= SBK_VERTEX_LOCATIONS || !((mask >> input.location) & 1)))
        failures.add("recipe inputs", name + ": the vertex module reads location " + std::to_string(input.location) +
                                          ", outside the vertex location mask");
    for (const auto& input : fragment.reflection.inputs) {
      const auto& outputs = vertex.reflection.outputs;
      const auto written = std::find_if(outputs.begin(), outputs.end(),
                                        [&](const compile::Reflection::Variable& o) { return o.location == input.location; });
      if (written == outputs.end() || written->components < input.components)
        failures.add("recipe interface", name + ": the fragment module reads " + std::to_string(input.components) +
                                             " components at location " + std::to_string(input.location) +
                                             " that the vertex module does not write");
    }
    auto wanted_layout = layout_contract(vertex.reflection, fragment.reflection);
    sbk_layout stored;
    const sbk_result layout_read = sbk_bundle_layout(&b, d.layout, &stored);
    if (!wanted_layout)
      failures.add("recipe layout", name + ": its modules need no layout a contract can describe: " +
                                        wanted_layout.error().message);
    else if (layout_read != SBK_OK)
      failures.add("recipe layout", name + ": its layout " + std::to_string(d.layout) + " cannot be read: " +
                                        sbk_result_name(layout_read));
    else if (contract_of_stored(stored) != *wanted_layout)
      failures.add("recipe layout", name + ": its layout " + std::to_string(d.layout) +
                                        " is not the one its modules require");
  }
  return out;
}

}  // namespace

bool all_passed(std::span<const VerifyCheck> checks) {
  return std::all_of(checks.begin(), checks.end(), [](const VerifyCheck& c) { return c.failures.empty(); });
}

// ---- sections ----

VerifyCheck check_sections(const sbk_bundle& b) {
  VerifyCheck out{"sections", 0, {}};
  // The header and section table are what sbk_bundle_open_* accepted: every entry lies inside the file and no
  // two overlap. They are read from the bundle's own bytes (the handle's data and size), the checksums
  // through them.
  const uint8_t* data = b.data;
  const uint32_t header_size = load_u32_le(data + 12), count = load_u32_le(data + 24);
  if (load_u32_le(data + 28) != 0) out.failures.push_back("header: flags " + hex_word(load_u32_le(data + 28)) + " (must be 0)");
  if (reserved_must_be_zero(b) && (data[49] != 0 || load_u32_le(data + 52) != 0))
    out.failures.push_back("header: a reserved field (byte 49 or bytes 52-55) is not zero");
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // (offset, size) of each section
  for (const SectionTableEntry& e : section_table(b)) {
    ++out.checked;
    if (XXH3_64bits(data + e.offset, static_cast<size_t>(e.size)) != e.checksum)
      out.failures.push_back(section_name(e.type) + " section corrupt: its checksum does not match");
    if (e.flags != 0)
      out.failures.push_back(section_name(e.type) + " section: flags " + hex_word(e.flags) + " (must be 0)");
    spans.emplace_back(e.offset, e.size);
  }
  // Every byte no section covers is padding and must be zero, so that no byte escapes a check.
  std::sort(spans.begin(), spans.end());
  uint64_t at = uint64_t{header_size} + uint64_t{count} * SBK_BUNDLE_SECTION_ENTRY_SIZE, nonzero = 0, first = 0;
  auto gap = [&](uint64_t end) {
    for (; at < end; ++at)
      if (data[at] != 0 && nonzero++ == 0) first = at;
  };
  for (const auto& [offset, size] : spans) {
    gap(offset);
    at = std::max(at, offset + size);
  }
  // The file ends with its last section (schemas/bundle.md): anything after it is trailing data, not padding,
  // and is not read (a tail of gigabytes would cost what it holds).
  if (at < b.size)
    out.failures.push_back("trailing data: " + std::to_string(b.size - at) + " bytes after the last section (from offset " +
                           std::to_string(at) + "); a bundle ends with its last section");
  if (nonzero)
    out.failures.push_back("padding corrupt: " + std::to_string(nonzero) + " bytes between sections are not zero (the first at offset " +
                           std::to_string(first) + ")");
  return out;
}

// ---- index ----

// Byte-table rules beyond the loader's per-item bounds (schemas/bundle.md): the ends never decrease and the
// last one is the data's size (no bytes belong to no item), the reserved field is zero.
void check_byte_table(const sbk_bundle& b, uint32_t type, uint64_t at, Failures& failures,
                      std::vector<std::span<const uint8_t>>* items) {
  uint64_t size = 0;
  const uint8_t* section = sbk_bundle_section(&b, static_cast<sbk_section_type>(type), &size);
  const std::string name = section_name(type);
  if (section == nullptr || size < at + 8) return;
  section += at;
  size -= at;
  const uint32_t count = load_u32_le(section);
  if (size < 8 + 4 * uint64_t{count}) {
    failures.add(name + " count", name + ": " + std::to_string(count) + " items do not fit");
    return;
  }
  if (reserved_must_be_zero(b) && load_u32_le(section + 4) != 0)
    failures.add(name + " reserved", name + ": the reserved field (bytes 4-7 of the table) is not zero");
  const uint64_t data_size = size - 8 - 4 * uint64_t{count};
  uint32_t previous = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t end = load_u32_le(section + 8 + 4 * uint64_t{i});
    if (end < previous || end > data_size) {
      failures.add(name + " ends", name + ": item " + std::to_string(i) + " ends at " + std::to_string(end) +
                                       ", before its start or past the data (" + std::to_string(data_size) + " bytes)");
      return;
    }
    if (items) items->push_back({section + 8 + 4 * uint64_t{count} + previous, end - previous});
    previous = end;
  }
  if (previous != data_size)
    failures.add(name + " trailing", name + ": " + std::to_string(data_size - previous) + " bytes after the last item");
}

VerifyCheck check_index(const sbk_bundle& b) {
  VerifyCheck out{"index", 0, {}};
  {
    Failures failures(out);
    uint64_t size = 0;
    const uint8_t* s = sbk_bundle_section(&b, SBK_SECTION_INDEX, &size);
    // open checked: D <= 24, the section is exactly 16 + align8(4 (2^D + 1)) + 4 E bytes, RECORDS 20 E.
    const uint32_t count = sbk_bundle_entry_count(&b), bits = load_u32_le(s + 4);
    const uint64_t buckets = uint64_t{1} << bits;
    const uint64_t directory_end = 16 + 4 * (buckets + 1), prefix = 16 + align8(4 * (buckets + 1));
    auto directory = [&](uint64_t k) { return load_u32_le(s + 16 + 4 * k); };
    auto tag = [&](uint32_t i) { return load_u32_le(s + prefix + uint64_t{i} * SBK_BUNDLE_INDEX_ENTRY_SIZE); };
    auto bucket_of = [&](uint64_t high) { return bits ? high >> (64 - bits) : uint64_t{0}; };

    if (reserved_must_be_zero(b) && load_u64_le(s + 8) != 0)
      failures.add("INDEX reserved", "INDEX: the reserved field (bytes 8-15) is not zero");
    uint32_t wanted_bits = 0;
    while (wanted_bits < SBK_BUNDLE_MAX_DIRECTORY_BITS && (uint64_t{8} << wanted_bits) < count) ++wanted_bits;
    if (bits != wanted_bits)
      failures.add("directory bits", "INDEX: directory bits D = " + std::to_string(bits) + ", but " + std::to_string(count) +
                                         " entries want D = " + std::to_string(wanted_bits) +
                                         " (the smallest D with 8 x 2^D >= E)");
    if (directory(buckets) != count)
      failures.add("directory end", "INDEX: directory[2^D = " + std::to_string(buckets) + "] = " +
                                        std::to_string(directory(buckets)) + ", not the entry count " + std::to_string(count));
    for (uint64_t k = directory_end; k < prefix; ++k)
      if (s[k] != 0) {
        failures.add("directory padding", "INDEX: the padding after the directory is not zero");
        break;
      }

    // The entries: each reads, its key hashes to its tag, the order is (hash high, hash low, key bytes), and a
    // probe for its key finds it. The references are counted: every stored key, host state and part is used.
    std::vector<std::span<const uint8_t>> shader_keys, parts;
    check_byte_table(b, SBK_SECTION_SHADER_KEYS, 0, failures, &shader_keys);
    check_byte_table(b, SBK_SECTION_HOST_STATE_PARTS, 0, failures, &parts);
    uint64_t hosts_size = 0;
    const uint8_t* hosts = sbk_bundle_section(&b, SBK_SECTION_HOST_STATES, &hosts_size);
    const uint32_t host_count = load_u32_le(hosts);
    if (reserved_must_be_zero(b) && load_u32_le(hosts + 4) != 0)
      failures.add("HOST_STATES reserved", "HOST_STATES: the reserved field (bytes 4-7) is not zero");
    std::vector<uint32_t> key_uses(shader_keys.size(), 0), host_uses(host_count, 0), part_uses(parts.size(), 0);
    const uint8_t* records = sbk_bundle_section(&b, SBK_SECTION_RECORDS, &size);
    std::vector<std::pair<KeyHash, uint32_t>> firsts;  // (hash, entry) of the readable entries
    KeyHash previous_hash;
    std::vector<uint8_t> previous_key;
    for (uint32_t i = 0; i < count; ++i) {
      ++out.checked;
      const std::string name = "entry " + std::to_string(i);
      sbk_entry entry;
      if (const sbk_result r = sbk_bundle_entry_at(&b, i, &entry); r != SBK_OK) {
        failures.add("entry unreadable", name + " (hash tag " + hex_word(tag(i)) +
                                             "): cannot be read (its row's check or references, or its key's hash): " +
                                             sbk_result_name(r));
        continue;
      }
      const uint8_t* row = records + uint64_t{i} * SBK_BUNDLE_RECORD_SIZE;
      if (entry.kind == SBK_KEY_KIND_EXACT || entry.kind == SBK_KEY_KIND_FAMILY) {
        const uint32_t item = load_u32_le(row + 8);
        if (item < key_uses.size()) ++key_uses[item];
      } else if (entry.kind == SBK_KEY_KIND_PIPELINE && entry.host_state < host_count) {
        ++host_uses[entry.host_state];
      }
      const std::vector<uint8_t> key = entry_key(b, entry);
      const KeyHash actual = KeyHash::of(key);
      if (!previous_key.empty() &&
          std::tie(previous_hash.high, previous_hash.low, previous_key) >= std::tie(actual.high, actual.low, key))
        failures.add("entry order", name + ": out of order (or a duplicate key)");
      previous_hash = actual;
      previous_key = key;
      firsts.emplace_back(actual, i);
      const uint64_t bucket = bucket_of(actual.high);
      if (i < directory(bucket) || i >= directory(bucket + 1))
        failures.add("entry bucket", name + ": the directory does not send its bucket (" + std::to_string(bucket) + ") here");
      sbk_entry found;
      if (sbk_bundle_find(&b, key.data(), key.size(), &found) != SBK_OK || found.index != i)
        failures.add("entry probe", name + ": a probe for its own key does not find it");
    }
    // directory[b] must be the first entry whose bucket is >= b (by the readable entries' hashes).
    std::vector<uint32_t> least_from(buckets + 1, count);
    for (const auto& [hash, i] : firsts) least_from[bucket_of(hash.high)] = std::min(least_from[bucket_of(hash.high)], i);
    for (uint64_t k = buckets; k-- > 0;) least_from[k] = std::min(least_from[k], least_from[k + 1]);
    for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
      const uint32_t value = directory(bucket), next = directory(bucket + 1), wanted = least_from[bucket];
      if (value <= count && value <= next && value == wanted) continue;
      const std::string at = "INDEX: directory[" + std::to_string(bucket) + "] = " + std::to_string(value);
      if (value > count) failures.add("directory past E", at + " is past the entry count " + std::to_string(count));
      if (value > next)
        failures.add("directory reversed", at + " > directory[" + std::to_string(bucket + 1) + "] = " + std::to_string(next) +
                                               ": bucket " + std::to_string(bucket) + "'s range is reversed");
      if (value != wanted)
        failures.add("directory first", at + ", but the first entry whose bucket is >= " + std::to_string(bucket) +
                                            " is " + std::to_string(wanted));
    }
    // Stored once: every key item belongs to one entry, every host state and part is used, none twice over.
    for (size_t k = 0; k < key_uses.size(); ++k)
      if (key_uses[k] != 1)
        failures.add("shader key uses", "SHADER_KEYS: item " + std::to_string(k) + " is the key of " +
                                            std::to_string(key_uses[k]) + " entries (each key is stored for one)");
    std::set<std::vector<uint8_t>> distinct_hosts;
    for (uint32_t h = 0; h < host_count; ++h) {
      std::vector<uint8_t> bytes;
      for (uint32_t p = 0; p < SBK_HOST_STATE_PARTS; ++p) {
        const uint32_t item = load_u32_le(hosts + 8 + uint64_t{h} * SBK_BUNDLE_HOST_STATE_SIZE + 4 * p);
        if (item < part_uses.size()) {
          ++part_uses[item];
          bytes.insert(bytes.end(), parts[item].begin(), parts[item].end());
        }
      }
      if (host_uses[h] == 0)
        failures.add("host state unused", "HOST_STATES: host state " + std::to_string(h) + " belongs to no pipeline");
      if (!distinct_hosts.insert(bytes).second)
        failures.add("host state twice", "HOST_STATES: host state " + std::to_string(h) + " is stored twice");
    }
    for (size_t p = 0; p < part_uses.size(); ++p)
      if (part_uses[p] == 0)
        failures.add("part unused", "HOST_STATE_PARTS: part " + std::to_string(p) + " belongs to no host state");
  }
  return out;
}

// ---- layouts ----

VerifyCheck check_layouts(const sbk_bundle& b) {
  VerifyCheck out{"layouts", 0, {}};
  uint64_t size = 0;
  const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_LAYOUTS, &size);
  if (reserved_must_be_zero(b) && load_u32_le(section + 4) != 0)
    out.failures.push_back("LAYOUTS: the reserved field (bytes 4-7) is not zero");
  std::optional<LayoutContract> previous;
  for (uint32_t l = 0; l < sbk_bundle_layout_count(&b); ++l) {
    ++out.checked;
    const std::string name = "layout " + std::to_string(l);
    sbk_layout layout;
    if (const sbk_result r = sbk_bundle_layout(&b, l, &layout); r != SBK_OK) {
      out.failures.push_back(name + ": cannot be read (the LAYOUTS checksum, or a rule of schemas/bundle.md): " +
                             sbk_result_name(r));
      previous.reset();
      continue;
    }
    std::map<uint32_t, uint64_t> per_type;  // descriptor type -> descriptors in the layout
    for (uint32_t i = 0; i < layout.binding_count; ++i) {
      const sbk_layout_binding& binding = layout.bindings[i];
      const std::string at = name + " binding " + std::to_string(binding.binding);
      if (binding.descriptor_type != 1 && binding.descriptor_type != 6 && binding.descriptor_type != 7)
        out.failures.push_back(at + ": descriptor type " + std::to_string(binding.descriptor_type) +
                               " is not one a layout contract uses (1 combined image sampler, 6 uniform buffer, 7 "
                               "storage buffer)");
      if (binding.descriptor_count == 0) out.failures.push_back(at + ": descriptor count 0");
      if (!contract_stages(binding.stage_flags))
        out.failures.push_back(at + ": stage flags " + hex_word(binding.stage_flags) +
                               " (a contract's stages are vertex 0x1 and fragment 0x10, or compute 0x20 alone)");
      per_type[binding.descriptor_type] += binding.descriptor_count;
    }
    // maxPerStageDescriptorSamplers / UniformBuffers / StorageBuffers: a binding may be used by both stages,
    // so its descriptors count against each stage's limit.
    static const std::map<uint32_t, std::pair<uint64_t, const char*>> kLimits = {
        {1, {16, "combined image samplers"}}, {6, {12, "uniform buffers"}}, {7, {4, "storage buffers"}}};
    for (const auto& [type, total] : per_type)
      if (const auto limit = kLimits.find(type); limit != kLimits.end() && total > limit->second.first)
        out.failures.push_back(name + ": " + std::to_string(total) + " " + limit->second.second + ", more than the " +
                               std::to_string(limit->second.first) + " every Vulkan device accepts in one stage");
    if (layout.push_constant_size % 4 != 0 || layout.push_constant_size > kMaxPushConstantsSize)
      out.failures.push_back(name + ": push-constant size " + std::to_string(layout.push_constant_size) +
                             " (a multiple of 4, at most the 128 bytes every Vulkan device accepts)");
    if ((layout.push_constant_size == 0) != (layout.push_constant_stages == 0) ||
        (layout.push_constant_stages != 0 && !contract_stages(layout.push_constant_stages)))
      out.failures.push_back(name + ": push-constant stages " + hex_word(layout.push_constant_stages) + " with size " +
                             std::to_string(layout.push_constant_size) +
                             " (vertex and/or fragment, or compute, exactly when the size is not zero)");
    LayoutContract contract = contract_of_stored(layout);
    if (previous && !(*previous < contract))
      out.failures.push_back(name + ": not after layout " + std::to_string(l - 1) +
                             " in value order (layouts are stored once, ordered by value)");
    previous = std::move(contract);
  }
  return out;
}

// ---- modules and recipes ----

// A compute pipeline's recipe: its module is a usable compute shader, the one its shader key's record names,
// and its layout is the one that module requires.
void check_compute_recipe(const sbk_bundle& b, const sbk_entry& entry, const std::vector<ModuleFacts>& facts,
                          std::vector<std::string>& failures) {
  const std::string name = entry_name(b, entry);
  const ModuleFacts& compute = facts[entry.fragment_module];
  if (!compute.usable) {
    failures.push_back(name + ": uses a module that failed the module checks (module " +
                       std::to_string(entry.fragment_module) + ")");
    return;
  }
  if (compute.stage != kStageCompute) {
    failures.push_back(name + ": its module is a " + stage_name(compute.stage) + " shader, not a compute shader");
    return;
  }
  const std::vector<uint8_t> key = entry_key(b, entry);
  sbk_entry owner;
  if (key.size() < 6 || sbk_bundle_find(&b, key.data() + 6, key.size() - 6, &owner) != SBK_OK)
    failures.push_back(name + ": its shader key has no record of its own");
  else if (owner.fragment_module != entry.fragment_module)
    failures.push_back(name + ": its module is not the one its shader key's record names");
  auto wanted = compute_layout_contract(compute.reflection);
  sbk_layout stored;
  const sbk_result r = sbk_bundle_layout(&b, entry.layout, &stored);
  if (!wanted)
    failures.push_back(name + ": its module needs no layout a contract can describe: " + wanted.error().message);
  else if (r != SBK_OK)
    failures.push_back(name + ": its layout " + std::to_string(entry.layout) + " cannot be read: " + sbk_result_name(r));
  else if (contract_of_stored(stored) != *wanted)
    failures.push_back(name + ": its layout " + std::to_string(entry.layout) + " is not the one its module requires");
}

std::vector<VerifyCheck> check_modules_and_recipes(const sbk_bundle& b, ModuleScope scope) {
  VerifyCheck modules{"modules", 0, {}};
  VerifyCheck recipes{"recipes", 0, {}};
  const uint32_t module_count = sbk_bundle_module_count(&b);
  const std::vector<sbk_entry> entries = readable_entries(b);

  // The loader guarantees a readable pipeline entry's module indices are below the module count.
  std::vector<bool> wanted(module_count, scope == ModuleScope::every_module);
  for (const sbk_entry& e : entries)
    if (e.kind == SBK_KEY_KIND_PIPELINE) wanted[e.vertex_module] = wanted[e.fragment_module] = true;
    else if (e.kind == SBK_KEY_KIND_COMPUTE_PIPELINE) wanted[e.fragment_module] = true;
  // A dynamic-state fallback recipe reaches a driver too (a renderer's router creates it); the loader
  // guarantees a readable recipe's module indices are below the module count.
  const std::vector<sbk_dynamic_fallback> dynamic = readable_dynamic_fallbacks(b);
  for (const sbk_dynamic_fallback& d : dynamic) wanted[d.vertex_module] = wanted[d.fragment_module] = true;

  std::vector<ModuleFacts> facts(module_count);
  sbk_module_reader reader{};
  if (sbk_module_reader_init(&reader, &b) != SBK_OK) throw std::bad_alloc();
  const std::unique_ptr<sbk_module_reader, decltype(&sbk_module_reader_free)> reader_owner(&reader, &sbk_module_reader_free);
  for (uint32_t m = 0; m < module_count; ++m) {
    if (!wanted[m]) continue;
    ++modules.checked;
    ModuleFacts& fact = facts[m];
    const std::string name = "module " + std::to_string(m);
    sbk_module_info info;
    sbk_result r = sbk_bundle_module_info(&b, m, &info);
    if (r != SBK_OK) {
      modules.failures.push_back(name + ": bad entry: " + sbk_result_name(r));
      continue;
    }
    // One module's words at a time: module_info bounds raw_size by 64 MiB, and nothing is kept past the pass.
    std::vector<uint32_t> words(info.raw_size / 4);
    size_t size = 0;
    r = sbk_module_reader_read(&reader, m, words.data(), words.size() * 4, &size);
    if (r != SBK_OK) {
      modules.failures.push_back(name + ": cannot be decoded: " + sbk_result_name(r));
      continue;
    }
    fact.stage = info.stage;
    if (const Status valid = compile::validate_spirv(words); !valid) {
      // Reflection only ever sees valid SPIR-V: SPIRV-Cross assumes it.
      modules.failures.push_back(name + ": spirv-val: " + valid.error().message);
      continue;
    }
    bool usable = true;
    const std::optional<EntryPoint> entry_point = first_entry_point(words);
    if (!entry_point || entry_point->stage != info.stage) {
      modules.failures.push_back(name + ": its stage field does not match its entry point");
      usable = false;
    } else if (entry_point->name != "main") {
      modules.failures.push_back(name + ": its entry point is named '" + entry_point->name +
                                 "', not 'main' (the name its pipelines create it with)");
      usable = false;
    }
    auto reflection = compile::reflect_spirv(words);
    if (!reflection) {
      modules.failures.push_back(name + ": cannot be reflected: " + reflection.error().message);
      usable = false;
    } else {
      fact.reflection = std::move(*reflection);
    }
    fact.usable = usable;
  }

  for (const sbk_entry& entry : entries) {
    if (entry.kind == SBK_KEY_KIND_COMPUTE_PIPELINE) {
      ++recipes.checked;
      check_compute_recipe(b, entry, facts, recipes.failures);
      continue;
    }
    if (entry.kind != SBK_KEY_KIND_PIPELINE) continue;
    ++recipes.checked;
    const std::string name = entry_name(b, entry);
    uint8_t route = 0;
    const uint8_t* fragment_key = nullptr;
    size_t fragment_size = 0;
    sbk_host_state host;
    const std::vector<uint8_t> key = entry_key(b, entry);
    if (sbk_decode_pipeline_key(key.data(), key.size(), &route, &fragment_key, &fragment_size, &host) != SBK_OK) {
      recipes.failures.push_back(name + ": the key does not decode");
      continue;
    }
    // The host state: sbk_decode_pipeline_key checked every enum and count; formats are open-ended numbers.
    for (uint32_t i = 0; i < host.color_count; ++i)
      if (!known(vulkan_names::color_formats(), host.color_formats[i]))
        recipes.failures.push_back(name + ": colour attachment " + std::to_string(i) + " has format " +
                                   std::to_string(host.color_formats[i]) + ", not one the trace format names");
    if (!known(vulkan_names::depth_formats(), host.depth_format))
      recipes.failures.push_back(name + ": depth format " + std::to_string(host.depth_format) +
                                 " is not one the trace format names");
    for (uint32_t i = 0; i < host.binding_count; ++i) {
      const sbk_vertex_binding& vb = host.bindings[i];
      if (vb.binding >= kMaxVertexInputBindings || vb.stride > kMaxVertexInputBindingStride)
        recipes.failures.push_back(name + ": vertex binding " + std::to_string(vb.binding) + " with stride " +
                                   std::to_string(vb.stride) +
                                   " (every Vulkan device accepts bindings 0-15 and strides up to 2048)");
    }
    for (uint32_t i = 0; i < host.attribute_count; ++i) {
      const sbk_vertex_attribute& a = host.attributes[i];
      if (!known(vulkan_names::vertex_formats(), a.format) || a.offset > kMaxVertexInputAttributeOffset)
        recipes.failures.push_back(name + ": vertex attribute at location " + std::to_string(a.location) + " has format " +
                                   std::to_string(a.format) + " at offset " + std::to_string(a.offset) +
                                   " (a format the trace format names, at most 2047 bytes in)");
    }
    const ModuleFacts& vertex = facts[entry.vertex_module];
    const ModuleFacts& fragment = facts[entry.fragment_module];
    if (!vertex.usable || !fragment.usable) {
      recipes.failures.push_back(name + ": uses a module that failed the module checks (module " +
                                 std::to_string(vertex.usable ? entry.fragment_module : entry.vertex_module) + ")");
      continue;
    }
    if (vertex.stage != kStageVertex || fragment.stage != kStageFragment) {
      recipes.failures.push_back(name + ": its modules are a " + stage_name(vertex.stage) + " and a " +
                                 stage_name(fragment.stage) + " shader, not a vertex and a fragment shader");
      continue;
    }
    sbk_entry owner;
    if (sbk_bundle_find(&b, fragment_key, fragment_size, &owner) != SBK_OK)
      recipes.failures.push_back(name + ": its fragment key has no record of its own");
    else if (owner.fragment_module != entry.fragment_module)
      recipes.failures.push_back(name + ": its fragment module is not the one its fragment key's record names");
    for (const auto& input : vertex.reflection.inputs) {
      bool provided = false;
      for (uint32_t a = 0; a < host.attribute_count; ++a) provided |= host.attributes[a].location == input.location;
      if (!provided)
        recipes.failures.push_back(name + ": the vertex module reads location " + std::to_string(input.location) +
                                   " but the host state has no such attribute");
    }
    for (const auto& input : fragment.reflection.inputs) {
      const auto& outputs = vertex.reflection.outputs;
      const auto written = std::find_if(outputs.begin(), outputs.end(),
                                        [&](const compile::Reflection::Variable& o) { return o.location == input.location; });
      if (written == outputs.end() || written->components < input.components)
        recipes.failures.push_back(name + ": the fragment module reads " + std::to_string(input.components) +
                                   " components at location " + std::to_string(input.location) +
                                   " that the vertex module does not write");
    }
    auto wanted_layout = layout_contract(vertex.reflection, fragment.reflection);
    sbk_layout stored;
    const sbk_result r = sbk_bundle_layout(&b, entry.layout, &stored);
    if (!wanted_layout)
      recipes.failures.push_back(name + ": its modules need no layout a contract can describe: " +
                                 wanted_layout.error().message);
    else if (r != SBK_OK)
      recipes.failures.push_back(name + ": its layout " + std::to_string(entry.layout) + " cannot be read: " + sbk_result_name(r));
    else if (contract_of_stored(stored) != *wanted_layout) {
      std::string required = "no layout of the bundle is";
      for (uint32_t l = 0; l < sbk_bundle_layout_count(&b); ++l)
        if (sbk_layout other; sbk_bundle_layout(&b, l, &other) == SBK_OK && contract_of_stored(other) == *wanted_layout)
          required = "layout " + std::to_string(l) + " is";
      recipes.failures.push_back(name + ": its layout " + std::to_string(entry.layout) +
                                 " is not the one its modules require (" + required + ")");
    }
  }
  std::vector<VerifyCheck> out;
  out.push_back(std::move(modules));
  out.push_back(std::move(recipes));
  if (std::optional<VerifyCheck> d = check_dynamic_fallbacks(b, facts)) out.push_back(std::move(*d));
  return out;
}

// ---- prewarm ----

std::vector<VerifyCheck> check_prewarm(const sbk_bundle& b) {
  uint64_t size = 0;
  if (sbk_bundle_section(&b, SBK_SECTION_PREWARM, &size) == nullptr) return {};
  VerifyCheck out{"prewarm", 0, {}};
  Failures failures(out);
  std::map<uint32_t, uint32_t> position_of;  // pipeline entry -> its first position
  for (uint32_t p = 0; p < sbk_bundle_prewarm_count(&b); ++p) {
    ++out.checked;
    const std::string name = "prewarm position " + std::to_string(p);
    uint32_t entry = 0, frame = 0;
    if (const sbk_result r = sbk_bundle_prewarm_at(&b, p, &entry, &frame); r != SBK_OK) {
      failures.add("prewarm entry", name + ": not an exact pipeline entry of the index, or the reserved field is not zero (" +
                                        sbk_result_name(r) + ")");
      continue;
    }
    if (const auto [it, inserted] = position_of.emplace(entry, p); !inserted)
      failures.add("prewarm unique", name + ": pipeline entry " + std::to_string(entry) + " is already at position " +
                                         std::to_string(it->second) + " (each exact pipeline at most once)");
  }
  std::vector<VerifyCheck> checks;
  checks.push_back(std::move(out));
  return checks;
}

// ---- specializations ----

VerifyCheck check_specializations(const sbk_bundle& b, const GuestModel& guest) {
  VerifyCheck out{"specializations", 0, {}};
  for (const sbk_entry& entry : readable_entries(b)) {
    if (entry.kind != SBK_KEY_KIND_EXACT && entry.kind != SBK_KEY_KIND_FAMILY) continue;
    ++out.checked;
    const std::string name = entry_name(b, entry);
    sbk_module_info info;
    if (entry.fragment_module != SBK_NO_MODULE && sbk_bundle_module_info(&b, entry.fragment_module, &info) == SBK_OK &&
        info.stage != kStageFragment && info.stage != kStageCompute)
      out.failures.push_back(name + ": its module is neither a fragment nor a compute shader");
    const std::span<const uint8_t> key(entry.key, entry.key_size);  // a shader entry's key is stored whole
    if (entry.kind == SBK_KEY_KIND_FAMILY) {
      if (const Status s = guest.check_family_key(key); !s) out.failures.push_back(name + ": " + s.error().message);
      continue;
    }
    auto view = guest.describe_exact_key(key);
    if (!view) {
      out.failures.push_back(name + ": " + view.error().message);
      continue;
    }
    if (view->admission != entry.rejection)
      out.failures.push_back(name + ": stored admission '" + guest.rejection_name(entry.rejection) +
                             "' but admission says '" + guest.rejection_name(view->admission) + "'");
  }
  return out;
}

// ---- specialization data ----

// A stored block as the values it hands a driver.
compile::SpecializationData data_of(const sbk_specialization_block& block) {
  compile::SpecializationData out;
  for (uint32_t m = 0; m < block.map_count; ++m) {
    const uint8_t* e = block.map + 12u * m;
    out.entries.push_back({load_u32_le(e), load_u32_le(e + 4), load_u32_le(e + 8)});
  }
  if (block.data_size) out.data.assign(block.data, block.data + block.data_size);
  return out;
}

// Each exact pipeline's stored values (build --specialize) are the ones its key gives (GuestModel::
// key_specialization), laid out as shaderbake lays values out; a fallback pipeline stores none, a compute
// pipeline none for a vertex stage.
VerifyCheck check_specialization_data(const sbk_bundle& b, const GuestModel& guest) {
  VerifyCheck out{"specialization_data", 0, {}};
  uint64_t section_size = 0;
  if (!sbk_bundle_section(&b, SBK_SECTION_SPECIALIZATION_DATA, &section_size)) return out;
  for (const sbk_entry& entry : readable_entries(b)) {
    if (entry.kind != SBK_KEY_KIND_PIPELINE && entry.kind != SBK_KEY_KIND_COMPUTE_PIPELINE) continue;
    sbk_specialization stored;
    const sbk_result r = sbk_bundle_specialization(&b, entry.index, &stored);
    if (r == SBK_NOT_FOUND) continue;
    ++out.checked;
    const std::string name = entry_name(b, entry);
    if (r != SBK_OK) {
      out.failures.push_back(name + ": its specialization data does not read (" + sbk_result_name(r) + ")");
      continue;
    }
    if (entry.route != SBK_ROUTE_EXACT) {
      out.failures.push_back(name + ": a fallback pipeline carries specialization data (a family's modules take none)");
      continue;
    }
    const std::vector<uint8_t> key = entry_key(b, entry);
    const size_t length = key.size() >= 6 ? load_u16_le(key.data() + 4) : 0;
    if (key.size() < 6 + length) {
      out.failures.push_back(name + ": its key does not hold a shader key");
      continue;
    }
    auto given = guest.key_specialization(std::span<const uint8_t>(key).subspan(6, length));
    if (!given) {
      out.failures.push_back(name + ": " + given.error().message);
      continue;
    }
    // The stages a pipeline of this kind stores: vertex and fragment, or (compute) an empty vertex block.
    std::vector<compile::SpecializationData> want;
    for (const auto& values : *given) want.push_back(compile::specialization_data(values));
    const bool compute = entry.kind == SBK_KEY_KIND_COMPUTE_PIPELINE;
    if (compute) want.insert(want.begin(), compile::SpecializationData{});
    want.resize(2);
    const compile::SpecializationData got[2] = {data_of(stored.vertex), data_of(stored.shader)};
    for (int s = 0; s < 2; ++s)
      if (!(got[s] == want[s]))
        out.failures.push_back(name + ": the values stored for its " + (s == 0 ? "vertex" : compute ? "compute" : "fragment") +
                               " stage are not the ones its key gives");
  }
  return out;
}

// ---- driver caches ----

std::vector<VerifyCheck> check_driver_caches(const sbk_bundle& b) {
  uint64_t size = 0;
  const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_DRIVER_CACHE, &size);
  if (!section) return {};
  VerifyCheck out{"driver_caches", 0, {}};
  const DriverCacheSection read = read_driver_cache_section({section, size});
  out.failures = read.problems;
  // The runtime loader must hand each blob out, and exactly this one: two readers of one format agreeing.
  for (const DriverCacheEntry& entry : read.entries) {
    ++out.checked;
    const void* data = nullptr;
    size_t data_size = 0;
    const sbk_result r =
        sbk_bundle_driver_cache(&b, entry.identity.vendor_id, entry.identity.device_id, entry.identity.driver_version,
                                entry.identity.pipeline_cache_uuid.data(), &data, &data_size);
    if (r != SBK_OK)
      out.failures.push_back("driver cache for " + to_string(entry.identity) + ": the loader says " + sbk_result_name(r));
    else if (data != entry.data.data() || data_size != entry.data.size())
      out.failures.push_back("driver cache for " + to_string(entry.identity) +
                             ": the loader hands out other bytes than the entry names");
  }
  std::vector<VerifyCheck> checks;
  checks.push_back(std::move(out));
  return checks;
}

// ---- metadata ----

// META is JSON; the REPORT section, when there is one, decompresses to JSON.
VerifyCheck check_metadata(const sbk_bundle& b) {
  VerifyCheck out{"metadata", 0, {}};
  uint64_t size = 0;
  const uint8_t* meta = sbk_bundle_section(&b, SBK_SECTION_META, &size);
  ++out.checked;
  if (meta == nullptr) out.failures.push_back("META section missing");
  else if (!nlohmann::json::accept(std::string_view(reinterpret_cast<const char*>(meta), static_cast<size_t>(size))))
    out.failures.push_back("META section corrupt: not JSON");
  size_t report_size = 0;
  sbk_result r = sbk_bundle_read_report(&b, nullptr, 0, &report_size);
  if (r == SBK_NOT_FOUND) return out;
  ++out.checked;
  std::string text;
  if (r == SBK_ERROR_BUFFER_TOO_SMALL || r == SBK_OK) {
    text.resize(report_size);
    r = sbk_bundle_read_report(&b, text.data(), text.size(), &report_size);
  }
  if (r != SBK_OK) out.failures.push_back(std::string("REPORT section corrupt: ") + sbk_result_name(r));
  else if (!nlohmann::json::accept(text)) out.failures.push_back("REPORT section corrupt: not JSON");
  return out;
}

// ---- what commands run ----

std::vector<VerifyCheck> verify_bundle(const sbk_bundle& b, const GuestModel& guest) {
  std::vector<VerifyCheck> checks;
  checks.push_back(check_sections(b));
  checks.push_back(check_index(b));
  checks.push_back(check_layouts(b));
  for (VerifyCheck& c : check_modules_and_recipes(b, ModuleScope::every_module)) checks.push_back(std::move(c));
  checks.push_back(check_specializations(b, guest));
  if (VerifyCheck c = check_specialization_data(b, guest); c.checked > 0) checks.push_back(std::move(c));
  for (VerifyCheck& c : check_driver_caches(b)) checks.push_back(std::move(c));
  for (VerifyCheck& c : check_prewarm(b)) checks.push_back(std::move(c));
  checks.push_back(check_metadata(b));
  return checks;
}

std::vector<VerifyCheck> verify_bundle(const BundleFile& bundle, const GuestModel& guest) {
  return verify_bundle(bundle.handle(), guest);
}

std::vector<VerifyCheck> check_before_driver(const sbk_bundle& b) {
  std::vector<VerifyCheck> checks;
  checks.push_back(check_sections(b));
  if (!checks.back().failures.empty()) return checks;
  checks.push_back(check_index(b));
  checks.push_back(check_layouts(b));
  for (VerifyCheck& c : check_modules_and_recipes(b, ModuleScope::pipeline_modules)) checks.push_back(std::move(c));
  for (VerifyCheck& c : check_prewarm(b)) checks.push_back(std::move(c));
  return checks;
}

std::vector<VerifyCheck> check_before_lookups(const sbk_bundle& b) {
  std::vector<VerifyCheck> checks;
  checks.push_back(check_sections(b));
  checks.push_back(check_index(b));
  return checks;
}

}  // namespace shaderbake::bundle
