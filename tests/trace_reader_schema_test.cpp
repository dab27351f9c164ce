// SPDX-License-Identifier: MIT
// The trace reader accepts what schemas/trace.schema.json accepts: integers as JSON Schema counts them,
// id lengths in characters, the fields each record type defines (and no others read), and the same files of
// edge records that tests/schema/validate.py checks against the schema with an independent validator.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "lib/json/json_reader.hpp"
#include "tests/trace_records.hpp"

namespace {

using namespace shaderbake;
using namespace shaderbake::test;

TEST(JsonNumbers, a_number_is_an_integer_when_its_fractional_part_is_zero_read_exactly_from_its_text) {
  struct Case {
    const char* text;
    bool integer;
    bool fits;
    uint64_t magnitude;
    bool negative;
  };
  const Case cases[] = {
      {"0", true, true, 0, false},
      {"-0", true, true, 0, false},
      {"-0.0e7", true, true, 0, false},
      {"1.0", true, true, 1, false},
      {"1e2", true, true, 100, false},
      {"1E+2", true, true, 100, false},
      {"100e-2", true, true, 1, false},
      {"0.1e1", true, true, 1, false},
      {"1.5e1", true, true, 15, false},
      {"-42", true, true, 42, true},
      {"4294967295.000", true, true, 4294967295u, false},
      {"18446744073709551615", true, true, UINT64_MAX, false},
      {"1.8446744073709551615e19", true, true, UINT64_MAX, false},
      {"12345678901234567890000e-3", true, true, 12345678901234567890u, false},
      {"18446744073709551616", true, false, 0, false},
      {"1e20", true, false, 0, false},
      {"1e400", true, false, 0, false},
      {"1.5", false, false, 0, false},
      {"1e-1", false, false, 0, false},
      {"-0.5", false, false, 0, true},
      {"1e-400", false, false, 0, false},
      {"9007199254740993.5", false, false, 0, false},  // no double rounding makes it an integer
      {"7 \t\r\n", true, true, 7, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::optional<json::Number> n = json::parse_number(c.text);
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(n->integer, c.integer);
    EXPECT_EQ(n->fits, c.fits);
    if (c.fits) {
      EXPECT_EQ(n->magnitude, c.magnitude);
    }
    EXPECT_EQ(n->negative, c.negative);
  }
  for (const char* bad : {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1x", "0x10", "1 2", "--1", "Infinity", "NaN"})
    EXPECT_FALSE(json::parse_number(bad).has_value()) << bad;
}

TEST(TraceReaderSchema, integers_written_with_a_zero_fraction_an_exponent_or_a_minus_zero_are_integers) {
  // Every integer field of the format spelt so, read to the same keys and numbers as the plain spelling.
  const std::string spelt = R"({"combiner_control":1.0,"rgb_inputs":[6.9206016e7,-0],"rgb_outputs":[1.92e2],)"
                            R"("alpha_inputs":[403963904.0],"alpha_outputs":[192e0],"final_inputs":[1.2e1,7168.0],)"
                            R"("texture_modes":[1.0,-0,0e3,"none"],"texture_enabled":[true,false,false,false],)"
                            R"("alpha_test":{"enabled":false,"func":"always"}})";
  const std::string host_spelt = R"({"cull_mode":"back","samples":1.0,"depth":{"test":true,"write":true,"compare":"less_or_equal"},)"
                                 R"("color_formats":["r8g8b8a8_unorm"],"depth_format":"d24_unorm_s8_uint",)"
                                 R"("vertex":{"bindings":[{"binding":-0,"stride":2.4e1,"rate":"vertex"}],)"
                                 R"("attributes":[{"semantic":"position","binding":0.0,"format":"r32g32b32a32_sfloat","offset":-0.0},)"
                                 R"({"semantic":"texcoord0","binding":0,"format":"r32g32_sfloat","offset":1.6e1}]}})";
  DrawLog log;
  CollectingSink sink;
  nv2a::Nv2aGuestModel model;
  trace::TraceReader reader(model, {}, sink);
  ASSERT_TRUE(reader.read_text("t.jsonl",
                               lines({kCapture, inline_draw(1, 0, program(), host()),
                                      R"({"type":"draw","frame":2.0,"draw":-0,"program":)" + spelt + R"(,"host":)" + host_spelt +
                                          R"(,"dynamic":{"c0":[4294967295.0],"alpha_ref":1e1}})",
                                      state("s1", spelt, host_spelt), R"({"type":"draw","frame":3e0,"draw":100e-2,"state":"s1"})"}),
                               false, log));
  ASSERT_TRUE(sink.entries.empty()) << sink.entries[0].error.to_string();
  ASSERT_EQ(log.draws.size(), 3u);
  EXPECT_EQ(log.draws[1].frame, 2);
  EXPECT_EQ(log.draws[1].draw, 0);
  EXPECT_EQ(log.draws[2].frame, 3);
  EXPECT_EQ(log.draws[2].draw, 1);
  for (const trace::DrawEvent& d : log.draws) {
    EXPECT_EQ(d.program, log.draws[0].program);
    EXPECT_EQ(d.host, log.draws[0].host);
  }
}

TEST(TraceReaderSchema, a_fraction_a_negative_number_or_one_out_of_range_is_refused_where_the_schema_says_integer) {
  struct Case {
    std::string record;
    const char* reason;
    const char* pointer;
  };
  std::string fraction_word = program();
  fraction_word.replace(fraction_word.find("\"0x00000001\""), 12, "1.5");
  std::string big_word = program();
  big_word.replace(big_word.find("\"0x00000001\""), 12, "4294967296.0");
  const std::vector<Case> cases = {
      {R"({"type":"draw","frame":1.5,"draw":0,"state":"s1"})", "wrong_type", "/frame"},
      {R"({"type":"draw","frame":1,"draw":1e-1,"state":"s1"})", "wrong_type", "/draw"},
      {R"({"type":"draw","frame":-1,"draw":0,"state":"s1"})", "out_of_range", "/frame"},
      {R"({"type":"draw","frame":-1.0,"draw":0,"state":"s1"})", "out_of_range", "/frame"},
      {R"({"type":"draw","frame":9223372036854775808,"draw":0,"state":"s1"})", "out_of_range", "/frame"},
      {R"({"type":"draw","frame":1e19,"draw":0,"state":"s1"})", "out_of_range", "/frame"},
      {R"({"type":"draw","frame":1.,"draw":0,"state":"s1"})", "malformed_json", ""},
      {inline_draw(1, 0, fraction_word, host()), "wrong_type", "/program/combiner_control"},
      {inline_draw(1, 0, big_word, host()), "out_of_range", "/program/combiner_control"},
      {inline_draw(1, 0, program(), host(), R"({"alpha_ref":255.5})"), "wrong_type", "/dynamic/alpha_ref"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.record.substr(0, 80));
    Ingest in;
    ASSERT_TRUE(in.read(lines({kCapture, state("s1", program(), host()), c.record, draw(1, 1, "s1")})));
    EXPECT_EQ(in.bad(c.reason), 1u);
    ASSERT_EQ(in.sink.entries.size(), 1u);
    EXPECT_EQ(in.sink.entries[0].error.where.json_pointer, c.pointer) << in.sink.entries[0].error.to_string();
    EXPECT_EQ(in.census.counts().draws, 1u);
  }
}

TEST(TraceReaderSchema, state_ids_are_1_to_256_characters_counted_as_the_schema_counts_them) {
  std::string e_acute_256;
  for (int i = 0; i < 256; ++i) e_acute_256 += "\xC3\xA9";  // 512 bytes, 256 characters
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, state(e_acute_256, program(), host()), draw(1, 0, e_acute_256),
                             state(std::string(256, 'a'), program(), host()), draw(1, 1, std::string(256, 'a'))})));
  EXPECT_TRUE(in.sink.entries.empty()) << in.sink.entries[0].error.to_string();
  EXPECT_EQ(in.census.counts().draws, 2u);

