// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::vulkan {

// Runs fragment programs on a real Vulkan driver, one pixel per case, and reads the pixels back: how
// shaderbake proves generated SPIR-V against a CPU oracle (and runs compute modules once over storage buffers). Guest-agnostic: it knows
// vertex attributes, textures and uniform buffers, nothing of any guest model. Every input is flat
// (the same value at every vertex of the case's primitive).
//
// This header needs no Vulkan header; the implementation links the Vulkan loader (target shaderbake_vulkan).

// The dimensionality of a sampled image (2D, 3D, cube), numbered as the guest runtime headers number them.
enum class SamplerDim : uint8_t { dim2d = 1, dim3d = 2, cube = 3 };

// A combined image sampler at `binding` of descriptor set 0, R8G8B8A8_UNORM, nearest filtering, clamp-to-edge
// addressing: a 1x1 (2D), 1x1x1 (3D) or 1x1-per-face (cube) texture of the colour `rgba`, or, when `texels`
// is not empty, an image of width x height (x depth for 3D; a cube's faces are width x width, height equal):
// RGBA8 texels, row-major, rows from the top, 3D slices and cube faces (+X, -X, +Y, -Y, +Z, -Z) consecutive.
struct TextureBinding {
  uint32_t binding;
  SamplerDim dim;
  std::array<uint8_t, 4> rgba;
  uint32_t width = 1, height = 1, depth = 1;
  std::vector<uint8_t> texels;
};

// A uniform buffer at `binding` of descriptor set 0. `bytes` are the block's std140 data, prepared by the
// caller; the descriptor's range is bytes.size(), which must be > 0.
struct UniformBinding {
  uint32_t binding;
  std::vector<uint8_t> bytes;
};

struct DrawCase {
  // Vertex input locations 1..N (or PipelineSpec::attribute_locations), the same value at every vertex.
  std::vector<std::array<float, 4>> attributes;
  std::vector<TextureBinding> textures;          // descriptor set 0
  std::vector<UniformBinding> uniforms;          // descriptor set 0
};

// The VkSpecializationInfo a pipeline stage is created with: map entries into `data`, as Vulkan takes them
// (compile::specialization_data lays values out). Empty: the stage's module runs with its constants' defaults.
using StageSpecialization = compile::SpecializationData;

struct PipelineSpec {
  // Entry point "main". Location 0: vec4 position in clip space (the executor provides it; the shader
  // should write it to gl_Position). Locations 1..N (or attribute_locations): the vec4 attributes of
  // DrawCase::attributes.
  std::vector<uint32_t> vertex_spirv;
  // Entry point "main". Writes location 0 (vec4 colour, stored to R8G8B8A8_UNORM); may discard.
  std::vector<uint32_t> fragment_spirv;
  // The vertex input location of each DrawCase attribute, in order; empty means 1..N. Locations must be
  // distinct, not 0 (the position) and below the device's maxVertexInputAttributes (else
  // ErrorKind::internal), so a vertex shader that reads only some locations is fed exactly those (the
  // validation layer reports attributes a shader does not consume).
  std::vector<uint32_t> attribute_locations;
  // The fragment shader writes gl_FragDepth: the target gains a D16_UNORM depth attachment, cleared to 0,
  // tested ALWAYS and written, and each case's stored depth is read back (PixelResult::depth_z16).
  bool depth_z16 = false;
  // The values each stage's specialization constants are created with (the driver specializes the modules).
  StageSpecialization vertex_specialization;
  StageSpecialization fragment_specialization;
};

// One compute dispatch (Executor::run_compute): a compute module (entry point "main") with its
// specialization values, storage buffers at bindings 0..N-1 of descriptor set 0 (each one's initial contents:
// a non-empty multiple of 4 bytes), uniform buffers at other bindings of set 0 (non-empty, read only), push
// constants (a multiple of 4 bytes, at most 128; empty for none) and the workgroup counts.
struct ComputeSpec {
  std::vector<uint32_t> spirv;
  StageSpecialization specialization;
  std::vector<std::vector<uint8_t>> storage_buffers;
  std::vector<UniformBinding> uniforms;
  std::vector<uint8_t> push_constants;
  std::array<uint32_t, 3> groups{1, 1, 1};
};

struct PixelResult {
  std::array<uint8_t, 4> rgba;  // the stored pixel; (0,0,0,0), the clear colour, when discarded
  bool discarded;               // the case's occlusion query counted no sample
  uint16_t depth_z16 = 0;       // with PipelineSpec::depth_z16: the stored D16 value (0, the clear, when discarded)
};

// What Executor::time_fill measured. Times are milliseconds per fill of the whole target.
struct FillTiming {
  // The clock of median_ms/min_ms/max_ms. true: the device's timestamps written just before the render
  // pass begins and just after it ends (GPU time of the clear plus the draw). false: the device has no
  // timestamps on its graphics queue, and the figures are wall_median_ms's clock.
  bool gpu_timestamps = false;
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  // Wall clock around vkQueueSubmit + vkWaitForFences of each timed fill (always measured; includes the
  // submission overhead, a cross-check of the timestamps).
  double wall_median_ms = 0;
  // Wall clock of the untimed warm-up fill (submit + wait). It includes the texture upload and any shader
  // compile the driver defers to the first draw (Mesa lavapipe JIT-compiles there, not in
  // vkCreateGraphicsPipelines).
  double first_fill_ms = 0;
  double pipeline_create_ms = 0;  // wall time of the one vkCreateGraphicsPipelines call
  // Pixel (0, 0) after the warm-up fill, and whether the warm-up's occlusion query counted no sample;
  // (0,0,0,0), the clear colour, when discarded. A sanity check that the fill ran the program.
  std::array<uint8_t, 4> first_pixel{};
  bool discarded = false;
};

