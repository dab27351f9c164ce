// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/cache/artifact_cache.hpp"
#include "lib/core/key_hash.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::cache {

// The build memo: `shaderbake build`'s outputs, kept in the artifact cache under the identity of everything
// the build read, so that a build none of whose inputs changed copies its outputs instead of reading every
// trace, planning and assembling the bundle again (as ccache's direct mode does for one compile). A build whose
// inputs differ in any byte misses and runs every stage; the artifact cache still serves its modules.
//
// What the identity holds, and why it is enough:
// - the running executable's GNU build ID: any change to shaderbake's own code (readers, emitters, planner,
//   writer) gives another ID, so no memo outlives the code that made it;
// - the toolchain fingerprint (the cache adds it to every identity) and the zstd library's version (the
//   dynamically linked libraries that decide output bytes);
// - the settings that decide outputs (`settings`: e.g. --strict; never -j, which cannot change a byte);
// - every trace, in order: its path as given (reports and diagnostics name it), its size and the XXH3-128
//   digest of its content. This is the one place where a digest stands for bytes: a trace is megabytes to
//   gigabytes and keeping a copy to compare would cost what the memo saves. The digest is taken again after a
//   build and the memo is stored only when every trace still has the digest it had before (a trace rewritten
//   during a build leaves no memo).
struct TraceFileDigest {
  std::string path;
  uint64_t bytes = 0;
  KeyHash digest;  // XXH3-128 of the content
  friend bool operator==(const TraceFileDigest&, const TraceFileDigest&) = default;
};

struct BuildInputs {
  std::string executable_build_id;  // hex
  std::string compressor_version;   // the zstd library's
  std::string settings;             // output-deciding options, canonical text
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

// Streams one regular file through XXH3-128. An error (kind io, reason trace_not_digestible) for anything
// that is not a regular file (a pipe cannot be read twice) or cannot be read.
Result<TraceFileDigest> digest_trace_file(const std::string& path);

// The GNU build ID note of the running executable, as hex; nullopt when it has none (then nothing may be
// memoised: there would be no telling two builds of the tool apart).
std::optional<std::string> executable_build_id();

// The canonical identity bytes of `inputs` (length-prefixed fields, format "build-memo/1"); the cache adds the
// toolchain fingerprint when it makes the ArtifactIdentity (see memo_identity).
std::vector<uint8_t> encode_build_inputs(const BuildInputs& inputs);
ArtifactIdentity memo_identity(const ArtifactCache& cache, const BuildInputs& inputs);

// The memo entry's payload (kept as a blob entry: checksum and full identity compare come from the cache).
// Decoding checks every length against the payload; an error (reason memo_malformed) says what is wrong.
std::vector<uint8_t> encode_build_outputs(const BuildOutputs& outputs);
Result<BuildOutputs> decode_build_outputs(std::span<const uint8_t> payload);

}  // namespace shaderbake::cache
