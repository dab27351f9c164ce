// SPDX-License-Identifier: MIT
#include "lib/compile/spirv_tools.hpp"

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

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

Result<std::vector<uint32_t>> optimize_spirv(const std::vector<uint32_t>& spirv) {
  std::string log;
  spvtools::Optimizer optimizer(kEnv);
  optimizer.SetMessageConsumer(collect_into(&log));
  optimizer.RegisterPerformancePasses();
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);
  std::vector<uint32_t> out;
  if (!optimizer.Run(spirv.data(), spirv.size(), &out, options))
    return tools_error("spirv_optimizer_error", "spirv-opt: " + log);
  return out;
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

}  // namespace shaderbake::compile
