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
// sampler kind and alpha-test function.
class RandomPrograms {
 public:
  explicit RandomPrograms(uint64_t seed) : state_(seed) {}

  sbk_nv2a_program program();
  PixelInputs inputs();
  uint64_t next();  // splitmix64
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }

 private:
  uint32_t general_input_byte(bool rgb);
  uint32_t output_word(bool rgb);
  uint32_t final_input_byte(int slot);

  uint64_t state_;
};

}  // namespace shaderbake::nv2a
