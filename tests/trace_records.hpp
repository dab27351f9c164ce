// SPDX-License-Identifier: MIT
#pragma once
// Records of the trace format for the trace reader's tests: one good capture, program, host, state and draw
// each (arguments vary one field), and a reader wired to a census and a sink that keeps every diagnostic.

#include <initializer_list>
#include <string>
#include <vector>

#include "guests/nv2a/nv2a_guest.hpp"
#include "lib/core/diagnostics.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::test {

inline const std::string kCapture = R"({"type":"capture","format":"shaderbake-trace/1","guest":"nv2a","title":"test"})";

inline std::string program(const std::string& rgb_in0 = "0x04200000", const std::string& extra_stage_word = "0x00000000",
                           const std::string& disabled_mode = "none") {
  return R"({"combiner_control":"0x00000001","rgb_inputs":[")" + rgb_in0 + R"(",")" + extra_stage_word +
         R"("],"rgb_outputs":["0x000000C0"],"alpha_inputs":["0x18140000"],"alpha_outputs":["0x000000C0"],)"
         R"("final_inputs":["0x0000000C","0x00001C00"],"texture_modes":["project2d",")" + disabled_mode +
         R"(","none","none"],"texture_enabled":[true,false,false,false],"alpha_test":{"enabled":false,"func":"always"}})";
}

inline std::string host(const std::string& cull = "back") {
  return R"({"cull_mode":")" + cull + R"(","depth":{"test":true,"write":true,"compare":"less_or_equal"},)"
         R"("color_formats":["r8g8b8a8_unorm"],"depth_format":"d24_unorm_s8_uint",)"
         R"("vertex":{"bindings":[{"binding":0,"stride":24,"rate":"vertex"}],)"
         R"("attributes":[{"semantic":"position","binding":0,"format":"r32g32b32a32_sfloat","offset":0},)"
         R"({"semantic":"texcoord0","binding":0,"format":"r32g32_sfloat","offset":16}]}})";
}

inline std::string state(const std::string& id, const std::string& prog, const std::string& h,
                         const std::string& dynamic = R"({"c0":["0xFF808080"],"alpha_ref":10})") {
  return R"({"type":"state","id":")" + id + R"(","program":)" + prog + R"(,"host":)" + h + R"(,"dynamic":)" + dynamic + "}";
}

inline std::string draw(int frame, int index, const std::string& state_id) {
  return R"({"type":"draw","frame":)" + std::to_string(frame) + R"(,"draw":)" + std::to_string(index) +
         R"(,"state":")" + state_id + R"("})";
}

inline std::string inline_draw(int frame, int index, const std::string& prog, const std::string& h,
                               const std::string& dynamic = R"({"fog_color":"0xFF000000"})") {
  return R"({"type":"draw","frame":)" + std::to_string(frame) + R"(,"draw":)" + std::to_string(index) +
         R"(,"program":)" + prog + R"(,"host":)" + h + R"(,"dynamic":)" + dynamic + "}";
}

inline std::string lines(std::initializer_list<std::string> records, bool final_newline = true) {
  std::string out;
  for (const std::string& r : records) out += r + "\n";
  if (!final_newline) out.pop_back();
  return out;
}

struct Ingest {
  explicit Ingest(bool strict = false, bool digest = false) : Ingest(options(strict, digest)) {}
  explicit Ingest(const trace::ReaderOptions& reader_options) : reader(model, reader_options, sink), census(reader) {}
  static trace::ReaderOptions options(bool strict, bool digest) {
    trace::ReaderOptions o;
    o.strict = strict;
    o.digest_content = digest;
    return o;
  }
  Status read(const std::string& text, bool document_form = false) {
    return reader.read_text("test.jsonl", text, document_form, census);
  }
  uint64_t bad(const std::string& reason) const {
    auto all = reader.bad_records();
    auto it = all.find(reason);
    return it == all.end() ? 0 : it->second;
  }
  CollectingSink sink;
  nv2a::Nv2aGuestModel model;
  trace::TraceReader reader;
  plan::KeyCensus census;
};

}  // namespace shaderbake::test

namespace shaderbake::test {

// Keeps every draw handed on (frame and draw numbers as read).
class DrawLog final : public trace::DrawConsumer {
 public:
  void on_draw(const trace::DrawEvent& draw) override { draws.push_back(draw); }
  std::vector<trace::DrawEvent> draws;
};

}  // namespace shaderbake::test
