// SPDX-License-Identifier: MIT
#include "lib/io/output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <string_view>

#include "lib/io/file_descriptor.hpp"
#include "lib/io/file_io.hpp"

namespace shaderbake::io {

namespace fs = std::filesystem;

namespace {

// A writer renames its temporary file within moments of creating it; one this old was left by a writer that
// was killed (whatever its process ID now names: IDs are reused, and a shared directory may be another host's).
constexpr std::chrono::seconds kStaleTemporaryAge{3600};

Error io_error(const fs::path& path, const char* reason, const std::string& what) {
  return Error{ErrorKind::io, reason, what, {path.string(), 0, 0, {}}};
}

Error errno_error(const fs::path& path, const std::string& what) {
  return io_error(path, "write_failed", what + ": " + std::strerror(errno));
}

// True when the open regular file `fd` holds exactly `bytes`.
bool holds_exactly(int fd, std::span<const uint8_t> bytes) {
  std::vector<uint8_t> chunk(size_t{1} << 20);
  for (size_t at = 0; at < bytes.size();) {
    const ssize_t n = read_some(fd, chunk.data(), std::min(chunk.size(), bytes.size() - at));
    if (n <= 0 || std::memcmp(chunk.data(), bytes.data() + at, static_cast<size_t>(n)) != 0) return false;
    at += static_cast<size_t>(n);
  }
  uint8_t extra = 0;
  return read_some(fd, &extra, 1) == 0;
}

constexpr std::string_view kTemporaryInfix = ".sbk-tmp.";

// Removes the temporary files in `dir_path` whose writer is gone: regular files named
// "<output name>.sbk-tmp.<pid>.<16 hex digits>" whose process no longer exists or that are over an hour old.
// Anything else is left alone. Once per directory per process: a command writing many files into one
// directory (compile's modules) reads it once, not once a file.
// `dir_path` names the directory by its absolute path (an inode may be reused by a new directory; a path names
// the same place for the life of a command).
void remove_stale_temporaries(const fs::path& dir_path) {
  {
    static std::mutex mutex;
    static std::set<std::string> scanned;
    std::error_code ec;
    std::lock_guard lock(mutex);
    if (!scanned.insert(fs::absolute(dir_path, ec).lexically_normal().string()).second) return;
  }
  const UniqueFd dir_fd(::open(dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0) return;  // replace_file_atomically says why
  const int scan_fd = ::dup(dir_fd.get());
  if (scan_fd < 0) return;
  DIR* dir = ::fdopendir(scan_fd);
  if (dir == nullptr) {
    ::close(scan_fd);
    return;
  }
  const auto now = std::chrono::system_clock::now();
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name(entry->d_name);
    const size_t infix = name.rfind(kTemporaryInfix);
    if (infix == std::string_view::npos || infix == 0) continue;
    const std::string rest(name.substr(infix + kTemporaryInfix.size()));
    char* end = nullptr;
    errno = 0;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (errno != 0 || end == rest.c_str() || *end != '.' || pid <= 0 || pid > INT_MAX) continue;
    const std::string_view hex(end + 1);
    if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) continue;
    struct stat info {};
    if (::fstatat(dir_fd.get(), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode)) continue;
    const bool writer_gone = ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    const auto modified = std::chrono::system_clock::from_time_t(info.st_mtim.tv_sec);
    if (writer_gone || now - modified > kStaleTemporaryAge) stale.emplace_back(name);
  }
  ::closedir(dir);
  for (const std::string& name : stale) ::unlinkat(dir_fd.get(), name.c_str(), 0);
}

// Writes a new regular file at `target` through a temporary file, durably: an output is what a user keeps.
// `mode`: the permissions of the file being replaced, which the new one keeps (a 0600 output stays private).
Status replace_regular_file(const fs::path& target, std::span<const uint8_t> bytes, std::optional<mode_t> mode) {
  remove_stale_temporaries(target.has_parent_path() ? target.parent_path() : fs::path("."));
  return replace_file_atomically(target, bytes, Durability::fsync, {temporary_name_prefix(target), mode});
}

// Writes to a character device or FIFO as a stream.
Status write_stream(const fs::path& target, std::span<const uint8_t> bytes) {
  UniqueFd fd(::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) return errno_error(target, "cannot open");
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !(S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)))
    return io_error(target, "output_refused", "changed while it was opened; not written");
  if (!write_all(fd.get(), bytes)) return errno_error(target, "cannot write");
  if (!fd.close()) return errno_error(target, "cannot close");
  return ok_status();
}

