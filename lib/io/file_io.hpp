// SPDX-License-Identifier: MIT
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "lib/io/file_descriptor.hpp"

namespace shaderbake::io {

// Whole-file reads and atomic replacement, for every file the tool reads or writes whole (cache entries,
// outputs, test vectors, reports). Errors are ErrorKind::io, located at the path, with errno's text.

// ---- reading ----

// An open regular file, for a caller that keeps the descriptor while it reads (to set its time, or to compare
// its inode with what the path names later).
struct OpenFile {
  UniqueFd fd;
  struct stat info {};  // fstat of fd when it was opened
};

// Opens `path` read-only, and only a regular file: a FIFO, device or directory would not give the same bytes
// to a second read, and is refused after the open (O_NONBLOCK: opening a FIFO never waits for a writer).
// Reasons: "unreadable_file" (cannot be opened or examined), "not_a_regular_file" (the message says what it is).
Result<OpenFile> open_regular_file(const std::filesystem::path& path);

// Reads from `fd`'s offset to the end of the file, at most `limit` bytes: a longer file gives its first
// `limit` bytes (a caller that must tell an oversized file from a whole one reads limit + 1). `expected_size`
// (what fstat said) sizes the buffer, so that a file of that size is read with one allocation; a file that
// grows meanwhile is read on up to `limit`, one that shrinks gives fewer bytes. Reason: "unreadable_file".
Result<std::vector<uint8_t>> read_up_to(int fd, size_t limit, uint64_t expected_size,
                                        const std::filesystem::path& path);

// The whole regular file `path` (open_regular_file, then read_up_to). More than `limit` bytes, when it is
// opened or by the time it is read, is an error, reason "file_too_large", whose message gives both sizes.
Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, size_t limit);

// "a directory", "a FIFO", "a character device", ...: what a stat mode names, for messages.
const char* file_type_name(mode_t mode);

// ---- replacing ----

enum class Durability {
  fsync,  // the file and the rename are synced: after a crash the path holds the old bytes or all the new ones
  none,   // atomic for readers only: a crash may leave a torn file at the path. For data checked on every read
};

struct ReplaceOptions {
  // The temporary file's name in the target's directory: this prefix, then "<pid>.<16 hex digits>" (what a
  // cleaner of killed writers' files goes by). Empty: "<file name>.tmp.".
  std::string temporary_prefix;
  // The new file's permissions (a replaced file's, to keep them); nullopt: 0644 less the umask.
  std::optional<mode_t> mode;
};

// Writes `bytes` to a new temporary file in `path`'s directory and renames it over `path`: a reader sees the
// old file (or none) or the whole new one, never part of one. The temporary name is random and created with
// O_EXCL | O_NOFOLLOW (up to 32 names are tried), so that nothing planted at a name can redirect the write;
// it is removed on every error path. `path` is replaced as a name: a symbolic link there is replaced, not
// followed (write_output follows links first). Thread-safe. Errors: reason "write_failed", located at `path`;
// the message says which step failed and why.
Status replace_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes, Durability durability,
                               const ReplaceOptions& options = {});

// The hook temporary-file suffixes are drawn from (16 hex digits of getrandom() by default); tests set it to
// make a name predictable, to check that a name that is taken is never written through. Not thread-safe to
// change while writes run.
void set_temporary_suffix_source_for_testing(std::function<std::string()> source);

}  // namespace shaderbake::io