  Ingest bad;
  ASSERT_TRUE(bad.read(lines({kCapture, state("", program(), host()), state(std::string(257, 'a'), program(), host()),
                              state(e_acute_256 + "a", program(), host()), draw(1, 0, ""), draw(1, 1, std::string(257, 'b'))})));
  EXPECT_EQ(bad.bad("out_of_range"), 5u);
  ASSERT_EQ(bad.sink.entries.size(), 5u);
  EXPECT_EQ(bad.sink.entries[0].error.where.json_pointer, "/id");
  EXPECT_EQ(bad.sink.entries[4].error.where.json_pointer, "/state");
}

TEST(TraceReaderSchema, fields_a_record_type_does_not_define_are_ignored_whatever_their_type) {
  // The schema allows any field besides those it lists; a field another record type defines is one of them.
  Ingest in;
  ASSERT_TRUE(in.read(lines({R"({"type":"capture","format":"shaderbake-trace/1","guest":"nv2a","id":5,"frame":"x","draw":-1.5,)"
                             R"("state":[],"program":7,"host":{"x":[1]},"dynamic":null,"huge":1e999})",
                             R"({"type":"state","id":"s1","program":)" + program() + R"(,"host":)" + host() +
                                 R"(,"frame":"x","draw":-1,"state":{},"format":2,"guest":[],"seed":"s","title":0})",
                             R"({"type":"draw","frame":1,"draw":0,"state":"s1","id":5,"format":{},"guest":1,"title":1,"generator":[],"seed":-1})"})));
  EXPECT_TRUE(in.sink.entries.empty()) << in.sink.entries[0].error.to_string();
  EXPECT_EQ(in.census.counts().draws, 1u);
  EXPECT_TRUE(in.reader.files().back().readable);
}

