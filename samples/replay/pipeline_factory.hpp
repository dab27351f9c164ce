// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::replay {

// A pipeline layout made from a layout contract: descriptor set 0 and the push-constant range.
struct PipelineLayout {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
};

// Creates the Vulkan objects of one replay mode (shader modules, layouts, pipelines), all through one
// VkPipelineCache, counts what it creates, and destroys all of it with the mode. Pipelines are filled
// from a host state with the runtime header's sbk_vk_fill_pipeline (compute pipelines with
// sbk_vk_fill_compute_pipeline), for every route.
//
// `salt`: when not empty, every shader module gets an OpSourceExtension carrying it, so that the driver
// sees modules it has never seen in this process. The modes of one run use different salts (and
// bundle+cache none, so that its modules match the data `shaderbake warm` stored): an in-process cache a
// driver keeps by module contents (no environment variable turns it off) then cannot carry one mode's work
// into the next. The salt changes no instruction the driver compiles.
class PipelineFactory {
 public:
  PipelineFactory(VkDevice device, VkPipelineCache cache, std::string salt)
      : device_(device), cache_(cache), salt_(std::move(salt)) {}
  ~PipelineFactory();
  PipelineFactory(const PipelineFactory&) = delete;
  PipelineFactory& operator=(const PipelineFactory&) = delete;

  Result<VkShaderModule> create_module(std::span<const uint32_t> spirv);
  Result<PipelineLayout> create_layout(const sbk_layout& contract);
  // `specialization` (may be null): the values of a bundle entry (sbk_bundle_specialization) or the renderer's own.
  Result<VkPipeline> create_pipeline(const sbk_host_state& host, VkShaderModule vertex, VkShaderModule fragment,
                                     VkPipelineLayout layout, const sbk_specialization* specialization = nullptr);
  Result<VkPipeline> create_compute_pipeline(VkShaderModule module, VkPipelineLayout layout,
                                             const sbk_specialization* specialization);

  uint64_t pipelines_created() const { return pipelines_.size(); }
  uint64_t modules_created() const { return modules_.size(); }

 private:
  VkDevice device_;
  VkPipelineCache cache_;
  std::string salt_;
  std::vector<VkShaderModule> modules_;
  std::vector<PipelineLayout> layouts_;
  std::vector<VkPipeline> pipelines_;
};

// A copy of a SPIR-V module with an OpSourceExtension holding `text` in its debug section.
std::vector<uint32_t> salted_spirv(std::span<const uint32_t> words, const std::string& text);

}  // namespace shaderbake::replay
