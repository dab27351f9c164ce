// SPDX-License-Identifier: MIT
#include "lib/vulkan/executor.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

#include "lib/vulkan/context.hpp"
#include "lib/vulkan/vulkan_error.hpp"

namespace shaderbake::vulkan {
namespace {

constexpr VkFormat kTargetFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kDepthFormat = VK_FORMAT_D16_UNORM;  // every device supports it as an attachment
constexpr VkFormat kAttributeFormat = VK_FORMAT_R32G32B32A32_SFLOAT;
constexpr uint32_t kAttributeBytes = 16;      // one vec4
constexpr uint32_t kVerticesPerCase = 4;      // a triangle strip quad
constexpr uint32_t kPositionBytesPerCase = kVerticesPerCase * kAttributeBytes;
constexpr uint64_t kFenceTimeoutNs = 300ull * 1000 * 1000 * 1000;  // a batch on a CPU driver takes seconds
constexpr uint32_t kSpirvMagic = 0x07230203;

enum class BindingKind : uint8_t { texture, uniform };

struct Slot {
  uint32_t binding;
  BindingKind kind;
  SamplerDim dim;  // textures only; dim2d for uniforms
  bool operator==(const Slot&) const = default;
};

// What a case declares; every case of a run must declare the same.
struct CaseInterface {
  size_t attributes = 0;
  std::vector<Slot> slots;  // sorted by binding
  bool operator==(const CaseInterface&) const = default;
};

const char* dim_name(SamplerDim dim) {
  switch (dim) {
    case SamplerDim::dim2d:
      return "2d";
    case SamplerDim::dim3d:
      return "3d";
    case SamplerDim::cube:
      return "cube";
  }
  return "invalid";
}

std::string describe(const CaseInterface& interface) {
  std::string text = std::to_string(interface.attributes) + " attribute(s), bindings {";
  for (size_t i = 0; i < interface.slots.size(); ++i) {
    const Slot& slot = interface.slots[i];
    if (i > 0) text += ", ";
    text += std::to_string(slot.binding) + ": ";
    text += slot.kind == BindingKind::uniform ? std::string("uniform") : std::string("texture ") + dim_name(slot.dim);
  }
  return text + "}";
}

// A caller bug (the executor's inputs are built by shaderbake itself, never read from files).
Error case_error(size_t index, const std::string& what) {
  Error error;
  error.kind = ErrorKind::internal;
  error.reason = "executor_bad_case";
  error.message = "draw case " + std::to_string(index) + ": " + what;
  return error;
}

Result<CaseInterface> interface_of(const DrawCase& draw, size_t index, const VkPhysicalDeviceLimits& limits) {
  CaseInterface interface;
  interface.attributes = draw.attributes.size();
  for (const TextureBinding& texture : draw.textures) {
    if (texture.dim != SamplerDim::dim2d && texture.dim != SamplerDim::dim3d && texture.dim != SamplerDim::cube) {
      return case_error(index, "texture at binding " + std::to_string(texture.binding) + " has an invalid dimension " +
                                   std::to_string(static_cast<int>(texture.dim)));
    }
    if (!texture.texels.empty()) {
      const uint64_t layers = texture.dim == SamplerDim::cube ? 6 : 1;
      const uint64_t depth = texture.dim == SamplerDim::dim3d ? texture.depth : 1;
      const bool shape = texture.width > 0 && texture.height > 0 && depth > 0 &&
                         (texture.dim != SamplerDim::cube || texture.width == texture.height) &&
                         (texture.dim == SamplerDim::dim3d || texture.depth == 1) &&
                         texture.width <= limits.maxImageDimension2D && texture.height <= limits.maxImageDimension2D &&
                         depth <= limits.maxImageDimension3D;
      if (!shape || texture.texels.size() != uint64_t{texture.width} * texture.height * depth * layers * 4)
        return case_error(index, "texture at binding " + std::to_string(texture.binding) + " holds " +
                                     std::to_string(texture.texels.size()) + " bytes for " + std::to_string(texture.width) +
                                     "x" + std::to_string(texture.height) + "x" + std::to_string(texture.depth) +
                                     " (RGBA8, a cube square, depth 1 unless 3D, within the device's limits)");
    }
    interface.slots.push_back({texture.binding, BindingKind::texture, texture.dim});
  }
  for (const UniformBinding& uniform : draw.uniforms) {
    if (uniform.bytes.empty() || uniform.bytes.size() > limits.maxUniformBufferRange) {
      return case_error(index, "uniform buffer at binding " + std::to_string(uniform.binding) + " has " +
                                   std::to_string(uniform.bytes.size()) + " bytes (allowed: 1 to " +
                                   std::to_string(limits.maxUniformBufferRange) + ")");
    }
    interface.slots.push_back({uniform.binding, BindingKind::uniform, SamplerDim::dim2d});
  }
  std::sort(interface.slots.begin(), interface.slots.end(),
            [](const Slot& a, const Slot& b) { return a.binding < b.binding; });
  for (size_t i = 1; i < interface.slots.size(); ++i) {
    if (interface.slots[i].binding == interface.slots[i - 1].binding) {
      return case_error(index, "binding " + std::to_string(interface.slots[i].binding) + " is declared twice");
    }
  }
  return interface;
}

// PipelineSpec::attribute_locations: empty, or one distinct location per attribute, none of them 0 (the
// position) and each below the device's maxVertexInputAttributes.
Status check_attribute_locations(const PipelineSpec& spec, size_t attributes, const VkPhysicalDeviceLimits& limits) {
  const std::vector<uint32_t>& locations = spec.attribute_locations;
  if (locations.empty()) return ok_status();
  bool valid = locations.size() == attributes;
  for (size_t i = 0; valid && i < locations.size(); ++i) {
    valid = locations[i] != 0 && locations[i] < limits.maxVertexInputAttributes &&
            std::find(locations.begin(), locations.begin() + static_cast<std::ptrdiff_t>(i), locations[i]) ==
                locations.begin() + static_cast<std::ptrdiff_t>(i);
  }
  if (valid) return ok_status();
  Error error;
  error.kind = ErrorKind::internal;
  error.reason = "executor_bad_attribute_locations";
  error.message = "PipelineSpec::attribute_locations holds " + std::to_string(locations.size()) +
                  " location(s) for " + std::to_string(attributes) +
                  " attribute(s); it needs one each, distinct, between 1 and " +
                  std::to_string(limits.maxVertexInputAttributes - 1);
  return error;
}

// One distinct texture of a run: dimensionality, extent and RGBA8 texels (layers consecutive).
struct TextureContent {
  SamplerDim dim;
  uint32_t width, height, depth;
  std::vector<uint8_t> texels;
  uint32_t layers() const { return dim == SamplerDim::cube ? 6 : 1; }
  auto operator<=>(const TextureContent&) const = default;
};

TextureContent content_of(const TextureBinding& texture) {
  if (!texture.texels.empty())
    return {texture.dim, texture.width, texture.height, texture.dim == SamplerDim::dim3d ? texture.depth : 1, texture.texels};
  TextureContent c{texture.dim, 1, 1, 1, {}};
  for (uint32_t layer = 0; layer < c.layers(); ++layer) c.texels.insert(c.texels.end(), texture.rgba.begin(), texture.rgba.end());
  return c;
}

VkDeviceSize align_up(VkDeviceSize value, VkDeviceSize alignment) {
  return alignment <= 1 ? value : (value + alignment - 1) / alignment * alignment;
}

// The textures of one run, one image per distinct content.
struct Textures {
  std::vector<DeviceObject<VkDeviceMemory>> memory;  // one allocation per group of compatible memory types
  std::vector<DeviceObject<VkImage>> images;
  std::vector<DeviceObject<VkImageView>> views;
  std::vector<TextureContent> contents;  // of each image
};

// A render target of one run: its image, its memory and the view the framebuffer takes (members destroyed in
// reverse order: the view, then the image, then its memory).
struct Attachment {
  DeviceObject<VkDeviceMemory> memory;
  DeviceObject<VkImage> image;
  DeviceObject<VkImageView> view;
};

// Every Vulkan object of one run(), destroyed (in reverse declaration order) once the device is idle.
class Runner {
 public:
  explicit Runner(const Context& context) : context_(context), device_(context.device()) {}
  ~Runner() {
    if (submitted_) vkDeviceWaitIdle(device_);  // an error may leave a batch in flight
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  Result<std::vector<PixelResult>> run(const PipelineSpec& spec, std::span<const DrawCase> cases);
  Result<FillTiming> time_fill(const PipelineSpec& spec, const DrawCase& draw, uint32_t width, uint32_t height,
                               uint32_t repeats);
  double pipeline_create_ms() const { return pipeline_create_ms_; }

 private:
  Status check_cases(std::span<const DrawCase> cases);
  Status create_pipeline(const PipelineSpec& spec, uint32_t target_rows);
  Status create_target(uint32_t target_rows);
  // A 2D image of `rows` x the target width, bound to device memory, with a view of `aspect`.
  Result<Attachment> create_attachment(VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, uint32_t rows);
  Status create_textures();
  Status create_batch_objects(std::span<const DrawCase> cases);
  Status write_descriptor_sets(std::span<const DrawCase> batch, size_t first_case, std::vector<VkDescriptorSet>& sets);
  Status record_batch(std::span<const DrawCase> batch, size_t first_case, bool first_batch);
  Status record_fill(const DrawCase& draw, bool warm_up);
  Status submit_and_wait();

  const Context& context_;
  VkDevice device_;
  bool submitted_ = false;
  double pipeline_create_ms_ = 0;

  CaseInterface interface_;
  std::vector<uint32_t> case_textures_;  // image index of every case's every texture, in DrawCase order
  std::vector<size_t> case_texture_begin_;

  DeviceObject<VkShaderModule> vertex_module_;
  DeviceObject<VkShaderModule> fragment_module_;
  DeviceObject<VkDescriptorSetLayout> set_layout_;
  DeviceObject<VkPipelineLayout> pipeline_layout_;
  DeviceObject<VkRenderPass> render_pass_;
  Attachment target_;
  DeviceObject<VkFramebuffer> framebuffer_;
  bool depth_ = false;  // PipelineSpec::depth_z16
  Attachment depth_target_;
  HostBuffer depth_readback_;
  DeviceObject<VkPipeline> pipeline_;
  DeviceObject<VkSampler> sampler_;
  Textures textures_;
  HostBuffer staging_;
  HostBuffer vertices_;
  HostBuffer uniforms_;
  HostBuffer readback_;
  DeviceObject<VkDescriptorPool> descriptor_pool_;
  DeviceObject<VkQueryPool> query_pool_;
  DeviceObject<VkQueryPool> timestamp_pool_;  // time_fill only, when the device has timestamps
  DeviceObject<VkCommandPool> command_pool_;
  DeviceObject<VkFence> fence_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;  // freed with its pool
  uint32_t target_width_ = Executor::kTargetWidth;  // run() keeps this width; time_fill sets its own
  uint32_t target_rows_ = 0;
  VkDeviceSize attribute_offset_ = 0;  // where binding 1 starts in vertices_
};

// Copies the top-left width x rows of an attachment (in TRANSFER_SRC layout; `aspect` colour or depth) to a
// read-back buffer, tightly packed, and makes the copy visible to the host.
void record_readback(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkBuffer readback, uint32_t width,
                     uint32_t rows) {
  VkBufferImageCopy copy{};
  copy.imageSubresource = {aspect, 0, 0, 1};
  copy.imageExtent = {width, rows, 1};
  vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &copy);
  VkBufferMemoryBarrier to_host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  to_host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_host.buffer = readback;
  to_host.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &to_host, 0,
                       nullptr);
}

Status Runner::check_cases(std::span<const DrawCase> cases) {
  const VkPhysicalDeviceLimits& limits = context_.limits();
  auto first = interface_of(cases[0], 0, limits);
  if (!first) return std::move(first).error();
  interface_ = std::move(first).value();
  if (interface_.attributes + 1 > limits.maxVertexInputAttributes ||
      interface_.attributes * kAttributeBytes > limits.maxVertexInputBindingStride) {
    return case_error(0, std::to_string(interface_.attributes) + " attributes, more than the device supports (" +
                             std::to_string(limits.maxVertexInputAttributes - 1) + ")");
  }
  std::map<TextureContent, uint32_t> texture_index;
  case_texture_begin_.reserve(cases.size() + 1);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i > 0) {
      auto interface = interface_of(cases[i], i, limits);
      if (!interface) return std::move(interface).error();
      if (!(*interface == interface_)) {
        return case_error(i, "declares " + describe(*interface) + " but case 0 declares " + describe(interface_));
      }
    }
    case_texture_begin_.push_back(case_textures_.size());
    for (const TextureBinding& texture : cases[i].textures) {
      TextureContent content = content_of(texture);
      auto [it, inserted] = texture_index.try_emplace(content, static_cast<uint32_t>(textures_.contents.size()));
      if (inserted) textures_.contents.push_back(std::move(content));
      case_textures_.push_back(it->second);
    }
  }
  case_texture_begin_.push_back(case_textures_.size());
  return ok_status();
}