// What Executor::time_compute measured. Times are milliseconds per dispatch.
struct ComputeTiming {
  // The clock of median_ms/min_ms/max_ms: the device's timestamps just before and after the dispatch (true),
  // or, where the queue has none, the wall clock around submit + wait.
  bool gpu_timestamps = false;
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double wall_median_ms = 0;      // submit + wait of each timed dispatch (submission overhead included)
  double first_dispatch_ms = 0;   // the untimed first submit + wait: a driver that compiles late does it here
  double pipeline_create_ms = 0;  // the one vkCreateComputePipelines call
};

struct ExecutorOptions {
  // Substring of VkPhysicalDeviceProperties::deviceName, compared case-insensitively. Empty: prefer a
  // device named "llvmpipe" (Mesa lavapipe), else the first device.
  std::string device;
  // Enable VK_LAYER_KHRONOS_validation when it is installed and collect its warnings and errors.
  bool validation = true;
  // When MESA_SHADER_CACHE_DIR is unset, set it (process-wide, once) to a fresh temporary directory before
  // creating the instance; Mesa would otherwise write into the passwd home directory. The directory is
  // removed at process exit. This modifies the environment: create the first Executor before starting
  // threads that read it. Also turns off the validation layer's shader validation cache, which it would
  // write to $XDG_CACHE_HOME or ~/.cache.
  bool hermetic_shader_cache = true;
};

class Context;  // lib/vulkan/context.hpp

// One Vulkan instance + device. Not thread-safe: use one Executor from one thread at a time (several
// Executors may run on different threads).
class Executor {
 public:
  // Errors (ErrorKind::toolchain): no Vulkan loader or driver, no device, no device matching
  // options.device (the message lists the devices that exist), no graphics queue, a failing Vulkan call
  // (the message names it and its VkResult).
  static Result<std::unique_ptr<Executor>> create(const ExecutorOptions& options);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const std::string& device_name() const;
  // Whether the validation layer is loaded and reporting into validation_messages().
  bool validation_active() const;

  // Renders every case through one pipeline built from `spec` and returns one result per case, in order.
  // All cases must declare the same interface as cases[0]: the same attribute count and the same bindings
  // (binding number, kind, sampler dimensionality), in any order; otherwise ErrorKind::internal (a caller
  // bug), naming the first case that differs. Bad SPIR-V or a failing Vulkan call gives ErrorKind::toolchain.
  // Any number of cases: they are rendered in batches of up to kCasesPerBatch, one command buffer and one
  // read-back per batch.
  Result<std::vector<PixelResult>> run(const PipelineSpec& spec, std::span<const DrawCase> cases);

  // Creates the compute pipeline of `spec`, dispatches it once and returns every storage buffer's contents
  // afterwards, in binding order. Errors: a spec breaking ComputeSpec's rules, group counts above the device's
  // maxComputeWorkGroupCount or a queue without compute: ErrorKind::internal; bad SPIR-V or a failing Vulkan
  // call: ErrorKind::toolchain.
  Result<std::vector<std::vector<uint8_t>>> run_compute(const ComputeSpec& spec);

  // Compute cost, for benchmarks (bench/): creates the pipeline of `spec` (no pipeline cache),
  // dispatches it once untimed, then `repeats` (at least 1) timed dispatches, each its own submission waited
  // for. Timestamps where the device's limits give the queue them (timestampComputeAndGraphics), else the wall
  // clock. Errors: run_compute's, and repeats 0 (ErrorKind::internal).
  Result<ComputeTiming> time_compute(const ComputeSpec& spec, uint32_t repeats);

  // Warnings and errors the validation layer reported since create(), oldest first, each
  // "severity [message id] message". Empty when validation is off or the layer is not installed.
  const std::vector<std::string>& validation_messages() const;

  // Wall time spent in vkCreateGraphicsPipelines by the last run(), in milliseconds (0 before any run).
  double last_pipeline_create_ms() const;

  // Fragment cost, for benchmarks (bench/route_bench): creates one pipeline from `spec` (no pipeline
  // cache), then draws `draw` as ONE quad covering a width x height R8G8B8A8_UNORM target, so that every
  // pixel runs the fragment shader once with the same flat inputs. One untimed warm-up fill, then
  // `repeats` timed fills, each its own submission waited for; the figures are per fill (clear + draw).
  // GPU timestamps when the device's limits say graphics queues have them (timestampComputeAndGraphics;
  // ticks are converted with timestampPeriod), else wall clock around submit + wait; FillTiming says
  // which. The draw's interface rules are run()'s. Errors: width or height 0 or above what the device
  // can render to (maxImageDimension2D, maxFramebufferWidth/Height, maxViewportDimensions), repeats 0,
  // a bad case or attribute locations: ErrorKind::internal; bad SPIR-V or a failing Vulkan call:
  // ErrorKind::toolchain. Leaves last_pipeline_create_ms() alone.
  Result<FillTiming> time_fill(const PipelineSpec& spec, const DrawCase& draw, uint32_t width, uint32_t height,
                               uint32_t repeats);

  // Render-target geometry: case k of a batch is pixel (k % kTargetWidth, k / kTargetWidth).
  static constexpr uint32_t kTargetWidth = 256;
  static constexpr uint32_t kMaxTargetRows = 64;
  static constexpr uint32_t kCasesPerBatch = kTargetWidth * kMaxTargetRows;

 private:
  explicit Executor(std::unique_ptr<Context> context);

  std::unique_ptr<Context> context_;
  double last_pipeline_create_ms_ = 0;
};

}  // namespace shaderbake::vulkan
