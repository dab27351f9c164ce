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

#define OP(count, opcode) ((uint32_t)(count) << 16 | (uint32_t)(opcode))

/* One constant of each fallback class, from SPIR-V's rules for what a run-time value cannot replace:
 * SpecId 0 sizes an array (through an OpSpecConstantOp), 1 is the workgroup's x (through the WorkgroupSize
 * composite), 2 a float read in the function, 3 a private variable's initializer, 4 a double read in the
 * function, 5 a bool read in the function. A Binding 4 decoration sets binding_end. */
static const uint32_t kClasses[] = {
    0x07230203u, 0x00010000u, 0u, 50u, 0u,
    OP(2, 17), 1u,                 /* OpCapability Shader */
    OP(2, 17), 10u,                /* OpCapability Float64 */
    OP(3, 14), 0u, 1u,             /* OpMemoryModel Logical GLSL450 */
    OP(4, 71), 10u, 1u, 0u,        /* OpDecorate %10 SpecId 0 */
    OP(4, 71), 11u, 1u, 1u,        /* OpDecorate %11 SpecId 1 */
    OP(4, 71), 12u, 1u, 2u,        /* OpDecorate %12 SpecId 2 */
    OP(4, 71), 13u, 1u, 3u,        /* OpDecorate %13 SpecId 3 */
    OP(4, 71), 14u, 1u, 4u,        /* OpDecorate %14 SpecId 4 */
    OP(4, 71), 15u, 1u, 5u,        /* OpDecorate %15 SpecId 5 */
    OP(4, 71), 20u, 11u, 25u,      /* OpDecorate %20 BuiltIn WorkgroupSize */
    OP(4, 71), 30u, 33u, 4u,       /* OpDecorate %30 Binding 4 */
    OP(4, 21), 2u, 32u, 0u,        /* %2 = OpTypeInt 32 0 */
    OP(3, 22), 3u, 32u,            /* %3 = OpTypeFloat 32 */
    OP(4, 21), 4u, 32u, 1u,        /* %4 = OpTypeInt 32 1 */
    OP(3, 22), 5u, 64u,            /* %5 = OpTypeFloat 64 */
    OP(2, 20), 6u,                 /* %6 = OpTypeBool */
    OP(4, 23), 7u, 2u, 3u,         /* %7 = OpTypeVector %2 3 */
    OP(4, 50), 2u, 10u, 4u,        /* %10 = OpSpecConstant %2 4 */
    OP(4, 50), 2u, 11u, 1u,        /* %11 = OpSpecConstant %2 1 */
    OP(4, 50), 3u, 12u, 0x3F000000u, /* %12 = OpSpecConstant %3 0.5 */
    OP(4, 50), 4u, 13u, 7u,        /* %13 = OpSpecConstant %4 7 */
    OP(5, 50), 5u, 14u, 0u, 0x3FF00000u, /* %14 = OpSpecConstant %5 1.0 */
    OP(3, 49), 6u, 15u,            /* %15 = OpSpecConstantFalse %6 */
    OP(4, 43), 2u, 16u, 1u,        /* %16 = OpConstant %2 1 */
    OP(6, 52), 2u, 17u, 128u, 10u, 16u, /* %17 = OpSpecConstantOp %2 IAdd %10 %16 */
    OP(4, 28), 8u, 3u, 17u,        /* %8 = OpTypeArray %3 %17 */
    OP(6, 51), 7u, 20u, 11u, 16u, 16u, /* %20 = OpSpecConstantComposite %7 %11 %16 %16 */
    OP(4, 32), 21u, 6u, 4u,        /* %21 = OpTypePointer Private %4 */
    OP(5, 59), 21u, 22u, 6u, 13u,  /* %22 = OpVariable %21 Private %13 */
    OP(2, 19), 40u,                /* %40 = OpTypeVoid */
    OP(3, 33), 41u, 40u,           /* %41 = OpTypeFunction %40 */
    OP(5, 54), 40u, 42u, 0u, 41u,  /* %42 = OpFunction %40 None %41 */
    OP(2, 248), 43u,               /* %43 = OpLabel */
    OP(5, 129), 3u, 44u, 12u, 12u, /* %44 = OpFAdd %3 %12 %12 */
    OP(5, 129), 5u, 45u, 14u, 14u, /* %45 = OpFAdd %5 %14 %14 */
    OP(4, 168), 6u, 46u, 15u,      /* %46 = OpLogicalNot %6 %15 */
    OP(1, 253),                    /* OpReturn */
    OP(1, 56),                     /* OpFunctionEnd */
};

/* Admission of `values` (map entries over `data`) to the fallback route of a module. */
static sbk_specconst_admission admit(const sbk_specconst_module* module, const sbk_specconst_map_entry* map,
                                     uint32_t count, const void* data, size_t data_size) {
  const sbk_specconst_module* modules[1];
  sbk_specconst_values values;
  sbk_specconst_admission out;
  uint8_t key[SBK_SPECCONST_EXACT_KEY_MAX_SIZE(1, 6)];
  size_t size = 0;
  modules[0] = module;
  values.map_count = count;
  values.map = map;
  values.data_size = data_size;
  values.data = data;
  memset(&out, 0xFF, sizeof out);
  CHECK(sbk_specconst_encode_exact_key(modules, &values, 1, key, sizeof key, &size) == SBK_OK);
  CHECK(sbk_specconst_admit_key(key, size, &out) == SBK_OK);
  /* Every truncation of the key is refused. */
  while (size > 0) {
    sbk_specconst_admission cut;
    CHECK(sbk_specconst_admit_key(key, --size, &cut) == SBK_ERROR_INVALID_STATE && cut.reason == 0);
  }
  return out;
}

static void classification(void) {
  const size_t words = sizeof kClasses / sizeof kClasses[0];
  static const uint8_t kWant[6] = {SBK_SPECCONST_ARRAY_SIZE, SBK_SPECCONST_WORKGROUP_SIZE, 0,
                                   SBK_SPECCONST_MODULE_SCOPE_USE, SBK_SPECCONST_WIDE_CONSTANT, 0};
  sbk_specconst_module module;
  const sbk_specconst_module* modules[1];
  sbk_specconst_map_entry map[2];
  sbk_specconst_values values;
  sbk_specconst_admission a;
  uint32_t u32[2];
  float f = 2.0f;
  uint8_t packet[16];
  size_t size = 0, i;

  CHECK(sbk_specconst_scan_module(kClasses, words, 32u, &module) == SBK_OK);
  CHECK(module.constant_count == 6 && module.binding_end == 5);
  for (i = 0; i < 6; ++i) CHECK(module.constants[i].id == i && module.constants[i].used == 1 &&
                                module.constants[i].fixed_by == kWant[i]);
  CHECK(strcmp(sbk_specconst_reason_name(SBK_SPECCONST_ARRAY_SIZE), "array_size") == 0 &&
        sbk_specconst_reason_name(SBK_SPECCONST_REASON_COUNT) == NULL);

  /* The packet: the float (SpecId 2) then the bool (SpecId 5), one word each. */
  modules[0] = &module;
  CHECK(sbk_specconst_packet_words(&module) == 2 && sbk_specconst_packet_binding(modules, 1) == 5);
  memcpy(&u32[0], &f, 4);
  u32[1] = 7; /* any nonzero VkBool32 is true */
  map[0].constant_id = 5; map[0].offset = 4; map[0].size = 4;
  map[1].constant_id = 2; map[1].offset = 0; map[1].size = 4;
  values.map_count = 2;
  values.map = map;
  values.data_size = sizeof u32;
  values.data = u32;
  CHECK(sbk_specconst_encode_packet(modules, &values, 1, packet, sizeof packet, &size) == SBK_OK && size == 8);
  CHECK(packet[0] == 0 && packet[1] == 0 && packet[2] == 0 && packet[3] == 0x40); /* 2.0f */
  CHECK(packet[4] == 1 && packet[5] == 0 && packet[6] == 0 && packet[7] == 0);
  CHECK(sbk_specconst_encode_packet(modules, NULL, 1, packet, sizeof packet, &size) == SBK_OK && size == 8 &&
        packet[3] == 0x3F && packet[4] == 0); /* the defaults: 0.5f, false */
  CHECK(sbk_specconst_encode_packet(modules, &values, 1, packet, 4, &size) == SBK_ERROR_BUFFER_TOO_SMALL && size == 8);

  /* Admission: carried constants take any value; a fixed one only its default. */
  a = admit(&module, map, 2, u32, sizeof u32);
  CHECK(a.reason == SBK_SPECCONST_ADMITTED);
  u32[0] = 4; /* the array's default length */
  map[0].constant_id = 0; map[0].offset = 0;
  a = admit(&module, map, 1, u32, sizeof u32);
  CHECK(a.reason == SBK_SPECCONST_ADMITTED);
  u32[0] = 8;
  a = admit(&module, map, 1, u32, sizeof u32);
  CHECK(a.reason == SBK_SPECCONST_ARRAY_SIZE && a.stage == 32u && a.constant_id == 0);
  map[0].constant_id = 3; /* the initializer's */
  a = admit(&module, map, 1, u32, sizeof u32);
  CHECK(a.reason == SBK_SPECCONST_MODULE_SCOPE_USE && a.constant_id == 3);
  map[0].constant_id = 1;
  a = admit(&module, map, 1, u32, sizeof u32);
  CHECK(a.reason == SBK_SPECCONST_WORKGROUP_SIZE && a.constant_id == 1);
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
  want[0] = 2; want[1] = 1; want[2] = 2; want[3] = 0; want[4] = 1; want[5] = 0;
  put32(want + 6, 16u);
  memcpy(want + 10, module.hash, 16);
  want[26] = 2; want[27] = 0; want[28] = 0; want[29] = 0;
  /* Each: id, type, width, fixed_by (0: both feed only OpSpecConstantOps a function could compute), at default
   * (0: 42 is not -5, false is not true), value bits. */
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
  classification();
  if (sbk_test_failures == 0) printf("specconst header (C): all checks passed\n");
  return sbk_test_failures == 0 ? 0 : 1;
}
