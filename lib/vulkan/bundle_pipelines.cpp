// SPDX-License-Identifier: MIT
#include "lib/vulkan/bundle_pipelines.hpp"

// The runtime's Vulkan create-info helpers; their implementation is compiled into shaderbake_runtime.
#include "runtime_loader/shaderbake_vulkan.h"

#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shaderbake::vulkan {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Error pipeline_input_error(std::string message) {
  return Error{ErrorKind::bad_input, "pipeline_input", std::move(message), {}};
}

// Objects of one kind, created on first use (one per index) and kept for the rest of the call. A creation
// that failed is not tried again: every later use gets the same error, which names the object.
template <class Handle>
class CreatedOnce {
 public:
  CreatedOnce(std::string what, size_t count) : what_(std::move(what)), objects_(count), errors_(count) {}

  uint32_t created() const {
    return static_cast<uint32_t>(
        std::count_if(objects_.begin(), objects_.end(), [](const DeviceObject<Handle>& o) { return bool(o); }));
  }

  // `create(index)` gives a Result<DeviceObject<Handle>>; its error message is prefixed with the object's name.
  template <class Create>
  Result<Handle> get(uint32_t index, Create create) {
    if (index >= objects_.size()) return pipeline_input_error(name(index) + " does not exist");
    if (objects_[index]) return objects_[index].get();
    if (errors_[index]) return *errors_[index];
    auto object = create(index);
    if (!object) {
      errors_[index] = pipeline_input_error(name(index) + ": " + object.error().message);
      return *errors_[index];
    }
    objects_[index] = std::move(object).value();
    return objects_[index].get();
  }

 private:
  std::string name(uint32_t index) const { return what_ + " " + std::to_string(index); }

  std::string what_;
  std::vector<DeviceObject<Handle>> objects_;
  std::vector<std::optional<Error>> errors_;
};

// What the pipelines share: shader modules and pipeline layouts, each created once.
class SharedObjects {
 public:
  SharedObjects(const sbk_bundle& bundle, VkDevice device, ZSTD_DCtx* zstd)
      : bundle_(bundle),
        device_(device),
        zstd_(zstd),
        modules_("module", sbk_bundle_module_count(&bundle)),
        set_layouts_(sbk_bundle_layout_count(&bundle)),
        layouts_("layout", sbk_bundle_layout_count(&bundle)) {}

  uint32_t modules_created() const { return modules_.created(); }
  uint32_t layouts_created() const { return layouts_.created(); }

  Result<VkShaderModule> module(uint32_t index) {
    return modules_.get(index, [&](uint32_t i) { return create_module(i); });
  }

  // Descriptor set 0 + the push-constant range of layout contract `index`.
  Result<VkPipelineLayout> layout(uint32_t index) {
    return layouts_.get(index, [&](uint32_t i) { return create_layout(i); });
  }

