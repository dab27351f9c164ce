// SPDX-License-Identifier: MIT
// The shaderbake command line: parses flags and calls one run_<command> function with the guest models the
// executable was linked with.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/cli_app.hpp"

#include "cli/byte_size.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/cache/remote_cache.hpp"

namespace {

// A path option given as "" is a usage error, never "no output" or "in place".
const CLI::Validator kNonEmptyPath(
    [](std::string& value) { return value.empty() ? std::string("an empty path; name a file") : std::string(); },
    "PATH", "non-empty path");

constexpr const char* kCacheUrlHelp =
    "A shared artifact cache over HTTP behind the local one: a local miss GETs URL/cas/<entry>, every entry stored "
    "is PUT there (nginx WebDAV, bazel-remote); each entry is checked as a local one. When the server fails (no "
    "connection, a timeout, an error status) the command warns once and goes on locally";

// --cache-url: what the remote store accepts (cache::RemoteCache::open), checked before anything runs.
const CLI::Validator kCacheUrl(
    [](std::string& value) {
      auto remote = shaderbake::cache::RemoteCache::open(value);
      return remote ? std::string() : remote.error().message;
    },
    "URL", "http(s) URL");

// --fail-under: a finite number from 0 to 100 (NaN, "-5", "" or "101" would turn a release gate off or make it
// unpassable without saying so).
const CLI::Validator kPercent(
    [](std::string& value) {
      // Plain decimal only ("99.5"): no sign, spaces, hex or exponent, which strtod would also take.
      const bool decimal = !value.empty() && value.find_first_not_of("0123456789.") == std::string::npos &&
                           value.find('.') == value.rfind('.') && value != ".";
      const char* text = value.c_str();
      char* end = nullptr;
      const double v = decimal ? std::strtod(text, &end) : -1;
      if (!decimal || end != text + value.size() || !std::isfinite(v) || v < 0 || v > 100)
        return std::string("'" + value + "' is not a percentage: give a number from 0 to 100, e.g. 99.5");
      return std::string();
    },
    "PERCENT", "percentage");

// A size with an optional K/M/G/T suffix, rewritten to bytes for the option's integer (0 is no size).
const CLI::Validator kByteSize(
    [](std::string& value) {
      const std::optional<uint64_t> bytes = shaderbake::cli::parse_byte_size(value);
      if (!bytes || *bytes == 0) return "'" + value + "' is not a size: give bytes or a number with K, M, G or T (e.g. 256M)";
      value = std::to_string(*bytes);
      return std::string();
    },
    "SIZE", "byte size");

// --max-record-size on a trace-reading command.
void add_max_record_size(CLI::App* command, uint64_t& bytes) {
  command->add_option("--max-record-size", bytes,
                      "Longest trace record to read (default 64M; K/M/G suffixes); a longer one is skipped and "
                      "counted as oversized_record")
      ->transform(kByteSize);
}

// For usage errors: the words of the command line that name known commands ("report coverage"), and the
// first word after them that is neither an option nor a command of theirs; `unknown` is empty when every
// command word is known.
struct CommandWords {
  std::string known;
  std::string unknown;
};

CommandWords command_words(const CLI::App& app, int argc, char** argv, int first, std::string known = {}) {
  if (first >= argc || argv[first][0] == '-' || argv[first][0] == '\0') return {known, {}};
  const std::string word(argv[first]);
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->check_name(word)) {
      if (sub->get_subcommands({}).empty()) return {known.empty() ? word : known + " " + word, {}};
      return command_words(*sub, argc, argv, first + 1, known.empty() ? word : known + " " + word);
    }
  return {known, word};
}

}  // namespace

