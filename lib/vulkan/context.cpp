// SPDX-License-Identifier: MIT
#include "lib/vulkan/context.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#if defined(__SANITIZE_ADDRESS__)
#define SBK_VULKAN_PIN_LIBRARIES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SBK_VULKAN_PIN_LIBRARIES 1
#endif
#endif
#ifdef SBK_VULKAN_PIN_LIBRARIES
#include <dlfcn.h>
#include <link.h>
#endif

namespace shaderbake::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// Mesa's disk cache goes to $MESA_SHADER_CACHE_DIR, else into the home directory of the passwd entry (not
// $HOME): a test or CI run must not write there. One directory per process, made on first use and removed
// at exit; the process-wide environment is the only way to reach the driver.
class HermeticShaderCache {
 public:
  HermeticShaderCache() {
    if (std::getenv("MESA_SHADER_CACHE_DIR") != nullptr) return;
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "shaderbake-mesa-cache-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      // No temp directory: disabling the cache is hermetic too.
      ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
      return;
    }
    dir_ = pattern;
    ::setenv("MESA_SHADER_CACHE_DIR", dir_.c_str(), 1);
  }
  ~HermeticShaderCache() {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  HermeticShaderCache(const HermeticShaderCache&) = delete;
  HermeticShaderCache& operator=(const HermeticShaderCache&) = delete;

 private:
  std::string dir_;
};

void ensure_hermetic_shader_cache() { static HermeticShaderCache cache; }

#ifdef SBK_VULKAN_PIN_LIBRARIES
// AddressSanitizer builds only. The loader unloads drivers and layers at vkDestroyInstance; LeakSanitizer
// then reports their internal leaks at exit from "<unknown module>", which no suppression can match
// (tests/sanitizer/lsan.supp names the driver libraries). Marking every library loaded so far
// RTLD_NODELETE keeps them mapped, and named, until exit.
void pin_loaded_libraries() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &names);
  // dlopen takes the loader lock that dl_iterate_phdr holds: call it after the walk.
  for (const std::string& name : names) dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
#else
void pin_loaded_libraries() {}
#endif

VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* log = static_cast<Context::MessageLog*>(user);
  std::string text = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0 ? "error" : "warning";
  if (data != nullptr && data->pMessageIdName != nullptr) text += std::string(" [") + data->pMessageIdName + "]";
  if (data != nullptr && data->pMessage != nullptr) text += std::string(" ") + data->pMessage;
  std::lock_guard<std::mutex> lock(log->mutex);
  log->messages.push_back(std::move(text));
  return VK_FALSE;  // never abort the call that triggered the message
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(Context::MessageLog* log) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_debug_message;
  info.pUserData = log;
  return info;
}

bool has_layer(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) < 0) return false;
  layers.resize(count);
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& layer) { return std::strcmp(layer.layerName, name) == 0; });
}

