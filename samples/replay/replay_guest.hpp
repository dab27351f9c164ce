// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::replay {

struct DrawBinding;
class PipelineFactory;

// Room for any guest's keys and packet at a draw (each guest checks its own sizes against these).
inline constexpr size_t kMaxKeySize = 4096;
inline constexpr size_t kMaxPacketSize = 512;

// A sampler binding's image dimensionality: 0 (unknown: 2D) or these, the numbering of nv2a's sbk_sampler_dim and of
// compile::Reflection.
enum SamplerDim : uint8_t { kSampler2D = 1, kSampler3D = 2, kSamplerCube = 3 };

// A draw's keys, encoded at its first use as the guest's renderer encodes them (runtime header calls).
struct DrawKeys {
  uint8_t exact[kMaxKeySize];
  size_t exact_size = 0;
  uint8_t family[kMaxKeySize];
  size_t family_size = 0;  // 0: admission refused the draw (fail-closed: no fallback route)
};

// The old way for one mode: what a renderer of the guest does at a first use without a bundle.
class OldWay {
 public:
  virtual ~OldWay() = default;
  // Makes the pipeline of (program, host) into `out` (host is null for a compute program). false when the
  // guest has nothing to draw with (a program its generator cannot produce): the draw is skipped. Errors: a
  // compile or Vulkan failure.
  virtual Result<bool> create(uint32_t program, const sbk_host_state* host, DrawBinding* out) = 0;
  virtual uint64_t shader_compiles() const = 0;  // compile-chain runs (source -> SPIR-V) so far
};

// What the replay needs of a guest model, in the terms a renderer of that guest has: its programs as it holds
// them (decoded once, when the trace is read), and at a draw the runtime header's keys, admission, packet and
// the resources its shaders read. Everything here is read-only after loading and used from the render thread.
class ReplayGuest {
 public:
  virtual ~ReplayGuest() = default;

  virtual std::string_view name() const = 0;
  // The guest's bundle check (shaderbake_GUEST.h): SBK_OK when the bundle's keys are this guest's, of this schema.
  virtual sbk_result check_bundle(const sbk_bundle& bundle) const = 0;

  virtual uint32_t program_count() const = 0;
  virtual bool is_compute(uint32_t program) const = 0;

  // The program's exact key and, when admission accepts the draw, its family key (host: null for compute).
  virtual void encode_keys(uint32_t program, const sbk_host_state* host, DrawKeys* out) const = 0;
  // The fallback route's packet of the program into `out` (kMaxPacketSize bytes): its size, and its binding.
  virtual size_t encode_packet(uint32_t program, uint8_t* out, uint32_t* binding) const = 0;

  // Resources, the same in every mode. The SamplerDim (0: 2D) of a combined image
  // sampler binding of the program's pipelines.
  virtual uint8_t sampler_dim(uint32_t program, uint32_t binding) const = 0;
  // What every uniform buffer but the packet holds (fixed values that are not all zero).
  virtual std::span<const uint8_t> uniform_block() const = 0;
  // What push constants hold, for graphics or compute pipelines (as many bytes as any layout's range).
  virtual std::span<const uint8_t> push_constants(bool compute) const = 0;
  // The vertex input location whose 32-bit float attribute gets the triangle covering the target.
  virtual uint32_t position_location() const = 0;

  virtual std::unique_ptr<OldWay> old_way(PipelineFactory& factory) const = 0;
};

}  // namespace shaderbake::replay
