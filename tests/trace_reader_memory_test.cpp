// SPDX-License-Identifier: MIT
// A 256 MiB record (with the default 64 MiB record-size limit) and 100,000 levels of nesting, from a pipe
// and from a mapped file, are skipped with their warning, the good records before and after are kept, and
// the process's peak resident memory (getrusage ru_maxrss) stays under 200 MB. In a test executable of its
// own so that no other test's memory counts; ctest runs each test in a process of its own too.
//
// The writer never holds the big record either: it writes it in 64 KiB pieces into a FIFO from a thread.
// Time is linear by construction (every byte is searched for a line end once); nothing here is timed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "tests/temp_dir.hpp"
#include "tests/trace_records.hpp"

namespace {

using namespace shaderbake;
using namespace shaderbake::test;

constexpr uint64_t kBigRecord = uint64_t{256} << 20;
constexpr long kPeakLimitKiB = 200 * 1000;  // 200 MB

long peak_rss_kib() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

// Writes all of `piece` to `fd` (a FIFO takes at most its buffer's worth per call).
void write_all(int fd, const std::string& piece) {
  for (size_t done = 0; done < piece.size();) {
    const ssize_t n = ::write(fd, piece.data() + done, piece.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The good head (capture, state, first draw), then `middle` written piece by piece, then the last draw.
// `document_form` selects {"records": [...]} instead of JSON Lines.
void write_trace(int fd, bool document_form, const std::function<void(const std::function<void(const std::string&)>&)>& middle) {
  auto put = [&](const std::string& piece) { write_all(fd, piece); };
  const std::string sep = document_form ? ",\n" : "\n";
  put((document_form ? "{\"records\": [\n" : "") + kCapture + sep + state("s1", program(), host()) + sep + draw(1, 0, "s1") + sep);
  middle(put);
  put(sep + draw(1, 1, "s1") + (document_form ? "\n]}\n" : "\n"));
}

// 256 MiB of one record: a draw whose "note" string is that long.
void big_record(const std::function<void(const std::string&)>& put) {
  const std::string head = R"({"type":"draw","frame":1,"draw":9,"state":"s1","note":")";
  put(head);
  const std::string piece(64 << 10, 'x');
  for (uint64_t done = head.size(); done < kBigRecord; done += piece.size()) put(piece);
  put("\"}");
}

// 100,000 levels of nesting under an unknown field of a draw.
void deep_record(const std::function<void(const std::string&)>& put) {
  put(R"({"type":"draw","frame":1,"draw":9,"state":"s1","x":)");
  put(std::string(100000, '['));
  put(std::string(100000, ']'));
  put("}");
}

void expect_skipped(const Ingest& in, const char* reason, uint64_t line = 4) {
  EXPECT_EQ(in.bad(reason), 1u);
  EXPECT_EQ(in.reader.bad_records().size(), 1u);
  EXPECT_EQ(in.census.counts().draws, 2u);
  ASSERT_EQ(in.reader.files().size(), 1u);
  EXPECT_TRUE(in.reader.files()[0].readable);
  ASSERT_EQ(in.sink.entries.size(), 1u);
  EXPECT_EQ(in.sink.entries[0].error.where.line, line);  // the line the record starts on
  const long peak = peak_rss_kib();
  std::printf("peak RSS: %ld KiB\n", peak);
  EXPECT_LT(peak, kPeakLimitKiB);
}

// Reads from a FIFO that a thread fills.
void read_through_pipe(Ingest& in, bool document_form, void (*middle)(const std::function<void(const std::string&)>&)) {
  std::signal(SIGPIPE, SIG_IGN);
  test_support::TempDir dir("shaderbake_memory");
  const auto path = dir.path() / (document_form ? "pipe.json" : "pipe.jsonl");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    write_trace(fd, document_form, middle);
    ::close(fd);
  });
  const Status s = in.reader.read_file(path.string(), in.census);
  writer.join();
  ASSERT_TRUE(s);
}

TEST(TraceReaderMemory, a_256_mib_record_through_a_pipe_is_oversized_and_skipped_in_bounded_memory) {
  Ingest in;
  read_through_pipe(in, false, big_record);
  expect_skipped(in, "oversized_record");
}

TEST(TraceReaderMemory, a_256_mib_record_in_a_document_through_a_pipe_is_oversized_and_skipped_in_bounded_memory) {
  Ingest in;
  read_through_pipe(in, true, big_record);
  expect_skipped(in, "oversized_record", 5);
}

TEST(TraceReaderMemory, a_256_mib_record_of_a_file_read_for_its_digest_is_skipped_in_bounded_memory) {
  // A regular file read in chunks (as for the build memo's digest) and the same file mapped.
  test_support::TempDir dir("shaderbake_memory");
  const auto path = dir.path() / "big.jsonl";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  write_trace(fd, false, big_record);
  ::close(fd);
  for (bool digest : {true, false}) {
    SCOPED_TRACE(digest ? "read in chunks" : "mapped");
    trace::ReaderOptions options;
    options.digest_content = digest;
    Ingest in(options);
    ASSERT_TRUE(in.reader.read_file(path.string(), in.census));
    expect_skipped(in, "oversized_record");
  }
}

TEST(TraceReaderMemory, a_256_mib_line_without_a_line_end_in_a_mapped_sparse_file_is_skipped_in_bounded_memory) {
  // The long line is a hole of the file (zeros, never written): only the reader's mapping could bring it
  // into memory, window by window.
  test_support::TempDir dir("shaderbake_memory");
  const auto path = dir.path() / "sparse.jsonl";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  write_trace(fd, false, [&](const std::function<void(const std::string&)>& put) {
    put("{");
    ASSERT_GE(::lseek(fd, static_cast<off_t>(kBigRecord), SEEK_CUR), 0);
    put("}");
  });
  ::close(fd);
  Ingest in;
  ASSERT_TRUE(in.reader.read_file(path.string(), in.census));
  expect_skipped(in, "oversized_record");
}

TEST(TraceReaderMemory, nesting_100000_levels_deep_through_a_pipe_is_too_deep_and_skipped_in_bounded_memory) {
  for (bool document_form : {false, true}) {
    SCOPED_TRACE(document_form ? "document form" : "JSON Lines");
    Ingest in;
    read_through_pipe(in, document_form, deep_record);
    expect_skipped(in, "too_deep", document_form ? 5 : 4);
  }
}

}  // namespace