// Whether `extension` is offered by the loader and implicit layers, or by `layer`.
bool has_instance_extension(const char* layer, const char* extension) {
  for (const char* source : {static_cast<const char*>(nullptr), layer}) {
    uint32_t count = 0;
    if (vkEnumerateInstanceExtensionProperties(source, &count, nullptr) != VK_SUCCESS) continue;
    std::vector<VkExtensionProperties> extensions(count);
    if (vkEnumerateInstanceExtensionProperties(source, &count, extensions.data()) < 0) continue;
    extensions.resize(count);
    for (const VkExtensionProperties& e : extensions) {
      if (std::strcmp(e.extensionName, extension) == 0) return true;
    }
  }
  return false;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

Result<std::unique_ptr<Context>> Context::create(const ExecutorOptions& options,
                                                 const DeviceFeatures& wanted_features) {
  if (options.hermetic_shader_cache) ensure_hermetic_shader_cache();
  std::unique_ptr<Context> context(new Context());

  // Instance. Vulkan 1.0 is all the executor needs; the validation layer reports through VK_EXT_debug_utils,
  // chained into vkCreateInstance too so that instance creation itself is covered.
  const bool validation = options.validation && has_layer(kValidationLayer) &&
                          has_instance_extension(kValidationLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "shaderbake";
  app.applicationVersion = 1;
  app.pEngineName = "shaderbake";
  app.engineVersion = 1;
  app.apiVersion = VK_API_VERSION_1_0;
  if (wanted_features.dynamic_rendering) {
    // Dynamic rendering is core in 1.3; vkGetPhysicalDeviceFeatures2 (to ask for it) in 1.1.
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < VK_API_VERSION_1_1) {
      return toolchain_error("vulkan_no_dynamic_rendering",
                             "the Vulkan loader supports only Vulkan 1.0; dynamic rendering needs 1.1 or later");
    }
    app.apiVersion = std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);
  }
  const char* layers[] = {kValidationLayer};
  std::vector<const char*> extensions = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  VkDebugUtilsMessengerCreateInfoEXT messenger_create = messenger_info(context->log_.get());
  // The layer keeps a shader validation cache in $XDG_CACHE_HOME or ~/.cache: hermetic runs turn it off.
  const VkValidationFeatureDisableEXT disabled[] = {VK_VALIDATION_FEATURE_DISABLE_SHADER_VALIDATION_CACHE_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.disabledValidationFeatureCount = 1;
  features.pDisabledValidationFeatures = disabled;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  if (validation) {
    instance_info.pNext = &messenger_create;
    if (options.hermetic_shader_cache &&
        has_instance_extension(kValidationLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      features.pNext = &messenger_create;  // messenger_create is reused alone below: keep its pNext null
      instance_info.pNext = &features;
    }
    instance_info.enabledLayerCount = 1;
    instance_info.ppEnabledLayerNames = layers;
    instance_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    instance_info.ppEnabledExtensionNames = extensions.data();
  }
  VkResult result = vkCreateInstance(&instance_info, nullptr, &context->instance_);
  if (result != VK_SUCCESS) {
    Error error = vk_call_error("vkCreateInstance", result);
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER) error.message += " (no Vulkan driver is installed or usable)";
    return error;
  }
  if (validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(context->instance_, "vkCreateDebugUtilsMessengerEXT"));
    context->destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(context->instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (create_messenger == nullptr || context->destroy_messenger_ == nullptr) {
      return toolchain_error("vulkan_call_failed", "vkGetInstanceProcAddr found no vkCreateDebugUtilsMessengerEXT");
    }
    result = create_messenger(context->instance_, &messenger_create, nullptr, &context->messenger_);
    if (result != VK_SUCCESS) return vk_call_error("vkCreateDebugUtilsMessengerEXT", result);
  }

  // Physical device, by name.
  uint32_t count = 0;
  result = vkEnumeratePhysicalDevices(context->instance_, &count, nullptr);
  if (result != VK_SUCCESS) return vk_call_error("vkEnumeratePhysicalDevices", result);
  std::vector<VkPhysicalDevice> devices(count);
  result = vkEnumeratePhysicalDevices(context->instance_, &count, devices.data());
  if (result < 0) return vk_call_error("vkEnumeratePhysicalDevices", result);
  devices.resize(count);
  if (devices.empty()) {
    return toolchain_error("vulkan_no_device", "no Vulkan device found (vkEnumeratePhysicalDevices listed none)");
  }
  std::vector<std::string> names;
  for (VkPhysicalDevice device : devices) {
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(device, &properties);
    names.emplace_back(properties.deviceName);
  }
  const std::string wanted = lower(options.device.empty() ? std::string("llvmpipe") : options.device);
  size_t chosen = names.size();
  for (size_t i = 0; i < names.size() && chosen == names.size(); ++i) {
    if (lower(names[i]).find(wanted) != std::string::npos) chosen = i;
  }
  if (chosen == names.size()) {
    if (!options.device.empty()) {
      std::string list;
      for (const std::string& name : names) list += (list.empty() ? "\"" : ", \"") + name + "\"";
      return toolchain_error("vulkan_device_not_found", "no Vulkan device name contains \"" + options.device +
                                                            "\" (case-insensitive); devices: " + list);
    }
    chosen = 0;
  }
  context->physical_device_ = devices[chosen];
  context->device_name_ = names[chosen];
  vkGetPhysicalDeviceProperties(context->physical_device_, &context->properties_);
  vkGetPhysicalDeviceMemoryProperties(context->physical_device_, &context->memory_properties_);

  // A graphics queue (graphics queues support occlusion queries and transfers).
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context->physical_device_, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(context->physical_device_, &family_count, families.data());
  families.resize(family_count);
  auto family = std::find_if(families.begin(), families.end(), [](const VkQueueFamilyProperties& f) {
    return f.queueCount > 0 && (f.queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;
  });
  if (family == families.end()) {
    return toolchain_error("vulkan_no_graphics_queue", "Vulkan device \"" + context->device_name_ +
                                                            "\" has no graphics queue");
  }
  context->queue_family_ = static_cast<uint32_t>(family - families.begin());

  // Logical device: no extensions, no optional features (imprecise occlusion queries are core), unless
  // `wanted_features` asks for some.
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = context->queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  VkPhysicalDeviceDynamicRenderingFeatures dynamic_rendering{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES};
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  const char* dynamic_rendering_extension = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
  if (wanted_features.dynamic_rendering || wanted_features.fill_mode_non_solid) {
    VkPhysicalDeviceFeatures2 supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    if (wanted_features.dynamic_rendering) {  // the instance is 1.1 or later (above)
      supported.pNext = &dynamic_rendering;
      vkGetPhysicalDeviceFeatures2(context->physical_device_, &supported);
    } else {
      vkGetPhysicalDeviceFeatures(context->physical_device_, &supported.features);
    }
    if (wanted_features.dynamic_rendering && !dynamic_rendering.dynamicRendering) {
      return toolchain_error("vulkan_no_dynamic_rendering",
                             "Vulkan device \"" + context->device_name_ +
                                 "\" has no dynamic rendering (Vulkan 1.3 or VK_KHR_dynamic_rendering)");
    }
    enabled.features.fillModeNonSolid = wanted_features.fill_mode_non_solid ? supported.features.fillModeNonSolid : VK_FALSE;
    dynamic_rendering.pNext = nullptr;
    if (wanted_features.dynamic_rendering) {
      enabled.pNext = &dynamic_rendering;
      device_info.pNext = &enabled;
    } else {  // a Vulkan 1.0 instance: no VkPhysicalDeviceFeatures2 in the chain
      device_info.pEnabledFeatures = &enabled.features;
    }
    // Below 1.3 (the device's or the instance's) the feature comes from the extension.
    if (wanted_features.dynamic_rendering &&
        (context->properties_.apiVersion < VK_API_VERSION_1_3 || app.apiVersion < VK_API_VERSION_1_3)) {
      device_info.enabledExtensionCount = 1;
      device_info.ppEnabledExtensionNames = &dynamic_rendering_extension;
    }
  }
  std::vector<const char*> device_extensions(device_info.ppEnabledExtensionNames,
                                             device_info.ppEnabledExtensionNames + device_info.enabledExtensionCount);
  if (wanted_features.extend_device) {
    device_info.pNext = wanted_features.extend_device(context->instance_, context->physical_device_,
                                                      const_cast<void*>(device_info.pNext), device_extensions);
    device_info.enabledExtensionCount = static_cast<uint32_t>(device_extensions.size());
    device_info.ppEnabledExtensionNames = device_extensions.data();
  }
  result = vkCreateDevice(context->physical_device_, &device_info, nullptr, &context->device_);
  if (result != VK_SUCCESS) return vk_call_error("vkCreateDevice", result);
  vkGetDeviceQueue(context->device_, context->queue_family_, 0, &context->queue_);
  pin_loaded_libraries();
  return context;
}

Context::~Context() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);  // nothing to do with a failure here: the device is going away
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ != VK_NULL_HANDLE) destroy_messenger_(instance_, messenger_, nullptr);
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

