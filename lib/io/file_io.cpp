// SPDX-License-Identifier: MIT
#include "lib/io/file_io.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace shaderbake::io {

namespace fs = std::filesystem;

namespace {

constexpr int kTemporaryNameAttempts = 32;

Error io_error(const fs::path& path, const char* reason, const std::string& what) {
  return Error{ErrorKind::io, reason, what, {path.string(), 0, 0, {}}};
}

// `what`, then errno's text.
Error errno_error(const fs::path& path, const char* reason, const std::string& what) {
  return io_error(path, reason, what + ": " + std::strerror(errno));
}

std::function<std::string()>& suffix_source() {
  static std::function<std::string()> source;
  return source;
}

std::string random_suffix() {
  if (suffix_source()) return suffix_source()();
  uint8_t bytes[8] = {};
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof bytes) {  // no entropy source: the clock still makes a collision unlikely, O_EXCL makes it safe
    const auto now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::memcpy(bytes, &now, sizeof bytes);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const uint8_t b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

}  // namespace

const char* file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a file of unknown type";
}

Result<OpenFile> open_regular_file(const fs::path& path) {
  OpenFile file{UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)), {}};
  if (file.fd.get() < 0) return errno_error(path, "unreadable_file", "cannot open");
  if (::fstat(file.fd.get(), &file.info) != 0) return errno_error(path, "unreadable_file", "cannot examine");
  if (!S_ISREG(file.info.st_mode))
    return io_error(path, "not_a_regular_file",
                    std::string("is ") + file_type_name(file.info.st_mode) + ", not a regular file");
  return file;
}

Result<std::vector<uint8_t>> read_up_to(int fd, size_t limit, uint64_t expected_size, const fs::path& path) {
  // One byte past the expected size: the end of a file of that size is seen without growing the buffer.
  std::vector<uint8_t> out(static_cast<size_t>(std::min<uint64_t>(limit, expected_size + 1)));
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got == limit) break;
      out.resize(std::min(limit, std::max(got * 2, size_t{1} << 16)));
    }
    const ssize_t n = read_some(fd, out.data() + got, out.size() - got);
    if (n < 0) return errno_error(path, "unreadable_file", "cannot read");
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

Result<std::vector<uint8_t>> read_file(const fs::path& path, size_t limit) {
  Result<OpenFile> file = open_regular_file(path);
  if (!file) return std::move(file).error();
  auto too_large = [&](uint64_t size) {
    return io_error(path, "file_too_large",
                    "is " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) +
                        " bytes read from a file of this kind");
  };
  const auto size = static_cast<uint64_t>(file->info.st_size);
  if (size > limit) return too_large(size);
  const size_t read_limit = limit == SIZE_MAX ? limit : limit + 1;  // + 1: a file that grew past the limit shows
  Result<std::vector<uint8_t>> bytes = read_up_to(file->fd.get(), read_limit, size, path);
  if (bytes && bytes->size() > limit) return too_large(bytes->size());
  return bytes;
}

void set_temporary_suffix_source_for_testing(std::function<std::string()> source) {
  suffix_source() = std::move(source);
}

Status replace_file_atomically(const fs::path& path, std::span<const uint8_t> bytes, Durability durability,
                               const ReplaceOptions& options) {
  const fs::path name = path.filename();
  if (name.empty() || name == "." || name == "..")
    return io_error(path, "write_failed", "names a directory, not a file");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0) return errno_error(path, "write_failed", "cannot open its directory " + dir.string());

  const std::string prefix = options.temporary_prefix.empty() ? name.string() + ".tmp." : options.temporary_prefix;
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < kTemporaryNameAttempts && fd < 0; ++attempt) {
    temp = prefix + std::to_string(::getpid()) + "." + random_suffix();
    // O_EXCL | O_NOFOLLOW: a name that is taken (by anything, a planted symbolic link too) is never opened.
    fd = ::openat(dir_fd.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return errno_error(path, "write_failed", "cannot create a temporary file in " + dir.string());
  UniqueFd file(fd);
  auto fail = [&](const std::string& what) {
    Error e = errno_error(path, "write_failed", what);
    ::unlinkat(dir_fd.get(), temp.c_str(), 0);
    return e;
  };
  const bool durable = durability == Durability::fsync;
  if (options.mode && ::fchmod(file.get(), *options.mode) != 0)
    return fail("cannot set the permissions of the file it replaces");
  if (!write_all(file.get(), bytes)) return fail("cannot write");
  if (durable && ::fsync(file.get()) != 0) return fail("cannot fsync");
  if (!file.close()) return fail("cannot close");
  if (::renameat(dir_fd.get(), temp.c_str(), dir_fd.get(), name.c_str()) != 0) return fail("cannot rename into place");
  // Makes the rename itself durable; a directory that cannot be synced loses nothing now.
  if (durable) ::fsync(dir_fd.get());
  return ok_status();
}

}  // namespace shaderbake::io
