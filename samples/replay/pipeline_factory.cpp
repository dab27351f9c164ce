// SPDX-License-Identifier: MIT
#include "samples/replay/pipeline_factory.hpp"
#include "lib/vulkan/vulkan_error.hpp"
#include "runtime_loader/shaderbake_vulkan.h"  // the create-info helpers (implementation: shaderbake_vulkan.c)

#include <algorithm>
#include <array>
#include <cstring>

namespace shaderbake::replay {

std::vector<uint32_t> salted_spirv(std::span<const uint32_t> words, const std::string& text) {
  constexpr uint32_t kOpSourceExtension = 4;
  // The instructions that precede the debug section (SPIR-V 2.4, logical layout): OpCapability, OpExtension,
  // OpExtInstImport, OpMemoryModel, OpEntryPoint, OpExecutionMode, OpExecutionModeId.
  constexpr std::array<uint32_t, 7> kPreamble = {17, 10, 11, 14, 15, 16, 331};
  size_t at = 5;  // after the header
  while (at < words.size() && (words[at] >> 16) != 0 &&
         std::find(kPreamble.begin(), kPreamble.end(), words[at] & 0xFFFFu) != kPreamble.end())
    at += words[at] >> 16;
  at = std::min(at, words.size());
  std::vector<uint32_t> literal((text.size() + 4) / 4, 0);  // nul-terminated, zero-padded to a word
  std::memcpy(literal.data(), text.data(), text.size());
  std::vector<uint32_t> out(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(at));
  out.push_back(static_cast<uint32_t>(literal.size() + 1) << 16 | kOpSourceExtension);
  out.insert(out.end(), literal.begin(), literal.end());
  out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(at), words.end());
  return out;
}

PipelineFactory::~PipelineFactory() {
  for (VkPipeline p : pipelines_) vkDestroyPipeline(device_, p, nullptr);
  for (const PipelineLayout& l : layouts_) {
    vkDestroyPipelineLayout(device_, l.layout, nullptr);
    vkDestroyDescriptorSetLayout(device_, l.set_layout, nullptr);
  }
  for (VkShaderModule m : modules_) vkDestroyShaderModule(device_, m, nullptr);
}

Result<VkShaderModule> PipelineFactory::create_module(std::span<const uint32_t> spirv) {
  std::vector<uint32_t> salted;
  if (!salt_.empty()) {
    salted = salted_spirv(spirv, salt_);
    spirv = salted;
  }
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = spirv.size() * sizeof(uint32_t);
  info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = vkCreateShaderModule(device_, &info, nullptr, &module); r != VK_SUCCESS)
    return vulkan::vk_call_error("vkCreateShaderModule", r);
  modules_.push_back(module);
  return module;
}

Result<PipelineLayout> PipelineFactory::create_layout(const sbk_layout& contract) {
  VkDescriptorSetLayoutBinding bindings[SBK_MAX_LAYOUT_BINDINGS];
  VkDescriptorSetLayoutCreateInfo set_info;
  sbk_vk_fill_set_layout(&contract, bindings, &set_info);
  PipelineLayout out;
  if (VkResult r = vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &out.set_layout); r != VK_SUCCESS)
    return vulkan::vk_call_error("vkCreateDescriptorSetLayout", r);
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = 1;
  info.pSetLayouts = &out.set_layout;
  VkPushConstantRange push{contract.push_constant_stages, 0, contract.push_constant_size};
  if (contract.push_constant_size != 0) {
    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &push;
  }
  if (VkResult r = vkCreatePipelineLayout(device_, &info, nullptr, &out.layout); r != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(device_, out.set_layout, nullptr);
    return vulkan::vk_call_error("vkCreatePipelineLayout", r);
  }
  layouts_.push_back(out);
  return out;
}

Result<VkPipeline> PipelineFactory::create_pipeline(const sbk_host_state& host, VkShaderModule vertex,
                                                    VkShaderModule fragment, VkPipelineLayout layout,
                                                    const sbk_specialization* specialization) {
  sbk_vk_pipeline_storage storage;
  VkGraphicsPipelineCreateInfo info;
  sbk_vk_fill_pipeline(&host, vertex, fragment, layout, &storage, &info);
  if (specialization && sbk_vk_fill_specialization(specialization, &storage) != SBK_OK)
    return Error{ErrorKind::bad_input, "bundle_unusable", "a stage has more specialization values than a pipeline takes", {}};
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateGraphicsPipelines(device_, cache_, 1, &info, nullptr, &pipeline); r != VK_SUCCESS)
    return vulkan::vk_call_error("vkCreateGraphicsPipelines", r);
  pipelines_.push_back(pipeline);
  return pipeline;
}

Result<VkPipeline> PipelineFactory::create_compute_pipeline(VkShaderModule module, VkPipelineLayout layout,
                                                            const sbk_specialization* specialization) {
  sbk_vk_specialization_storage storage;
  VkComputePipelineCreateInfo info;
  if (sbk_vk_fill_compute_pipeline(module, layout, specialization, &storage, &info) != SBK_OK)
    return Error{ErrorKind::bad_input, "bundle_unusable", "a stage has more specialization values than a pipeline takes", {}};
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateComputePipelines(device_, cache_, 1, &info, nullptr, &pipeline); r != VK_SUCCESS)
    return vulkan::vk_call_error("vkCreateComputePipelines", r);
  pipelines_.push_back(pipeline);
  return pipeline;
}

}  // namespace shaderbake::replay
