// SPDX-License-Identifier: MIT
#include "samples/replay/vk_device.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace shaderbake::replay {

using vulkan::create_object;
using vulkan::vk_call_error;

std::string set_driver_cache_environment() {
  ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  ::setenv("__GL_SHADER_DISK_CACHE", "0", 1);
  return "driver disk caches off (MESA_SHADER_CACHE_DISABLE=true, __GL_SHADER_DISK_CACHE=0)";
}

Result<std::unique_ptr<VulkanDevice>> VulkanDevice::create(const vulkan::ExecutorOptions& options,
                                                           bool router_features) {
  std::unique_ptr<VulkanDevice> self(new VulkanDevice());
  vulkan::DeviceFeatures features;
  features.dynamic_rendering = true;
  features.fill_mode_non_solid = true;  // host states may rasterize lines or points (polygon mode)
  sbk_router_feature_chain chain{};  // read by vkCreateDevice inside Context::create
  if (router_features) {
    features.extend_device = [&](VkInstance instance, VkPhysicalDevice physical_device, void* next,
                                 std::vector<const char*>& extensions) {
      sbk_router_query_support(instance, physical_device, vkGetInstanceProcAddr, &self->router_support_);
      void* head = sbk_router_fill_features(&self->router_support_, next, &chain);
      extensions.insert(extensions.end(), chain.extensions, chain.extensions + chain.extension_count);
      return head;
    };
  }
  auto context = vulkan::Context::create(options, features);
  if (!context) return std::move(context).error();
  self->context_ = std::move(context).value();
  const VkDevice device = self->context_->device();
  {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(self->context_->physical_device(), &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(self->context_->physical_device(), &count, families.data());
    if (self->context_->queue_family() < count)
      self->timestamp_valid_bits_ = families[self->context_->queue_family()].timestampValidBits;
  }

  // The extension's names answer only where the context enabled it (below Vulkan 1.3); else the core ones.
  self->begin_rendering = reinterpret_cast<PFN_vkCmdBeginRenderingKHR>(vkGetDeviceProcAddr(device, "vkCmdBeginRenderingKHR"));
  self->end_rendering = reinterpret_cast<PFN_vkCmdEndRenderingKHR>(vkGetDeviceProcAddr(device, "vkCmdEndRenderingKHR"));
  if (!self->begin_rendering || !self->end_rendering) {
    self->begin_rendering = reinterpret_cast<PFN_vkCmdBeginRenderingKHR>(vkGetDeviceProcAddr(device, "vkCmdBeginRendering"));
    self->end_rendering = reinterpret_cast<PFN_vkCmdEndRenderingKHR>(vkGetDeviceProcAddr(device, "vkCmdEndRendering"));
  }
  if (!self->begin_rendering || !self->end_rendering)
    return vulkan::toolchain_error("vulkan_no_dynamic_rendering", "vkCmdBeginRendering is not available on \"" +
                                                                      self->context_->device_name() + "\"");

  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = self->context_->queue_family();
  auto command_pool = create_object<VkCommandPool>(device, "vkCreateCommandPool", vkCreateCommandPool, pool,
                                                   vkDestroyCommandPool);
  if (!command_pool) return std::move(command_pool).error();
  self->command_pool_ = std::move(command_pool).value();
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = self->command_pool_.get();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  if (VkResult r = vkAllocateCommandBuffers(device, &allocate, &self->command_buffer_); r != VK_SUCCESS)
    return vk_call_error("vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  auto made_fence = create_object<VkFence>(device, "vkCreateFence", vkCreateFence, fence, vkDestroyFence);
  if (!made_fence) return std::move(made_fence).error();
  self->fence_ = std::move(made_fence).value();
  return self;
}

VulkanDevice::~VulkanDevice() {
  if (context_) vkDeviceWaitIdle(context_->device());  // the fence and the pool go first
}

Status VulkanDevice::begin_commands() const {
  if (VkResult r = vkResetCommandBuffer(command_buffer_, 0); r != VK_SUCCESS) return vk_call_error("vkResetCommandBuffer", r);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = vkBeginCommandBuffer(command_buffer_, &begin); r != VK_SUCCESS)
    return vk_call_error("vkBeginCommandBuffer", r);
  return ok_status();
}

Status VulkanDevice::submit_and_wait(double* ms) const {
  if (VkResult r = vkEndCommandBuffer(command_buffer_); r != VK_SUCCESS) return vk_call_error("vkEndCommandBuffer", r);
  const VkDevice device = context_->device();
  const VkFence fence = fence_.get();
  const auto start = std::chrono::steady_clock::now();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  if (VkResult r = vkQueueSubmit(context_->queue(), 1, &submit, fence); r != VK_SUCCESS)
    return vk_call_error("vkQueueSubmit", r);
  if (VkResult r = vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX); r != VK_SUCCESS)
    return vk_call_error("vkWaitForFences", r);
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (VkResult r = vkResetFences(device, 1, &fence); r != VK_SUCCESS) return vk_call_error("vkResetFences", r);
  return ok_status();
}

uint64_t report_validation_messages(const vulkan::Context::MessageLog& log) {
  for (const std::string& message : log.messages) std::fprintf(stderr, "validation %s\n", message.c_str());
  return log.messages.size();
}

}  // namespace shaderbake::replay
