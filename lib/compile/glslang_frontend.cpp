// SPDX-License-Identifier: MIT
#include "lib/compile/glslang_frontend.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/SPIRV/SPVRemapper.h>
#include <glslang/SPIRV/doc.h>
#include <glslang/build_info.h>

#include <pthread.h>

#include <cstring>
#include <mutex>
#include <new>
#include <optional>

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

Error compile_error(std::string message, const char* reason = "glsl_compile_error") {
  Error e;
  e.kind = ErrorKind::toolchain;
  e.reason = reason;
  e.message = std::move(message);
  return e;
}

// glslang bounds its parser's depth, but a chain of left-associative operators (`x + x + ... + x`, `v.x.x...`)
// becomes a tree as deep as the chain, which it walks recursively: about 600 bytes of stack per operand here
// (20,000 operands overflowed an 8 MiB stack). So the compile runs on a thread of its own whose stack is
// reserved large (pages are touched only as deep as a source goes), and a source whose preprocessed text is
// longer than kMaxGlslBytes is refused: at most half as many operands as bytes stays far inside the stack.
constexpr size_t kCompileStackBytes = size_t{1} << 30;
constexpr size_t kMaxGlslBytes = size_t{512} << 10;

Result<std::vector<uint32_t>> compile_on_this_thread(ShaderStage stage, std::string_view source);

struct CompileCall {
  ShaderStage stage;
  std::string_view source;
  std::optional<Result<std::vector<uint32_t>>> result;
};

void* compile_thread(void* argument) {
  auto* call = static_cast<CompileCall*>(argument);
  try {
    call->result = compile_on_this_thread(call->stage, call->source);
  } catch (const std::bad_alloc&) {
    call->result = compile_error("glslang ran out of memory", "out_of_memory");
  }
  return nullptr;
}

Result<std::vector<uint32_t>> compile_on_this_thread(ShaderStage stage, std::string_view source) {
  const EShLanguage language = stage == ShaderStage::vertex   ? EShLangVertex
                               : stage == ShaderStage::compute ? EShLangCompute
                                                               : EShLangFragment;
  const char* text = source.data();
  const int length = static_cast<int>(source.size());
  auto configure = [&](glslang::TShader& shader) {
    shader.setStringsWithLengths(&text, &length, 1);
    shader.setEnvInput(glslang::EShSourceGlsl, language, glslang::EShClientVulkan, 100);
    shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_0);
    shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_0);
  };
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  // Macros can make the text glslang parses much longer than the file: with a #define, the bound is on what it
  // parses (a shader object of its own: one TShader is preprocessed or parsed, not both). Without one the text
  // does not grow, and the generated sources of the build's hot path pay no second preprocessing.
  std::string preprocessed;
  glslang::TShader scan(language);
  configure(scan);
  glslang::TShader::ForbidIncluder no_includes;
  if (source.find("define") != std::string_view::npos &&
      scan.preprocess(GetDefaultResources(), 450, ENoProfile, false, false, messages, &preprocessed, no_includes) &&
      preprocessed.size() > kMaxGlslBytes)
    return compile_error("the GLSL source is " + std::to_string(preprocessed.size()) + " bytes after preprocessing; " +
                             "shaderbake compiles at most " + std::to_string(kMaxGlslBytes) + " (glslang's stack depth " +
                             "grows with an expression's length)",
                         "glsl_too_large");
  glslang::TShader shader(language);
  configure(shader);
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

}  // namespace

Result<std::vector<uint32_t>> glsl_to_spirv(ShaderStage stage, std::string_view source) {
  if (source.size() > kMaxGlslBytes)
    return compile_error("the GLSL source is " + std::to_string(source.size()) + " bytes; shaderbake compiles at most " +
                             std::to_string(kMaxGlslBytes),
                         "glsl_too_large");
  initialize_glslang_once();
  CompileCall call{stage, source, std::nullopt};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, kCompileStackBytes);
  pthread_t thread;
  const int started = pthread_create(&thread, &attributes, compile_thread, &call);
  pthread_attr_destroy(&attributes);
  if (started != 0)
    return compile_error(std::string("cannot start glslang's thread (a 1 GiB stack reservation): ") + std::strerror(started),
                         "out_of_memory");
  pthread_join(thread, nullptr);
  return std::move(*call.result);
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
