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

// Writes the vertex value of a non-position attribute, {0.75, 0.5, 0.25, 0.625} by component, in `format`
// (formats the trace schema has for attributes; any other stays zero). Values that are not zero make every
// input of the combiners count in the pixels the read-back compares.
void write_attribute_value(uint32_t format, uint8_t* out) {
  static const float kValues[4] = {0.75f, 0.5f, 0.25f, 0.625f};
  auto half = [](float v) {  // the values above, exactly: sign 0, exponent and 10-bit mantissa
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const uint32_t exponent = (bits >> 23 & 0xFF) - 127 + 15;
    return static_cast<uint16_t>(exponent << 10 | (bits >> 13 & 0x3FF));
  };
  uint32_t components = float32_components(format);
  if (components != 0) {
    std::memcpy(out, kValues, components * sizeof(float));
    return;
  }
  switch (format) {
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_UNORM:
      for (int c = 0; c < 4; ++c) out[c] = static_cast<uint8_t>(kValues[c] * 255.0f + 0.5f);
      break;
    case VK_FORMAT_R16G16_SNORM:
    case VK_FORMAT_R16G16B16A16_SNORM:
      components = format == VK_FORMAT_R16G16_SNORM ? 2 : 4;
      for (uint32_t c = 0; c < components; ++c) {
        const int16_t v = static_cast<int16_t>(kValues[c] * 32767.0f + 0.5f);
        std::memcpy(out + 2 * c, &v, 2);
      }
      break;
    case VK_FORMAT_R16G16_SFLOAT:
    case VK_FORMAT_R16G16B16A16_SFLOAT:
      components = format == VK_FORMAT_R16G16_SFLOAT ? 2 : 4;
      for (uint32_t c = 0; c < components; ++c) {
        const uint16_t v = half(kValues[c]);
        std::memcpy(out + 2 * c, &v, 2);
      }
      break;
    default: break;
  }
}

}  // namespace

void DrawBinding::set_packet(const ReplayGuest& guest, uint32_t program_index) {
  fallback = true;
  packet_size = static_cast<uint32_t>(guest.encode_packet(program_index, packet, &packet_binding));
}

