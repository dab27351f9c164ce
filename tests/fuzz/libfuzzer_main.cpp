// SPDX-License-Identifier: MIT
// libFuzzer entry (clang, -DSHADERBAKE_FUZZ=ON): SHADERBAKE_FUZZ_TARGET selects the reader at compile time.
#include "tests/fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  SHADERBAKE_FUZZ_TARGET(data, size);
  return 0;
}
