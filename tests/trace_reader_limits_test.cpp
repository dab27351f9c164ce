// SPDX-License-Identifier: MIT
// The trace reader against hostile input: nesting past the depth limit (too_deep), records past the size
// limit (oversized_record), files that never start with a capture record (missing_capture), and documents
// whose structure breaks. Each is located, counted and skipped, or makes the file unusable as a whole, and
// the good records around it are kept. The 256 MiB cases with their memory bound are in
// trace_reader_memory_test.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <memory>
#include <fstream>
#include <string>
#include <thread>

#include "tests/temp_dir.hpp"
#include "tests/trace_records.hpp"

namespace {

using namespace shaderbake;
using namespace shaderbake::test;

constexpr int kHostileDepth = 100000;

std::string deep_arrays(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

std::string deep_objects(int levels) {
  std::string out;
  for (int i = 0; i < levels; ++i) out += "{\"a\":";
  out += "1";
  out += std::string(levels, '}');
  return out;
}

// `record` with `"name":value` added as its first field.
std::string with_field(const std::string& record, const std::string& name, const std::string& value) {
  return "{\"" + name + "\":" + value + "," + record.substr(1);
}

// 1-based column of the bracket that opens nesting level limit + 1 in a one-line record (strings skipped),
// worked out here independently of the reader.
size_t column_past(const std::string& record, int limit) {
  int depth = 0;
  for (size_t i = 0; i < record.size(); ++i) {
    if (record[i] == '"') {
      for (++i; record[i] != '"'; ++i)
        if (record[i] == '\\') ++i;
    } else if (record[i] == '[' || record[i] == '{') {
      if (++depth > limit) return i + 1;
    } else if (record[i] == ']' || record[i] == '}') {
      --depth;
    }
  }
  return 0;
}

struct DeepCase {
  const char* where;
  std::string record;
};

// A record 100,000 levels deep in each place a reader skips or rejects a value, and in each shape.
std::vector<DeepCase> deep_cases() {
  const std::string arrays = deep_arrays(kHostileDepth), objects = deep_objects(kHostileDepth);
  std::string program_with_field = program();
  program_with_field = with_field(program_with_field, "x", arrays);
  std::string host_with_field = with_field(host(), "x", objects);
  std::string host_depth_field = host();
  host_depth_field.replace(host_depth_field.find("\"test\":true"), 11, "\"x\":" + arrays + ",\"test\":true");
  return {
      {"an unknown field of a state record", with_field(state("s2", program(), host()), "x", arrays)},
      {"an unknown field of a draw naming a state", with_field(draw(1, 5, "s1"), "x", objects)},
      {"an unknown field of an inline draw", with_field(inline_draw(1, 5, program(), host()), "x", arrays)},
      {"an unknown field of a second capture record", with_field(kCapture, "provenance", objects)},
      {"an unknown field of a program", inline_draw(1, 5, program_with_field, host())},
      {"an unknown field of a host", state("s2", program(), host_with_field)},
      {"an unknown field of a host's depth object", inline_draw(1, 5, program(), host_depth_field)},
      {"an unknown field of dynamic values", inline_draw(1, 5, program(), host(), "{\"c0\":[1],\"x\":" + arrays + "}")},
      {"a field of another record type (frame in a state)", with_field(state("s2", program(), host()), "frame", objects)},
      {"a field of another record type (program in a capture)", with_field(kCapture, "program", "{\"x\":" + arrays + "}")},
      {"a known field of the wrong type", with_field(R"({"type":"draw","draw":5,"state":"s1"})", "frame", arrays)},
      {"a record that is itself an array", arrays},
  };
}

TEST(TraceReaderLimits, nesting_100000_levels_deep_in_every_skipped_field_is_too_deep_and_the_neighbours_survive) {
  for (const DeepCase& deep : deep_cases()) {
    SCOPED_TRACE(deep.where);
    Ingest in;
    ASSERT_TRUE(in.read(lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"), deep.record, draw(1, 1, "s1")})));
    EXPECT_EQ(in.bad("too_deep"), 1u);
    EXPECT_EQ(in.census.counts().draws, 2u);
    EXPECT_TRUE(in.reader.files().back().readable);
    ASSERT_EQ(in.sink.entries.size(), 1u);
    const Error& e = in.sink.entries[0].error;
    EXPECT_EQ(in.sink.entries[0].severity, Severity::warning);
    EXPECT_EQ(e.reason, "too_deep");
    EXPECT_EQ(e.where.line, 4u);
    EXPECT_EQ(e.where.column, column_past(deep.record, 256)) << e.to_string().substr(0, 300);
  }
}

TEST(TraceReaderLimits, nesting_100000_levels_deep_in_document_entries_is_too_deep_and_the_neighbours_survive) {
  std::vector<DeepCase> cases = deep_cases();
  cases.push_back({"an entry that is not an object", deep_objects(kHostileDepth)});
  for (const DeepCase& deep : cases) {
    SCOPED_TRACE(deep.where);
    const std::string doc = "{\"records\": [\n" + kCapture + ",\n" + state("s1", program(), host()) + ",\n" +
                            draw(1, 0, "s1") + ",\n" + deep.record + ",\n" + draw(1, 1, "s1") + "\n]}\n";
    Ingest in;
    ASSERT_TRUE(in.read(doc, true));
    EXPECT_EQ(in.bad("too_deep"), 1u);
    EXPECT_EQ(in.census.counts().draws, 2u);
    ASSERT_EQ(in.sink.entries.size(), 1u);
    EXPECT_EQ(in.sink.entries[0].error.where.line, 5u);
    EXPECT_EQ(in.sink.entries[0].error.where.column, column_past(deep.record, 256));
  }
}

TEST(TraceReaderLimits, a_first_record_too_deep_makes_the_file_unusable_as_too_deep) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({with_field(kCapture, "x", deep_arrays(kHostileDepth)), state("s1", program(), host()), draw(1, 0, "s1")})));
  EXPECT_EQ(in.bad("too_deep"), 1u);
  EXPECT_FALSE(in.reader.files().back().readable);
  EXPECT_EQ(in.census.counts().draws, 0u);
  ASSERT_EQ(in.sink.entries.size(), 1u);
  EXPECT_EQ(in.sink.entries[0].severity, Severity::error);
}

TEST(TraceReaderLimits, the_depth_limit_is_an_option_clamped_to_what_the_schema_needs_and_what_simdjson_tracks) {
  // host.vertex.bindings[0] is level 5: the deepest any record of the schema goes.
  auto read_with = [](uint32_t max_depth, const std::string& extra) {
    trace::ReaderOptions options;
    options.max_depth = max_depth;
    auto in = std::make_unique<Ingest>(options);
    EXPECT_TRUE(in->read(lines({kCapture, state("s1", program(), host()), with_field(draw(1, 0, "s1"), "x", extra)})));
    return in;
  };
  EXPECT_EQ(read_with(5, deep_arrays(4))->census.counts().draws, 1u);  // levels 2..5
  EXPECT_EQ(read_with(5, deep_arrays(5))->bad("too_deep"), 1u);        // level 6
  EXPECT_EQ(read_with(0, deep_arrays(4))->census.counts().draws, 1u);  // 0 reads as 5
  EXPECT_EQ(read_with(1, deep_arrays(5))->bad("too_deep"), 1u);
  EXPECT_EQ(read_with(300, deep_arrays(299))->census.counts().draws, 1u);
  EXPECT_EQ(read_with(300, deep_arrays(300))->bad("too_deep"), 1u);
  EXPECT_EQ(read_with(100000, deep_arrays(999))->census.counts().draws, 1u);  // read as 1000
  EXPECT_EQ(read_with(100000, deep_arrays(1000))->bad("too_deep"), 1u);
  EXPECT_EQ(read_with(trace::ReaderOptions{}.max_depth, deep_arrays(255))->census.counts().draws, 1u);  // 256 by default
  EXPECT_EQ(read_with(trace::ReaderOptions{}.max_depth, deep_arrays(256))->bad("too_deep"), 1u);
}

TEST(TraceReaderLimits, a_record_too_deep_and_otherwise_bad_is_too_deep) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, R"({"type":"drew","x":)" + deep_arrays(300) + "}", R"({"type":"draw",,"x":)" + deep_arrays(300) + "}",
                             R"({"type":"draw","frame":1,"draw":0,"state":"s1","x":)" + deep_arrays(300)})));
  EXPECT_EQ(in.bad("too_deep"), 3u);
  EXPECT_EQ(in.reader.bad_records().size(), 1u);
}

