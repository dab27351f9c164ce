// SPDX-License-Identifier: MIT
// Trace ingest (schemas/trace.md): both record shapes, both file forms, and every kind of bad input, each
// reported with file, line, column and field, skipped, and counted, without losing the good records.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "lib/core/content_digest.hpp"
#include "tests/trace_records.hpp"

namespace {

using namespace shaderbake;
using namespace shaderbake::test;

TEST(TraceReader, state_references_and_inline_draws_meet_in_the_same_keys) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"), draw(1, 1, "s1"),
                             inline_draw(2, 0, program(), host()), draw(3, 0, "s1")})));
  const auto c = in.census.counts();
  EXPECT_EQ(c.draws, 4u);
  EXPECT_EQ(c.frames, 3u);
  EXPECT_EQ(c.unique_exact_keys, 1u);
  EXPECT_EQ(c.unique_fallback_families, 1u);
  EXPECT_EQ(c.unique_pipeline_keys, 1u);
  EXPECT_EQ(c.unique_fallback_pipeline_keys, 1u);
  EXPECT_TRUE(c.bad_records.empty());
  EXPECT_TRUE(in.sink.entries.empty());
}

TEST(TraceReader, dynamic_values_ignored_words_and_disabled_modes_never_make_a_new_key) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture,
                             inline_draw(1, 0, program(), host()),
                             inline_draw(1, 1, program("0x04200000", "0xDEADBEEF"), host()),  // word past the stage count
                             inline_draw(1, 2, program("0x04200000", "0x00000000", "cube"), host()),  // disabled stage
                             inline_draw(1, 3, program(), host(), R"({"c0":["0x12345678"],"final_c1":"0xFFFFFFFF","alpha_ref":255})"),
                             // The same objects spelt with other whitespace and field order.
                             R"({ "draw": 4, "frame": 1, "type": "draw", "host": )" + host() + R"(, "program" : )" + program() + " }"})));
  const auto c = in.census.counts();
  EXPECT_EQ(c.draws, 5u);
  EXPECT_EQ(c.unique_exact_keys, 1u);
  EXPECT_EQ(c.unique_pipeline_keys, 1u);
}

TEST(TraceReader, every_spelling_the_format_allows_reads_to_the_same_key) {
  // Words as integers or 0X/0x hex of any case and length, texture modes as codes, optional fields left out
  // (their defaults), host defaults spelt out: one program, one host, one key each.
  const std::string spelt_out = R"({"combiner_control":1,"rgb_inputs":[69206016,0],"rgb_outputs":["0XC0"],)"
                                R"("alpha_inputs":["0x18140000"],"alpha_outputs":["0x000000c0"],"final_inputs":[12,"0x1c00"],)"
                                R"("texture_modes":[1,0,0,"none"],"texture_enabled":[true,false,false,false],)"
                                R"("alpha_test":{"enabled":false}})";
  const std::string host_defaults = R"({"topology":"triangle_list","polygon_mode":"fill","cull_mode":"back",)"
                                    R"("front_face":"counter_clockwise","samples":1,"dynamic_states":["viewport","scissor"],)"
                                    R"("stencil":{"test":false},"blend":[{"enable":false,"write_mask":"rgba"}],)"
                                    R"("depth":{"test":true,"write":true,"compare":"less_or_equal"},)"
                                    R"("color_formats":["r8g8b8a8_unorm"],"depth_format":"d24_unorm_s8_uint",)"
                                    R"("vertex":{"bindings":[{"binding":0,"stride":24}],)"
                                    R"("attributes":[{"semantic":"texcoord0","binding":0,"format":"r32g32_sfloat","offset":16},)"
                                    R"({"semantic":"position","binding":0,"format":"r32g32b32a32_sfloat","offset":0}]}})";
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, inline_draw(1, 0, program(), host()), inline_draw(1, 1, spelt_out, host_defaults)})));
  EXPECT_TRUE(in.sink.entries.empty()) << in.sink.entries[0].error.to_string();
  const auto c = in.census.counts();
  EXPECT_EQ(c.draws, 2u);
  EXPECT_EQ(c.unique_exact_keys, 1u);
  EXPECT_EQ(c.unique_pipeline_keys, 1u);
}

