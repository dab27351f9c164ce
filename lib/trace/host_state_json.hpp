// SPDX-License-Identifier: MIT
#pragma once

#include "lib/core/result.hpp"
#include "lib/json/json_reader.hpp"
#include "lib/trace/vulkan_names.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::trace {

// Decodes the "host" object of a trace record (schemas/trace.md, schemas/trace.schema.json) into the runtime
// header's sbk_host_state. Only color_formats and vertex are required; other fields take Vulkan's usual
// defaults (triangle_list, fill, no culling, counter_clockwise, depth and stencil tests off, blending off,
// no depth attachment, 1 sample, viewport and scissor dynamic). Unknown fields are errors: a misspelt field
// that fell back to a default would key the wrong pipeline. The result is checked by the runtime header's
// own encoder, so anything decoded here encodes.
//
// How a vertex attribute names the shader input it feeds: by "location" (0-15; trace format /2), or, in a
// trace of format /1, by "semantic", one of the guest model's names (`semantics`: name -> location).
struct AttributeNaming {
  bool by_semantic = false;
  std::span<const vulkan_names::Name> semantics;
};
Result<sbk_host_state> decode_host_state(json::od::value& host, const json::RecordContext& ctx,
                                         const json::Pointer& pointer, const AttributeNaming& naming = {});

}  // namespace shaderbake::trace
