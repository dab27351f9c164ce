// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "guests/specconst/shader_library.hpp"
#include "lib/json/json_reader.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace shaderbake::specconst {

// One stage of a program: its module and the values a pipeline gives its constants (VkSpecializationInfo's
// contents, one 4- or 8-byte slot per value, little-endian, in the order the record lists them).
struct StageValues {
  std::shared_ptr<const LoadedShader> shader;
  std::vector<sbk_specconst_map_entry> map;
  std::vector<uint8_t> data;
  sbk_specconst_values values() const { return {static_cast<uint32_t>(map.size()), map.data(), data.size(), data.data()}; }
};

// A program of a trace record: a compute stage, or a vertex then a fragment stage.
struct Program {
  std::vector<StageValues> stages;
};

// Decodes a record's "program" object (schemas/trace.md): {"vertex": stage, "fragment": stage} or
// {"compute": stage}, a stage being {"shader": path, "entry": name (default "main"), "constants": {"<id>": value}}.
// A shader path is relative to the directory of `ctx.file()` (the trace), or absolute. Every error is located in
// the record: the reader's reasons (wrong_type, missing_field, unknown_field, duplicate_field, conflicting_fields)
// and this guest's: shader_not_found, shader_compile_failed (ShaderLibrary), unknown_constant (an id the module
// does not declare), constant_type (a value that is not of the constant's declared type and width: true/false for a
// bool, an integer in range for an int or uint, a finite number in range for a float).
Result<Program> decode_program(json::od::value& root, const json::RecordContext& ctx, const json::Pointer& pointer,
                               ShaderLibrary& library);

}  // namespace shaderbake::specconst
