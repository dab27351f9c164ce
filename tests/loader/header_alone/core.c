/* SPDX-License-Identifier: MIT */
/* runtime_loader/shaderbake.h alone: nothing else is included, so a missing include or a construct of another
 * language version fails to compile. Checks a host state and a pipeline key round trip and a refused open. */
#include "runtime_loader/shaderbake.h"

int header_alone_core(void);

static int same_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

int header_alone_core(void) {
  int failures = 0;
  sbk_host_state host = {0}, decoded = {0};
  uint8_t bytes[SBK_HOST_STATE_MAX_SIZE], again[SBK_HOST_STATE_MAX_SIZE];
  uint8_t key[SBK_PIPELINE_KEY_MAX_SIZE(8)];
  const uint8_t fragment[8] = {SBK_GUEST_NONE, SBK_KEY_KIND_FAMILY, 1, 0, 1, 0, 0, 0};
  const uint8_t* fragment_out = NULL;
  size_t size = 0, size_again = 0, consumed = 0, key_size = 0, fragment_size = 0;
  uint8_t route = 0;
  uint64_t not_a_bundle[8] = {0};
  sbk_bundle bundle;
  sbk_key_hash h1, h2;

  host.topology = 3; /* VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST */
  host.samples = 1;
  host.color_count = 1;
  host.color_formats[0] = 37; /* VK_FORMAT_R8G8B8A8_UNORM */
  host.blend[0].write_mask = SBK_WRITE_R | SBK_WRITE_G | SBK_WRITE_B | SBK_WRITE_A;
  host.binding_count = 1;
  host.bindings[0].stride = 16;
  host.attribute_count = 1;
  host.attributes[0].location = 0;
  host.attributes[0].format = 109; /* VK_FORMAT_R32G32B32A32_SFLOAT */

  failures += sbk_encode_host_state(&host, bytes, sizeof bytes, &size) != SBK_OK;
  failures += sbk_decode_host_state(bytes, size, &decoded, &consumed) != SBK_OK || consumed != size;
  failures += sbk_encode_host_state(&decoded, again, sizeof again, &size_again) != SBK_OK || size_again != size ||
              !same_bytes(bytes, again, size);
  failures += sbk_encode_pipeline_key(SBK_ROUTE_FALLBACK, fragment, sizeof fragment, &host, key, sizeof key,
                                      &key_size) != SBK_OK;
  failures += sbk_decode_pipeline_key(key, key_size, &route, &fragment_out, &fragment_size, &decoded) != SBK_OK ||
              route != SBK_ROUTE_FALLBACK || fragment_size != sizeof fragment ||
              !same_bytes(fragment_out, fragment, sizeof fragment);
  h1 = sbk_hash_key(key, key_size);
  h2 = sbk_hash_key(key, key_size);
  failures += h1.low != h2.low || h1.high != h2.high;
  failures += sbk_bundle_open_memory(&bundle, not_a_bundle, sizeof not_a_bundle) != SBK_ERROR_NOT_A_BUNDLE;
  failures += sbk_result_name(SBK_ERROR_VERSION) == NULL;
  return failures;
}
