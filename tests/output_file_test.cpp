// SPDX-License-Identifier: MIT
// io::write_output and io::find_path_clash: an output never destroys anything but the regular file it replaces,
// and a command can tell before it starts that an output would overwrite one of its inputs.
#include "lib/io/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "lib/io/file_io.hpp"
#include "tests/temp_dir.hpp"

namespace shaderbake::io {
namespace {

namespace fs = std::filesystem;
using test_support::TempDir;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::span<const uint8_t> bytes_of(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// Every name in `dir` other than the ones given.
std::vector<std::string> other_names(const fs::path& dir, std::initializer_list<std::string> expected) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) out.push_back(name);
  }
  return out;
}

class FixedTemporarySuffix {
 public:
  explicit FixedTemporarySuffix(std::vector<std::string> suffixes) : suffixes_(std::move(suffixes)) {
    set_temporary_suffix_source_for_testing([this] {
      const std::string s = suffixes_[std::min(next_, suffixes_.size() - 1)];
      ++next_;
      return s;
    });
  }
  ~FixedTemporarySuffix() { set_temporary_suffix_source_for_testing({}); }
  size_t calls() const { return next_; }

 private:
  std::vector<std::string> suffixes_;
  size_t next_ = 0;
};

std::string temporary_name(const fs::path& out, const std::string& suffix) {
  return temporary_name_prefix(out) + std::to_string(::getpid()) + "." + suffix;
}

TEST(WriteOutput, creates_a_new_file_and_leaves_no_temporary_file) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  ASSERT_TRUE(write_output(out, bytes_of("bundle")));
  EXPECT_EQ(read_all(out), "bundle");
  EXPECT_TRUE(other_names(dir.path(), {"game.sbk"}).empty());
}

TEST(WriteOutput, replaces_a_regular_file_with_a_new_inode) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  write_text(out, "old contents");
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);
  ASSERT_TRUE(write_output(out, bytes_of("new")));
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_EQ(read_all(out), "new");
  EXPECT_NE(before.st_ino, after.st_ino);  // renamed into place, never rewritten in place
}

TEST(WriteOutput, keeps_an_identical_file_in_place_when_asked) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  write_text(out, "same");
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);
  ASSERT_TRUE(write_output(out, bytes_of("same"), IfIdentical::keep));
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  ASSERT_TRUE(write_output(out, bytes_of("samf"), IfIdentical::keep));  // same size, other bytes: replaced
  EXPECT_EQ(read_all(out), "samf");
}

TEST(WriteOutput, never_writes_through_a_symbolic_link_planted_at_a_temporary_name) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  const fs::path victim = dir.path() / "victim";
  write_text(victim, "precious");
  // The first name the writer will try is taken by a link to the victim; the second is free.
  const std::string planted = temporary_name(out, "00000000000000aa");
  fs::create_symlink(victim, dir.path() / planted);
  FixedTemporarySuffix suffixes({"00000000000000aa", "00000000000000bb"});
  ASSERT_TRUE(write_output(out, bytes_of("bundle")));
  EXPECT_EQ(suffixes.calls(), 2u);
  EXPECT_EQ(read_all(victim), "precious");
  EXPECT_EQ(read_all(out), "bundle");
  EXPECT_TRUE(fs::is_symlink(dir.path() / planted));
}

TEST(WriteOutput, fails_cleanly_when_every_temporary_name_is_taken) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  const fs::path victim = dir.path() / "victim";
  write_text(victim, "precious");
  write_text(out, "old bundle");
  const std::string planted = temporary_name(out, "00000000000000aa");
  fs::create_symlink(victim, dir.path() / planted);
  FixedTemporarySuffix suffixes({"00000000000000aa"});
  const Status s = write_output(out, bytes_of("bundle"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "write_failed");
  EXPECT_EQ(read_all(victim), "precious");
  EXPECT_EQ(read_all(out), "old bundle");
  EXPECT_TRUE(fs::is_symlink(dir.path() / planted));
}

