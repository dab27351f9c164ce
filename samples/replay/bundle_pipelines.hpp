// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"
#include "samples/replay/frame_renderer.hpp"
#include "samples/replay/pipeline_factory.hpp"
#include "samples/replay/replay_guest.hpp"

namespace shaderbake::replay {

// A bundle the replay cannot use (ErrorKind::bad_input, or io when the result is SBK_ERROR_IO; reason
// "bundle_unusable"): "<what>: <result name>".
Error bundle_error(sbk_result r, const std::string& what);

// The bundle's routes, read strictly through the runtime headers (shaderbake.h, the guest's, shaderbake_vulkan.h),
// as a renderer reads them.
//
// At load: a pipeline layout for every layout contract, and a pipeline for every fallback pipeline entry
// (created ahead so that the fallback route never creates anything at a draw; graphics ones only when asked).
// At a draw: the exact pipeline key (the compute pipeline key for a compute program) is probed; a hit is
// created now from its recipe (module reads, shader modules, the entry's specialization data, the create call:
// the first-use work of the exact route). A miss of an admitted draw probes its fallback pipeline key; a hit
// binds the pre-created pipeline with the program's packet. Probes never allocate; a damaged record is an error
// (the replay stops: a renderer would log it).
class BundlePipelines {
 public:
  BundlePipelines(const sbk_bundle& bundle, const ReplayGuest& guest, PipelineFactory& factory)
      : bundle_(bundle), guest_(guest), factory_(factory) {}
  BundlePipelines(const BundlePipelines&) = delete;
  BundlePipelines& operator=(const BundlePipelines&) = delete;

  // The load-time work: layouts, then every compute fallback pipeline entry and, with `graphics_fallbacks`,
  // every graphics one. Returns the number of fallback pipelines created.
  Result<uint32_t> load(bool graphics_fallbacks = true);

  // Exact route: probes the exact pipeline key of the draw (`host` null for a compute program); on a hit
  // creates its pipeline and fills `out`. false on a miss.
  Result<bool> try_exact(uint32_t program, const sbk_host_state* host, const DrawKeys& keys, DrawBinding* out);

  // Fallback route, for a draw admission accepted (keys.family_size != 0): probes its fallback pipeline key; on
  // a hit fills `out` with the pre-created pipeline and the program's packet. false on a miss.
  Result<bool> try_fallback(uint32_t program, const sbk_host_state* host, const DrawKeys& keys, DrawBinding* out);

 private:
  Result<VkShaderModule> module(uint32_t index);
  Result<VkPipeline> create_entry_pipeline(const sbk_entry& entry);
  Result<bool> probe(uint8_t route, const uint8_t* shader_key, size_t shader_key_size, const sbk_host_state* host,
                     sbk_entry* entry);
  void fill_binding(const sbk_entry& entry, uint32_t program, VkPipeline pipeline, DrawBinding* out) const;

  const sbk_bundle& bundle_;
  const ReplayGuest& guest_;
  PipelineFactory& factory_;
  struct ZstdDelete {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };
  std::unique_ptr<ZSTD_DCtx, ZstdDelete> zstd_;  // reused across module reads (null: the loader makes its own)
  std::vector<PipelineLayout> layouts_;  // by layout index
  std::vector<sbk_layout> contracts_;
  std::unordered_map<uint32_t, VkShaderModule> modules_;    // by module index
  std::unordered_map<uint32_t, VkPipeline> fallback_;       // pre-created, by entry index
  std::vector<uint32_t> spirv_;                             // module read buffer
  std::vector<uint8_t> key_;                                // probe buffer
};

}  // namespace shaderbake::replay
