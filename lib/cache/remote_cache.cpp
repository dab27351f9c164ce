// SPDX-License-Identifier: MIT
#include "lib/cache/remote_cache.hpp"

#include <curl/curl.h>

#include <cstring>

namespace shaderbake::cache {

namespace {

// One libcurl handle per thread, reused so that its connection stays open between requests.
class ThreadHandle {
 public:
  ~ThreadHandle() {
    if (handle_) curl_easy_cleanup(handle_);
  }
  CURL* get() {
    if (!handle_) handle_ = curl_easy_init();
    else curl_easy_reset(handle_);
    return handle_;
  }

 private:
  CURL* handle_ = nullptr;
};

CURL* thread_handle() {
  thread_local ThreadHandle handle;
  return handle.get();
}

struct Download {
  std::vector<uint8_t> bytes;
  uint64_t limit = 0;
  bool too_large = false;
};

size_t collect(char* data, size_t size, size_t count, void* user) {
  auto* d = static_cast<Download*>(user);
  const size_t n = size * count;
  if (d->bytes.size() + n > d->limit) {
    d->too_large = true;
    return 0;  // aborts the transfer
  }
  d->bytes.insert(d->bytes.end(), data, data + n);
  return n;
}

struct Upload {
  std::span<const uint8_t> bytes;
  size_t at = 0;
};

size_t supply(char* out, size_t size, size_t count, void* user) {
  auto* u = static_cast<Upload*>(user);
  const size_t n = std::min(size * count, u->bytes.size() - u->at);
  std::memcpy(out, u->bytes.data() + u->at, n);
  u->at += n;
  return n;
}

size_t discard_body(char*, size_t size, size_t count, void*) { return size * count; }

Error url_error(const std::string& url, const std::string& what) {
  return Error{ErrorKind::bad_input, "bad_cache_url", "--cache-url " + url + ": " + what, {}};
}

}  // namespace

Result<std::unique_ptr<RemoteCache>> RemoteCache::open(std::string url, Options options) {
  static const CURLcode global = curl_global_init(CURL_GLOBAL_DEFAULT);  // once, thread-safe (a static)
  if (global != CURLE_OK) return Error{ErrorKind::internal, "curl_init_failed", curl_easy_strerror(global), {}};
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) return url_error(url, "not an http:// or https:// URL");
  if (url.find_first_of("?# \t\r\n") != std::string::npos) return url_error(url, "a query, fragment or space has no place in it");
  while (url.size() > 8 && url.back() == '/') url.pop_back();
  auto out = std::unique_ptr<RemoteCache>(new RemoteCache(url, options));
  // What messages show: the URL without user:password@ (credentials stay in the requests only).
  const size_t scheme_end = url.find("://") + 3;
  const size_t at = url.find('@', scheme_end), slash = url.find('/', scheme_end);
  if (at != std::string::npos && (slash == std::string::npos || at < slash)) url.erase(scheme_end, at + 1 - scheme_end);
  out->shown_url_ = url;
  return out;
}

std::optional<std::string> RemoteCache::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

void RemoteCache::fail(std::string what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_) failure_ = std::move(what);
  failed_ = true;
}

std::optional<std::vector<uint8_t>> RemoteCache::get(std::string_view name) {
  if (failed_) return std::nullopt;
  CURL* curl = thread_handle();
  if (!curl) {
    fail("cannot create an HTTP handle");
    return std::nullopt;
  }
  const std::string target = url_ + "/cas/" + std::string(name);
  const std::string shown = shown_url_ + "/cas/" + std::string(name);
  Download download;
  download.limit = options_.max_object_bytes;
  curl_easy_setopt(curl, CURLOPT_URL, target.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.transfer_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options_.max_object_bytes));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &download);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (rc == CURLE_OK && status == 200) return std::move(download.bytes);
  if (rc == CURLE_OK && status == 404) return std::nullopt;
  if (download.too_large || rc == CURLE_FILESIZE_EXCEEDED)
    fail("GET " + shown + ": the object is larger than " + std::to_string(options_.max_object_bytes) + " bytes");
  else if (rc != CURLE_OK)
    fail("GET " + shown + ": " + curl_easy_strerror(rc));
  else
    fail("GET " + shown + ": HTTP status " + std::to_string(status));
  return std::nullopt;
}

bool RemoteCache::put(std::string_view name, std::span<const uint8_t> bytes) {
  if (failed_) return false;
  CURL* curl = thread_handle();
  if (!curl) {
    fail("cannot create an HTTP handle");
    return false;
  }
  const std::string target = url_ + "/cas/" + std::string(name);
  const std::string shown = shown_url_ + "/cas/" + std::string(name);
  Upload upload{bytes, 0};
  curl_easy_setopt(curl, CURLOPT_URL, target.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.transfer_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, supply);
  curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(bytes.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard_body);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (rc == CURLE_OK && status >= 200 && status < 300) return true;
  fail("PUT " + shown + ": " + (rc != CURLE_OK ? std::string(curl_easy_strerror(rc)) : "HTTP status " + std::to_string(status)));
  return false;
}

}  // namespace shaderbake::cache
