// SPDX-License-Identifier: MIT
#include "samples/replay/frame_renderer.hpp"

#include <algorithm>
#include <cstring>

namespace shaderbake::replay {

using vulkan::create_object;
using vulkan::vk_call_error;

namespace {

VkDeviceSize align_up(VkDeviceSize value, VkDeviceSize alignment) {
  return alignment ? (value + alignment - 1) / alignment * alignment : value;
}

bool has_depth(uint32_t format) { return format >= VK_FORMAT_D16_UNORM && format <= VK_FORMAT_D32_SFLOAT_S8_UINT && format != VK_FORMAT_S8_UINT; }
bool has_stencil(uint32_t format) { return format >= VK_FORMAT_S8_UINT && format <= VK_FORMAT_D32_SFLOAT_S8_UINT; }
VkImageAspectFlags depth_stencil_aspect(uint32_t format) {
  return (has_depth(format) ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) | (has_stencil(format) ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
}

// Float components of the 32-bit float formats a position may have (0: not a float32 format).
uint32_t float32_components(uint32_t format) {
  switch (format) {
    case VK_FORMAT_R32G32_SFLOAT: return 2;
    case VK_FORMAT_R32G32B32_SFLOAT: return 3;
    case VK_FORMAT_R32G32B32A32_SFLOAT: return 4;
    default: return 0;
  }
}

}  // namespace

void DrawBinding::set_sampler_dims(const sbk_nv2a_program& program) {
  for (uint32_t s = 0; s < SBK_NV2A_TEXTURE_STAGES; ++s)
    sampler_dims[s] = static_cast<uint8_t>(sbk_nv2a_sampler_dim(sbk_nv2a_effective_texture_mode(&program, s)));
}

Result<std::unique_ptr<FrameRenderer>> FrameRenderer::create(const VulkanDevice& device, const ReplayTrace& trace) {
  std::unique_ptr<FrameRenderer> self(new FrameRenderer(device, trace));
  if (Status s = self->create_resources(); !s) return std::move(s).error();
  return self;
}

FrameRenderer::~FrameRenderer() {
  vkDeviceWaitIdle(device_.device());  // the members' objects go next: nothing may still use them
}

Result<FrameRenderer::Image> FrameRenderer::create_image(VkImageType type, VkImageViewType view_type, VkFormat format,
                                                         uint32_t layers, VkSampleCountFlagBits samples,
                                                         VkImageUsageFlags usage, VkImageAspectFlags aspect) {
  const VkDevice d = device_.device();
  const uint32_t size = (usage & VK_IMAGE_USAGE_SAMPLED_BIT) ? 1 : kTargetSize;
  const VkImageCreateFlags flags = view_type == VK_IMAGE_VIEW_TYPE_CUBE ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0;
  VkImageFormatProperties supported;
  if (vkGetPhysicalDeviceImageFormatProperties(device_.context().physical_device(), format, type, VK_IMAGE_TILING_OPTIMAL, usage,
                                               flags, &supported) != VK_SUCCESS ||
      !(supported.sampleCounts & samples))
    return vulkan::toolchain_error("unsupported_format", "the device cannot create a " + std::to_string(samples) +
                                                  "-sample image of VkFormat " + std::to_string(format) +
                                                  " for this use: a host state of the trace needs one");
  Image out;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.flags = flags;
  info.imageType = type;
  info.format = format;
  info.extent = {size, size, 1};
  info.mipLevels = 1;
  info.arrayLayers = layers;
  info.samples = samples;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  auto image = create_object<VkImage>(d, "vkCreateImage", vkCreateImage, info, vkDestroyImage);
  if (!image) return std::move(image).error();
  auto memory = device_.context().bind_image_memory(image->get());  // device-local where there is some
  if (!memory) return std::move(memory).error();
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = image->get();
  view.viewType = view_type;
  view.format = format;
  view.subresourceRange = {aspect, 0, 1, 0, layers};
  auto view_object = create_object<VkImageView>(d, "vkCreateImageView", vkCreateImageView, view, vkDestroyImageView);
  if (!view_object) return std::move(view_object).error();
  out.memory = std::move(memory).value();
  out.image = std::move(image).value();
  out.view = std::move(view_object).value();
  return out;
}

// A zeroed, mapped, host-coherent buffer (what the draws read is written by the host).
Result<vulkan::HostBuffer> FrameRenderer::create_buffer(VkDeviceSize size, VkBufferUsageFlags usage) const {
  auto out = device_.context().create_host_buffer(size, usage, /*prefer_cached=*/false);
  if (!out) return out;
  std::memset(out->mapped, 0, static_cast<size_t>(size));
  return out;
}

Result<FrameRenderer::Target> FrameRenderer::create_target(const sbk_host_state& host) {
  Target target;
  const auto samples = static_cast<VkSampleCountFlagBits>(host.samples);
  for (uint32_t i = 0; i < host.color_count; ++i) {
    const auto format = static_cast<VkFormat>(host.color_formats[i]);
    auto image = create_image(VK_IMAGE_TYPE_2D, VK_IMAGE_VIEW_TYPE_2D, format, 1, samples,
                              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
    if (!image) return std::move(image).error();
    target.colors.push_back(std::move(*image));
    target.color_formats.push_back(format);
  }
  if (host.depth_format != VK_FORMAT_UNDEFINED) {
    target.depth_format = static_cast<VkFormat>(host.depth_format);
    auto image = create_image(VK_IMAGE_TYPE_2D, VK_IMAGE_VIEW_TYPE_2D, target.depth_format, 1, samples,
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, depth_stencil_aspect(host.depth_format));
    if (!image) return std::move(image).error();
    target.depth = std::move(*image);
  }
  return target;
}

// One vertex-buffer region per (host state, binding): three vertices at the binding's stride, the position
// (where it is 32-bit float) a triangle that covers the target at depth 0.5, every other attribute zero.
Status FrameRenderer::prepare_vertex_data() {
  static const float kCorners[3][4] = {{-1, -1, 0.5f, 1}, {3, -1, 0.5f, 1}, {-1, 3, 0.5f, 1}};
  VkDeviceSize total = 0;
  vertex_offsets_.resize(trace_.hosts.size());
  std::vector<std::vector<VkDeviceSize>> sizes(trace_.hosts.size());
  for (size_t h = 0; h < trace_.hosts.size(); ++h) {
    const sbk_host_state& host = trace_.hosts[h];
    for (uint32_t b = 0; b < host.binding_count; ++b) {
      VkDeviceSize end = 16;
      for (uint32_t a = 0; a < host.attribute_count; ++a)
        if (host.attributes[a].binding == host.bindings[b].binding)
          end = std::max<VkDeviceSize>(end, host.attributes[a].offset + 16);
      const VkDeviceSize size = align_up(2 * VkDeviceSize{host.bindings[b].stride} + end, 16);
      vertex_offsets_[h].push_back(total);
      total += size;
    }
  }
  auto buffer = create_buffer(std::max<VkDeviceSize>(total, 16), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
  if (!buffer) return std::move(buffer).error();
  vertices_ = std::move(*buffer);
  for (size_t h = 0; h < trace_.hosts.size(); ++h) {
    const sbk_host_state& host = trace_.hosts[h];
    for (uint32_t a = 0; a < host.attribute_count; ++a) {
      const sbk_vertex_attribute& attribute = host.attributes[a];
      const uint32_t components = float32_components(attribute.format);
      if (attribute.semantic != SBK_SEMANTIC_POSITION || components == 0) continue;
      for (uint32_t b = 0; b < host.binding_count; ++b) {
        if (host.bindings[b].binding != attribute.binding) continue;
        for (uint32_t v = 0; v < 3; ++v)
          std::memcpy(vertices_.mapped + vertex_offsets_[h][b] + v * host.bindings[b].stride + attribute.offset,
                      kCorners[v], components * sizeof(float));
      }
    }
  }
  return ok_status();
}

Status FrameRenderer::create_resources() {
  const VkDevice d = device_.device();
  VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sampler.magFilter = sampler.minFilter = VK_FILTER_NEAREST;
  sampler.addressModeU = sampler.addressModeV = sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  sampler.maxLod = 0.0f;
  auto made_sampler = create_object<VkSampler>(d, "vkCreateSampler", vkCreateSampler, sampler, vkDestroySampler);
  if (!made_sampler) return std::move(made_sampler).error();
  sampler_ = std::move(made_sampler).value();
  const VkImageUsageFlags texture_usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  const struct {
    VkImageType type;
    VkImageViewType view;
    uint32_t layers;
  } kTextures[4] = {{}, {VK_IMAGE_TYPE_2D, VK_IMAGE_VIEW_TYPE_2D, 1}, {VK_IMAGE_TYPE_3D, VK_IMAGE_VIEW_TYPE_3D, 1},
                    {VK_IMAGE_TYPE_2D, VK_IMAGE_VIEW_TYPE_CUBE, 6}};
  for (int dim = SBK_SAMPLER_2D; dim <= SBK_SAMPLER_CUBE; ++dim) {
    auto image = create_image(kTextures[dim].type, kTextures[dim].view, VK_FORMAT_R8G8B8A8_UNORM, kTextures[dim].layers,
                              VK_SAMPLE_COUNT_1_BIT, texture_usage, VK_IMAGE_ASPECT_COLOR_BIT);
    if (!image) return std::move(image).error();
    textures_[dim] = std::move(*image);
  }

  // Uniforms: the dynamic block (zero values: they never reach a key, so no route depends on them), then
  // one packet slot per draw of the largest frame.
  const VkDeviceSize alignment = device_.context().limits().minUniformBufferOffsetAlignment;
  packet_stride_ = align_up(SBK_NV2A_PACKET_SIZE, alignment);
  packets_at_ = align_up(SBK_NV2A_DYNAMIC_BLOCK_SIZE, alignment);
  auto uniforms = create_buffer(packets_at_ + packet_stride_ * std::max(trace_.max_draws_per_frame, 1u),
                                VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!uniforms) return std::move(uniforms).error();
  uniforms_ = std::move(*uniforms);
  sbk_nv2a_dynamic dynamic{};
  sbk_nv2a_pack_dynamic(&dynamic, uniforms_.mapped);

  if (Status s = prepare_vertex_data(); !s) return s;
  for (const sbk_host_state& host : trace_.hosts) {
    TargetKey key{std::vector<uint32_t>(host.color_formats, host.color_formats + host.color_count), host.depth_format,
                  host.samples};
    auto it = targets_.find(key);
    if (it == targets_.end()) {
      auto target = create_target(host);
      if (!target) return std::move(target).error();
      it = targets_.emplace(std::move(key), std::move(*target)).first;
    }
    target_of_host_.push_back(&it->second);
  }

  const uint32_t sets = std::max(trace_.max_draws_per_frame, 1u);
  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4 * sets},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 * sets}};
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = sets;
  pool.poolSizeCount = 2;
  pool.pPoolSizes = sizes;
  auto made_pool = create_object<VkDescriptorPool>(d, "vkCreateDescriptorPool", vkCreateDescriptorPool, pool,
                                                   vkDestroyDescriptorPool);
  if (!made_pool) return std::move(made_pool).error();
  pool_ = std::move(made_pool).value();

