// SPDX-License-Identifier: MIT
#include "lib/compile/spirv_tools.hpp"

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

namespace shaderbake::compile {

namespace {

constexpr spv_target_env kEnv = SPV_ENV_VULKAN_1_0;

Error tools_error(const char* reason, std::string message) {
  Error e;
  e.kind = ErrorKind::toolchain;
  e.reason = reason;
  e.message = std::move(message);
  return e;
}

spvtools::MessageConsumer collect_into(std::string* log) {
  return [log](spv_message_level_t, const char*, const spv_position_t& position, const char* message) {
    if (!log->empty()) *log += "\n";
    *log += "word " + std::to_string(position.index) + ": " + message;
  };
}

}  // namespace

Status validate_spirv(const std::vector<uint32_t>& spirv) {
  std::string log;
  spvtools::SpirvTools tools(kEnv);
  tools.SetMessageConsumer(collect_into(&log));
  if (!tools.Validate(spirv.data(), spirv.size())) return tools_error("spirv_validation_error", "spirv-val: " + log);
  return ok_status();
}

Result<std::string> single_entry_point(std::span<const uint32_t> spirv, ShaderStage stage) {
  constexpr uint32_t kMagic = 0x07230203u, kOpEntryPoint = 15;
  if (spirv.size() < 5 || spirv[0] != kMagic)
    return tools_error("spirv_validation_error", "not a SPIR-V module (no magic number in its first word)");
  uint32_t entry_points = 0, model = 0;
  std::string name;
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t count = spirv[at] >> 16, opcode = spirv[at] & 0xFFFFu;
    if (count == 0 || count > spirv.size() - at)
      return tools_error("spirv_validation_error", "the instruction at word " + std::to_string(at) +
                                                       " has a word count of " + std::to_string(count) +
                                                       " that does not fit the module");
    if (opcode == kOpEntryPoint && count >= 2) {
      ++entry_points;
      model = spirv[at + 1];
      // OpEntryPoint ExecutionModel <id> Name: a nul-terminated literal packed from word 3, little-endian.
      name.clear();
      bool ended = false;
      for (size_t w = at + 3; w < at + count && !ended; ++w)
        for (int b = 0; b < 4 && !ended; ++b) {
          const char c = static_cast<char>(spirv[w] >> (8 * b));
          ended = c == '\0';
          if (!ended) name.push_back(c);
        }
    }
    at += count;
  }
  if (entry_points != 1)
    return tools_error("spirv_wrong_stage", "the module has " + std::to_string(entry_points) +
                                                " entry points; shaderbake takes modules of exactly one");
  if (model != static_cast<uint32_t>(stage))
    return tools_error("spirv_wrong_stage", "the module's entry point has execution model " + std::to_string(model) +
                                                ", not the stage's (" + std::to_string(static_cast<uint32_t>(stage)) + ")");
  return name;
}

namespace {

// spirv-opt over `spirv` with the passes `register_passes` adds, on a fresh Optimizer (one is single-use). Its
// own re-validation is off: the chain validates before and after.
Result<std::vector<uint32_t>> run_optimizer(const std::vector<uint32_t>& spirv, std::string_view what,
                                            const std::function<void(spvtools::Optimizer&)>& register_passes) {
  std::string log;
  spvtools::Optimizer optimizer(kEnv);
  optimizer.SetMessageConsumer(collect_into(&log));
  register_passes(optimizer);
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);
  std::vector<uint32_t> out;
  if (!optimizer.Run(spirv.data(), spirv.size(), &out, options))
    return tools_error("spirv_optimizer_error", "spirv-opt (" + std::string(what) + "): " + log);
  return out;
}

}  // namespace

Result<std::vector<uint32_t>> optimize_spirv(const std::vector<uint32_t>& spirv) {
  return run_optimizer(spirv, "performance passes", [](spvtools::Optimizer& o) { o.RegisterPerformancePasses(); });
}

