// SPDX-License-Identifier: MIT
// Executor::run_compute and time_compute: compute dispatches over host-visible storage (read back whole) and
// uniform buffers.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "lib/vulkan/context.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::vulkan {

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203u;

Error spec_error(const std::string& what) { return Error{ErrorKind::internal, "bad_compute_spec", what, {}}; }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n == 0 ? 0.0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// One compute pipeline dispatched: once (timing null), or once untimed and `repeats` times timed into *timing.
// Returns every storage buffer's contents after the last dispatch.
Result<std::vector<std::vector<uint8_t>>> dispatch(const Context& ctx, const ComputeSpec& spec, uint32_t repeats,
                                                   ComputeTiming* timing) {
  using Clock = std::chrono::steady_clock;
  const VkDevice device = ctx.device();
  if (spec.spirv.size() < 5 || spec.spirv[0] != kSpirvMagic)
    return toolchain_error("invalid_spirv", "compute SPIR-V is not a SPIR-V module");
  if (spec.push_constants.size() % 4 != 0 || spec.push_constants.size() > 128)
    return spec_error("push constants of " + std::to_string(spec.push_constants.size()) + " bytes");
  for (size_t b = 0; b < spec.storage_buffers.size(); ++b)
    if (spec.storage_buffers[b].empty() || spec.storage_buffers[b].size() % 4 != 0)
      return spec_error("storage buffer " + std::to_string(b) + " of " + std::to_string(spec.storage_buffers[b].size()) + " bytes");
  for (const UniformBinding& u : spec.uniforms)
    if (u.bytes.empty() || u.binding < spec.storage_buffers.size() ||
        std::count_if(spec.uniforms.begin(), spec.uniforms.end(), [&](const UniformBinding& v) { return v.binding == u.binding; }) != 1)
      return spec_error("uniform buffer at binding " + std::to_string(u.binding) + " of " + std::to_string(u.bytes.size()) +
                        " bytes (empty, or its binding taken)");
  for (int i = 0; i < 3; ++i)
    if (spec.groups[i] == 0 || spec.groups[i] > ctx.limits().maxComputeWorkGroupCount[i])
      return spec_error("workgroup count " + std::to_string(spec.groups[i]) + " in dimension " + std::to_string(i));
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical_device(), &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical_device(), &family_count, families.data());
  if (ctx.queue_family() >= family_count || !(families[ctx.queue_family()].queueFlags & VK_QUEUE_COMPUTE_BIT))
    return spec_error("the device's graphics queue has no compute");

  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = spec.spirv.size() * 4;
  module_info.pCode = spec.spirv.data();
  auto module = create_object<VkShaderModule>(device, "vkCreateShaderModule", vkCreateShaderModule, module_info,
                                              vkDestroyShaderModule);
  if (!module) return std::move(module).error();

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (uint32_t b = 0; b < spec.storage_buffers.size(); ++b)
    bindings.push_back({b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  for (const UniformBinding& u : spec.uniforms)
    bindings.push_back({u.binding, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = static_cast<uint32_t>(bindings.size());
  set_info.pBindings = bindings.data();
  auto set_layout = create_object<VkDescriptorSetLayout>(device, "vkCreateDescriptorSetLayout", vkCreateDescriptorSetLayout,
                                                         set_info, vkDestroyDescriptorSetLayout);
  if (!set_layout) return std::move(set_layout).error();
  const VkDescriptorSetLayout set_layout_handle = set_layout->get();
  const VkPushConstantRange push_range{VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(spec.push_constants.size())};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_handle;
  layout_info.pushConstantRangeCount = spec.push_constants.empty() ? 0 : 1;
  layout_info.pPushConstantRanges = &push_range;
  auto layout = create_object<VkPipelineLayout>(device, "vkCreatePipelineLayout", vkCreatePipelineLayout, layout_info,
                                                vkDestroyPipelineLayout);
  if (!layout) return std::move(layout).error();

  std::vector<VkSpecializationMapEntry> map;
  for (const StageSpecialization::Entry& e : spec.specialization.entries) map.push_back({e.constant_id, e.offset, e.size});
  VkSpecializationInfo specialization{static_cast<uint32_t>(map.size()), map.data(), spec.specialization.data.size(),
                                      spec.specialization.data.data()};
  VkComputePipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipeline_info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = module->get();
  pipeline_info.stage.pName = "main";
  pipeline_info.stage.pSpecializationInfo = map.empty() ? nullptr : &specialization;
  pipeline_info.layout = layout->get();
  VkPipeline pipeline_handle = VK_NULL_HANDLE;
  const auto create_start = Clock::now();
  const VkResult created = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline_handle);
  if (timing) timing->pipeline_create_ms = ms_between(create_start, Clock::now());
  if (created != VK_SUCCESS) return vk_call_error("vkCreateComputePipelines", created);
  DeviceObject<VkPipeline> pipeline(device, pipeline_handle, vkDestroyPipeline);

  std::vector<HostBuffer> buffers;
  for (const std::vector<uint8_t>& initial : spec.storage_buffers) {
    auto buffer = ctx.create_host_buffer(initial.size(), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    if (!buffer) return std::move(buffer).error();
    std::memcpy(buffer->mapped, initial.data(), initial.size());
    buffers.push_back(std::move(*buffer));
  }
  std::vector<HostBuffer> uniform_buffers;
  for (const UniformBinding& u : spec.uniforms) {
    auto buffer = ctx.create_host_buffer(u.bytes.size(), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true);
    if (!buffer) return std::move(buffer).error();
    std::memcpy(buffer->mapped, u.bytes.data(), u.bytes.size());
    uniform_buffers.push_back(std::move(*buffer));
  }
  const VkDescriptorPoolSize pool_sizes[] = {
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(1, static_cast<uint32_t>(buffers.size()))},
      {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, std::max<uint32_t>(1, static_cast<uint32_t>(uniform_buffers.size()))}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 2;
  pool_info.pPoolSizes = pool_sizes;
  auto pool = create_object<VkDescriptorPool>(device, "vkCreateDescriptorPool", vkCreateDescriptorPool, pool_info,
                                              vkDestroyDescriptorPool);
  if (!pool) return std::move(pool).error();
  VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocate.descriptorPool = pool->get();
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &set_layout_handle;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (VkResult r = vkAllocateDescriptorSets(device, &allocate, &set); r != VK_SUCCESS)
    return vk_call_error("vkAllocateDescriptorSets", r);
  std::vector<VkDescriptorBufferInfo> infos;
  for (const HostBuffer& b : buffers) infos.push_back({b.buffer.get(), 0, VK_WHOLE_SIZE});
  for (const HostBuffer& b : uniform_buffers) infos.push_back({b.buffer.get(), 0, VK_WHOLE_SIZE});
  std::vector<VkWriteDescriptorSet> writes;
  for (uint32_t b = 0; b < infos.size(); ++b) {
    const bool storage = b < buffers.size();
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = storage ? b : spec.uniforms[b - buffers.size()].binding;
    w.descriptorCount = 1;
    w.descriptorType = storage ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    w.pBufferInfo = &infos[b];
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  VkCommandPoolCreateInfo command_pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  command_pool_info.queueFamilyIndex = ctx.queue_family();
  auto command_pool = create_object<VkCommandPool>(device, "vkCreateCommandPool", vkCreateCommandPool, command_pool_info,
                                                   vkDestroyCommandPool);
  if (!command_pool) return std::move(command_pool).error();
  VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  command_info.commandPool = command_pool->get();
  command_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  command_info.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  if (VkResult r = vkAllocateCommandBuffers(device, &command_info, &cmd); r != VK_SUCCESS)
    return vk_call_error("vkAllocateCommandBuffers", r);
  // Timestamps around the dispatch, when timing and the queue has them.
  const VkPhysicalDeviceLimits& limits = ctx.limits();
  DeviceObject<VkQueryPool> timestamps;
  if (timing && limits.timestampComputeAndGraphics == VK_TRUE && limits.timestampPeriod > 0.0f) {
    VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queries.queryCount = 2;
    auto query_pool = create_object<VkQueryPool>(device, "vkCreateQueryPool", vkCreateQueryPool, queries, vkDestroyQueryPool);
    if (!query_pool) return std::move(query_pool).error();
    timestamps = std::move(query_pool).value();
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = timing ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;  // timed: submitted again and again
  if (VkResult r = vkBeginCommandBuffer(cmd, &begin); r != VK_SUCCESS) return vk_call_error("vkBeginCommandBuffer", r);
  if (timestamps) {
    vkCmdResetQueryPool(cmd, timestamps.get(), 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps.get(), 0);
  }
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.get());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout->get(), 0, 1, &set, 0, nullptr);
  if (!spec.push_constants.empty())
    vkCmdPushConstants(cmd, layout->get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(spec.push_constants.size()),
                       spec.push_constants.data());
  vkCmdDispatch(cmd, spec.groups[0], spec.groups[1], spec.groups[2]);
  if (timestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps.get(), 1);
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr,
                       0, nullptr);
  if (VkResult r = vkEndCommandBuffer(cmd); r != VK_SUCCESS) return vk_call_error("vkEndCommandBuffer", r);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  auto fence = create_object<VkFence>(device, "vkCreateFence", vkCreateFence, fence_info, vkDestroyFence);
  if (!fence) return std::move(fence).error();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  const VkFence fence_handle = fence->get();
  auto submit_and_wait = [&]() -> Result<double> {
    if (VkResult r = vkResetFences(device, 1, &fence_handle); r != VK_SUCCESS) return vk_call_error("vkResetFences", r);
    const auto start = Clock::now();
    if (VkResult r = vkQueueSubmit(ctx.queue(), 1, &submit, fence_handle); r != VK_SUCCESS)
      return vk_call_error("vkQueueSubmit", r);
    if (VkResult r = vkWaitForFences(device, 1, &fence_handle, VK_TRUE, UINT64_MAX); r != VK_SUCCESS) {
      vkDeviceWaitIdle(device);
      return vk_call_error("vkWaitForFences", r);
    }
    return ms_between(start, Clock::now());
  };
  auto first = submit_and_wait();
  if (!first) return std::move(first).error();
  if (timing) {
    timing->first_dispatch_ms = *first;
    timing->gpu_timestamps = static_cast<bool>(timestamps);
    std::vector<double> wall, gpu;
    // A timestamp pair that goes backwards straddles the counter's wrap: that dispatch is measured again.
    for (uint32_t attempt = 0; wall.size() < repeats; ++attempt) {
      if (attempt > repeats + 2) return toolchain_error("vulkan_bad_timestamps", "time_compute: the timestamps went backwards");
      auto wall_ms = submit_and_wait();
      if (!wall_ms) return std::move(wall_ms).error();
      if (timestamps) {
        uint64_t ticks[2] = {0, 0};
        if (VkResult r = vkGetQueryPoolResults(device, timestamps.get(), 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
            r != VK_SUCCESS)
          return vk_call_error("vkGetQueryPoolResults", r);
        if (ticks[1] < ticks[0]) continue;
        gpu.push_back(static_cast<double>(ticks[1] - ticks[0]) * static_cast<double>(limits.timestampPeriod) / 1e6);
      }
      wall.push_back(*wall_ms);
    }
    const std::vector<double>& figures = timestamps ? gpu : wall;
    timing->median_ms = median(figures);
    timing->min_ms = *std::min_element(figures.begin(), figures.end());
    timing->max_ms = *std::max_element(figures.begin(), figures.end());
    timing->wall_median_ms = median(wall);
  }
  std::vector<std::vector<uint8_t>> out;
  for (size_t b = 0; b < buffers.size(); ++b)
    out.emplace_back(buffers[b].mapped, buffers[b].mapped + spec.storage_buffers[b].size());
  return out;
}

}  // namespace

Result<std::vector<std::vector<uint8_t>>> Executor::run_compute(const ComputeSpec& spec) {
  return dispatch(*context_, spec, 0, nullptr);
}

Result<ComputeTiming> Executor::time_compute(const ComputeSpec& spec, uint32_t repeats) {
  if (repeats == 0) return spec_error("time_compute: repeats must be at least 1");
  ComputeTiming timing;
  auto done = dispatch(*context_, spec, repeats, &timing);
  if (!done) return std::move(done).error();
  return timing;
}

}  // namespace shaderbake::vulkan
