// SPDX-License-Identifier: MIT
#pragma once

// JSON views of bundle and compile artifacts, shared by the commands that show them (compile, inspect).

#include <nlohmann/json.hpp>

#include "lib/compile/spirv_module.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::cli {

nlohmann::ordered_json reflection_json(const compile::Reflection& reflection);
nlohmann::ordered_json layout_json(const sbk_layout& layout);
// The host state with the trace format's names (schemas/trace.md).
nlohmann::ordered_json host_state_json(const sbk_host_state& host);

}  // namespace shaderbake::cli
