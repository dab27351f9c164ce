// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake_router.h"
#include "samples/replay/pixel_compare.hpp"
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
  bool has_packet = false;      // fallback routes: the packet goes to SBK_NV2A_BINDING_PACKET
  uint8_t packet[SBK_NV2A_PACKET_SIZE]{};
  // A route of the runtime router: sbk_router_cmd_bind binds the pipeline (and, for the dynamic route, the
  // state the pipeline leaves dynamic and the default vertex attributes) instead of vkCmdBindPipeline.
  const sbk_router* router = nullptr;
  const sbk_router_binding* routed = nullptr;

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
// Everything here is created up front (the targets of every host state of the trace, textures, buffers,
// timestamp queries, the read-back buffer): it is the emulator's own state, not first-use work.
//
// Where the queue writes timestamps, each run of consecutive fallback draws (has_packet) into one target is
// bracketed by a TOP_OF_PIPE and a BOTTOM_OF_PIPE timestamp; fallback_gpu_ms() is their sum for the frame.
// With `read_back_pixels`, every colour attachment of a single-sample target of a comparable format
// (comparable_texel_bytes) that the frame rendered into is copied to host memory at the end of the frame,
// and each draw into a target is scissored to an 8x8 tile of its own (the frame's n-th draw there to tile
// n mod 64), so that the read-back shows every draw, not only a target's last ones.
class FrameRenderer {
 public:
  static Result<std::unique_ptr<FrameRenderer>> create(const VulkanDevice& device, const ReplayTrace& trace,
                                                       bool read_back_pixels);
  ~FrameRenderer();
  FrameRenderer(const FrameRenderer&) = delete;
  FrameRenderer& operator=(const FrameRenderer&) = delete;

  Status begin_frame();
  // Records one draw of host state `host` (an index into the trace's hosts) with `binding`.
  Status draw(const DrawBinding& binding, uint32_t host);
  // Submits the frame and waits for it: the wall time of submit + wait in milliseconds. With read-back on,
  // `pixels` (if not null) gets the frame's colour attachments (its drawn_digest is the caller's).
  Result<double> end_frame(FramePixels* pixels = nullptr);

  bool gpu_timestamps() const { return timestamp_capacity_ != 0; }
  // The frame just ended: GPU time of its fallback draws, in milliseconds (0 without timestamps).
  double fallback_gpu_ms() const { return fallback_gpu_ms_; }
  // Colour attachments never read back: multisampled, or of a format the comparison does not read.
  uint64_t images_not_read() const { return images_not_read_; }

  static constexpr uint32_t kTargetSize = 64;

 private:
  struct Image {
    vulkan::DeviceObject<VkDeviceMemory> memory;  // declared first: freed after the image bound to it
    vulkan::DeviceObject<VkImage> image;
    vulkan::DeviceObject<VkImageView> view;
  };
  struct Target {
    uint32_t index = 0;  // creation order: the same for every mode of one trace
    std::vector<Image> colors;
    std::vector<VkFormat> color_formats;
    std::vector<VkDeviceSize> read_back_at;  // per colour attachment: offset in read_back_, or kNotRead
    Image depth;
    VkFormat depth_format = VK_FORMAT_UNDEFINED;
  };
  static constexpr VkDeviceSize kNotRead = ~VkDeviceSize{0};
  using TargetKey = std::tuple<std::vector<uint32_t>, uint32_t, uint32_t>;  // colour formats, depth format, samples

  FrameRenderer(const VulkanDevice& device, const ReplayTrace& trace, bool read_back_pixels)
      : device_(device), trace_(trace), read_back_pixels_(read_back_pixels) {}
  Status create_resources();
  Result<Image> create_image(VkImageType type, VkImageViewType view_type, VkFormat format, uint32_t layers,
                             VkSampleCountFlagBits samples, VkImageUsageFlags usage, VkImageAspectFlags aspect);
  Result<vulkan::HostBuffer> create_buffer(VkDeviceSize size, VkBufferUsageFlags usage) const;
  Result<Target> create_target(const sbk_host_state& host);
  Status prepare_vertex_data();
  void begin_rendering(const Target& target);
  void write_timestamp(VkPipelineStageFlagBits stage);
  void record_read_back();

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
  const bool read_back_pixels_;
  vulkan::HostBuffer read_back_;  // every read colour attachment at its Target::read_back_at offset
  uint64_t images_not_read_ = 0;
  vulkan::DeviceObject<VkQueryPool> timestamps_;
  uint32_t timestamp_capacity_ = 0;  // 0: no timestamps

  // The frame being recorded.
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  const Target* current_target_ = nullptr;
  VkPipeline current_pipeline_ = VK_NULL_HANDLE;
  uint32_t draws_in_frame_ = 0;
  bool in_fallback_span_ = false;
  uint32_t timestamps_written_ = 0;
  std::vector<bool> target_rendered_;  // by Target::index, this frame
  std::vector<uint32_t> draws_into_target_;  // by Target::index, this frame (read-back: the draw's tile)
  static constexpr uint32_t kTileSize = 8, kTilesPerRow = kTargetSize / kTileSize, kTiles = kTilesPerRow * kTilesPerRow;
  double fallback_gpu_ms_ = 0;
};

}  // namespace shaderbake::replay
