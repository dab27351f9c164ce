/* SPDX-License-Identifier: MIT */
/*
 * bundle_client: the smallest real client of a shaderbake bundle, in plain C99.
 *
 * It does what a renderer does at a draw, through the runtime headers only (runtime_loader/shaderbake.h, the
 * nv2a guest's shaderbake_nv2a.h and the Vulkan helpers of shaderbake_vulkan.h): for every key line of a
 * `shaderbake-keys/1` file (written by `shaderbake dedupe --keys`; samples/client/README.md) it builds the
 * exact pipeline key, probes the bundle, falls back to the ubershader route when admission allows it, and
 * otherwise reports an explicit miss with its reason. Every distinct pipeline entry it hits is created once
 * on Vulkan (lavapipe by default) under the Khronos validation layer; every warning or error the layer (or
 * the loader) reports is printed and counted.
 *
 * Exit codes, as the shaderbake CLI's: 0 every hit pipeline was created and no validation message was
 * reported (misses are normal answers, not failures); 1 a pipeline failed, a message was reported or a probe
 * met a damaged bundle record;
 * 2 usage; 3 bad input (bundle or key file); 4 no usable Vulkan device.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, clock_gettime */

#define SHADERBAKE_IMPLEMENTATION
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake_vulkan.h" /* includes vulkan/vulkan.h */

enum { EXIT_FAILURES = 1, EXIT_USAGE = 2, EXIT_BAD_INPUT = 3, EXIT_DEVICE = 4 };

/* ---- route selection: what a renderer runs at a draw ------------------------------------------------ */

/* Why no route serves a (program, host) pair, from the exact route's point of view. The fallback route's
 * reason (admission, or no ubershader pipeline for this host state) is reported next to it. */
typedef enum miss_reason {
  MISS_NOT_CAPTURED,      /* the bundle has no specialization record: no trace it was built from drew it */
  MISS_GENERATION_FAILED, /* recorded, but the exact emitter could not generate its shader */
  MISS_COMPILE_FAILED,    /* recorded, but its shader did not compile or validate */
  MISS_NO_HOST_PIPELINE,  /* the exact module exists, but no recipe for this host state */
  MISS_BUNDLE_CORRUPT,    /* a probe met a damaged record */
  MISS_REASON_COUNT
} miss_reason;

static const char* const kMissNames[MISS_REASON_COUNT] = {"not_captured", "generation_failed", "compile_failed",
                                                          "no_pipeline_for_host_state", "bundle_corrupt"};

typedef struct route_choice {
  int route;                            /* SBK_ROUTE_EXACT, SBK_ROUTE_FALLBACK, or 0 for a miss */
  sbk_entry pipeline;                   /* the hit pipeline entry */
  uint8_t packet[SBK_NV2A_PACKET_SIZE]; /* fallback: the static controls the ubershader reads at binding 5 */
  miss_reason reason;
  sbk_nv2a_reason admission;
  const char* where; /* where admission found its problem ("stage 1"), or NULL */
} route_choice;

/* Probes one pipeline key. A damaged record is a miss as well, but remembered: a renderer logs it. */
static int probe(const sbk_bundle* bundle, const uint8_t* key, size_t size, sbk_entry* entry, int* corrupt) {
  const sbk_result r = sbk_bundle_find(bundle, key, size, entry);
  if (r == SBK_ERROR_CORRUPT) *corrupt = 1;
  return r == SBK_OK && entry->kind == SBK_KEY_KIND_PIPELINE;
}

static int try_exact(const sbk_bundle* bundle, const uint8_t* exact_key, const sbk_host_state* host, route_choice* out,
                     int* corrupt) {
  uint8_t key[SBK_PIPELINE_KEY_MAX_SIZE(SBK_NV2A_EXACT_KEY_SIZE)];
  size_t size = 0;
  if (sbk_encode_pipeline_key(SBK_ROUTE_EXACT, exact_key, SBK_NV2A_EXACT_KEY_SIZE, host, key, sizeof key, &size) !=
          SBK_OK ||
      !probe(bundle, key, size, &out->pipeline, corrupt))
    return 0;
  out->route = SBK_ROUTE_EXACT;
  return 1;
}

