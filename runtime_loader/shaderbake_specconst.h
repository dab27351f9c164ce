/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_specconst.h — the specconst guest model (shaders with Vulkan specialization constants) as a
 * renderer needs it at pipeline creation: what its modules declare (read from their own SPIR-V), and the
 * canonical exact key of a pipeline's modules with the values a VkSpecializationInfo gives them. The shaderbake
 * tool compiles this same code.
 *
 * Who includes it: a renderer whose shaders carry `layout(constant_id = N)` constants, next to shaderbake.h.
 * It includes shaderbake.h (outside its own include guard, for the same reason as shaderbake_nv2a.h).
 * Implementation: SHADERBAKE_IMPLEMENTATION in one translation unit. Needs libc and what shaderbake.h needs;
 * no Vulkan (sbk_specconst_map_entry has VkSpecializationMapEntry's layout, so a renderer passes its own).
 *
 * Contracts: no allocation, no global state, no I/O; every function is thread-safe and re-entrant; NULL where a
 * pointer is required is checked with SBK_ASSERT; every byte of a module is untrusted (a malformed module is
 * an error, never an out-of-bounds read). schemas/keys.md documents the key layout byte by byte.
 */
#include "shaderbake.h" /* outside the guard: see the top comment */

#ifndef SHADERBAKE_SPECCONST_H
#define SHADERBAKE_SPECCONST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBK_SPECCONST_KEY_SCHEMA_VERSION 1
#define SBK_SPECCONST_MAX_CONSTANTS 64 /* per module */
#define SBK_SPECCONST_MAX_STAGES 2     /* a graphics pipeline's vertex and fragment module, or one compute module */

/* The scalar type of a specialization constant. */
typedef enum sbk_specconst_type {
  SBK_SPECCONST_BOOL = 0,
  SBK_SPECCONST_INT = 1,  /* signed */
  SBK_SPECCONST_UINT = 2,
  SBK_SPECCONST_FLOAT = 3
} sbk_specconst_type;

/* One specialization constant a module declares. */
typedef struct sbk_specconst_constant {
  uint32_t id;           /* SpecId (GLSL constant_id; local_size_x_id's too) */
  uint8_t type;          /* sbk_specconst_type */
  uint8_t width;         /* bits: 32 or 64 (a bool counts 32, as VkBool32) */
  uint8_t used;          /* 1 when any instruction but debug names and decorations refers to it: an unused
                          * constant cannot change what the module does, so no key holds it */
  uint64_t default_bits; /* its value when a pipeline gives none: the literal's bits (a bool: 0 or 1) */
} sbk_specconst_constant;

/* What a module is for the keys: its stage, its content hash and its constants, sorted by id. */
typedef struct sbk_specconst_module {
  uint32_t stage;          /* VkShaderStageFlagBits: 1 vertex, 16 fragment, 32 compute */
  uint8_t hash[16];        /* XXH3-128 of the module's bytes (the words, little-endian), high half first */
  uint32_t constant_count;
  sbk_specconst_constant constants[SBK_SPECCONST_MAX_CONSTANTS];
} sbk_specconst_module;

/* Reads the specialization constants a SPIR-V module declares (OpSpecConstantTrue/False and OpSpecConstant of
 * a 32- or 64-bit int or float with a SpecId) and whether each is used, and hashes the module. `stage` is
 * copied as it is. SBK_ERROR_INVALID_STATE for words that are not a SPIR-V module (magic, an instruction
 * running past the end, a zero word count), a SpecId given twice, a decorated constant of another type, or more
 * than SBK_SPECCONST_MAX_CONSTANTS constants; `out` is then zeroed. */
SBK_API sbk_result sbk_specconst_scan_module(const uint32_t* words, size_t word_count, uint32_t stage,
                                             sbk_specconst_module* out);

/* One value of a VkSpecializationInfo: the same layout as VkSpecializationMapEntry. */
typedef struct sbk_specconst_map_entry {
  uint32_t constant_id;
  uint32_t offset;
  size_t size;
} sbk_specconst_map_entry;

/* The values one stage is created with (VkSpecializationInfo's fields); map_count 0 for none. */
typedef struct sbk_specconst_values {
  uint32_t map_count;
  const sbk_specconst_map_entry* map;
  size_t data_size;
  const void* data;
} sbk_specconst_values;

/* Largest exact key of a pipeline of `stages` modules with `constants` used constants in all. */
#define SBK_SPECCONST_EXACT_KEY_MAX_SIZE(stages, constants) (6u + 24u * (stages) + 16u * (constants))

/* Writes the canonical exact key of a pipeline (compute: one module; graphics: vertex then fragment) created
 * with `values[i]` for `modules[i]`: per module its stage, hash and the value of every used constant it declares
 * (the value given, else its default; a bool as 0 or 1), sorted by id. Values for ids a module does not declare
 * or does not use are ignored, as Vulkan ignores them; declaring a constant at its default equals omitting it.
 * SBK_ERROR_INVALID_STATE when `stage_count` is 0 or above SBK_SPECCONST_MAX_STAGES, when a value for a used
 * constant has a size other than its width / 8 or lies outside `data`, or when an id is given twice;
 * SBK_ERROR_BUFFER_TOO_SMALL when the key does not fit `capacity` (`*size_out` then says how much it needs). */
SBK_API sbk_result sbk_specconst_encode_exact_key(const sbk_specconst_module* const* modules,
                                                  const sbk_specconst_values* values, uint32_t stage_count,
                                                  uint8_t* out, size_t capacity, size_t* size_out);

/* Size of the fallback family key of a pipeline of `stages` modules. */
#define SBK_SPECCONST_FAMILY_KEY_SIZE(stages) (6u + 20u * (stages))

/* Writes the fallback family key of a pipeline of `modules` (compute: one; graphics: vertex then fragment): per
 * module its stage and hash. SBK_ERROR_INVALID_STATE when `stage_count` is 0 or above SBK_SPECCONST_MAX_STAGES;
 * SBK_ERROR_BUFFER_TOO_SMALL when the key does not fit `capacity` (`*size_out` says how much it needs). */
SBK_API sbk_result sbk_specconst_encode_family_key(const sbk_specconst_module* const* modules, uint32_t stage_count,
                                                   uint8_t* out, size_t capacity, size_t* size_out);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_SPECCONST_H */

/* ===================================================================================================== */
#if defined(SHADERBAKE_IMPLEMENTATION) && !defined(SHADERBAKE_SPECCONST_IMPLEMENTATION_DONE)
#define SHADERBAKE_SPECCONST_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SPIR-V opcodes and the decoration this scanner reads (SPIR-V 1.6, section 3). */
enum {
  SBK__SPV_MAGIC = 0x07230203u,
  SBK__OP_NAME = 5,
  SBK__OP_MEMBER_NAME = 6,
  SBK__OP_STRING = 7,
  SBK__OP_LINE = 8,
  SBK__OP_TYPE_VOID = 19,
  SBK__OP_TYPE_BOOL = 20,
  SBK__OP_TYPE_INT = 21,
  SBK__OP_TYPE_FLOAT = 22,
  SBK__OP_TYPE_FORWARD_POINTER = 39,
  SBK__OP_SPEC_CONSTANT_TRUE = 48,
  SBK__OP_SPEC_CONSTANT_FALSE = 49,
  SBK__OP_SPEC_CONSTANT = 50,
  SBK__OP_DECORATE = 71,
  SBK__OP_MEMBER_DECORATE = 72,
  SBK__OP_DECORATION_GROUP = 73,
  SBK__OP_GROUP_DECORATE = 74,
  SBK__OP_GROUP_MEMBER_DECORATE = 75,
  SBK__OP_MODULE_PROCESSED = 330,
  SBK__OP_DECORATE_STRING = 5632,
  SBK__OP_MEMBER_DECORATE_STRING = 5633,
  SBK__DECORATION_SPEC_ID = 1
};

/* Instructions whose id operands name something without using it: debug names and decorations. */
static int sbk__spv_only_names(uint32_t opcode) {
  return opcode == SBK__OP_NAME || opcode == SBK__OP_MEMBER_NAME || opcode == SBK__OP_STRING || opcode == SBK__OP_LINE ||
         opcode == SBK__OP_DECORATE || opcode == SBK__OP_MEMBER_DECORATE || opcode == SBK__OP_DECORATION_GROUP ||
         opcode == SBK__OP_GROUP_DECORATE || opcode == SBK__OP_GROUP_MEMBER_DECORATE ||
         opcode == SBK__OP_MODULE_PROCESSED || opcode == SBK__OP_DECORATE_STRING ||
         opcode == SBK__OP_MEMBER_DECORATE_STRING;
}

/* The constant of `out` whose result id is `id`, or NULL (`result_ids[k]` is constant k's). */
static sbk_specconst_constant* sbk__spv_constant_of(sbk_specconst_module* out, const uint32_t* result_ids, uint32_t id) {
  uint32_t k;
  for (k = 0; k < out->constant_count; ++k)
    if (result_ids[k] == id) return &out->constants[k];
  return NULL;
}

SBK_API sbk_result sbk_specconst_scan_module(const uint32_t* words, size_t word_count, uint32_t stage,
                                             sbk_specconst_module* out) {
  /* Result ids and SpecIds, parallel to out->constants while scanning. */
  uint32_t result_ids[SBK_SPECCONST_MAX_CONSTANTS];
  uint32_t spec_target[SBK_SPECCONST_MAX_CONSTANTS], spec_id[SBK_SPECCONST_MAX_CONSTANTS];
  uint32_t spec_count = 0, k, j;
  size_t at;
  sbk_key_hash h;
  SBK_ASSERT(out != NULL && (words != NULL || word_count == 0));
  memset(out, 0, sizeof *out);
  out->stage = stage;
  if (word_count < 5 || words[0] != SBK__SPV_MAGIC) return SBK_ERROR_INVALID_STATE;
  /* Pass 1: SpecId decorations. */
  for (at = 5; at < word_count;) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFFu;
    if (count == 0 || count > word_count - at) goto malformed;
    if (opcode == SBK__OP_DECORATE && count >= 4 && words[at + 2] == SBK__DECORATION_SPEC_ID) {
      for (k = 0; k < spec_count; ++k)
        if (spec_id[k] == words[at + 3] || spec_target[k] == words[at + 1]) goto malformed;
      if (spec_count == SBK_SPECCONST_MAX_CONSTANTS) goto malformed;
      spec_target[spec_count] = words[at + 1];
      spec_id[spec_count] = words[at + 3];
      ++spec_count;
    }
    at += count;
  }
  /* Pass 2: the decorated constants, their types and defaults; every other reference marks a use. */
  for (at = 5; at < word_count;) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFFu;
    if (opcode == SBK__OP_SPEC_CONSTANT_TRUE || opcode == SBK__OP_SPEC_CONSTANT_FALSE || opcode == SBK__OP_SPEC_CONSTANT) {
      uint32_t result, type_id;
      sbk_specconst_constant c;
      size_t t;
      int found = 0, decorated = -1;
      if (count < 3) goto malformed;
      type_id = words[at + 1];
      result = words[at + 2];
      for (k = 0; k < spec_count; ++k)
        if (spec_target[k] == result) decorated = (int)k;
      if (decorated >= 0) {
        memset(&c, 0, sizeof c);
        c.id = spec_id[decorated];
        /* The result type: declared before (SPIR-V's logical layout), found by a scan from the start. Only a
         * type declaration (OpTypeVoid..OpTypeForwardPointer, result id in word 1) decides: other instructions
         * carry an enum or another id in word 1 (OpEntryPoint's execution model, OpCapability, OpName). */
        for (t = 5; t < at; t += words[t] >> 16) {
          const uint32_t topcode = words[t] & 0xFFFFu, tcount = words[t] >> 16;
          if (topcode < SBK__OP_TYPE_VOID || topcode > SBK__OP_TYPE_FORWARD_POINTER || tcount < 2 ||
              words[t + 1] != type_id)
            continue;
          if (topcode == SBK__OP_TYPE_BOOL) {
            c.type = SBK_SPECCONST_BOOL;
            c.width = 32;
            found = 1;
          } else if ((topcode == SBK__OP_TYPE_INT && tcount == 4) || (topcode == SBK__OP_TYPE_FLOAT && tcount >= 3)) {
            c.width = (uint8_t)words[t + 2];
            c.type = topcode == SBK__OP_TYPE_FLOAT ? SBK_SPECCONST_FLOAT : words[t + 3] ? SBK_SPECCONST_INT : SBK_SPECCONST_UINT;
            found = words[t + 2] == 32u || words[t + 2] == 64u;
          }
          break;
        }
        if (!found || (opcode == SBK__OP_SPEC_CONSTANT) == (c.type == SBK_SPECCONST_BOOL)) goto malformed;
        if (opcode == SBK__OP_SPEC_CONSTANT) {
          if (count != 3u + c.width / 32u) goto malformed;
          c.default_bits = words[at + 3];
          if (c.width == 64) c.default_bits |= (uint64_t)words[at + 4] << 32;
        } else {
          c.default_bits = opcode == SBK__OP_SPEC_CONSTANT_TRUE;
        }
        if (out->constant_count == SBK_SPECCONST_MAX_CONSTANTS) goto malformed;
        result_ids[out->constant_count] = result;
        out->constants[out->constant_count++] = c;
      }
    } else if (!sbk__spv_only_names(opcode) && out->constant_count > 0) {
      /* Any operand word equal to a constant's result id counts as a use: a literal that happens to equal one
       * keeps a constant in the key that need not be (a spare variant, never a wrong hit). */
      for (j = 1; j < count; ++j) {
        sbk_specconst_constant* c = sbk__spv_constant_of(out, result_ids, words[at + j]);
        if (c != NULL) c->used = 1;
      }
    }
    at += count;
  }
  /* A SpecId on anything but such a constant (a composite, an OpSpecConstantOp) is not a specialization
   * constant a pipeline can set. */
  if (out->constant_count != spec_count) goto malformed;
  /* Sorted by id (insertion: at most 64). */
  for (k = 1; k < out->constant_count; ++k) {
    const sbk_specconst_constant c = out->constants[k];
    j = k;
    while (j > 0 && out->constants[j - 1].id > c.id) {
      out->constants[j] = out->constants[j - 1];
      --j;
    }
    out->constants[j] = c;
  }
  {
    /* The hash of the module's bytes as a file holds them (little-endian words), in pieces. */
    XXH3_state_t state;
    uint8_t chunk[256];
    XXH128_hash_t digest;
    size_t i = 0;
    XXH3_128bits_reset(&state);
    while (i < word_count) {
      size_t n = 0;
      for (; n + 4 <= sizeof chunk && i < word_count; ++i, n += 4) {
        chunk[n] = (uint8_t)words[i];
        chunk[n + 1] = (uint8_t)(words[i] >> 8);
        chunk[n + 2] = (uint8_t)(words[i] >> 16);
        chunk[n + 3] = (uint8_t)(words[i] >> 24);
      }
      (void)XXH3_128bits_update(&state, chunk, n);
    }
    digest = XXH3_128bits_digest(&state);
    h.high = digest.high64;
    h.low = digest.low64;
    for (k = 0; k < 8; ++k) {
      out->hash[k] = (uint8_t)(h.high >> (56 - 8 * k));
      out->hash[8 + k] = (uint8_t)(h.low >> (56 - 8 * k));
    }
  }
  return SBK_OK;
