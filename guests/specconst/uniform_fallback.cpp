// SPDX-License-Identifier: MIT
#include "guests/specconst/uniform_fallback.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "lib/compile/spirv_tools.hpp"

namespace shaderbake::specconst {

namespace {

// SPIR-V opcodes, decorations and enumerants the rewrite reads or writes (SPIR-V 1.6, section 3).
enum : uint32_t {
  kMagic = 0x07230203u,
  kOpLine = 8,
  kOpEntryPoint = 15,
  kOpTypeInt = 21,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpSpecConstantTrue = 48,
  kOpSpecConstantFalse = 49,
  kOpSpecConstant = 50,
  kOpSpecConstantComposite = 51,
  kOpSpecConstantOp = 52,
  kOpFunction = 54,
  kOpFunctionEnd = 56,
  kOpVariable = 59,
  kOpLoad = 61,
  kOpAccessChain = 65,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
  kOpCompositeConstruct = 80,
  kOpINotEqual = 171,
  kOpLabel = 248,
  kOpNoLine = 317,
  kDecorationSpecId = 1,
  kDecorationBlock = 2,
  kDecorationBinding = 33,
  kDecorationDescriptorSet = 34,
  kDecorationOffset = 35,
  kStorageUniform = 2,
  kVersion1_4 = 0x00010400u,
};

struct Instruction {
  size_t at = 0;
  uint32_t count = 0;
  uint32_t opcode = 0;
};

Error rewrite_error(const std::string& what) {
  return Error{ErrorKind::bad_input, "fallback_rewrite_failed", "the fallback module cannot be made: " + what, {}};
}

// Instructions of a module's preamble, debug and annotation sections (those before its types and constants).
bool before_types(uint32_t opcode) {
  return (opcode >= 2 && opcode <= 7) /* sources, names, strings */ || opcode == 10 || opcode == 11 ||
         (opcode >= 14 && opcode <= 17) /* memory model, entry points, execution modes, capabilities */ ||
         (opcode >= kOpDecorate && opcode <= 75) || opcode == 330 || opcode == 331 || opcode == 332 ||
         opcode == 5632 || opcode == 5633;
}

uint32_t word_header(uint32_t count, uint32_t opcode) { return count << 16 | opcode; }

// The module's instructions, each checked to lie within the words.
Result<std::vector<Instruction>> instructions_of(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != kMagic) return rewrite_error("the words are not a SPIR-V module");
  std::vector<Instruction> out;
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || count > words.size() - at) return rewrite_error("an instruction runs past the module's end");
    out.push_back({at, count, words[at] & 0xFFFFu});
    at += count;
  }
  return out;
}

class Rewrite {
 public:
  Rewrite(std::span<const uint32_t> words, std::vector<Instruction> list) : in_(words), list_(std::move(list)) {}

  // The carried constants' result ids (packet order) and every derived constant built from one.
  Status find_moved(const sbk_specconst_module& scan) {
    std::map<uint32_t, uint32_t> result_of_spec_id;
    for (const Instruction& i : list_)
      if (i.opcode == kOpDecorate && i.count >= 4 && in_[i.at + 2] == kDecorationSpecId)
        result_of_spec_id[in_[i.at + 3]] = in_[i.at + 1];
    for (uint32_t k = 0; k < scan.constant_count; ++k) {
      const sbk_specconst_constant& c = scan.constants[k];
      if (!c.used || c.fixed_by != SBK_SPECCONST_ADMITTED) continue;
      auto it = result_of_spec_id.find(c.id);
      if (it == result_of_spec_id.end()) return rewrite_error("constant_id " + std::to_string(c.id) + " has no SpecId");
      carried_.push_back({it->second, c.type == SBK_SPECCONST_BOOL, 0});
      moved_.insert(it->second);
    }
    for (size_t n = 0; n < list_.size() && list_[n].opcode != kOpFunction; ++n) {
      const Instruction& i = list_[n];
      if (i.count < 3) continue;
      if (i.opcode == kOpSpecConstantTrue || i.opcode == kOpSpecConstantFalse || i.opcode == kOpSpecConstant) {
        for (Carried& c : carried_)
          if (c.result == in_[i.at + 2]) c.type = in_[i.at + 1];
      } else if (i.opcode == kOpSpecConstantComposite || i.opcode == kOpSpecConstantOp) {
        const uint32_t first = i.opcode == kOpSpecConstantOp ? 4 : 3;
        for (uint32_t w = first; w < i.count; ++w)
          if (moved_.count(in_[i.at + w])) {
            derived_.push_back(n);
            moved_.insert(in_[i.at + 2]);
            break;
          }
      }
    }
    for (const Carried& c : carried_)
      if (c.type == 0) return rewrite_error("constant %" + std::to_string(c.result) + " has no definition");
    return ok_status();
  }

  bool nothing_to_move() const { return carried_.empty(); }

