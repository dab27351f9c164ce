// SPDX-License-Identifier: MIT
#include "guests/specconst/key_view.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>

#include "lib/core/hex.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace shaderbake::specconst {

namespace {

constexpr uint32_t kVertex = 0x1, kFragment = 0x10, kCompute = 0x20;

Error not_a_key(std::string_view kind, const std::string& what) {
  return Error{ErrorKind::bad_input, "not_a_guest_key",
               "the key is not a specconst " + std::string(kind) + " key of schema version " +
                   std::to_string(SBK_SPECCONST_KEY_SCHEMA_VERSION) + ": " + what,
               {}};
}

struct Reader {
  std::span<const uint8_t> bytes;
  size_t at = 0;
  bool has(size_t n) const { return bytes.size() - at >= n; }
  uint64_t get(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{bytes[at + i]} << (8 * i);
    at += n;
    return v;
  }
};

// The header and module count shared by both kinds; the stages, checked as a pipeline's.
Result<std::vector<KeyModule>> read_key(std::span<const uint8_t> key, uint8_t kind, bool with_constants) {
  const char* kind_name = with_constants ? "exact" : "family";
  Reader r{key};
  if (!r.has(6)) return not_a_key(kind_name, "shorter than its header");
  if (r.get(1) != SBK_GUEST_SPECCONST || r.get(1) != kind || r.get(2) != SBK_SPECCONST_KEY_SCHEMA_VERSION)
    return not_a_key(kind_name, "its header names another guest, kind or schema");
  const uint64_t count = r.get(1);
  if (r.get(1) != 0) return not_a_key(kind_name, "a reserved byte is set");
  if (count < 1 || count > SBK_SPECCONST_MAX_STAGES) return not_a_key(kind_name, std::to_string(count) + " modules");
  std::vector<KeyModule> modules(count);
  for (KeyModule& m : modules) {
    if (!r.has(20)) return not_a_key(kind_name, "cut short in a module");
    m.stage = static_cast<uint32_t>(r.get(4));
    std::memcpy(m.hash.data(), key.data() + r.at, 16);
    r.at += 16;
    if (!with_constants) continue;
    if (!r.has(4)) return not_a_key(kind_name, "cut short in a module");
    const uint64_t used = r.get(2);
    if (r.get(2) != 0) return not_a_key(kind_name, "a reserved field is set");
    if (used > SBK_SPECCONST_MAX_CONSTANTS) return not_a_key(kind_name, std::to_string(used) + " constants in a module");
    for (uint64_t k = 0; k < used; ++k) {
      if (!r.has(16)) return not_a_key(kind_name, "cut short in a constant");
      KeyModule::Constant c;
      c.id = static_cast<uint32_t>(r.get(4));
      c.type = static_cast<uint8_t>(r.get(1));
      c.width = static_cast<uint8_t>(r.get(1));
      c.fixed_by = static_cast<uint8_t>(r.get(1));
      const uint64_t at_default = r.get(1);
      c.bits = r.get(8);
      if (c.fixed_by >= SBK_SPECCONST_REASON_COUNT || at_default > 1)
        return not_a_key(kind_name, "constant " + std::to_string(c.id) + " has an impossible admission field");
      c.at_default = at_default == 1;
      if (c.type > SBK_SPECCONST_FLOAT || (c.width != 32 && c.width != 64) ||
          (c.type == SBK_SPECCONST_BOOL && (c.width != 32 || c.bits > 1)) || (c.width == 32 && (c.bits >> 32) != 0))
        return not_a_key(kind_name, "constant " + std::to_string(c.id) + " has an impossible type, width or value");
      if (!m.constants.empty() && m.constants.back().id >= c.id)
        return not_a_key(kind_name, "constant ids are not ascending");
      m.constants.push_back(c);
    }
  }
  if (r.at != key.size()) return not_a_key(kind_name, "bytes follow its last module");
  const bool compute = modules.size() == 1 && modules[0].stage == kCompute;
  const bool graphics = modules.size() == 2 && modules[0].stage == kVertex && modules[1].stage == kFragment;
  if (!compute && !graphics) return not_a_key(kind_name, "its modules are neither a compute stage nor a vertex and a fragment stage");
  return modules;
}

nlohmann::ordered_json value_json(const KeyModule::Constant& c) {
  switch (c.type) {
    case SBK_SPECCONST_BOOL: return c.bits != 0;
    case SBK_SPECCONST_INT:
      return c.width == 64 ? static_cast<int64_t>(c.bits) : static_cast<int64_t>(static_cast<int32_t>(c.bits));
    case SBK_SPECCONST_UINT: return c.bits;
    default: break;
  }
  double d;
  if (c.width == 64) {
    std::memcpy(&d, &c.bits, sizeof d);
  } else {
    const uint32_t bits = static_cast<uint32_t>(c.bits);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    // The shortest decimal that reads back as this float (0.05, not 0.05000000074505806): a trace writing it
    // gives the same bits.
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, f);
    d = std::isfinite(f) ? std::strtod(std::string(text, written.ptr).c_str(), nullptr) : f;
  }
  if (std::isfinite(d)) return d;
  char text[24];
  std::snprintf(text, sizeof text, c.width == 64 ? "0x%016llx" : "0x%08llx", static_cast<unsigned long long>(c.bits));
  return std::string(text);  // NaN and infinities as their bit pattern
}

}  // namespace

Result<std::vector<KeyModule>> read_exact_key(std::span<const uint8_t> key) {
  return read_key(key, SBK_KEY_KIND_EXACT, true);
}

Result<std::vector<KeyModule>> read_family_key(std::span<const uint8_t> key) {
  return read_key(key, SBK_KEY_KIND_FAMILY, false);
}

compile::SpecializationValue specialization_value(uint32_t id, uint8_t width, uint64_t bits) {
  compile::SpecializationValue v;
  v.constant_id = id;
  v.words.push_back(static_cast<uint32_t>(bits));
  if (width == 64) v.words.push_back(static_cast<uint32_t>(bits >> 32));
  return v;
}

std::vector<compile::SpecializationValue> specialization_of(const KeyModule& module) {
  std::vector<compile::SpecializationValue> out;
  for (const KeyModule::Constant& c : module.constants) out.push_back(specialization_value(c.id, c.width, c.bits));
  return out;
}

nlohmann::ordered_json program_json(const std::vector<KeyModule>& modules) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const KeyModule& m : modules) {
    nlohmann::ordered_json stage;
    stage["module"] = hex_bytes(m.hash);
    stage["constants"] = nlohmann::ordered_json::object();
    for (const KeyModule::Constant& c : m.constants) stage["constants"][std::to_string(c.id)] = value_json(c);
    out[m.stage == kVertex ? "vertex" : m.stage == kFragment ? "fragment" : "compute"] = std::move(stage);
  }
  return out;
}

}  // namespace shaderbake::specconst
