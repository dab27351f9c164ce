// SPDX-License-Identifier: MIT
#include "lib/cache/artifact_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>

#include "lib/core/byte_io.hpp"
#include "lib/io/file_io.hpp"

namespace shaderbake::cache {

namespace {

constexpr uint8_t kEntryMagic[4] = {'S', 'B', 'K', 'C'};
constexpr uint8_t kBlobMagic[4] = {'S', 'B', 'K', 'B'};
constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr size_t kSpirvHeaderWords = 5;
// Far above any real entry (a module of megabytes would be extraordinary): a bound on what a load reads and
// allocates whatever a file claims, and what a store writes.
constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;
constexpr char kEntrySuffix[] = ".sbkc";
constexpr char kTempInfix[] = ".sbkc.tmp.";
constexpr auto kStaleTempAge = std::chrono::hours(1);

Error entry_error(const char* reason, const ArtifactIdentity& identity, const std::string& what) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = reason;
  e.message = "cache entry " + identity.hash().to_hex() + ": " + what;
  return e;
}

Error io_error(const char* reason, const std::filesystem::path& path, const std::string& what, int err) {
  Error e;
  e.kind = ErrorKind::io;
  e.reason = reason;
  e.message = what + (err ? ": " + std::system_category().message(err) : std::string());
  e.where.file = path.string();
  return e;
}


bool is_lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

ArtifactIdentity ArtifactIdentity::make(std::string_view emitter_id, compile::ShaderStage stage,
                                        std::string_view source, std::string_view toolchain,
                                        std::span<const compile::SpecializationValue> specialization,
                                        compile::SourceLanguage language) {
  ByteWriter version;
  version.u32(kCacheFormatVersion);
  const auto stage_byte = static_cast<uint8_t>(stage);
  ByteWriter w;
  w.reserve(5 * 8 + 4 + 1 + emitter_id.size() + source.size() + toolchain.size());
  w.field_u64(version.data());
  w.field_u64(byte_span(emitter_id));
  w.field_u64({&stage_byte, 1});
  w.field_u64(byte_span(source));
  w.field_u64(byte_span(toolchain));
  if (!specialization.empty()) {
    ByteWriter values;
    const std::vector<compile::SpecializationValue> canonical = compile::canonical_specialization(specialization);
    values.u32(static_cast<uint32_t>(canonical.size()));
    for (const compile::SpecializationValue& v : canonical) {
      values.u32(v.constant_id);
      values.u32(static_cast<uint32_t>(v.words.size()));
      for (uint32_t word : v.words) values.u32(word);
    }
    w.field_u64(byte_span(compile::specialization_fingerprint()));
    w.field_u64(values.data());
  }
  // Only a SPIR-V source adds a field: the identities of GLSL jobs stay what they were.
  if (language == compile::SourceLanguage::spirv) w.field_u64(byte_span(std::string_view("source: spirv")));
  ArtifactIdentity id;
  id.bytes_ = std::move(w.data());
  id.stage_ = stage;
  id.hash_ = KeyHash::of(id.bytes_);
  return id;
}

// Entry file, all integers little-endian, written and read field by field:
//
//   offset      size   field
//   0           4      magic "SBKC" (modules) or "SBKB" (blobs)
//   4           4      format version (kCacheFormatVersion)
//   8           8      identity byte count N
//   16          N      identity bytes (ArtifactIdentity::bytes(): the full identity, compared on every hit)
//   16+N        8      payload byte count P
//   24+N        P      the payload: a module (below), or the blob's bytes
//   24+N+P      8      XXH3-64 (seed 0) of every byte before it
//
// Anything after the checksum is trailing data. A module's payload:
//
//   u64 W, then W SPIR-V words (u32 each)
//   its reflection, as reflect_spirv gave it when the entry was written (a hit then skips SPIRV-Cross, whose
//   parse of a canonical-ID module is most of a no-change rebuild's work):
//     u32 binding count, each: u32 set, u32 binding, u8 kind, u8 dim, u16 zero, u32 size, string name
//     u32 push-constant size
//     u32 input count, each: u32 location, u32 components, string name; the same for outputs
//   where a string is a u32 byte count and the bytes. The checksum and the full identity (emitter, source,
//   toolchain) vouch for the pair; reflection that breaks a rule above is damage like any other.
namespace {

// The shared frame of module and blob entries: magic, version, identity, the payload's byte count, the
// payload, the checksum.
std::vector<uint8_t> encode_framed(const uint8_t (&magic)[4], const ArtifactIdentity& identity,
                                   std::span<const uint8_t> payload) {
  ByteWriter w;
  w.reserve(32 + identity.bytes().size() + payload.size());
  w.bytes(magic);
  w.u32(kCacheFormatVersion);
  w.field_u64(identity.bytes());
  w.field_u64(payload);
  w.u64(XXH3_64bits(w.data().data(), w.size()));
  return std::move(w.data());
}

Result<std::span<const uint8_t>> decode_framed(std::span<const uint8_t> file, const uint8_t (&magic)[4],
                                               const ArtifactIdentity& identity) {
  const uint64_t size = file.size();
  auto truncated = [&](const char* at) {
    return entry_error("entry_truncated", identity, "truncated (" + std::to_string(size) + " bytes) in the " + at);
  };
  if (size > kMaxEntryBytes) return entry_error("entry_too_large", identity, std::to_string(size) + " bytes");
  ByteReader in(file);
  std::span<const uint8_t> file_magic, stored_identity, payload;
  uint32_t version = 0;
  uint64_t identity_size = 0, payload_size = 0, checksum = 0;
  if (!in.bytes(4, file_magic)) return truncated("magic");
  if (std::memcmp(file_magic.data(), magic, 4) != 0)
    return entry_error("entry_bad_magic", identity, "not a cache entry");
  if (!in.u32(version)) return truncated("version");
  if (version != kCacheFormatVersion)
    return entry_error("entry_bad_version", identity, "format version " + std::to_string(version));
  if (!in.u64(identity_size)) return truncated("identity size");
  if (!in.bytes(identity_size, stored_identity)) return truncated("identity");
  if (!in.u64(payload_size)) return truncated("payload size");
  if (!in.bytes(payload_size, payload)) return truncated("payload");
  const size_t checksum_at = in.offset();
  if (!in.u64(checksum)) return truncated("checksum");
  if (!in.at_end())
    return entry_error("entry_trailing_data", identity, std::to_string(in.remaining()) + " bytes after the checksum");
  if (checksum != XXH3_64bits(file.data(), checksum_at))
    return entry_error("entry_checksum_mismatch", identity, "checksum mismatch");
  const std::vector<uint8_t>& expected = identity.bytes();
  if (!std::equal(stored_identity.begin(), stored_identity.end(), expected.begin(), expected.end()))
    return entry_error("entry_identity_mismatch", identity, "written for another identity");
  return payload;
}

}  // namespace

namespace {

void write_variables(ByteWriter& out, const std::vector<compile::Reflection::Variable>& variables) {
  out.u32(static_cast<uint32_t>(variables.size()));
  for (const compile::Reflection::Variable& v : variables) {
    out.u32(v.location);
    out.u32(v.components);
    out.string_u32(v.name);
  }
}

// Every count is bounded by what remains (count_u32), so that a damaged one cannot make a huge allocation.
bool read_variables(ByteReader& in, std::vector<compile::Reflection::Variable>& variables) {
  uint32_t n = 0;
  if (!in.count_u32(n, 12)) return false;
  variables.resize(n);
  for (compile::Reflection::Variable& v : variables)
    if (!in.u32(v.location) || !in.u32(v.components) || !in.string_u32(v.name)) return false;
  return true;
}

bool read_reflection(ByteReader& in, compile::Reflection& r) {
  uint32_t n = 0;
  if (!in.count_u32(n, 20)) return false;
  r.bindings.resize(n);
  for (compile::Reflection::Binding& b : r.bindings) {
    uint8_t kind = 0;
    uint16_t zero = 0;
    if (!in.u32(b.set) || !in.u32(b.binding) || !in.u8(kind) || !in.u8(b.dim) || !in.u16(zero) || zero != 0 ||
        !in.u32(b.size) || !in.string_u32(b.name))
      return false;
    if (kind > static_cast<uint8_t>(compile::Reflection::Binding::Kind::storage_buffer)) return false;
    b.kind = static_cast<compile::Reflection::Binding::Kind>(kind);
  }
  return in.u32(r.push_constant_size) && read_variables(in, r.inputs) && read_variables(in, r.outputs) && in.at_end();
}

}  // namespace

std::vector<uint8_t> encode_entry(const ArtifactIdentity& identity, const compile::CompiledModule& module) {
  ByteWriter payload;
  payload.reserve(8 + module.spirv.size() * 4 + 256);
  payload.u64(module.spirv.size());
  for (uint32_t word : module.spirv) payload.u32(word);
  const compile::Reflection& r = module.reflection;
  payload.u32(static_cast<uint32_t>(r.bindings.size()));
  for (const compile::Reflection::Binding& b : r.bindings) {
    payload.u32(b.set);
    payload.u32(b.binding);
    payload.u8(static_cast<uint8_t>(b.kind));
    payload.u8(b.dim);
    payload.u16(0);
    payload.u32(b.size);
    payload.string_u32(b.name);
  }
  payload.u32(r.push_constant_size);
  write_variables(payload, r.inputs);
  write_variables(payload, r.outputs);
  return encode_framed(kEntryMagic, identity, payload.data());
}

Result<compile::CompiledModule> decode_entry(std::span<const uint8_t> file, const ArtifactIdentity& identity) {
  auto payload = decode_framed(file, kEntryMagic, identity);
  if (!payload) return std::move(payload).error();
  ByteReader in(*payload);
  uint64_t word_count = 0;
  if (!in.count_u64(word_count, 4))
    return entry_error("entry_truncated", identity, "SPIR-V words run past the payload");
  compile::CompiledModule module;
  module.stage = identity.stage();
  module.spirv.resize(static_cast<size_t>(word_count));
  for (uint32_t& word : module.spirv) (void)in.u32(word);  // in bounds: checked against word_count above
  if (module.spirv.size() < kSpirvHeaderWords || module.spirv[0] != kSpirvMagic)
    return entry_error("entry_not_spirv", identity, "the words are not a SPIR-V module");
  if (!read_reflection(in, module.reflection))
    return entry_error("entry_bad_reflection", identity, "the stored reflection is malformed");
  return module;
}

std::vector<uint8_t> encode_blob_entry(const ArtifactIdentity& identity, std::span<const uint8_t> bytes) {
  return encode_framed(kBlobMagic, identity, bytes);
}

Result<std::vector<uint8_t>> decode_blob_entry(std::span<const uint8_t> file, const ArtifactIdentity& identity) {
  auto payload = decode_framed(file, kBlobMagic, identity);
  if (!payload) return std::move(payload).error();
  return std::vector<uint8_t>(payload->begin(), payload->end());
}

ArtifactCache::ArtifactCache(std::filesystem::path directory, std::string toolchain)
    : directory_(std::move(directory)), toolchain_(std::move(toolchain)) {}

ArtifactIdentity ArtifactCache::identity(std::string_view emitter_id, compile::ShaderStage stage,
                                         std::string_view source,
                                         std::span<const compile::SpecializationValue> specialization) const {
  return ArtifactIdentity::make(emitter_id, stage, source, toolchain_, specialization);
}

ArtifactIdentity ArtifactCache::blob_identity(std::string_view kind, std::span<const uint8_t> content) const {
  return identity(kind, compile::ShaderStage::fragment,
                  std::string_view(reinterpret_cast<const char*>(content.data()), content.size()));
}

std::filesystem::path ArtifactCache::entry_path(const ArtifactIdentity& identity) const {
  const std::string hex = identity.hash().to_hex();
  return directory_ / ("v" + std::to_string(kCacheFormatVersion)) / hex.substr(0, 2) / (hex + kEntrySuffix);
}

template <class T, class Decode>
std::optional<T> ArtifactCache::load_entry(const ArtifactIdentity& identity, Decode decode) {
  const std::filesystem::path path = entry_path(identity);
  // The descriptor stays open: a hit sets its time, and a damaged entry is deleted only if it is still this file.
  Result<io::OpenFile> file = io::open_regular_file(path);
  if (!file) return load_remote<T>(identity, decode);
  const struct stat& st = file->info;
  // Read one byte past the bound so that an oversized file is seen as such, not as a truncated one; a file
  // that shrinks meanwhile just gives fewer bytes (decode calls it truncated).
  const uint64_t claimed = static_cast<uint64_t>(st.st_size);
  const size_t limit = static_cast<size_t>(std::min(claimed, kMaxEntryBytes + 1));
  Result<std::vector<uint8_t>> bytes = io::read_up_to(file->fd.get(), limit, limit, path);
  if (!bytes) {
    ++misses_;  // an I/O error is not evidence of a bad entry: leave it
    return std::nullopt;
  }
  std::optional<T> value = decode(*bytes);
  if (!value) {
    // Delete only the file that was read: a writer may have renamed a good entry over it meanwhile.
    struct stat now {};
    if (::stat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) discard(path);
    ++corrupt_discarded_;
    return load_remote<T>(identity, decode);
  }
  (void)::futimens(file->fd.get(), nullptr);  // recency for prune; a read-only cache still serves hits
  ++hits_;
  return value;
}

template <class T, class Decode>
std::optional<T> ArtifactCache::load_remote(const ArtifactIdentity& identity, Decode decode) {
  const bool asked = remote_ && !remote_->out_of_use();
  std::optional<std::vector<uint8_t>> bytes = asked ? remote_->get(identity.hash().to_hex()) : std::nullopt;
  if (!bytes) {
    if (asked) ++remote_misses_;  // a request made (a store out of use answers none)
    ++misses_;
    return std::nullopt;
  }
  std::optional<T> value = decode(*bytes);
  if (!value) {  // damaged, or another identity under this name: compiled again, and the put replaces it
    ++remote_corrupt_;
    ++misses_;
    return std::nullopt;
  }
  (void)store_local(identity, *bytes);  // only saves the next request
  ++remote_hits_;
  ++hits_;
  return value;
}

std::optional<compile::CompiledModule> ArtifactCache::load(const ArtifactIdentity& identity) {
  return load_entry<compile::CompiledModule>(identity, [&](std::span<const uint8_t> bytes) {
    auto module = decode_entry(bytes, identity);
    return module ? std::optional(std::move(*module)) : std::nullopt;
  });
}

std::optional<std::vector<uint8_t>> ArtifactCache::load_blob(const ArtifactIdentity& identity) {
  return load_entry<std::vector<uint8_t>>(identity, [&](std::span<const uint8_t> bytes) {
    auto blob = decode_blob_entry(bytes, identity);
    return blob ? std::optional(std::move(*blob)) : std::nullopt;
  });
}

void ArtifactCache::discard(const std::filesystem::path& path) { ::unlink(path.c_str()); }

Status ArtifactCache::store(const ArtifactIdentity& identity, const compile::CompiledModule& module) {
  return store_entry(identity, encode_entry(identity, module));
}

Status ArtifactCache::store_blob(const ArtifactIdentity& identity, std::span<const uint8_t> blob) {
  return store_entry(identity, encode_blob_entry(identity, blob));
}

Status ArtifactCache::store_entry(const ArtifactIdentity& identity, const std::vector<uint8_t>& bytes) {
  Status local = store_local(identity, bytes);
  if (remote_ && bytes.size() <= kMaxEntryBytes && remote_->put(identity.hash().to_hex(), bytes)) ++remote_stores_;
  return local;
}

Status ArtifactCache::store_local(const ArtifactIdentity& identity, const std::vector<uint8_t>& bytes) {
  const std::filesystem::path path = entry_path(identity);
  if (bytes.size() > kMaxEntryBytes)
    return io_error("cache_entry_too_large", path, "cache entry of " + std::to_string(bytes.size()) + " bytes not stored", 0);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return io_error("cache_write_failed", path.parent_path(), "cannot create the cache directory: " + ec.message(), 0);

  // The temporary file is "<entry name>.tmp.<pid>.<16 random hex digits>", unique among writers (the infix is
  // what prune removes stale ones by). The rename is atomic: readers see the old entry, no entry or the whole
  // new one, never a part.
  // No fsync: a cache entry is disposable. An entry that a crash leaves empty or torn fails its checksum on
  // read and is rebuilt, so durability would buy nothing but a disk flush per entry (~1 ms each, a fifth of
  // a cold build's wall time on the 2-core benchmark machine).
  const std::string temporary_prefix = identity.hash().to_hex() + kTempInfix;
  if (Status s = io::replace_file_atomically(path, bytes, io::Durability::none, {temporary_prefix, std::nullopt}); !s) {
    Error e = std::move(s).error();
    e.reason = "cache_write_failed";
    e.message = "cannot write a cache entry: " + e.message;
    return e;
  }
  ++stores_;
  return ok_status();
}

CacheStats ArtifactCache::stats() const {
  CacheStats s;
  s.hits = hits_.load();
  s.misses = misses_.load();
  s.stores = stores_.load();
  s.store_failures = store_failures_.load();
  s.remote_hits = remote_hits_.load();
  s.remote_misses = remote_misses_.load();
  s.remote_corrupt = remote_corrupt_.load();
  s.remote_stores = remote_stores_.load();
  s.corrupt_discarded = corrupt_discarded_.load();
  return s;
}

std::optional<compile::CompiledModule> ArtifactCache::find(const compile::CompileJob& job) {
  return load(ArtifactIdentity::make(job.emitter_id, job.stage, job.source, toolchain_, job.specialization, job.language));
}

void ArtifactCache::put(const compile::CompileJob& job, const compile::CompiledModule& module) {
  Status s = store(ArtifactIdentity::make(job.emitter_id, job.stage, job.source, toolchain_, job.specialization, job.language), module);
  if (s) return;
  ++store_failures_;
  std::lock_guard lock(error_mutex_);
  if (!first_store_error_) first_store_error_ = std::move(s).error();
}

std::optional<Error> ArtifactCache::first_store_error() const {
  std::lock_guard lock(error_mutex_);
  return first_store_error_;
}

Result<std::filesystem::path> default_directory() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string dir = env("SHADERBAKE_CACHE_DIR"); !dir.empty()) return std::filesystem::path(dir);
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return std::filesystem::path(dir) / "shaderbake";
  if (std::string dir = env("HOME"); !dir.empty()) return std::filesystem::path(dir) / ".cache" / "shaderbake";
  Error e;
  e.kind = ErrorKind::io;
  e.reason = "no_cache_directory";
  e.message = "none of SHADERBAKE_CACHE_DIR, XDG_CACHE_HOME and HOME is set";
  return e;
}