// Writes `text` into a FIFO at `path` from a thread, in chunks of `chunk` bytes.
class PipeWriter {
 public:
  PipeWriter(const std::filesystem::path& path, std::string text, size_t chunk = 4096) {
    std::signal(SIGPIPE, SIG_IGN);  // a reader that stops early closes its end: write then fails, no signal
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    thread_ = std::thread([path, text = std::move(text), chunk] {
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      for (size_t done = 0; fd >= 0 && done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, std::min(chunk, text.size() - done));
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      if (fd >= 0) ::close(fd);
    });
  }
  ~PipeWriter() { thread_.join(); }
  PipeWriter(const PipeWriter&) = delete;
  PipeWriter& operator=(const PipeWriter&) = delete;

 private:
  std::thread thread_;
};

TEST(TraceReaderLimits, a_record_longer_than_the_size_limit_is_oversized_and_skipped_unread_by_every_way_of_reading) {
  constexpr uint64_t kLimit = 1000;
  const std::string oversized = R"({"type":"draw","frame":1,"draw":9,"state":"s1","note":")" + std::string(20000, 'n') + "\"}";
  const std::string text = lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"), oversized, draw(1, 1, "s1")});
  const std::string doc = "{\"records\": [\n" + kCapture + ",\n" + state("s1", program(), host()) + ",\n" + draw(1, 0, "s1") +
                          ",\n  " + oversized + ",\n" + draw(1, 1, "s1") + "\n]}\n";
  test_support::TempDir dir("shaderbake_oversized");
  std::ofstream(dir.path() / "t.jsonl", std::ios::binary) << text;
  std::ofstream(dir.path() / "t.json", std::ios::binary) << doc;
  trace::ReaderOptions options;
  options.max_record_bytes = kLimit;
  struct Way {
    const char* name;
    std::function<Status(Ingest&)> read;
    uint64_t line, column;
  };
  const std::vector<Way> ways = {
      {"JSON Lines in memory", [&](Ingest& in) { return in.read(text); }, 4, 1},
      {"a mapped JSON Lines file", [&](Ingest& in) { return in.reader.read_file((dir.path() / "t.jsonl").string(), in.census); }, 4, 1},
      {"a JSON Lines pipe",
       [&](Ingest& in) {
         PipeWriter writer(dir.path() / "pipe.jsonl", text, 100);
         return in.reader.read_file((dir.path() / "pipe.jsonl").string(), in.census);
       },
       4, 1},
      {"a document in memory", [&](Ingest& in) { return in.read(doc, true); }, 5, 3},
      {"a document file", [&](Ingest& in) { return in.reader.read_file((dir.path() / "t.json").string(), in.census); }, 5, 3},
      {"a document pipe",
       [&](Ingest& in) {
         PipeWriter writer(dir.path() / "pipe.json", doc, 100);
         return in.reader.read_file((dir.path() / "pipe.json").string(), in.census);
       },
       5, 3},
  };
  for (const Way& way : ways) {
    SCOPED_TRACE(way.name);
    std::filesystem::remove(dir.path() / "pipe.jsonl");
    std::filesystem::remove(dir.path() / "pipe.json");
    for (bool digest : {false, true}) {
      trace::ReaderOptions o = options;
      o.digest_content = digest;  // a regular file to digest is read in chunks, like a stream
      Ingest in(o);
      ASSERT_TRUE(way.read(in));
      EXPECT_EQ(in.bad("oversized_record"), 1u);
      EXPECT_EQ(in.census.counts().draws, 2u);
      EXPECT_TRUE(in.reader.files().back().readable);
      ASSERT_EQ(in.sink.entries.size(), 1u);
      EXPECT_EQ(in.sink.entries[0].error.where.line, way.line);
      EXPECT_EQ(in.sink.entries[0].error.where.column, way.column);
      std::filesystem::remove(dir.path() / "pipe.jsonl");
      std::filesystem::remove(dir.path() / "pipe.json");
    }
  }
}

