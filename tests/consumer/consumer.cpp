// SPDX-License-Identifier: MIT
// The same from C++17, with the Vulkan helpers: every graphics pipeline of a bundle filled into a
// VkGraphicsPipelineCreateInfo from its recipe (no device needed: the helpers only fill structs).
// Usage: consumer_cpp BUNDLE
#define SHADERBAKE_IMPLEMENTATION
#include <shaderbake/shaderbake.h>
#include <shaderbake/shaderbake_vulkan.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BUNDLE\n", argv[0]);
    return 2;
  }
  sbk_bundle bundle;
  if (sbk_result r = sbk_bundle_open_file(&bundle, argv[1]); r != SBK_OK) {
    std::fprintf(stderr, "open: %s\n", sbk_result_name(r));
    return 1;
  }
  unsigned pipelines = 0, filled = 0;
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
    sbk_entry entry;
    sbk_host_state host;
    if (sbk_bundle_entry_at(&bundle, i, &entry) != SBK_OK || entry.kind != SBK_KEY_KIND_PIPELINE) continue;
    ++pipelines;
    if (sbk_bundle_entry_host_state(&bundle, i, &host) != SBK_OK) continue;
    sbk_vk_pipeline_storage storage;
    VkGraphicsPipelineCreateInfo info;
    sbk_vk_fill_pipeline(&host, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, &storage, &info);
    if (info.sType == VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO && info.stageCount == 2 &&
        info.pVertexInputState != nullptr && info.pColorBlendState != nullptr)
      ++filled;
  }
  std::printf("consumer_cpp: %u of %u graphics pipelines filled into create-infos\n", filled, pipelines);
  sbk_bundle_close(&bundle);
  return pipelines > 0 && filled == pipelines ? 0 : 1;
}
