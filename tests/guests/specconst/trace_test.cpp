// SPDX-License-Identifier: MIT
// The specconst guest reading traces: programs that name shader files relative to their trace, values checked
// against what each module declares, and every kind of bad value a located, counted bad record that leaves the
// records around it alone. The exact key's own rules are keys_test.cpp's; here they are held through the JSON
// a capture tool writes (a constant at its default and an omitted one, a constant the shader never reads).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "guests/specconst/specconst_guest.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/compile/glslang_frontend.hpp"
#include "lib/compile/spirv_tools.hpp"
#include "lib/trace/trace_reader.hpp"
#include "tests/temp_dir.hpp"

namespace {

using namespace shaderbake;
namespace fs = std::filesystem;

const fs::path kSamples = fs::path(SHADERBAKE_SOURCE_DIR) / "samples/specconst/shaders";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

struct Draws final : trace::DrawConsumer {
  std::vector<trace::DrawEvent> events;
  void on_draw(const trace::DrawEvent& e) override { events.push_back(e); }
};

// A trace of `records` (after the capture record) read from `dir`/trace.jsonl.
struct Read {
  specconst::SpecconstGuest model;
  CollectingSink sink;
  trace::TraceReader reader{model, {}, sink};
  Draws draws;
  Read(const fs::path& dir, const std::vector<std::string>& records) {
    std::string text = R"({"type":"capture","format":"shaderbake-trace/2","guest":"specconst"})" "\n";
    for (const std::string& r : records) text += r + "\n";
    write(dir / "trace.jsonl", text);
    EXPECT_TRUE(reader.read_file((dir / "trace.jsonl").string(), draws).ok());
  }
  std::span<const uint8_t> key_of_draw(size_t i) const { return reader.exact_keys().bytes(draws.events.at(i).program); }
  std::map<std::string, uint64_t> bad() const { return reader.files().back().bad_records; }
};

// A host state with the mesh vertex layout the lighting samples read.
const char* kHost =
    R"({"topology":"triangle_list","color_formats":["r8g8b8a8_unorm"],"vertex":{"bindings":[{"binding":0,"stride":32,"rate":"vertex"}],)"
    R"("attributes":[{"location":0,"binding":0,"format":"r32g32b32_sfloat","offset":0},{"location":1,"binding":0,"format":"r32g32b32_sfloat","offset":12},)"
    R"({"location":2,"binding":0,"format":"r32g32_sfloat","offset":24}]}})";

std::string draw(int n, const std::string& vertex_constants, const std::string& fragment_constants,
                 const std::string& fragment = "shaders/lighting.frag", const std::string& vertex = "shaders/mesh.vert") {
  return R"({"type":"draw","frame":1,"draw":)" + std::to_string(n) + R"(,"program":{"vertex":{"shader":")" + vertex +
         R"(","constants":{)" + vertex_constants + R"(}},"fragment":{"shader":")" + fragment + R"(","constants":{)" +
         fragment_constants + R"(}}},"host":)" + kHost + "}";
}

// The sample shaders copied under `dir`/shaders.
void copy_samples(const fs::path& dir) {
  fs::create_directories(dir / "shaders");
  for (const char* name : {"lighting.frag", "mesh.vert", "tonemap.frag", "fullscreen.vert", "blur.comp"})
    fs::copy_file(kSamples / name, dir / "shaders" / name);
}

TEST(SpecconstTrace, values_enter_the_key_as_the_module_declares_them) {
  test_support::TempDir dir("specconst_trace");
  copy_samples(dir.path());
  Read r(dir.path(), {
                         draw(0, "", ""),                                  // every constant at its default
                         draw(1, R"("0":false,"1":0.05)", R"("0":1,"1":true,"2":false,"3":32,"4":4)"),  // the defaults, written
                         draw(2, "", R"("5":true)"),                       // kDebugTint: declared, read by nothing
                         draw(3, "", R"("0":2)"),                          // kQuality
                         draw(4, "", R"("3":32.5)"),                       // kSpecularPower
                         draw(5, R"("0":true)", ""),                       // kWindSway, a vertex constant
                         draw(6, "", R"("4":4.0)"),                        // an integer written with a zero fraction
                         draw(7, "", R"("3":3.2e1)"),                      // 32 with an exponent
                         draw(8, "", R"("3":3.4028235e38)"),               // FLT_MAX, as inspect prints it
                     });
  ASSERT_EQ(r.draws.events.size(), 9u) << (r.sink.entries.empty() ? "" : r.sink.entries[0].error.to_string());
  EXPECT_TRUE(r.bad().empty());
  const auto base = r.key_of_draw(0);
  EXPECT_TRUE(std::ranges::equal(base, r.key_of_draw(1))) << "a value given at its default is no value";
  EXPECT_TRUE(std::ranges::equal(base, r.key_of_draw(2))) << "a constant no instruction reads is in no key";
  EXPECT_TRUE(std::ranges::equal(base, r.key_of_draw(6)));
  EXPECT_TRUE(std::ranges::equal(base, r.key_of_draw(7)));
  for (size_t i : {3u, 4u, 5u, 8u}) EXPECT_FALSE(std::ranges::equal(base, r.key_of_draw(i))) << "draw " << i;
  EXPECT_EQ(r.reader.exact_keys().size(), 5u);
  // Both stages' modules are in one family: the same modules, whatever the values.
  EXPECT_EQ(r.reader.family_keys().size(), 1u);
}

