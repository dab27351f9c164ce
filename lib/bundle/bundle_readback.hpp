// SPDX-License-Identifier: MIT
#pragma once

#include <vector>

#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::bundle {

// A written bundle read back into what its writer was given: the identity (the header's guest and key schema,
// META's guest name, toolchain and generators), and every module (by content), entry, recipe, specialization
// item, dynamic-state recipe and vertex defaults, the prewarm order and the report, added to a builder as the
// build added them. Serializing that builder with the build's write options gives the file's bytes again
// (driver caches aside: `warm` adds those to a written bundle, a builder never holds any). What merging bundles
// stands on. Every byte read is checked by the loader; reasons: bundle_corrupt (a record, module, layout or
// section that does not read), bundle_meta (a META section that does not hold the identity).
Result<BundleIdentity> read_identity(const BundleFile& file);

// What read_contents adds, chosen (a merge orders the prewarm positions and writes the report itself), and the
// prewarm order it read.
struct ReadParts {
  bool prewarm = true;
  bool report = true;
};
struct ReadSummary {
  struct Prewarm {
    std::vector<uint8_t> pipeline_key;
    uint32_t first_frame = 0;
  };
  std::vector<Prewarm> prewarm;  // the prewarm order, read whether or not it was added
};
Result<ReadSummary> read_contents(const BundleFile& file, BundleBuilder& builder, ReadParts parts = {});

}  // namespace shaderbake::bundle
