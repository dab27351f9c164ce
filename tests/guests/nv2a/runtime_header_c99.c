/* SPDX-License-Identifier: MIT */
/* The runtime headers as a C99 renderer of the nv2a guest uses them: implementation in this translation unit,
 * keys checked byte by byte against the layouts of schemas/keys.md (written out here by hand from that
 * document). */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

#include <stdio.h>
#include <string.h>

#include "tests/loader/check.h"

static void put32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static void test_exact_key_layout(void) {
  sbk_nv2a_program p;
  uint8_t key[SBK_NV2A_EXACT_KEY_SIZE];
  uint8_t expected[166];
  memset(&p, 0, sizeof p);
  p.combiner_control = 0x00011002u; /* 2 stages */
  p.rgb_inputs[0] = 0x04200000u;
  p.rgb_outputs[0] = 0x000000C0u;
  p.alpha_inputs[0] = 0x18140000u;
  p.alpha_outputs[0] = 0x000000C0u;
  p.rgb_inputs[1] = 0x0C2D0000u;
  p.rgb_outputs[1] = 0x00000CD0u;
  p.alpha_inputs[1] = 0x1C300000u;
  p.alpha_outputs[1] = 0x00000C00u;
  p.rgb_inputs[2] = 0xDEADBEEFu; /* past the stage count: ignored */
  p.final_inputs[0] = 0x0000000Cu;
  p.final_inputs[1] = 0x00001C00u;
  p.texture_modes[0] = SBK_NV2A_TEXTURE_PROJECT2D;
  p.texture_enabled[0] = 1;
  p.texture_modes[2] = SBK_NV2A_TEXTURE_CUBE; /* disabled: ignored */
  p.alpha_test_enabled = 1;
  p.alpha_test_func = SBK_COMPARE_GREATER;
  p.texture_alpha_kill[0] = 1;
  p.texture_color_key[0] = SBK_NV2A_COLOR_KEY_DISCARD;
  p.texture_signed[0] = SBK_NV2A_SIGNED_G | SBK_NV2A_SIGNED_B;
  p.texture_format[0] = SBK_NV2A_FORMAT_XRGB8;
  p.clip_plane_mode = 0x0000F00Fu;  /* no stage runs clipplane: ignored */
  p.dot_rgb_mapping = 0x00000300u;  /* stage 3 runs no dot mode: ignored */

  /* schemas/keys.md, "nv2a exact key", schema version 2. */
  memset(expected, 0, sizeof expected);
  expected[0] = 1;    /* guest nv2a */
  expected[1] = 1;    /* kind exact */
  expected[2] = 2;    /* schema version 2, u16 LE */
  expected[3] = 0;
  put32(expected + 4, 0x00011002u);
  put32(expected + 8, 0x04200000u);
  put32(expected + 12, 0x000000C0u);
  put32(expected + 16, 0x18140000u);
  put32(expected + 20, 0x000000C0u);
  put32(expected + 24, 0x0C2D0000u);
  put32(expected + 28, 0x00000CD0u);
  put32(expected + 32, 0x1C300000u);
  put32(expected + 36, 0x00000C00u);
  /* stages 2..7 stay zero: bytes 40..135 */
  put32(expected + 136, 0x0000000Cu);
  put32(expected + 140, 0x00001C00u);
  expected[144] = 1; /* project2d */
  expected[148] = 4; /* greater */
  /* 149: no undocumented bits; 150-152: stage 0 reads no dot mapping, input or clip nibble */
  expected[153] = 1 | (3 << 1) | ((4 | 8) << 3) | 0x80; /* alpha kill, discard key, G and B signed, XRGB */

  sbk_nv2a_encode_exact_key(&p, key);
  SBK_TEST_CHECK(memcmp(key, expected, sizeof expected) == 0);
}

static void test_family_key_layout(void) {
  sbk_nv2a_program p;
  uint8_t key[SBK_NV2A_FAMILY_KEY_SIZE];
  const uint8_t expected[9] = {1, 2, 2, 0, /* samplers: */ 1, 0, 3, 2, /* no depth write */ 0};
  memset(&p, 0, sizeof p);
  p.combiner_control = 1;
  p.texture_modes[0] = SBK_NV2A_TEXTURE_PROJECT2D;
  p.texture_modes[1] = SBK_NV2A_TEXTURE_PASSTHRU;
  p.texture_modes[2] = SBK_NV2A_TEXTURE_CUBE;
  p.texture_modes[3] = SBK_NV2A_TEXTURE_PROJECT3D;
  p.texture_enabled[0] = p.texture_enabled[1] = p.texture_enabled[2] = p.texture_enabled[3] = 1;
  sbk_nv2a_encode_family_key(&p, key);
  SBK_TEST_CHECK(memcmp(key, expected, sizeof expected) == 0);
}