  // A function other than the entry point's that names a moved id (its result id), or 0.
  uint32_t user_outside_entry() const {
    uint32_t entry = 0;
    for (const Instruction& i : list_)
      if (i.opcode == kOpEntryPoint && i.count >= 3) entry = in_[i.at + 2];
    uint32_t function = 0;
    for (const Instruction& i : list_) {
      if (i.opcode == kOpFunction && i.count >= 3) function = in_[i.at + 2];
      if (function != 0 && function != entry)
        for (uint32_t w = 1; w < i.count; ++w)
          if (moved_.count(in_[i.at + w])) return function;
      if (i.opcode == kOpFunctionEnd) function = 0;
    }
    return 0;
  }

  Result<std::vector<uint32_t>> emit(PacketPlacement placement) {
    bound_ = in_[3];
    const bool interface_lists_globals = in_[1] >= kVersion1_4;
    // Types: the uint (for bools and indices) and the pointers the loads need, reused where the module has them.
    std::optional<uint32_t> uint_type;
    std::map<uint32_t, uint32_t> uniform_pointer_to;  // pointee -> OpTypePointer Uniform
    for (const Instruction& i : list_) {
      if (i.opcode == kOpTypeInt && i.count == 4 && in_[i.at + 2] == 32 && in_[i.at + 3] == 0) uint_type = in_[i.at + 1];
      if (i.opcode == kOpTypePointer && i.count == 4 && in_[i.at + 2] == kStorageUniform)
        uniform_pointer_to.emplace(in_[i.at + 3], in_[i.at + 1]);
    }
    std::vector<uint32_t> globals;  // appended after the module's own types, constants and variables
    if (!uint_type) {
      uint_type = next_id();
      put(globals, {word_header(4, kOpTypeInt), *uint_type, 32, 0});
    }
    std::vector<uint32_t> index(carried_.size());
    for (uint32_t k = 0; k < carried_.size(); ++k) {
      index[k] = next_id();
      put(globals, {word_header(4, kOpConstant), *uint_type, index[k], k});
    }
    const uint32_t block = next_id(), block_pointer = next_id(), variable = next_id();
    std::vector<uint32_t> member_types;
    for (Carried& c : carried_) member_types.push_back(c.is_bool ? *uint_type : c.type);
    globals.push_back(word_header(2 + static_cast<uint32_t>(member_types.size()), kOpTypeStruct));
    globals.push_back(block);
    globals.insert(globals.end(), member_types.begin(), member_types.end());
    put(globals, {word_header(4, kOpTypePointer), block_pointer, kStorageUniform, block});
    for (uint32_t type : member_types) {
      if (uniform_pointer_to.count(type)) continue;
      uniform_pointer_to[type] = next_id();
      put(globals, {word_header(4, kOpTypePointer), uniform_pointer_to[type], kStorageUniform, type});
    }
    put(globals, {word_header(4, kOpVariable), block_pointer, variable, kStorageUniform});

    std::vector<uint32_t> decorations;
    put(decorations, {word_header(3, kOpDecorate), block, kDecorationBlock});
    for (uint32_t k = 0; k < carried_.size(); ++k)
      put(decorations, {word_header(5, kOpMemberDecorate), block, k, kDecorationOffset, 4 * (placement.first_word + k)});
    put(decorations, {word_header(4, kOpDecorate), variable, kDecorationDescriptorSet, 0});
    put(decorations, {word_header(4, kOpDecorate), variable, kDecorationBinding, placement.binding});

    // The loads and the derived operations, at the start of the entry point's first block.
    std::vector<uint32_t> loads;
    for (uint32_t k = 0; k < carried_.size(); ++k) {
      const Carried& c = carried_[k];
      const uint32_t pointer = next_id();
      put(loads, {word_header(5, kOpAccessChain), uniform_pointer_to[member_types[k]], pointer, variable, index[k]});
      if (c.is_bool) {
        const uint32_t word = next_id();
        put(loads, {word_header(4, kOpLoad), *uint_type, word, pointer});
        // index[0] is member 0's index: the uint 0.
        put(loads, {word_header(5, kOpINotEqual), c.type, c.result, word, index[0]});
      } else {
        put(loads, {word_header(4, kOpLoad), c.type, c.result, pointer});
      }
    }
    for (size_t n : derived_) {
      const Instruction& i = list_[n];
      if (i.opcode == kOpSpecConstantOp) {
        if (i.count < 4) return rewrite_error("an OpSpecConstantOp without its operation");
        loads.push_back(word_header(i.count - 1, in_[i.at + 3] & 0xFFFFu));
        loads.push_back(in_[i.at + 1]);
        loads.push_back(in_[i.at + 2]);
        loads.insert(loads.end(), in_.begin() + static_cast<std::ptrdiff_t>(i.at + 4),
                     in_.begin() + static_cast<std::ptrdiff_t>(i.at + i.count));
      } else {
        loads.push_back(word_header(i.count, kOpCompositeConstruct));
        loads.insert(loads.end(), in_.begin() + static_cast<std::ptrdiff_t>(i.at + 1),
                     in_.begin() + static_cast<std::ptrdiff_t>(i.at + i.count));
      }
    }

    std::vector<uint32_t> out(in_.begin(), in_.begin() + 5);
    const std::set<size_t> derived(derived_.begin(), derived_.end());
    bool decorated = false, declared = false, in_entry = false, loaded = false, entry_found = false;
    uint32_t entry = 0;
    for (size_t n = 0; n < list_.size(); ++n) {
      const Instruction& i = list_[n];
      const auto instruction = in_.subspan(i.at, i.count);
      const bool global = !declared;
      if (global && !decorated && !before_types(i.opcode)) {
        out.insert(out.end(), decorations.begin(), decorations.end());
        decorated = true;
      }
      if (i.opcode == kOpFunction && !declared) {
        if (!decorated) {
          out.insert(out.end(), decorations.begin(), decorations.end());
          decorated = true;
        }
        out.insert(out.end(), globals.begin(), globals.end());
        declared = true;
      }
      if (i.opcode == kOpEntryPoint && i.count >= 3) {
        entry = in_[i.at + 2];
        entry_found = true;
        if (interface_lists_globals) {
          out.push_back(word_header(i.count + 1, i.opcode));
          out.insert(out.end(), instruction.begin() + 1, instruction.end());
          out.push_back(variable);
          continue;
        }
      }
      if (global && i.opcode == kOpDecorate && i.count >= 3 && in_[i.at + 2] == kDecorationSpecId &&
          moved_.count(in_[i.at + 1]))
        continue;  // a SpecId on what is now a loaded value
      if (global && i.count >= 3 &&
          (i.opcode == kOpSpecConstantTrue || i.opcode == kOpSpecConstantFalse || i.opcode == kOpSpecConstant) &&
          moved_.count(in_[i.at + 2]))
        continue;
      if (global && derived.count(n)) continue;
      if (i.opcode == kOpFunction && i.count >= 3) in_entry = in_[i.at + 2] == entry;
      out.insert(out.end(), instruction.begin(), instruction.end());
      if (in_entry && !loaded && i.opcode == kOpLabel) {
        // After the block's variables (which must come first) and the debug lines among them.
        while (n + 1 < list_.size() &&
               (list_[n + 1].opcode == kOpVariable || list_[n + 1].opcode == kOpLine || list_[n + 1].opcode == kOpNoLine)) {
          ++n;
          const auto next = in_.subspan(list_[n].at, list_[n].count);
          out.insert(out.end(), next.begin(), next.end());
        }
        out.insert(out.end(), loads.begin(), loads.end());
        loaded = true;
      }
    }
    if (!entry_found || !loaded) return rewrite_error("the module has no entry point function to load the packet in");
    out[3] = bound_;
    return out;
  }