TEST(TraceReaderLimits, a_record_of_exactly_the_size_limit_is_read_and_one_byte_more_is_oversized) {
  const std::string head = R"({"type":"draw","frame":1,"draw":9,"state":"s1","note":")";
  auto record_of = [&](size_t size) { return head + std::string(size - head.size() - 2, 'n') + "\"}"; };
  for (const char* line_end : {"\n", "\r\n"}) {
    for (bool pipe : {false, true}) {
      SCOPED_TRACE(std::string(pipe ? "pipe" : "memory") + (line_end[0] == '\r' ? ", CRLF" : ", LF"));
      trace::ReaderOptions options;
      options.max_record_bytes = 5000;
      const std::string text = kCapture + line_end + state("s1", program(), host()) + line_end + record_of(5000) + line_end +
                               record_of(5001) + line_end + record_of(5000);  // the last one without a line end
      Ingest in(options);
      if (pipe) {
        test_support::TempDir dir("shaderbake_exact");
        PipeWriter writer(dir.path() / "t.jsonl", text, 777);
        ASSERT_TRUE(in.reader.read_file((dir.path() / "t.jsonl").string(), in.census));
      } else {
        ASSERT_TRUE(in.read(text));
      }
      EXPECT_EQ(in.census.counts().draws, 2u);
      EXPECT_EQ(in.bad("oversized_record"), 1u);
      EXPECT_EQ(in.reader.bad_records().size(), 1u);
    }
  }
}