namespace shaderbake::cli {

int run_cli(int argc, char** argv, const GuestCatalog& guests) {
  CLI::App app{
      "shaderbake: bakes guest GPU states captured from real play into validated, ready-to-map shader bundles, "
      "so an emulator never compiles a shader at first use.\n"};
  app.name("shaderbake");
  app.require_subcommand(1);
  app.set_version_flag("--version", "shaderbake 0.1.0");
  app.footer(
      "Exit codes: 0 ok, 1 finished with failures, 2 usage, 3 bad input, 4 toolchain/device, 5 output, 6 internal "
      "error (out of memory, or a bug: please report it).\n"
      "Run 'shaderbake COMMAND --help' for a command's options.");

  DedupeOptions dedupe;
  CLI::App* dedupe_cmd = app.add_subcommand(
      "dedupe",
      "Read traces and count the unique specialization keys, fallback families and pipeline keys a build needs.");
  dedupe_cmd->add_option("traces", dedupe.traces, "Trace files (.jsonl streamed, .json document form)")
      ->required()
      ->check(CLI::ExistingFile);
  dedupe_cmd->add_flag("--json", dedupe.json, "Print one JSON object (schema: 'shaderbake schema dedupe')");
  add_max_record_size(dedupe_cmd, dedupe.max_record_bytes);
  dedupe_cmd->add_flag("--strict", dedupe.strict, "Stop at the first bad record (exit 3) instead of skipping it");
  dedupe_cmd->add_option("--keys", dedupe.keys,
                         "Also write each distinct (program, host state) pair, in first-use order, as a text file: "
                         "'<frame> <exact key hex> <host state hex>' a line (format: samples/client/README.md)")
      ->check(kNonEmptyPath);

  CompileOptions compile;
  CLI::App* compile_cmd = app.add_subcommand(
      "compile",
      "Generate and compile (in process, in parallel) the exact fragment shader of every drawn program and the "
      "ubershader of every family of admitted programs; write validated, optimized SPIR-V modules (stored once "
      "by content) and a manifest.json to a directory.");
  compile_cmd->add_option("traces", compile.traces, "Trace files")->required()->check(CLI::ExistingFile);
  compile_cmd->add_option("-o,--output", compile.output, "Output directory")->capture_default_str()->check(kNonEmptyPath);
  compile_cmd->add_option("-j,--jobs", compile.jobs, "Compile threads (default: one per core; at most 4 per core)");
  compile_cmd->add_flag("--json", compile.json, "Print the summary as JSON");
  add_max_record_size(compile_cmd, compile.max_record_bytes);
  compile_cmd->add_flag("--strict", compile.strict, "Stop at the first bad trace record (exit 3)");
  CLI::Option* compile_cache_dir = compile_cmd->add_option("--cache-dir", compile.cache_dir,
                          "Artifact cache directory (default: $SHADERBAKE_CACHE_DIR, else $XDG_CACHE_HOME/shaderbake, "
                          "else ~/.cache/shaderbake)")
      ->check(kNonEmptyPath);
  CLI::Option* compile_cache_url = compile_cmd->add_option("--cache-url", compile.cache_url, kCacheUrlHelp)->check(kCacheUrl);
  compile_cmd->add_flag("--no-cache", compile.no_cache, "Compile everything; neither read nor write the artifact cache")
      ->excludes(compile_cache_dir)
      ->excludes(compile_cache_url);

  BuildOptions build;
  CLI::App* build_cmd = app.add_subcommand(
      "build",
      "Build a bundle from traces: every drawn program's exact shader, an ubershader per family of admitted "
      "programs, and a complete pipeline recipe per pipeline key, validated, deduplicated by content and "
      "compressed with a dictionary trained on the bundle's own modules. Compiled modules are kept in an "
      "artifact cache, so a rebuild compiles only what changed; a build none of whose inputs (trace contents, "
      "options, the tool itself) changed since one the cache remembers copies that build's outputs. Same traces "
      "-> byte-identical bundle at any -j.");
  build_cmd->add_option("traces", build.traces, "Trace files (.jsonl streamed, .json document form)")
      ->required()
      ->check(CLI::ExistingFile);
  build_cmd->add_option("-o,--output", build.output, "The bundle to write (written to a temporary file, then renamed; a symbolic "
                        "link is followed; a FIFO or character device is written as a stream)")
      ->required()
      ->check(kNonEmptyPath);
  build_cmd->add_option("-j,--jobs", build.jobs, "Compile threads (default: one per core; at most 4 per core)");
  build_cmd->add_option("--report", build.report, "Also write the build report (coverage inputs, failures) as JSON")
      ->check(kNonEmptyPath);
  CLI::Option* build_cache_dir = build_cmd->add_option("--cache-dir", build.cache_dir,
                        "Artifact cache directory (default: $SHADERBAKE_CACHE_DIR, $XDG_CACHE_HOME/shaderbake or "
                        "~/.cache/shaderbake)")
      ->check(kNonEmptyPath);
  CLI::Option* build_cache_url = build_cmd->add_option("--cache-url", build.cache_url, kCacheUrlHelp)->check(kCacheUrl);
  build_cmd->add_flag("--no-cache", build.no_cache, "Compile everything; neither read nor write the artifact cache")
      ->excludes(build_cache_dir)
      ->excludes(build_cache_url);
  build_cmd->add_flag("--no-build-memo", build.no_build_memo,
                      "Run every stage even when no input changed since a remembered build (compiled modules still "
                      "come from the artifact cache)");
  build_cmd->add_flag("--specialize", build.specialize,
                      "For shaders with specialization constants (the specconst guest): store one generic module per "
                      "shader and each exact pipeline's VkSpecializationInfo data (fewer modules, the driver folds the "
                      "values at pipeline creation) instead of a module per value set with the values frozen in");
  build_cmd->add_option("--shard", build.shard,
                        "Build one shard of N (K in 0..N-1): the shaders whose compile job hashes to K, with their "
                        "entries and pipelines, whatever the order of the traces; `merge` puts all N together into "
                        "the whole build's bundle. auto/N takes K from --shard-index-env's variable, "
                        "$SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX. A shard build keeps no build memo")
      ->type_name("K/N");
  build_cmd->add_option("--shard-index-env", build.shard_index_env,
                        "With --shard auto/N: the environment variable that holds K (a CI matrix's), tried first");
  build_cmd->add_flag("--json", build.json, "Print the summary as JSON");
  add_max_record_size(build_cmd, build.max_record_bytes);
  build_cmd->add_flag("--strict", build.strict, "Stop at the first bad trace record (exit 3)");

  MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge",
      "Put bundles together. The shards of one build (build --shard K/N, all N of them, in any order) make the "
      "bundle the whole build writes, byte for byte. Bundles of different capture sessions (whole builds, or the "
      "shards of each) make their union: what a build of all their traces holds, the report keeping each "
      "session's provenance. Modules are reused, only compression is redone. A missing or repeated shard, a "
      "session given twice, one key with different content, another guest or toolchain are refused by name.");
  merge_cmd->add_option("bundles", merge.bundles, "Shard bundles of one build and/or whole bundles of capture sessions")
      ->required()
      ->check(CLI::ExistingFile);
  merge_cmd->add_option("-o,--output", merge.output, "The bundle to write")->required()->check(kNonEmptyPath);
  merge_cmd->add_option("-j,--jobs", merge.jobs, "Compression threads (default: one per core)");
  merge_cmd->add_flag("--json", merge.json, "Print the summary as JSON");