TEST(WriteOutput, follows_a_symbolic_link_and_writes_the_file_it_points_to) {
  TempDir dir("sbk_output");
  fs::create_directories(dir.path() / "real");
  const fs::path target = dir.path() / "real" / "game.sbk";
  write_text(target, "old");
  const fs::path link = dir.path() / "latest.sbk";
  fs::create_symlink("real/game.sbk", link);
  ASSERT_TRUE(write_output(link, bytes_of("new")));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_all(target), "new");
  // A link to a file that does not exist yet in a directory that does: the file is created.
  const fs::path fresh_link = dir.path() / "fresh.sbk";
  fs::create_symlink("real/fresh.sbk", fresh_link);
  ASSERT_TRUE(write_output(fresh_link, bytes_of("fresh")));
  EXPECT_TRUE(fs::is_symlink(fresh_link));
  EXPECT_EQ(read_all(dir.path() / "real" / "fresh.sbk"), "fresh");
}

TEST(WriteOutput, refuses_a_link_into_a_missing_directory) {
  TempDir dir("sbk_output");
  const fs::path link = dir.path() / "dangling";
  fs::create_symlink(dir.path() / "missing" / "x", link);
  const Status s = write_output(link, bytes_of("x"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "output_refused");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_FALSE(fs::exists(dir.path() / "missing"));
}

TEST(WriteOutput, streams_into_a_fifo_and_leaves_it_a_fifo) {
  TempDir dir("sbk_output");
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_all(fifo); });
  const std::string payload(300000, 'b');  // more than a pipe's buffer
  const Status s = write_output(fifo, bytes_of(payload));
  reader.join();
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(received, payload);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(other_names(dir.path(), {"fifo"}).empty());
}

TEST(WriteOutput, streams_into_a_character_device_and_leaves_it_a_device) {
  TempDir dir("sbk_output");
  const fs::path node = dir.path() / "null";
  // The test's own node with /dev/null's numbers (never a system node). Creating one needs CAP_MKNOD.
  if (::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod: " << std::strerror(errno);
  ASSERT_TRUE(write_output(node, bytes_of("bundle")));
  struct stat info {};
  ASSERT_EQ(::lstat(node.c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  EXPECT_EQ(info.st_rdev, makedev(1, 3));
  EXPECT_TRUE(other_names(dir.path(), {"null"}).empty());
}

TEST(WriteOutput, refuses_a_directory_and_a_socket) {
  TempDir dir("sbk_output");
  fs::create_directories(dir.path() / "d");
  Status s = write_output(dir.path() / "d", bytes_of("x"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "output_refused");
  EXPECT_TRUE(fs::is_directory(dir.path() / "d"));

  const fs::path socket_path = dir.path() / "s";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.string().size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  s = write_output(socket_path, bytes_of("x"));
  ::close(fd);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "output_refused");
  EXPECT_TRUE(fs::is_socket(socket_path));
}

TEST(WriteOutput, removes_its_temporary_file_when_a_write_fails) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  write_text(out, "old bundle");
  // A file-size limit makes the write fail part-way (EFBIG; SIGXFSZ ignored so that it is an error, not a kill).
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = before;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status s = write_output(out, bytes_of(std::string(100000, 'x')));
  ::setrlimit(RLIMIT_FSIZE, &before);
  ::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "write_failed");
  EXPECT_EQ(read_all(out), "old bundle");
  EXPECT_TRUE(other_names(dir.path(), {"game.sbk"}).empty());
}

TEST(WriteOutput, removes_the_temporary_files_of_dead_writers_of_any_output_and_nothing_else) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "game.sbk";
  const std::string prefix = temporary_name_prefix(out);
  // PID 2^22 + 1 is above Linux's largest pid_max: no process has it.
  const std::string dead = prefix + "4194305.0123456789abcdef";
  const std::string live = prefix + std::to_string(::getpid()) + ".0123456789abcdef";
  const std::string old_live = prefix + std::to_string(::getpid()) + ".fedcba9876543210";
  const std::string unrelated = prefix + "4194305.not-ours";
  const std::string other_output = temporary_name_prefix(dir.path() / "other.sbk") + "4194305.0123456789abcdef";
  for (const std::string& name : {dead, live, old_live, unrelated, other_output}) write_text(dir.path() / name, "x");
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(dir.path() / old_live, two_hours_ago);
  ASSERT_TRUE(write_output(out, bytes_of("bundle")));
  EXPECT_FALSE(fs::exists(dir.path() / dead));
  EXPECT_FALSE(fs::exists(dir.path() / old_live));
  EXPECT_TRUE(fs::exists(dir.path() / live));
  EXPECT_TRUE(fs::exists(dir.path() / unrelated));
  EXPECT_FALSE(fs::exists(dir.path() / other_output));
}