TEST(SpecconstTrace, each_bad_value_or_shader_is_a_located_counted_record_and_the_good_ones_stay) {
  test_support::TempDir dir("specconst_trace");
  copy_samples(dir.path());
  write(dir.path() / "shaders/broken.frag", "#version 450\nvoid main() { undefined_call(); }\n");
  write(dir.path() / "shaders/garbage.spv", std::string("\x03\x02\x23\x07\x00\x00\x01\x00", 8) + "not a module");
  struct Case {
    std::string record;
    const char* reason;
    const char* pointer;
  };
  const std::vector<Case> bad = {
      {draw(1, "", R"("0":1.5)"), "constant_type", "/program/fragment/constants/0"},     // int given a fraction
      {draw(2, "", R"("0":2147483648)"), "constant_type", "/program/fragment/constants/0"},  // past int32
      {draw(3, "", R"("4":-1)"), "constant_type", "/program/fragment/constants/4"},      // uint given a negative
      {draw(4, "", R"("1":1)"), "constant_type", "/program/fragment/constants/1"},       // bool given a number
      {draw(5, "", R"("3":true)"), "constant_type", "/program/fragment/constants/3"},    // float given a bool
      {draw(6, "", R"("3":1e39)"), "constant_type", "/program/fragment/constants/3"},    // past float's range
      {draw(7, "", R"("3":"32")"), "wrong_type", "/program/fragment/constants/3"},       // a string
      {draw(8, "", R"("9":1)"), "unknown_constant", "/program/fragment/constants/9"},
      {draw(9, "", R"("x":1)"), "unknown_constant", "/program/fragment/constants/x"},
      {draw(10, "", "", "shaders/missing.frag"), "shader_not_found", "/program/fragment/shader"},
      {draw(11, "", "", "shaders/broken.frag"), "shader_compile_failed", "/program/fragment/shader"},
      {draw(12, "", "", "shaders/garbage.spv"), "shader_compile_failed", "/program/fragment/shader"},
      {draw(13, "", "", "shaders/mesh.vert"), "shader_compile_failed", "/program/fragment/shader"},  // not a fragment shader
      {R"({"type":"draw","frame":1,"draw":14,"program":{"vertex":{"shader":"shaders/mesh.vert"},"fragment":{"shader":"shaders/lighting.frag","entry":"PSMain"}},"host":)" +
           std::string(kHost) + "}",
       "shader_compile_failed", "/program/fragment/shader"},  // an entry point other than main
      {draw(16, "", R"("3":3.5e38)"), "constant_type", "/program/fragment/constants/3"},  // past FLT_MAX
  };
  std::vector<std::string> records = {draw(0, "", "")};
  for (const Case& c : bad) records.push_back(c.record);
  records.push_back(draw(99, "", R"("0":2)"));
  records.push_back(R"({"type":"draw","frame":1,"draw":100,"program":{"fragment":{"shader":"shaders/lighting.frag"}},"host":)" +
                    std::string(kHost) + "}");
  records.push_back(R"({"type":"draw","frame":1,"draw":101,"program":{"vertex":{"shader":"shaders/mesh.vert"},"fragment":{"shader":"shaders/lighting.frag","entry":"main","colour":1}},"host":)" +
                    std::string(kHost) + "}");
  Read r(dir.path(), records);
  ASSERT_EQ(r.draws.events.size(), 2u) << "the good draws before and after the bad ones";
  ASSERT_EQ(r.sink.entries.size(), bad.size() + 2);
  for (size_t i = 0; i < bad.size(); ++i) {
    const Error& e = r.sink.entries[i].error;
    EXPECT_EQ(e.reason, bad[i].reason) << e.to_string();
    EXPECT_EQ(e.where.line, i + 3) << e.to_string();  // the capture record and the first good draw come first
    EXPECT_EQ(e.where.json_pointer, bad[i].pointer) << e.to_string();
    EXPECT_GT(e.where.column, 1u) << e.to_string();
    EXPECT_EQ(e.where.file, (dir.path() / "trace.jsonl").string());
  }
  EXPECT_EQ(r.sink.entries[bad.size()].error.reason, "missing_field");
  EXPECT_EQ(r.sink.entries[bad.size() + 1].error.reason, "unknown_field");
  const auto counts = r.bad();
  EXPECT_EQ(counts.at("constant_type"), 7u);
  EXPECT_EQ(counts.at("wrong_type"), 1u);
  EXPECT_EQ(counts.at("unknown_constant"), 2u);
  EXPECT_EQ(counts.at("shader_not_found"), 1u);
  EXPECT_EQ(counts.at("shader_compile_failed"), 4u);
  // The messages say what the module declares and where the file was looked for.
  EXPECT_NE(r.sink.entries[7].error.message.find("declares 0, 1, 2, 3, 4, 5"), std::string::npos)
      << r.sink.entries[7].error.message;
  EXPECT_NE(r.sink.entries[9].error.message.find((dir.path() / "shaders/missing.frag").string()), std::string::npos)
      << r.sink.entries[9].error.message;
}