TEST(TraceReaderSchema, fields_that_are_ignored_are_still_checked_as_json) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, state("s1", program(), host()),
                             R"({"type":"state","id":"s2","program":)" + program() + R"(,"host":)" + host() + R"(,"frame":[tru]})",
                             R"({"type":"capture","format":"shaderbake-trace/1","guest":"nv2a","program":{"a":nul}})",
                             draw(1, 0, "s1")})));
  EXPECT_EQ(in.bad("malformed_json"), 2u);
  EXPECT_EQ(in.census.counts().draws, 1u);
}

TEST(TraceReaderSchema, the_capture_records_provenance_fields_have_the_schemas_types) {
  struct Case {
    const char* extra;
    const char* reason;  // nullptr: accepted
  };
  const Case cases[] = {
      {R"("seed":7,"title":"t","generator":"g")", nullptr},
      {R"("seed":1e30)", nullptr},
      {R"("seed":-0)", nullptr},
      {R"("seed":-1)", "out_of_range"},
      {R"("seed":2.5)", "wrong_type"},
      {R"("seed":"7")", "wrong_type"},
      {R"("title":5)", "wrong_type"},
      {R"("generator":["g"])", "wrong_type"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.extra);
    Ingest in;
    ASSERT_TRUE(in.read(lines({R"({"type":"capture","format":"shaderbake-trace/1","guest":"nv2a",)" + std::string(c.extra) + "}",
                               state("s1", program(), host()), draw(1, 0, "s1")})));
    if (c.reason == nullptr) {
      EXPECT_TRUE(in.sink.entries.empty()) << in.sink.entries[0].error.to_string();
      EXPECT_EQ(in.census.counts().draws, 1u);
    } else {
      // A capture record that is not valid leaves the file without one: unusable, with the record's reason.
      EXPECT_EQ(in.bad(c.reason), 1u);
      EXPECT_FALSE(in.reader.files().back().readable);
      EXPECT_EQ(in.census.counts().draws, 0u);
    }
  }
}

