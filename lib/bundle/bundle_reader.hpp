// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/core/key_hash.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::bundle {

// The tool's view of a bundle: the runtime header's loader (the same code a renderer runs) behind an owning
// C++ handle whose failures are Errors that name the file. Movable, not copyable.
class BundleFile {
 public:
  // Maps `path` (sbk_bundle_open_file: never reads the whole file; the header's size must be the file's) and
  // checks the header and section table: the format's checks only. Whose keys it holds is the guest's check
  // (GuestCatalog::for_bundle). Reasons: bundle_io, not_a_bundle, bundle_version, bundle_corrupt.
  static Result<BundleFile> open(const std::string& path);

  BundleFile(BundleFile&& other) noexcept;
  BundleFile& operator=(BundleFile&& other) noexcept;
  BundleFile(const BundleFile&) = delete;
  BundleFile& operator=(const BundleFile&) = delete;
  ~BundleFile();

  const sbk_bundle& handle() const { return bundle_; }
  const std::string& path() const { return path_; }
  uint64_t size() const { return bundle_.size; }
  // The whole file as mapped (open checked its header and section table, nothing else), valid while the
  // BundleFile lives. A file changed in place while mapped changes these bytes too: shaderbake's writers
  // never do that (they rename a new file over the old one).
  std::span<const uint8_t> bytes() const { return {bundle_.data, static_cast<size_t>(bundle_.size)}; }

  // The META section's JSON text.
  std::string meta_json() const;
  // The build report's JSON text, empty when the bundle has none.
  Result<std::string> report_json() const;
  Result<sbk_entry> entry(uint32_t index) const;
  // Decompresses and checks a module. `zstd_dctx`: an optional ZSTD_DCtx* reused across calls (as
  // sbk_bundle_read_module's).
  Result<std::vector<uint32_t>> module_words(uint32_t module, void* zstd_dctx = nullptr) const;
  // Digests the dictionary once (sbk_bundle_prepare_dictionary) before many module reads; call it before
  // the file is shared between threads.
  void prepare_module_reads();
  Result<sbk_layout> layout(uint32_t index) const;

  // Entries whose key hash starts with `hex_prefix` (lowercase hex of KeyHash::to_hex, high half first), or
  // whose full canonical key is `hex_prefix` (hex of the key bytes). Damaged entries are skipped.
  std::vector<sbk_entry> find_by_hex(const std::string& hex_prefix) const;

  // An Error naming this file for a loader result.
  Error error(sbk_result result, const std::string& what) const;

 private:
  BundleFile() = default;
  sbk_bundle bundle_{};
  std::string path_;
};

// The full canonical key of an entry sbk_bundle_entry_at or sbk_bundle_find gave (a pipeline's is assembled
// from its parts: sbk_bundle_entry_key); empty when the bundle's bytes behind it are damaged.
std::vector<uint8_t> entry_key(const sbk_bundle& bundle, const sbk_entry& entry);

// What an entry kind (SBK_KEY_KIND_*: a key's second byte) names, for messages: "specialization", "family",
// "pipeline", "compute pipeline"; "?" for another byte.
const char* key_kind_name(uint32_t kind);

// One row of a bundle's section table (schemas/bundle.md, "Section table entry").
struct SectionTableEntry {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;  // from the start of the file
  uint64_t size = 0;
  uint64_t checksum = 0;  // XXH3-64 of the section's bytes
};

// The section table of a bundle sbk_bundle_open_* accepted (so every section lies inside the file and none
// overlaps another), in table order, as the file stores it: flags and checksums are not checked here.
std::vector<SectionTableEntry> section_table(const sbk_bundle& bundle);

}  // namespace shaderbake::bundle