static int try_fallback(const sbk_bundle* bundle, const sbk_nv2a_program* program, const sbk_host_state* host,
                        route_choice* out, int* corrupt) {
  uint8_t family[SBK_NV2A_FAMILY_KEY_SIZE];
  uint8_t key[SBK_PIPELINE_KEY_MAX_SIZE(SBK_NV2A_FAMILY_KEY_SIZE)];
  size_t size = 0;
  if (out->admission != SBK_NV2A_OK) return 0; /* fail-closed: a rejected program never takes this route */
  sbk_nv2a_encode_family_key(program, family);
  if (sbk_encode_pipeline_key(SBK_ROUTE_FALLBACK, family, sizeof family, host, key, sizeof key, &size) != SBK_OK ||
      !probe(bundle, key, size, &out->pipeline, corrupt))
    return 0;
  sbk_nv2a_encode_packet(program, out->packet); /* uploaded next to the draw's dynamic block */
  out->route = SBK_ROUTE_FALLBACK;
  return 1;
}

/* Exact first, then fallback (+ packet), then an explicit miss with a reason. With
 * prefer_fallback an admitted program tries its family's ubershader first: a renderer that wants few
 * pipelines does that, and it is how this sample creates every fallback pipeline of a bundle. */
static void select_route(const sbk_bundle* bundle, const uint8_t exact_key[SBK_NV2A_EXACT_KEY_SIZE],
                         const sbk_host_state* host, int prefer_fallback, route_choice* out) {
  sbk_nv2a_program program;
  sbk_entry spec;
  int corrupt = 0;
  sbk_result r;
  memset(out, 0, sizeof *out);
  /* A renderer has the program in hand; here the key line is all there is, and the exact key decodes to
   * the normalised program it was encoded from (checked when the line was read). */
  if (sbk_nv2a_decode_exact_key(exact_key, &program) != SBK_OK) return;
  out->admission = sbk_nv2a_admit_draw(&program, host, &out->where);
  if (prefer_fallback
          ? try_fallback(bundle, &program, host, out, &corrupt) || try_exact(bundle, exact_key, host, out, &corrupt)
          : try_exact(bundle, exact_key, host, out, &corrupt) || try_fallback(bundle, &program, host, out, &corrupt))
    return;
  /* A miss: the specialization record says why the exact route has nothing. */
  r = sbk_bundle_find(bundle, exact_key, SBK_NV2A_EXACT_KEY_SIZE, &spec);
  if (corrupt || r == SBK_ERROR_CORRUPT)
    out->reason = MISS_BUNDLE_CORRUPT;
  else if (r != SBK_OK || spec.kind != SBK_KEY_KIND_EXACT)
    out->reason = MISS_NOT_CAPTURED;
  else if (spec.status == SBK_STATUS_GENERATION_FAILED)
    out->reason = MISS_GENERATION_FAILED;
  else if (spec.status == SBK_STATUS_COMPILE_FAILED)
    out->reason = MISS_COMPILE_FAILED;
  else
    out->reason = MISS_NO_HOST_PIPELINE;
}

/* ---- Vulkan ------------------------------------------------------------------------------------------ */

typedef struct vk_context {
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
  VkPhysicalDevice physical;
  VkDevice device;
  char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  int validation;         /* the Khronos layer is on */
  unsigned long messages; /* warnings and errors reported by the layer or the loader */
} vk_context;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  vk_context* vk = (vk_context*)user;
  (void)types;
  ++vk->messages;
  fprintf(stderr, "validation %s: [%s] %s\n",
          (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
          data && data->pMessageIdName ? data->pMessageIdName : "-", data && data->pMessage ? data->pMessage : "");
  return VK_FALSE; /* never abort the call that triggered it */
}

static int has_layer(const char* name) {
  VkLayerProperties layers[64];
  uint32_t i, count = 64;
  if (vkEnumerateInstanceLayerProperties(&count, layers) < 0) return 0;
  for (i = 0; i < count; ++i)
    if (strcmp(layers[i].layerName, name) == 0) return 1;
  return 0;
}

static int has_extension(const char* layer, const char* name) {
  VkExtensionProperties extensions[128];
  uint32_t i, count = 128;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, extensions) < 0) return 0;
  for (i = 0; i < count; ++i)
    if (strcmp(extensions[i].extensionName, name) == 0) return 1;
  return 0;
}