Result<std::vector<uint32_t>> inline_all_calls(const std::vector<uint32_t>& spirv) {
  return run_optimizer(spirv, "inlining", [](spvtools::Optimizer& o) {
    // A function with a return before its end is inlined only after merge-return gives it one exit.
    o.RegisterPass(spvtools::CreateMergeReturnPass())
        .RegisterPass(spvtools::CreateInlineExhaustivePass())
        .RegisterPass(spvtools::CreateEliminateDeadFunctionsPass());
  });
}

namespace {

constexpr uint32_t kOpTypeBool = 20;
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpTypeFloat = 22;
constexpr uint32_t kOpSpecConstantTrue = 48;
constexpr uint32_t kOpSpecConstantFalse = 49;
constexpr uint32_t kOpSpecConstant = 50;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationSpecId = 1;
constexpr uint32_t kBoolWidth = 0;  // in SpecConstantWidths: the constant is a bool

Error specialization_error(const char* reason, uint32_t constant_id, const std::string& what) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = reason;
  e.message = "specialization constant_id " + std::to_string(constant_id) + ": " + what;
  return e;
}

// SpecId -> width in bits of the scalar constant it decorates (kBoolWidth for a bool), from the module's
// OpDecorate SpecId, OpSpecConstant{,True,False} and scalar type declarations.
using SpecConstantWidths = std::map<uint32_t, uint32_t>;

Result<SpecConstantWidths> spec_constant_widths(const std::vector<uint32_t>& spirv) {
  std::unordered_map<uint32_t, uint32_t> spec_id_of;        // decorated ID -> SpecId
  std::unordered_map<uint32_t, uint32_t> width_of_type;     // scalar type ID -> width (kBoolWidth: bool)
  std::unordered_map<uint32_t, uint32_t> type_of_constant;  // spec constant ID -> its type ID
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t* w = &spirv[at];
    const uint32_t word_count = w[0] >> 16;
    if (word_count == 0 || word_count > spirv.size() - at)
      return tools_error("spirv_parse_error",
                         "reading specialization constants: malformed instruction at word " + std::to_string(at));
    switch (w[0] & 0xFFFF) {
      case kOpDecorate:
        if (word_count >= 4 && w[2] == kDecorationSpecId) spec_id_of[w[1]] = w[3];
        break;
      case kOpTypeBool:
        if (word_count >= 2) width_of_type[w[1]] = kBoolWidth;
        break;
      case kOpTypeInt:
      case kOpTypeFloat:
        if (word_count >= 3) width_of_type[w[1]] = w[2];
        break;
      case kOpSpecConstantTrue:
      case kOpSpecConstantFalse:
      case kOpSpecConstant:
        if (word_count >= 3) type_of_constant[w[2]] = w[1];
        break;
      default: break;
    }
    at += word_count;
  }
  SpecConstantWidths widths;
  for (const auto& [target, spec_id] : spec_id_of) {
    const auto type = type_of_constant.find(target);
    if (type == type_of_constant.end()) continue;  // not a scalar spec constant: spirv-val refuses such a module
    const auto width = width_of_type.find(type->second);
    if (width != width_of_type.end()) widths[spec_id] = width->second;
  }
  return widths;
}

}  // namespace

Result<std::vector<uint32_t>> freeze_specialization_constants(const std::vector<uint32_t>& spirv,
                                                              std::span<const SpecializationValue> values) {
  auto widths = spec_constant_widths(spirv);
  if (!widths) return std::move(widths).error();
  std::unordered_map<uint32_t, std::vector<uint32_t>> bit_patterns;
  for (const SpecializationValue& value : values) {
    const uint32_t id = value.constant_id;
    if (!bit_patterns.emplace(id, value.words).second)
      return specialization_error("duplicate_specialization_constant", id, "given more than one value");
    const auto width = widths->find(id);
    if (width == widths->end())
      return specialization_error("unknown_specialization_constant", id, "the module declares no such constant");
    if (width->second == kBoolWidth) {
      if (value.words.size() != 1 || value.words[0] > 1)
        return specialization_error("bad_specialization_value", id, "a bool takes one word, 0 or 1");
    } else if (width->second % 32 != 0) {
      return specialization_error(
          "bad_specialization_value", id,
          "a " + std::to_string(width->second) + "-bit constant has no whole-word bit pattern (32- and 64-bit only)");
    } else if (value.words.size() != width->second / 32) {
      return specialization_error("bad_specialization_value", id,
                                  "a " + std::to_string(width->second) + "-bit constant takes " +
                                      std::to_string(width->second / 32) + " word(s), not " +
                                      std::to_string(value.words.size()));
    }
  }

  return run_optimizer(spirv, "specialization", [&](spvtools::Optimizer& o) {
    o.RegisterPass(spvtools::CreateSetSpecConstantDefaultValuePass(bit_patterns))
        .RegisterPass(spvtools::CreateFreezeSpecConstantValuePass())
        .RegisterPass(spvtools::CreateFoldSpecConstantOpAndCompositePass());
  });
}