  InspectOptions inspect;
  CLI::App* inspect_cmd = app.add_subcommand(
      "inspect",
      "Show what a bundle holds (versions, toolchain, counts, sizes), list its entries, or show one entry: its "
      "decoded key (program words, host state), admission result, status, recipe, layout, and each module's "
      "reflection and SPIR-V disassembly.");
  inspect_cmd->add_option("bundle", inspect.bundle, "Bundle file (.sbk)")->required()->check(CLI::ExistingFile);
  inspect_cmd->add_option("key", inspect.key,
                          "An entry: a prefix of its key hash (as reports and --list print it) or its full key in hex");
  inspect_cmd->add_flag("--list", inspect.list, "List every entry: key hash, kind, route, status");
  inspect_cmd->add_flag("--json", inspect.json, "Print JSON");
  inspect_cmd->add_flag("--no-disassembly", inspect.no_disassembly, "Leave the SPIR-V disassembly out of an entry's view");

  VerifyOptions verify;
  CLI::App* verify_cmd = app.add_subcommand(
      "verify",
      "Re-check a bundle, trusting nothing its writer claims: section checksums, the index (hashes, order, "
      "directory, every key found), every module (decompression, checksum, spirv-val, stage), every pipeline "
      "recipe (key, module stages and references, vertex inputs, layout), every dynamic-state fallback recipe "
      "(family, modules, signature, order, layout) and the prewarm order (exact pipelines, each once), and every "
      "stored admission result. Exit 0 only when all hold.");
  verify_cmd->add_option("bundle", verify.bundle, "Bundle file (.sbk)")->required()->check(CLI::ExistingFile);
  verify_cmd->add_flag("--json", verify.json, "Print the checks as JSON");