TEST(TraceReader, static_fields_and_host_state_make_new_keys) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, inline_draw(1, 0, program(), host()),
                             inline_draw(1, 1, program("0x04210000"), host()),  // another register
                             inline_draw(1, 2, program(), host("front"))})));   // another cull mode
  const auto c = in.census.counts();
  EXPECT_EQ(c.unique_exact_keys, 2u);
  EXPECT_EQ(c.unique_fallback_families, 1u);  // same samplers
  EXPECT_EQ(c.unique_pipeline_keys, 3u);
  EXPECT_EQ(c.unique_fallback_pipeline_keys, 2u);  // family x {back, front}
}

TEST(TraceReader, admission_is_counted_per_trace_and_rejected_programs_get_no_fallback) {
  Ingest in;
  // Register 6 in stage 0's input A: a valid record (any 32-bit word is), but an invalid program.
  ASSERT_TRUE(in.read(lines({kCapture, inline_draw(1, 0, program(), host()),
                             inline_draw(1, 1, program("0x06200000"), host()),
                             inline_draw(1, 2, program("0x06200000"), host("front"))})));
  const auto c = in.census.counts();
  EXPECT_EQ(c.unique_exact_keys, 2u);
  EXPECT_EQ(c.admission.admitted_exact_keys, 1u);
  EXPECT_EQ(c.admission.rejections, (std::map<std::string, uint64_t>{{"invalid_register", 1}}));
  EXPECT_EQ(c.unique_pipeline_keys, 3u);           // every program keeps its exact route
  EXPECT_EQ(c.unique_fallback_pipeline_keys, 1u);  // only the admitted one has a fallback route
  ASSERT_EQ(c.admission_per_file.size(), 1u);
  EXPECT_EQ(c.admission_per_file[0].admitted_exact_keys, 1u);
}

TEST(TraceReader, programs_that_differ_only_in_a_dead_stage_share_one_generated_source) {
  // Two stages; stage 1 writes r1, which nothing reads afterwards: its words change the key, not the shader.
  auto two_stage = [](const std::string& dead_rgb_input) {
    return R"({"combiner_control":"0x00000002","rgb_inputs":["0x04200000",")" + dead_rgb_input +
           R"("],"rgb_outputs":["0x000000C0","0x000000D0"],"alpha_inputs":["0x18140000","0x00000000"],)"
           R"("alpha_outputs":["0x000000C0","0x00000000"],"final_inputs":["0x0000000C","0x00001C00"],)"
           R"("texture_modes":["project2d","none","none","none"],"texture_enabled":[true,false,false,false]})";
  };
  CollectingSink sink;
  nv2a::Nv2aGuestModel model;
  trace::TraceReader reader(model, {}, sink);
  plan::KeyCensus census(reader, plan::KeyCensus::Sources::count);
  ASSERT_TRUE(reader.read_text("t.jsonl", lines({kCapture, inline_draw(1, 0, two_stage("0x04050000"), host()),
                                                 inline_draw(1, 1, two_stage("0x08090000"), host()),
                                                 // The one-stage program with the same live stage: same shader too.
                                                 inline_draw(1, 2, program(), host()),
                                                 inline_draw(1, 3, program("0x04210000"), host())}),
                               false, census));
  const auto c = census.counts();
  EXPECT_EQ(c.unique_exact_keys, 4u);
  EXPECT_EQ(c.unique_sources, 2u);
  EXPECT_EQ(c.source_failures, 0u);
}

