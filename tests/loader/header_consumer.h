/* SPDX-License-Identifier: MIT */
/*
 * The body of the header-consumption programs: what a renderer does with a bundle, in the subset of C99 that
 * is also C++ (this file is compiled as C99, C11, C++17 and C++20, with and without the Vulkan helpers, and
 * with the implementation in the same or in another translation unit; see header_consumer.c/.cpp).
 * The includer has included runtime_loader/shaderbake.h and shaderbake_nv2a.h (and shaderbake_vulkan.h when
 * SBK_TEST_VULKAN). Each header alone is compiled by header_alone/.
 * Usage: PROGRAM BUNDLE. Opens the bundle and checks that it is an nv2a bundle (as a renderer must: open
 * checks the format only), counts its entries by kind, follows the first pipeline recipe to its modules and
 * layout, probes a key the bundle cannot hold, and prints what it found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__cplusplus) && __cplusplus >= 202002L
#define SBK_TEST_LANGUAGE "C++20"
#elif defined(__cplusplus) && __cplusplus >= 201703L
#define SBK_TEST_LANGUAGE "C++17"
#elif defined(__cplusplus)
#define SBK_TEST_LANGUAGE "C++"
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SBK_TEST_LANGUAGE "C11"
#else
#define SBK_TEST_LANGUAGE "C99"
#endif

#ifdef SBK_TEST_VULKAN
#define SBK_TEST_VULKAN_NAME ", Vulkan helpers"
#else
#define SBK_TEST_VULKAN_NAME ""
#endif

#ifdef SHADERBAKE_IMPLEMENTATION
#define SBK_TEST_IMPLEMENTATION_NAME "implementation in this translation unit"
#else
#define SBK_TEST_IMPLEMENTATION_NAME "implementation in a C translation unit"
#endif

#include "tests/loader/check.h"

/* Reads module `index` into a fresh buffer of exactly its size and checks it starts with the SPIR-V magic. */
static uint32_t consumer_read_module(const sbk_bundle* bundle, uint32_t index, uint32_t want_stage) {
  sbk_module_info info;
  size_t size = 0;
  unsigned char* bytes;
  SBK_TEST_CHECK(sbk_bundle_module_info(bundle, index, &info) == SBK_OK);
  SBK_TEST_CHECK(info.stage == want_stage);
  SBK_TEST_CHECK(sbk_bundle_read_module(bundle, index, NULL, 0, &size, NULL) == SBK_ERROR_BUFFER_TOO_SMALL);
  SBK_TEST_CHECK(size == info.raw_size);
  bytes = (unsigned char*)malloc(info.raw_size);
  if (bytes == NULL) return 0;
  SBK_TEST_CHECK(sbk_bundle_read_module(bundle, index, bytes, info.raw_size, &size, NULL) == SBK_OK);
  SBK_TEST_CHECK(size == info.raw_size && bytes[0] == 0x03 && bytes[1] == 0x02 && bytes[2] == 0x23 && bytes[3] == 0x07);
  {
    /* A module reader gives the same bytes. */
    sbk_module_reader reader;
    unsigned char* again = (unsigned char*)malloc(info.raw_size);
    SBK_TEST_CHECK(again != NULL && sbk_module_reader_init(&reader, bundle) == SBK_OK);
    if (again != NULL) {
      SBK_TEST_CHECK(sbk_module_reader_read(&reader, index, again, info.raw_size, &size) == SBK_OK);
      SBK_TEST_CHECK(size == info.raw_size && memcmp(again, bytes, size) == 0);
    }
    sbk_module_reader_free(&reader);
    free(again);
  }
  free(bytes);
  return info.raw_size;
}