  ReportOptions coverage;
  ReportOptions rejections;
  CLI::App* report_cmd = app.add_subcommand("report", "Answer coverage and rejection questions about a bundle.");
  report_cmd->require_subcommand(1);
  CLI::App* coverage_cmd = report_cmd->add_subcommand(
      "coverage",
      "How the bundle serves the draws of traces (its own, or a new capture): per draw and per first use (what "
      "stalls), served exact / by a fallback family's pipeline for the host state / by its dynamic-state fallback "
      "pipeline for the attachment signature (needs VK_EXT_extended_dynamic_state 1/2/3 + "
      "VK_EXT_vertex_input_dynamic_state) / uncovered by reason, the frames with the most uncovered first uses. "
      "A release gate with --fail-under.");
  coverage_cmd->add_option("bundle", coverage.bundle, "Bundle file (.sbk)")->required()->check(CLI::ExistingFile);
  coverage_cmd->add_option("--traces", coverage.traces, "Traces to check (default: the ones the bundle was built from)")
      ->check(CLI::ExistingFile);
  coverage_cmd->add_option("--fail-under", coverage.fail_under,
                           "Exit 1 when the share of first uses served (exact, fallback or dynamic fallback) is below "
                           "PERCENT (a number from 0 to 100), or when there is no first use to measure or a trace "
                           "could not be used")
      ->check(kPercent);
  coverage_cmd->add_option("--html", coverage.html, "Also write a self-contained HTML page with charts")
      ->check(kNonEmptyPath);
  coverage_cmd->add_option("--replay", coverage.replay, "A 'shaderbake-replay --json' output to chart in the page")
      ->check(CLI::ExistingFile);
  coverage_cmd->add_flag("--json", coverage.json, "Print JSON (schema: 'shaderbake schema coverage')");
  add_max_record_size(coverage_cmd, coverage.max_record_bytes);
  coverage_cmd->add_flag("--strict", coverage.strict, "Stop at the first bad trace record (exit 3)");
  CLI::App* rejections_cmd = report_cmd->add_subcommand(
      "rejections",
      "Why programs are kept off the fallback route: admission reasons with their exact keys, draws and example "
      "keys ('shaderbake inspect BUNDLE KEY' shows why).");
  rejections_cmd->add_option("bundle", rejections.bundle, "Bundle file (.sbk)")->required()->check(CLI::ExistingFile);
  rejections_cmd->add_option("--traces", rejections.traces, "Traces to count draws in (default: the bundle's own)")
      ->check(CLI::ExistingFile);
  rejections_cmd->add_flag("--json", rejections.json, "Print JSON");
  add_max_record_size(rejections_cmd, rejections.max_record_bytes);

  WarmOptions warm;
  CLI::App* warm_cmd = app.add_subcommand(
      "warm",
      "On a machine with the target GPU: create every pipeline of a bundle once into an empty VkPipelineCache and "
      "store the driver's cache data in the bundle (one blob per vendorID, deviceID, driverVersion and "
      "pipelineCacheUUID; warming the same device again replaces its blob), then create them all again on a fresh "
      "device from the stored blob and compare the median creation time with a cold control pass. Exit 0 ok, 1 a "
      "pipeline failed (the blob is stored all the same), 3 not a usable bundle, 4 no such device, 5 the bundle "
      "cannot be written.");
  warm_cmd->add_option("bundle", warm.bundle, "Bundle file (.sbk)")->required()->check(CLI::ExistingFile);
  warm_cmd->add_option("-o,--output", warm.output,
                       "Write the warmed bundle here (default: rewrite BUNDLE in place; always through a temporary "
                       "file and a rename; in place on a symbolic link, the file it points to)")
      ->check(kNonEmptyPath);
  warm_cmd->add_option("--device", warm.device,
                       "Vulkan device whose name contains this (case-insensitive; default: lavapipe), e.g. nvidia");
  warm_cmd->add_flag("--validate", warm.validate,
                     "Create the pipelines under VK_LAYER_KHRONOS_validation; any message it reports is a failure "
                     "(its overhead is in the timings)");
  warm_cmd->add_flag("--no-control", warm.no_control,
                     "Skip the control pass: by default the pipelines are created a second time cold (fresh device, "
                     "empty cache) so that what the process or driver kept from the first pass is not credited to "
                     "the blob");
  warm_cmd->add_flag("--json", warm.json, "Print the summary as JSON");