 private:
  Result<DeviceObject<VkShaderModule>> create_module(uint32_t index) {
    sbk_module_info info;
    sbk_result r = sbk_bundle_module_info(&bundle_, index, &info);
    if (r != SBK_OK) return pipeline_input_error(sbk_result_name(r));
    // The entry states the raw size: decompress straight into uint32_t storage of that size.
    std::vector<uint32_t> code((info.raw_size + 3) / 4);
    size_t size = 0;
    r = sbk_bundle_read_module(&bundle_, index, code.data(), code.size() * 4, &size, zstd_);
    if (r != SBK_OK) return pipeline_input_error(sbk_result_name(r));
    VkShaderModuleCreateInfo create{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    create.codeSize = size;
    create.pCode = code.data();
    return create_object<VkShaderModule>(device_, "vkCreateShaderModule", vkCreateShaderModule, create,
                                         vkDestroyShaderModule);
  }

  Result<DeviceObject<VkPipelineLayout>> create_layout(uint32_t index) {
    sbk_layout contract;
    const sbk_result r = sbk_bundle_layout(&bundle_, index, &contract);
    if (r != SBK_OK) return pipeline_input_error(sbk_result_name(r));
    VkDescriptorSetLayoutBinding bindings[SBK_MAX_LAYOUT_BINDINGS];
    VkDescriptorSetLayoutCreateInfo set_info;
    sbk_vk_fill_set_layout(&contract, bindings, &set_info);
    auto set_layout = create_object<VkDescriptorSetLayout>(device_, "vkCreateDescriptorSetLayout",
                                                           vkCreateDescriptorSetLayout, set_info,
                                                           vkDestroyDescriptorSetLayout);
    if (!set_layout) return std::move(set_layout).error();
    set_layouts_[index] = std::move(set_layout).value();
    const VkDescriptorSetLayout set = set_layouts_[index].get();
    VkPushConstantRange push{};
    push.stageFlags = contract.push_constant_stages;
    push.size = contract.push_constant_size;
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = 1;
    info.pSetLayouts = &set;
    if (contract.push_constant_size != 0) {
      info.pushConstantRangeCount = 1;
      info.pPushConstantRanges = &push;
    }
    return create_object<VkPipelineLayout>(device_, "vkCreatePipelineLayout", vkCreatePipelineLayout, info,
                                           vkDestroyPipelineLayout);
  }

  const sbk_bundle& bundle_;
  VkDevice device_;
  ZSTD_DCtx* zstd_;
  CreatedOnce<VkShaderModule> modules_;
  std::vector<DeviceObject<VkDescriptorSetLayout>> set_layouts_;  // before layouts_: destroyed after them
  CreatedOnce<VkPipelineLayout> layouts_;
};

struct ZstdDelete {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

}  // namespace

double BundlePipelines::median_create_ms() const {
  std::vector<double> times;
  for (const PipelineCreation& p : pipelines)
    if (p.created) times.push_back(p.create_ms);
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

Result<BundlePipelines> create_bundle_pipelines(const sbk_bundle& bundle, const Context& context,
                                                VkPipelineCache cache) {
  const Clock::time_point start = Clock::now();
  std::unique_ptr<ZSTD_DCtx, ZstdDelete> zstd(ZSTD_createDCtx());
  if (!zstd) return Error{ErrorKind::internal, "out_of_memory", "cannot allocate a zstd decompression context", {}};
  BundlePipelines out;
  {
    SharedObjects shared(bundle, context.device(), zstd.get());
    for (uint32_t i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
      sbk_entry entry;
      const sbk_result r = sbk_bundle_entry_at(&bundle, i, &entry);
      if (r == SBK_OK && entry.kind != SBK_KEY_KIND_PIPELINE && entry.kind != SBK_KEY_KIND_COMPUTE_PIPELINE) continue;
      PipelineCreation& p = out.pipelines.emplace_back();
      p.entry = i;
      auto failed = [&](std::string why) {
        p.error = std::move(why);
        ++out.failed;
      };
      if (r != SBK_OK) {  // a damaged entry might have been a pipeline: count it as one that failed
        failed(std::string("entry: ") + sbk_result_name(r));
        continue;
      }
      // The values the pipeline is created with, when the bundle stores any (a specialized build).
      sbk_specialization specialization;
      const sbk_result s = sbk_bundle_specialization(&bundle, i, &specialization);
      if (s != SBK_OK && s != SBK_NOT_FOUND) {
        failed(std::string("its specialization data: ") + sbk_result_name(s));
        continue;
      }
      const bool compute = entry.kind == SBK_KEY_KIND_COMPUTE_PIPELINE;
      auto fragment = shared.module(entry.fragment_module);  // the compute module, for a compute pipeline
      auto layout = shared.layout(entry.layout);
      auto vertex = compute ? Result<VkShaderModule>(VkShaderModule{VK_NULL_HANDLE}) : shared.module(entry.vertex_module);
      if (!vertex || !fragment || !layout) {
        failed(!vertex ? vertex.error().message : !fragment ? fragment.error().message : layout.error().message);
        continue;
      }
      VkPipeline pipeline = VK_NULL_HANDLE;
      VkResult result = VK_SUCCESS;
      const char* call = compute ? "vkCreateComputePipelines" : "vkCreateGraphicsPipelines";
      Clock::time_point created_at;
      if (compute) {
        sbk_vk_specialization_storage storage;
        VkComputePipelineCreateInfo info;
        if (sbk_vk_fill_compute_pipeline(*fragment, *layout, s == SBK_OK ? &specialization : nullptr, &storage,
                                         &info) != SBK_OK) {
          failed("its specialization data has more entries than a stage takes");
          continue;
        }
        created_at = Clock::now();
        result = vkCreateComputePipelines(context.device(), cache, 1, &info, nullptr, &pipeline);
      } else {
        sbk_host_state host;
        if (const sbk_result h = sbk_bundle_entry_host_state(&bundle, i, &host); h != SBK_OK) {
          failed(std::string("its host state does not decode: ") + sbk_result_name(h));
          continue;
        }
        sbk_vk_pipeline_storage storage;
        VkGraphicsPipelineCreateInfo info;
        sbk_vk_fill_pipeline(&host, *vertex, *fragment, *layout, &storage, &info);
        if (s == SBK_OK && sbk_vk_fill_specialization(&specialization, &storage) != SBK_OK) {
          failed("its specialization data has more entries than a stage takes");
          continue;
        }
        created_at = Clock::now();
        result = vkCreateGraphicsPipelines(context.device(), cache, 1, &info, nullptr, &pipeline);
      }
      p.create_ms = ms_since(created_at);
      if (result != VK_SUCCESS) {
        failed(vk_call_error(call, result).message);
        continue;
      }
      vkDestroyPipeline(context.device(), pipeline, nullptr);
      p.created = true;
      ++out.created;
      out.total_create_ms += p.create_ms;
    }
    out.modules = shared.modules_created();
    out.layouts = shared.layouts_created();
  }
  out.wall_ms = ms_since(start);
  return out;
}

Result<DeviceObject<VkPipelineCache>> create_pipeline_cache(const Context& context,
                                                            std::span<const uint8_t> initial_data) {
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = initial_data.size();
  info.pInitialData = initial_data.empty() ? nullptr : initial_data.data();
  return create_object<VkPipelineCache>(context.device(), "vkCreatePipelineCache", vkCreatePipelineCache, info,
                                        vkDestroyPipelineCache);
}

Result<std::vector<uint8_t>> pipeline_cache_data(const Context& context, VkPipelineCache cache) {
  // The size can change between the two calls only if another thread adds to the cache; retry on
  // VK_INCOMPLETE all the same.
  for (;;) {
    size_t size = 0;
    VkResult result = vkGetPipelineCacheData(context.device(), cache, &size, nullptr);
    if (result != VK_SUCCESS) return vk_call_error("vkGetPipelineCacheData", result);
    std::vector<uint8_t> data(size);
    result = vkGetPipelineCacheData(context.device(), cache, &size, data.data());
    if (result == VK_INCOMPLETE) continue;
    if (result != VK_SUCCESS) return vk_call_error("vkGetPipelineCacheData", result);
    data.resize(size);
    return data;
  }
}

void disable_driver_disk_caches() {
  if (std::getenv("MESA_SHADER_CACHE_DIR") == nullptr) ::setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
  ::setenv("__GL_SHADER_DISK_CACHE", "0", 0);
}

}  // namespace shaderbake::vulkan
