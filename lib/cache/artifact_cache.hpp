// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/compile/compile_chain.hpp"
#include "lib/compile/spirv_module.hpp"
#include "lib/core/key_hash.hpp"
#include "lib/core/result.hpp"
#include "lib/cache/remote_cache.hpp"

namespace shaderbake::cache {

// The artifact cache: compiled modules on disk, content-addressed by everything that decides
// their SPIR-V, so that a rebuild compiles only what changed. A wrong hit is the one unacceptable failure:
// every hit is confirmed by comparing the full identity bytes stored in the entry, never by hash alone.
// Anything else that goes wrong (a missing, truncated or corrupt entry, a full disk) costs a recompile.

// Version of the identity encoding and of the entry file format; entries live under DIR/v<version>/.
inline constexpr uint32_t kCacheFormatVersion = 2;

// The identity of one artifact: a canonical byte string of length-prefixed fields (each a u64 little-endian
// byte count, then the bytes), in this order:
//   cache format version (u32 LE) | emitter id + version ("<guest>-exact/1") | shader stage (u8, SPIR-V
//   ExecutionModel) | the full generated source | the toolchain fingerprint (compile::toolchain_fingerprint())
// and, only when the job has specialization values, two more:
//   | compile::specialization_fingerprint() | the values in canonical order (compile::canonical_specialization),
//   as a u32 count, then per value its constant id, its word count and its words (u32 LE each)
// The length prefixes make the encoding unambiguous: no two different field tuples (of any field count) give
// the same bytes, so an identity with values never equals one without. Without values the bytes are the five
// fields alone, exactly as before values could be given: entries of such jobs stay valid, and the format
// version stays.
class ArtifactIdentity {
 public:
  static ArtifactIdentity make(std::string_view emitter_id, compile::ShaderStage stage, std::string_view source,
                               std::string_view toolchain,
                               std::span<const compile::SpecializationValue> specialization = {},
                               compile::SourceLanguage language = compile::SourceLanguage::glsl);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  compile::ShaderStage stage() const { return stage_; }
  KeyHash hash() const { return hash_; }  // XXH3-128 of bytes(): names the entry file, proves nothing

 private:
  std::vector<uint8_t> bytes_;
  compile::ShaderStage stage_ = compile::ShaderStage::fragment;
  KeyHash hash_;
};

// One entry file's bytes: the module's words and its reflection (format table in artifact_cache.cpp).
std::vector<uint8_t> encode_entry(const ArtifactIdentity& identity, const compile::CompiledModule& module);

// Reads one entry file's bytes, which are untrusted: every size is bounds- and overflow-checked. Returns the
// module (words, stored reflection, the identity's stage) only when the entry is whole, its checksum holds, it
// was written for exactly `identity` (full byte compare), the words start with the SPIR-V magic and the
// reflection is well-formed. Otherwise an error whose reason says what is wrong: entry_truncated,
// entry_trailing_data, entry_bad_magic, entry_bad_version, entry_too_large, entry_checksum_mismatch,
// entry_identity_mismatch, entry_not_spirv or entry_bad_reflection.
Result<compile::CompiledModule> decode_entry(std::span<const uint8_t> file, const ArtifactIdentity& identity);

// The same for opaque blob entries (magic "SBKB", payload in bytes).
std::vector<uint8_t> encode_blob_entry(const ArtifactIdentity& identity, std::span<const uint8_t> bytes);
Result<std::vector<uint8_t>> decode_blob_entry(std::span<const uint8_t> file, const ArtifactIdentity& identity);

// Counters of one ArtifactCache object since its construction (a snapshot; each counter is exact, the set is
// not read atomically as a whole while other threads work). Every load is a hit or a miss; a corrupt entry
// is a miss that was also discarded.
struct CacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t stores = 0;             // entries written
  uint64_t store_failures = 0;     // entries that could not be written (the build went on without them)
  uint64_t corrupt_discarded = 0;  // entries found damaged or of another identity, deleted
  // With a remote store (set_remote): local misses it answered (counted in hits too), local misses it did not
  // have, objects it held that failed their checks (a miss: compiled and stored again), entries written to it.
  uint64_t remote_hits = 0;
  uint64_t remote_misses = 0;
  uint64_t remote_corrupt = 0;
  uint64_t remote_stores = 0;
};

// One cache directory. Thread-safe: one object serves all compile threads. Several processes (and objects)
// may share a directory: entries are written to a unique temporary file and renamed into place, and the
// bytes for one name are always the same (whatever writes an entry is deterministic in its identity), so a
// race between writers is harmless.
//
// Layout: DIR/v<version>/<first two hex digits>/<32 hex digits of the identity hash>.sbkc, temporary files next
// to their entry as <entry name>.tmp.<pid>.<16 random hex digits> (io::replace_file_atomically). Implements
// compile::ModuleStore (for compile::compile_all): find/put build the identity from the job and this cache's
// toolchain fingerprint.
class ArtifactCache final : public compile::ModuleStore {
 public:
  // Nothing is created until the first store. `toolchain` is part of every identity this object builds.
  explicit ArtifactCache(std::filesystem::path directory, std::string toolchain = compile::toolchain_fingerprint());

  const std::filesystem::path& directory() const { return directory_; }
  const std::string& toolchain() const { return toolchain_; }

  ArtifactIdentity identity(std::string_view emitter_id, compile::ShaderStage stage, std::string_view source,
                            std::span<const compile::SpecializationValue> specialization = {}) const;
  // The identity of an opaque blob entry (load_blob/store_blob): `kind` names what it holds and its format
  // ("build-memo/2"), `content` is the canonical bytes of what it depends on. The identity's stage field means
  // nothing for a blob and is always fragment.
  ArtifactIdentity blob_identity(std::string_view kind, std::span<const uint8_t> content) const;
  std::filesystem::path entry_path(const ArtifactIdentity& identity) const;

  // The module stored for `identity`, with its reflection recomputed (compile::reflect_spirv), or nullopt.
  // A hit touches the entry's modification time (prune's recency). An entry that fails any check is
  // deleted and counted in corrupt_discarded, and the load is a miss: the caller compiles and stores again.
  std::optional<compile::CompiledModule> load(const ArtifactIdentity& identity);

  // Writes the entry atomically (unique temporary file, rename over the final name; no fsync: an entry torn by
  // a crash fails its checksum and is rebuilt). An error (kind
  // io) says why it could not; callers go on without the entry, a build never fails for it.
  Status store(const ArtifactIdentity& identity, const compile::CompiledModule& module);

  // Opaque artifacts other than modules (the bundle writer's compressed module set), under the same rules:
  // full identity compare, checksum, corrupt entries discarded, atomic writes, counted in stats().
  std::optional<std::vector<uint8_t>> load_blob(const ArtifactIdentity& identity);
  Status store_blob(const ArtifactIdentity& identity, std::span<const uint8_t> blob);

  CacheStats stats() const;

  // A remote store behind this directory (a shared HTTP cache): a local miss asks it (read-through; what it
  // answers is checked like a local entry and, when whole, written here), and every entry stored here is stored
  // there too (write-back). Set before the first load or store.
  void set_remote(std::shared_ptr<RemoteCache> remote) { remote_ = std::move(remote); }
  const RemoteCache* remote() const { return remote_.get(); }

  // compile::ModuleStore. put() counts a failed store in stats().store_failures and keeps the first error.
  std::optional<compile::CompiledModule> find(const compile::CompileJob& job) override;
  void put(const compile::CompileJob& job, const compile::CompiledModule& module) override;
  std::optional<Error> first_store_error() const;

 private:
  void discard(const std::filesystem::path& path);
  template <class T, class Decode>
  std::optional<T> load_entry(const ArtifactIdentity& identity, Decode decode);
  // A local miss: the remote store's object, if it has a good one (then kept here too).
  template <class T, class Decode>
  std::optional<T> load_remote(const ArtifactIdentity& identity, Decode decode);
  Status store_entry(const ArtifactIdentity& identity, const std::vector<uint8_t>& bytes);
  Status store_local(const ArtifactIdentity& identity, const std::vector<uint8_t>& bytes);

  std::filesystem::path directory_;
  std::string toolchain_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> stores_{0};
  std::atomic<uint64_t> store_failures_{0};
  std::atomic<uint64_t> corrupt_discarded_{0};
  std::shared_ptr<RemoteCache> remote_;
  std::atomic<uint64_t> remote_hits_{0};
  std::atomic<uint64_t> remote_misses_{0};
  std::atomic<uint64_t> remote_corrupt_{0};
  std::atomic<uint64_t> remote_stores_{0};
  mutable std::mutex error_mutex_;
  std::optional<Error> first_store_error_;  // guarded by error_mutex_
};

// $SHADERBAKE_CACHE_DIR if set (and not empty), else $XDG_CACHE_HOME/shaderbake, else
// $HOME/.cache/shaderbake; an error (reason no_cache_directory) when none of them is set.
Result<std::filesystem::path> default_directory();

struct PruneResult {
  uint64_t entries_before = 0;
  uint64_t bytes_before = 0;  // sum of entry file sizes
  uint64_t entries_removed = 0;
  uint64_t bytes_removed = 0;
  uint64_t temp_files_removed = 0;  // stale temporary files (older than an hour: left by a killed writer)
};

// Removes least recently used entries of `directory` (oldest modification time first, ties by file name)
// until the entries total at most `max_bytes`, and temporary files older than an hour. Touches nothing but
// entries and temporary files of the current format version (by name, in their place). A directory that
// does not exist is an empty cache. An entry another process removes meanwhile is skipped; a file that
// cannot be removed is an error (kind io) naming it; a stale temporary file that cannot is left.
Result<PruneResult> prune(const std::filesystem::path& directory, uint64_t max_bytes);

}  // namespace shaderbake::cache
