// SPDX-License-Identifier: MIT
#include "lib/vulkan/vulkan_error.hpp"

#include <utility>

namespace shaderbake::vulkan {

std::string vk_result_name(VkResult result) {
  switch (result) {
#define SBK_VK_RESULT_CASE(name) \
  case name:                     \
    return #name;
    SBK_VK_RESULT_CASE(VK_SUCCESS)
    SBK_VK_RESULT_CASE(VK_NOT_READY)
    SBK_VK_RESULT_CASE(VK_TIMEOUT)
    SBK_VK_RESULT_CASE(VK_EVENT_SET)
    SBK_VK_RESULT_CASE(VK_EVENT_RESET)
    SBK_VK_RESULT_CASE(VK_INCOMPLETE)
    SBK_VK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    SBK_VK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    SBK_VK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    SBK_VK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
    SBK_VK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    SBK_VK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    SBK_VK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    SBK_VK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    SBK_VK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    SBK_VK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    SBK_VK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    SBK_VK_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
    SBK_VK_RESULT_CASE(VK_ERROR_UNKNOWN)
    SBK_VK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    SBK_VK_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    SBK_VK_RESULT_CASE(VK_ERROR_FRAGMENTATION)
    SBK_VK_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    SBK_VK_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    SBK_VK_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
    SBK_VK_RESULT_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef SBK_VK_RESULT_CASE
    default:
      return "VkResult(" + std::to_string(static_cast<int>(result)) + ")";
  }
}

Error vk_call_error(const char* call, VkResult result) {
  return toolchain_error("vulkan_call_failed", std::string(call) + " failed: " + vk_result_name(result));
}

Error toolchain_error(std::string reason, std::string message) {
  Error error;
  error.kind = ErrorKind::toolchain;
  error.reason = std::move(reason);
  error.message = std::move(message);
  return error;
}

}  // namespace shaderbake::vulkan