TEST(TraceReaderLimits, an_oversized_first_record_makes_the_file_unusable_as_oversized) {
  trace::ReaderOptions options;
  options.max_record_bytes = 100;
  Ingest in(options);
  ASSERT_TRUE(in.read(lines({with_field(kCapture, "note", "\"" + std::string(200, 'n') + "\""), draw(1, 0, "s1")})));
  EXPECT_EQ(in.bad("oversized_record"), 1u);
  EXPECT_FALSE(in.reader.files().back().readable);
  EXPECT_EQ(in.sink.entries.size(), 1u);
}

// A bundle, as a user might pass one by mistake: the loader's fuzz seed.
std::string bundle_bytes() {
  std::ifstream in(std::string(SHADERBAKE_SOURCE_DIR) + "/tests/fuzz/corpus/bundle/tiny.sbk", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(bytes.size(), 64u);
  return bytes;
}

TEST(TraceReaderLimits, a_file_without_a_capture_record_first_is_missing_capture_and_unusable_in_both_forms) {
  struct FileCase {
    const char* name;
    std::string text;      // as JSON Lines
    std::string document;  // in the document form, where it differs
  };
  const std::string rest = lines({state("s1", program(), host()), draw(1, 0, "s1")});
  const std::string rest_entries = state("s1", program(), host()) + "," + draw(1, 0, "s1");
  const std::vector<FileCase> cases = {
      {"an empty file", "", ""},
      {"a byte-order mark only", "\xEF\xBB\xBF", ""},
      {"a byte-order mark and a line end", "\xEF\xBB\xBF\r\n", ""},
      {"whitespace only", " \n\t\r\n   \n\n", ""},
      {"a bundle", bundle_bytes(), ""},
      {"text that is not JSON", "hello\n" + rest, ""},
      {"a first record that is not an object", "[1,2,3]\n" + rest, "{\"records\": [[1,2,3]," + rest_entries + "]}"},
      {"a first record of another type", rest, "{\"records\": [" + rest_entries + "]}"},
      {"no records at all", "", "{\"records\": []}"},
  };
  for (const FileCase& fc : cases) {
    for (bool document_form : {false, true}) {
      SCOPED_TRACE(std::string(fc.name) + (document_form ? " (document form)" : ""));
      const std::string& text = document_form && !fc.document.empty() ? fc.document : fc.text;
      Ingest in;
      ASSERT_TRUE(in.read(text, document_form));
      EXPECT_EQ(in.bad("missing_capture"), 1u);
      EXPECT_EQ(in.reader.bad_records().size(), 1u);
      EXPECT_FALSE(in.reader.files().back().readable);
      EXPECT_EQ(in.census.counts().draws, 0u);
      ASSERT_EQ(in.sink.entries.size(), 1u);
      EXPECT_EQ(in.sink.entries[0].severity, Severity::error);
      EXPECT_EQ(in.sink.entries[0].error.where.line, 1u);
      // Strict mode stops with that error.
      Ingest strict(true);
      const Status s = strict.read(text, document_form);
      ASSERT_FALSE(s);
      EXPECT_EQ(s.error().reason, "missing_capture");
    }
  }
}

TEST(TraceReaderLimits, a_file_without_a_capture_record_is_unusable_from_a_mapped_file_a_stream_and_a_pipe) {
  test_support::TempDir dir("shaderbake_no_capture");
  for (const std::string& text : {std::string(), std::string("\xEF\xBB\xBF"), std::string("  \n\n"), bundle_bytes()}) {
    for (const char* name : {"t.jsonl", "t.json"}) {
      std::ofstream(dir.path() / name, std::ios::binary) << text;
      for (bool digest : {false, true}) {
        trace::ReaderOptions options;
        options.digest_content = digest;
        Ingest in(options);
        ASSERT_TRUE(in.reader.read_file((dir.path() / name).string(), in.census));
        {
          PipeWriter writer(dir.path() / "pipe", text);
          ASSERT_TRUE(in.reader.read_file((dir.path() / "pipe").string(), in.census));
        }
        std::filesystem::remove(dir.path() / "pipe");
        ASSERT_EQ(in.reader.files().size(), 2u);
        for (const trace::FileSummary& f : in.reader.files()) {
          EXPECT_FALSE(f.readable) << f.path;
          EXPECT_EQ(f.bad_records.at("missing_capture"), 1u) << f.path;
        }
      }
    }
  }
}

TEST(TraceReaderLimits, a_broken_document_around_good_records_keeps_them_and_is_unusable) {
  const std::string head = "{\"records\": [" + kCapture + "," + state("s1", program(), host()) + "," + draw(1, 0, "s1");
  struct DocCase {
    const char* name;
    std::string doc;
  };
  const std::vector<DocCase> cases = {
      {"cut short inside a record", head + ",{\"type\":\"dr"},
      {"cut short after a record", head},
      {"cut short after the array", head + "]"},
      {"a missing comma", head + " " + draw(1, 1, "s1") + "]}"},
      {"a trailing comma", head + ",]}"},
      {"content after the document", head + "]}{\"records\": []}"},
      {"a second records member", head + "], \"records\": []}"},
  };
  for (const DocCase& dc : cases) {
    SCOPED_TRACE(dc.name);
    Ingest in;
    ASSERT_TRUE(in.read(dc.doc, true));
    EXPECT_EQ(in.census.counts().draws, 1u);
    EXPECT_FALSE(in.reader.files().back().readable);
    EXPECT_EQ(in.bad("malformed_json"), 1u);
    ASSERT_EQ(in.sink.entries.size(), 1u);
    EXPECT_EQ(in.sink.entries[0].severity, Severity::error);
  }
}

TEST(TraceReaderLimits, a_document_reads_its_records_however_the_rest_of_it_is_spelt) {
  // Other members before and after "records" (deep and large ones too), an escaped member name, odd spacing,
  // strings holding brackets and quotes, and a byte-order mark.
  const std::string records = "[\r\n " + kCapture + " ,\n" + state("s1", program(), host()) + "\t,\n" +
                              R"({"type":"draw","frame":1,"draw":0,"state":"s1","note":"] } [ { \" \\"})" + "\n]";
  const std::vector<std::string> docs = {
      "{\"records\":" + records + "}",
      "\xEF\xBB\xBF  {\"before\": " + deep_arrays(kHostileDepth) + ", \"records\" : " + records + " , \"after\": \"" +
          std::string(100000, 'x') + "\"}\n",
      "{\"rec\\u006frds\":" + records + ",\"n\":-1.5e3,\"t\":true,\"z\":null}",
  };
  for (const std::string& doc : docs) {
    Ingest in;
    ASSERT_TRUE(in.read(doc, true));
    EXPECT_EQ(in.census.counts().draws, 1u);
    EXPECT_TRUE(in.reader.bad_records().empty()) << in.sink.entries[0].error.to_string();
    EXPECT_TRUE(in.reader.files().back().readable);
  }
}