TEST(TraceReader, reads_the_texture_shader_fields_and_keys_them_where_a_mode_reads_them) {
  // Stage 1 bump-env reading stage 0, stage 2 clipplane: the clip word and stage 0's texel controls count,
  // a dot mapping (no stage runs a dot mode) does not; dynamic bump-env values never do.
  auto textured = [](const std::string& extra) {
    return R"({"combiner_control":"0x00000001","rgb_inputs":["0x04200000"],"rgb_outputs":["0x000000C0"],)"
           R"("alpha_inputs":["0x18140000"],"alpha_outputs":["0x000000C0"],"final_inputs":["0x0000000C","0x00001C00"],)"
           R"("texture_modes":["project2d","bumpenvmap","clipplane","none"],"texture_enabled":[true,true,true,false])" +
           extra + "}";
  };
  const std::string base = textured(R"(,"clip_plane_mode":"0x00000300","texture_signed":["gb","","",""])");
  Ingest in;
  ASSERT_TRUE(in.read(lines(
      {kCapture, inline_draw(1, 0, base, host()),
       inline_draw(1, 1, textured(R"(,"clip_plane_mode":768,"texture_signed":["bg","","",""],"dot_rgb_mapping":"0x777")"),
                   host(), R"({"bump_env":[{},{"matrix":[0.5,0,0,"0x3F000000"],"scale":1,"offset":0},{},{}]})"),
       inline_draw(1, 2, textured(R"(,"clip_plane_mode":"0x00000100","texture_signed":["gb","","",""])"), host()),
       inline_draw(1, 3, textured(R"(,"clip_plane_mode":"0x00000300","texture_signed":["gb","","",""],)"
                                  R"("texture_control":[{"alpha_kill":true},{},{},{}])"), host()),
       inline_draw(1, 4, textured(R"(,"clip_plane_mode":"0x00000300","texture_signed":["gb","","",""],)"
                                  R"("texture_formats":["xrgb8","argb8","argb8","argb8"])"), host())})));
  EXPECT_TRUE(in.sink.entries.empty()) << in.sink.entries[0].error.to_string();
  const auto c = in.census.counts();
  EXPECT_EQ(c.draws, 5u);
  EXPECT_EQ(c.unique_exact_keys, 4u);  // draws 0 and 1 share a key; the clip nibble, alpha kill and format do not
}

struct BadCase {
  const char* name;
  std::string record;
  const char* reason;
  const char* pointer;      // expected JSON pointer ("" = none expected)
  const char* column_at;    // the error's column is where this text starts in the record (nullptr: column 1)
};

std::vector<BadCase> bad_cases() {
  std::string long_word = program();
  long_word.replace(long_word.find("0x04200000"), 10, "0x104200000");
  std::string negative = program();
  negative.replace(negative.find("\"0x04200000\""), 12, "-5");
  std::string unknown_field = program();
  unknown_field.insert(1, R"("combiner_contrl":"0x1",)");
  std::string short_stages = program();
  short_stages.replace(short_stages.find("\"0x00000001\""), 12, "\"0x00000003\"");
  auto with_field = [](const std::string& field) {
    std::string p = program();
    p.insert(1, field + ",");
    return p;
  };
  return {
      {"malformed json", R"({"type":"draw","frame":1,"draw":2,"state":"s1",,})", "malformed_json", "", ",}"},
      {"unknown record type", R"({"type":"drew","frame":1,"draw":2,"state":"s1"})", "unknown_record_type", "/type", "\"drew\""},
      {"missing frame", R"({"type":"draw","draw":2,"state":"s1"})", "missing_field", "/frame", nullptr},
      {"frame of the wrong type", R"({"type":"draw","frame":"one","draw":2,"state":"s1"})", "wrong_type", "/frame", "\"one\""},
      {"negative draw index", R"({"type":"draw","frame":1,"draw":-2,"state":"s1"})", "out_of_range", "/draw", "-2"},
      {"unknown state", R"({"type":"draw","frame":1,"draw":2,"state":"s404"})", "unknown_state", "/state", "\"s404\""},
      {"word out of range", inline_draw(1, 2, long_word, host()), "out_of_range", "/program/rgb_inputs/0", "\"0x104200000\""},
      {"negative word", inline_draw(1, 2, negative, host()), "out_of_range", "/program/rgb_inputs/0", "-5"},
      {"unknown field in a program", inline_draw(1, 2, unknown_field, host()), "unknown_field", "/program/combiner_contrl", "\"combiner_contrl\""},
      {"fewer stage words than stages", inline_draw(1, 2, short_stages, host()), "missing_field", "/program/rgb_inputs", "[\"0x04200000\""},
      {"unknown cull mode", inline_draw(1, 2, program(), host("backside")), "unknown_name", "/host/cull_mode", "\"backside\""},
      {"unknown colour-key mode", inline_draw(1, 2, with_field(R"("texture_control":[{},{},{"color_key":"kill"},{}])"), host()),
       "unknown_name", "/program/texture_control/2/color_key", "\"kill\""},
      {"colour-key code out of range", inline_draw(1, 2, with_field(R"("texture_control":[{"color_key":4},{},{},{}])"), host()),
       "out_of_range", "/program/texture_control/0/color_key", "4}"},
      {"a signed channel twice", inline_draw(1, 2, with_field(R"("texture_signed":["","gg","",""])"), host()),
       "bad_value", "/program/texture_signed/1", "\"gg\""},
      {"unknown texture format", inline_draw(1, 2, with_field(R"("texture_formats":["argb8","rgb565","argb8","argb8"])"), host()),
       "unknown_name", "/program/texture_formats/1", "\"rgb565\""},
      {"three texture controls", inline_draw(1, 2, with_field(R"("texture_control":[{},{},{}])"), host()),
       "out_of_range", "/program/texture_control", "[{},{},{}]"},
      {"a bump-env matrix of three words",
       inline_draw(1, 2, program(), host(), R"({"bump_env":[{},{"matrix":[1,0,0]},{},{}]})"),
       "out_of_range", "/dynamic/bump_env/1/matrix", "[1,0,0]"},
      {"an eye vector past float range", inline_draw(1, 2, program(), host(), R"({"eye_vector":[0,1e39,0]})"),
       "out_of_range", "/dynamic/eye_vector/1", "1e39"},
      {"state and program together", R"({"type":"draw","frame":1,"draw":2,"state":"s1","program":)" + program() + R"(,"host":)" + host() + "}",
       "conflicting_fields", "/state", "\"s1\""},
      {"duplicate state id", state("s1", program(), host()), "duplicate_state_id", "/id", "\"s1\""},
      {"trailing garbage", draw(1, 2, "s1") + " x", "malformed_json", "", "x"},
      {"second capture record", kCapture, "duplicate_capture", "/type", nullptr},
      {"a record that is not an object", "[1,2,3]", "wrong_type", "", nullptr},
  };
}