Result<Attachment> Runner::create_attachment(VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                                             uint32_t rows) {
  Attachment out;
  VkImageCreateInfo image{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  image.imageType = VK_IMAGE_TYPE_2D;
  image.format = format;
  image.extent = {target_width_, rows, 1};
  image.mipLevels = 1;
  image.arrayLayers = 1;
  image.samples = VK_SAMPLE_COUNT_1_BIT;
  image.tiling = VK_IMAGE_TILING_OPTIMAL;
  image.usage = usage;
  image.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  image.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  auto created = create_object<VkImage>(device_, "vkCreateImage", vkCreateImage, image, vkDestroyImage);
  if (!created) return std::move(created).error();
  out.image = std::move(created).value();
  auto memory = context_.bind_image_memory(out.image.get());
  if (!memory) return std::move(memory).error();
  out.memory = std::move(memory).value();
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = out.image.get();
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = format;
  view.subresourceRange = {aspect, 0, 1, 0, 1};
  auto made_view = create_object<VkImageView>(device_, "vkCreateImageView", vkCreateImageView, view, vkDestroyImageView);
  if (!made_view) return std::move(made_view).error();
  out.view = std::move(made_view).value();
  return out;
}

Status Runner::create_target(uint32_t target_rows) {
  target_rows_ = target_rows;
  auto target = create_attachment(kTargetFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                  VK_IMAGE_ASPECT_COLOR_BIT, target_rows);
  if (!target) return std::move(target).error();
  target_ = std::move(target).value();

  // Cleared at load, stored, and left ready for the copy to the read-back buffer. The dependencies order
  // the clear after the previous batch's copy (write-after-read) and the copy after the draws.
  VkAttachmentDescription attachment{};
  attachment.format = kTargetFormat;
  attachment.samples = VK_SAMPLE_COUNT_1_BIT;
  attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachment.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachment.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachment.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkAttachmentReference color{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color;
  if (depth_) subpass.pDepthStencilAttachment = &depth;
  VkSubpassDependency dependencies[2]{};
  dependencies[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[0].dstSubpass = 0;
  dependencies[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[0].srcAccessMask = 0;
  dependencies[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[1].srcSubpass = 0;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  // With a depth attachment: the same life, D16, cleared to 0 and copied out after the draws.
  VkAttachmentDescription attachments_desc[2] = {attachment, attachment};
  attachments_desc[1].format = kDepthFormat;
  if (depth_) {
    const VkPipelineStageFlags tests = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    dependencies[0].dstStageMask |= tests;
    dependencies[0].dstAccessMask |= VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    dependencies[1].srcStageMask |= tests;
    dependencies[1].srcAccessMask |= VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  }
  VkRenderPassCreateInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  pass.attachmentCount = depth_ ? 2 : 1;
  pass.pAttachments = attachments_desc;
  pass.subpassCount = 1;
  pass.pSubpasses = &subpass;
  pass.dependencyCount = 2;
  pass.pDependencies = dependencies;
  auto render_pass = create_object<VkRenderPass>(device_, "vkCreateRenderPass", vkCreateRenderPass, pass, vkDestroyRenderPass);
  if (!render_pass) return std::move(render_pass).error();
  render_pass_ = std::move(render_pass).value();

  if (depth_) {
    auto depth = create_attachment(kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                   VK_IMAGE_ASPECT_DEPTH_BIT, target_rows);
    if (!depth) return std::move(depth).error();
    depth_target_ = std::move(depth).value();
  }
  VkImageView attachments[] = {target_.view.get(), depth_target_.view.get()};
  VkFramebufferCreateInfo framebuffer{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  framebuffer.renderPass = render_pass_.get();
  framebuffer.attachmentCount = depth_ ? 2 : 1;
  framebuffer.pAttachments = attachments;
  framebuffer.width = target_width_;
  framebuffer.height = target_rows;
  framebuffer.layers = 1;
  auto made = create_object<VkFramebuffer>(device_, "vkCreateFramebuffer", vkCreateFramebuffer, framebuffer, vkDestroyFramebuffer);
  if (!made) return std::move(made).error();
  framebuffer_ = std::move(made).value();
  return ok_status();
}

Result<DeviceObject<VkShaderModule>> create_module(VkDevice device, const std::vector<uint32_t>& words, const char* stage) {
  if (words.size() < 5 || words[0] != kSpirvMagic) {
    return toolchain_error("invalid_spirv", std::string(stage) + " SPIR-V is not a SPIR-V module (" +
                                                std::to_string(words.size()) + " words, no magic number)");
  }
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = words.size() * sizeof(uint32_t);
  info.pCode = words.data();
  return create_object<VkShaderModule>(device, "vkCreateShaderModule", vkCreateShaderModule, info, vkDestroyShaderModule);
}

Status Runner::create_pipeline(const PipelineSpec& spec, uint32_t target_rows) {
  auto vertex = create_module(device_, spec.vertex_spirv, "vertex");
  if (!vertex) return std::move(vertex).error();
  vertex_module_ = std::move(vertex).value();
  auto fragment = create_module(device_, spec.fragment_spirv, "fragment");
  if (!fragment) return std::move(fragment).error();
  fragment_module_ = std::move(fragment).value();

  // Descriptor set 0, from the case interface.
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const Slot& slot : interface_.slots) {
    VkDescriptorSetLayoutBinding binding{};
    binding.binding = slot.binding;
    binding.descriptorType = slot.kind == BindingKind::texture ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                                               : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    binding.descriptorCount = 1;
    binding.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    bindings.push_back(binding);
  }
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  if (!bindings.empty()) {
    VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.bindingCount = static_cast<uint32_t>(bindings.size());
    set.pBindings = bindings.data();
    auto made = create_object<VkDescriptorSetLayout>(device_, "vkCreateDescriptorSetLayout", vkCreateDescriptorSetLayout,
                                                     set, vkDestroyDescriptorSetLayout);
    if (!made) return std::move(made).error();
    set_layout_ = std::move(made).value();
    set_layout = set_layout_.get();
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &set_layout;
  }
  auto pipeline_layout = create_object<VkPipelineLayout>(device_, "vkCreatePipelineLayout", vkCreatePipelineLayout, layout,
                                                         vkDestroyPipelineLayout);
  if (!pipeline_layout) return std::move(pipeline_layout).error();
  pipeline_layout_ = std::move(pipeline_layout).value();

  depth_ = spec.depth_z16;
  Status target = create_target(target_rows);
  if (!target) return target;

  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex_module_.get();
  stages[0].pName = "main";
  stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragment_module_.get();
  stages[1].pName = "main";
  // Each stage's VkSpecializationInfo, alive until the pipeline is created below.
  std::array<std::vector<VkSpecializationMapEntry>, 2> map_entries;
  std::array<VkSpecializationInfo, 2> specialization{};
  const StageSpecialization* given[2] = {&spec.vertex_specialization, &spec.fragment_specialization};
  for (size_t s = 0; s < 2; ++s) {
    if (given[s]->entries.empty()) continue;
    for (const StageSpecialization::Entry& e : given[s]->entries) map_entries[s].push_back({e.constant_id, e.offset, e.size});
    specialization[s].mapEntryCount = static_cast<uint32_t>(map_entries[s].size());
    specialization[s].pMapEntries = map_entries[s].data();
    specialization[s].dataSize = given[s]->data.size();
    specialization[s].pData = given[s]->data.data();
    stages[s].pSpecializationInfo = &specialization[s];
  }

  // Binding 0: the executor's clip-space positions, per vertex. Binding 1: the case's attributes, per
  // instance (each case is drawn as instance `case` of one, so firstInstance selects its attributes).
  const uint32_t attributes = static_cast<uint32_t>(interface_.attributes);
  VkVertexInputBindingDescription vertex_bindings[2] = {
      {0, kAttributeBytes, VK_VERTEX_INPUT_RATE_VERTEX},
      {1, attributes * kAttributeBytes, VK_VERTEX_INPUT_RATE_INSTANCE},
  };
  std::vector<VkVertexInputAttributeDescription> vertex_attributes;
  vertex_attributes.push_back({0, 0, kAttributeFormat, 0});
  for (uint32_t i = 0; i < attributes; ++i) {
    const uint32_t location = spec.attribute_locations.empty() ? i + 1 : spec.attribute_locations[i];
    vertex_attributes.push_back({location, 1, kAttributeFormat, i * kAttributeBytes});
  }
  VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vertex_input.vertexBindingDescriptionCount = attributes > 0 ? 2 : 1;
  vertex_input.pVertexBindingDescriptions = vertex_bindings;
  vertex_input.vertexAttributeDescriptionCount = static_cast<uint32_t>(vertex_attributes.size());
  vertex_input.pVertexAttributeDescriptions = vertex_attributes.data();

  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;

  VkViewport viewport{0.0f, 0.0f, static_cast<float>(target_width_), static_cast<float>(target_rows), 0.0f, 1.0f};
  VkRect2D scissor{{0, 0}, {target_width_, target_rows}};
  VkPipelineViewportStateCreateInfo viewport_state{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport_state.viewportCount = 1;
  viewport_state.pViewports = &viewport;
  viewport_state.scissorCount = 1;
  viewport_state.pScissors = &scissor;

  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;

  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;

  VkPipelineColorBlendAttachmentState blend_attachment{};
  blend_attachment.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = 1;
  blend.pAttachments = &blend_attachment;

  VkPipelineDepthStencilStateCreateInfo depth_state{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depth_state.depthTestEnable = VK_TRUE;
  depth_state.depthWriteEnable = VK_TRUE;
  depth_state.depthCompareOp = VK_COMPARE_OP_ALWAYS;

  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  if (depth_) info.pDepthStencilState = &depth_state;
  info.pStages = stages;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport_state;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blend;
  info.layout = pipeline_layout_.get();
  info.renderPass = render_pass_.get();
  info.subpass = 0;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const auto start = std::chrono::steady_clock::now();
  VkResult result = vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
  pipeline_create_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (result != VK_SUCCESS) return vk_call_error("vkCreateGraphicsPipelines", result);
  pipeline_ = DeviceObject<VkPipeline>(device_, pipeline, vkDestroyPipeline);
  return ok_status();
}

Status Runner::create_textures() {
  if (textures_.contents.empty()) return ok_status();
  VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sampler.magFilter = VK_FILTER_NEAREST;
  sampler.minFilter = VK_FILTER_NEAREST;
  sampler.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  sampler.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sampler.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sampler.maxLod = 0.0f;
  auto made = create_object<VkSampler>(device_, "vkCreateSampler", vkCreateSampler, sampler, vkDestroySampler);
  if (!made) return std::move(made).error();
  sampler_ = std::move(made).value();

  // Images first; memory is then shared by every image of the same memory-type mask, so that a run with
  // thousands of distinct colours makes a handful of allocations (maxMemoryAllocationCount may be 4096).
  std::map<uint32_t, std::vector<std::pair<size_t, VkMemoryRequirements>>> groups;
  VkDeviceSize staging_bytes = 0;
  for (size_t i = 0; i < textures_.contents.size(); ++i) {
    const TextureContent& content = textures_.contents[i];
    const SamplerDim dim = content.dim;
    VkImageCreateInfo image{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    image.imageType = dim == SamplerDim::dim3d ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
    image.flags = dim == SamplerDim::cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0;
    image.format = kTargetFormat;
    image.extent = {content.width, content.height, content.depth};
    image.mipLevels = 1;
    image.arrayLayers = content.layers();
    image.samples = VK_SAMPLE_COUNT_1_BIT;
    image.tiling = VK_IMAGE_TILING_OPTIMAL;
    image.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    image.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    image.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    auto created = create_object<VkImage>(device_, "vkCreateImage", vkCreateImage, image, vkDestroyImage);
    if (!created) return std::move(created).error();
    VkMemoryRequirements requirements;
    vkGetImageMemoryRequirements(device_, created->get(), &requirements);
    groups[requirements.memoryTypeBits].push_back({i, requirements});
    textures_.images.push_back(std::move(created).value());
    staging_bytes += content.texels.size();
  }
  for (const auto& [type_bits, members] : groups) {
    VkDeviceSize size = 0;
    std::vector<VkDeviceSize> offsets;
    for (const auto& member : members) {
      size = align_up(size, member.second.alignment);
      offsets.push_back(size);
      size += member.second.size;
    }
    auto type = context_.memory_type(type_bits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "textures");
    if (!type) return std::move(type).error();
    VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocate.allocationSize = size;
    allocate.memoryTypeIndex = *type;
    auto memory = create_object<VkDeviceMemory>(device_, "vkAllocateMemory", vkAllocateMemory, allocate, vkFreeMemory);
    if (!memory) return std::move(memory).error();
    for (size_t m = 0; m < members.size(); ++m) {
      VkResult result = vkBindImageMemory(device_, textures_.images[members[m].first].get(), memory->get(), offsets[m]);
      if (result != VK_SUCCESS) return vk_call_error("vkBindImageMemory", result);
    }
    textures_.memory.push_back(std::move(memory).value());
  }
  for (size_t i = 0; i < textures_.contents.size(); ++i) {
    const SamplerDim dim = textures_.contents[i].dim;
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = textures_.images[i].get();
    view.viewType = dim == SamplerDim::dim3d ? VK_IMAGE_VIEW_TYPE_3D
                    : dim == SamplerDim::cube ? VK_IMAGE_VIEW_TYPE_CUBE
                                              : VK_IMAGE_VIEW_TYPE_2D;
    view.format = kTargetFormat;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, dim == SamplerDim::cube ? 6u : 1u};
    auto created = create_object<VkImageView>(device_, "vkCreateImageView", vkCreateImageView, view, vkDestroyImageView);
    if (!created) return std::move(created).error();
    textures_.views.push_back(std::move(created).value());
  }

  // The texels, uploaded by the first batch's command buffer: image after image, layers consecutive.
  auto staging = context_.create_host_buffer(staging_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false);
  if (!staging) return std::move(staging).error();
  staging_ = std::move(staging).value();
  VkDeviceSize offset = 0;
  for (const TextureContent& content : textures_.contents) {
    std::memcpy(staging_.mapped + offset, content.texels.data(), content.texels.size());
    offset += content.texels.size();
  }
  return ok_status();
}

// Bytes of uniform data a batch needs: every block of every case, each at an offset aligned to the
// device's minUniformBufferOffsetAlignment (the same packing record_batch writes).
VkDeviceSize uniform_bytes(std::span<const DrawCase> batch, VkDeviceSize alignment) {
  VkDeviceSize cursor = 0;
  for (const DrawCase& draw : batch) {
    for (const UniformBinding& uniform : draw.uniforms) cursor = align_up(cursor, alignment) + uniform.bytes.size();
  }
  return cursor;
}

Status Runner::create_batch_objects(std::span<const DrawCase> cases) {
  const size_t capacity = std::min<size_t>(cases.size(), Executor::kCasesPerBatch);
  const VkDeviceSize alignment = context_.limits().minUniformBufferOffsetAlignment;

  attribute_offset_ = capacity * kPositionBytesPerCase;
  const VkDeviceSize vertex_bytes = attribute_offset_ + capacity * interface_.attributes * kAttributeBytes;
  auto vertices = context_.create_host_buffer(vertex_bytes, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, false);
  if (!vertices) return std::move(vertices).error();
  vertices_ = std::move(vertices).value();

  VkDeviceSize most_uniform_bytes = 0;
  for (size_t begin = 0; begin < cases.size(); begin += Executor::kCasesPerBatch) {
    const size_t count = std::min<size_t>(cases.size() - begin, Executor::kCasesPerBatch);
    most_uniform_bytes = std::max(most_uniform_bytes, uniform_bytes(cases.subspan(begin, count), alignment));
  }
  if (most_uniform_bytes > 0) {
    auto uniforms = context_.create_host_buffer(most_uniform_bytes, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, false);
    if (!uniforms) return std::move(uniforms).error();
    uniforms_ = std::move(uniforms).value();
  }

  auto readback = context_.create_host_buffer(VkDeviceSize{target_width_} * target_rows_ * 4,
                                              VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  if (!readback) return std::move(readback).error();
  readback_ = std::move(readback).value();
  if (depth_) {
    auto depth_readback = context_.create_host_buffer(VkDeviceSize{target_width_} * target_rows_ * 2,
                                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    if (!depth_readback) return std::move(depth_readback).error();
    depth_readback_ = std::move(depth_readback).value();
  }

  if (!interface_.slots.empty()) {
    uint32_t texture_count = 0;
    uint32_t uniform_count = 0;
    for (const Slot& slot : interface_.slots) (slot.kind == BindingKind::texture ? texture_count : uniform_count)++;
    std::vector<VkDescriptorPoolSize> sizes;
    if (texture_count > 0) {
      sizes.push_back({VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, static_cast<uint32_t>(capacity * texture_count)});
    }
    if (uniform_count > 0) {
      sizes.push_back({VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, static_cast<uint32_t>(capacity * uniform_count)});
    }
    VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool.maxSets = static_cast<uint32_t>(capacity);
    pool.poolSizeCount = static_cast<uint32_t>(sizes.size());
    pool.pPoolSizes = sizes.data();
    auto made = create_object<VkDescriptorPool>(device_, "vkCreateDescriptorPool", vkCreateDescriptorPool, pool,
                                                vkDestroyDescriptorPool);
    if (!made) return std::move(made).error();
    descriptor_pool_ = std::move(made).value();
  }

  VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  queries.queryType = VK_QUERY_TYPE_OCCLUSION;
  queries.queryCount = static_cast<uint32_t>(capacity);
  auto query_pool = create_object<VkQueryPool>(device_, "vkCreateQueryPool", vkCreateQueryPool, queries, vkDestroyQueryPool);
  if (!query_pool) return std::move(query_pool).error();
  query_pool_ = std::move(query_pool).value();

  VkCommandPoolCreateInfo commands{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  commands.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  commands.queueFamilyIndex = context_.queue_family();
  auto command_pool =
      create_object<VkCommandPool>(device_, "vkCreateCommandPool", vkCreateCommandPool, commands, vkDestroyCommandPool);
  if (!command_pool) return std::move(command_pool).error();
  command_pool_ = std::move(command_pool).value();
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = command_pool_.get();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkResult result = vkAllocateCommandBuffers(device_, &allocate, &command_buffer_);
  if (result != VK_SUCCESS) return vk_call_error("vkAllocateCommandBuffers", result);

  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  auto made_fence = create_object<VkFence>(device_, "vkCreateFence", vkCreateFence, fence, vkDestroyFence);
  if (!made_fence) return std::move(made_fence).error();
  fence_ = std::move(made_fence).value();
  return ok_status();
}

void record_texture_upload(VkCommandBuffer cmd, const Textures& textures, VkBuffer staging) {
  std::vector<VkImageMemoryBarrier> barriers;
  barriers.reserve(textures.images.size());
  for (size_t i = 0; i < textures.images.size(); ++i) {
    const uint32_t layers = textures.contents[i].layers();
    VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    barrier.srcAccessMask = 0;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = textures.images[i].get();
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers};
    barriers.push_back(barrier);
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       static_cast<uint32_t>(barriers.size()), barriers.data());
  VkDeviceSize offset = 0;
  for (size_t i = 0; i < textures.images.size(); ++i) {
    const TextureContent& content = textures.contents[i];
    VkBufferImageCopy copy{};
    copy.bufferOffset = offset;
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, content.layers()};
    copy.imageExtent = {content.width, content.height, content.depth};
    vkCmdCopyBufferToImage(cmd, staging, textures.images[i].get(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    offset += content.texels.size();
  }
  for (VkImageMemoryBarrier& barrier : barriers) {
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    barrier.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr, 0,
                       nullptr, static_cast<uint32_t>(barriers.size()), barriers.data());
}

// Allocates one descriptor set per case of `batch` (cases first_case.. of the run) from the reset pool and
// writes them, uniform data included; `sets` stays empty when the interface has no bindings.
Status Runner::write_descriptor_sets(std::span<const DrawCase> batch, size_t first_case,
                                     std::vector<VkDescriptorSet>& sets) {
  sets.clear();
  if (!descriptor_pool_) return ok_status();
  const auto count = static_cast<uint32_t>(batch.size());
  VkResult result = vkResetDescriptorPool(device_, descriptor_pool_.get(), 0);
  if (result != VK_SUCCESS) return vk_call_error("vkResetDescriptorPool", result);
  std::vector<VkDescriptorSetLayout> layouts(count, set_layout_.get());
  sets.resize(count);
  VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocate.descriptorPool = descriptor_pool_.get();
  allocate.descriptorSetCount = count;
  allocate.pSetLayouts = layouts.data();
  result = vkAllocateDescriptorSets(device_, &allocate, sets.data());
  if (result != VK_SUCCESS) return vk_call_error("vkAllocateDescriptorSets", result);

  const VkDeviceSize alignment = context_.limits().minUniformBufferOffsetAlignment;
  std::vector<VkDescriptorImageInfo> images;
  std::vector<VkDescriptorBufferInfo> buffers;
  std::vector<VkWriteDescriptorSet> writes;
  images.reserve(case_texture_begin_[first_case + count] - case_texture_begin_[first_case]);
  buffers.reserve(count * batch[0].uniforms.size());
  writes.reserve(count * interface_.slots.size());
  VkDeviceSize cursor = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const DrawCase& draw = batch[k];
    for (size_t t = 0; t < draw.textures.size(); ++t) {
      const uint32_t image = case_textures_[case_texture_begin_[first_case + k] + t];
      images.push_back({sampler_.get(), textures_.views[image].get(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
      VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = sets[k];
      write.dstBinding = draw.textures[t].binding;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      write.pImageInfo = &images.back();
      writes.push_back(write);
    }
    for (const UniformBinding& uniform : draw.uniforms) {
      cursor = align_up(cursor, alignment);
      std::memcpy(uniforms_.mapped + cursor, uniform.bytes.data(), uniform.bytes.size());
      buffers.push_back({uniforms_.buffer.get(), cursor, uniform.bytes.size()});
      cursor += uniform.bytes.size();
      VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = sets[k];
      write.dstBinding = uniform.binding;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
      write.pBufferInfo = &buffers.back();
      writes.push_back(write);
    }
  }
  vkUpdateDescriptorSets(device_, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return ok_status();
}

Status Runner::record_batch(std::span<const DrawCase> batch, size_t first_case, bool first_batch) {
  const auto count = static_cast<uint32_t>(batch.size());
  const uint32_t rows = (count + Executor::kTargetWidth - 1) / Executor::kTargetWidth;

  // Vertex data: a quad covering exactly pixel (x, y) of the W x target_rows_ target, then the attributes.
  auto* positions = reinterpret_cast<float*>(vertices_.mapped);
  const float width = static_cast<float>(Executor::kTargetWidth);
  const float height = static_cast<float>(target_rows_);
  for (uint32_t k = 0; k < count; ++k) {
    const float x0 = 2.0f * static_cast<float>(k % Executor::kTargetWidth) / width - 1.0f;
    const float x1 = 2.0f * static_cast<float>(k % Executor::kTargetWidth + 1) / width - 1.0f;
    const float y0 = 2.0f * static_cast<float>(k / Executor::kTargetWidth) / height - 1.0f;
    const float y1 = 2.0f * static_cast<float>(k / Executor::kTargetWidth + 1) / height - 1.0f;
    const float quad[kVerticesPerCase][4] = {{x0, y0, 0, 1}, {x1, y0, 0, 1}, {x0, y1, 0, 1}, {x1, y1, 0, 1}};
    std::memcpy(positions + size_t{k} * kVerticesPerCase * 4, quad, sizeof(quad));
  }
  if (interface_.attributes > 0) {
    uint8_t* attributes = vertices_.mapped + attribute_offset_;
    for (const DrawCase& draw : batch) {
      std::memcpy(attributes, draw.attributes.data(), draw.attributes.size() * kAttributeBytes);
      attributes += draw.attributes.size() * kAttributeBytes;
    }
  }

  // Descriptor sets: one per case, written in one call.
  std::vector<VkDescriptorSet> sets;
  Status written = write_descriptor_sets(batch, first_case, sets);
  if (!written) return written;

  VkResult result = vkResetCommandPool(device_, command_pool_.get(), 0);
  if (result != VK_SUCCESS) return vk_call_error("vkResetCommandPool", result);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  result = vkBeginCommandBuffer(command_buffer_, &begin);
  if (result != VK_SUCCESS) return vk_call_error("vkBeginCommandBuffer", result);
  VkCommandBuffer cmd = command_buffer_;

  if (first_batch && !textures_.images.empty()) record_texture_upload(cmd, textures_, staging_.buffer.get());
  vkCmdResetQueryPool(cmd, query_pool_.get(), 0, count);

  VkClearValue clear[2]{};  // colour (0, 0, 0, 0); depth 0
  VkRenderPassBeginInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  pass.renderPass = render_pass_.get();
  pass.framebuffer = framebuffer_.get();
  pass.renderArea = {{0, 0}, {Executor::kTargetWidth, target_rows_}};
  pass.clearValueCount = depth_ ? 2 : 1;
  pass.pClearValues = clear;
  vkCmdBeginRenderPass(cmd, &pass, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_.get());
  VkBuffer vertex_buffers[2] = {vertices_.buffer.get(), vertices_.buffer.get()};
  VkDeviceSize vertex_offsets[2] = {0, attribute_offset_};
  vkCmdBindVertexBuffers(cmd, 0, interface_.attributes > 0 ? 2 : 1, vertex_buffers, vertex_offsets);
  for (uint32_t k = 0; k < count; ++k) {
    if (!sets.empty()) {
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout_.get(), 0, 1, &sets[k], 0, nullptr);
    }
    vkCmdBeginQuery(cmd, query_pool_.get(), k, 0);
    vkCmdDraw(cmd, kVerticesPerCase, 1, k * kVerticesPerCase, k);
    vkCmdEndQuery(cmd, query_pool_.get(), k);
  }
  vkCmdEndRenderPass(cmd);

  record_readback(cmd, target_.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, readback_.buffer.get(), Executor::kTargetWidth, rows);
  if (depth_)
    record_readback(cmd, depth_target_.image.get(), VK_IMAGE_ASPECT_DEPTH_BIT, depth_readback_.buffer.get(), Executor::kTargetWidth,
                    rows);
  result = vkEndCommandBuffer(cmd);
  if (result != VK_SUCCESS) return vk_call_error("vkEndCommandBuffer", result);
  return ok_status();
}

Status Runner::submit_and_wait() {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  VkFence fence = fence_.get();
  VkResult result = vkResetFences(device_, 1, &fence);
  if (result != VK_SUCCESS) return vk_call_error("vkResetFences", result);
  result = vkQueueSubmit(context_.queue(), 1, &submit, fence);
  if (result != VK_SUCCESS) return vk_call_error("vkQueueSubmit", result);
  submitted_ = true;
  result = vkWaitForFences(device_, 1, &fence, VK_TRUE, kFenceTimeoutNs);
  if (result != VK_SUCCESS) return vk_call_error("vkWaitForFences", result);
  return ok_status();
}

Result<std::vector<PixelResult>> Runner::run(const PipelineSpec& spec, std::span<const DrawCase> cases) {
  Status checked = check_cases(cases);
  if (checked) checked = check_attribute_locations(spec, interface_.attributes, context_.limits());
  if (!checked) return std::move(checked).error();
  const size_t capacity = std::min<size_t>(cases.size(), Executor::kCasesPerBatch);
  const auto target_rows = static_cast<uint32_t>((capacity + Executor::kTargetWidth - 1) / Executor::kTargetWidth);
  Status step = create_pipeline(spec, target_rows);
  if (step) step = create_textures();
  if (step) step = create_batch_objects(cases);
  if (!step) return std::move(step).error();

  std::vector<PixelResult> results;
  results.reserve(cases.size());
  std::vector<uint64_t> samples(capacity);
  for (size_t begin = 0; begin < cases.size(); begin += Executor::kCasesPerBatch) {
    const auto count = static_cast<uint32_t>(std::min<size_t>(cases.size() - begin, Executor::kCasesPerBatch));
    Status recorded = record_batch(cases.subspan(begin, count), begin, begin == 0);
    if (!recorded) return std::move(recorded).error();
    Status done = submit_and_wait();
    if (!done) return std::move(done).error();
    VkResult result = vkGetQueryPoolResults(device_, query_pool_.get(), 0, count, count * sizeof(uint64_t), samples.data(),
                                            sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (result != VK_SUCCESS) return vk_call_error("vkGetQueryPoolResults", result);
    for (uint32_t k = 0; k < count; ++k) {
      PixelResult pixel;
      std::memcpy(pixel.rgba.data(), readback_.mapped + size_t{k} * 4, 4);
      pixel.discarded = samples[k] == 0;
      if (depth_) std::memcpy(&pixel.depth_z16, depth_readback_.mapped + size_t{k} * 2, 2);
      results.push_back(pixel);
    }
  }
  return results;
}

// Records one fill: the whole target cleared and covered by one quad. The warm-up fill also uploads the
// textures, counts the quad's samples (occlusion query 0) and copies pixel (0, 0) to the read-back buffer;
// a timed fill brackets the render pass with timestamps 0 and 1 when the device has them.
Status Runner::record_fill(const DrawCase& draw, bool warm_up) {
  std::vector<VkDescriptorSet> sets;
  Status written = write_descriptor_sets(std::span<const DrawCase>(&draw, 1), 0, sets);
  if (!written) return written;

  VkResult result = vkResetCommandPool(device_, command_pool_.get(), 0);
  if (result != VK_SUCCESS) return vk_call_error("vkResetCommandPool", result);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = warm_up ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0;  // a timed fill is resubmitted
  result = vkBeginCommandBuffer(command_buffer_, &begin);
  if (result != VK_SUCCESS) return vk_call_error("vkBeginCommandBuffer", result);
  VkCommandBuffer cmd = command_buffer_;

  if (warm_up) {
    if (!textures_.images.empty()) record_texture_upload(cmd, textures_, staging_.buffer.get());
    vkCmdResetQueryPool(cmd, query_pool_.get(), 0, 1);
  } else if (timestamp_pool_) {
    vkCmdResetQueryPool(cmd, timestamp_pool_.get(), 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamp_pool_.get(), 0);
  }

  VkClearValue clear[2]{};  // colour (0, 0, 0, 0); depth 0
  VkRenderPassBeginInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  pass.renderPass = render_pass_.get();
  pass.framebuffer = framebuffer_.get();
  pass.renderArea = {{0, 0}, {target_width_, target_rows_}};
  pass.clearValueCount = depth_ ? 2 : 1;
  pass.pClearValues = clear;
  vkCmdBeginRenderPass(cmd, &pass, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_.get());
  VkBuffer vertex_buffers[2] = {vertices_.buffer.get(), vertices_.buffer.get()};
  VkDeviceSize vertex_offsets[2] = {0, attribute_offset_};
  vkCmdBindVertexBuffers(cmd, 0, interface_.attributes > 0 ? 2 : 1, vertex_buffers, vertex_offsets);
  if (!sets.empty()) {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout_.get(), 0, 1, &sets[0], 0, nullptr);
  }
  if (warm_up) vkCmdBeginQuery(cmd, query_pool_.get(), 0, 0);
  vkCmdDraw(cmd, kVerticesPerCase, 1, 0, 0);
  if (warm_up) vkCmdEndQuery(cmd, query_pool_.get(), 0);
  vkCmdEndRenderPass(cmd);

  if (warm_up) {
    record_readback(cmd, target_.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, readback_.buffer.get(), 1, 1);
  } else if (timestamp_pool_) {
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamp_pool_.get(), 1);
  }
  result = vkEndCommandBuffer(cmd);
  if (result != VK_SUCCESS) return vk_call_error("vkEndCommandBuffer", result);
  return ok_status();
}

// A caller bug in time_fill's arguments.
Error fill_error(const std::string& what) {
  Error error;
  error.kind = ErrorKind::internal;
  error.reason = "executor_bad_fill";
  error.message = "time_fill: " + what;
  return error;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Result<FillTiming> Runner::time_fill(const PipelineSpec& spec, const DrawCase& draw, uint32_t width, uint32_t height,
                                     uint32_t repeats) {
  using Clock = std::chrono::steady_clock;
  const VkPhysicalDeviceLimits& limits = context_.limits();
  const uint32_t max_width =
      std::min({limits.maxImageDimension2D, limits.maxFramebufferWidth, limits.maxViewportDimensions[0]});
  const uint32_t max_height =
      std::min({limits.maxImageDimension2D, limits.maxFramebufferHeight, limits.maxViewportDimensions[1]});
  if (width == 0 || height == 0 || width > max_width || height > max_height) {
    return fill_error("a " + std::to_string(width) + "x" + std::to_string(height) +
                      " target; this device renders 1x1 to " + std::to_string(max_width) + "x" +
                      std::to_string(max_height));
  }
  if (repeats == 0) return fill_error("repeats must be at least 1");
  const std::span<const DrawCase> cases(&draw, 1);
  Status checked = check_cases(cases);
  if (checked) checked = check_attribute_locations(spec, interface_.attributes, limits);
  if (!checked) return std::move(checked).error();

  target_width_ = width;
  FillTiming timing;
  Status step = create_pipeline(spec, height);
  timing.pipeline_create_ms = pipeline_create_ms_;
  if (step) step = create_textures();
  if (step) step = create_batch_objects(cases);
  if (!step) return std::move(step).error();

  // Graphics queues have timestamps when timestampComputeAndGraphics says so (its timestampValidBits is
  // then 36 to 64); otherwise the wall clock is all there is.
  if (limits.timestampComputeAndGraphics == VK_TRUE && limits.timestampPeriod > 0.0f) {
    VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queries.queryCount = 2;
    auto pool = create_object<VkQueryPool>(device_, "vkCreateQueryPool", vkCreateQueryPool, queries, vkDestroyQueryPool);
    if (!pool) return std::move(pool).error();
    timestamp_pool_ = std::move(pool).value();
  }
  timing.gpu_timestamps = static_cast<bool>(timestamp_pool_);

  // One quad over the whole target (triangle strip), then the case's attributes (instance 0).
  const float quad[kVerticesPerCase][4] = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {-1, 1, 0, 1}, {1, 1, 0, 1}};
  std::memcpy(vertices_.mapped, quad, sizeof(quad));
  if (interface_.attributes > 0) {
    std::memcpy(vertices_.mapped + attribute_offset_, draw.attributes.data(), draw.attributes.size() * kAttributeBytes);
  }

  step = record_fill(draw, true);
  const auto warm_start = Clock::now();
  if (step) step = submit_and_wait();
  timing.first_fill_ms = std::chrono::duration<double, std::milli>(Clock::now() - warm_start).count();
  if (!step) return std::move(step).error();
  uint64_t samples = 0;
  VkResult result = vkGetQueryPoolResults(device_, query_pool_.get(), 0, 1, sizeof(samples), &samples, sizeof(samples),
                                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (result != VK_SUCCESS) return vk_call_error("vkGetQueryPoolResults", result);
  timing.discarded = samples == 0;
  std::memcpy(timing.first_pixel.data(), readback_.mapped, 4);

  step = record_fill(draw, false);
  if (!step) return std::move(step).error();
  std::vector<double> wall;
  std::vector<double> gpu;
  // A timestamp pair that goes backwards straddles the counter's wrap (once per 2^36 ticks at most): that
  // fill is measured again.
  for (uint32_t attempt = 0; wall.size() < repeats; ++attempt) {
    if (attempt > repeats + 2) {
      return toolchain_error("vulkan_bad_timestamps", "time_fill: the device's timestamps went backwards " +
                                                          std::to_string(attempt - wall.size()) + " times");
    }
    const auto start = Clock::now();
    Status done = submit_and_wait();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!done) return std::move(done).error();
    if (timestamp_pool_) {
      uint64_t ticks[2] = {0, 0};
      result = vkGetQueryPoolResults(device_, timestamp_pool_.get(), 0, 2, sizeof(ticks), ticks, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      if (result != VK_SUCCESS) return vk_call_error("vkGetQueryPoolResults", result);
      if (ticks[1] < ticks[0]) continue;
      gpu.push_back(static_cast<double>(ticks[1] - ticks[0]) * static_cast<double>(limits.timestampPeriod) / 1e6);
    }
    wall.push_back(wall_ms);
  }
  const std::vector<double>& figures = timestamp_pool_ ? gpu : wall;
  timing.median_ms = median_of(figures);
  timing.min_ms = *std::min_element(figures.begin(), figures.end());
  timing.max_ms = *std::max_element(figures.begin(), figures.end());
  timing.wall_median_ms = median_of(wall);
  return timing;
}

}  // namespace

Executor::Executor(std::unique_ptr<Context> context) : context_(std::move(context)) {}
Executor::~Executor() = default;

Result<std::unique_ptr<Executor>> Executor::create(const ExecutorOptions& options) {
  auto context = Context::create(options);
  if (!context) return std::move(context).error();
  return std::unique_ptr<Executor>(new Executor(std::move(context).value()));
}

const std::string& Executor::device_name() const { return context_->device_name(); }
bool Executor::validation_active() const { return context_->validation_active(); }
const std::vector<std::string>& Executor::validation_messages() const { return context_->validation_messages(); }
double Executor::last_pipeline_create_ms() const { return last_pipeline_create_ms_; }

Result<FillTiming> Executor::time_fill(const PipelineSpec& spec, const DrawCase& draw, uint32_t width, uint32_t height,
                                       uint32_t repeats) {
  Runner runner(*context_);
  return runner.time_fill(spec, draw, width, height, repeats);
}

Result<std::vector<PixelResult>> Executor::run(const PipelineSpec& spec, std::span<const DrawCase> cases) {
  last_pipeline_create_ms_ = 0;
  if (cases.empty()) return std::vector<PixelResult>{};
  Runner runner(*context_);
  auto results = runner.run(spec, cases);
  last_pipeline_create_ms_ = runner.pipeline_create_ms();
  return results;
}

}  // namespace shaderbake::vulkan
