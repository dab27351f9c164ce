// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace shaderbake {

// SHA-256 of a file's content: the identity of inputs too large to keep a copy of for a byte compare (the
// build memo's traces). Collision-resistant, as content-addressed build caches require, unlike KeyHash, which
// only finds candidates that a byte compare then confirms.
struct ContentDigest {
  std::array<uint8_t, 32> bytes{};
  std::string to_hex() const;
  friend bool operator==(const ContentDigest&, const ContentDigest&) = default;
};

// Streams bytes into a ContentDigest. One object per stream; finish() ends it.
class ContentHasher {
 public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher(const ContentHasher&) = delete;
  ContentHasher& operator=(const ContentHasher&) = delete;

  void update(const void* data, size_t size);
  ContentDigest finish();
  uint64_t bytes() const { return bytes_; }  // fed so far

 private:
  struct State;
  std::unique_ptr<State> state_;
  uint64_t bytes_ = 0;
};

}  // namespace shaderbake