TEST(TraceReader, every_bad_record_is_located_counted_and_skipped_without_losing_its_neighbours) {
  for (const BadCase& bad : bad_cases()) {
    SCOPED_TRACE(bad.name);
    Ingest in;
    const std::string text = lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"), bad.record, draw(1, 1, "s1")});
    ASSERT_TRUE(in.read(text));
    EXPECT_EQ(in.bad(bad.reason), 1u);
    EXPECT_EQ(in.census.counts().draws, 2u) << "the good draws around the bad record must survive";
    ASSERT_EQ(in.sink.entries.size(), 1u);
    const Error& e = in.sink.entries[0].error;
    EXPECT_EQ(in.sink.entries[0].severity, Severity::warning);
    EXPECT_EQ(e.reason, bad.reason) << e.to_string();
    EXPECT_EQ(e.where.file, "test.jsonl");
    EXPECT_EQ(e.where.line, 4u) << e.to_string();
    EXPECT_EQ(e.where.json_pointer, bad.pointer) << e.to_string();
    const size_t expected_column = bad.column_at ? bad.record.find(bad.column_at) + 1 : 1;
    ASSERT_NE(expected_column, std::string::npos + 1) << "test bug: marker not in record";
    EXPECT_EQ(e.where.column, expected_column) << e.to_string();
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(TraceReader, a_draw_of_a_rejected_state_is_counted_as_such) {
  Ingest in;
  ASSERT_TRUE(in.read(lines({kCapture, state("bad", program(), host("sideways")), draw(1, 0, "bad"), draw(1, 1, "bad")})));
  EXPECT_EQ(in.bad("unknown_name"), 1u);
  EXPECT_EQ(in.bad("state_rejected"), 2u);
  EXPECT_EQ(in.census.counts().draws, 0u);
}

TEST(TraceReader, crlf_line_ends_blank_lines_and_a_byte_order_mark_are_accepted) {
  Ingest in;
  const std::string text = "\xEF\xBB\xBF" + kCapture + "\r\n\r\n" + state("s1", program(), host()) + "\r\n   \n" +
                           draw(1, 0, "s1") + "\r\n";
  ASSERT_TRUE(in.read(text));
  EXPECT_EQ(in.census.counts().draws, 1u);
  EXPECT_TRUE(in.reader.bad_records().empty());
  Ingest doc;
  ASSERT_TRUE(doc.read("\xEF\xBB\xBF{\"records\": [" + kCapture + "," + state("s1", program(), host()) + "," + draw(1, 0, "s1") + "]}", true));
  EXPECT_EQ(doc.census.counts().draws, 1u);
}

TEST(TraceReader, a_cut_off_last_line_is_a_truncated_record) {
  Ingest in;
  std::string cut = draw(1, 1, "s1");
  cut.resize(cut.size() - 6);
  ASSERT_TRUE(in.read(lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"), cut}, false)));
  EXPECT_EQ(in.bad("truncated_record"), 1u);
  EXPECT_EQ(in.census.counts().draws, 1u);
  // A complete last line without its newline is fine.
  Ingest whole;
  ASSERT_TRUE(whole.read(lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1")}, false)));
  EXPECT_EQ(whole.census.counts().draws, 1u);
  EXPECT_TRUE(whole.reader.bad_records().empty());
}

TEST(TraceReader, a_file_without_a_usable_capture_record_is_refused_whole) {
  struct FileCase {
    std::string first;
    const char* reason;
  };
  const std::vector<FileCase> cases = {
      {draw(1, 0, "s1"), "missing_capture"},
      {R"({"type":"capture","format":"shaderbake-trace/1","guest":"gamecube"})", "wrong_guest"},
      {R"({"type":"capture","format":"shaderbake-trace/9","guest":"nv2a"})", "unsupported_format"},
      {R"({"type":"capture","guest":"nv2a"})", "missing_field"},
  };
  for (const FileCase& fc : cases) {
    SCOPED_TRACE(fc.reason);
    Ingest in;
    EXPECT_TRUE(in.read(lines({fc.first, state("s1", program(), host()), draw(1, 0, "s1")})));
    EXPECT_EQ(in.bad(fc.reason), 1u);
    EXPECT_FALSE(in.reader.files().back().readable);
    EXPECT_EQ(in.census.counts().draws, 0u);
    ASSERT_EQ(in.sink.entries.size(), 1u);
    EXPECT_EQ(in.sink.entries[0].severity, Severity::error);
  }
}

TEST(TraceReader, strict_mode_stops_at_the_first_bad_record) {
  Ingest in(true);
  const Status s = in.read(lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"),
                                  R"({"type":"draw","frame":1,"draw":2,"state":"nope"})", draw(1, 1, "s1")}));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().reason, "unknown_state");
  EXPECT_EQ(s.error().where.line, 4u);
  EXPECT_EQ(in.census.counts().draws, 1u);
}

TEST(TraceReader, document_form_reads_like_json_lines_and_locates_errors_by_line) {
  const std::string doc = "{\"records\": [\n  " + kCapture + ",\n  " + state("s1", program(), host()) + ",\n  " +
                          draw(1, 0, "s1") + ",\n  " + R"({"type":"draw","frame":1,"draw":1,"state":"s2"})" + ",\n  " +
                          inline_draw(2, 0, program(), host()) + "\n]}\n";
  Ingest in;
  ASSERT_TRUE(in.read(doc, true));
  const auto c = in.census.counts();
  EXPECT_EQ(c.draws, 2u);
  EXPECT_EQ(c.unique_exact_keys, 1u);
  ASSERT_EQ(in.sink.entries.size(), 1u);
  EXPECT_EQ(in.sink.entries[0].error.reason, "unknown_state");
  EXPECT_EQ(in.sink.entries[0].error.where.line, 5u);
  EXPECT_EQ(in.sink.entries[0].error.where.column, 3u + std::string(R"({"type":"draw","frame":1,"draw":1,"state":)").size());
}

TEST(TraceReader, memory_grows_with_unique_states_not_with_draws) {
  auto stored = [](int draws) {
    std::string text = lines({kCapture, state("s1", program(), host())});
    for (int i = 0; i < draws; ++i)
      text += (i % 2 ? draw(i / 100, i % 100, "s1") : inline_draw(i / 100, i % 100, program(), host())) + "\n";
    Ingest in;
    EXPECT_TRUE(in.read(text));
    EXPECT_EQ(in.census.counts().draws, static_cast<uint64_t>(draws));
    return in.reader.exact_keys().stored_bytes() + in.reader.host_states().stored_bytes() +
           in.census.pipeline_keys().stored_bytes();
  };
  EXPECT_EQ(stored(1000), stored(20000));
}

TEST(TraceReader, streaming_from_a_file_across_chunk_boundaries_matches_reading_from_memory) {
  // Several MiB so that lines straddle the reader's 4 MiB chunks, plus one line longer than a chunk.
  std::string text = lines({kCapture, state("s1", program(), host()), state("s2", program("0x04210000"), host("none"))});
  const std::string huge_note(5 << 20, 'n');
  for (int i = 0; i < 60000; ++i) {
    if (i == 30000) text += R"({"type":"draw","frame":300,"draw":0,"state":"s1","note":")" + huge_note + "\"}\n";
    text += (i % 3 == 0 ? inline_draw(i / 100, i % 100, program(), host("front")) : draw(i / 100, i % 100, i % 3 == 1 ? "s1" : "s2")) + "\n";
  }
  const auto path = std::filesystem::temp_directory_path() / ("shaderbake_stream_test_" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  // From a file twice: mapped in windows (the default), and read in chunks (as a reader taking digests does).
  Ingest from_file, chunked(false, true), from_memory;
  ASSERT_TRUE(from_file.reader.read_file(path.string(), from_file.census));
  ASSERT_TRUE(chunked.reader.read_file(path.string(), chunked.census));
  ASSERT_TRUE(from_memory.read(text));
  std::filesystem::remove(path);
  const auto a = from_file.census.counts(), b = from_memory.census.counts(), c = chunked.census.counts();
  EXPECT_EQ(a.draws, 60001u);
  EXPECT_EQ(a.draws, b.draws);
  EXPECT_EQ(c.draws, b.draws);
  EXPECT_EQ(a.frames, b.frames);
  EXPECT_EQ(c.frames, b.frames);
  EXPECT_EQ(a.unique_exact_keys, 2u);
  EXPECT_EQ(a.unique_pipeline_keys, 3u);
  EXPECT_EQ(a.unique_pipeline_keys, b.unique_pipeline_keys);
  EXPECT_EQ(c.unique_pipeline_keys, b.unique_pipeline_keys);
  EXPECT_TRUE(from_file.reader.bad_records().empty());
  EXPECT_TRUE(chunked.reader.bad_records().empty());
  // The digest the build memo confirms a trace with covers every byte, across the reader's 4 MiB chunks.
  ContentHasher whole;
  whole.update(text.data(), text.size());
  EXPECT_EQ(chunked.reader.files()[0].content_bytes, text.size());
  EXPECT_EQ(chunked.reader.files()[0].content_digest, whole.finish());
}

TEST(TraceReader, every_way_of_reading_a_file_digests_exactly_its_bytes) {
  const std::string text = lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1"), draw(1, 1, "s1")});
  const std::string document = R"({"records": [)" + std::string(kCapture) + "," + state("s1", program(), host()) +
                               "," + draw(1, 0, "s1") + "]}";
  ContentHasher text_hasher, document_hasher;
  text_hasher.update(text.data(), text.size());
  document_hasher.update(document.data(), document.size());
  const ContentDigest text_digest = text_hasher.finish(), document_digest = document_hasher.finish();
  const auto dir = std::filesystem::temp_directory_path() / ("shaderbake_digest_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.jsonl", std::ios::binary) << text;
  std::ofstream(dir / "t.json", std::ios::binary) << document;
  ASSERT_EQ(::mkfifo((dir / "pipe.jsonl").c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(dir / "pipe.jsonl", std::ios::binary) << text; });

  Ingest in(false, true);
  const Status regular = in.reader.read_file((dir / "t.jsonl").string(), in.census);  // a file, in chunks
  const Status pipe = in.reader.read_file((dir / "pipe.jsonl").string(), in.census);  // a stream
  const Status as_document = in.reader.read_file((dir / "t.json").string(), in.census);  // the document form
  writer.join();
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(regular && pipe && as_document);
  ASSERT_EQ(in.reader.files().size(), 3u);
  EXPECT_EQ(in.reader.files()[0].content_digest, text_digest);
  EXPECT_EQ(in.reader.files()[1].content_digest, text_digest);
  EXPECT_EQ(in.reader.files()[2].content_digest, document_digest);
  EXPECT_EQ(in.reader.files()[0].content_bytes, text.size());
  EXPECT_EQ(in.reader.files()[1].content_bytes, text.size());
  EXPECT_EQ(in.reader.files()[2].content_bytes, document.size());
  EXPECT_EQ(in.census.counts().draws, 5u);
}

TEST(TraceReader, an_unreadable_file_is_an_io_error_and_other_files_still_count) {
  Ingest in;
  const Status s = in.reader.read_file("/nonexistent/trace.jsonl", in.census);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::io);
  EXPECT_TRUE(in.read(lines({kCapture, state("s1", program(), host()), draw(1, 0, "s1")})));
  EXPECT_EQ(in.census.counts().draws, 1u);
}

}  // namespace
