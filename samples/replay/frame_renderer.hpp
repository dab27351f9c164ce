// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "runtime_loader/shaderbake_router.h"
#include "samples/replay/pixel_compare.hpp"
#include "samples/replay/replay_guest.hpp"
#include "samples/replay/replay_trace.hpp"
#include "samples/replay/vk_device.hpp"

namespace shaderbake::replay {

// What a draw (or dispatch) binds, resolved once at the first use of its (program, host state) pair, whatever
// the route.
struct DrawBinding {
  VkPipeline pipeline = VK_NULL_HANDLE;  // VK_NULL_HANDLE: nothing to draw with (the draw is skipped)
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  sbk_layout contract{};        // descriptor set 0, as the pipeline layout declares it
  bool compute = false;         // a compute pipeline: dispatched, not drawn
  uint32_t program = 0;         // the guest program (ReplayGuest::sampler_dim picks its textures)
  bool fallback = false;        // a fallback route: the packet goes to packet_binding
  uint32_t packet_binding = 0;
  uint32_t packet_size = 0;     // 0 when the family's modules read no block
  uint8_t packet[kMaxPacketSize]{};
  // A route of the runtime router: sbk_router_cmd_bind binds the pipeline (and, for the dynamic route, the
  // state the pipeline leaves dynamic and the default vertex attributes) instead of vkCmdBindPipeline.
  const sbk_router* router = nullptr;
  const sbk_router_binding* routed = nullptr;

  // The program's packet, for a fallback route (ReplayGuest::encode_packet).
  void set_packet(const ReplayGuest& guest, uint32_t program_index);
};

// Renders a trace's draws the way an emulator submits them, into small offscreen targets: one command
// buffer per frame, submitted and waited for (a fence) at the end of the frame, so that every pipeline is
// really bound and drawn with. Per draw: the render target its host state's formats and sample count need
// (dynamic rendering), the pipeline, one triangle from a vertex buffer laid out as the host's vertex
// bindings say (a screen-covering triangle at the guest's position location where that attribute is 32-bit
// float, a fixed value that is not zero elsewhere), descriptor set 0 as the pipeline's layout contract asks,
// and the push constants the guest gives. Per dispatch (a compute pipeline): rendering ends, one workgroup is
// dispatched with the same descriptor set 0 and push constants, and a barrier orders it before what follows.
// Descriptor set 0: 1x1 textures of the dimensionality the guest names for each sampler binding, the guest's
// uniform block for every uniform buffer but the fallback routes' packet, the draw's packet there, and a
// zeroed region of its own for each storage buffer binding.
//
// Everything here is created up front (the targets of every host state of the trace, textures, buffers,
// timestamp queries, the read-back buffer): it is the emulator's own state, not first-use work.
//
// Where the queue writes timestamps, each run of consecutive fallback draws into one target is bracketed by a
// TOP_OF_PIPE and a BOTTOM_OF_PIPE timestamp; fallback_gpu_ms() is their sum for the frame.
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
  // Records one dispatch of a compute `binding`.
  Status dispatch(const DrawBinding& binding);
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
  // Allocates, writes and binds descriptor set 0 of `binding`, and pushes its constants.
  Status bind_resources(const DrawBinding& binding, VkPipelineBindPoint bind_point);
  void record_read_back();

  const VulkanDevice& device_;
  const ReplayTrace& trace_;
  std::map<TargetKey, Target> targets_;
  std::vector<const Target*> target_of_host_;
  std::vector<std::vector<VkDeviceSize>> vertex_offsets_;  // per host, per binding (host order)
  Image textures_[4];  // by SamplerDim: [1] 2D, [2] 3D, [3] cube; [0] unused
  vulkan::DeviceObject<VkSampler> sampler_;
  vulkan::HostBuffer vertices_;
  // The guest's uniform block at 0 (uniform_block_size_ bytes), then from packets_at_ one packet slot per draw of
  // the largest frame.
  vulkan::HostBuffer uniforms_;
  VkDeviceSize uniform_block_size_ = 0;
  vulkan::HostBuffer storage_;   // one zeroed region of kStorageRegion bytes per binding slot of a contract
  static constexpr VkDeviceSize kStorageRegion = 16384;
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
