// SPDX-License-Identifier: MIT
#include "lib/core/content_digest.hpp"

#include <openssl/evp.h>

#include <new>

#include "lib/core/hex.hpp"

namespace shaderbake {

struct ContentHasher::State {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};

ContentHasher::ContentHasher() : state_(std::make_unique<State>()) {
  // OpenSSL's failures here are allocation failures: report them as C++ does.
  if (!state_->context || EVP_DigestInit_ex(state_->context.get(), EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
}

ContentHasher::~ContentHasher() = default;

void ContentHasher::update(const void* data, size_t size) {
  if (size == 0) return;
  EVP_DigestUpdate(state_->context.get(), data, size);  // cannot fail for SHA-256 once initialised
  bytes_ += size;
}

ContentDigest ContentHasher::finish() {
  ContentDigest out;
  unsigned int size = 0;
  EVP_DigestFinal_ex(state_->context.get(), out.bytes.data(), &size);
  return out;
}

std::string ContentDigest::to_hex() const { return hex_bytes(bytes); }

}  // namespace shaderbake
