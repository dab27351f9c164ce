/* SPDX-License-Identifier: MIT */
/*
 * The runtime router (runtime_loader/shaderbake_router.h) on a real Vulkan driver (lavapipe in CI), under the
 * Khronos validation layer when it is installed (any message fails the test). Compiled as C99 and, through
 * router_test.cpp, as C++17: the header is used the way a renderer of either language includes it.
 *
 * Most cases run with a scripted executor: jobs the router submits are held until the test runs them, so
 * every step of a promotion happens at a point the test chooses. One case runs the default thread pool.
 *
 * Usage: router_test BUNDLE   (a bundle whose pipelines are all of admitted nv2a programs: samples/traces/tiny.json)
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime and threads under -std=c99 */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every router allocation is counted, so a test can say "no allocation" (workers allocate too: atomically). */
static size_t g_allocations = 0;
static void* counting_calloc(size_t count, size_t size) {
  __atomic_fetch_add(&g_allocations, 1, __ATOMIC_RELAXED);
  return calloc(count, size);
}
#define SBK_ROUTER_CALLOC(count, size) counting_calloc((count), (size))
#define SBK_ROUTER_FREE(p) free(p)
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake_router.h"
#include "tests/loader/check.h"

/* ---- Vulkan: instance, validation messages, lavapipe device with the router's features ---- */

typedef struct test_vulkan {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkDebugUtilsMessengerEXT messenger;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
  sbk_router_device_support support;
  int validation;
} test_vulkan;

static unsigned g_messages = 0;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  (void)severity;
  (void)type;
  (void)user;
  ++g_messages;
  fprintf(stderr, "validation: %s\n", data && data->pMessage ? data->pMessage : "(no text)");
  return VK_FALSE;
}

static int has_layer(const char* name) {
  VkLayerProperties layers[64];
  uint32_t i, count = 64;
  if (vkEnumerateInstanceLayerProperties(&count, layers) < 0) return 0;
  for (i = 0; i < count; ++i)
    if (strcmp(layers[i].layerName, name) == 0) return 1;
  return 0;
}

static int open_vulkan(test_vulkan* vk) {
  static const char* const kLayer = "VK_LAYER_KHRONOS_validation";
  const char* instance_extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkApplicationInfo app;
  VkInstanceCreateInfo info;
  VkDebugUtilsMessengerCreateInfoEXT messenger;
  VkPhysicalDevice devices[16];
  uint32_t count = 16, i;
  memset(vk, 0, sizeof *vk);
  memset(&app, 0, sizeof app);
  memset(&info, 0, sizeof info);
  memset(&messenger, 0, sizeof messenger);
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "shaderbake router_test";
  app.apiVersion = VK_API_VERSION_1_3;
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  vk->validation = has_layer(kLayer);
  if (vk->validation) {
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &kLayer;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &instance_extension;
    info.pNext = &messenger;
  } else {
    fprintf(stderr, "warning: %s is not installed: the router runs without validation\n", kLayer);
  }
  if (vkCreateInstance(&info, NULL, &vk->instance) != VK_SUCCESS) return 0;
  if (vk->validation) {
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
    vk->destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
    if (!create || !vk->destroy_messenger || create(vk->instance, &messenger, NULL, &vk->messenger) != VK_SUCCESS)
      return 0;
  }
  if (vkEnumeratePhysicalDevices(vk->instance, &count, devices) < 0 || count == 0) return 0;
  vk->physical = devices[0];
  for (i = 0; i < count; ++i) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(devices[i], &p);
    if (strstr(p.deviceName, "llvmpipe")) vk->physical = devices[i];
  }
  sbk_router_query_support(vk->instance, vk->physical, vkGetInstanceProcAddr, &vk->support);
  {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue;
    VkDeviceCreateInfo device_info;
    VkPhysicalDeviceVulkan13Features v13;
    sbk_router_feature_chain chain;
    memset(&queue, 0, sizeof queue);
    memset(&device_info, 0, sizeof device_info);
    memset(&v13, 0, sizeof v13);
    queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    v13.dynamicRendering = VK_TRUE;
    device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.pNext = sbk_router_fill_features(&vk->support, &v13, &chain);
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    device_info.enabledExtensionCount = chain.extension_count;
    device_info.ppEnabledExtensionNames = chain.extensions;
    if (vkCreateDevice(vk->physical, &device_info, NULL, &vk->device) != VK_SUCCESS) return 0;
  }
  return 1;
}

static void close_vulkan(test_vulkan* vk) {
  if (vk->device) vkDestroyDevice(vk->device, NULL);
  if (vk->messenger) vk->destroy_messenger(vk->instance, vk->messenger, NULL);
  if (vk->instance) vkDestroyInstance(vk->instance, NULL);
}

/* ---- a scripted executor: holds jobs until the test runs them ---- */

#define SCRIPTED_CAPACITY 65536
typedef struct scripted_executor {
  sbk_job_fn fn[SCRIPTED_CAPACITY];
  void* job[SCRIPTED_CAPACITY];
  uint32_t first, count;
  int refuse;
} scripted_executor;

static int scripted_submit(void* executor, sbk_job_fn fn, void* job) {
  scripted_executor* s = (scripted_executor*)executor;
  if (s->refuse || s->first + s->count == SCRIPTED_CAPACITY) return 1;
  s->fn[s->first + s->count] = fn;
  s->job[s->first + s->count] = job;
  ++s->count;
  return 0;
}

/* Runs every held job (on this thread, in submission order). */
static uint32_t scripted_run_all(scripted_executor* s) {
  uint32_t ran = 0;
  while (s->count > 0) {
    const uint32_t i = s->first++;
    --s->count;
    s->fn[i](s->job[i]);
    ++ran;
  }
  return ran;
}

/* ---- creation hook: records what each exact pipeline was created from; fails on command ---- */

typedef struct recorded_pipeline {
  uint32_t topology, cull_mode, front_face, color_count, attribute_count, blend_enable0, depth_test;
} recorded_pipeline;

static PFN_vkCreateGraphicsPipelines g_real_create = NULL;
static int g_fail_exact = 0;
static uint32_t g_exact_creations = 0;
static recorded_pipeline g_last_exact;

static VKAPI_ATTR VkResult VKAPI_CALL hooked_create(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                    const VkGraphicsPipelineCreateInfo* infos,
                                                    const VkAllocationCallbacks* allocator, VkPipeline* out) {
  /* Only the static pipelines of the bundle's recipes have a vertex input state; the dynamic-state ones do not. */
  if (count == 1 && infos[0].pVertexInputState != NULL) {
    const VkGraphicsPipelineCreateInfo* ci = &infos[0];
    ++g_exact_creations;
    memset(&g_last_exact, 0, sizeof g_last_exact);
    g_last_exact.topology = (uint32_t)ci->pInputAssemblyState->topology;
    g_last_exact.cull_mode = (uint32_t)ci->pRasterizationState->cullMode;
    g_last_exact.front_face = (uint32_t)ci->pRasterizationState->frontFace;
    g_last_exact.color_count = ci->pColorBlendState->attachmentCount;
    g_last_exact.attribute_count = ci->pVertexInputState->vertexAttributeDescriptionCount;
    g_last_exact.blend_enable0 = ci->pColorBlendState->attachmentCount ? ci->pColorBlendState->pAttachments[0].blendEnable : 0;
    g_last_exact.depth_test = ci->pDepthStencilState ? ci->pDepthStencilState->depthTestEnable : 0;
    if (g_fail_exact) {
      out[0] = VK_NULL_HANDLE;
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
  }
  return g_real_create(device, cache, count, infos, allocator, out);
}

/* ---- the bundle's draws ---- */

#define MAX_DRAWS 64
typedef struct test_draw {
  uint8_t exact_key[SBK_NV2A_EXACT_KEY_SIZE];
  uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE];
  sbk_host_state host;
} test_draw;

static sbk_router_draw as_draw(const test_draw* d) {
  sbk_router_draw out;
  out.exact_key = d->exact_key;
  out.exact_key_size = SBK_NV2A_EXACT_KEY_SIZE;
  out.family_key = d->family_key;
  out.family_key_size = SBK_NV2A_FAMILY_KEY_SIZE;
  out.host = &d->host;
  return out;
}

/* Every exact pipeline of the bundle as a draw: its exact key, its family key (admitted programs), its host. */
static uint32_t bundle_draws(const sbk_bundle* bundle, test_draw* draws) {
  uint32_t i, n = 0;
  for (i = 0; i < sbk_bundle_entry_count(bundle) && n < MAX_DRAWS; ++i) {
    sbk_entry e;
    uint8_t route = 0;
    const uint8_t* fragment = NULL;
    size_t fragment_size = 0;
    sbk_nv2a_program program;
    uint8_t key[1024];
    size_t key_size = 0;
    if (sbk_bundle_entry_at(bundle, i, &e) != SBK_OK || e.kind != SBK_KEY_KIND_PIPELINE) continue;
    if (sbk_bundle_entry_key(bundle, i, key, sizeof key, &key_size) != SBK_OK ||
        sbk_decode_pipeline_key(key, key_size, &route, &fragment, &fragment_size, &draws[n].host) != SBK_OK ||
        route != SBK_ROUTE_EXACT || fragment_size != SBK_NV2A_EXACT_KEY_SIZE)
      continue;
    memcpy(draws[n].exact_key, fragment, SBK_NV2A_EXACT_KEY_SIZE);
    if (sbk_nv2a_decode_exact_key(fragment, &program) != SBK_OK || sbk_nv2a_admit(&program, NULL) != SBK_NV2A_OK)
      continue;
    sbk_nv2a_encode_family_key(&program, draws[n].family_key);
    ++n;
  }
  return n;
}

