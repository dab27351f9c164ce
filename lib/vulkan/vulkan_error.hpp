// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "lib/core/result.hpp"

namespace shaderbake::vulkan {

// "VK_ERROR_DEVICE_LOST", or "VkResult(-1000001004)" for a value this build does not name.
std::string vk_result_name(VkResult result);

// ErrorKind::toolchain, reason "vulkan_call_failed", message "vkCreateDevice failed: VK_ERROR_...".
Error vk_call_error(const char* call, VkResult result);

// ErrorKind::toolchain with the given reason and message.
Error toolchain_error(std::string reason, std::string message);

}  // namespace shaderbake::vulkan
