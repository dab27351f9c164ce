// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "lib/vulkan/context.hpp"
#include "lib/vulkan/device_object.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::vulkan {

// Creating a bundle's pipelines on a real driver the way a renderer does: every recipe through the runtime
// header (sbk_bundle_read_module, sbk_bundle_layout + sbk_vk_fill_set_layout, sbk_vk_fill_pipeline with
// dynamic rendering or sbk_vk_fill_compute_pipeline, the entry's values from sbk_bundle_specialization). What
// `shaderbake warm` fills a VkPipelineCache with, and times.

// What one pipeline entry's creation gave.
struct PipelineCreation {
  uint32_t entry = 0;      // index of the pipeline entry in the bundle (sbk_bundle_entry_at)
  bool created = false;
  double create_ms = 0;    // wall time of its vkCreate{Graphics,Compute}Pipelines call; 0 when it never got that far
  std::string error;       // why it was not created, naming the module, layout or Vulkan call
};

struct BundlePipelines {
  std::vector<PipelineCreation> pipelines;  // one per pipeline entry, in index order
  uint32_t created = 0;
  uint32_t failed = 0;
  uint32_t modules = 0;         // shader modules created for them (each once)
  uint32_t layouts = 0;         // pipeline layouts created for them (each once)
  double total_create_ms = 0;   // sum of the create_ms of created pipelines
  double wall_ms = 0;           // the whole call: module decompression, layouts and pipelines

  // Median of create_ms over the created pipelines (0 when none was).
  double median_create_ms() const;
};

// Creates every pipeline entry of `bundle` once on `context`'s device, through `cache` (VK_NULL_HANDLE: no
// cache), one vkCreateGraphicsPipelines (vkCreateComputePipelines) call per pipeline, timed. Each pipeline is
// destroyed as soon as it exists: what stays behind is what the driver put into `cache`. Modules and layouts
// are created once each, shared by the pipelines that use them, and destroyed before returning. The context must have been created
// with DeviceFeatures::dynamic_rendering (recipes render with VkPipelineRenderingCreateInfo).
// A damaged record, module or layout, or a failing Vulkan call, fails that pipeline only (reported in it,
// never stops the others). Single-threaded, so that the timings are per pipeline. Error (ErrorKind::internal)
// only when nothing can start: the decompression context cannot be allocated.
Result<BundlePipelines> create_bundle_pipelines(const sbk_bundle& bundle, const Context& context,
                                                VkPipelineCache cache);

// A pipeline cache, empty or from `initial_data` (which the driver checks and may ignore: Vulkan allows it
// to start empty when the data is not its own).
Result<DeviceObject<VkPipelineCache>> create_pipeline_cache(const Context& context,
                                                            std::span<const uint8_t> initial_data);

// vkGetPipelineCacheData: the cache's whole data.
Result<std::vector<uint8_t>> pipeline_cache_data(const Context& context, VkPipelineCache cache);

// Turns the drivers' own on-disk shader caches off for this process, unless the environment already says
// what to do with them (MESA_SHADER_CACHE_DIR or MESA_SHADER_CACHE_DISABLE; __GL_SHADER_DISK_CACHE for
// NVIDIA): otherwise a "cold" creation would hit what an earlier run left on disk, and a creation from a
// VkPipelineCache would be credited with the driver's disk cache. Modifies the process environment: call it
// before the first Context, before starting threads.
void disable_driver_disk_caches();

}  // namespace shaderbake::vulkan