  // Initial layouts: textures cleared to mid grey and made shader-readable; targets in attachment layouts,
  // where they stay.
  if (Status s = device_.begin_commands(); !s) return s;
  const VkCommandBuffer cmd = device_.command_buffer();
  std::vector<VkImageMemoryBarrier> barriers;
  auto barrier = [&](VkImage image, VkImageAspectFlags aspect, uint32_t layers, VkImageLayout from, VkImageLayout to,
                     VkAccessFlags src, VkAccessFlags dst) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {aspect, 0, 1, 0, layers};
    barriers.push_back(b);
  };
  for (int dim = SBK_SAMPLER_2D; dim <= SBK_SAMPLER_CUBE; ++dim)
    barrier(textures_[dim].image.get(), VK_IMAGE_ASPECT_COLOR_BIT, kTextures[dim].layers, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       static_cast<uint32_t>(barriers.size()), barriers.data());
  barriers.clear();
  const VkClearColorValue grey = {{0.5f, 0.5f, 0.5f, 1.0f}};
  for (int dim = SBK_SAMPLER_2D; dim <= SBK_SAMPLER_CUBE; ++dim) {
    const VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, kTextures[dim].layers};
    vkCmdClearColorImage(cmd, textures_[dim].image.get(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &grey, 1, &range);
    barrier(textures_[dim].image.get(), VK_IMAGE_ASPECT_COLOR_BIT, kTextures[dim].layers, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT);
  }
  for (auto& [key, target] : targets_) {
    for (const Image& c : target.colors)
      barrier(c.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
              VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
    if (target.depth.image)
      barrier(target.depth.image.get(), depth_stencil_aspect(target.depth_format), 1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, 0,
              VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, 0, 0, nullptr, 0, nullptr,
                       static_cast<uint32_t>(barriers.size()), barriers.data());
  double ms = 0;
  return device_.submit_and_wait(&ms);
}

Status FrameRenderer::begin_frame() {
  if (VkResult r = vkResetDescriptorPool(device_.device(), pool_.get(), 0); r != VK_SUCCESS)
    return vk_call_error("vkResetDescriptorPool", r);
  if (Status s = device_.begin_commands(); !s) return s;
  cmd_ = device_.command_buffer();
  current_target_ = nullptr;
  current_pipeline_ = VK_NULL_HANDLE;
  draws_in_frame_ = 0;
  return ok_status();
}

void FrameRenderer::begin_rendering(const Target& target) {
  VkRenderingAttachmentInfo colors[SBK_MAX_COLOR_ATTACHMENTS];
  for (size_t i = 0; i < target.colors.size(); ++i) {
    colors[i] = VkRenderingAttachmentInfo{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    colors[i].imageView = target.colors[i].view.get();
    colors[i].imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colors[i].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    colors[i].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  }
  VkRenderingAttachmentInfo depth{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  depth.imageView = target.depth.view.get();
  depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  depth.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  depth.clearValue.depthStencil = {1.0f, 0};
  VkRenderingInfo info{VK_STRUCTURE_TYPE_RENDERING_INFO};
  info.renderArea = {{0, 0}, {kTargetSize, kTargetSize}};
  info.layerCount = 1;
  info.colorAttachmentCount = static_cast<uint32_t>(target.colors.size());
  info.pColorAttachments = colors;
  if (has_depth(target.depth_format)) info.pDepthAttachment = &depth;
  if (has_stencil(target.depth_format)) info.pStencilAttachment = &depth;
  device_.begin_rendering(cmd_, &info);
  const VkViewport viewport = {0, 0, float(kTargetSize), float(kTargetSize), 0.0f, 1.0f};
  const VkRect2D scissor = {{0, 0}, {kTargetSize, kTargetSize}};
  vkCmdSetViewport(cmd_, 0, 1, &viewport);
  vkCmdSetScissor(cmd_, 0, 1, &scissor);
}

Status FrameRenderer::draw(const DrawBinding& binding, uint32_t host_index) {
  const sbk_host_state& host = trace_.hosts[host_index];
  const Target* target = target_of_host_[host_index];
  if (target != current_target_) {
    if (current_target_) device_.end_rendering(cmd_);
    begin_rendering(*target);
    current_target_ = target;
  }
  if (binding.pipeline != current_pipeline_) {
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, binding.pipeline);
    current_pipeline_ = binding.pipeline;
  }
  // State the host declares dynamic: values every device accepts without optional features.
  const uint32_t dynamic = host.dynamic_states;
  if (dynamic & SBK_DYNAMIC_LINE_WIDTH) vkCmdSetLineWidth(cmd_, 1.0f);
  if (dynamic & SBK_DYNAMIC_DEPTH_BIAS) vkCmdSetDepthBias(cmd_, 0.0f, 0.0f, 0.0f);
  if (dynamic & SBK_DYNAMIC_BLEND_CONSTANTS) {
    const float zero[4] = {0, 0, 0, 0};
    vkCmdSetBlendConstants(cmd_, zero);
  }
  if (dynamic & SBK_DYNAMIC_DEPTH_BOUNDS) vkCmdSetDepthBounds(cmd_, 0.0f, 1.0f);
  if (dynamic & SBK_DYNAMIC_STENCIL_COMPARE_MASK) vkCmdSetStencilCompareMask(cmd_, VK_STENCIL_FACE_FRONT_AND_BACK, 0xFF);
  if (dynamic & SBK_DYNAMIC_STENCIL_WRITE_MASK) vkCmdSetStencilWriteMask(cmd_, VK_STENCIL_FACE_FRONT_AND_BACK, 0xFF);
  if (dynamic & SBK_DYNAMIC_STENCIL_REFERENCE) vkCmdSetStencilReference(cmd_, VK_STENCIL_FACE_FRONT_AND_BACK, 0);

  const VkBuffer vertices = vertices_.buffer.get();
  for (uint32_t b = 0; b < host.binding_count; ++b)
    vkCmdBindVertexBuffers(cmd_, host.bindings[b].binding, 1, &vertices, &vertex_offsets_[host_index][b]);

  if (binding.contract.binding_count != 0) {
    VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    allocate.descriptorPool = pool_.get();
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &binding.set_layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (VkResult r = vkAllocateDescriptorSets(device_.device(), &allocate, &set); r != VK_SUCCESS)
      return vk_call_error("vkAllocateDescriptorSets", r);
    const VkDeviceSize packet_offset = packets_at_ + packet_stride_ * draws_in_frame_;
    if (binding.has_packet) std::memcpy(uniforms_.mapped + packet_offset, binding.packet, SBK_NV2A_PACKET_SIZE);
    VkWriteDescriptorSet writes[SBK_MAX_LAYOUT_BINDINGS];
    VkDescriptorImageInfo images[SBK_MAX_LAYOUT_BINDINGS];
    VkDescriptorBufferInfo buffers[SBK_MAX_LAYOUT_BINDINGS];
    for (uint32_t i = 0; i < binding.contract.binding_count; ++i) {
      const sbk_layout_binding& b = binding.contract.bindings[i];
      writes[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstSet = set;
      writes[i].dstBinding = b.binding;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = static_cast<VkDescriptorType>(b.descriptor_type);
      if (b.descriptor_type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) {
        // Bindings 0-3 are the texture stages; the stage's sampler dimensionality picks the texture.
        const uint8_t dim = b.binding < SBK_NV2A_TEXTURE_STAGES ? binding.sampler_dims[b.binding] : 0;
        images[i] = {sampler_.get(), textures_[dim == 0 ? uint8_t{SBK_SAMPLER_2D} : dim].view.get(),
                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        writes[i].pImageInfo = &images[i];
      } else if (b.binding == SBK_NV2A_BINDING_PACKET) {
        buffers[i] = {uniforms_.buffer.get(), packet_offset, SBK_NV2A_PACKET_SIZE};
        writes[i].pBufferInfo = &buffers[i];
      } else {  // the dynamic block
        buffers[i] = {uniforms_.buffer.get(), 0, SBK_NV2A_DYNAMIC_BLOCK_SIZE};
        writes[i].pBufferInfo = &buffers[i];
      }
    }
    vkUpdateDescriptorSets(device_.device(), binding.contract.binding_count, writes, 0, nullptr);
    vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, binding.layout, 0, 1, &set, 0, nullptr);
  }
  vkCmdDraw(cmd_, 3, 1, 0, 0);
  ++draws_in_frame_;
  return ok_status();
}

Result<double> FrameRenderer::end_frame() {
  if (current_target_) device_.end_rendering(cmd_);
  current_target_ = nullptr;
  double ms = 0;
  if (Status s = device_.submit_and_wait(&ms); !s) return std::move(s).error();
  return ms;
}

}  // namespace shaderbake::replay
