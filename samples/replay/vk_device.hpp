// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "lib/core/result.hpp"

namespace shaderbake::replay {

// The Vulkan instance and the chosen physical device, created once per process. The validation layer is
// enabled when it is installed (unless turned off); every warning or error it (or the loader) reports is
// printed to stderr and counted.
//
// Driver disk caches must be off before this is created (set_driver_cache_environment): a driver reads
// its environment when the instance loads it.
class VulkanInstance {
 public:
  // `device`: substring of the device name, case-insensitive; empty prefers lavapipe ("llvmpipe"), else the
  // first device. Errors (ErrorKind::toolchain) name what is missing and list the devices there are.
  static Result<std::unique_ptr<VulkanInstance>> create(const std::string& device, bool validation);
  ~VulkanInstance();
  VulkanInstance(const VulkanInstance&) = delete;
  VulkanInstance& operator=(const VulkanInstance&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  bool validation_active() const { return messenger_ != VK_NULL_HANDLE; }
  uint64_t messages() const { return messages_->load(); }

 private:
  VulkanInstance() = default;
  std::unique_ptr<std::atomic<uint64_t>> messages_ = std::make_unique<std::atomic<uint64_t>>(0);
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
};

// Turns off the drivers' own disk caches, so that modes run one after another cannot help each other and
// a run never reads a cache an earlier process wrote: MESA_SHADER_CACHE_DISABLE=true (Mesa: lavapipe, radv,
// anv) and __GL_SHADER_DISK_CACHE=0 (NVIDIA). Returns the line the report prints about it.
std::string set_driver_cache_environment();

// A logical device with one graphics queue, dynamic rendering and (where supported) non-solid fill modes,
// plus one command buffer and one fence for the frame being recorded. Each replay mode creates its own, so
// no driver state of one mode's device can serve another mode.
class VulkanDevice {
 public:
  static Result<std::unique_ptr<VulkanDevice>> create(const VulkanInstance& instance);
  ~VulkanDevice();
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandBuffer command_buffer() const { return command_buffer_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceFeatures& features() const { return enabled_; }
  VkPhysicalDevice physical_device() const { return physical_; }

  // Dynamic rendering: core vkCmdBeginRendering on Vulkan 1.3, else VK_KHR_dynamic_rendering's.
  PFN_vkCmdBeginRenderingKHR begin_rendering = nullptr;
  PFN_vkCmdEndRenderingKHR end_rendering = nullptr;

  // A memory type index allowed by `type_bits` with `required` properties, or UINT32_MAX.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const;

  // Begins recording the frame's command buffer (reset first).
  Status begin_commands() const;
  // Ends, submits and waits for the command buffer; the wall time of submit + wait in *ms.
  Status submit_and_wait(double* ms) const;

 private:
  VulkanDevice() = default;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  VkPhysicalDeviceFeatures enabled_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

// An ErrorKind::toolchain error naming a failed Vulkan call and its VkResult.
Error vulkan_error(const char* call, VkResult result);

}  // namespace shaderbake::replay