/* A host state no capture saw: the same attachments, every other field changed. */
static void unseen_host(const sbk_host_state* in, sbk_host_state* out) {
  *out = *in;
  out->cull_mode = in->cull_mode == VK_CULL_MODE_BACK_BIT ? VK_CULL_MODE_NONE : VK_CULL_MODE_BACK_BIT;
  out->front_face = in->front_face ? 0 : 1;
  out->topology = in->topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP ? VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST
                                                                      : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  if (out->color_count > 0) {
    out->blend[0].enable = !in->blend[0].enable;
    out->blend[0].src_color = out->blend[0].enable ? VK_BLEND_FACTOR_SRC_ALPHA : 0;
    out->blend[0].dst_color = out->blend[0].enable ? VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA : 0;
    out->blend[0].src_alpha = out->blend[0].enable ? VK_BLEND_FACTOR_ONE : 0;
    out->blend[0].dst_alpha = 0;
    out->blend[0].color_op = out->blend[0].alpha_op = 0;
  }
  if (out->binding_count > 0) out->bindings[0].stride += 16;
}

static sbk_router_desc base_desc(const test_vulkan* vk, const sbk_bundle* bundle, scripted_executor* executor) {
  sbk_router_desc d;
  memset(&d, 0, sizeof d);
  d.instance = vk->instance;
  d.physical_device = vk->physical;
  d.device = vk->device;
  d.get_instance_proc_addr = vkGetInstanceProcAddr;
  d.bundle = bundle;
  d.dynamic_state = vk->support.complete;
  d.unrestricted_topology = vk->support.unrestricted_topology;
  if (executor) {
    d.submit = scripted_submit;
    d.executor = executor;
  }
  d.create_graphics_pipelines = hooked_create;
  return d;
}

static uint32_t promotion_of(const sbk_router* router, const test_draw* d) {
  sbk_router_binding probe;
  uint32_t promotion = 99;
  const sbk_router_draw draw = as_draw(d);
  sbk_router_probe(router, &draw, &probe, &promotion);
  return promotion;
}

static sbk_router_binding resolve(sbk_router* router, const test_draw* d, sbk_router_binding* b) {
  const sbk_router_draw draw = as_draw(d);
  SBK_TEST_CHECK(sbk_router_resolve(router, &draw, b) == SBK_OK);
  return *b;
}

