// SPDX-License-Identifier: MIT
#include "guests/specconst/unread_outputs.hpp"

#include <map>
#include <set>

namespace shaderbake::specconst {

namespace {

// SPIR-V opcodes, storage classes and decorations read here (SPIR-V 1.6, section 3).
constexpr uint32_t kOpName = 5, kOpEntryPoint = 15, kOpCapability = 17, kOpTypeInt = 21, kOpTypeFloat = 22,
                   kOpTypeVector = 23, kOpTypePointer = 32, kOpVariable = 59, kOpLoad = 61, kOpStore = 62,
                   kOpDecorate = 71;
constexpr uint32_t kStorageInput = 1, kStorageOutput = 3, kStoragePrivate = 6;
constexpr uint32_t kDecorationBuiltIn = 11, kDecorationLocation = 30;
constexpr uint32_t kCapabilityTransformFeedback = 53;
constexpr uint32_t kSpirv14 = 0x00010400;  // from SPIR-V 1.4 an entry point's interface lists Private variables too

Error rewrite_error(const std::string& what) {
  return Error{ErrorKind::bad_input, "vertex_rewrite_failed", "vertex module: " + what, {}};
}

// Whether word `w` (1-based within the instruction) of an instruction of opcode `op` is a literal, not an id,
// for the instructions with literal operands a vertex module holds; a literal read as an id only keeps an output
// that could have gone.
bool literal_operand(uint32_t op, uint32_t w) {
  switch (op) {
    case 2: case 3: case 4: case 6: case 7: case 8: case 10: case 11: case 14: case 16: case 17:  // debug, preamble
    case 21: case 22: case 43: case 50: case 72: case 330:  // int/float types, constants, member decorations
      return true;
    case 12: return w == 4;   // OpExtInst: the instruction number
    case 79: return w > 4;    // OpVectorShuffle: components
    case 81: return w > 3;    // OpCompositeExtract: indexes
    case 82: return w > 4;    // OpCompositeInsert: indexes
    case 251: return w > 2;   // OpSwitch: (literal, label) pairs (a label is never a variable)
    default: return false;
  }
}

struct Instruction {
  size_t at;      // word offset
  uint32_t op;
  uint32_t count;  // words
};

Result<std::vector<Instruction>> instructions(std::span<const uint32_t> words) {
  if (words.size() < 5) return rewrite_error("shorter than a header");
  std::vector<Instruction> list;
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size()) return rewrite_error("an instruction runs past the end");
    list.push_back({at, words[at] & 0xFFFFu, count});
    at += count;
  }
  return list;
}

// Types that take exactly one interface location: a 32-bit scalar or a vector of them. (Matrices, arrays,
// structs and 64-bit vectors take more, and the reflection the caller reads locations from names only the
// first: anything else is left as it is.)
struct TypeTable {
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> scalar_width;  // int/float id -> (opcode, width)
  std::map<uint32_t, uint32_t> vector_component;                   // vector id -> component type
  std::map<uint32_t, uint32_t> pointee;                            // pointer id -> pointee
  bool single_location(uint32_t type) const {
    if (auto v = vector_component.find(type); v != vector_component.end()) type = v->second;
    auto s = scalar_width.find(type);
    return s != scalar_width.end() && s->second.second == 32;
  }
};

TypeTable type_table(std::span<const uint32_t> words, const std::vector<Instruction>& list) {
  TypeTable t;
  for (const Instruction& i : list) {
    const uint32_t* in = &words[i.at];
    if ((i.op == kOpTypeInt || i.op == kOpTypeFloat) && i.count >= 3) t.scalar_width[in[1]] = {i.op, in[2]};
    if (i.op == kOpTypeVector && i.count == 4) t.vector_component[in[1]] = in[2];
    if (i.op == kOpTypePointer && i.count == 4) t.pointee[in[1]] = in[3];
  }
  return t;
}

}  // namespace

Result<bool> inputs_take_one_location_each(std::span<const uint32_t> words) {
  auto list = instructions(words);
  if (!list) return std::move(list).error();
  const TypeTable types = type_table(words, *list);
  std::set<uint32_t> builtins;
  for (const Instruction& i : *list)
    if (i.op == kOpDecorate && i.count >= 3 && words[i.at + 2] == kDecorationBuiltIn) builtins.insert(words[i.at + 1]);
  for (const Instruction& i : *list) {
    if (i.op != kOpVariable || i.count < 4 || words[i.at + 3] != kStorageInput || builtins.count(words[i.at + 2])) continue;
    const auto pointee = types.pointee.find(words[i.at + 1]);
    if (pointee == types.pointee.end() || !types.single_location(pointee->second)) return false;
  }
  return true;
}

