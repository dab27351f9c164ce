// SPDX-License-Identifier: MIT
#pragma once

#include <span>
#include <string_view>

namespace shaderbake::cli {

// The JSON Schemas of schemas/, compiled into the binary so `shaderbake schema NAME` needs no install tree.
struct EmbeddedSchema {
  std::string_view name;  // "trace", "dedupe"
  std::string_view text;
};

std::span<const EmbeddedSchema> embedded_schemas();

}  // namespace shaderbake::cli
