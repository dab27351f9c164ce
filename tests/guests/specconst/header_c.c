/* SPDX-License-Identifier: MIT */
/* shaderbake_specconst.h in a plain C renderer (built as C99 and C11, the implementation in this translation
 * unit): a SPIR-V module assembled by hand from the SPIR-V specification is scanned, and the exact key of a
 * value set is held to the layout schemas/keys.md writes out, byte by byte. */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_specconst.h"

#include <string.h>

#include "tests/loader/check.h"

#define CHECK SBK_TEST_CHECK

/* Three specialization constants: SpecId 7 a bool (true), SpecId 3 a signed int (-5), SpecId 9 a float (1.5)
 * that nothing uses; 3 and 7 feed OpSpecConstantOps. */
static const uint32_t kModule[] = {
    0x07230203u, 0x00010000u, 0u, 16u, 0u,
    0x00020011u, 1u,                       /* OpCapability Shader */
    0x0003000Eu, 0u, 1u,                   /* OpMemoryModel Logical GLSL450 */
    0x00040047u, 5u, 1u, 7u,               /* OpDecorate %5 SpecId 7 */
    0x00040047u, 6u, 1u, 3u,               /* OpDecorate %6 SpecId 3 */
    0x00040047u, 7u, 1u, 9u,               /* OpDecorate %7 SpecId 9 */
    0x00020014u, 2u,                       /* %2 = OpTypeBool */
    0x00040015u, 3u, 32u, 1u,              /* %3 = OpTypeInt 32 1 */
    0x00030016u, 4u, 32u,                  /* %4 = OpTypeFloat 32 */
    0x00030030u, 2u, 5u,                   /* %5 = OpSpecConstantTrue %2 */
    0x00040032u, 3u, 6u, 0xFFFFFFFBu,      /* %6 = OpSpecConstant %3 -5 */
    0x00040032u, 4u, 7u, 0x3FC00000u,      /* %7 = OpSpecConstant %4 1.5 */
    0x00060034u, 2u, 8u, 170u, 6u, 6u,     /* %8 = OpSpecConstantOp %2 IEqual %6 %6 */
    0x00050034u, 2u, 9u, 168u, 5u,         /* %9 = OpSpecConstantOp %2 LogicalNot %5 */
};

static void put32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

int main(void) {
  const size_t words = sizeof kModule / sizeof kModule[0];
  sbk_specconst_module module;
  const sbk_specconst_module* modules[1];
  uint8_t bytes[sizeof kModule], want[6 + 24 + 2 * 16], key[128];
  XXH128_hash_t h;
  size_t size = 0, i;
  int32_t forty_two = 42;
  uint32_t vk_false = 0;
  float two = 2.0f;
  uint8_t data[12];
  sbk_specconst_map_entry map[3];
  sbk_specconst_values values;

  CHECK(sbk_specconst_scan_module(kModule, words, 16u, &module) == SBK_OK);
  CHECK(module.stage == 16u && module.constant_count == 3);
  CHECK(module.constants[0].id == 3 && module.constants[0].type == SBK_SPECCONST_INT && module.constants[0].width == 32 &&
        module.constants[0].default_bits == 0xFFFFFFFBu && module.constants[0].used == 1);
  CHECK(module.constants[1].id == 7 && module.constants[1].type == SBK_SPECCONST_BOOL &&
        module.constants[1].default_bits == 1u && module.constants[1].used == 1);
  CHECK(module.constants[2].id == 9 && module.constants[2].type == SBK_SPECCONST_FLOAT &&
        module.constants[2].default_bits == 0x3FC00000u && module.constants[2].used == 0);
  /* The module's hash: XXH3-128 of its bytes as a file holds them, high half first. */
  for (i = 0; i < words; ++i) put32(bytes + 4 * i, kModule[i]);
  h = XXH3_128bits(bytes, sizeof bytes);
  for (i = 0; i < 8; ++i) {
    CHECK(module.hash[i] == (uint8_t)(h.high64 >> (56 - 8 * i)));
    CHECK(module.hash[8 + i] == (uint8_t)(h.low64 >> (56 - 8 * i)));
  }

  /* Values: SpecId 3 = 42, SpecId 9 = 2.0 (unused: ignored), SpecId 7 = VK_FALSE. */
  memcpy(data, &forty_two, 4);
  memcpy(data + 4, &two, 4);
  memcpy(data + 8, &vk_false, 4);
  map[0].constant_id = 3; map[0].offset = 0; map[0].size = 4;
  map[1].constant_id = 9; map[1].offset = 4; map[1].size = 4;
  map[2].constant_id = 7; map[2].offset = 8; map[2].size = 4;
  values.map_count = 3;
  values.map = map;
  values.data_size = sizeof data;
  values.data = data;
  modules[0] = &module;
  CHECK(sbk_specconst_encode_exact_key(modules, &values, 1, key, sizeof key, &size) == SBK_OK);
  /* schemas/keys.md, specconst exact key: head, the module, then each used constant by id. */
  memset(want, 0, sizeof want);
  want[0] = 2; want[1] = 1; want[2] = 1; want[3] = 0; want[4] = 1; want[5] = 0;
  put32(want + 6, 16u);
  memcpy(want + 10, module.hash, 16);
  want[26] = 2; want[27] = 0; want[28] = 0; want[29] = 0;
  put32(want + 30, 3u); want[34] = SBK_SPECCONST_INT; want[35] = 32; put32(want + 38, 42u);
  put32(want + 46, 7u); want[50] = SBK_SPECCONST_BOOL; want[51] = 32;
  CHECK(size == sizeof want && memcmp(key, want, sizeof want) == 0);
  CHECK(size <= SBK_SPECCONST_EXACT_KEY_MAX_SIZE(1, 2));

  /* Refusals: a value of the wrong size, outside the data, an id given twice; not SPIR-V; a truncated module. */
  map[0].size = 8;
  CHECK(sbk_specconst_encode_exact_key(modules, &values, 1, key, sizeof key, &size) == SBK_ERROR_INVALID_STATE);
  map[0].size = 4; map[0].offset = 10;
  CHECK(sbk_specconst_encode_exact_key(modules, &values, 1, key, sizeof key, &size) == SBK_ERROR_INVALID_STATE);
  map[0].offset = 0; map[1].constant_id = 3;
  CHECK(sbk_specconst_encode_exact_key(modules, &values, 1, key, sizeof key, &size) == SBK_ERROR_INVALID_STATE);
  map[1].constant_id = 9;
  CHECK(sbk_specconst_encode_exact_key(modules, &values, 1, key, 8, &size) == SBK_ERROR_BUFFER_TOO_SMALL &&
        size == sizeof want);
  CHECK(sbk_specconst_scan_module(kModule + 1, words - 1, 16u, &module) == SBK_ERROR_INVALID_STATE);
  CHECK(sbk_specconst_scan_module(kModule, words - 1, 16u, &module) == SBK_ERROR_INVALID_STATE);
  if (sbk_test_failures == 0) printf("specconst header (C): all checks passed\n");
  return sbk_test_failures == 0 ? 0 : 1;
}