TEST(TraceReaderLimits, a_document_streamed_across_chunks_reads_as_it_does_from_memory) {
  // Records straddle the reader's 4 MiB chunks, one entry is longer than a chunk.
  std::string doc = "{\"records\": [" + kCapture + "," + state("s1", program(), host());
  for (int i = 0; i < 40000; ++i) {
    if (i == 20000) doc += R"(,{"type":"draw","frame":300,"draw":0,"state":"s1","note":")" + std::string(5 << 20, 'n') + "\"}";
    doc += "," + (i % 2 ? draw(i / 100, i % 100, "s1") : inline_draw(i / 100, i % 100, program(), host("front")));
  }
  doc += "]}";
  test_support::TempDir dir("shaderbake_document_stream");
  std::ofstream(dir.path() / "t.json", std::ios::binary) << doc;
  Ingest from_file, from_memory;
  ASSERT_TRUE(from_file.reader.read_file((dir.path() / "t.json").string(), from_file.census));
  ASSERT_TRUE(from_memory.read(doc, true));
  EXPECT_EQ(from_file.census.counts().draws, 40001u);
  EXPECT_EQ(from_memory.census.counts().draws, 40001u);
  EXPECT_EQ(from_file.census.counts().unique_pipeline_keys, from_memory.census.counts().unique_pipeline_keys);
  EXPECT_TRUE(from_file.reader.bad_records().empty());
}

}  // namespace
