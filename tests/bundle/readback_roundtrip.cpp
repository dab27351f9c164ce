// SPDX-License-Identifier: MIT
// bundle::read_identity + read_contents against bundles `shaderbake build` wrote: each bundle read back into a
// builder and serialized again (the build's write options) must give the file's bytes, byte for byte; on a
// difference the first section that differs is named. Usage: readback_roundtrip BUNDLE... (exit 0: all equal).
#include <cstdio>
#include <string>
#include <vector>

#include "lib/bundle/bundle_readback.hpp"

namespace {

using namespace shaderbake;

// Where two serialized bundles first differ, by section (the files' own section tables).
std::string first_difference(std::span<const uint8_t> original, std::span<const uint8_t> again) {
  if (original.size() != again.size())
    return "sizes differ (" + std::to_string(original.size()) + " vs " + std::to_string(again.size()) + " bytes)";
  size_t at = 0;
  while (at < original.size() && original[at] == again[at]) ++at;
  sbk_bundle b{};
  if (sbk_bundle_open_memory(&b, original.data(), original.size()) == SBK_OK) {
    for (const bundle::SectionTableEntry& s : bundle::section_table(b))
      if (at >= s.offset && at < s.offset + s.size)
        return "byte " + std::to_string(at) + ", in section type " + std::to_string(s.type);
  }
  return "byte " + std::to_string(at);
}

bool round_trip(const std::string& path) {
  auto file = bundle::BundleFile::open(path);
  if (!file) {
    std::fprintf(stderr, "FAIL: %s: %s\n", path.c_str(), file.error().to_string().c_str());
    return false;
  }
  auto identity = bundle::read_identity(*file);
  if (!identity) {
    std::fprintf(stderr, "FAIL: %s: %s\n", path.c_str(), identity.error().to_string().c_str());
    return false;
  }
  bundle::BundleBuilder builder(*identity);
  if (auto read = bundle::read_contents(*file, builder); !read) {
    std::fprintf(stderr, "FAIL: %s: %s\n", path.c_str(), read.error().to_string().c_str());
    return false;
  }
  auto again = builder.serialize(bundle::WriteOptions{});
  if (!again) {
    std::fprintf(stderr, "FAIL: %s: serialize: %s\n", path.c_str(), again.error().to_string().c_str());
    return false;
  }
  if (std::vector<uint8_t>(file->bytes().begin(), file->bytes().end()) != *again) {
    std::fprintf(stderr, "FAIL: %s: read back and written again, the bytes differ: %s\n", path.c_str(),
                 first_difference(file->bytes(), *again).c_str());
    return false;
  }
  std::printf("%s: %llu bytes, %u entries, %u modules: read back and written again, byte-identical\n", path.c_str(),
              static_cast<unsigned long long>(file->size()), sbk_bundle_entry_count(&file->handle()),
              sbk_bundle_module_count(&file->handle()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: readback_roundtrip BUNDLE...\n");
    return 2;
  }
  bool ok = true;
  for (int i = 1; i < argc; ++i) ok = round_trip(argv[i]) && ok;
  return ok ? 0 : 1;
}
