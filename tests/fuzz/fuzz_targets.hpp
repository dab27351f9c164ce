// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

// Fuzz entry points of every reader of untrusted text and bytes. Each must return normally on any input: errors
// are results, never crashes, hangs or out-of-bounds reads (checked under ASan/UBSan).
namespace shaderbake::fuzz {

void trace_reader(const uint8_t* data, size_t size);   // first byte picks JSON Lines or the document form
void vector_reader(const uint8_t* data, size_t size);
// The bundle loader of runtime_loader/shaderbake.h: open, check_sections, entries, probes, modules, layouts,
// report, pipeline keys. Aborts when a result breaks the loader's contract (a hit whose key differs from the
// probed one, a read larger than its stated size, a pipeline key that does not re-encode to itself).
void bundle_loader(const uint8_t* data, size_t size);
// What `shaderbake warm` runs before it opens a Vulkan device (bundle::check_before_driver), and verify's
// checks: on the bytes as they are and again with every section checksum and the header check sealed over
// them (so that the input reaches the rules behind the checksums). Aborts when the checks pass but a pipeline
// entry, one of its modules or its layout does not read through the loader.
void driver_checks(const uint8_t* data, size_t size);
// Packed SPIR-V (the coding bundle modules are stored in): input = u32 raw word count (little-endian) + packed
// bytes. Unpacked into a separate buffer and in place; aborts when either gives SBK_OK with other words than
// the other, or when words it gave do not pack and unpack back to themselves.
void spirv_unpack(const uint8_t* data, size_t size);

}  // namespace shaderbake::fuzz
