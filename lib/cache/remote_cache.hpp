// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/result.hpp"

namespace shaderbake::cache {

// A remote content-addressed store over HTTP, shared by the machines of a build: an object is GET and PUT at
// <url>/cas/<name>, the layout bazel-remote and an nginx WebDAV location serve. Only a cache: the objects are
// artifact-cache entries whose full identity and checksum the reader checks (ArtifactCache), so a damaged or
// misfiled object costs a compile, never a wrong module. Those checks are no signature: the server is trusted
// as the local cache directory is (whoever can write to either can hand a build any SPIR-V).
//
// Failure policy: a 404 is a miss. Anything else that goes wrong (no connection, a timeout, a server error, an
// unexpected status) puts the store out of use for the rest of the process: every later get misses and every
// put is dropped at once, so a dead server costs one timeout, not one per module, and the build finishes
// locally. failure() says what happened first (the one warning a command prints). Thread-safe (libcurl, one
// connection per thread, kept between requests).
class RemoteCache {
 public:
  struct Options {
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds transfer_timeout{30000};  // a whole request
    uint64_t max_object_bytes = uint64_t{256} << 20;     // a GET answering more is a failure
  };
  // `url`: http:// or https://, no query or fragment; a trailing slash is dropped. Errors (kind bad_input, reason
  // bad_cache_url) name what is wrong with it.
  static Result<std::unique_ptr<RemoteCache>> open(std::string url, Options options);
  static Result<std::unique_ptr<RemoteCache>> open(std::string url) { return open(std::move(url), Options{}); }

  // The object's bytes, or nullopt (a miss, or the store is out of use).
  std::optional<std::vector<uint8_t>> get(std::string_view name);
  // Stores the object (PUT; an existing one is replaced). Returns whether the server took it.
  bool put(std::string_view name, std::span<const uint8_t> bytes);

  // The URL as messages show it: without any user:password@.
  const std::string& url() const { return shown_url_; }
  bool out_of_use() const { return failed_; }
  std::optional<std::string> failure() const;

 private:
  RemoteCache(std::string url, Options options) : url_(std::move(url)), options_(options) {}
  void fail(std::string what);

  std::string url_;
  std::string shown_url_;
  Options options_;
  std::atomic<bool> failed_{false};
  mutable std::mutex mutex_;
  std::optional<std::string> failure_;  // guarded by mutex_
};

}  // namespace shaderbake::cache