 private:
  struct Carried {
    uint32_t result = 0;
    bool is_bool = false;
    uint32_t type = 0;  // the constant's type id
  };

  uint32_t next_id() { return bound_++; }
  static void put(std::vector<uint32_t>& out, std::initializer_list<uint32_t> words) {
    out.insert(out.end(), words.begin(), words.end());
  }

  std::span<const uint32_t> in_;
  std::vector<Instruction> list_;
  std::vector<Carried> carried_;   // packet order
  std::set<uint32_t> moved_;       // carried and derived result ids
  std::vector<size_t> derived_;    // instruction indices, module order
  uint32_t bound_ = 0;
};

}  // namespace

Result<std::vector<uint32_t>> uniform_fallback_module(std::span<const uint32_t> words, const sbk_specconst_module& scan,
                                                      PacketPlacement placement) {
  auto list = instructions_of(words);
  if (!list) return std::move(list).error();
  Rewrite rewrite(words, std::move(*list));
  if (Status s = rewrite.find_moved(scan); !s) return std::move(s).error();
  if (rewrite.nothing_to_move()) return std::vector<uint32_t>(words.begin(), words.end());
  if (rewrite.user_outside_entry() == 0) return rewrite.emit(placement);

  // Helper functions read the constants: inline them into the entry point, then rewrite that module. Inlining
  // leaves the module-scope instructions (and so the scan) as they were.
  auto inlined = compile::inline_all_calls(std::vector<uint32_t>(words.begin(), words.end()));
  if (!inlined) return rewrite_error(inlined.error().message);
  auto inlined_list = instructions_of(*inlined);
  if (!inlined_list) return std::move(inlined_list).error();
  Rewrite again(*inlined, std::move(*inlined_list));
  if (Status s = again.find_moved(scan); !s) return std::move(s).error();
  if (const uint32_t user = again.user_outside_entry(); user != 0)
    return rewrite_error("function %" + std::to_string(user) + " reads the constants, and inlining leaves it");
  return again.emit(placement);
}

}  // namespace shaderbake::specconst