Result<uint32_t> Context::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                      VkMemoryPropertyFlags preferred, const char* what) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) == 0) continue;
    const VkMemoryPropertyFlags flags = memory_properties_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  if (fallback != UINT32_MAX) return fallback;
  return toolchain_error("vulkan_no_memory_type",
                         std::string("Vulkan device \"") + device_name_ + "\" has no suitable memory type for " + what);
}

Result<HostBuffer> Context::create_host_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool prefer_cached) const {
  HostBuffer out;
  out.size = size;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  auto buffer = create_object<VkBuffer>(device_, "vkCreateBuffer", vkCreateBuffer, info, vkDestroyBuffer);
  if (!buffer) return std::move(buffer).error();
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device_, buffer->get(), &requirements);
  const VkMemoryPropertyFlags required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  auto type = memory_type(requirements.memoryTypeBits, required,
                          prefer_cached ? VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_HOST_CACHED_BIT} : VkMemoryPropertyFlags{0}, "a host buffer");
  if (!type) return std::move(type).error();
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = *type;
  auto memory = create_object<VkDeviceMemory>(device_, "vkAllocateMemory", vkAllocateMemory, allocate, vkFreeMemory);
  if (!memory) return std::move(memory).error();
  VkResult result = vkBindBufferMemory(device_, buffer->get(), memory->get(), 0);
  if (result != VK_SUCCESS) return vk_call_error("vkBindBufferMemory", result);
  void* mapped = nullptr;
  result = vkMapMemory(device_, memory->get(), 0, VK_WHOLE_SIZE, 0, &mapped);
  if (result != VK_SUCCESS) return vk_call_error("vkMapMemory", result);
  out.memory = std::move(memory).value();
  out.buffer = std::move(buffer).value();
  out.mapped = static_cast<uint8_t*>(mapped);
  return out;
}

Result<DeviceObject<VkDeviceMemory>> Context::bind_image_memory(VkImage image) const {
  VkMemoryRequirements requirements;
  vkGetImageMemoryRequirements(device_, image, &requirements);
  auto type = memory_type(requirements.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "an image");
  if (!type) return std::move(type).error();
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = *type;
  auto memory = create_object<VkDeviceMemory>(device_, "vkAllocateMemory", vkAllocateMemory, allocate, vkFreeMemory);
  if (!memory) return memory;
  VkResult result = vkBindImageMemory(device_, image, memory->get(), 0);
  if (result != VK_SUCCESS) return vk_call_error("vkBindImageMemory", result);
  return memory;
}

}  // namespace shaderbake::vulkan