TEST(TraceReaderSchema, a_draw_naming_a_state_carries_no_program_host_or_dynamic) {
  for (const std::string& extra : {std::string(R"("dynamic":{"alpha_ref":1})"), R"("host":)" + host(), R"("program":)" + program()}) {
    Ingest in;
    ASSERT_TRUE(in.read(lines({kCapture, state("s1", program(), host()), R"({"type":"draw","frame":1,"draw":0,"state":"s1",)" + extra + "}"})));
    EXPECT_EQ(in.bad("conflicting_fields"), 1u);
    ASSERT_EQ(in.sink.entries.size(), 1u);
    EXPECT_EQ(in.sink.entries[0].error.where.json_pointer, "/state");
  }
}

TEST(TraceReaderSchema, a_dynamic_state_listed_twice_is_refused_as_the_schemas_unique_items) {
  std::string twice = host();
  twice.insert(1, R"("dynamic_states":["viewport","scissor","viewport"],)");
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, inline_draw(1, 0, program(), twice)})));
  EXPECT_EQ(in.bad("invalid_host_state"), 1u);
  ASSERT_EQ(in.sink.entries.size(), 1u);
  EXPECT_EQ(in.sink.entries[0].error.where.json_pointer, "/host/dynamic_states/2");
}

std::vector<std::string> file_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

TEST(TraceReaderSchema, the_edge_records_the_schema_accepts_are_all_good) {
  // tests/schema/valid_records.jsonl is a whole trace; the schema validator passes every record of it
  // (ctest schema_trace_edge_records).
  const std::vector<std::string> records = file_lines(std::string(SHADERBAKE_SOURCE_DIR) + "/tests/schema/valid_records.jsonl");
  ASSERT_GE(records.size(), 5u);
  std::string text;
  for (const std::string& r : records) text += r + "\n";
  Ingest in;
  ASSERT_TRUE(in.read(text));
  EXPECT_TRUE(in.sink.entries.empty()) << in.sink.entries[0].error.to_string();
  EXPECT_EQ(in.reader.files().back().records, records.size());
  EXPECT_EQ(in.reader.files().back().states, 2u);
  EXPECT_EQ(in.census.counts().draws, 3u);
}

TEST(TraceReaderSchema, every_record_the_schema_refuses_is_a_bad_record) {
  // tests/schema/invalid_records.jsonl: the schema validator refuses every record of it
  // (ctest schema_trace_rejects_invalid_records). Each is read after a capture record, and a draw also after
  // a good state "s1" it may name (a capture record of the file is read first, in place of that capture).
  const std::vector<std::string> records = file_lines(std::string(SHADERBAKE_SOURCE_DIR) + "/tests/schema/invalid_records.jsonl");
  ASSERT_GE(records.size(), 20u);
  for (const std::string& record : records) {
    SCOPED_TRACE(record.substr(0, 120));
    const bool is_capture = record.find(R"("type":"capture")") != std::string::npos;
    const bool is_draw = record.find(R"("type":"draw")") != std::string::npos;
    Ingest in;
    ASSERT_TRUE(in.read(is_capture ? lines({record, state("good", program(), host())})
                        : is_draw  ? lines({kCapture, state("s1", program(), host()), record})
                                   : lines({kCapture, record})));
    uint64_t bad = 0;
    for (const auto& [reason, count] : in.reader.bad_records()) bad += count;
    EXPECT_EQ(bad, 1u);
    if (is_capture) {
      EXPECT_FALSE(in.reader.files().back().readable);
    } else {
      EXPECT_EQ(in.reader.files().back().states, is_draw ? 1u : 0u);
      EXPECT_EQ(in.bad("duplicate_state_id"), 0u) << "the record must be refused for what the schema refuses";
      EXPECT_EQ(in.bad("unknown_state"), 0u) << "the record must be refused for what the schema refuses";
    }
  }
}

}  // namespace
