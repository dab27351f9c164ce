// SPDX-License-Identifier: MIT
// Whole-file reads and atomic replacement (lib/io/file_io.hpp). write_output's own cases (links, devices,
// stale temporaries, failed writes) are in output_file_test.cpp.
#include "lib/io/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/temp_dir.hpp"

namespace shaderbake::io {
namespace {

namespace fs = std::filesystem;
using test_support::TempDir;

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string text_of(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::span<const uint8_t> bytes_of(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

TEST(ReadFile, reads_a_file_of_exactly_the_limit_and_refuses_one_byte_more) {
  TempDir dir("sbk_file_io");
  const fs::path path = dir.path() / "vectors.json";
  write_text(path, "0123456789");
  const auto exact = read_file(path, 10);
  ASSERT_TRUE(exact) << exact.error().to_string();
  EXPECT_EQ(text_of(*exact), "0123456789");

  const auto over = read_file(path, 9);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, ErrorKind::io);
  EXPECT_EQ(over.error().reason, "file_too_large");
  EXPECT_EQ(over.error().where.file, path.string());
  EXPECT_NE(over.error().message.find("10 bytes"), std::string::npos) << over.error().message;
  EXPECT_NE(over.error().message.find("9 bytes"), std::string::npos) << over.error().message;

  write_text(path, "");
  const auto empty = read_file(path, 0);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(ReadFile, a_missing_file_is_an_io_error_naming_the_file_and_the_system_reason) {
  TempDir dir("sbk_file_io");
  const fs::path path = dir.path() / "missing.json";
  const auto r = read_file(path, 1024);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::io);
  EXPECT_EQ(r.error().reason, "unreadable_file");
  EXPECT_EQ(r.error().where.file, path.string());
  EXPECT_NE(r.error().message.find(std::strerror(ENOENT)), std::string::npos) << r.error().message;
}

TEST(ReadFile, refuses_a_directory_and_a_fifo_without_waiting_for_a_writer) {
  TempDir dir("sbk_file_io");
  const auto directory = read_file(dir.path(), 1024);
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().reason, "not_a_regular_file");
  EXPECT_NE(directory.error().message.find("a directory"), std::string::npos) << directory.error().message;

  const fs::path fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto pipe = read_file(fifo, 1024);  // would block forever in open() without O_NONBLOCK
  ASSERT_FALSE(pipe);
  EXPECT_EQ(pipe.error().reason, "not_a_regular_file");
  EXPECT_NE(pipe.error().message.find("a FIFO"), std::string::npos) << pipe.error().message;
}

TEST(ReadUpTo, reads_from_the_offset_at_most_the_limit_and_past_a_stale_size) {
  TempDir dir("sbk_file_io");
  const fs::path path = dir.path() / "entry";
  std::string content;
  for (int i = 0; i < 100000; ++i) content.push_back(static_cast<char>('a' + i % 26));
  write_text(path, content);

  auto file = open_regular_file(path);
  ASSERT_TRUE(file) << file.error().to_string();
  EXPECT_EQ(file->info.st_size, 100000);
  // The size the caller expected is stale (the file is larger): the read goes on to the end of the file.
  const auto all = read_up_to(file->fd.get(), 1 << 20, 10, path);
  ASSERT_TRUE(all);
  EXPECT_EQ(text_of(*all), content);

  // From the descriptor's offset, and no more than the limit.
  ASSERT_EQ(::lseek(file->fd.get(), 5, SEEK_SET), 5);
  const auto some = read_up_to(file->fd.get(), 7, 100000, path);
  ASSERT_TRUE(some);
  EXPECT_EQ(text_of(*some), content.substr(5, 7));
}

TEST(ReplaceFileAtomically, writes_a_new_file_then_replaces_it_leaving_no_temporary_file) {
  TempDir dir("sbk_file_io");
  const fs::path path = dir.path() / "entry.sbkc";
  for (const Durability durability : {Durability::fsync, Durability::none}) {
    fs::remove(path);
    ASSERT_TRUE(replace_file_atomically(path, bytes_of("first"), durability));
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    ASSERT_TRUE(replace_file_atomically(path, bytes_of("second"), durability, {"entry.sbkc.tmp.", 0600}));
    struct stat after {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(read_text(path), "second");
    EXPECT_NE(before.st_ino, after.st_ino);  // a new file renamed into place, not the old one rewritten
    EXPECT_EQ(after.st_mode & 07777, 0600u);
    size_t names = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++names;
    EXPECT_EQ(names, 1u);
  }
}

TEST(ReplaceFileAtomically, names_its_temporary_file_by_the_prefix_and_never_writes_through_a_taken_name) {
  TempDir dir("sbk_file_io");
  const fs::path path = dir.path() / "entry.sbkc";
  const fs::path victim = dir.path() / "victim";
  write_text(victim, "precious");
  const std::string taken = "entry.sbkc.tmp." + std::to_string(::getpid()) + ".00000000000000aa";
  fs::create_symlink(victim, dir.path() / taken);
  std::vector<std::string> suffixes = {"00000000000000aa", "00000000000000bb"};
  size_t next = 0;
  set_temporary_suffix_source_for_testing([&] { return suffixes[std::min(next++, suffixes.size() - 1)]; });
  const Status s = replace_file_atomically(path, bytes_of("entry"), Durability::none, {"entry.sbkc.tmp.", {}});
  set_temporary_suffix_source_for_testing({});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(next, 2u);  // the taken name was skipped, the next one used
  EXPECT_EQ(read_text(path), "entry");
  EXPECT_EQ(read_text(victim), "precious");
  EXPECT_TRUE(fs::is_symlink(dir.path() / taken));
  EXPECT_FALSE(fs::exists(dir.path() / ("entry.sbkc.tmp." + std::to_string(::getpid()) + ".00000000000000bb")));
}

TEST(ReplaceFileAtomically, a_missing_directory_is_a_write_error_at_the_path) {
  TempDir dir("sbk_file_io");
  const fs::path path = dir.path() / "no" / "such" / "file";
  const Status s = replace_file_atomically(path, bytes_of("x"), Durability::fsync);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::io);
  EXPECT_EQ(s.error().reason, "write_failed");
  EXPECT_EQ(s.error().where.file, path.string());
  EXPECT_NE(s.error().message.find(std::strerror(ENOENT)), std::string::npos) << s.error().message;
  EXPECT_FALSE(replace_file_atomically(dir.path() / "", bytes_of("x"), Durability::none));  // names no file
}

}  // namespace
}  // namespace shaderbake::io