/* Route order, required lane, promotion by entry and generation, the adoption count budget. */
static void route_order_and_promotion(const test_vulkan* vk, const sbk_bundle* bundle, const test_draw* draws,
                                      scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_stats st;
  sbk_router_binding b0, b1, bn;
  test_draw unseen = draws[0];
  const int dynamic = desc.dynamic_state && sbk_bundle_dynamic_fallback_count(bundle) > 0;
  const uint32_t fallback_route = dynamic ? SBK_ROUTED_DYNAMIC_FALLBACK : SBK_ROUTED_FALLBACK;
  const sbk_router_promotion* promotions;
  uint32_t promotion_count = 0;
  desc.adopt_max_per_frame = 1;
  memset(&b0, 0, sizeof b0);
  memset(&b1, 0, sizeof b1);
  memset(&bn, 0, sizeof bn);
  unseen_host(&draws[0].host, &unseen.host);
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  SBK_TEST_CHECK(sbk_router_load(router) == SBK_OK);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.load_failures == 0);
  SBK_TEST_CHECK(st.fallback_pipelines > 0);
  SBK_TEST_CHECK(st.dynamic_state == (uint32_t)dynamic);
  SBK_TEST_CHECK(scripted_run_all(ex) > 0 && st.load_pipelines == st.fallback_pipelines); /* load did it all */
  g_exact_creations = 0;
  sbk_router_begin_frame(router, 0);

  /* Nothing is ready: the exact pipeline is queued once, on the required lane; the draw takes the fallback. */
  resolve(router, &draws[0], &b0);
  SBK_TEST_CHECK(b0.route == fallback_route && b0.pipeline != VK_NULL_HANDLE && b0.layout != VK_NULL_HANDLE);
  SBK_TEST_CHECK(promotion_of(router, &draws[0]) == SBK_PROMOTION_PENDING);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.queued_required == 1 && st.first_uses[fallback_route] == 1 && st.not_ready_at_demand == 1);
  resolve(router, &draws[0], &b0); /* the same binding: current, nothing queued again */
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.current == 1 && st.queued_required == 1);
  resolve(router, &draws[1], &b1);
  SBK_TEST_CHECK(b1.route == fallback_route);
  if (dynamic) {
    /* A host state no capture saw, same attachments: served by the dynamic-state fallback, nothing to promote. */
    resolve(router, &unseen, &bn);
    SBK_TEST_CHECK(bn.route == SBK_ROUTED_DYNAMIC_FALLBACK && bn.pipeline != VK_NULL_HANDLE);
    SBK_TEST_CHECK(bn.defaults_binding != UINT32_MAX);
  }
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.queued_required == 2);

  /* Workers finish both; nothing is adopted before the next frame starts. */
  SBK_TEST_CHECK(scripted_run_all(ex) == 2);
  SBK_TEST_CHECK(g_exact_creations == 2);
  SBK_TEST_CHECK(sbk_router_current(router, &b0) && sbk_router_current(router, &b1));
  /* Budget of one adoption a frame: exactly one of the two bindings goes stale, the other stays current. */
  sbk_router_begin_frame(router, 1);
  SBK_TEST_CHECK(sbk_router_current(router, &b0) != sbk_router_current(router, &b1));
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.adopted == 1);
  if (dynamic) SBK_TEST_CHECK(sbk_router_current(router, &bn)); /* unrelated completion */
  resolve(router, &draws[0], &b0);
  resolve(router, &draws[1], &b1);
  SBK_TEST_CHECK((b0.route == SBK_ROUTED_EXACT) != (b1.route == SBK_ROUTED_EXACT));
  sbk_router_begin_frame(router, 2);
  resolve(router, &draws[0], &b0);
  resolve(router, &draws[1], &b1);
  SBK_TEST_CHECK(b0.route == SBK_ROUTED_EXACT && b1.route == SBK_ROUTED_EXACT);
  SBK_TEST_CHECK(promotion_of(router, &draws[0]) == SBK_PROMOTION_READY);
  if (dynamic) SBK_TEST_CHECK(sbk_router_current(router, &bn));
  promotions = sbk_router_promotions(router, &promotion_count);
  SBK_TEST_CHECK(promotion_count == 2);
  if (promotion_count == 2) {
    SBK_TEST_CHECK(promotions[0].demand_frame == 0 && promotions[0].adopted_frame == 1);
    SBK_TEST_CHECK(promotions[1].demand_frame == 0 && promotions[1].adopted_frame == 2);
    SBK_TEST_CHECK(promotions[0].entry != promotions[1].entry);
  }
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.foreground_creations == 0 && st.worker_creations >= 2);
  scripted_run_all(ex);
  sbk_router_destroy(router);
}

/* A probe (hit or miss) changes no count, queues nothing, allocates nothing, and leaves the state as it was. */
static void probes_have_no_side_effects(const test_vulkan* vk, const sbk_bundle* bundle, const test_draw* draws,
                                        scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_stats before, after;
  sbk_router_binding out, b;
  size_t allocations;
  uint32_t held, promotion = 99;
  test_draw miss = draws[0];
  sbk_router_draw draw;
  memset(&b, 0, sizeof b);
  miss.exact_key[SBK_NV2A_EXACT_KEY_SIZE - 1] ^= 0x5a; /* no such exact key */
  miss.family_key[SBK_NV2A_FAMILY_KEY_SIZE - 1] ^= 0x5a;
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  sbk_router_load(router);
  scripted_run_all(ex);
  sbk_router_begin_frame(router, 0);
  sbk_router_stats_get(router, &before);
  allocations = __atomic_load_n(&g_allocations, __ATOMIC_RELAXED);
  held = ex->count;
  draw = as_draw(&miss);
  SBK_TEST_CHECK(sbk_router_probe(router, &draw, &out, &promotion) == SBK_OK);
  SBK_TEST_CHECK(out.route == SBK_ROUTED_UNCOVERED && out.pipeline == VK_NULL_HANDLE);
  SBK_TEST_CHECK(promotion == SBK_PROMOTION_ABSENT);
  draw = as_draw(&draws[0]);
  SBK_TEST_CHECK(sbk_router_probe(router, &draw, &out, &promotion) == SBK_OK);
  SBK_TEST_CHECK(out.route != SBK_ROUTED_UNCOVERED && promotion == SBK_PROMOTION_ABSENT);
  sbk_router_stats_get(router, &after);
  SBK_TEST_CHECK(memcmp(&before, &after, sizeof before) == 0);
  SBK_TEST_CHECK(__atomic_load_n(&g_allocations, __ATOMIC_RELAXED) == allocations);
  SBK_TEST_CHECK(ex->count == held);
  SBK_TEST_CHECK(promotion_of(router, &draws[0]) == SBK_PROMOTION_ABSENT);
  /* resolve of a current binding and of a miss allocates nothing either */
  resolve(router, &miss, &b);
  SBK_TEST_CHECK(b.route == SBK_ROUTED_UNCOVERED);
  resolve(router, &miss, &b);
  SBK_TEST_CHECK(__atomic_load_n(&g_allocations, __ATOMIC_RELAXED) == allocations);
  sbk_router_stats_get(router, &after);
  SBK_TEST_CHECK(after.current == before.current + 1 && after.resolves[SBK_ROUTED_UNCOVERED] == 1);
  scripted_run_all(ex);
  sbk_router_destroy(router);
}

/* The draw and its host state are the caller's heap memory, overwritten and freed right after the resolve that
 * queues the job: the pipeline created later is still the one of that draw's host state. */
static void job_inputs_are_deep_owned(const test_vulkan* vk, const sbk_bundle* bundle, const test_draw* draws,
                                      uint32_t draw_count, scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_binding b;
  const test_draw* original = &draws[draw_count - 1];
  test_draw* heap = (test_draw*)malloc(sizeof *heap);
  sbk_router_draw* draw = (sbk_router_draw*)malloc(sizeof *draw);
  memset(&b, 0, sizeof b);
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router || !heap || !draw) return;
  sbk_router_load(router);
  scripted_run_all(ex);
  sbk_router_begin_frame(router, 0);
  *heap = *original;
  *draw = as_draw(heap);
  SBK_TEST_CHECK(sbk_router_resolve(router, draw, &b) == SBK_OK);
  memset(heap, 0xA5, sizeof *heap);
  memset(draw, 0x5A, sizeof *draw);
  free(heap);
  free(draw);
  g_exact_creations = 0;
  SBK_TEST_CHECK(scripted_run_all(ex) == 1);
  SBK_TEST_CHECK(g_exact_creations == 1);
  SBK_TEST_CHECK(g_last_exact.topology == original->host.topology);
  SBK_TEST_CHECK(g_last_exact.cull_mode == original->host.cull_mode);
  SBK_TEST_CHECK(g_last_exact.front_face == original->host.front_face);
  SBK_TEST_CHECK(g_last_exact.color_count == original->host.color_count);
  SBK_TEST_CHECK(g_last_exact.attribute_count == original->host.attribute_count);
  SBK_TEST_CHECK(g_last_exact.depth_test == (original->host.depth_format ? original->host.depth_test : 0u));
  if (original->host.color_count) SBK_TEST_CHECK(g_last_exact.blend_enable0 == original->host.blend[0].enable);
  sbk_router_begin_frame(router, 1);
  SBK_TEST_CHECK(!sbk_router_current(router, &b));
  resolve(router, original, &b);
  SBK_TEST_CHECK(b.route == SBK_ROUTED_EXACT);
  sbk_router_destroy(router);
}

/* A full queue keeps the fallback and retries by frame, never by draw, and never compiles in the draw. */
static void queue_full_keeps_the_fallback(const test_vulkan* vk, const sbk_bundle* bundle, const test_draw* draws,
                                          scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_stats st;
  sbk_router_binding b0, b1;
  uint64_t frame;
  memset(&b0, 0, sizeof b0);
  memset(&b1, 0, sizeof b1);
  desc.queue_capacity = 1;
  desc.retry_frames = 4;
  desc.foreground_creation = 1; /* even so: a draw with a fallback never creates on the render thread */
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  sbk_router_load(router);
  scripted_run_all(ex);
  sbk_router_begin_frame(router, 0);
  g_exact_creations = 0;
  resolve(router, &draws[0], &b0);
  resolve(router, &draws[1], &b1);
  SBK_TEST_CHECK(b0.route != SBK_ROUTED_UNCOVERED && b1.route != SBK_ROUTED_UNCOVERED);
  SBK_TEST_CHECK(promotion_of(router, &draws[0]) == SBK_PROMOTION_PENDING);
  SBK_TEST_CHECK(promotion_of(router, &draws[1]) == SBK_PROMOTION_QUEUE_BACKOFF);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.queue_full == 1 && st.queued_required == 1 && st.foreground_creations == 0);
  {
    sbk_router_binding fresh;
    memset(&fresh, 0, sizeof fresh);
    resolve(router, &draws[1], &fresh); /* another draw of it this frame: no new attempt */
    sbk_router_stats_get(router, &st);
    SBK_TEST_CHECK(st.queue_full == 1);
  }
  SBK_TEST_CHECK(scripted_run_all(ex) == 1);
  for (frame = 1; frame < 4; ++frame) {
    sbk_router_begin_frame(router, frame);
    sbk_router_stats_get(router, &st);
    SBK_TEST_CHECK(st.queued_required == 1); /* back-off: frames 1-3 queue nothing */
  }
  SBK_TEST_CHECK(promotion_of(router, &draws[0]) == SBK_PROMOTION_READY);
  sbk_router_begin_frame(router, 4);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.queued_required == 2);
  SBK_TEST_CHECK(promotion_of(router, &draws[1]) == SBK_PROMOTION_PENDING);
  SBK_TEST_CHECK(scripted_run_all(ex) == 1);
  sbk_router_begin_frame(router, 5);
  resolve(router, &draws[1], &b1);
  SBK_TEST_CHECK(b1.route == SBK_ROUTED_EXACT);
  SBK_TEST_CHECK(g_exact_creations == 2);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.foreground_creations == 0);
  sbk_router_destroy(router);
}

/* A failing creation backs off by frame (doubling) and is failed permanently after max_attempts; the draw keeps
 * its fallback throughout. */
static void failed_creation_backs_off_then_ends(const test_vulkan* vk, const sbk_bundle* bundle, const test_draw* draws,
                                                scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_stats st;
  sbk_router_binding b;
  uint64_t frame;
  uint64_t queued_at[4] = {0, 0, 0, 0};
  uint32_t attempts = 0;
  memset(&b, 0, sizeof b);
  desc.max_attempts = 3;
  desc.retry_frames = 2;
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  sbk_router_load(router);
  scripted_run_all(ex);
  g_fail_exact = 1;
  g_exact_creations = 0;
  for (frame = 0; frame < 20; ++frame) {
    uint32_t k;
    sbk_router_begin_frame(router, frame);
    for (k = 0; k < 3; ++k) resolve(router, &draws[0], &b); /* several draws a frame: retries are by frame */
    SBK_TEST_CHECK(b.route != SBK_ROUTED_UNCOVERED && b.route != SBK_ROUTED_EXACT);
    sbk_router_stats_get(router, &st);
    if (st.queued_required > attempts && attempts < 4) queued_at[attempts++] = frame;
    scripted_run_all(ex);
  }
  g_fail_exact = 0;
  SBK_TEST_CHECK(g_exact_creations == 3);
  SBK_TEST_CHECK(attempts == 3);
  /* queued at frame 0, failure adopted at 1 -> retry at 1 + 2 = 3; adopted at 4 -> retry at 4 + 4 = 8 */
  SBK_TEST_CHECK(queued_at[0] == 0 && queued_at[1] == 3 && queued_at[2] == 8);
  SBK_TEST_CHECK(promotion_of(router, &draws[0]) == SBK_PROMOTION_FAILED_PERMANENTLY);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.failed_attempts == 3 && st.failed_permanently == 1 && st.adopted == 0);
  sbk_router_destroy(router);
}

/* An executor that runs nothing (and one that refuses everything) starves promotion only. */
static void idle_executor_starves_promotion_only(const test_vulkan* vk, const sbk_bundle* bundle,
                                                 const test_draw* draws, uint32_t draw_count, scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_stats st;
  uint32_t i;
  uint64_t frame;
  ex->refuse = 1;
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  SBK_TEST_CHECK(sbk_router_load(router) == SBK_OK); /* the loading thread does the load itself */
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.load_failures == 0 && st.fallback_pipelines > 0);
  for (frame = 0; frame < 5; ++frame) {
    sbk_router_begin_frame(router, frame);
    for (i = 0; i < draw_count; ++i) {
      sbk_router_binding b;
      memset(&b, 0, sizeof b);
      resolve(router, &draws[i], &b);
      SBK_TEST_CHECK(b.route != SBK_ROUTED_UNCOVERED && b.pipeline != VK_NULL_HANDLE);
    }
  }
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.adopted == 0 && st.executor_refused > 0 && st.refused_pending > 0);
  ex->refuse = 0;
  sbk_router_begin_frame(router, 5); /* offered again now that it accepts */
  scripted_run_all(ex);
  sbk_router_begin_frame(router, 6);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.adopted == draw_count);
  sbk_router_destroy(router);
}

/* The default pool: real threads, prewarm on; every exact pipeline ends adopted and drawn exact. */
static void default_pool_promotes_everything(const test_vulkan* vk, const sbk_bundle* bundle, const test_draw* draws,
                                             uint32_t draw_count) {
  sbk_router_desc desc = base_desc(vk, bundle, NULL);
  sbk_router* router = NULL;
  sbk_router_binding bindings[MAX_DRAWS];
  sbk_router_stats st;
  uint64_t frame;
  uint32_t i, exact = 0;
  desc.worker_count = 2;
  desc.prewarm = 1;
  memset(bindings, 0, sizeof bindings);
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  SBK_TEST_CHECK(sbk_router_load(router) == SBK_OK);
  /* Frames until every draw is exact, or until the router has nothing left in flight (then one never will be):
   * no bound in time, so a slow machine or a sanitizer build only takes longer (CTest's timeout is the guard). */
  for (frame = 0;; ++frame) {
    sbk_router_begin_frame(router, frame);
    exact = 0;
    for (i = 0; i < draw_count; ++i) {
      resolve(router, &draws[i], &bindings[i]);
      SBK_TEST_CHECK(bindings[i].pipeline != VK_NULL_HANDLE);
      exact += bindings[i].route == SBK_ROUTED_EXACT;
    }
    if (exact == draw_count) break;
    sbk_router_stats_get(router, &st);
    if (st.outstanding == 0) break;
    sbk__yield();
  }
  SBK_TEST_CHECK(exact == draw_count);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.adopted == draw_count && st.foreground_creations == 0);
  SBK_TEST_CHECK(st.ready_at_demand + st.not_ready_at_demand == draw_count);
  SBK_TEST_CHECK(st.worker_cpu_ns > 0);
  sbk_router_destroy(router);
}

/* Without the dynamic-state features (or with a bundle that has no dynamic-state recipes) the router serves the
 * bundle's per-host-state fallback pipelines. */
static void per_host_state_fallback_without_features(const test_vulkan* vk, const sbk_bundle* bundle,
                                                     const test_draw* draws, scripted_executor* ex) {
  sbk_router_desc desc = base_desc(vk, bundle, ex);
  sbk_router* router = NULL;
  sbk_router_stats st;
  sbk_router_binding b, bn;
  test_draw unseen = draws[0];
  memset(&b, 0, sizeof b);
  memset(&bn, 0, sizeof bn);
  unseen_host(&draws[0].host, &unseen.host);
  desc.dynamic_state = 0;
  SBK_TEST_CHECK(sbk_router_create(&desc, &router, NULL) == SBK_OK);
  if (!router) return;
  sbk_router_load(router);
  scripted_run_all(ex);
  sbk_router_stats_get(router, &st);
  SBK_TEST_CHECK(st.dynamic_state == 0 && st.fallback_pipelines > 0 && st.load_failures == 0);
  resolve(router, &draws[0], &b);
  SBK_TEST_CHECK(b.route == SBK_ROUTED_FALLBACK);
  resolve(router, &unseen, &bn); /* no per-host-state pipeline of that state, no dynamic route */
  SBK_TEST_CHECK(bn.route == SBK_ROUTED_UNCOVERED);
  scripted_run_all(ex);
  sbk_router_destroy(router);
}


/* Damaged bundles (random byte flips and truncations of the file in memory): create refuses with
 * SBK_ERROR_CORRUPT or the router runs, and every draw gets an answer (a counted miss where data is damaged);
 * never a crash or an out-of-bounds read (ASan/UBSan in the sanitizer pass). */
static void damaged_bundles_never_crash(const test_vulkan* vk, const char* path, const test_draw* draws,
                                        uint32_t draw_count, scripted_executor* ex) {
  FILE* f = fopen(path, "rb");
  long size;
  uint8_t *original, *copy;
  uint32_t round, seed = 12345, opened = 0, refused = 0;
  if (!f) return;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  original = (uint8_t*)malloc((size_t)size);
  copy = (uint8_t*)malloc((size_t)size + 8);
  if (!original || !copy || fread(original, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(original);
    free(copy);
    SBK_TEST_CHECK(0);
    return;
  }
  fclose(f);
  for (round = 0; round < 300; ++round) {
    sbk_bundle bundle;
    size_t length = (size_t)size;
    uint32_t flips, k, i;
    sbk_router* router = NULL;
    sbk_router_desc desc;
    sbk_result created;
    memcpy(copy, original, (size_t)size);
    seed = seed * 1103515245u + 12345u;
    flips = 1 + (seed >> 16) % 4;
    for (k = 0; k < flips; ++k) {
      seed = seed * 1103515245u + 12345u;
      copy[(seed >> 8) % (uint32_t)size] ^= (uint8_t)(1u << ((seed >> 4) & 7));
    }
    if (round % 10 == 9) length = (size_t)((seed >> 8) % (uint32_t)size); /* truncated */
    memset(&bundle, 0, sizeof bundle);
    if (sbk_bundle_open_memory(&bundle, copy, length) != SBK_OK) continue;
    ++opened;
    desc = base_desc(vk, &bundle, ex);
    created = sbk_router_create(&desc, &router, NULL);
    SBK_TEST_CHECK(created == SBK_OK || created == SBK_ERROR_CORRUPT);
    if (created != SBK_OK) {
      ++refused;
      sbk_bundle_close(&bundle);
      continue;
    }
    SBK_TEST_CHECK(sbk_router_load(router) == SBK_OK);
    for (i = 0; i < 3; ++i) {
      uint32_t d;
      sbk_router_begin_frame(router, i);
      for (d = 0; d < draw_count; ++d) {
        sbk_router_binding b;
        const sbk_router_draw draw = as_draw(&draws[d]);
        sbk_result r;
        memset(&b, 0, sizeof b);
        r = sbk_router_resolve(router, &draw, &b);
        SBK_TEST_CHECK(r == SBK_OK || r == SBK_ERROR_INVALID_STATE);
        SBK_TEST_CHECK(b.route < SBK_ROUTED_COUNT);
        SBK_TEST_CHECK((b.route == SBK_ROUTED_UNCOVERED) == (b.pipeline == VK_NULL_HANDLE));
      }
      scripted_run_all(ex);
    }
    sbk_router_destroy(router);
    sbk_bundle_close(&bundle);
  }
  printf("damaged bundles: 300 rounds, %u opened, %u refused by the router\n", opened, refused);
  SBK_TEST_CHECK(opened > 0);
  free(original);
  free(copy);
}

int main(int argc, char** argv) {
  test_vulkan vk;
  sbk_bundle bundle;
  static test_draw draws[MAX_DRAWS];
  static scripted_executor executor;
  uint32_t draw_count;
  if (argc != 2) {
    fprintf(stderr, "usage: router_test BUNDLE\n");
    return 2;
  }
  memset(&bundle, 0, sizeof bundle);
  if (sbk_bundle_open_file(&bundle, argv[1]) != SBK_OK || sbk_nv2a_check_bundle(&bundle) != SBK_OK ||
      sbk_bundle_prepare_dictionary(&bundle) != SBK_OK) {
    fprintf(stderr, "error: cannot open %s\n", argv[1]);
    return 1;
  }
  if (!open_vulkan(&vk)) {
    fprintf(stderr, "error: no Vulkan device (lavapipe) with dynamic rendering\n");
    return 1;
  }
  g_real_create = (PFN_vkCreateGraphicsPipelines)vkGetDeviceProcAddr(vk.device, "vkCreateGraphicsPipelines");
  printf("dynamic-state fallback: %s (bundle recipes: %u)\n", vk.support.complete ? "supported" : "not supported",
         sbk_bundle_dynamic_fallback_count(&bundle));
  draw_count = bundle_draws(&bundle, draws);
  SBK_TEST_CHECK(draw_count >= 2);
  if (draw_count >= 2) {
    route_order_and_promotion(&vk, &bundle, draws, &executor);
    probes_have_no_side_effects(&vk, &bundle, draws, &executor);
    job_inputs_are_deep_owned(&vk, &bundle, draws, draw_count, &executor);
    queue_full_keeps_the_fallback(&vk, &bundle, draws, &executor);
    failed_creation_backs_off_then_ends(&vk, &bundle, draws, &executor);
    idle_executor_starves_promotion_only(&vk, &bundle, draws, draw_count, &executor);
    default_pool_promotes_everything(&vk, &bundle, draws, draw_count);
    per_host_state_fallback_without_features(&vk, &bundle, draws, &executor);
    damaged_bundles_never_crash(&vk, argv[1], draws, draw_count, &executor);
  }
  close_vulkan(&vk);
  sbk_bundle_close(&bundle);
  SBK_TEST_CHECK(g_messages == 0);
  printf("router_test: %u draws, %u validation messages, %d failures\n", draw_count, g_messages, sbk_test_failures);
  return sbk_test_failures == 0 ? 0 : 1;
}