static int contains_nocase(const char* text, const char* part) {
  size_t i, j, n = strlen(text), m = strlen(part);
  for (i = 0; i + m <= n; ++i) {
    for (j = 0; j < m && tolower((unsigned char)text[i + j]) == tolower((unsigned char)part[j]); ++j) continue;
    if (j == m) return 1;
  }
  return 0;
}

/* Instance (validation layer + messenger when installed), the named device and a logical device with
 * dynamic rendering, which the recipes' create infos use instead of render passes. 0 or an exit code. */
static int vk_open(vk_context* vk, const char* wanted) {
  static const char* const kLayer = "VK_LAYER_KHRONOS_validation";
  const char* extensions[2];
  uint32_t extension_count = 0, api = VK_API_VERSION_1_1, i, count = 16;
  VkPhysicalDevice devices[16];
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  VkDebugUtilsMessengerCreateInfoEXT messenger = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  /* The layer keeps a shader validation cache in ~/.cache: off, so that runs are hermetic. */
  const VkValidationFeatureDisableEXT disabled = VK_VALIDATION_FEATURE_DISABLE_SHADER_VALIDATION_CACHE_EXT;
  VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
  VkResult result;

  vkEnumerateInstanceVersion(&api);
  app.pApplicationName = "shaderbake bundle_client";
  app.apiVersion = api < VK_API_VERSION_1_3 ? api : VK_API_VERSION_1_3;
  info.pApplicationInfo = &app;
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  messenger.pUserData = vk;
  vk->validation = has_layer(kLayer) && has_extension(kLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (vk->validation) {
    extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    info.pNext = &messenger; /* chained: instance creation and destruction are covered too */
    if (has_extension(kLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions[extension_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
      features.disabledValidationFeatureCount = 1;
      features.pDisabledValidationFeatures = &disabled;
      features.pNext = &messenger;
      info.pNext = &features;
    }
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &kLayer;
    info.enabledExtensionCount = extension_count;
    info.ppEnabledExtensionNames = extensions;
  } else {
    fprintf(stderr, "warning: %s is not installed: pipelines are created without validation\n", kLayer);
  }
  if ((result = vkCreateInstance(&info, NULL, &vk->instance)) != VK_SUCCESS) {
    fprintf(stderr, "error: vkCreateInstance failed (VkResult %d): is a Vulkan driver installed?\n", (int)result);
    return EXIT_DEVICE;
  }
  if (vk->validation) {
    messenger.pNext = NULL;
    create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
    vk->destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (!create_messenger || !vk->destroy_messenger ||
        create_messenger(vk->instance, &messenger, NULL, &vk->messenger) != VK_SUCCESS) {
      fprintf(stderr, "error: cannot create the debug-utils messenger\n");
      return EXIT_DEVICE;
    }
  }

  /* The device: the first whose name contains `wanted`; by default lavapipe, else the first device. */
  if (vkEnumeratePhysicalDevices(vk->instance, &count, devices) < 0 || count == 0) {
    fprintf(stderr, "error: no Vulkan device found\n");
    return EXIT_DEVICE;
  }
  for (i = count; i-- > 0;) { /* backwards: the first match wins */
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(devices[i], &properties);
    if (contains_nocase(properties.deviceName, wanted ? wanted : "llvmpipe") || (!wanted && !vk->physical && i == 0)) {
      vk->physical = devices[i];
      memcpy(vk->device_name, properties.deviceName, sizeof vk->device_name);
    }
  }
  if (!vk->physical) {
    fprintf(stderr, "error: no Vulkan device name contains \"%s\" (case-insensitive)\n", wanted);
    return EXIT_DEVICE;
  }
  if (!wanted && !contains_nocase(vk->device_name, "llvmpipe"))
    fprintf(stderr, "warning: no lavapipe (llvmpipe) device: using \"%s\"\n", vk->device_name);

  {
    /* Dynamic rendering: core in 1.3 (the feature still has to be enabled), else VK_KHR_dynamic_rendering. */
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceDynamicRenderingFeatures dynamic_rendering = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES};
    VkPhysicalDeviceFeatures2 supported = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceFeatures2 enabled = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkQueueFamilyProperties families[16];
    uint32_t family_count = 16, family = 0;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    const char* device_extension = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
    vkGetPhysicalDeviceProperties(vk->physical, &properties);
    supported.pNext = &dynamic_rendering;
    vkGetPhysicalDeviceFeatures2(vk->physical, &supported);
    if (!dynamic_rendering.dynamicRendering) {
      fprintf(stderr, "error: Vulkan device \"%s\" has no dynamic rendering (Vulkan 1.3 or VK_KHR_dynamic_rendering)\n",
              vk->device_name);
      return EXIT_DEVICE;
    }
    vkGetPhysicalDeviceQueueFamilyProperties(vk->physical, &family_count, families);
    while (family < family_count && !(families[family].queueFlags & VK_QUEUE_GRAPHICS_BIT)) ++family;
    if (family == family_count) {
      fprintf(stderr, "error: Vulkan device \"%s\" has no graphics queue\n", vk->device_name);
      return EXIT_DEVICE;
    }
    queue.queueFamilyIndex = family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    /* Recipes may rasterize lines or points (polygon mode), which needs fillModeNonSolid. */
    enabled.features.fillModeNonSolid = supported.features.fillModeNonSolid;
    dynamic_rendering.pNext = NULL;
    dynamic_rendering.dynamicRendering = VK_TRUE;
    enabled.pNext = &dynamic_rendering;
    device_info.pNext = &enabled;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    if (properties.apiVersion < VK_API_VERSION_1_3 || app.apiVersion < VK_API_VERSION_1_3) {
      device_info.enabledExtensionCount = 1;
      device_info.ppEnabledExtensionNames = &device_extension;
    }
    if ((result = vkCreateDevice(vk->physical, &device_info, NULL, &vk->device)) != VK_SUCCESS) {
      fprintf(stderr, "error: vkCreateDevice on \"%s\" failed (VkResult %d)\n", vk->device_name, (int)result);
      return EXIT_DEVICE;
    }
  }
  return 0;
}

static void vk_close(vk_context* vk) {
  if (vk->device) vkDestroyDevice(vk->device, NULL);
  if (vk->messenger) vk->destroy_messenger(vk->instance, vk->messenger, NULL);
  if (vk->instance) vkDestroyInstance(vk->instance, NULL);
}

/* ---- creating what the bundle's recipes describe, once each ------------------------------------------ */

typedef struct creator {
  const sbk_bundle* bundle;
  VkDevice device;
  void* zstd;                         /* one decompression context, reused for every module */
  VkShaderModule* modules;            /* per module index: created on first use, shared by pipelines */
  VkDescriptorSetLayout* set_layouts; /* per layout index */
  VkPipelineLayout* layouts;
  VkPipeline* pipelines; /* per bundle entry index: each pipeline entry is created once */
  unsigned char* tried;  /* per bundle entry index: a failed creation is not retried either */
  unsigned long pipelines_created, pipeline_failures, modules_created;
  double create_seconds, slowest_seconds; /* vkCreateGraphicsPipelines only: what a hitch would cost */
} creator;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int module_of(creator* c, uint32_t index, VkShaderModule* out) {
  sbk_module_info info;
  VkShaderModuleCreateInfo create = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  uint32_t* code;
  size_t size = 0;
  sbk_result r;
  if (c->modules[index] != VK_NULL_HANDLE) {
    *out = c->modules[index];
    return 1;
  }
  /* The entry states the raw size: decompress straight into a buffer of that size (uint32_t-aligned). */
  if ((r = sbk_bundle_module_info(c->bundle, index, &info)) != SBK_OK || (code = malloc(info.raw_size)) == NULL) {
    fprintf(stderr, "error: module %u: %s\n", index, sbk_result_name(r));
    return 0;
  }
  r = sbk_bundle_read_module(c->bundle, index, code, info.raw_size, &size, c->zstd);
  create.codeSize = size;
  create.pCode = code;
  if (r != SBK_OK || vkCreateShaderModule(c->device, &create, NULL, &c->modules[index]) != VK_SUCCESS) {
    fprintf(stderr, "error: module %u: %s\n", index, r != SBK_OK ? sbk_result_name(r) : "vkCreateShaderModule failed");
    free(code);
    return 0;
  }
  free(code);
  ++c->modules_created;
  *out = c->modules[index];
  return 1;
}

static int layout_of(creator* c, uint32_t index, VkPipelineLayout* out) {
  sbk_layout layout;
  VkDescriptorSetLayoutBinding bindings[SBK_MAX_LAYOUT_BINDINGS];
  VkDescriptorSetLayoutCreateInfo set_info;
  VkPipelineLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPushConstantRange push;
  if (c->layouts[index] != VK_NULL_HANDLE) {
    *out = c->layouts[index];
    return 1;
  }
  if (sbk_bundle_layout(c->bundle, index, &layout) != SBK_OK) {
    fprintf(stderr, "error: layout %u is corrupt\n", index);
    return 0;
  }
  sbk_vk_fill_set_layout(&layout, bindings, &set_info);
  if (vkCreateDescriptorSetLayout(c->device, &set_info, NULL, &c->set_layouts[index]) != VK_SUCCESS) return 0;
  info.setLayoutCount = 1;
  info.pSetLayouts = &c->set_layouts[index];
  if (layout.push_constant_size != 0) {
    push.stageFlags = layout.push_constant_stages;
    push.offset = 0;
    push.size = layout.push_constant_size;
    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &push;
  }
  if (vkCreatePipelineLayout(c->device, &info, NULL, &c->layouts[index]) != VK_SUCCESS) return 0;
  *out = c->layouts[index];
  return 1;
}

/* Creates the pipeline of a hit entry unless an earlier line did. */
static void create_pipeline(creator* c, const sbk_entry* entry) {
  sbk_host_state host;
  VkShaderModule vertex, fragment;
  VkPipelineLayout layout;
  sbk_vk_pipeline_storage storage;
  VkGraphicsPipelineCreateInfo info;
  VkResult result;
  double start, seconds;
  if (c->tried[entry->index]) return;
  c->tried[entry->index] = 1;
  if (sbk_bundle_entry_host_state(c->bundle, entry->index, &host) != SBK_OK ||
      !module_of(c, entry->vertex_module, &vertex) || !module_of(c, entry->fragment_module, &fragment) ||
      !layout_of(c, entry->layout, &layout)) {
    fprintf(stderr, "error: pipeline entry %u: its key, modules or layout cannot be used\n", entry->index);
    ++c->pipeline_failures;
    return;
  }
  sbk_vk_fill_pipeline(&host, vertex, fragment, layout, &storage, &info);
  start = now_seconds();
  result = vkCreateGraphicsPipelines(c->device, VK_NULL_HANDLE, 1, &info, NULL, &c->pipelines[entry->index]);
  seconds = now_seconds() - start;
  c->create_seconds += seconds;
  if (seconds > c->slowest_seconds) c->slowest_seconds = seconds;
  if (result != VK_SUCCESS) {
    fprintf(stderr, "error: pipeline entry %u: vkCreateGraphicsPipelines failed (VkResult %d)\n", entry->index,
            (int)result);
    c->pipelines[entry->index] = VK_NULL_HANDLE;
    ++c->pipeline_failures;
    return;
  }
  ++c->pipelines_created;
}

static void creator_destroy(creator* c) {
  uint32_t i;
  for (i = 0; c->pipelines && i < sbk_bundle_entry_count(c->bundle); ++i)
    if (c->pipelines[i]) vkDestroyPipeline(c->device, c->pipelines[i], NULL);
  for (i = 0; c->layouts && i < sbk_bundle_layout_count(c->bundle); ++i) {
    if (c->layouts[i]) vkDestroyPipelineLayout(c->device, c->layouts[i], NULL);
    if (c->set_layouts[i]) vkDestroyDescriptorSetLayout(c->device, c->set_layouts[i], NULL);
  }
  for (i = 0; c->modules && i < sbk_bundle_module_count(c->bundle); ++i)
    if (c->modules[i]) vkDestroyShaderModule(c->device, c->modules[i], NULL);
  free(c->pipelines);
  free(c->tried);
  free(c->layouts);
  free(c->set_layouts);
  free(c->modules);
  if (c->zstd) ZSTD_freeDCtx((ZSTD_DCtx*)c->zstd);
}

/* ---- the key file ------------------------------------------------------------------------------------ */

/* Reads `digits` hex digits into bytes. 0 unless every character is a hex digit and the count is even. */
static int parse_hex(const char* text, size_t digits, uint8_t* out, size_t capacity, size_t* size) {
  size_t i;
  if (digits % 2 != 0 || digits / 2 > capacity) return 0;
  for (i = 0; i < digits; i += 2) {
    int hi = isxdigit((unsigned char)text[i]), lo = isxdigit((unsigned char)text[i + 1]);
    char pair[3];
    if (!hi || !lo) return 0;
    pair[0] = text[i];
    pair[1] = text[i + 1];
    pair[2] = '\0';
    out[i / 2] = (uint8_t)strtoul(pair, NULL, 16);
  }
  *size = digits / 2;
  return 1;
}

/* Splits the next space-separated field off *p; returns its length (0 at the end of the line). */
static size_t next_field(const char** p, const char** start) {
  size_t n;
  *p += strspn(*p, " \t");
  *start = *p;
  n = strcspn(*p, " \t\r\n");
  *p += n;
  return n;
}

/* One key line: '<frame> <exact key hex> <canonical host state hex>'. 0 when it is malformed. */
static int parse_line(const char* text, long long* frame, uint8_t exact_key[SBK_NV2A_EXACT_KEY_SIZE],
                      sbk_host_state* host) {
  uint8_t host_bytes[SBK_HOST_STATE_MAX_SIZE];
  const char *p = text, *field;
  size_t n, size = 0, consumed = 0;
  sbk_nv2a_program program;
  char* end;
  if ((n = next_field(&p, &field)) == 0) return 0;
  *frame = strtoll(field, &end, 10);
  if (end != field + n) return 0;
  n = next_field(&p, &field);
  if (!parse_hex(field, n, exact_key, SBK_NV2A_EXACT_KEY_SIZE, &size) || size != SBK_NV2A_EXACT_KEY_SIZE ||
      sbk_nv2a_decode_exact_key(exact_key, &program) != SBK_OK)
    return 0;
  n = next_field(&p, &field);
  if (n == 0 || !parse_hex(field, n, host_bytes, sizeof host_bytes, &size) || next_field(&p, &field) != 0) return 0;
  /* Canonical bytes only: the decoder refuses anything the encoder would not have written. */
  return sbk_decode_host_state(host_bytes, size, host, &consumed) == SBK_OK && consumed == size;
}

static void print_key_hash(FILE* out, const uint8_t* key, size_t size) {
  const sbk_key_hash h = sbk_hash_key(key, size);
  fprintf(out, "%016llx%016llx", (unsigned long long)h.high, (unsigned long long)h.low);
}

/* ---- main -------------------------------------------------------------------------------------------- */

static int usage(void) {
  fprintf(stderr,
          "usage: bundle_client BUNDLE KEYS [--device SUBSTRING] [--prefer-fallback] [--json]\n"
          "  BUNDLE  a .sbk bundle (shaderbake build)\n"
          "  KEYS    a shaderbake-keys/1 file (shaderbake dedupe --keys)\n"
          "  --device SUBSTRING  Vulkan device whose name contains it (default: llvmpipe, i.e. lavapipe)\n"
          "  --prefer-fallback   admitted programs try their family's ubershader pipeline first\n"
          "  --json              print the summary (and every miss) as one JSON object\n");
  return EXIT_USAGE;
}

int main(int argc, char** argv) {
  const char *bundle_path = NULL, *keys_path = NULL, *device = NULL;
  int json = 0, prefer_fallback = 0, i, code = 0;
  unsigned long line_number = 0, lines = 0, bad_lines = 0, exact_hits = 0, fallback_hits = 0, misses = 0;
  unsigned long by_reason[MISS_REASON_COUNT] = {0}, rejected_misses = 0;
  unsigned long exact_hits_rejected = 0, exact_pipelines_created = 0; /* exact hits of programs admission refuses */
  char text[4096];
  sbk_bundle bundle;
  sbk_result r;
  vk_context vk;
  creator c;
  FILE* keys;

  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      device = argv[++i];
    else if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--prefer-fallback") == 0)
      prefer_fallback = 1;
    else if (argv[i][0] == '-')
      return usage();
    else if (!bundle_path)
      bundle_path = argv[i];
    else if (!keys_path)
      keys_path = argv[i];
    else
      return usage();
  }
  if (!keys_path) return usage();

  /* Mesa's disk cache would make a second run measure cache hits and write into the home directory: keep
   * every run cold and hermetic, unless the caller chose a cache directory. Before any Vulkan call. */
  if (!getenv("MESA_SHADER_CACHE_DIR")) setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);

  if ((r = sbk_bundle_open_file(&bundle, bundle_path)) != SBK_OK) {
    fprintf(stderr, "error: %s: %s\n", bundle_path, sbk_result_name(r));
    return r == SBK_ERROR_IO ? EXIT_USAGE : EXIT_BAD_INPUT;
  }
  /* Open checks the format; the keys must be nv2a keys of the schema this client computes. */
  if ((r = sbk_nv2a_check_bundle(&bundle)) != SBK_OK) {
    fprintf(stderr, "error: %s: %s\n", bundle_path, sbk_result_name(r));
    sbk_bundle_close(&bundle);
    return EXIT_BAD_INPUT;
  }
  /* Once, before any module is read: every read then decodes with the digested dictionary. */
  if ((r = sbk_bundle_prepare_dictionary(&bundle)) != SBK_OK) {
    fprintf(stderr, "error: %s: dictionary: %s\n", bundle_path, sbk_result_name(r));
    sbk_bundle_close(&bundle);
    return EXIT_BAD_INPUT;
  }
  if ((keys = fopen(keys_path, "r")) == NULL) {
    fprintf(stderr, "error: %s: cannot open the key file\n", keys_path);
    sbk_bundle_close(&bundle);
    return EXIT_USAGE;
  }
  memset(&vk, 0, sizeof vk);
  memset(&c, 0, sizeof c);
  if ((code = vk_open(&vk, device)) != 0) goto done;
  c.bundle = &bundle;
  c.device = vk.device;
  c.zstd = ZSTD_createDCtx();
  c.modules = calloc(sbk_bundle_module_count(&bundle) + 1u, sizeof *c.modules);
  c.set_layouts = calloc(sbk_bundle_layout_count(&bundle) + 1u, sizeof *c.set_layouts);
  c.layouts = calloc(sbk_bundle_layout_count(&bundle) + 1u, sizeof *c.layouts);
  c.pipelines = calloc(sbk_bundle_entry_count(&bundle) + 1u, sizeof *c.pipelines);
  c.tried = calloc(sbk_bundle_entry_count(&bundle) + 1u, 1);
  if (!c.zstd || !c.modules || !c.set_layouts || !c.layouts || !c.pipelines || !c.tried) {
    fprintf(stderr, "error: out of memory\n");
    code = EXIT_FAILURES;
    goto done;
  }
  if (json) printf("{\n  \"misses\": [");

  while (fgets(text, sizeof text, keys) != NULL) {
    uint8_t exact_key[SBK_NV2A_EXACT_KEY_SIZE];
    long long frame = 0;
    sbk_host_state host;
    route_choice choice;
    ++line_number;
    if (strchr(text, '\n') == NULL && !feof(keys)) {
      fprintf(stderr, "error: %s:%lu: line too long\n", keys_path, line_number);
      ++bad_lines;
      while (fgets(text, sizeof text, keys) != NULL && strchr(text, '\n') == NULL) continue;
      continue;
    }
    if (text[0] == '#' || text[strspn(text, " \t\r\n")] == '\0') continue; /* comments, blank lines */
    if (!parse_line(text, &frame, exact_key, &host)) {
      fprintf(stderr,
              "error: %s:%lu: expected '<frame> <nv2a exact key: %d bytes in hex> <canonical host state in hex>'\n",
              keys_path, line_number, SBK_NV2A_EXACT_KEY_SIZE);
      ++bad_lines;
      continue;
    }
    ++lines;
    select_route(&bundle, exact_key, &host, prefer_fallback, &choice);
    if (choice.route != 0) {
      const unsigned long created_before = c.pipelines_created;
      if (choice.route == SBK_ROUTE_EXACT) {
        ++exact_hits;
        if (choice.admission != SBK_NV2A_OK) ++exact_hits_rejected;
      } else {
        ++fallback_hits;
      }
      create_pipeline(&c, &choice.pipeline);
      if (choice.route == SBK_ROUTE_EXACT) exact_pipelines_created += c.pipelines_created - created_before;
      continue;
    }
    /* A miss is a normal answer: the renderer would compile this one at run time. Say why. */
    ++misses;
    ++by_reason[choice.reason];
    if (choice.admission != SBK_NV2A_OK) ++rejected_misses;
    if (json) {
      printf("%s\n    {\"line\": %lu, \"frame\": %lld, \"exact_key\": \"", misses > 1 ? "," : "", line_number, frame);
      print_key_hash(stdout, exact_key, sizeof exact_key);
      printf("\", \"reason\": \"%s\", \"admission\": \"%s\"}", kMissNames[choice.reason],
             choice.admission == SBK_NV2A_OK ? "admitted" : sbk_nv2a_reason_name(choice.admission));
    } else {
      printf("miss: %s:%lu frame %lld exact key ", keys_path, line_number, frame);
      print_key_hash(stdout, exact_key, sizeof exact_key);
      printf(": %s; fallback: %s%s%s\n", kMissNames[choice.reason],
             choice.admission == SBK_NV2A_OK ? "no ubershader pipeline for this host state"
                                             : sbk_nv2a_reason_name(choice.admission),
             choice.where ? " at " : "", choice.where ? choice.where : "");
    }
  }
  if (ferror(keys)) {
    fprintf(stderr, "error: %s: read error\n", keys_path);
    ++bad_lines;
  }

done:
  creator_destroy(&c);
  vk_close(&vk); /* before the summary: messages at destruction (leaks) count too */
  fclose(keys);
  sbk_bundle_close(&bundle);
  if (code != 0) return code;
  if (json) {
    printf("\n  ],\n  \"device\": \"%s\",\n  \"validation_layer\": %s,\n  \"lines\": %lu,\n  \"bad_lines\": %lu,\n",
           vk.device_name, vk.validation ? "true" : "false", lines, bad_lines);
    printf("  \"exact_hits\": %lu,\n  \"fallback_hits\": %lu,\n  \"misses_total\": %lu,\n  \"misses_by_reason\": {",
           exact_hits, fallback_hits, misses);
    for (i = 0; i < MISS_REASON_COUNT; ++i) printf("%s\"%s\": %lu", i ? ", " : "", kMissNames[i], by_reason[i]);
    printf("},\n  \"misses_rejected_by_admission\": %lu,\n", rejected_misses);
    printf("  \"exact_hits_rejected_by_admission\": %lu,\n  \"exact_pipelines_created\": %lu,\n", exact_hits_rejected,
           exact_pipelines_created);
    printf("  \"pipelines_created\": %lu,\n  \"pipeline_failures\": %lu,\n  \"modules_created\": %lu,\n",
           c.pipelines_created, c.pipeline_failures, c.modules_created);
    printf("  \"validation_messages\": %lu,\n  \"create_ms\": %.3f,\n  \"slowest_create_ms\": %.3f\n}\n", vk.messages,
           c.create_seconds * 1e3, c.slowest_seconds * 1e3);
  } else {
    printf("device: %s%s\n", vk.device_name, vk.validation ? " (VK_LAYER_KHRONOS_validation)" : " (no validation)");
    printf("lines: %lu (%lu bad)\nexact hits: %lu\nfallback hits: %lu\nmisses: %lu", lines, bad_lines, exact_hits,
           fallback_hits, misses);
    for (i = 0; i < MISS_REASON_COUNT; ++i)
      if (by_reason[i]) printf(", %s %lu", kMissNames[i], by_reason[i]);
    printf(" (%lu rejected by admission)\n", rejected_misses);
    printf("pipelines created: %lu (%lu failed) from %lu modules\n", c.pipelines_created, c.pipeline_failures,
           c.modules_created);
    printf("validation messages: %lu\n", vk.messages);
    printf("vkCreateGraphicsPipelines: %.1f ms in all, slowest %.1f ms\n", c.create_seconds * 1e3,
           c.slowest_seconds * 1e3);
  }
  if (bad_lines) return EXIT_BAD_INPUT;
  /* A damaged bundle is a failure; a miss with any other reason is a normal answer. */
  return c.pipeline_failures == 0 && vk.messages == 0 && by_reason[MISS_BUNDLE_CORRUPT] == 0 ? 0 : EXIT_FAILURES;
}
