// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "lib/guest/guest_catalog.hpp"

namespace shaderbake::cli {

// Each command's options, and the function that runs it after a successful parse; run functions return an
// ExitCode. `guests` are the guest models a command may meet: it picks one from the traces' capture record or
// the bundle's header.
struct DedupeOptions {
  std::vector<std::string> traces;
  bool json = false;
  bool strict = false;
  uint64_t max_record_bytes = 0;  // --max-record-size; 0 = the reader's default (64 MiB)
  std::string keys;  // optional: write the distinct (program, host) pairs as text (samples/client/README.md)
};
int run_dedupe(const DedupeOptions& options, const GuestCatalog& guests);

struct CompileOptions {
  std::vector<std::string> traces;
  std::string output = "shaderbake-modules";
  unsigned jobs = 0;  // 0 = one per core
  bool json = false;
  bool strict = false;
  uint64_t max_record_bytes = 0;  // --max-record-size; 0 = the reader's default (64 MiB)
  std::string cache_dir;  // artifact cache; empty = cache::default_directory()
  std::string cache_url;  // a remote store behind it (cache::RemoteCache); empty = none
  bool no_cache = false;
};
int run_compile(const CompileOptions& options, const GuestCatalog& guests);

struct CachePruneOptions {
  std::string max_size;   // bytes, or with a K/M/G/T suffix (powers of 1024)
  std::string cache_dir;  // empty = cache::default_directory()
  bool json = false;
};
int run_cache_prune(const CachePruneOptions& options);

struct BuildOptions {
  std::vector<std::string> traces;
  std::string output;     // the bundle file
  std::string report;     // optional: the build report as JSON
  unsigned jobs = 0;      // 0 = one per core
  std::string cache_dir;  // artifact cache; empty = cache::default_directory()
  std::string cache_url;  // a remote store behind it (cache::RemoteCache); empty = none
  bool no_cache = false;
  bool no_build_memo = false;  // run every stage even when no input changed since a remembered build
  bool json = false;
  bool strict = false;
  uint64_t max_record_bytes = 0;  // --max-record-size; 0 = the reader's default (64 MiB)
  bool specialize = false;        // --specialize: generic modules + per-pipeline specialization data
  std::string shard;              // --shard K/N or auto/N; empty: the whole build
  std::string shard_index_env;    // --shard-index-env VAR: where auto/N finds K first
};
int run_build(const BuildOptions& options, const GuestCatalog& guests);

struct MergeOptions {
  std::vector<std::string> bundles;  // shards of one build and/or whole bundles of capture sessions
  std::string output;
  unsigned jobs = 0;  // compression threads; 0 = one per core
  bool json = false;
};
int run_merge(const MergeOptions& options, const GuestCatalog& guests);

struct InspectOptions {
  std::string bundle;
  std::string key;  // key hash prefix (hex) or full key hex; empty = the bundle summary
  bool list = false;
  bool json = false;
  bool no_disassembly = false;
};
int run_inspect(const InspectOptions& options, const GuestCatalog& guests);

struct VerifyOptions {
  std::string bundle;
  bool json = false;
};
int run_verify(const VerifyOptions& options, const GuestCatalog& guests);

struct WarmOptions {
  std::string bundle;
  std::string output;     // empty: rewrite the bundle in place
  std::string device;     // Vulkan device name substring; empty = lavapipe
  bool json = false;
  bool validate = false;  // load VK_LAYER_KHRONOS_validation; any message it reports is a failure
  bool no_control = false;  // skip the control pass (a second cold creation) the blob's timing is judged against
};
int run_warm(const WarmOptions& options, const GuestCatalog& guests);

struct ReportOptions {
  std::string bundle;
  std::vector<std::string> traces;  // empty: the traces the bundle was built from
  bool json = false;
  bool strict = false;
  uint64_t max_record_bytes = 0;  // --max-record-size; 0 = the reader's default (64 MiB)
  double fail_under = -1;  // coverage: exit 1 when first-use coverage (percent) is below; < 0 = no gate
  std::string html;        // coverage: also write a self-contained HTML page
  std::string replay;      // coverage: a shaderbake-replay --json file whose stall distribution the page shows
};
int run_report_coverage(const ReportOptions& options, const GuestCatalog& guests);
int run_report_rejections(const ReportOptions& options, const GuestCatalog& guests);

struct CheckVectorsOptions {
  std::vector<std::string> files;
  std::string engine = "all";  // oracle | exact | fallback | all
  std::string device;          // Vulkan device name substring; empty = lavapipe
  bool quiet = false;          // print failures only
};
int run_check_vectors(const CheckVectorsOptions& options, const GuestCatalog& guests);

struct SchemaOptions {
  std::string name;
};
int run_schema(const SchemaOptions& options);

}  // namespace shaderbake::cli
