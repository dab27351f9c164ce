// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/cache/artifact_cache.hpp"
#include "lib/core/content_digest.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::cache {

// The build memo: `shaderbake build`'s outputs, kept in the artifact cache under the identity of everything
// the build read, so that a build none of whose inputs changed copies its outputs instead of reading every
// trace, planning and assembling the bundle again (as ccache's direct mode does for one compile). A build whose
// inputs differ in any byte misses and runs every stage; the artifact cache still serves its modules. What a
// build remembers, and when a memo is used or stored: lib/plan/build_memo_policy.hpp.
//
// What the identity holds, and why it is enough:
// - the code: the GNU build ID of every object loaded into the process (the executable, and each shared
//   library: zstd, simdjson, xxhash, the toolchain's, libstdc++...), with its path. Any change to shaderbake's
//   own code or an upgrade of a library gives another ID, so no memo outlives the code that made it;
// - the toolchain fingerprint (the cache adds it to every identity);
// - the settings that decide outputs (`settings`: e.g. --strict; never -j, which cannot change a byte);
// - every trace, in order: its path as given (reports and diagnostics name it), its size and the SHA-256 of
//   its content. A collision-resistant digest stands for the bytes here, the one place in the tool where no
//   byte compare confirms a hit: a trace is megabytes to gigabytes, and keeping a copy to compare would cost
//   what the memo saves. The cache compares the rest of the identity byte for byte.
// A build stores its memo only when the trace reader's own digest of what it parsed (FileSummary) equals the
// digest the lookup used, for every trace read whole; a trace rewritten during the build, or not read to its
// end, leaves no memo.
struct TraceFileDigest {
  std::string path;
  uint64_t bytes = 0;
  ContentDigest digest;  // SHA-256 of the content
  friend bool operator==(const TraceFileDigest&, const TraceFileDigest&) = default;
};

struct BuildInputs {
  std::string code_identity;  // loaded_code_identity()
  std::string settings;       // output-deciding options, canonical text
  std::vector<TraceFileDigest> traces;
};

// What a build printed and wrote: replayed exactly on a hit.
struct BuildOutputs {
  int exit_code = 0;
  std::vector<uint8_t> bundle;
  std::string report_json;  // the bundle's report section text
  std::string diagnostics;  // the lines the build printed on stderr about its inputs and failures
  std::string summary_json; // the summary's input-determined fields (a JSON object)
};

// Streams one regular file through SHA-256. An error (kind io, reason trace_not_digestible) for anything
// that is not a regular file (a pipe cannot be read twice) or cannot be read.
Result<TraceFileDigest> digest_trace_file(const std::string& path);

// One line per object loaded into this process, "PATH BUILD-ID-HEX" (the executable's path empty), in load
// order; computed once. nullopt when the executable or a shared library has no GNU build ID note: then
// nothing may be memoised, there would be no telling two builds of the code apart. (The kernel's vDSO, which
// has no file, is left out.)
std::optional<std::string> loaded_code_identity();

// The canonical identity bytes of `inputs` (length-prefixed fields, format "build-memo/2"); the cache adds the
// toolchain fingerprint when it makes the ArtifactIdentity (see memo_identity).
std::vector<uint8_t> encode_build_inputs(const BuildInputs& inputs);
ArtifactIdentity memo_identity(const ArtifactCache& cache, const BuildInputs& inputs);

// The memo entry's payload (kept as a blob entry: checksum and full identity compare come from the cache).
// Decoding checks every length against the payload; an error (reason memo_malformed) says what is wrong.
std::vector<uint8_t> encode_build_outputs(const BuildOutputs& outputs);
Result<BuildOutputs> decode_build_outputs(std::span<const uint8_t> payload);

}  // namespace shaderbake::cache
