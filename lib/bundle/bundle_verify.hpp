// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/bundle/bundle_reader.hpp"

namespace shaderbake::bundle {

// One family of checks `shaderbake verify` runs, with what it found.
struct VerifyCheck {
  std::string name;                   // "sections", "index", "modules", "recipes", "specializations"
  uint64_t checked = 0;               // items examined
  std::vector<std::string> failures;  // one line per problem, naming the item
};

// Re-checks a bundle from its bytes, trusting nothing the writer claims: every section checksum; the index
// (each entry's stored hash is the hash of its key, strict order, the directory, every key found by a probe);
// every module (decompresses to its size and checksum, passes spirv-val for Vulkan 1.0, its stage matches its
// entry point); every pipeline recipe (its key decodes, its modules have the right stages and are the ones
// the fragment key's own record names, the vertex module reads only attributes the host state provides, the
// layout equals the one the modules' reflection requires); every specialization (its key decodes and its
// stored admission result is what the runtime header's admission says now). Never stops at the first problem.
// `guest` checks (decode, admission) apply to nv2a bundles.
std::vector<VerifyCheck> verify_bundle(const BundleFile& bundle);

}  // namespace shaderbake::bundle
