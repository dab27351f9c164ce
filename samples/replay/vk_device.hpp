// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>

#include "lib/core/result.hpp"
#include "lib/vulkan/context.hpp"
#include "lib/vulkan/device_object.hpp"
#include "lib/vulkan/vulkan_error.hpp"

namespace shaderbake::replay {

// Turns off the drivers' own disk caches, so that modes run one after another cannot help each other and
// a run never reads a cache an earlier process wrote: MESA_SHADER_CACHE_DISABLE=true (Mesa: lavapipe, radv,
// anv) and __GL_SHADER_DISK_CACHE=0 (NVIDIA), whatever the environment said (unlike
// vulkan::disable_driver_disk_caches, which leaves a cache the caller configured). Call it before the first
// VulkanDevice: a driver reads its environment when the instance loads it. Returns the line the report
// prints about it.
std::string set_driver_cache_environment();

// A vulkan::Context (instance, validation layer when installed and wanted, the chosen device with dynamic
// rendering and, where supported, non-solid fill modes, one graphics queue) plus one command buffer and one
// fence for the frame being recorded. The warm-up and each replay mode create their own, so no driver state
// of one can serve another.
class VulkanDevice {
 public:
  // options.device: substring of the device name, case-insensitive; empty prefers lavapipe ("llvmpipe"),
  // else the first device. Errors (ErrorKind::toolchain) as vulkan::Context::create's.
  static Result<std::unique_ptr<VulkanDevice>> create(const vulkan::ExecutorOptions& options);
  ~VulkanDevice();  // waits for the device to be idle
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  const vulkan::Context& context() const { return *context_; }
  VkDevice device() const { return context_->device(); }
  VkCommandBuffer command_buffer() const { return command_buffer_; }

  // Dynamic rendering: VK_KHR_dynamic_rendering's entry points where the context enabled the extension,
  // else the core Vulkan 1.3 ones.
  PFN_vkCmdBeginRenderingKHR begin_rendering = nullptr;
  PFN_vkCmdEndRenderingKHR end_rendering = nullptr;

  // Begins recording the frame's command buffer (reset first).
  Status begin_commands() const;
  // Ends, submits and waits for the command buffer; the wall time of submit + wait in *ms.
  Status submit_and_wait(double* ms) const;

 private:
  VulkanDevice() = default;
  std::unique_ptr<vulkan::Context> context_;  // declared first: destroyed after the objects of its device
  vulkan::DeviceObject<VkCommandPool> command_pool_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;  // freed with the pool
  vulkan::DeviceObject<VkFence> fence_;
};

// Prints every message of `log` to stderr ("validation error [VUID-...] ...") and returns how many there
// were. Call it once the context that wrote them is destroyed: messages reported while destroying count too.
uint64_t report_validation_messages(const vulkan::Context::MessageLog& log);

}  // namespace shaderbake::replay
