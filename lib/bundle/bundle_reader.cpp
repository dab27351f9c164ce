// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_reader.hpp"

#include <cassert>
#include <cstring>

#include "lib/core/byte_io.hpp"
#include "lib/core/hex.hpp"
#include "lib/core/little_endian.hpp"
#include "lib/io/file_io.hpp"

namespace shaderbake::bundle {

namespace {

const char* reason_of(sbk_result r) {
  switch (r) {
    case SBK_ERROR_IO: return "bundle_io";
    case SBK_ERROR_NOT_A_BUNDLE: return "not_a_bundle";
    case SBK_ERROR_VERSION: return "bundle_version";
    case SBK_ERROR_OUT_OF_MEMORY: return "out_of_memory";
    default: return "bundle_corrupt";
  }
}

}  // namespace

Error BundleFile::error(sbk_result result, const std::string& what) const {
  Error e;
  e.kind = result == SBK_ERROR_IO ? ErrorKind::io : ErrorKind::bad_input;
  e.reason = reason_of(result);
  e.message = what + ": " + sbk_result_name(result);
  e.where.file = path_;
  return e;
}

Result<BundleFile> BundleFile::open(const std::string& path) {
  BundleFile file;
  file.path_ = path;
  sbk_result r = sbk_bundle_open_file(&file.bundle_, path.c_str());
  if (r == SBK_ERROR_VERSION) {
    // Name the format the file has: an older bundle is rebuilt from its traces, a newer one needs a newer tool.
    Error e = file.error(r, "cannot open the bundle");
    if (auto opened = io::open_regular_file(path)) {
      if (auto head = io::read_up_to(opened->fd.get(), 10, 10, path); head && head->size() == 10) {
        const uint32_t major = load_u16_le(head->data() + 8);
        e.message = "bundle format " + std::to_string(major) + "; this shaderbake reads format " +
                    std::to_string(SBK_BUNDLE_FORMAT_MAJOR) + " only: " +
                    (major < SBK_BUNDLE_FORMAT_MAJOR ? "rebuild the bundle from its traces (shaderbake build)"
                                                     : "use the shaderbake that wrote it, or a newer one");
      }
    }
    return e;
  }
  if (r != SBK_OK) return file.error(r, r == SBK_ERROR_IO ? "cannot open or map the file" : "cannot open the bundle");
  return file;
}

BundleFile::BundleFile(BundleFile&& other) noexcept : bundle_(other.bundle_), path_(std::move(other.path_)) {
  std::memset(&other.bundle_, 0, sizeof other.bundle_);
}

BundleFile& BundleFile::operator=(BundleFile&& other) noexcept {
  if (this != &other) {
    sbk_bundle_close(&bundle_);
    bundle_ = other.bundle_;
    path_ = std::move(other.path_);
    std::memset(&other.bundle_, 0, sizeof other.bundle_);
  }
  return *this;
}

BundleFile::~BundleFile() { sbk_bundle_close(&bundle_); }

std::string BundleFile::meta_json() const {
  uint64_t size = 0;
  const uint8_t* bytes = sbk_bundle_section(&bundle_, SBK_SECTION_META, &size);
  return bytes ? std::string(reinterpret_cast<const char*>(bytes), size) : std::string();
}

Result<std::string> BundleFile::report_json() const {
  size_t size = 0;
  sbk_result r = sbk_bundle_read_report(&bundle_, nullptr, 0, &size);
  if (r == SBK_NOT_FOUND) return std::string();
  if (r != SBK_ERROR_BUFFER_TOO_SMALL && r != SBK_OK) return error(r, "cannot read the report");
  std::string text(size, '\0');
  r = sbk_bundle_read_report(&bundle_, text.data(), text.size(), &size);
  if (r != SBK_OK) return error(r, "cannot read the report");
  return text;
}

Result<sbk_entry> BundleFile::entry(uint32_t index) const {
  sbk_entry e;
  const sbk_result r = sbk_bundle_entry_at(&bundle_, index, &e);
  if (r != SBK_OK) return error(r, "entry " + std::to_string(index));
  return e;
}

void BundleFile::prepare_module_reads() {
  // A damaged dictionary section is no reason to refuse the file here: reads then go the unprepared way,
  // each still checked against its module's checksum, and verify reports the section's checksum.
  (void)sbk_bundle_prepare_dictionary(&bundle_);
}

Result<std::vector<uint32_t>> BundleFile::module_words(uint32_t module, void* zstd_dctx) const {
  sbk_module_info info;
  sbk_result r = sbk_bundle_module_info(&bundle_, module, &info);
  if (r != SBK_OK) return error(r, "module " + std::to_string(module));
  std::vector<uint32_t> words((info.raw_size + 3) / 4);
  size_t size = 0;
  r = sbk_bundle_read_module(&bundle_, module, words.data(), words.size() * 4, &size, zstd_dctx);
  if (r != SBK_OK) return error(r, "module " + std::to_string(module));
  if (size % 4 != 0) return error(SBK_ERROR_CORRUPT, "module " + std::to_string(module) + " is not whole words");
  return words;
}

Result<sbk_layout> BundleFile::layout(uint32_t index) const {
  sbk_layout out;
  const sbk_result r = sbk_bundle_layout(&bundle_, index, &out);
  if (r != SBK_OK) return error(r, "layout " + std::to_string(index));
  return out;
}

std::vector<sbk_entry> BundleFile::find_by_hex(const std::string& hex) const {
  std::vector<sbk_entry> out;
  if (hex.empty()) return out;
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&bundle_); ++i) {
    sbk_entry e;
    if (sbk_bundle_entry_at(&bundle_, i, &e) != SBK_OK) continue;
    const std::vector<uint8_t> key = entry_key(bundle_, e);
    if (KeyHash::of(key).to_hex().starts_with(hex) || hex_bytes(key) == hex) out.push_back(e);
  }
  return out;
}

std::vector<SectionTableEntry> section_table(const sbk_bundle& bundle) {
  static_assert(SBK_BUNDLE_SECTION_ENTRY_SIZE == 4 + 4 + 8 + 8 + 8, "the fields read below");
  // The header's size (bytes 12-15) and section count (24-27) place the table; open checked it is in the file.
  const uint32_t header_size = load_u32_le(bundle.data + 12), count = load_u32_le(bundle.data + 24);
  ByteReader in({bundle.data + header_size, uint64_t{count} * SBK_BUNDLE_SECTION_ENTRY_SIZE});
  std::vector<SectionTableEntry> out(count);
  for (SectionTableEntry& e : out) {
    [[maybe_unused]] const bool whole =
        in.u32(e.type) && in.u32(e.flags) && in.u64(e.offset) && in.u64(e.size) && in.u64(e.checksum);
    assert(whole);
  }
  return out;
}

std::vector<uint8_t> entry_key(const sbk_bundle& bundle, const sbk_entry& entry) {
  if (entry.key != nullptr) return {entry.key, entry.key + entry.key_size};
  std::vector<uint8_t> key(entry.key_size);
  size_t size = 0;
  if (sbk_bundle_entry_key(&bundle, entry.index, key.data(), key.size(), &size) != SBK_OK || size != key.size()) return {};
  return key;
}

const char* key_kind_name(uint32_t kind) {
  switch (kind) {
    case SBK_KEY_KIND_EXACT: return "specialization";
    case SBK_KEY_KIND_FAMILY: return "family";
    case SBK_KEY_KIND_PIPELINE: return "pipeline";
    case SBK_KEY_KIND_COMPUTE_PIPELINE: return "compute pipeline";
    default: return "?";
  }
}

}  // namespace shaderbake::bundle
