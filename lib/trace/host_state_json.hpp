// SPDX-License-Identifier: MIT
#pragma once

#include "lib/core/result.hpp"
#include "lib/json/json_reader.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::trace {

// Decodes the "host" object of a trace record (schemas/trace.md, schemas/trace.schema.json) into the runtime
// header's sbk_host_state. Only color_formats and vertex are required; other fields take Vulkan's usual
// defaults (triangle_list, fill, no culling, counter_clockwise, depth and stencil tests off, blending off,
// no depth attachment, 1 sample, viewport and scissor dynamic). Unknown fields are errors: a misspelt field
// that fell back to a default would key the wrong pipeline. The result is checked by the runtime header's
// own encoder, so anything decoded here encodes.
Result<sbk_host_state> decode_host_state(json::od::value& host, const json::RecordContext& ctx,
                                         const json::Pointer& pointer);

}  // namespace shaderbake::trace
