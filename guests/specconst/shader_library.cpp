// SPDX-License-Identifier: MIT
#include "guests/specconst/shader_library.hpp"

#include <sys/stat.h>

#include <cstring>

#include "lib/compile/glslang_frontend.hpp"
#include "lib/compile/spirv_tools.hpp"
#include "lib/core/content_digest.hpp"
#include "lib/io/file_io.hpp"

namespace shaderbake::specconst {

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203u;

Error bad_shader(std::string_view reason, const std::string& what) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = std::string(reason);
  e.message = what;
  return e;
}

// `result`, its error (if any) naming the file it came from.
Result<std::shared_ptr<const LoadedShader>> named(Result<std::shared_ptr<const LoadedShader>> result,
                                                  const std::filesystem::path& path) {
  if (result) return result;
  Error e = std::move(result).error();
  e.message = "shader " + path.string() + ": " + e.message;
  return e;
}

}  // namespace

uint32_t vk_stage_bit(compile::ShaderStage stage) {
  switch (stage) {
    case compile::ShaderStage::vertex: return 0x1;
    case compile::ShaderStage::compute: return 0x20;
    case compile::ShaderStage::fragment: break;
  }
  return 0x10;
}

Result<std::shared_ptr<const LoadedShader>> ShaderLibrary::load(const std::filesystem::path& path,
                                                                compile::ShaderStage stage, std::string_view entry) {
  auto file = io::open_regular_file(path);
  if (!file) return named(bad_shader("shader_not_found", file.error().message), path);
  // A file met before, unchanged (same inode, size and modification time): its shader, without reading it again.
  // Every new program text names its files anew, so this is the per-record cost of ingest.
  const struct stat& st = file->info;
  std::string identity = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) +
                         ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
                         std::to_string(static_cast<int>(stage)) + ":" + std::string(entry) + ":" + path.string();
  {
    std::lock_guard lock(mutex_);
    if (auto it = by_file_.find(identity); it != by_file_.end()) return named(it->second, path);
  }
  auto bytes = io::read_up_to(file->fd.get(), kMaxShaderBytes + 1, static_cast<uint64_t>(st.st_size), path);
  if (!bytes) return named(bad_shader("shader_not_found", bytes.error().message), path);
  if (bytes->size() > kMaxShaderBytes)
    return named(bad_shader("shader_not_found", "larger than " + std::to_string(kMaxShaderBytes >> 20) + " MiB"), path);
  // The content's identity: a SHA-256 of (stage, entry, bytes), not a copy of up to 64 MiB per file.
  ContentHasher hasher;
  const char head = static_cast<char>(stage);
  hasher.update(&head, 1);
  hasher.update(entry.data(), entry.size());
  hasher.update("", 1);
  hasher.update(bytes->data(), bytes->size());
  const std::string content = hasher.finish().to_hex();
  {
    std::lock_guard lock(mutex_);
    if (auto it = by_content_.find(content); it != by_content_.end()) {
      by_file_.emplace(std::move(identity), it->second);
      return named(it->second, path);
    }
  }
  auto made = make(*bytes, stage, entry);
  std::lock_guard lock(mutex_);
  if (made) by_hash_.emplace(std::pair(vk_stage_bit(stage), std::to_array((*made)->scan.hash)), *made);
  by_content_.emplace(content, made);
  by_file_.emplace(std::move(identity), made);
  return named(std::move(made), path);
}

Result<std::shared_ptr<const LoadedShader>> ShaderLibrary::make(std::span<const uint8_t> bytes,
                                                                compile::ShaderStage stage, std::string_view entry) {
  auto shader = std::make_shared<LoadedShader>();
  shader->stage = stage;
  const bool spirv = bytes.size() >= 4 && (bytes[0] | bytes[1] << 8 | bytes[2] << 16 | uint32_t{bytes[3]} << 24) == kSpirvMagic;
  if (spirv) {
    if (bytes.size() % 4 != 0)
      return bad_shader("shader_compile_failed",
                        "a SPIR-V file of " + std::to_string(bytes.size()) + " bytes is not a whole number of words");
    shader->words.resize(bytes.size() / 4);
    for (size_t i = 0; i < shader->words.size(); ++i)
      shader->words[i] = bytes[4 * i] | bytes[4 * i + 1] << 8 | bytes[4 * i + 2] << 16 | uint32_t{bytes[4 * i + 3]} << 24;
    auto name = compile::single_entry_point(shader->words, stage);
    if (!name) return bad_shader("shader_compile_failed", name.error().message);
    if (Status s = compile::validate_spirv(shader->words); !s)
      return bad_shader("shader_compile_failed", s.error().message);
    if (*name != entry)
      return bad_shader("shader_compile_failed",
                        "its entry point is \"" + *name + "\", not \"" + std::string(entry) + "\"");
  }
  // The bundle's pipelines name their entry point main (sbk_vk_fill_pipeline, sbk_vk_fill_compute_pipeline), and
  // a GLSL shader's is main.
  if (entry != "main")
    return bad_shader("shader_compile_failed", "its entry point is \"" + std::string(entry) +
                                                   "\"; shaderbake's pipelines name it main (rename it, e.g. "
                                                   "with dxc -E main or glslangValidator --entry-point)");
  if (!spirv) {
    auto words = compile::glsl_to_spirv(stage, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!words) return bad_shader("shader_compile_failed", words.error().message);
    shader->words = std::move(*words);
    shader->from_glsl = true;
  }
  if (sbk_specconst_scan_module(shader->words.data(), shader->words.size(), vk_stage_bit(stage), &shader->scan) != SBK_OK)
    return bad_shader("shader_compile_failed",
                      "its specialization constants cannot be read (a SpecId given twice, on something other than a "
                      "scalar constant, or more than " + std::to_string(SBK_SPECCONST_MAX_CONSTANTS) + " of them)");
  return std::shared_ptr<const LoadedShader>(std::move(shader));
}

std::shared_ptr<const LoadedShader> ShaderLibrary::find(uint32_t vk_stage, std::span<const uint8_t, 16> hash) const {
  std::array<uint8_t, 16> h;
  std::memcpy(h.data(), hash.data(), h.size());
  std::lock_guard lock(mutex_);
  auto it = by_hash_.find(std::pair(vk_stage, h));
  return it == by_hash_.end() ? nullptr : it->second;
}

}  // namespace shaderbake::specconst