TEST(SpecconstTrace, a_spirv_file_and_the_glsl_it_was_compiled_from_give_the_same_key) {
  test_support::TempDir dir("specconst_trace");
  copy_samples(dir.path());
  // The module a renderer would ship: glslang's SPIR-V of the sample, written as a file.
  auto words = compile::glsl_to_spirv(compile::ShaderStage::fragment, slurp(kSamples / "lighting.frag"));
  ASSERT_TRUE(words.ok());
  write(dir.path() / "shaders/lighting.spv",
        std::string(reinterpret_cast<const char*>(words->data()), words->size() * 4));
  Read r(dir.path(), {draw(0, "", R"("0":2,"2":true)"), draw(1, "", R"("0":2,"2":true)", "shaders/lighting.spv")});
  ASSERT_EQ(r.draws.events.size(), 2u) << (r.sink.entries.empty() ? "" : r.sink.entries[0].error.to_string());
  EXPECT_TRUE(std::ranges::equal(r.key_of_draw(0), r.key_of_draw(1)));
}

TEST(SpecconstTrace, shader_paths_are_relative_to_each_trace_not_to_the_working_directory) {
  // Two traces with the same text in two directories whose lighting.frag differs in one default.
  test_support::TempDir dir("specconst_trace");
  copy_samples(dir.path() / "a");
  copy_samples(dir.path() / "b");
  std::string changed = slurp(kSamples / "lighting.frag");
  const std::string from = "const int kQuality = 1;", to = "const int kQuality = 2;";
  ASSERT_NE(changed.find(from), std::string::npos);
  changed.replace(changed.find(from), from.size(), to);
  write(dir.path() / "b/shaders/lighting.frag", changed);
  const std::string text =
      std::string(R"({"type":"capture","format":"shaderbake-trace/2","guest":"specconst"})") + "\n" + draw(0, "", "") + "\n";
  write(dir.path() / "a/trace.jsonl", text);
  write(dir.path() / "b/trace.jsonl", text);
  specconst::SpecconstGuest model;
  CollectingSink sink;
  trace::TraceReader reader(model, {}, sink);
  Draws draws;
  ASSERT_TRUE(reader.read_file((dir.path() / "a/trace.jsonl").string(), draws).ok());
  ASSERT_TRUE(reader.read_file((dir.path() / "b/trace.jsonl").string(), draws).ok());
  ASSERT_EQ(draws.events.size(), 2u);
  EXPECT_NE(draws.events[0].program, draws.events[1].program) << "the same record text names two modules";
  EXPECT_EQ(reader.exact_keys().size(), 2u);
}