Result<std::unique_ptr<FrameRenderer>> FrameRenderer::create(const VulkanDevice& device, const ReplayTrace& trace,
                                                             bool read_back_pixels) {
  std::unique_ptr<FrameRenderer> self(new FrameRenderer(device, trace, read_back_pixels));
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
  // Read-back adds the copy source use to every colour target of the run (every mode of it alike).
  const VkImageUsageFlags color_usage =
      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | (read_back_pixels_ ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
  for (uint32_t i = 0; i < host.color_count; ++i) {
    const auto format = static_cast<VkFormat>(host.color_formats[i]);
    auto image = create_image(VK_IMAGE_TYPE_2D, VK_IMAGE_VIEW_TYPE_2D, format, 1, samples, color_usage,
                              VK_IMAGE_ASPECT_COLOR_BIT);
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
// (where it is 32-bit float) a triangle that covers the target at depth 0.5, every other attribute the same
// fixed value at each vertex (write_attribute_value).
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
      const bool position = attribute.location == trace_.guest->position_location();
      if (position && components == 0) continue;
      for (uint32_t b = 0; b < host.binding_count; ++b) {
        if (host.bindings[b].binding != attribute.binding) continue;
        for (uint32_t v = 0; v < 3; ++v) {
          uint8_t* at = vertices_.mapped + vertex_offsets_[h][b] + v * host.bindings[b].stride + attribute.offset;
          if (position)
            std::memcpy(at, kCorners[v], components * sizeof(float));
          else
            write_attribute_value(attribute.format, at);
        }
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
  for (int dim = kSampler2D; dim <= kSamplerCube; ++dim) {
    auto image = create_image(kTextures[dim].type, kTextures[dim].view, VK_FORMAT_R8G8B8A8_UNORM, kTextures[dim].layers,
                              VK_SAMPLE_COUNT_1_BIT, texture_usage, VK_IMAGE_ASPECT_COLOR_BIT);
    if (!image) return std::move(image).error();
    textures_[dim] = std::move(*image);
  }

  // Uniforms: the guest's block (fixed values that are not zero; they never reach a key, so no route depends on
  // them), then one packet slot per draw of the largest frame. Storage buffers: a zeroed region per binding slot.
  const VkDeviceSize alignment = device_.context().limits().minUniformBufferOffsetAlignment;
  const std::span<const uint8_t> block = trace_.guest->uniform_block();
  uniform_block_size_ = std::max<VkDeviceSize>(block.size(), 16);
  packet_stride_ = align_up(kMaxPacketSize, alignment);
  packets_at_ = align_up(uniform_block_size_, alignment);
  auto uniforms = create_buffer(packets_at_ + packet_stride_ * std::max(trace_.max_draws_per_frame, 1u),
                                VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!uniforms) return std::move(uniforms).error();
  uniforms_ = std::move(*uniforms);
  std::memcpy(uniforms_.mapped, block.data(), block.size());
  auto storage = create_buffer(kStorageRegion * SBK_MAX_LAYOUT_BINDINGS, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  if (!storage) return std::move(storage).error();
  storage_ = std::move(*storage);

  if (Status s = prepare_vertex_data(); !s) return s;
  for (const sbk_host_state& host : trace_.hosts) {
    TargetKey key{std::vector<uint32_t>(host.color_formats, host.color_formats + host.color_count), host.depth_format,
                  host.samples};
    auto it = targets_.find(key);
    if (it == targets_.end()) {
      auto target = create_target(host);
      if (!target) return std::move(target).error();
      target->index = static_cast<uint32_t>(targets_.size());
      it = targets_.emplace(std::move(key), std::move(*target)).first;
    }
    target_of_host_.push_back(&it->second);
  }
  target_rendered_.assign(targets_.size(), false);
  draws_into_target_.assign(targets_.size(), 0u);

  // Read-back: one region per colour attachment it reads, in one host buffer the frame's copies fill.
  VkDeviceSize read_back_size = 0;
  for (auto& [key, target] : targets_) {
    const bool single_sample = std::get<2>(key) == VK_SAMPLE_COUNT_1_BIT;
    for (VkFormat format : target.color_formats) {
      const uint32_t texel = comparable_texel_bytes(format);
      if (!read_back_pixels_ || !single_sample || texel == 0) {
        target.read_back_at.push_back(kNotRead);
        if (read_back_pixels_) ++images_not_read_;
        continue;
      }
      target.read_back_at.push_back(read_back_size);
      read_back_size += VkDeviceSize{kTargetSize} * kTargetSize * texel;
    }
  }
  if (read_back_size != 0) {
    auto buffer = device_.context().create_host_buffer(read_back_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, /*prefer_cached=*/true);
    if (!buffer) return std::move(buffer).error();
    read_back_ = std::move(*buffer);
  }

  // Timestamps: at most two per draw of the largest frame (a run of fallback draws opens and closes once).
  if (device_.timestamp_valid_bits() != 0) {
    VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queries.queryCount = 2 * std::max(trace_.max_draws_per_frame, 1u);
    auto pool = create_object<VkQueryPool>(d, "vkCreateQueryPool", vkCreateQueryPool, queries, vkDestroyQueryPool);
    if (!pool) return std::move(pool).error();
    timestamps_ = std::move(pool).value();
    timestamp_capacity_ = queries.queryCount;
  }

  const uint32_t sets = std::max(trace_.max_draws_per_frame, 1u);
  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, SBK_MAX_LAYOUT_BINDINGS * sets},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, SBK_MAX_LAYOUT_BINDINGS * sets},
                                        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SBK_MAX_LAYOUT_BINDINGS * sets}};
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = sets;
  pool.poolSizeCount = 3;
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
  for (int dim = kSampler2D; dim <= kSamplerCube; ++dim)
    barrier(textures_[dim].image.get(), VK_IMAGE_ASPECT_COLOR_BIT, kTextures[dim].layers, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       static_cast<uint32_t>(barriers.size()), barriers.data());
  barriers.clear();
  const VkClearColorValue grey = {{0.5f, 0.5f, 0.5f, 1.0f}};
  for (int dim = kSampler2D; dim <= kSamplerCube; ++dim) {
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
  in_fallback_span_ = false;
  timestamps_written_ = 0;
  fallback_gpu_ms_ = 0;
  std::fill(target_rendered_.begin(), target_rendered_.end(), false);
  std::fill(draws_into_target_.begin(), draws_into_target_.end(), 0u);
  if (timestamp_capacity_ != 0) vkCmdResetQueryPool(cmd_, timestamps_.get(), 0, timestamp_capacity_);
  return ok_status();
}

void FrameRenderer::write_timestamp(VkPipelineStageFlagBits stage) {
  vkCmdWriteTimestamp(cmd_, stage, timestamps_.get(), timestamps_written_++);
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
  const bool fallback = binding.fallback;
  // A run of fallback draws ends at a draw of another route or another target.
  if (in_fallback_span_ && (!fallback || target != current_target_)) {
    write_timestamp(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    in_fallback_span_ = false;
  }
  if (target != current_target_) {
    if (current_target_) device_.end_rendering(cmd_);
    begin_rendering(*target);
    current_target_ = target;
    target_rendered_[target->index] = true;
  }
  if (fallback && !in_fallback_span_ && timestamp_capacity_ != 0) {
    write_timestamp(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    in_fallback_span_ = true;
  }
  if (read_back_pixels_) {
    // Each draw of the frame into this target gets a tile of its own (the scissor; the viewport, and so what
    // the draw computes at each pixel, is unchanged): what every draw wrote stays visible to the comparison,
    // not only the target's last draws. Past kTiles draws in one target the tiles are used again.
    const uint32_t tile = draws_into_target_[target->index]++ % kTiles;
    const VkRect2D scissor = {{static_cast<int32_t>(tile % kTilesPerRow * kTileSize), static_cast<int32_t>(tile / kTilesPerRow * kTileSize)},
                              {kTileSize, kTileSize}};
    vkCmdSetScissor(cmd_, 0, 1, &scissor);
  }
  if (binding.routed) {
    // Every draw: the dynamic route's state is the draw's host state, which differs between pairs that share
    // the pipeline; a static pipeline bound next is bound again.
    sbk_router_cmd_bind(binding.router, cmd_, binding.routed, &host);
    current_pipeline_ = VK_NULL_HANDLE;
  } else if (binding.pipeline != current_pipeline_) {
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

  if (Status s = bind_resources(binding, VK_PIPELINE_BIND_POINT_GRAPHICS); !s) return s;
  vkCmdDraw(cmd_, 3, 1, 0, 0);
  ++draws_in_frame_;
  return ok_status();
}

Status FrameRenderer::dispatch(const DrawBinding& binding) {
  if (in_fallback_span_) {
    write_timestamp(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    in_fallback_span_ = false;
  }
  if (current_target_) device_.end_rendering(cmd_);
  current_target_ = nullptr;  // the next draw begins rendering again (clearing its target, as a pass would)
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, binding.pipeline);
  current_pipeline_ = VK_NULL_HANDLE;
  if (Status s = bind_resources(binding, VK_PIPELINE_BIND_POINT_COMPUTE); !s) return s;
  vkCmdDispatch(cmd_, 1, 1, 1);
  // The storage regions are shared by every dispatch and draw of the frame.
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                           VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       0, 1, &after, 0, nullptr, 0, nullptr);
  ++draws_in_frame_;
  return ok_status();
}

Status FrameRenderer::bind_resources(const DrawBinding& binding, VkPipelineBindPoint bind_point) {
  if (binding.contract.push_constant_size != 0) {
    // The guest's values, zero past what it gives: a layout's range is at most maxPushConstantsSize.
    uint8_t values[256] = {};
    const std::span<const uint8_t> given = trace_.guest->push_constants(binding.compute);
    const uint32_t size = std::min<uint32_t>(binding.contract.push_constant_size, sizeof values);
    std::memcpy(values, given.data(), std::min<size_t>(given.size(), size));
    vkCmdPushConstants(cmd_, binding.layout, binding.contract.push_constant_stages, 0, size, values);
  }
  if (binding.contract.binding_count == 0) return ok_status();
  VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocate.descriptorPool = pool_.get();
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &binding.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (VkResult r = vkAllocateDescriptorSets(device_.device(), &allocate, &set); r != VK_SUCCESS)
    return vk_call_error("vkAllocateDescriptorSets", r);
  const VkDeviceSize packet_offset = packets_at_ + packet_stride_ * draws_in_frame_;
  if (binding.fallback) std::memcpy(uniforms_.mapped + packet_offset, binding.packet, binding.packet_size);
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
    switch (b.descriptor_type) {
      case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: {
        const uint8_t dim = trace_.guest->sampler_dim(binding.program, b.binding);
        images[i] = {sampler_.get(), textures_[dim == 0 || dim > kSamplerCube ? uint8_t{kSampler2D} : dim].view.get(),
                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        writes[i].pImageInfo = &images[i];
        break;
      }
      case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
        if (binding.fallback && b.binding == binding.packet_binding)
          buffers[i] = {uniforms_.buffer.get(), packet_offset, packet_stride_};
        else
          buffers[i] = {uniforms_.buffer.get(), 0, uniform_block_size_};
        writes[i].pBufferInfo = &buffers[i];
        break;
      case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
        buffers[i] = {storage_.buffer.get(), kStorageRegion * i, kStorageRegion};
        writes[i].pBufferInfo = &buffers[i];
        break;
      default:
        return vulkan::toolchain_error("unsupported_descriptor", "a pipeline layout asks for descriptor type " +
                                                                     std::to_string(b.descriptor_type) +
                                                                     ", which the replay does not provide");
    }
  }
  vkUpdateDescriptorSets(device_.device(), binding.contract.binding_count, writes, 0, nullptr);
  vkCmdBindDescriptorSets(cmd_, bind_point, binding.layout, 0, 1, &set, 0, nullptr);
  return ok_status();
}

// Copies every read colour attachment the frame rendered into to read_back_ (outside rendering), and leaves
// the attachments as the next frame expects them.
void FrameRenderer::record_read_back() {
  std::vector<VkImageMemoryBarrier> to_copy, to_render;
  std::vector<std::pair<const Target*, size_t>> copies;
  for (const auto& [key, target] : targets_) {
    if (!target_rendered_[target.index]) continue;
    for (size_t c = 0; c < target.colors.size(); ++c) {
      if (target.read_back_at[c] == kNotRead) continue;
      VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
      b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
      b.image = target.colors[c].image.get();
      b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      b.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
      b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
      b.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
      b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
      to_copy.push_back(b);
      b.srcAccessMask = 0;  // after the copy's read: an execution dependency suffices
      b.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
      b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
      b.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
      to_render.push_back(b);
      copies.emplace_back(&target, c);
    }
  }
  if (copies.empty()) return;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       0, nullptr, static_cast<uint32_t>(to_copy.size()), to_copy.data());
  for (const auto& [target, c] : copies) {
    VkBufferImageCopy region{};
    region.bufferOffset = target->read_back_at[c];
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {kTargetSize, kTargetSize, 1};
    vkCmdCopyImageToBuffer(cmd_, target->colors[c].image.get(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           read_back_.buffer.get(), 1, &region);
  }
  VkBufferMemoryBarrier to_host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  to_host.srcQueueFamilyIndex = to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.buffer = read_back_.buffer.get();
  to_host.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                       &to_host, static_cast<uint32_t>(to_render.size()), to_render.data());
}

Result<double> FrameRenderer::end_frame(FramePixels* pixels) {
  if (in_fallback_span_) {
    write_timestamp(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    in_fallback_span_ = false;
  }
  if (current_target_) device_.end_rendering(cmd_);
  current_target_ = nullptr;
  if (read_back_.buffer) record_read_back();
  double ms = 0;
  if (Status s = device_.submit_and_wait(&ms); !s) return std::move(s).error();
  if (timestamps_written_ != 0) {
    std::vector<uint64_t> ticks(timestamps_written_);
    if (VkResult r = vkGetQueryPoolResults(device_.device(), timestamps_.get(), 0, timestamps_written_,
                                           ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        r != VK_SUCCESS)
      return vk_call_error("vkGetQueryPoolResults", r);
    const uint32_t bits = device_.timestamp_valid_bits();
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const double ns_per_tick = device_.context().limits().timestampPeriod;
    uint64_t total = 0;
    for (uint32_t i = 0; i + 1 < timestamps_written_; i += 2) total += ((ticks[i + 1] - ticks[i]) & mask);
    fallback_gpu_ms_ = static_cast<double>(total) * ns_per_tick / 1e6;
  }
  if (pixels && read_back_.buffer) {
    pixels->targets.clear();
    for (const auto& [key, target] : targets_) {
      if (!target_rendered_[target.index]) continue;
      for (size_t c = 0; c < target.colors.size(); ++c) {
        if (target.read_back_at[c] == kNotRead) continue;
        TargetPixels image;
        image.target = target.index;
        image.attachment = static_cast<uint32_t>(c);
        image.format = target.color_formats[c];
        const uint8_t* at = read_back_.mapped + target.read_back_at[c];
        image.bytes.assign(at, at + size_t{kTargetSize} * kTargetSize * comparable_texel_bytes(image.format));
        pixels->targets.push_back(std::move(image));
      }
    }
  }
  return ms;
}

}  // namespace shaderbake::replay
