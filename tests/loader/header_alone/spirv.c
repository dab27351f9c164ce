/* SPDX-License-Identifier: MIT */
/* runtime_loader/shaderbake_spirv.h alone (it includes shaderbake.h itself): a small module packs and unpacks
 * to itself. */
#include "runtime_loader/shaderbake_spirv.h"

int header_alone_spirv(void);

int header_alone_spirv(void) {
  /* Header (magic, 1.0, generator, bound, schema), then OpCapability Shader, OpMemoryModel Logical GLSL450. */
  static const uint32_t words[10] = {0x07230203u, 0x00010000u, 0u, 1u, 0u, (2u << 16) | 17u, 1u,
                                     (3u << 16) | 14u, 0u, 1u};
  uint8_t packed[SBK_SPIRV_PACK_BOUND(10)];
  uint32_t unpacked[10];
  size_t size = 0, i;
  int failures = 0;
  failures += sbk_spirv_pack(words, 10, packed, sizeof packed, &size) != SBK_OK || size == 0;
  failures += sbk_spirv_unpack(packed, size, unpacked, sizeof unpacked) != SBK_OK;
  for (i = 0; i < 10; ++i) failures += unpacked[i] != words[i];
  failures += sbk_spirv_unpack(packed, size, unpacked, sizeof unpacked - 4) != SBK_ERROR_CORRUPT;
  return failures;
}
