// SPDX-License-Identifier: MIT
#include "lib/compile/glslang_frontend.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/SPIRV/SPVRemapper.h>
#include <glslang/SPIRV/doc.h>
#include <glslang/build_info.h>

#include <mutex>

namespace shaderbake::compile {

namespace {

// SPVRemapper's error handler is process-global and by default calls exit(5). It is replaced once, before
// any remap, by one that throws; canonicalize_ids catches it, so no remapper failure leaves this library.
struct RemapFailure {
  std::string message;
};

void initialize_glslang_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    glslang::InitializeProcess();
    // SPVRemapper fills glslang's global opcode tables on first use, unguarded: two threads remapping at
    // once raced there and crashed. Fill them here, once, before any thread can remap.
    spv::Parameterize();
    spv::spirvbin_t::registerErrorHandler([](const std::string& message) { throw RemapFailure{message}; });
  });
}

Error compile_error(std::string message) {
  Error e;
  e.kind = ErrorKind::toolchain;
  e.reason = "glsl_compile_error";
  e.message = std::move(message);
  return e;
}

}  // namespace

Result<std::vector<uint32_t>> glsl_to_spirv(ShaderStage stage, std::string_view source) {
  initialize_glslang_once();
  const EShLanguage language = stage == ShaderStage::vertex   ? EShLangVertex
                               : stage == ShaderStage::compute ? EShLangCompute
                                                               : EShLangFragment;
  glslang::TShader shader(language);
  const char* text = source.data();
  const int length = static_cast<int>(source.size());
  shader.setStringsWithLengths(&text, &length, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, language, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_0);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_0);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages))
    return compile_error(std::string("glslang: ") + shader.getInfoLog());
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) return compile_error(std::string("glslang link: ") + program.getInfoLog());
  std::vector<uint32_t> spirv;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  options.generateDebugInfo = false;
  options.disableOptimizer = true;  // spirv-opt runs next, with its own pass list
  options.validate = false;         // spirv-val runs next
  glslang::GlslangToSpv(*program.getIntermediate(language), spirv, &logger, &options);
  const std::string log = logger.getAllMessages();
  if (spirv.empty()) return compile_error("glslang produced no SPIR-V: " + log);
  return spirv;
}

Status canonicalize_ids(std::vector<uint32_t>& spirv) {
  initialize_glslang_once();
  std::vector<unsigned int> words(spirv.begin(), spirv.end());
  try {
    spv::spirvbin_t remapper(0);
    remapper.remap(words, spv::spirvbin_t::DO_EVERYTHING);
  } catch (const RemapFailure& failure) {
    Error e;
    e.kind = ErrorKind::toolchain;
    e.reason = "spirv_remap_error";
    e.message = "SPVRemapper: " + failure.message;
    return e;
  }
  spirv.assign(words.begin(), words.end());
  return ok_status();
}

std::string glslang_version() {
  return "glslang " + std::to_string(GLSLANG_VERSION_MAJOR) + "." + std::to_string(GLSLANG_VERSION_MINOR) + "." +
         std::to_string(GLSLANG_VERSION_PATCH) + GLSLANG_VERSION_FLAVOR;
}

}  // namespace shaderbake::compile