  CheckVectorsOptions vectors;
  CLI::App* vectors_cmd = app.add_subcommand(
      "check-vectors",
      "Run test vectors (format shaderbake-vectors/1 or /2) through the CPU oracle, the exact route and/or the fallback "
      "ubershader on a Vulkan device; one line a case, then 'N passed, M failed'.");
  vectors_cmd->add_option("files", vectors.files, "Vector files (.json)")->required()->check(CLI::ExistingFile);
  vectors_cmd->add_option("--engine", vectors.engine,
                          "oracle | exact | fallback | all (every engine must meet the expectation; under fallback, "
                          "programs admission rejects are skipped)")
      ->check(CLI::IsMember({"oracle", "exact", "fallback", "all"}))
      ->capture_default_str();
  vectors_cmd->add_option("--device", vectors.device,
                          "Vulkan device for the exact engine (substring of its name; default: lavapipe)");
  vectors_cmd->add_flag("--quiet", vectors.quiet, "Print failing cases only (and the summary)");

  SchemaOptions schema;
  CLI::App* schema_cmd = app.add_subcommand("schema", "Print a JSON Schema of a shaderbake format.");
  schema_cmd->add_option("name", schema.name, "trace | dedupe")->required();

  CachePruneOptions cache_prune;
  CLI::App* cache_cmd = app.add_subcommand("cache", "Manage the artifact cache of compiled modules.");
  cache_cmd->require_subcommand(1);
  CLI::App* cache_prune_cmd = cache_cmd->add_subcommand(
      "prune", "Remove least recently used cache entries until the cache is at most --max-size, and stale "
               "temporary files; nothing else in the directory is touched.");
  cache_prune_cmd->add_option("--max-size", cache_prune.max_size, "Size to keep: bytes, or 100K, 500M, 2G, 1T (powers of 1024)")
      ->required();
  cache_prune_cmd->add_option("--cache-dir", cache_prune.cache_dir, "Cache directory (default: as for compile)")
      ->check(kNonEmptyPath);
  cache_prune_cmd->add_flag("--json", cache_prune.json, "Print the summary as JSON");

  // Under --json a failure is also a JSON object on stdout (json_error_object), whatever the command printed
  // before it failed; the error lines stay on stderr.
  bool json = false;
  for (int i = 1; i < argc; ++i) json = json || std::strcmp(argv[i], "--json") == 0;
  auto fail = [json](int code) {
    if (json && code != kExitOk && !json_document_printed()) print_json(json_error_object(code, last_error_message()));
    return code;
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const CommandWords words = command_words(app, argc, argv, 1);
    const std::string parent = words.known.empty() ? "shaderbake" : "shaderbake " + words.known;
    if (!words.unknown.empty())
      print_error("unknown command '" + words.unknown + "'; run '" + parent + " --help' for the commands");
    else
      print_error(std::string(e.what()) + "; run '" + (words.known.empty() ? "shaderbake COMMAND" : parent) +
                  " --help' for its options");
    return fail(kExitUsage);
  }
  int code = kExitUsage;
  // The last resort: lib/ returns errors rather than throwing, but memory exhaustion and the standard library
  // can still throw; such an exception ends the command with a message and exit 6, never std::terminate.
  try {
    if (*dedupe_cmd) code = run_dedupe(dedupe, guests);
    else if (*compile_cmd) code = run_compile(compile, guests);
    else if (*build_cmd) code = run_build(build, guests);
    else if (*merge_cmd) code = run_merge(merge, guests);
    else if (*coverage_cmd) code = run_report_coverage(coverage, guests);
    else if (*rejections_cmd) code = run_report_rejections(rejections, guests);
    else if (*inspect_cmd) code = run_inspect(inspect, guests);
    else if (*verify_cmd) code = run_verify(verify, guests);
    else if (*warm_cmd) code = run_warm(warm, guests);
    else if (*vectors_cmd) code = run_check_vectors(vectors, guests);
    else if (*schema_cmd) code = run_schema(schema);
    else if (*cache_prune_cmd) code = run_cache_prune(cache_prune);
  } catch (const std::bad_alloc&) {
    print_error("out of memory: an allocation failed");
    code = kExitInternal;
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what() + "; please report it with the command line");
    code = kExitInternal;
  } catch (...) {
    print_error("internal error: an unknown exception; please report it with the command line");
    code = kExitInternal;
  }
  return fail(code);
}

}  // namespace shaderbake::cli