// The descriptor a path names when it is one of this process's own: /dev/stdout, /dev/stderr, /dev/fd/N or
// /proc/self/fd/N.
std::optional<int> own_descriptor(const fs::path& path) {
  const std::string text = path.lexically_normal().string();
  if (text == "/dev/stdout") return 1;
  if (text == "/dev/stderr") return 2;
  for (const std::string_view prefix : {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/")}) {
    if (text.size() <= prefix.size() || text.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = text.substr(prefix.size());
    if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoi(digits);
  }
  return std::nullopt;
}

std::optional<fs::path> real_path(const fs::path& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  fs::path out(resolved);
  std::free(resolved);
  return out;
}

// What `path` names once symbolic links are followed: `path` itself when it is no link; the file at the end of
// the chain, which may not exist yet when its directory does (as a shell's `>` creates it).
Result<fs::path> follow_links(const fs::path& path) {
  constexpr int kMaxLinks = 40;  // Linux's own limit on a chain
  fs::path at = path;
  for (int hop = 0; hop <= kMaxLinks; ++hop) {
    struct stat info {};
    if (::lstat(at.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) {
      if (hop == 0) return at;
      if (std::optional<fs::path> whole = real_path(at)) return *whole;
      const std::optional<fs::path> dir = real_path(at.has_parent_path() ? at.parent_path() : fs::path("."));
      if (!dir || at.filename().empty())
        return io_error(path, "output_refused", "is a symbolic link to " + at.string() +
                                                    ", whose directory does not exist; not written");
      return *dir / at.filename();
    }
    std::error_code ec;
    const fs::path next = fs::read_symlink(at, ec);
    if (ec) return io_error(path, "output_refused", "is a symbolic link that cannot be read: " + ec.message());
    at = next.is_absolute() ? next : (at.has_parent_path() ? at.parent_path() : fs::path(".")) / next;
  }
  return io_error(path, "output_refused", "is a chain of more than 40 symbolic links; not written");
}

}  // namespace

std::string temporary_name_prefix(const fs::path& path) { return path.filename().string() + std::string(kTemporaryInfix); }

Status write_output(const fs::path& path, std::span<const uint8_t> bytes, IfIdentical if_identical) {
  if (path.empty()) return io_error(path, "output_refused", "an empty output path");
  // The process's own descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) are written where they point,
  // at their offset, whatever they are (a pipe, a terminal, a file the shell redirected).
  if (const std::optional<int> fd = own_descriptor(path)) {
    if (!write_all(*fd, bytes)) return errno_error(path, "cannot write");
    return ok_status();
  }
  struct stat followed {};
  if (::stat(path.c_str(), &followed) == 0 && (S_ISCHR(followed.st_mode) || S_ISFIFO(followed.st_mode)))
    return write_stream(path, bytes);
  Result<fs::path> resolved = follow_links(path);
  if (!resolved) return std::move(resolved).error();
  const fs::path target = std::move(*resolved);
  struct stat info {};
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
    return io_error(path, "output_refused", "names a directory, not a file");
  const bool exists = ::stat(target.c_str(), &info) == 0;
  if (!exists && errno != ENOENT) return errno_error(path, "cannot examine");
  if (exists && (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode))) return write_stream(target, bytes);
  if (exists && !S_ISREG(info.st_mode))
    return io_error(path, "output_refused", std::string("is ") + file_type_name(info.st_mode) + "; not replaced");
  if (exists && if_identical == IfIdentical::keep && static_cast<uint64_t>(info.st_size) == bytes.size()) {
    const UniqueFd fd(::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    struct stat opened {};
    if (fd.get() >= 0 && ::fstat(fd.get(), &opened) == 0 && S_ISREG(opened.st_mode) && holds_exactly(fd.get(), bytes)) {
      // The bytes are right; a time that cannot be set (a file of another owner) is no reason to replace it.
      (void)::futimens(fd.get(), nullptr);
      return ok_status();
    }
  }
  return replace_regular_file(target, bytes, exists ? std::optional<mode_t>(info.st_mode & 07777) : std::nullopt);
}

namespace {

struct FileId {
  dev_t device;
  ino_t inode;
  bool character_device;
};

std::optional<FileId> file_id(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileId{info.st_dev, info.st_ino, S_ISCHR(info.st_mode)};
}

// The path as write_output would write it (symbolic links followed, even to a file that does not exist yet),
// absolute and normal.
std::string normal_path(const std::string& path) {
  Result<fs::path> followed = follow_links(path);
  const fs::path at = followed ? *followed : fs::path(path);
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(at, ec), ec);
  if (ec) p = fs::absolute(at, ec).lexically_normal();
  return p.string();
}

bool same_file(const NamedPath& a, const NamedPath& b) {
  const std::optional<FileId> ia = file_id(a.path);
  const std::optional<FileId> ib = file_id(b.path);
  if (ia && ib) return !ia->character_device && ia->device == ib->device && ia->inode == ib->inode;
  if (ia.has_value() != ib.has_value()) return false;  // one exists, the other does not
  return normal_path(a.path) == normal_path(b.path);
}

}  // namespace

std::optional<PathClash> find_path_clash(std::span<const NamedPath> inputs, std::span<const NamedPath> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].path.empty()) continue;
    for (const NamedPath& input : inputs)
      if (!input.path.empty() && same_file(outputs[i], input)) return PathClash{outputs[i], input, true};
    for (size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(outputs[i], outputs[j])) return PathClash{outputs[i], outputs[j], false};
  }
  return std::nullopt;
}

}  // namespace shaderbake::io
