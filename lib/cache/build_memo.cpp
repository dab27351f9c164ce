// SPDX-License-Identifier: MIT
#include "lib/cache/build_memo.hpp"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "lib/core/byte_io.hpp"
#include "lib/core/hex.hpp"
#include "lib/io/file_io.hpp"

namespace shaderbake::cache {

namespace {

// Names the identity encoding below; a change to what the identity holds bumps it.
constexpr std::string_view kMemoFormat = "build-memo/2";
// Payload: u32 payload version | u32 exit code | then four fields, each a u64 byte count and the bytes:
// bundle | report JSON | diagnostics | summary JSON.
constexpr uint32_t kPayloadVersion = 1;

Error memo_error(const std::string& what) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = "memo_malformed";
  e.message = "build memo: " + what;
  return e;
}

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
  // Only a regular file: a pipe cannot be read twice (open_regular_file refuses it without waiting for a writer).
  Result<io::OpenFile> file = io::open_regular_file(path);
  if (!file) return fail(file.error().message);
  ContentHasher content;
  std::vector<uint8_t> chunk(size_t{1} << 20);
  TraceFileDigest out;
  out.path = path;
  for (;;) {
    const ssize_t n = io::read_some(file->fd.get(), chunk.data(), chunk.size());
    if (n < 0) return fail(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    content.update(chunk.data(), static_cast<size_t>(n));
  }
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
  ByteWriter out;
  out.field_u64(byte_span(kMemoFormat));
  out.field_u64(byte_span(inputs.code_identity));
  out.field_u64(byte_span(inputs.settings));
  out.u64(inputs.traces.size());
  for (const TraceFileDigest& t : inputs.traces) {
    out.field_u64(byte_span(t.path));
    out.u64(t.bytes);
    out.bytes(t.digest.bytes);
  }
  return std::move(out.data());
}

ArtifactIdentity memo_identity(const ArtifactCache& cache, const BuildInputs& inputs) {
  return cache.blob_identity(kMemoFormat, encode_build_inputs(inputs));
}

std::vector<uint8_t> encode_build_outputs(const BuildOutputs& outputs) {
  ByteWriter out;
  out.reserve(outputs.bundle.size() + outputs.report_json.size() + outputs.diagnostics.size() +
              outputs.summary_json.size() + 48);
  out.u32(kPayloadVersion);
  out.u32(static_cast<uint32_t>(outputs.exit_code));
  out.field_u64(outputs.bundle);
  out.field_u64(byte_span(outputs.report_json));
  out.field_u64(byte_span(outputs.diagnostics));
  out.field_u64(byte_span(outputs.summary_json));
  return std::move(out.data());
}

Result<BuildOutputs> decode_build_outputs(std::span<const uint8_t> payload) {
  ByteReader in(payload);
  uint32_t version = 0;
  uint32_t exit_code = 0;
  if (!in.u32(version) || !in.u32(exit_code)) return memo_error("truncated header");
  if (version != kPayloadVersion) return memo_error("payload version " + std::to_string(version));
  if (exit_code > 255) return memo_error("exit code " + std::to_string(exit_code));
  std::span<const uint8_t> bundle, report, diagnostics, summary;
  if (!in.field_u64(bundle) || !in.field_u64(report) || !in.field_u64(diagnostics) || !in.field_u64(summary))
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
