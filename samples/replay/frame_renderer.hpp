// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "runtime_loader/shaderbake.h"
#include "samples/replay/replay_trace.hpp"
#include "samples/replay/vk_device.hpp"

namespace shaderbake::replay {

// What a draw binds, resolved once at the first use of its (program, host state) pair, whatever the route.
struct DrawBinding {
  VkPipeline pipeline = VK_NULL_HANDLE;  // VK_NULL_HANDLE: nothing to draw with (the draw is skipped)
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  sbk_layout contract{};        // descriptor set 0, as the pipeline layout declares it
  uint8_t sampler_dims[SBK_NV2A_TEXTURE_STAGES]{};  // sbk_sampler_dim of texture stages 0-3 (bindings 0-3)
  bool has_packet = false;      // fallback route: the packet goes to SBK_NV2A_BINDING_PACKET
  uint8_t packet[SBK_NV2A_PACKET_SIZE]{};

  // Fills sampler_dims from `program`'s effective texture modes (every route binds textures the same way).
  void set_sampler_dims(const sbk_nv2a_program& program);
};

// Renders a trace's draws the way an emulator submits them, into small offscreen targets: one command
// buffer per frame, submitted and waited for (a fence) at the end of the frame, so that every pipeline is
// really bound and drawn with. Per draw: the render target its host state's formats and sample count need
// (dynamic rendering), the pipeline, one triangle from a vertex buffer laid out as the host's vertex
// bindings say (a screen-covering triangle where the position is 32-bit float, zeros elsewhere), and
// descriptor set 0 as the pipeline's layout contract asks: 1x1 textures of each stage's dimensionality, the
// dynamic block (zero values) and, for the fallback route, the draw's packet.
//
// Everything here is created up front (the targets of every host state of the trace, textures, buffers):
// it is the emulator's own state, not first-use work.
class FrameRenderer {
 public:
  static Result<std::unique_ptr<FrameRenderer>> create(const VulkanDevice& device, const ReplayTrace& trace);
  ~FrameRenderer();
  FrameRenderer(const FrameRenderer&) = delete;
  FrameRenderer& operator=(const FrameRenderer&) = delete;

  Status begin_frame();
  // Records one draw of host state `host` (an index into the trace's hosts) with `binding`.
  Status draw(const DrawBinding& binding, uint32_t host);
  // Submits the frame and waits for it: the wall time of submit + wait in milliseconds.
  Result<double> end_frame();

  static constexpr uint32_t kTargetSize = 64;

 private:
  struct Image {
    vulkan::DeviceObject<VkDeviceMemory> memory;  // declared first: freed after the image bound to it
    vulkan::DeviceObject<VkImage> image;
    vulkan::DeviceObject<VkImageView> view;
  };
  struct Target {
    std::vector<Image> colors;
    std::vector<VkFormat> color_formats;
    Image depth;
    VkFormat depth_format = VK_FORMAT_UNDEFINED;
  };
  using TargetKey = std::tuple<std::vector<uint32_t>, uint32_t, uint32_t>;  // colour formats, depth format, samples

  explicit FrameRenderer(const VulkanDevice& device, const ReplayTrace& trace) : device_(device), trace_(trace) {}
  Status create_resources();
  Result<Image> create_image(VkImageType type, VkImageViewType view_type, VkFormat format, uint32_t layers,
                             VkSampleCountFlagBits samples, VkImageUsageFlags usage, VkImageAspectFlags aspect);
  Result<vulkan::HostBuffer> create_buffer(VkDeviceSize size, VkBufferUsageFlags usage) const;
  Result<Target> create_target(const sbk_host_state& host);
  Status prepare_vertex_data();
  void begin_rendering(const Target& target);

  const VulkanDevice& device_;
  const ReplayTrace& trace_;
  std::map<TargetKey, Target> targets_;
  std::vector<const Target*> target_of_host_;
  std::vector<std::vector<VkDeviceSize>> vertex_offsets_;  // per host, per binding (host order)
  Image textures_[4];  // by sbk_sampler_dim: [1] 2D, [2] 3D, [3] cube; [0] unused
  vulkan::DeviceObject<VkSampler> sampler_;
  vulkan::HostBuffer vertices_;
  vulkan::HostBuffer uniforms_;  // the dynamic block at 0, then from packets_at_ one packet slot per draw of a frame
  VkDeviceSize packets_at_ = 0;
  VkDeviceSize packet_stride_ = 0;
  vulkan::DeviceObject<VkDescriptorPool> pool_;

  // The frame being recorded.
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  const Target* current_target_ = nullptr;
  VkPipeline current_pipeline_ = VK_NULL_HANDLE;
  uint32_t draws_in_frame_ = 0;
};

}  // namespace shaderbake::replay