static int consume(const char* path) {
  sbk_bundle bundle;
  sbk_entry entry, found;
  sbk_layout layout;
  sbk_host_state host;
  uint32_t i, kinds[5] = {0, 0, 0, 0, 0}, first_pipeline = SBK_NO_MODULE;
  uint8_t key[1024];
  size_t key_size = 0;
  uint32_t vertex_bytes = 0, fragment_bytes = 0;
  uint8_t route = 0;
  const uint8_t* fragment_key = NULL;
  size_t fragment_key_size = 0;
  uint8_t absent[SBK_NV2A_FAMILY_KEY_SIZE] = {SBK_GUEST_NV2A, SBK_KEY_KIND_FAMILY, 0xFF, 0xFF, 0, 0, 0, 0};
  sbk_header_info info;
  sbk_result r = sbk_bundle_open_file(&bundle, path);
  if (r != SBK_OK) {
    fprintf(stderr, "error: %s: %s\n", path, sbk_result_name(r));
    return 1;
  }
  SBK_TEST_CHECK(sbk_nv2a_check_bundle(&bundle) == SBK_OK);
  sbk_bundle_info(&bundle, &info);
  SBK_TEST_CHECK(info.format_major == SBK_BUNDLE_FORMAT_MAJOR && info.format_minor == sbk_bundle_format_minor(&bundle));
  SBK_TEST_CHECK(info.guest == SBK_GUEST_NV2A && info.key_schema == SBK_NV2A_KEY_SCHEMA_VERSION);
  SBK_TEST_CHECK(sbk_bundle_check_sections(&bundle) == SBK_OK);

  for (i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
    SBK_TEST_CHECK(sbk_bundle_entry_at(&bundle, i, &entry) == SBK_OK);
    if (entry.kind >= 1 && entry.kind <= 4) ++kinds[entry.kind];
    if (entry.kind == SBK_KEY_KIND_PIPELINE && first_pipeline == SBK_NO_MODULE) first_pipeline = i;
  }
  SBK_TEST_CHECK(sbk_bundle_entry_at(&bundle, i, &entry) == SBK_NOT_FOUND);
  SBK_TEST_CHECK(first_pipeline != SBK_NO_MODULE);
  if (first_pipeline == SBK_NO_MODULE) {
    sbk_bundle_close(&bundle);
    return 1;
  }

  /* A renderer's probe: the pipeline key it computed (here: the stored one, assembled) finds the recipe. */
  SBK_TEST_CHECK(sbk_bundle_entry_at(&bundle, first_pipeline, &entry) == SBK_OK);
  SBK_TEST_CHECK(entry.key == NULL && entry.key_size <= sizeof key);
  SBK_TEST_CHECK(sbk_bundle_entry_key(&bundle, first_pipeline, key, sizeof key, &key_size) == SBK_OK &&
                 key_size == entry.key_size);
  SBK_TEST_CHECK(sbk_bundle_find(&bundle, key, key_size, &found) == SBK_OK);
  SBK_TEST_CHECK(found.index == first_pipeline && found.status == SBK_STATUS_READY);
  SBK_TEST_CHECK(sbk_decode_pipeline_key(key, key_size, &route, &fragment_key, &fragment_key_size, &host) == SBK_OK);
  {
    sbk_host_state stored;
    uint8_t a[SBK_HOST_STATE_MAX_SIZE], b[SBK_HOST_STATE_MAX_SIZE];
    size_t a_size = 0, b_size = 0;
    SBK_TEST_CHECK(sbk_bundle_entry_host_state(&bundle, first_pipeline, &stored) == SBK_OK);
    SBK_TEST_CHECK(sbk_encode_host_state(&stored, a, sizeof a, &a_size) == SBK_OK &&
                   sbk_encode_host_state(&host, b, sizeof b, &b_size) == SBK_OK && a_size == b_size &&
                   memcmp(a, b, a_size) == 0);
  }
  SBK_TEST_CHECK(route == SBK_ROUTE_EXACT || route == SBK_ROUTE_FALLBACK);
  vertex_bytes = consumer_read_module(&bundle, found.vertex_module, 1u);
  fragment_bytes = consumer_read_module(&bundle, found.fragment_module, 16u);
  SBK_TEST_CHECK(sbk_bundle_layout(&bundle, found.layout, &layout) == SBK_OK);
  /* The fragment identity inside the pipeline key is itself an entry of the bundle. */
  if (fragment_key != NULL) {
    sbk_entry fragment;
    SBK_TEST_CHECK(sbk_bundle_find(&bundle, fragment_key, fragment_key_size, &fragment) == SBK_OK);
    SBK_TEST_CHECK(fragment.kind ==
                   (route == SBK_ROUTE_EXACT ? (uint32_t)SBK_KEY_KIND_EXACT : (uint32_t)SBK_KEY_KIND_FAMILY));
  }
  /* A key of a schema version no bundle holds: the normal miss. */
  SBK_TEST_CHECK(sbk_bundle_find(&bundle, absent, sizeof absent, &found) == SBK_NOT_FOUND);

#ifdef SBK_TEST_VULKAN
  {
    sbk_vk_pipeline_storage storage;
    VkGraphicsPipelineCreateInfo pipeline;
    VkDescriptorSetLayoutBinding bindings[SBK_MAX_LAYOUT_BINDINGS];
    VkDescriptorSetLayoutCreateInfo set_layout;
    sbk_vk_fill_pipeline(&host, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, &storage, &pipeline);
    SBK_TEST_CHECK(pipeline.sType == VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO && pipeline.stageCount == 2);
    SBK_TEST_CHECK(pipeline.pVertexInputState->vertexAttributeDescriptionCount == host.attribute_count);
    SBK_TEST_CHECK(pipeline.pColorBlendState->attachmentCount == host.color_count);
    sbk_vk_fill_set_layout(&layout, bindings, &set_layout);
    SBK_TEST_CHECK(set_layout.bindingCount == layout.binding_count);
  }
#endif

  printf(
      "header consumer (%s%s, %s): %u entries (%u specializations, %u families, %u pipelines), %u modules, "
      "%u layouts; pipeline entry %u: vertex module %u (%u bytes), fragment module %u (%u bytes), layout %u with "
      "%u bindings\n",
      SBK_TEST_LANGUAGE, SBK_TEST_VULKAN_NAME, SBK_TEST_IMPLEMENTATION_NAME, sbk_bundle_entry_count(&bundle), kinds[1],
      kinds[2], kinds[3], sbk_bundle_module_count(&bundle), sbk_bundle_layout_count(&bundle), first_pipeline,
      entry.vertex_module, vertex_bytes, entry.fragment_module, fragment_bytes, entry.layout, layout.binding_count);
  sbk_bundle_close(&bundle);
  return sbk_test_failures ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BUNDLE\n", argv[0]);
    return 2;
  }
  return consume(argv[1]);
}
