// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime_loader/shaderbake.h"

namespace shaderbake {

// The canonical pipeline key of (route, fragment key, host state), as the runtime header encodes it
// (sbk_encode_pipeline_key), written into `out` (resized; reuse it to avoid an allocation per key). Returns
// false, with `out` empty, when the header refuses the host state or route.
bool encode_pipeline_key(uint8_t route, std::span<const uint8_t> fragment_key, const sbk_host_state& host,
                         std::vector<uint8_t>& out);

// The canonical compute pipeline key of (route, shader key) (sbk_encode_compute_pipeline_key), into `out`.
bool encode_compute_pipeline_key(uint8_t route, std::span<const uint8_t> shader_key, std::vector<uint8_t>& out);

}  // namespace shaderbake