malformed:
  memset(out, 0, sizeof *out);
  return SBK_ERROR_INVALID_STATE;
}

/* The value `values` gives constant `c` (its default when none): SBK_OK, or SBK_ERROR_INVALID_STATE for a
 * value of the wrong size, outside the data, or given twice. */
static sbk_result sbk__specconst_value_of(const sbk_specconst_constant* c, const sbk_specconst_values* values,
                                          uint64_t* bits) {
  uint32_t m;
  int given = 0;
  *bits = c->default_bits;
  if (values == NULL) return SBK_OK;
  for (m = 0; m < values->map_count; ++m) {
    const sbk_specconst_map_entry* e = &values->map[m];
    const uint8_t* p;
    uint64_t v = 0;
    uint32_t b;
    if (e->constant_id != c->id) continue;
    if (given || e->size != (size_t)c->width / 8u || e->offset > values->data_size ||
        e->size > values->data_size - e->offset || values->data == NULL)
      return SBK_ERROR_INVALID_STATE;
    given = 1;
    p = (const uint8_t*)values->data + e->offset;
    for (b = 0; b < e->size; ++b) v |= (uint64_t)p[b] << (8 * b); /* host order: little-endian machines only */
    *bits = c->type == SBK_SPECCONST_BOOL ? (v != 0) : v;
  }
  return SBK_OK;
}

