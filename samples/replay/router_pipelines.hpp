// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake_router.h"
#include "samples/replay/frame_renderer.hpp"
#include "samples/replay/replay_guest.hpp"
#include "samples/replay/vk_device.hpp"

namespace shaderbake::replay {

// The bundle's routes through the runtime router (runtime_loader/shaderbake_router.h), used as an emulator's
// render thread uses it: the router's own thread pool creates the fallback pipelines at load and the exact
// pipelines during play; the render thread resolves each draw and binds what the router answers.
class RouterPipelines {
 public:
  struct Options {
    uint32_t workers = 1;       // threads of the router's own sbk_thread_pool
    bool dynamic_state = true;  // the device's router support permitting (VulkanDevice::router_support)
    bool prewarm = true;
  };

  // sbk_router_create + sbk_router_load on `device` over `bundle` (open, its dictionary prepared), every
  // pipeline through `cache`: the load-time work, done on return. Errors: the bundle's layouts or recipes
  // are damaged (ErrorKind::bad_input), a Vulkan failure (ErrorKind::toolchain).
  static Result<std::unique_ptr<RouterPipelines>> load(const VulkanDevice& device, const sbk_bundle& bundle,
                                                       VkPipelineCache cache, const Options& options);
  ~RouterPipelines();  // sbk_router_destroy: waits for the workers' jobs, destroys every router object
  RouterPipelines(const RouterPipelines&) = delete;
  RouterPipelines& operator=(const RouterPipelines&) = delete;

  void begin_frame(uint64_t frame) { sbk_router_begin_frame(router_, frame); }
  bool current(const sbk_router_binding& binding) const { return sbk_router_current(router_, &binding) != 0; }

  // Routes one draw of (program, host) with its keys (the family key only when admission accepted the draw)
  // into the pair's binding. A host state the key encoder refuses leaves the binding uncovered.
  void resolve(const DrawKeys& keys, const sbk_host_state& host, sbk_router_binding* binding);

  // What the renderer draws with for a routed binding (binding.route is not uncovered): the router's
  // pipeline and pipeline layout, the layout's set layout and contract, the program and, on the fallback
  // routes, its packet. `binding` must stay where it is while the draw is recorded.
  void fill_draw(const sbk_router_binding& binding, const ReplayGuest& guest, uint32_t program, DrawBinding* out) const;

  // The exact pipeline's sbk_promotion_state for the draw, without side effects (sbk_router_probe).
  uint32_t promotion_state(const DrawKeys& keys, const sbk_host_state& host) const;

  sbk_router_stats stats() const;
  std::vector<sbk_router_promotion> promotions() const;

 private:
  RouterPipelines() = default;

  sbk_router* router_ = nullptr;
  std::vector<sbk_layout> contracts_;                // by bundle layout index
  std::vector<VkDescriptorSetLayout> set_layouts_;   // the router's, by bundle layout index
};

}  // namespace shaderbake::replay