Result<PruneResult> prune(const std::filesystem::path& directory, uint64_t max_bytes) {
  namespace fs = std::filesystem;
  struct Entry {
    fs::path path;
    std::string name;
    uint64_t size = 0;
    fs::file_time_type mtime;
  };
  PruneResult result;
  const fs::path root = directory / ("v" + std::to_string(kCacheFormatVersion));
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(root, ec))) return result;

  const auto stale_before = fs::file_time_type::clock::now() - kStaleTempAge;
  std::vector<Entry> entries;
  for (fs::directory_iterator dir(root, ec), end; !ec && dir != end; dir.increment(ec)) {
    const std::string prefix = dir->path().filename().string();
    std::error_code type_ec;
    if (prefix.size() != 2 || !is_lower_hex(prefix) || dir->is_symlink(type_ec) || !dir->is_directory(type_ec)) continue;
    std::error_code inner;
    for (fs::directory_iterator it(dir->path(), inner), end2; !inner && it != end2; it.increment(inner)) {
      std::error_code file_ec;
      if (it->is_symlink(file_ec) || !it->is_regular_file(file_ec)) continue;
      // Only names this code writes, in the folder it writes them to: <hex>.sbkc and <hex>.sbkc.tmp.<...>.
      const std::string name = it->path().filename().string();
      const std::string_view hex = std::string_view(name).substr(0, 32);
      if (name.size() < 32 || !is_lower_hex(hex) || hex.substr(0, 2) != prefix) continue;
      const std::string_view rest = std::string_view(name).substr(32);
      const auto mtime = it->last_write_time(file_ec);
      const uint64_t size = it->file_size(file_ec);
      if (file_ec) continue;  // removed meanwhile
      if (rest == kEntrySuffix) {
        entries.push_back({it->path(), name, size, mtime});
      } else if (rest.starts_with(kTempInfix) && mtime < stale_before) {
        // A writer renames its file within moments; one this old belongs to a writer that was killed.
        if (fs::remove(it->path(), file_ec)) ++result.temp_files_removed;
      }
    }
    if (inner) return io_error("cache_prune_failed", dir->path(), "cannot list the cache: " + inner.message(), 0);
  }
  if (ec) return io_error("cache_prune_failed", root, "cannot list the cache: " + ec.message(), 0);

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.mtime != b.mtime ? a.mtime < b.mtime : a.name < b.name;
  });
  result.entries_before = entries.size();
  for (const Entry& e : entries) result.bytes_before += e.size;
  uint64_t total = result.bytes_before;
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    const bool removed = fs::remove(e.path, ec);
    if (ec) return io_error("cache_prune_failed", e.path, "cannot remove a cache entry: " + ec.message(), 0);
    total -= e.size;  // gone either way: removed now, or by another process meanwhile
    if (removed) {
      ++result.entries_removed;
      result.bytes_removed += e.size;
    }
  }
  return result;
}

}  // namespace shaderbake::cache