Result<std::string> disassemble_spirv(const std::vector<uint32_t>& spirv) {
  std::string log, text;
  spvtools::SpirvTools tools(kEnv);
  tools.SetMessageConsumer(collect_into(&log));
  if (!tools.Disassemble(spirv, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return tools_error("spirv_disassembly_error", "spirv-dis: " + log);
  return text;
}

std::string spirv_tools_version() { return std::string("SPIRV-Tools ") + spvSoftwareVersionString(); }

namespace {

struct LocalIdScan {
  size_t offset = 5;                 // word offset of the instruction being parsed
  bool in_functions = false;
  uint32_t max_global = 0;           // largest ID defined before the first OpFunction
  std::vector<uint32_t> locals;      // IDs defined from the first OpFunction on, in order of definition
  std::vector<size_t> id_words;      // word offsets of every ID operand (result, result type, references)
};

spv_result_t scan_instruction(void* user, const spv_parsed_instruction_t* inst) {
  auto& scan = *static_cast<LocalIdScan*>(user);
  if (inst->opcode == 54 /* OpFunction */) scan.in_functions = true;
  if (inst->result_id != 0) {
    if (scan.in_functions)
      scan.locals.push_back(inst->result_id);
    else
      scan.max_global = std::max(scan.max_global, inst->result_id);
  }
  for (uint16_t k = 0; k < inst->num_operands; ++k) {
    switch (inst->operands[k].type) {
      case SPV_OPERAND_TYPE_ID:
      case SPV_OPERAND_TYPE_TYPE_ID:
      case SPV_OPERAND_TYPE_RESULT_ID:
      case SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID:
      case SPV_OPERAND_TYPE_SCOPE_ID:
        scan.id_words.push_back(scan.offset + inst->operands[k].offset);
        break;
      default:
        break;
    }
  }
  scan.offset += inst->num_words;
  return SPV_SUCCESS;
}

}  // namespace

Status renumber_function_locals(std::vector<uint32_t>& spirv) {
  LocalIdScan scan;
  spv_context context = spvContextCreate(kEnv);
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t parsed = spvBinaryParse(context, &scan, spirv.data(), spirv.size(), nullptr, scan_instruction, &diagnostic);
  std::string message = diagnostic && diagnostic->error ? diagnostic->error : "cannot parse the module";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  if (parsed != SPV_SUCCESS) return tools_error("spirv_parse_error", "renumbering function-local IDs: " + message);
  // Old ID -> new ID, indexed by the old ID (IDs are below the header's bound); 0: not renumbered.
  const uint32_t first_local = scan.max_global + 1;
  std::vector<uint32_t> renumbered(spirv[3], 0);
  for (size_t k = 0; k < scan.locals.size(); ++k) {
    const uint32_t id = scan.locals[k];
    if (id >= renumbered.size() || renumbered[id] != 0)
      return tools_error("spirv_parse_error", "renumbering function-local IDs: ID " + std::to_string(id) +
                                                  " is defined twice or not below the bound");
    renumbered[id] = first_local + static_cast<uint32_t>(k);
  }
  for (size_t at : scan.id_words)
    if (spirv[at] < renumbered.size() && renumbered[spirv[at]] != 0) spirv[at] = renumbered[spirv[at]];
  spirv[3] = first_local + static_cast<uint32_t>(scan.locals.size());  // the bound
  return ok_status();
}

}  // namespace shaderbake::compile
