// SPDX-License-Identifier: MIT
#include "lib/cache/build_memo.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "lib/core/hex.hpp"
#include "lib/core/little_endian.hpp"

namespace shaderbake::cache {

namespace {

// Names the identity encoding below; a change to what the identity holds bumps it.
constexpr std::string_view kMemoFormat = "build-memo/2";
// Payload: u32 payload version | u32 exit code | then four fields, each a u64 byte count and the bytes:
// bundle | report JSON | diagnostics | summary JSON.
constexpr uint32_t kPayloadVersion = 1;

void put_text(std::vector<uint8_t>& out, std::string_view text) {
  append_length_prefixed(out, text.data(), text.size());
}

Error memo_error(const std::string& what) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = "memo_malformed";
  e.message = "build memo: " + what;
  return e;
}

// Reads length-prefixed fields from an untrusted payload: every count is checked against what is left.
class FieldReader {
 public:
  explicit FieldReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool u32(uint32_t& v) {
    if (bytes_.size() - at_ < 4) return false;
    v = load_u32_le(bytes_.data() + at_);
    at_ += 4;
    return true;
  }

  bool field(std::span<const uint8_t>& out) {
    if (bytes_.size() - at_ < 8) return false;
    const uint64_t size = load_u64_le(bytes_.data() + at_);
    at_ += 8;
    if (size > bytes_.size() - at_) return false;
    out = bytes_.subspan(at_, static_cast<size_t>(size));
    at_ += static_cast<size_t>(size);
    return true;
  }

  bool at_end() const { return at_ == bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

// The NT_GNU_BUILD_ID note of one loaded object, as hex; empty when it has none.
std::string build_id_of(const dl_phdr_info& info) {
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const uint8_t*>(info.dlpi_addr + segment.p_vaddr);
    size_t left = segment.p_memsz;
    // The description and the next note start at the segment's alignment (4, or 8 in an 8-aligned note
    // segment such as GNU property notes), counted from the note's start.
    const size_t align = segment.p_align == 8 ? 8 : 4;
    auto aligned = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    while (left >= sizeof(ElfW(Nhdr))) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof note);
      // Bounded sizes first (at most `left`), so that the offsets below cannot overflow.
      if (note.n_namesz > left || note.n_descsz > left) break;
      const size_t desc_at = aligned(sizeof note + note.n_namesz);
      const size_t next_at = aligned(desc_at + note.n_descsz);
      if (desc_at + note.n_descsz > left) break;
      const uint8_t* name = p + sizeof note;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 &&
          note.n_descsz > 0)
        return hex_bytes(std::span<const uint8_t>(p + desc_at, note.n_descsz));
      if (next_at >= left) break;
      p += next_at;
      left -= next_at;
    }
  }
  return {};
}

struct CodeIdentityWalk {
  std::string lines;
  bool complete = true;  // every object that needs a build ID has one
  bool first = true;     // dl_iterate_phdr reports the executable first
};

int add_loaded_object(dl_phdr_info* info, size_t, void* data) {
  auto* walk = static_cast<CodeIdentityWalk*>(data);
  const bool executable = std::exchange(walk->first, false);
  if (!executable && info->dlpi_addr == ::getauxval(AT_SYSINFO_EHDR)) return 0;  // the vDSO: the kernel's
  const std::string path = executable || info->dlpi_name == nullptr ? std::string() : std::string(info->dlpi_name);
  const std::string id = build_id_of(*info);
  if (id.empty()) walk->complete = false;
  walk->lines += path + " " + id + "\n";
  return 0;
}

}  // namespace

Result<TraceFileDigest> digest_trace_file(const std::string& path) {
  auto fail = [&](const std::string& what) -> Error {
    Error e;
    e.kind = ErrorKind::io;
    e.reason = "trace_not_digestible";
    e.message = what;
    e.where.file = path;
    return e;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below); reads of a regular file
  // ignore the flag.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  ContentHasher content;
  std::vector<uint8_t> chunk(size_t{1} << 20);
  TraceFileDigest out;
  out.path = path;
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fail(std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    content.update(chunk.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  out.bytes = content.bytes();
  out.digest = content.finish();
  return out;
}

std::optional<std::string> loaded_code_identity() {
  static const std::optional<std::string> identity = []() -> std::optional<std::string> {
    CodeIdentityWalk walk;
    ::dl_iterate_phdr(add_loaded_object, &walk);
    if (!walk.complete || walk.first) return std::nullopt;
    return walk.lines;
  }();
  return identity;
}

std::vector<uint8_t> encode_build_inputs(const BuildInputs& inputs) {
  std::vector<uint8_t> out;
  put_text(out, kMemoFormat);
  put_text(out, inputs.code_identity);
  put_text(out, inputs.settings);
  append_u64_le(out, inputs.traces.size());
  for (const TraceFileDigest& t : inputs.traces) {
    put_text(out, t.path);
    append_u64_le(out, t.bytes);
    out.insert(out.end(), t.digest.bytes.begin(), t.digest.bytes.end());
  }
  return out;
}

ArtifactIdentity memo_identity(const ArtifactCache& cache, const BuildInputs& inputs) {
  return cache.blob_identity(kMemoFormat, encode_build_inputs(inputs));
}

std::vector<uint8_t> encode_build_outputs(const BuildOutputs& outputs) {
  std::vector<uint8_t> out;
  out.reserve(outputs.bundle.size() + outputs.report_json.size() + outputs.diagnostics.size() +
              outputs.summary_json.size() + 48);
  append_u32_le(out, kPayloadVersion);
  append_u32_le(out, static_cast<uint32_t>(outputs.exit_code));
  append_length_prefixed(out, outputs.bundle.data(), outputs.bundle.size());
  put_text(out, outputs.report_json);
  put_text(out, outputs.diagnostics);
  put_text(out, outputs.summary_json);
  return out;
}

Result<BuildOutputs> decode_build_outputs(std::span<const uint8_t> payload) {
  FieldReader in(payload);
  uint32_t version = 0;
  uint32_t exit_code = 0;
  if (!in.u32(version) || !in.u32(exit_code)) return memo_error("truncated header");
  if (version != kPayloadVersion) return memo_error("payload version " + std::to_string(version));
  if (exit_code > 255) return memo_error("exit code " + std::to_string(exit_code));
  std::span<const uint8_t> bundle, report, diagnostics, summary;
  if (!in.field(bundle) || !in.field(report) || !in.field(diagnostics) || !in.field(summary))
    return memo_error("a field runs past the end");
  if (!in.at_end()) return memo_error("trailing bytes");
  auto text = [](std::span<const uint8_t> s) { return std::string(reinterpret_cast<const char*>(s.data()), s.size()); };
  BuildOutputs out;
  out.exit_code = static_cast<int>(exit_code);
  out.bundle.assign(bundle.begin(), bundle.end());
  out.report_json = text(report);
  out.diagnostics = text(diagnostics);
  out.summary_json = text(summary);
  return out;
}

}  // namespace shaderbake::cache
