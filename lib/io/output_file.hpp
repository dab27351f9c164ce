// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lib/core/result.hpp"

namespace shaderbake::io {

// How write_output treats a file that already holds exactly the bytes to write.
enum class IfIdentical {
  replace,  // write a new file all the same
  keep,     // leave the file as it is (inode, mode, owner, links) and only set its modification time to now
};

// Writes `bytes` to the file `path` names, never destroying anything but the regular file it replaces:
// - one of the process's own descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written
//   through that descriptor, at its offset, whatever it is (a pipe, a terminal, a file the shell opened);
// - a path that leads (through any links) to a character device or a FIFO is written as a stream (opened
//   without O_CREAT or O_TRUNC, the node stays the node it was);
// - a symbolic link is followed (to the end of its chain): the file it points to is what gets written, the
//   link stays a link; a link to nothing is refused;
// - a regular file, or no file, is written by replace_file_atomically (lib/io/file_io.hpp) with
//   Durability::fsync: a temporary file in the same directory (a random name, created with O_EXCL | O_NOFOLLOW,
//   so nothing planted at a temporary name can redirect the write), fsync and rename: a reader sees the old
//   file or the whole new one, never half of one; a replaced file's permissions are kept. The temporary file
//   is removed on every error path, and the temporary files of any output that killed writers left in that
//   directory (their process is gone, or they are over an hour old) are removed first (the directory is read
//   for them once per process);
// - anything else (a directory, a socket, a block device) is refused.
// Errors are ErrorKind::io with reason "output_refused" (what the path names may not be written) or
// "write_failed", located at `path`.
Status write_output(const std::filesystem::path& path, std::span<const uint8_t> bytes,
                    IfIdentical if_identical = IfIdentical::replace);

// The name write_output's temporary files for `path` start with ("<file name>.sbk-tmp."); the rest is
// "<pid>.<16 hex digits>" (replace_file_atomically's; io::set_temporary_suffix_source_for_testing sets the
// digits).
std::string temporary_name_prefix(const std::filesystem::path& path);

// A path a command reads or writes, with the name the user knows it by ("trace", "-o", "--report").
struct NamedPath {
  std::string role;
  std::string path;
};

// An output that would overwrite one of the command's inputs or another of its outputs.
struct PathClash {
  NamedPath output;
  NamedPath other;
  bool other_is_input = false;
};

// The first output that is the same file as an input or as an earlier output: the same device and inode
// (through hard links and symbolic links), or, for outputs that do not exist yet, the same path once symbolic
// links are followed as write_output follows them and it is made absolute and normal. Character devices (/dev/null) hold nothing to
// lose and are never a clash. Empty paths are skipped (a caller refuses those as a usage error itself).
std::optional<PathClash> find_path_clash(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs);

}  // namespace shaderbake::io
