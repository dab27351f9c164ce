// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "guests/nv2a/oracle.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::nv2a {

inline constexpr std::string_view kVectorFormat = "shaderbake-vectors/2";
inline constexpr std::string_view kVectorFormatV1 = "shaderbake-vectors/1";

// The largest texture a vector may carry: texels per stage (every axis, cube faces included).
inline constexpr uint32_t kMaxVectorTexels = 1u << 16;

// One case of a test-vector file (a public contract: README, Test vectors).
struct VectorCase {
  std::string name;
  sbk_nv2a_program program{};
  PixelInputs inputs;
  std::array<uint8_t, 4> expect_rgba{};
  bool expect_discard = false;
  uint32_t tolerance = 1;
  std::optional<uint16_t> expect_depth_z16;  // /2: the depth a dot_zw stage writes (Z16 units)
  std::optional<std::string> expect_rejected;  // /2: the case asserts the program is invalid (what is wrong)
  std::string provenance;
  SourceLocation where;  // the case's position in its file
};

struct VectorFile {
  std::vector<VectorCase> cases;
  // Cases that could not be read, each with its location and field; they count as failed.
  std::vector<std::pair<std::string, Error>> bad_cases;  // (name or "#index", error)
};

// Reads the text of a vector file (the CLI reads the file: lib/guest/vector_file.hpp; `name` is used in
// locations). Whole-file problems (not JSON, another format or guest) are errors; a bad case is kept in
// bad_cases and the others are still read. Unknown fields are ignored.
// inputs: v0, v1, textures (up to 4), fog_color, final_c0, final_c1 (0xAARRGGBB strings or integers),
// fog_factor (number or float32 bit pattern "0x3F800000"), c0/c1 (per-stage arrays), alpha_ref (0..255);
// missing values are 0, except fog_factor 1.0. expect: rgba8 (4 bytes), discard (false), tolerance (1).
// Format /2 adds: a texture as an image ({"width", "height", "texels"}, with "depth" for 3D, or {"size",
// "faces"} for a cube; at most kMaxVectorTexels texels), texcoords (4 x [s, t, r, q]), bump_env, color_keys,
// eye_vector (the trace's dynamic forms), expect.depth_z16, and expect {"rejected": "..."} instead of an output.
Result<VectorFile> parse_vector_text(const std::string& name, std::string_view text);

// Does `got` satisfy the case's expectation? A discarded pixel has no colour: only discard must match.
bool matches(const VectorCase& c, const PixelOutput& got);

}  // namespace shaderbake::nv2a
