/* SPDX-License-Identifier: MIT */
/* runtime_loader/shaderbake_nv2a.h alone (it includes shaderbake.h itself): the keys, admission and packet of
 * a one-stage program, each checked. */
#include "runtime_loader/shaderbake_nv2a.h"

int header_alone_nv2a(void);

int header_alone_nv2a(void) {
  int failures = 0, i;
  sbk_nv2a_program program = {0}, decoded = {0}, unpacked = {0};
  uint8_t exact[SBK_NV2A_EXACT_KEY_SIZE], again[SBK_NV2A_EXACT_KEY_SIZE], family[SBK_NV2A_FAMILY_KEY_SIZE];
  uint8_t packet[SBK_NV2A_PACKET_SIZE], block[SBK_NV2A_DYNAMIC_BLOCK_SIZE];
  sbk_nv2a_dynamic dynamic = {{0}};
  const char* where = NULL;
  const char* name;

  program.combiner_control = 1; /* one general stage, every input register zero: valid */
  failures += sbk_nv2a_stage_count(&program) != 1;
  failures += sbk_nv2a_admit(&program, &where) != SBK_NV2A_OK;
  name = sbk_nv2a_reason_name(SBK_NV2A_OK);
  failures += name == NULL || name[0] != 'o' || name[1] != 'k' || name[2] != '\0';
  sbk_nv2a_encode_exact_key(&program, exact);
  failures += exact[0] != SBK_GUEST_NV2A || exact[1] != SBK_KEY_KIND_EXACT;
  failures += sbk_nv2a_decode_exact_key(exact, &decoded) != SBK_OK;
  sbk_nv2a_encode_exact_key(&decoded, again);
  for (i = 0; i < SBK_NV2A_EXACT_KEY_SIZE; ++i) failures += exact[i] != again[i];
  sbk_nv2a_encode_family_key(&program, family);
  sbk_nv2a_encode_packet(&program, packet);
  failures += sbk_nv2a_decode_packet(packet, family, &unpacked) != SBK_OK ||
              unpacked.combiner_control != program.combiner_control;
  dynamic.alpha_ref = 7;
  sbk_nv2a_pack_dynamic(&dynamic, block);
  failures += block[304] != 7;
  return failures;
}
