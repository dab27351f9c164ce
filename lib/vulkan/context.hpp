// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "lib/vulkan/device_object.hpp"
#include "lib/vulkan/executor.hpp"
#include "lib/vulkan/vulkan_error.hpp"

namespace shaderbake::vulkan {

// Creates a Vulkan object with a vkCreate*(device, info, allocator, out)-shaped call and takes ownership.
template <class T, class Info, class CreateFn>
Result<DeviceObject<T>> create_object(VkDevice device, const char* call, CreateFn create, const Info& info,
                                      typename DeviceObject<T>::DestroyFn destroy) {
  T handle = VK_NULL_HANDLE;
  VkResult result = create(device, &info, nullptr, &handle);
  if (result != VK_SUCCESS) return vk_call_error(call, result);
  return DeviceObject<T>(device, handle, destroy);
}

// A buffer with its own memory, host-visible and host-coherent, mapped for its whole life.
struct HostBuffer {
  DeviceObject<VkDeviceMemory> memory;  // declared first: destroyed after the buffer bound to it
  DeviceObject<VkBuffer> buffer;
  uint8_t* mapped = nullptr;  // unmapped implicitly when the memory is freed
  VkDeviceSize size = 0;
};

// Device features beyond the executor's Vulkan 1.0 baseline, for callers that need them.
struct DeviceFeatures {
  // Dynamic rendering (Vulkan 1.3 core, else VK_KHR_dynamic_rendering): the bundle's pipeline recipes are
  // created with it (sbk_vk_fill_pipeline). Required when set: create() fails with reason
  // "vulkan_no_dynamic_rendering" on a device without it. Asks the instance for Vulkan 1.3 (or the
  // loader's version, at least 1.1).
  bool dynamic_rendering = false;
  // fillModeNonSolid (recipes may rasterize lines or points): enabled when the device has it.
  bool fill_mode_non_solid = false;
  // Optional: more extensions and feature structs, chosen once the physical device is known. Called with the
  // instance and the chosen physical device right before vkCreateDevice; it appends extension names to
  // `extensions` and returns the head of a pNext chain whose last struct points to `next` (or `next` itself).
  // What it returns and appends must stay valid until create() returns.
  std::function<void*(VkInstance instance, VkPhysicalDevice physical_device, void* next,
                      std::vector<const char*>& extensions)>
      extend_device;
};

// The instance (with the validation layer's messenger when enabled), the chosen physical device, the
// logical device and its graphics queue. Destroys them in the reverse order, after the device is idle.
class Context {
 public:
  static Result<std::unique_ptr<Context>> create(const ExecutorOptions& options,
                                                 const DeviceFeatures& wanted_features = DeviceFeatures{});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const { return instance_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  VkPhysicalDevice physical_device() const { return physical_device_; }
  const VkPhysicalDeviceLimits& limits() const { return properties_.limits; }
  // The chosen device's properties: vendorID, deviceID, driverVersion, pipelineCacheUUID, apiVersion...
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const std::string& device_name() const { return device_name_; }
  bool validation_active() const { return messenger_ != VK_NULL_HANDLE; }
  const std::vector<std::string>& validation_messages() const { return log_->messages; }

  // Index of a memory type allowed by `type_bits` that has `required` (and, among those, `preferred` if
  // any does), or an error naming `what`.
  Result<uint32_t> memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                               const char* what) const;

  // A mapped host-visible, host-coherent buffer of `size` (> 0) bytes. `prefer_cached` for buffers the
  // host reads back.
  Result<HostBuffer> create_host_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool prefer_cached) const;

  // Memory for one image, preferably device-local, bound to it.
  Result<DeviceObject<VkDeviceMemory>> bind_image_memory(VkImage image) const;

  // What the debug messenger writes into; its address is handed to the layer, so it lives on the heap.
  struct MessageLog {
    std::mutex mutex;
    std::vector<std::string> messages;
  };
  // The same log, shared: it outlives the context, so that it also holds what the layer reported while the
  // device was destroyed (objects a caller forgot to destroy). Read it after the context is gone, or under
  // its mutex.
  std::shared_ptr<const MessageLog> message_log() const { return log_; }

 private:
  Context() = default;

  std::shared_ptr<MessageLog> log_ = std::make_shared<MessageLog>();
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  std::string device_name_;
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkQueue queue_ = VK_NULL_HANDLE;
};

}  // namespace shaderbake::vulkan
