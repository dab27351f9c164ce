/* SPDX-License-Identifier: MIT */
/* runtime_loader/shaderbake_vulkan.h alone (it includes vulkan/vulkan.h and shaderbake.h itself): a set layout
 * and a pipeline create info filled from a recipe's parts. */
#include "runtime_loader/shaderbake_vulkan.h"

int header_alone_vulkan(void);

int header_alone_vulkan(void) {
  int failures = 0;
  sbk_layout layout = {0};
  sbk_host_state host = {0};
  VkDescriptorSetLayoutBinding bindings[SBK_MAX_LAYOUT_BINDINGS];
  VkDescriptorSetLayoutCreateInfo set_layout;
  sbk_vk_pipeline_storage storage;
  VkGraphicsPipelineCreateInfo pipeline;

  layout.binding_count = 1;
  layout.bindings[0].binding = 4;
  layout.bindings[0].descriptor_type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  layout.bindings[0].descriptor_count = 1;
  layout.bindings[0].stage_flags = VK_SHADER_STAGE_FRAGMENT_BIT;
  sbk_vk_fill_set_layout(&layout, bindings, &set_layout);
  failures += set_layout.sType != VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO || set_layout.bindingCount != 1 ||
              set_layout.pBindings != bindings || bindings[0].binding != 4;

  host.topology = 3;
  host.samples = 1;
  host.color_count = 1;
  host.color_formats[0] = VK_FORMAT_R8G8B8A8_UNORM;
  host.blend[0].write_mask = 15;
  sbk_vk_fill_pipeline(&host, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, &storage, &pipeline);
  failures += pipeline.sType != VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO || pipeline.stageCount != 2 ||
              pipeline.pColorBlendState == NULL || pipeline.pColorBlendState->attachmentCount != 1;
  return failures;
}