static void test_host_state_layout(void) {
  sbk_host_state h;
  uint8_t out[SBK_HOST_STATE_MAX_SIZE];
  uint8_t expected[128];
  size_t size = 0, n = 0;
  memset(&h, 0, sizeof h);
  h.topology = 3;
  h.cull_mode = 2;
  h.depth_test = 1;
  h.depth_write = 1;
  h.depth_compare = 3;
  h.stencil_test = 1; /* ignored: d32_sfloat has no stencil aspect */
  h.stencil_front.reference = 9;
  h.color_count = 1;
  h.color_formats[0] = 37;
  h.blend[0].enable = 0;
  h.blend[0].src_color = 6; /* ignored: blending off */
  h.blend[0].write_mask = 15;
  h.depth_format = 126; /* D32_SFLOAT */
  h.samples = 1;
  h.dynamic_states = SBK_DYNAMIC_VIEWPORT | SBK_DYNAMIC_SCISSOR;
  h.binding_count = 2;
  h.bindings[0].binding = 3; /* declared out of order: written in binding order */
  h.bindings[0].stride = 8;
  h.bindings[1].binding = 0;
  h.bindings[1].stride = 16;
  h.attribute_count = 2;
  h.attributes[0].location = SBK_NV2A_LOCATION_TEXCOORD0;
  h.attributes[0].binding = 3;
  h.attributes[0].format = 103;
  h.attributes[1].location = SBK_NV2A_LOCATION_POSITION;
  h.attributes[1].binding = 0;
  h.attributes[1].format = 109;

  /* schemas/keys.md, "host state v1". */
  memset(expected, 0, sizeof expected);
  expected[n++] = 3; expected[n++] = 0; expected[n++] = 2; expected[n++] = 0; /* topology..front_face */
  expected[n++] = 1; expected[n++] = 1; expected[n++] = 3;                    /* depth */
  expected[n++] = 0;                                                           /* stencil off */
  n += 16 + 16;                                                                /* two zero faces */
  expected[n++] = 1;                                                           /* colour count */
  put32(expected + n, 37); n += 4;
  expected[n++] = 0; n += 6; expected[n++] = 15;                               /* blend off, mask */
  put32(expected + n, 126); n += 4;
  expected[n++] = 1;                                                           /* samples */
  put32(expected + n, 3); n += 4;                                              /* dynamic: viewport|scissor */
  expected[n++] = 2;                                                           /* bindings */
  put32(expected + n, 0); n += 4; put32(expected + n, 16); n += 4; expected[n++] = 0;
  put32(expected + n, 3); n += 4; put32(expected + n, 8); n += 4; expected[n++] = 0;
  expected[n++] = 2;                                                           /* attributes, by semantic */
  expected[n++] = SBK_NV2A_LOCATION_POSITION; expected[n++] = 0; put32(expected + n, 109); n += 4; put32(expected + n, 0); n += 4;
  expected[n++] = SBK_NV2A_LOCATION_TEXCOORD0; expected[n++] = 3; put32(expected + n, 103); n += 4; put32(expected + n, 0); n += 4;

  SBK_TEST_CHECK(sbk_encode_host_state(&h, out, sizeof out, &size) == SBK_OK);
  SBK_TEST_CHECK(size == n);
  SBK_TEST_CHECK(memcmp(out, expected, n) == 0);
}

static void test_hash_is_xxh3_128(void) {
  /* XXH3-128 of the empty input, seed 0 (from the xxHash reference implementation's test vectors). */
  const sbk_key_hash h = sbk_hash_key("", 0);
  SBK_TEST_CHECK(h.low == 0x6001C324468D497FULL);
  SBK_TEST_CHECK(h.high == 0x99AA06D3014798D8ULL);
}

int main(void) {
  test_exact_key_layout();
  test_family_key_layout();
  test_host_state_layout();
  test_hash_is_xxh3_128();
  if (sbk_test_failures) {
    fprintf(stderr, "%d failed\n", sbk_test_failures);
    return 1;
  }
  printf("runtime header (C99): all checks passed\n");
  return 0;
}
