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
#include "runtime_loader/shaderbake_router.h"

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
  // else the first device. `router_features`: the device also gets what the router's dynamic-state fallback
  // needs where the device supports all of it (sbk_router_query_support, sbk_router_fill_features; see
  // router_support()). Errors (ErrorKind::toolchain) as vulkan::Context::create's.
  static Result<std::unique_ptr<VulkanDevice>> create(const vulkan::ExecutorOptions& options,
                                                      bool router_features = false);
  ~VulkanDevice();  // waits for the device to be idle
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  const vulkan::Context& context() const { return *context_; }
  VkDevice device() const { return context_->device(); }
  VkCommandBuffer command_buffer() const { return command_buffer_; }
  // What sbk_router_query_support said of the device (all zero unless created with router_features); when
  // `complete`, the device was created with the features and extensions sbk_router_fill_features names.
  const sbk_router_device_support& router_support() const { return router_support_; }
  // Valid bits of the graphics queue's timestamps (0: the queue writes none).
  uint32_t timestamp_valid_bits() const { return timestamp_valid_bits_; }

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
  sbk_router_device_support router_support_{};
  uint32_t timestamp_valid_bits_ = 0;
};

// Prints every message of `log` to stderr ("validation error [VUID-...] ...") and returns how many there
// were. Call it once the context that wrote them is destroyed: messages reported while destroying count too.
uint64_t report_validation_messages(const vulkan::Context::MessageLog& log);

}  // namespace shaderbake::replay
