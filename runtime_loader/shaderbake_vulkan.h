/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_vulkan.h — Vulkan create-info structures filled from a bundle's recipes: the graphics pipeline
 * of a host state and two modules (and its specialization data, when it has any), a compute pipeline, and
 * descriptor set 0 of a layout contract. They fill structs only (no
 * Vulkan call), so they need the Vulkan headers, not the Vulkan loader.
 *
 * Who includes it: a renderer that creates a bundle's pipelines (next to shaderbake.h, which this includes),
 * the router, and the tool's Vulkan executor. It includes vulkan/vulkan.h itself (an earlier include of
 * yours, e.g. with VK_NO_PROTOTYPES, is the one that counts) and shaderbake.h (outside its own include guard,
 * so that including it again with SHADERBAKE_IMPLEMENTATION defined also compiles shaderbake.h's
 * implementation, whose private helpers this one's uses). Implementation: SHADERBAKE_IMPLEMENTATION in one
 * translation unit, as for shaderbake.h. Needs the Vulkan headers and what shaderbake.h needs.
 *
 * Contracts: no allocation, no global state, no I/O; thread-safe on distinct storage; NULL where a pointer is
 * required is checked with SBK_ASSERT. The storage struct owns every array and struct the create info points
 * to: keep it alive (and unmoved) until vkCreateGraphicsPipelines returns. Viewport and scissor are always
 * dynamic (a recipe has no values for them), on top of the key's dynamic states. The create info renders with
 * dynamic rendering (VkPipelineRenderingCreateInfo in pNext, formats from the key); to use a render pass
 * instead, set renderPass/subpass and clear pNext. Each vertex attribute goes to the location the host state
 * names, as the bundle's vertex modules read them.
 */
#include "shaderbake.h" /* outside the guard: see the top comment */

#ifndef SHADERBAKE_VULKAN_H
#define SHADERBAKE_VULKAN_H

#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most specialization values a stage of a filled pipeline takes from a bundle (sbk_vk_fill_specialization). */
#define SBK_VK_MAX_SPECIALIZATION_ENTRIES 64

/* A stage's VkSpecializationInfo, its map entries converted from a bundle's (the data stays in the bundle). */
typedef struct sbk_vk_specialization_storage {
  VkSpecializationMapEntry map[SBK_VK_MAX_SPECIALIZATION_ENTRIES];
  VkSpecializationInfo info;
} sbk_vk_specialization_storage;

typedef struct sbk_vk_pipeline_storage {
  VkPipelineShaderStageCreateInfo stages[2];
  sbk_vk_specialization_storage specialization[2];
  VkVertexInputBindingDescription bindings[SBK_MAX_VERTEX_BINDINGS];
  VkVertexInputAttributeDescription attributes[SBK_MAX_VERTEX_ATTRIBUTES];
  VkPipelineVertexInputStateCreateInfo vertex_input;
  VkPipelineInputAssemblyStateCreateInfo input_assembly;
  VkPipelineViewportStateCreateInfo viewport;
  VkPipelineRasterizationStateCreateInfo raster;
  VkPipelineMultisampleStateCreateInfo multisample;
  VkPipelineDepthStencilStateCreateInfo depth_stencil;
  VkPipelineColorBlendAttachmentState blend_attachments[SBK_MAX_COLOR_ATTACHMENTS];
  VkPipelineColorBlendStateCreateInfo blend;
  VkDynamicState dynamic_list[16];
  VkPipelineDynamicStateCreateInfo dynamic;
  VkFormat color_formats[SBK_MAX_COLOR_ATTACHMENTS];
  VkPipelineRenderingCreateInfo rendering;
} sbk_vk_pipeline_storage;

/* The graphics pipeline of a recipe: its host state (a pipeline key's: sbk_decode_pipeline_key), vertex and
 * fragment module and pipeline layout, with every pointed-to struct in `storage` (see the top comment). */
SBK_API void sbk_vk_fill_pipeline(const sbk_host_state* host, VkShaderModule vertex, VkShaderModule fragment,
                                  VkPipelineLayout layout, sbk_vk_pipeline_storage* storage,
                                  VkGraphicsPipelineCreateInfo* out);

/* Gives a pipeline sbk_vk_fill_pipeline filled (with this `storage`) the values of its bundle entry's
 * specialization data (sbk_bundle_specialization): the vertex block to its vertex stage, the shader block to its
 * fragment stage; an empty block leaves that stage without any. The map entries are converted into `storage`;
 * the data is the bundle's own (keep the bundle open until the create call returns).
 * SBK_ERROR_BUFFER_TOO_SMALL when a block has more than SBK_VK_MAX_SPECIALIZATION_ENTRIES entries (nothing is
 * changed then). */
SBK_API sbk_result sbk_vk_fill_specialization(const sbk_specialization* specialization, sbk_vk_pipeline_storage* storage);

/* The compute pipeline of a recipe: its module, pipeline layout and specialization data (the shader block of
 * sbk_bundle_specialization's, or NULL for none), with the VkSpecializationInfo in `storage`. The same
 * SBK_ERROR_BUFFER_TOO_SMALL as sbk_vk_fill_specialization (then `out` is not filled). */
SBK_API sbk_result sbk_vk_fill_compute_pipeline(VkShaderModule module, VkPipelineLayout layout,
                                                const sbk_specialization* specialization,
                                                sbk_vk_specialization_storage* storage, VkComputePipelineCreateInfo* out);

/* Descriptor set 0 of a layout contract (no immutable samplers). `bindings` has SBK_MAX_LAYOUT_BINDINGS
 * entries and must outlive the create call. */
SBK_API void sbk_vk_fill_set_layout(const sbk_layout* layout, VkDescriptorSetLayoutBinding* bindings,
                                    VkDescriptorSetLayoutCreateInfo* out);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_VULKAN_H */

/* ===================================================================================================== */
#if defined(SHADERBAKE_IMPLEMENTATION) && !defined(SHADERBAKE_VULKAN_IMPLEMENTATION_DONE)
#define SHADERBAKE_VULKAN_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

SBK_API void sbk_vk_fill_pipeline(const sbk_host_state* host, VkShaderModule vertex, VkShaderModule fragment,
                                  VkPipelineLayout layout, sbk_vk_pipeline_storage* s,
                                  VkGraphicsPipelineCreateInfo* out) {
  uint32_t i, n = 0;
  static const VkDynamicState known[9] = {
      VK_DYNAMIC_STATE_VIEWPORT,          VK_DYNAMIC_STATE_SCISSOR,          VK_DYNAMIC_STATE_LINE_WIDTH,
      VK_DYNAMIC_STATE_DEPTH_BIAS,        VK_DYNAMIC_STATE_BLEND_CONSTANTS,  VK_DYNAMIC_STATE_DEPTH_BOUNDS,
      VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK, VK_DYNAMIC_STATE_STENCIL_WRITE_MASK, VK_DYNAMIC_STATE_STENCIL_REFERENCE};
  SBK_ASSERT(host != NULL && s != NULL && out != NULL);
  memset(s, 0, sizeof *s);
  for (i = 0; i < 2; ++i) {
    s->stages[i].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    s->stages[i].pName = "main";
  }
  s->stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  s->stages[0].module = vertex;
  s->stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  s->stages[1].module = fragment;

  for (i = 0; i < host->binding_count; ++i) {
    s->bindings[i].binding = host->bindings[i].binding;
    s->bindings[i].stride = host->bindings[i].stride;
    s->bindings[i].inputRate = (VkVertexInputRate)host->bindings[i].input_rate;
  }
  for (i = 0; i < host->attribute_count; ++i) {
    s->attributes[i].location = host->attributes[i].location;
    s->attributes[i].binding = host->attributes[i].binding;
    s->attributes[i].format = (VkFormat)host->attributes[i].format;
    s->attributes[i].offset = host->attributes[i].offset;
  }
  s->vertex_input.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
  s->vertex_input.vertexBindingDescriptionCount = host->binding_count;
  s->vertex_input.pVertexBindingDescriptions = s->bindings;
  s->vertex_input.vertexAttributeDescriptionCount = host->attribute_count;
  s->vertex_input.pVertexAttributeDescriptions = s->attributes;

  s->input_assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
  s->input_assembly.topology = (VkPrimitiveTopology)host->topology;

  s->viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
  s->viewport.viewportCount = 1;
  s->viewport.scissorCount = 1;

  s->raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
  s->raster.polygonMode = (VkPolygonMode)host->polygon_mode;
  s->raster.cullMode = (VkCullModeFlags)host->cull_mode;
  s->raster.frontFace = (VkFrontFace)host->front_face;
  s->raster.lineWidth = 1.0f;

  s->multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
  s->multisample.rasterizationSamples = (VkSampleCountFlagBits)host->samples;

  s->depth_stencil.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO;
  s->depth_stencil.depthTestEnable = host->depth_test;
  s->depth_stencil.depthWriteEnable = host->depth_write;
  s->depth_stencil.depthCompareOp = (VkCompareOp)host->depth_compare;
  s->depth_stencil.stencilTestEnable = host->stencil_test;
  {
    const sbk_stencil_face* faces[2] = {&host->stencil_front, &host->stencil_back};
    VkStencilOpState* targets[2] = {&s->depth_stencil.front, &s->depth_stencil.back};
    for (i = 0; i < 2; ++i) {
      targets[i]->failOp = (VkStencilOp)faces[i]->fail_op;
      targets[i]->passOp = (VkStencilOp)faces[i]->pass_op;
      targets[i]->depthFailOp = (VkStencilOp)faces[i]->depth_fail_op;
      targets[i]->compareOp = (VkCompareOp)faces[i]->compare_op;
      targets[i]->compareMask = faces[i]->compare_mask;
      targets[i]->writeMask = faces[i]->write_mask;
      targets[i]->reference = faces[i]->reference;
    }
  }
  s->depth_stencil.maxDepthBounds = 1.0f;

  for (i = 0; i < host->color_count; ++i) {
    const sbk_blend_attachment* b = &host->blend[i];
    VkPipelineColorBlendAttachmentState* a = &s->blend_attachments[i];
    a->blendEnable = b->enable;
    a->srcColorBlendFactor = (VkBlendFactor)b->src_color;
    a->dstColorBlendFactor = (VkBlendFactor)b->dst_color;
    a->colorBlendOp = (VkBlendOp)b->color_op;
    a->srcAlphaBlendFactor = (VkBlendFactor)b->src_alpha;
    a->dstAlphaBlendFactor = (VkBlendFactor)b->dst_alpha;
    a->alphaBlendOp = (VkBlendOp)b->alpha_op;
    a->colorWriteMask = b->write_mask;
    s->color_formats[i] = (VkFormat)host->color_formats[i];
  }
  s->blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
  s->blend.attachmentCount = host->color_count;
  s->blend.pAttachments = s->blend_attachments;

  s->dynamic_list[n++] = VK_DYNAMIC_STATE_VIEWPORT;
  s->dynamic_list[n++] = VK_DYNAMIC_STATE_SCISSOR;
  for (i = 2; i < 9; ++i)
    if (host->dynamic_states & (1u << i)) s->dynamic_list[n++] = known[i];
  s->dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
  s->dynamic.dynamicStateCount = n;
  s->dynamic.pDynamicStates = s->dynamic_list;

  s->rendering.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO;
  s->rendering.colorAttachmentCount = host->color_count;
  s->rendering.pColorAttachmentFormats = s->color_formats;
  s->rendering.depthAttachmentFormat =
      sbk__format_has_depth(host->depth_format) ? (VkFormat)host->depth_format : VK_FORMAT_UNDEFINED;
  s->rendering.stencilAttachmentFormat =
      sbk__format_has_stencil(host->depth_format) ? (VkFormat)host->depth_format : VK_FORMAT_UNDEFINED;

  memset(out, 0, sizeof *out);
  out->sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
  out->pNext = &s->rendering;
  out->stageCount = 2;
  out->pStages = s->stages;
  out->pVertexInputState = &s->vertex_input;
  out->pInputAssemblyState = &s->input_assembly;
  out->pViewportState = &s->viewport;
  out->pRasterizationState = &s->raster;
  out->pMultisampleState = &s->multisample;
  out->pDepthStencilState = host->depth_format != 0u ? &s->depth_stencil : NULL;
  out->pColorBlendState = &s->blend;
  out->pDynamicState = &s->dynamic;
  out->layout = layout;
  out->basePipelineIndex = -1;
}

/* One block into `storage`: 1 when it has values (the info is set), 0 when it is empty. */
static int sbk__vk_specialization_block(const sbk_specialization_block* block, sbk_vk_specialization_storage* storage) {
  uint32_t m;
  if (block->map_count == 0) return 0;
  for (m = 0; m < block->map_count; ++m) {
    const uint8_t* e = block->map + 12u * m;
    storage->map[m].constantID = sbk__get_u32(e);
    storage->map[m].offset = sbk__get_u32(e + 4);
    storage->map[m].size = sbk__get_u32(e + 8);
  }
  memset(&storage->info, 0, sizeof storage->info);
  storage->info.mapEntryCount = block->map_count;
  storage->info.pMapEntries = storage->map;
  storage->info.dataSize = block->data_size;
  storage->info.pData = block->data;
  return 1;
}

SBK_API sbk_result sbk_vk_fill_specialization(const sbk_specialization* specialization, sbk_vk_pipeline_storage* s) {
  const sbk_specialization_block* blocks[2];
  uint32_t i;
  SBK_ASSERT(specialization != NULL && s != NULL);
  blocks[0] = &specialization->vertex;
  blocks[1] = &specialization->shader;
  for (i = 0; i < 2; ++i)
    if (blocks[i]->map_count > SBK_VK_MAX_SPECIALIZATION_ENTRIES) return SBK_ERROR_BUFFER_TOO_SMALL;
  for (i = 0; i < 2; ++i)
    s->stages[i].pSpecializationInfo = sbk__vk_specialization_block(blocks[i], &s->specialization[i])
                                           ? &s->specialization[i].info
                                           : NULL;
  return SBK_OK;
}

SBK_API sbk_result sbk_vk_fill_compute_pipeline(VkShaderModule module, VkPipelineLayout layout,
                                                const sbk_specialization* specialization,
                                                sbk_vk_specialization_storage* storage, VkComputePipelineCreateInfo* out) {
  SBK_ASSERT(storage != NULL && out != NULL);
  if (specialization != NULL && specialization->shader.map_count > SBK_VK_MAX_SPECIALIZATION_ENTRIES)
    return SBK_ERROR_BUFFER_TOO_SMALL;
  memset(out, 0, sizeof *out);
  out->sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  out->stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  out->stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  out->stage.module = module;
  out->stage.pName = "main";
  if (specialization != NULL && sbk__vk_specialization_block(&specialization->shader, storage))
    out->stage.pSpecializationInfo = &storage->info;
  out->layout = layout;
  out->basePipelineIndex = -1;
  return SBK_OK;
}

SBK_API void sbk_vk_fill_set_layout(const sbk_layout* layout, VkDescriptorSetLayoutBinding* bindings,
                                    VkDescriptorSetLayoutCreateInfo* out) {
  uint32_t i;
  SBK_ASSERT(layout != NULL && bindings != NULL && out != NULL && layout->binding_count <= SBK_MAX_LAYOUT_BINDINGS);
  for (i = 0; i < layout->binding_count; ++i) {
    memset(&bindings[i], 0, sizeof bindings[i]);
    bindings[i].binding = layout->bindings[i].binding;
    bindings[i].descriptorType = (VkDescriptorType)layout->bindings[i].descriptor_type;
    bindings[i].descriptorCount = layout->bindings[i].descriptor_count;
    bindings[i].stageFlags = layout->bindings[i].stage_flags;
  }
  memset(out, 0, sizeof *out);
  out->sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  out->bindingCount = layout->binding_count;
  out->pBindings = bindings;
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION */
