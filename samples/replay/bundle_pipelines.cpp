// SPDX-License-Identifier: MIT
#include "samples/replay/bundle_pipelines.hpp"

#include <zstd.h>

#include <string>

namespace shaderbake::replay {

Error bundle_error(sbk_result r, const std::string& what) {
  Error e;
  e.kind = r == SBK_ERROR_IO ? ErrorKind::io : ErrorKind::bad_input;
  e.reason = "bundle_unusable";
  e.message = what + ": " + sbk_result_name(r);
  return e;
}

Result<uint32_t> BundlePipelines::load(bool graphics_fallbacks) {
  zstd_.reset(ZSTD_createDCtx());
  key_.resize(SBK_PIPELINE_KEY_MAX_SIZE(kMaxKeySize));
  const uint32_t layout_count = sbk_bundle_layout_count(&bundle_);
  contracts_.resize(layout_count);
  for (uint32_t i = 0; i < layout_count; ++i) {
    if (sbk_result r = sbk_bundle_layout(&bundle_, i, &contracts_[i]); r != SBK_OK)
      return bundle_error(r, "layout " + std::to_string(i));
    auto layout = factory_.create_layout(contracts_[i]);
    if (!layout) return std::move(layout).error();
    layouts_.push_back(*layout);
  }
  // Every fallback pipeline entry, in index order.
  uint32_t created = 0;
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&bundle_); ++i) {
    sbk_entry entry;
    if (sbk_result r = sbk_bundle_entry_at(&bundle_, i, &entry); r != SBK_OK) return bundle_error(r, "entry " + std::to_string(i));
    if (entry.route != SBK_ROUTE_FALLBACK) continue;
    if (entry.kind != SBK_KEY_KIND_COMPUTE_PIPELINE && !(graphics_fallbacks && entry.kind == SBK_KEY_KIND_PIPELINE)) continue;
    auto pipeline = create_entry_pipeline(entry);
    if (!pipeline) return std::move(pipeline).error();
    fallback_.emplace(entry.index, *pipeline);
    ++created;
  }
  return created;
}

Result<VkShaderModule> BundlePipelines::module(uint32_t index) {
  if (auto it = modules_.find(index); it != modules_.end()) return it->second;
  sbk_module_info info;
  if (sbk_result r = sbk_bundle_module_info(&bundle_, index, &info); r != SBK_OK)
    return bundle_error(r, "module " + std::to_string(index));
  // The entry states the raw size: decompress straight into whole words of at least that size (a damaged
  // entry's size need not be a multiple of 4; the read then fails, it never overruns).
  spirv_.resize((size_t{info.raw_size} + 3) / 4);
  size_t size = 0;
  if (sbk_result r = sbk_bundle_read_module(&bundle_, index, spirv_.data(), spirv_.size() * 4, &size, zstd_.get());
      r != SBK_OK)
    return bundle_error(r, "module " + std::to_string(index));
  auto created = factory_.create_module(std::span<const uint32_t>(spirv_.data(), size / 4));
  if (!created) return std::move(created).error();
  modules_.emplace(index, *created);
  return *created;
}

Result<VkPipeline> BundlePipelines::create_entry_pipeline(const sbk_entry& entry) {
  const std::string what = "pipeline entry " + std::to_string(entry.index);
  if (entry.layout >= layouts_.size()) return bundle_error(SBK_ERROR_CORRUPT, what + " layout");
  // A specialized bundle's values for this pipeline (none: its modules are used as they are).
  sbk_specialization specialization;
  const sbk_result s = sbk_bundle_specialization(&bundle_, entry.index, &specialization);
  if (s != SBK_OK && s != SBK_NOT_FOUND) return bundle_error(s, what + " specialization data");
  const sbk_specialization* values = s == SBK_OK ? &specialization : nullptr;
  auto shader = module(entry.fragment_module);  // the compute module, for a compute pipeline
  if (!shader) return std::move(shader).error();
  if (entry.kind == SBK_KEY_KIND_COMPUTE_PIPELINE)
    return factory_.create_compute_pipeline(*shader, layouts_[entry.layout].layout, values);
  sbk_host_state host;
  if (sbk_result r = sbk_bundle_entry_host_state(&bundle_, entry.index, &host); r != SBK_OK) return bundle_error(r, what);
  auto vertex = module(entry.vertex_module);
  if (!vertex) return std::move(vertex).error();
  return factory_.create_pipeline(host, *vertex, *shader, layouts_[entry.layout].layout, values);
}

Result<bool> BundlePipelines::probe(uint8_t route, const uint8_t* shader_key, size_t shader_key_size,
                                    const sbk_host_state* host, sbk_entry* entry) {
  size_t size = 0;
  const sbk_result encoded =
      host ? sbk_encode_pipeline_key(route, shader_key, shader_key_size, host, key_.data(), key_.size(), &size)
           : sbk_encode_compute_pipeline_key(route, shader_key, shader_key_size, key_.data(), key_.size(), &size);
  if (encoded != SBK_OK) return false;  // a host state the key encoder refuses has no entry (the trace reader refuses it too)
  const sbk_result r = sbk_bundle_find(&bundle_, key_.data(), size, entry);
  if (r == SBK_NOT_FOUND) return false;
  if (r != SBK_OK) return bundle_error(r, "probe");
  return entry->kind == (host ? SBK_KEY_KIND_PIPELINE : SBK_KEY_KIND_COMPUTE_PIPELINE);
}

void BundlePipelines::fill_binding(const sbk_entry& entry, uint32_t program, VkPipeline pipeline, DrawBinding* out) const {
  out->pipeline = pipeline;
  out->layout = layouts_[entry.layout].layout;
  out->set_layout = layouts_[entry.layout].set_layout;
  out->contract = contracts_[entry.layout];
  out->compute = entry.kind == SBK_KEY_KIND_COMPUTE_PIPELINE;
  out->program = program;
}

Result<bool> BundlePipelines::try_exact(uint32_t program, const sbk_host_state* host, const DrawKeys& keys,
                                        DrawBinding* out) {
  sbk_entry entry;
  auto hit = probe(SBK_ROUTE_EXACT, keys.exact, keys.exact_size, host, &entry);
  if (!hit || !*hit) return hit;
  auto pipeline = create_entry_pipeline(entry);  // the exact route's first-use work
  if (!pipeline) return std::move(pipeline).error();
  fill_binding(entry, program, *pipeline, out);
  return true;
}

Result<bool> BundlePipelines::try_fallback(uint32_t program, const sbk_host_state* host, const DrawKeys& keys,
                                           DrawBinding* out) {
  sbk_entry entry;
  auto hit = probe(SBK_ROUTE_FALLBACK, keys.family, keys.family_size, host, &entry);
  if (!hit || !*hit) return hit;
  auto it = fallback_.find(entry.index);
  if (it == fallback_.end())  // every fallback entry was created at load: a probe cannot find another
    return bundle_error(SBK_ERROR_CORRUPT, "fallback entry " + std::to_string(entry.index) + " was not listed at load");
  fill_binding(entry, program, it->second, out);
  out->set_packet(guest_, program);  // the program's values, as runtime data for the family's pipeline
  return true;
}

}  // namespace shaderbake::replay
