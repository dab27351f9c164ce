// SPDX-License-Identifier: MIT
#include "samples/replay/vk_device.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define SBK_REPLAY_PIN_LIBRARIES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SBK_REPLAY_PIN_LIBRARIES 1
#endif
#endif
#ifdef SBK_REPLAY_PIN_LIBRARIES
#include <dlfcn.h>
#include <link.h>
#endif

namespace shaderbake::replay {

namespace {

#ifdef SBK_REPLAY_PIN_LIBRARIES
// AddressSanitizer builds only (as lib/vulkan/context.cpp does): the loader unloads drivers and layers at
// vkDestroyInstance, and LeakSanitizer then reports their own leaks from "<unknown module>", which no
// suppression can match (tests/sanitizer/lsan.supp names the driver libraries). Every library loaded so far is
// made RTLD_NODELETE, so it stays mapped, and named, until exit.
void pin_loaded_libraries() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        return 0;
      },
      &names);
  for (const std::string& name : names) dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
#else
void pin_loaded_libraries() {}
#endif

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* user) {
  static_cast<std::atomic<uint64_t>*>(user)->fetch_add(1);
  std::fprintf(stderr, "validation %s: [%s] %s\n",
               (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
               data && data->pMessageIdName ? data->pMessageIdName : "-", data && data->pMessage ? data->pMessage : "");
  return VK_FALSE;  // never abort the call that triggered it
}

bool has_layer(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) < 0) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) < 0) return false;
  return std::any_of(layers.begin(), layers.begin() + count,
                     [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool has_extension(const char* layer, const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) < 0) return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateInstanceExtensionProperties(layer, &count, extensions.data()) < 0) return false;
  return std::any_of(extensions.begin(), extensions.begin() + count,
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Error device_error(std::string reason, std::string message) {
  Error e;
  e.kind = ErrorKind::toolchain;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

}  // namespace

Error vulkan_error(const char* call, VkResult result) {
  return device_error("vulkan_call_failed", std::string(call) + " failed (VkResult " + std::to_string(result) + ")");
}

std::string set_driver_cache_environment() {
  ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  ::setenv("__GL_SHADER_DISK_CACHE", "0", 1);
  return "driver disk caches off (MESA_SHADER_CACHE_DISABLE=true, __GL_SHADER_DISK_CACHE=0)";
}

Result<std::unique_ptr<VulkanInstance>> VulkanInstance::create(const std::string& device, bool validation) {
  std::unique_ptr<VulkanInstance> self(new VulkanInstance());
  uint32_t api = VK_API_VERSION_1_0;
  vkEnumerateInstanceVersion(&api);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "shaderbake-replay";
  app.apiVersion = std::min(api, static_cast<uint32_t>(VK_API_VERSION_1_3));
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;

  VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  messenger.pUserData = self->messages_.get();
  // The layer keeps a shader validation cache in ~/.cache: off, so that runs are hermetic.
  const VkValidationFeatureDisableEXT disabled = VK_VALIDATION_FEATURE_DISABLE_SHADER_VALIDATION_CACHE_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  std::vector<const char*> extensions;
  const bool layer = validation && has_layer(kValidationLayer) &&
                     has_extension(kValidationLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (layer) {
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    info.pNext = &messenger;  // chained: instance creation and destruction are covered too
    if (has_extension(kValidationLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      features.disabledValidationFeatureCount = 1;
      features.pDisabledValidationFeatures = &disabled;
      features.pNext = &messenger;
      info.pNext = &features;
    }
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &kValidationLayer;
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
  } else if (validation) {
    std::fprintf(stderr, "warning: %s is not installed: the replay runs without validation\n", kValidationLayer);
  }
  if (VkResult r = vkCreateInstance(&info, nullptr, &self->instance_); r != VK_SUCCESS)
    return device_error("no_vulkan", "vkCreateInstance failed (VkResult " + std::to_string(r) +
                                         "): is a Vulkan driver installed (VK_DRIVER_FILES)?");
  if (layer) {
    messenger.pNext = nullptr;
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(self->instance_, "vkCreateDebugUtilsMessengerEXT"));
    self->destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(self->instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (!create_messenger || !self->destroy_messenger_)
      return device_error("no_debug_utils", "the validation layer offers no debug-utils messenger");
    if (VkResult r = create_messenger(self->instance_, &messenger, nullptr, &self->messenger_); r != VK_SUCCESS)
      return vulkan_error("vkCreateDebugUtilsMessengerEXT", r);
  }

  uint32_t count = 0;
  vkEnumeratePhysicalDevices(self->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count == 0 || vkEnumeratePhysicalDevices(self->instance_, &count, devices.data()) < 0)
    return device_error("no_device", "no Vulkan device found");
  const std::string wanted = lower(device.empty() ? "llvmpipe" : device);
  std::string names;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    names += std::string(names.empty() ? "" : ", ") + "\"" + p.deviceName + "\"";
    if (!self->physical_ && lower(p.deviceName).find(wanted) != std::string::npos) {
      self->physical_ = d;
      self->properties_ = p;
    }
  }
  if (!self->physical_ && device.empty()) {  // no lavapipe: the first device
    self->physical_ = devices[0];
    vkGetPhysicalDeviceProperties(devices[0], &self->properties_);
  }
  if (!self->physical_)
    return device_error("no_such_device", "no Vulkan device name contains \"" + device + "\" (there are: " + names + ")");
  return self;
}

VulkanInstance::~VulkanInstance() {
  if (messenger_) destroy_messenger_(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Result<std::unique_ptr<VulkanDevice>> VulkanDevice::create(const VulkanInstance& instance) {
  std::unique_ptr<VulkanDevice> self(new VulkanDevice());
  self->physical_ = instance.physical_device();
  self->properties_ = instance.properties();
  vkGetPhysicalDeviceMemoryProperties(self->physical_, &self->memory_);
  const std::string name = self->properties_.deviceName;

  VkPhysicalDeviceDynamicRenderingFeatures dynamic_rendering{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES};
  VkPhysicalDeviceFeatures2 supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  supported.pNext = &dynamic_rendering;
  vkGetPhysicalDeviceFeatures2(self->physical_, &supported);
  if (!dynamic_rendering.dynamicRendering)
    return device_error("no_dynamic_rendering", "Vulkan device \"" + name +
                                                    "\" has no dynamic rendering (Vulkan 1.3 or VK_KHR_dynamic_rendering)");
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(self->physical_, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(self->physical_, &family_count, families.data());
  uint32_t family = 0;
  while (family < family_count && !(families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT)) ++family;
  if (family == family_count) return device_error("no_graphics_queue", "Vulkan device \"" + name + "\" has no graphics queue");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  // Host states may rasterize lines or points (polygon mode): fillModeNonSolid. Dynamic states a host may
  // declare (wide lines, depth bounds) are set to values every device accepts, so need no feature.
  self->enabled_.fillModeNonSolid = supported.features.fillModeNonSolid;
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enabled.features = self->enabled_;
  dynamic_rendering.pNext = nullptr;
  dynamic_rendering.dynamicRendering = VK_TRUE;
  enabled.pNext = &dynamic_rendering;
  const bool core_1_3 = self->properties_.apiVersion >= VK_API_VERSION_1_3;
  const char* extension = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enabled;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  if (!core_1_3) {
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &extension;
  }
  if (VkResult r = vkCreateDevice(self->physical_, &info, nullptr, &self->device_); r != VK_SUCCESS)
    return vulkan_error("vkCreateDevice", r);
  self->begin_rendering = reinterpret_cast<PFN_vkCmdBeginRenderingKHR>(
      vkGetDeviceProcAddr(self->device_, core_1_3 ? "vkCmdBeginRendering" : "vkCmdBeginRenderingKHR"));
  self->end_rendering = reinterpret_cast<PFN_vkCmdEndRenderingKHR>(
      vkGetDeviceProcAddr(self->device_, core_1_3 ? "vkCmdEndRendering" : "vkCmdEndRenderingKHR"));
  if (!self->begin_rendering || !self->end_rendering)
    return device_error("no_dynamic_rendering", "vkCmdBeginRendering is not available on \"" + name + "\"");
  vkGetDeviceQueue(self->device_, family, 0, &self->queue_);

  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = family;
  if (VkResult r = vkCreateCommandPool(self->device_, &pool, nullptr, &self->command_pool_); r != VK_SUCCESS)
    return vulkan_error("vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = self->command_pool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  if (VkResult r = vkAllocateCommandBuffers(self->device_, &allocate, &self->command_buffer_); r != VK_SUCCESS)
    return vulkan_error("vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (VkResult r = vkCreateFence(self->device_, &fence, nullptr, &self->fence_); r != VK_SUCCESS)
    return vulkan_error("vkCreateFence", r);
  pin_loaded_libraries();
  return self;
}

VulkanDevice::~VulkanDevice() {
  if (!device_) return;
  vkDeviceWaitIdle(device_);
  if (fence_) vkDestroyFence(device_, fence_, nullptr);
  if (command_pool_) vkDestroyCommandPool(device_, command_pool_, nullptr);
  vkDestroyDevice(device_, nullptr);
}

uint32_t VulkanDevice::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & required) == required) return i;
  return UINT32_MAX;
}

Status VulkanDevice::begin_commands() const {
  if (VkResult r = vkResetCommandBuffer(command_buffer_, 0); r != VK_SUCCESS) return vulkan_error("vkResetCommandBuffer", r);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = vkBeginCommandBuffer(command_buffer_, &begin); r != VK_SUCCESS)
    return vulkan_error("vkBeginCommandBuffer", r);
  return ok_status();
}

Status VulkanDevice::submit_and_wait(double* ms) const {
  if (VkResult r = vkEndCommandBuffer(command_buffer_); r != VK_SUCCESS) return vulkan_error("vkEndCommandBuffer", r);
  const auto start = std::chrono::steady_clock::now();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  if (VkResult r = vkQueueSubmit(queue_, 1, &submit, fence_); r != VK_SUCCESS) return vulkan_error("vkQueueSubmit", r);
  if (VkResult r = vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX); r != VK_SUCCESS)
    return vulkan_error("vkWaitForFences", r);
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (VkResult r = vkResetFences(device_, 1, &fence_); r != VK_SUCCESS) return vulkan_error("vkResetFences", r);
  return ok_status();
}

}  // namespace shaderbake::replay