Result<std::vector<uint32_t>> drop_unread_outputs(std::span<const uint32_t> words, const std::set<uint32_t>& read_locations) {
  auto parsed = instructions(words);
  if (!parsed) return std::move(parsed).error();
  const std::vector<Instruction>& list = *parsed;
  const std::vector<uint32_t> unchanged(words.begin(), words.end());
  if (words[1] >= kSpirv14) return unchanged;
  for (const Instruction& i : list)
    if (i.op == kOpCapability && i.count == 2 && words[i.at + 1] == kCapabilityTransformFeedback) return unchanged;
  const TypeTable types = type_table(words, list);
  // Output variables with a Location the fragment stage does not read (and no BuiltIn).
  std::map<uint32_t, uint32_t> location_of;  // variable -> Location
  std::set<uint32_t> builtins;
  for (const Instruction& i : list) {
    if (i.op != kOpDecorate || i.count < 3) continue;
    if (words[i.at + 2] == kDecorationLocation && i.count >= 4) location_of[words[i.at + 1]] = words[i.at + 3];
    if (words[i.at + 2] == kDecorationBuiltIn) builtins.insert(words[i.at + 1]);
  }
  std::map<uint32_t, uint32_t> pointee_of_output_pointer;  // OpTypePointer Output T -> T
  std::map<uint32_t, uint32_t> private_pointer_to;          // T -> the OpTypePointer Private T this rewrite makes
  std::set<uint32_t> candidates;
  for (const Instruction& i : list) {
    if (i.op == kOpTypePointer && i.count == 4 && words[i.at + 2] == kStorageOutput)
      pointee_of_output_pointer[words[i.at + 1]] = words[i.at + 3];
    if (i.op == kOpVariable && i.count == 4 && words[i.at + 3] == kStorageOutput) {
      const uint32_t id = words[i.at + 2];
      const auto location = location_of.find(id);
      const auto pointee = pointee_of_output_pointer.find(words[i.at + 1]);
      if (location != location_of.end() && !builtins.count(id) && !read_locations.count(location->second) &&
          pointee != pointee_of_output_pointer.end() && types.single_location(pointee->second))
        candidates.insert(id);
    }
  }
  // Keep a candidate any instruction uses other than by name, decoration, interface, whole load or store.
  for (const Instruction& i : list) {
    if (candidates.empty()) break;
    if (i.op == kOpName || i.op == kOpDecorate || i.op == kOpEntryPoint) continue;
    for (uint32_t w = 1; w < i.count; ++w) {
      const uint32_t word = words[i.at + w];
      if (!candidates.count(word) || literal_operand(i.op, w)) continue;
      const bool whole = (i.op == kOpLoad && w == 3) || (i.op == kOpStore && w == 1) || (i.op == kOpVariable && w == 2);
      if (!whole) candidates.erase(word);
    }
  }
  if (candidates.empty()) return unchanged;

  std::vector<uint32_t> out(words.begin(), words.begin() + 5);
  uint32_t bound = words[3];
  std::map<uint32_t, uint32_t> new_pointer_after;  // Output pointer type id -> the Private pointer made after it
  for (const Instruction& i : list) {
    if (i.op == kOpVariable && i.count == 4 && candidates.count(words[i.at + 2])) {
      // A new pointer type, declared right after the Output one (an existing Private pointer to the same type
      // may come later in the module; SPIR-V allows two pointer types with the same operands).
      const uint32_t pointee = pointee_of_output_pointer.at(words[i.at + 1]);
      auto made = private_pointer_to.find(pointee);
      if (made == private_pointer_to.end()) made = private_pointer_to.emplace(pointee, bound++).first;
      new_pointer_after.emplace(words[i.at + 1], made->second);
    }
  }
  for (const Instruction& i : list) {
    const uint32_t* in = &words[i.at];
    if (i.op == kOpDecorate && i.count >= 3 && candidates.count(in[1])) continue;  // Location and the like
    if (i.op == kOpEntryPoint) {
      // Execution model, function, name (a nul-terminated string), then the interface ids.
      size_t w = 3;
      while (w < i.count && (in[w] >> 24) != 0) ++w;  // the string's last word has a zero top byte
      if (w >= i.count) return rewrite_error("an OpEntryPoint name runs past its instruction");
      ++w;
      std::vector<uint32_t> kept(in, in + w);
      for (; w < i.count; ++w)
        if (!candidates.count(in[w])) kept.push_back(in[w]);
      kept[0] = static_cast<uint32_t>(kept.size()) << 16 | kOpEntryPoint;
      out.insert(out.end(), kept.begin(), kept.end());
      continue;
    }
    if (i.op == kOpVariable && i.count == 4 && candidates.count(in[2])) {
      const uint32_t pointee = pointee_of_output_pointer.at(in[1]);
      out.insert(out.end(), {in[0], private_pointer_to.at(pointee), in[2], kStoragePrivate});
      continue;
    }
    out.insert(out.end(), in, in + i.count);
    if (i.op == kOpTypePointer && i.count == 4) {
      // A Private pointer this rewrite made goes right after the Output pointer to the same type.
      const auto made = new_pointer_after.find(in[1]);
      if (made != new_pointer_after.end()) {
        out.insert(out.end(), {4u << 16 | kOpTypePointer, made->second, kStoragePrivate, in[3]});
        new_pointer_after.erase(made);
        // Another Output pointer to the same type must not make it twice.
        for (auto it = new_pointer_after.begin(); it != new_pointer_after.end();)
          it = it->second == private_pointer_to.at(in[3]) ? new_pointer_after.erase(it) : std::next(it);
      }
    }
  }
  out[3] = bound;
  return out;
}

}  // namespace shaderbake::specconst