TEST(WriteOutput, writes_the_processs_own_descriptor_where_it_points) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const Status s = write_output("/dev/fd/" + std::to_string(fds[1]), bytes_of("through the pipe"));
  ::close(fds[1]);
  ASSERT_TRUE(s) << s.error().to_string();
  char got[64] = {};
  const ssize_t n = ::read(fds[0], got, sizeof got);
  ::close(fds[0]);
  EXPECT_EQ(std::string(got, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
}

TEST(WriteOutput, keeps_the_permissions_of_the_file_it_replaces) {
  TempDir dir("sbk_output");
  const fs::path out = dir.path() / "private.sbk";
  write_text(out, "old");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_TRUE(write_output(out, bytes_of("new")));
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST(WriteOutput, refuses_an_empty_path) {
  const Status s = write_output("", bytes_of("x"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "output_refused");
}

TEST(FindPathClash, finds_an_output_that_is_an_input_by_path_hard_link_or_symbolic_link) {
  TempDir dir("sbk_output");
  const fs::path trace = dir.path() / "t.jsonl";
  write_text(trace, "{}");
  fs::create_hard_link(trace, dir.path() / "hard.jsonl");
  fs::create_symlink(trace, dir.path() / "soft.jsonl");
  fs::create_directories(dir.path() / "sub");
  const std::vector<NamedPath> inputs{{"trace", trace.string()}};
  for (const fs::path& output : {trace, dir.path() / "hard.jsonl", dir.path() / "soft.jsonl",
                                 dir.path() / "sub" / ".." / "t.jsonl"}) {
    const std::vector<NamedPath> outputs{{"-o", output.string()}};
    const std::optional<PathClash> clash = find_path_clash(inputs, outputs);
    ASSERT_TRUE(clash.has_value()) << output;
    EXPECT_TRUE(clash->other_is_input);
    EXPECT_EQ(clash->other.path, trace.string());
    EXPECT_EQ(clash->output.role, "-o");
  }
  const std::vector<NamedPath> other{{"-o", (dir.path() / "game.sbk").string()}};
  EXPECT_FALSE(find_path_clash(inputs, other).has_value());
}

TEST(FindPathClash, finds_two_outputs_naming_one_file_that_does_not_exist_yet) {
  TempDir dir("sbk_output");
  const std::vector<NamedPath> outputs{{"-o", (dir.path() / "x").string()},
                                       {"--report", (dir.path() / "sub" / ".." / "x").string()}};
  const std::optional<PathClash> clash = find_path_clash({}, outputs);
  ASSERT_TRUE(clash.has_value());
  EXPECT_FALSE(clash->other_is_input);
  EXPECT_EQ(clash->output.role, "--report");
}

TEST(FindPathClash, follows_a_link_to_a_file_that_does_not_exist_yet) {
  TempDir dir("sbk_output");
  fs::create_symlink(dir.path() / "new.sbk", dir.path() / "link.sbk");
  const std::vector<NamedPath> outputs{{"-o", (dir.path() / "link.sbk").string()},
                                       {"--report", (dir.path() / "new.sbk").string()}};
  const std::optional<PathClash> clash = find_path_clash({}, outputs);
  ASSERT_TRUE(clash.has_value());
  EXPECT_EQ(clash->output.role, "--report");
}

TEST(FindPathClash, never_counts_a_character_device_or_an_empty_path) {
  const std::vector<NamedPath> outputs{{"-o", "/dev/null"}, {"--report", "/dev/null"}, {"--keys", ""}};
  const std::vector<NamedPath> inputs{{"trace", "/dev/null"}, {"trace", ""}};
  EXPECT_FALSE(find_path_clash(inputs, outputs).has_value());
}

}  // namespace
}  // namespace shaderbake::io
