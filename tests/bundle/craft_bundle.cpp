// SPDX-License-Identifier: MIT
// craft_bundle IN OUT NAME: writes the crafted bundle NAME (tests/bundle/bundle_patch.hpp, apply_craft) made
// from the valid bundle IN, for the CLI tests. Exit 2 on an unknown name or one that does not apply to IN.
#include <cstdio>
#include <string>

#include "tests/bundle/bundle_patch.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: craft_bundle IN OUT NAME\n");
    return 2;
  }
  auto bundle = shaderbake::testing::PatchableBundle::read(argv[1]);
  if (!shaderbake::testing::apply_craft(bundle, argv[3])) {
    std::fprintf(stderr, "error: craft_bundle: '%s' is not a craft, or does not apply to %s\n", argv[3], argv[1]);
    return 2;
  }
  bundle.write(argv[2]);
  return 0;
}
