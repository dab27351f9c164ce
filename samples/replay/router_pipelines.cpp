// SPDX-License-Identifier: MIT
#include "samples/replay/router_pipelines.hpp"

#include "samples/replay/bundle_pipelines.hpp"

#include <string>

namespace shaderbake::replay {

Result<std::unique_ptr<RouterPipelines>> RouterPipelines::load(const VulkanDevice& device, const sbk_bundle& bundle,
                                                               VkPipelineCache cache, const Options& options) {
  std::unique_ptr<RouterPipelines> self(new RouterPipelines());
  const sbk_router_device_support& support = device.router_support();
  sbk_router_desc desc{};
  desc.instance = device.context().instance();
  desc.physical_device = device.context().physical_device();
  desc.device = device.device();
  desc.get_instance_proc_addr = vkGetInstanceProcAddr;
  desc.bundle = &bundle;
  desc.pipeline_cache = cache;
  desc.worker_count = options.workers;
  desc.dynamic_state = options.dynamic_state && support.complete;
  desc.unrestricted_topology = support.unrestricted_topology;
  desc.prewarm = options.prewarm;
  // A pair no fallback serves gets its exact pipeline on the render thread, as the bundle mode does, rather
  // than a compile of the old way.
  desc.foreground_creation = 1;
  VkResult vk = VK_SUCCESS;
  if (sbk_result r = sbk_router_create(&desc, &self->router_, &vk); r != SBK_OK) {
    if (r == SBK_ERROR_DEVICE) return vulkan::vk_call_error("sbk_router_create", vk);
    return bundle_error(r, "sbk_router_create");
  }
  if (sbk_result r = sbk_router_load(self->router_); r != SBK_OK) return bundle_error(r, "sbk_router_load");
  const uint32_t layouts = sbk_bundle_layout_count(&bundle);
  self->contracts_.resize(layouts);
  self->set_layouts_.resize(layouts);
  for (uint32_t i = 0; i < layouts; ++i) {
    if (sbk_result r = sbk_bundle_layout(&bundle, i, &self->contracts_[i]); r != SBK_OK)
      return bundle_error(r, "layout " + std::to_string(i));
    if (sbk_result r = sbk_router_layout(self->router_, i, nullptr, &self->set_layouts_[i]); r != SBK_OK)
      return bundle_error(r, "router layout " + std::to_string(i));
  }
  return self;
}

RouterPipelines::~RouterPipelines() { sbk_router_destroy(router_); }

namespace {

sbk_router_draw draw_of(const DrawKeys& keys, const sbk_host_state& host) {
  sbk_router_draw draw{};
  draw.exact_key = keys.exact;
  draw.exact_key_size = static_cast<uint32_t>(keys.exact_size);
  if (keys.family_size != 0) {  // fail-closed: a draw admission refused never takes a fallback
    draw.family_key = keys.family;
    draw.family_key_size = static_cast<uint32_t>(keys.family_size);
  }
  draw.host = &host;
  return draw;
}

}  // namespace

void RouterPipelines::resolve(const DrawKeys& keys, const sbk_host_state& host, sbk_router_binding* binding) {
  const sbk_router_draw draw = draw_of(keys, host);
  // SBK_ERROR_INVALID_STATE (a host state the encoder refuses) leaves the binding uncovered: the old way.
  (void)sbk_router_resolve(router_, &draw, binding);
}

void RouterPipelines::fill_draw(const sbk_router_binding& binding, const ReplayGuest& guest, uint32_t program,
                                DrawBinding* out) const {
  *out = DrawBinding{};
  out->pipeline = binding.pipeline;
  out->layout = binding.layout;
  if (binding.layout_index < contracts_.size()) {
    out->set_layout = set_layouts_[binding.layout_index];
    out->contract = contracts_[binding.layout_index];
  }
  out->program = program;
  if (binding.route == SBK_ROUTED_FALLBACK || binding.route == SBK_ROUTED_DYNAMIC_FALLBACK)
    out->set_packet(guest, program);  // the program's values, as runtime data for the family's pipeline
  out->router = router_;
  out->routed = &binding;
}

uint32_t RouterPipelines::promotion_state(const DrawKeys& keys, const sbk_host_state& host) const {
  const sbk_router_draw draw = draw_of(keys, host);
  sbk_router_binding probe{};
  uint32_t promotion = SBK_PROMOTION_ABSENT;
  (void)sbk_router_probe(router_, &draw, &probe, &promotion);
  return promotion;
}

sbk_router_stats RouterPipelines::stats() const {
  sbk_router_stats out{};
  sbk_router_stats_get(router_, &out);
  return out;
}

std::vector<sbk_router_promotion> RouterPipelines::promotions() const {
  uint32_t count = 0;
  const sbk_router_promotion* list = sbk_router_promotions(router_, &count);
  return std::vector<sbk_router_promotion>(list, list + count);
}

}  // namespace shaderbake::replay