/* Exact key layout (schema version 1):
 *   0  u8 guest (SBK_GUEST_SPECCONST)   1  u8 kind (SBK_KEY_KIND_EXACT)   2  u16 key schema version
 *   4  u8 module count                  5  u8 0
 *   per module: u32 stage, 16 bytes hash, u16 count of used constants, u16 0,
 *               per used constant by id: u32 id, u8 type, u8 width, u16 0, u64 value bits */
SBK_API sbk_result sbk_specconst_encode_exact_key(const sbk_specconst_module* const* modules,
                                                  const sbk_specconst_values* values, uint32_t stage_count,
                                                  uint8_t* out, size_t capacity, size_t* size_out) {
  sbk__writer w;
  uint32_t s, k, m;
  SBK_ASSERT(modules != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if (stage_count == 0 || stage_count > SBK_SPECCONST_MAX_STAGES) return SBK_ERROR_INVALID_STATE;
  w = sbk__writer_to(out, capacity);
  sbk__put_u8(&w, SBK_GUEST_SPECCONST);
  sbk__put_u8(&w, SBK_KEY_KIND_EXACT);
  sbk__put_u16(&w, SBK_SPECCONST_KEY_SCHEMA_VERSION);
  sbk__put_u8(&w, stage_count);
  sbk__put_u8(&w, 0);
  for (s = 0; s < stage_count; ++s) {
    const sbk_specconst_module* mod = modules[s];
    const sbk_specconst_values* v = values != NULL ? &values[s] : NULL;
    uint32_t used = 0;
    SBK_ASSERT(mod != NULL);
    if (mod->constant_count > SBK_SPECCONST_MAX_CONSTANTS) return SBK_ERROR_INVALID_STATE;
    /* An id given twice is invalid whether or not the module uses it. */
    if (v != NULL)
      for (m = 0; m < v->map_count; ++m)
        for (k = m + 1; k < v->map_count; ++k)
          if (v->map[m].constant_id == v->map[k].constant_id) return SBK_ERROR_INVALID_STATE;
    for (k = 0; k < mod->constant_count; ++k) used += mod->constants[k].used;
    sbk__put_u32(&w, mod->stage);
    sbk__put_bytes(&w, mod->hash, sizeof mod->hash);
    sbk__put_u16(&w, used);
    sbk__put_u16(&w, 0);
    for (k = 0; k < mod->constant_count; ++k) {
      const sbk_specconst_constant* c = &mod->constants[k];
      uint64_t bits;
      if (!c->used) continue;
      if (sbk__specconst_value_of(c, v, &bits) != SBK_OK) return SBK_ERROR_INVALID_STATE;
      sbk__put_u32(&w, c->id);
      sbk__put_u8(&w, c->type);
      sbk__put_u8(&w, c->width);
      sbk__put_u16(&w, 0);
      sbk__put_u32(&w, (uint32_t)bits);
      sbk__put_u32(&w, (uint32_t)(bits >> 32));
    }
  }
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

/* Family key layout (schema version 1):
 *   0  u8 guest (SBK_GUEST_SPECCONST)   1  u8 kind (SBK_KEY_KIND_FAMILY)   2  u16 key schema version
 *   4  u8 module count                  5  u8 0
 *   per module: u32 stage, 16 bytes hash */
SBK_API sbk_result sbk_specconst_encode_family_key(const sbk_specconst_module* const* modules, uint32_t stage_count,
                                                   uint8_t* out, size_t capacity, size_t* size_out) {
  sbk__writer w;
  uint32_t s;
  SBK_ASSERT(modules != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if (stage_count == 0 || stage_count > SBK_SPECCONST_MAX_STAGES) return SBK_ERROR_INVALID_STATE;
  w = sbk__writer_to(out, capacity);
  sbk__put_u8(&w, SBK_GUEST_SPECCONST);
  sbk__put_u8(&w, SBK_KEY_KIND_FAMILY);
  sbk__put_u16(&w, SBK_SPECCONST_KEY_SCHEMA_VERSION);
  sbk__put_u8(&w, stage_count);
  sbk__put_u8(&w, 0);
  for (s = 0; s < stage_count; ++s) {
    SBK_ASSERT(modules[s] != NULL);
    sbk__put_u32(&w, modules[s]->stage);
    sbk__put_bytes(&w, modules[s]->hash, sizeof modules[s]->hash);
  }
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION */
