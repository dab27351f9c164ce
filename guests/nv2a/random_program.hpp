// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

#include "guests/nv2a/oracle.hpp"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// Deterministic generator of random *valid* nv2a programs and pixel inputs, for property tests and
// benchmarks: the same seed gives the same sequence on every platform (own PRNG, integer-only draws).
// Every program it returns passes sbk_nv2a_check_program; it covers every register, mapping, op, dot (a sum
// next to one included), mux mode, blue-to-alpha, per-stage constants, final-combiner slot and flag, texture
// sampler kind and alpha-test function; texture_program() adds every texture-shader mode.
class RandomPrograms {
 public:
  explicit RandomPrograms(uint64_t seed) : state_(seed) {}

  // A valid program whose texture stages run plain fetches only (none, project2d, project3d, cube).
  sbk_nv2a_program program();
  PixelInputs inputs();

  // A valid program whose texture stages run the texture shader: every mode but brdf, in the legal chains
  // (dot_product pairs before dot_st / dot_zw / the 3-stage dot modes, dot_rflct_diff with a reflect mode
  // after it), random input stages, dot mappings, clip nibbles and texel controls (alpha kill, colour keys,
  // signed channels, XRGB). Its combiners never read a T that a mode leaves undefined.
  sbk_nv2a_program texture_program();
  // Inputs for a texture program: inputs() plus, per fetching stage, a 2x2 image (2x2x2, or six 2x2 faces)
  // of random texels, random coordinates, bump-env matrix, scale and offset, a colour key equal to one of
  // the stage's texels half the time, and an eye vector. Coordinates carry full 24-bit mantissas, so a
  // computed coordinate lands on a texel boundary only by a chance of about 2^-20.
  PixelInputs texture_inputs(const sbk_nv2a_program& program);
  uint64_t next();  // splitmix64
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }

 private:
  uint32_t general_input_byte(bool rgb);
  uint32_t output_word(bool rgb);
  uint32_t final_input_byte(int slot);
  void choose_texture_modes(sbk_nv2a_program& p);
  float uniform(float lo, float hi);  // 24 random bits

  uint64_t state_;
};

}  // namespace shaderbake::nv2a
