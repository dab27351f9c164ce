// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "lib/core/result.hpp"
#include "lib/json/json_reader.hpp"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// Reads the nv2a "program" object shared by traces and test vectors (schemas/trace.md; README, Test vectors): raw hardware words
// (combiner_control, rgb_inputs, rgb_outputs, alpha_inputs, alpha_outputs, final_inputs) as "0x" hex strings or
// integers, texture_modes (names or 0..31), texture_enabled, alpha_test {enabled, func}. Per-stage arrays hold
// at least min(stage count, 8) and at most 8 entries. texture_modes, texture_enabled and alpha_test are optional
// (none / disabled). Unknown fields are errors: a program defines an identity.
Result<sbk_nv2a_program> decode_program(json::od::value& program, const json::RecordContext& ctx,
                                        const json::Pointer& pointer);

// Reads the "dynamic" object of a trace record: c0, c1 (per-stage colour arrays), final_c0, final_c1,
// fog_color (0xAARRGGBB) and alpha_ref (0..255), all optional (0). Unknown fields are ignored.
Result<sbk_nv2a_dynamic> decode_dynamic(json::od::value& dynamic, const json::RecordContext& ctx,
                                        const json::Pointer& pointer);

// Reads one of the texture shader's dynamic fields ("bump_env", "color_keys", "eye_vector": the forms of the
// trace's dynamic object, which the vector format's inputs share) into `dynamic`. Another name is a caller bug
// (an internal error).
Status decode_texture_dynamic_field(std::string_view name, json::od::value& field, sbk_nv2a_dynamic* dynamic,
                                                   const json::RecordContext& ctx, const json::Pointer& pointer);

// A program as the trace format writes it (hex words, names): what decode_program reads back to the same
// program. Only the live stages' words are written.
nlohmann::ordered_json program_json(const sbk_nv2a_program& program);

// Trace name of a texture mode ("project2d"), or nullopt for reserved codes.
std::optional<std::string_view> texture_mode_name(uint8_t mode);
std::optional<uint8_t> texture_mode_from_name(std::string_view name);

}  // namespace shaderbake::nv2a
