// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

namespace shaderbake::vulkan {

// Owns one non-dispatchable Vulkan object of a device and destroys it with the matching vkDestroy*/vkFree*
// call. Move-only. The device must outlive the object (declare the owner of the VkDevice first).
template <class T>
class DeviceObject {
 public:
  using DestroyFn = void(VKAPI_PTR*)(VkDevice, T, const VkAllocationCallbacks*);

  DeviceObject() = default;
  DeviceObject(VkDevice device, T handle, DestroyFn destroy) : device_(device), handle_(handle), destroy_(destroy) {}
  DeviceObject(DeviceObject&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)), destroy_(other.destroy_) {}
  DeviceObject& operator=(DeviceObject&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
      destroy_ = other.destroy_;
    }
    return *this;
  }
  DeviceObject(const DeviceObject&) = delete;
  DeviceObject& operator=(const DeviceObject&) = delete;
  ~DeviceObject() { reset(); }

  void reset() {
    if (handle_ != VK_NULL_HANDLE) destroy_(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  T handle_ = VK_NULL_HANDLE;
  DestroyFn destroy_ = nullptr;
};

}  // namespace shaderbake::vulkan