TEST(SpecconstTrace, the_exact_shader_of_a_key_is_its_module_with_the_values_frozen) {
  test_support::TempDir dir("specconst_trace");
  copy_samples(dir.path());
  // kQuality 0 never reads kSpecularPower: two specular powers fold to one module; kQuality 2 reads it.
  Read r(dir.path(), {draw(0, "", R"("0":0,"3":8)"), draw(1, "", R"("0":0,"3":64)"), draw(2, "", R"("0":2,"3":8)"),
                      draw(3, "", R"("0":2,"3":64)")});
  ASSERT_EQ(r.draws.events.size(), 4u);
  std::vector<std::vector<uint32_t>> modules;
  for (size_t i = 0; i < 4; ++i) {
    auto job = r.model.exact_shader(r.key_of_draw(i));
    ASSERT_TRUE(job.ok()) << job.error().to_string();
    EXPECT_EQ(job->stage, compile::ShaderStage::fragment);
    EXPECT_EQ(job->language, compile::SourceLanguage::spirv);
    auto module = compile::compile_job(*job);
    ASSERT_TRUE(module.ok()) << module.error().to_string();
    // Frozen: no specialization constant is left (OpSpecConstantTrue/False/Op/Composite are 48-52).
    for (size_t at = 5; at < module->spirv.size(); at += module->spirv[at] >> 16) {
      const uint32_t opcode = module->spirv[at] & 0xFFFFu;
      EXPECT_FALSE(opcode >= 48 && opcode <= 52) << "draw " << i << ": opcode " << opcode << " at word " << at;
    }
    modules.push_back(module->spirv);
  }
  EXPECT_EQ(modules[0], modules[1]) << "kSpecularPower is dead at kQuality 0: the two value sets fold alike";
  EXPECT_NE(modules[2], modules[3]);
  EXPECT_NE(modules[0], modules[2]);
  // A compute program: its key's shader is the kernel with the workgroup width frozen into LocalSize.
  Read c(dir.path(), {R"({"type":"draw","frame":1,"draw":0,"program":{"compute":{"shader":"shaders/blur.comp","constants":{"0":64,"1":3}}}})"});
  ASSERT_EQ(c.draws.events.size(), 1u) << (c.sink.entries.empty() ? "" : c.sink.entries[0].error.to_string());
  EXPECT_EQ(c.draws.events[0].host, trace::kNoHost);
  auto kernel = c.model.exact_shader(c.key_of_draw(0));
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  EXPECT_EQ(kernel->stage, compile::ShaderStage::compute);
  auto compiled = compile::compile_job(*kernel);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  bool local_size_64 = false;  // OpExecutionMode %main LocalSize 64 1 1, or a WorkgroupSize constant of 64
  for (size_t at = 5; at < compiled->spirv.size(); at += compiled->spirv[at] >> 16) {
    const uint32_t opcode = compiled->spirv[at] & 0xFFFFu, count = compiled->spirv[at] >> 16;
    if (opcode == 16 && count >= 4 && compiled->spirv[at + 2] == 17) local_size_64 |= compiled->spirv[at + 3] == 64;
    if (opcode == 43 && count == 4) local_size_64 |= compiled->spirv[at + 3] == 64;  // OpConstant 64
  }
  EXPECT_TRUE(local_size_64);

  // The vertex stage of a key: the mesh shader with its own values.
  auto vertex = r.model.vertex_shader(r.key_of_draw(0), r.reader.host_state(0), {});
  ASSERT_TRUE(vertex.ok());
  EXPECT_EQ(vertex->stage, compile::ShaderStage::vertex);
  EXPECT_TRUE(compile::compile_job(*vertex).ok());
}

}  // namespace

namespace {

std::vector<std::string> lines_of(const fs::path& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// tests/guests/specconst/schema: records the schema accepts and refuses, checked by an independent validator
// (ctest schema_specconst_records, schema_specconst_rejects); the reader must agree record by record.
const fs::path kSchemaRecords = fs::path(SHADERBAKE_SOURCE_DIR) / "tests/guests/specconst/schema";

TEST(SpecconstTrace, the_reader_accepts_every_record_the_schema_accepts) {
  specconst::SpecconstGuest model;
  CollectingSink sink;
  trace::TraceReader reader(model, {}, sink);
  Draws draws;
  ASSERT_TRUE(reader.read_file((kSchemaRecords / "valid.jsonl").string(), draws).ok());
  for (const auto& e : sink.entries) ADD_FAILURE() << e.error.to_string();
  EXPECT_EQ(draws.events.size(), 6u);
  EXPECT_EQ(reader.files().back().states, 3u);
  // The compute program's dispatches carry no host state.
  EXPECT_EQ(draws.events[4].host, trace::kNoHost);
  EXPECT_EQ(draws.events[5].host, trace::kNoHost);
  EXPECT_TRUE(reader.program_compute()[draws.events[5].program]);
  EXPECT_FALSE(reader.program_compute()[draws.events[0].program]);
}

TEST(SpecconstTrace, the_reader_refuses_every_record_the_schema_refuses) {
  const auto records = lines_of(kSchemaRecords / "invalid.jsonl");
  ASSERT_EQ(records.size(), 14u);
  for (size_t i = 0; i < records.size(); ++i) {
    // Each record read after the capture record, from the schema folder (its shader paths are relative to it).
    specconst::SpecconstGuest model;
    CollectingSink sink;
    trace::TraceReader reader(model, {}, sink);
    Draws draws;
    const std::string text =
        std::string(R"({"type":"capture","format":"shaderbake-trace/2","guest":"specconst"})") + "\n" + records[i] + "\n";
    ASSERT_TRUE(reader.read_text((kSchemaRecords / "invalid.jsonl").string(), text, false, draws).ok());
    EXPECT_TRUE(draws.events.empty()) << "record " << i + 1 << " was read as a draw";
    EXPECT_EQ(sink.entries.size(), 1u) << "record " << i + 1;
  }
}

}  // namespace
