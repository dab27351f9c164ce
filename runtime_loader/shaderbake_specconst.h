/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_specconst.h — the specconst guest model (shaders with Vulkan specialization constants) as a
 * renderer needs it at pipeline creation: what its modules declare (read from their own SPIR-V), the canonical
 * exact key of a pipeline's modules with the values a VkSpecializationInfo gives them, and the fallback route:
 * admission of a value set, the family key and the uniform block ("packet") that carries the values to the
 * family's generic pipeline. The shaderbake tool compiles this same code.
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

#define SBK_SPECCONST_KEY_SCHEMA_VERSION 2
#define SBK_SPECCONST_MAX_CONSTANTS 64 /* per module */
#define SBK_SPECCONST_MAX_STAGES 2     /* a graphics pipeline's vertex and fragment module, or one compute module */

/* The scalar type of a specialization constant. */
typedef enum sbk_specconst_type {
  SBK_SPECCONST_BOOL = 0,
  SBK_SPECCONST_INT = 1,  /* signed */
  SBK_SPECCONST_UINT = 2,
  SBK_SPECCONST_FLOAT = 3
} sbk_specconst_type;

/* Why the fallback route's uniform block cannot carry a constant (sbk_specconst_constant::fixed_by): the
 * family's generic module keeps such a constant at its default, so a value set that gives it another value is
 * kept off the fallback route for this reason (admission's rejection). 0: the block can carry it. */
typedef enum sbk_specconst_reason {
  SBK_SPECCONST_ADMITTED = 0,
  SBK_SPECCONST_ARRAY_SIZE = 1,       /* sizes an array type (OpTypeArray's length) */
  SBK_SPECCONST_WORKGROUP_SIZE = 2,   /* sets the workgroup size (LocalSizeId, the WorkgroupSize built-in) */
  SBK_SPECCONST_TYPE_OPERAND = 3,     /* is an operand of another type declaration (a cooperative matrix's size) */
  SBK_SPECCONST_MODULE_SCOPE_USE = 4, /* feeds another module-scope instruction: a variable's initializer, an
                                       * OpDecorateId or OpExecutionModeId operand, an extended instruction */
  SBK_SPECCONST_WIDE_CONSTANT = 5,    /* a 64-bit constant: the block holds 32-bit words */
  SBK_SPECCONST_REASON_COUNT = 6
} sbk_specconst_reason;

/* One specialization constant a module declares. */
typedef struct sbk_specconst_constant {
  uint32_t id;           /* SpecId (GLSL constant_id; local_size_x_id's too) */
  uint8_t type;          /* sbk_specconst_type */
  uint8_t width;         /* bits: 32 or 64 (a bool counts 32, as VkBool32) */
  uint8_t used;          /* 1 when any instruction but debug names and decorations refers to it: an unused
                          * constant cannot change what the module does, so no key holds it */
  uint8_t fixed_by;      /* sbk_specconst_reason: why the packet cannot carry it (0 when it can) */
  uint64_t default_bits; /* its value when a pipeline gives none: the literal's bits (a bool: 0 or 1) */
} sbk_specconst_constant;

/* What a module is for the keys: its stage, its content hash and its constants, sorted by id. */
typedef struct sbk_specconst_module {
  uint32_t stage;          /* VkShaderStageFlagBits: 1 vertex, 16 fragment, 32 compute */
  uint8_t hash[16];        /* XXH3-128 of the module's bytes (the words, little-endian), high half first */
  uint32_t binding_end;    /* one past the highest Binding decoration of the module (0 when it has none) */
  uint32_t constant_count;
  sbk_specconst_constant constants[SBK_SPECCONST_MAX_CONSTANTS];
} sbk_specconst_module;

/* Reads the specialization constants a SPIR-V module declares (OpSpecConstantTrue/False and OpSpecConstant of
 * a 32- or 64-bit int or float with a SpecId), whether each is used and whether the fallback packet can carry
 * it (fixed_by: what the constant or an OpSpecConstantOp/OpSpecConstantComposite built from it feeds outside the
 * module's functions; uses inside functions are what a value loaded from a uniform block replaces), and hashes
 * the module. `stage` is copied as it is. SBK_ERROR_INVALID_STATE for words that are not a SPIR-V module (magic, an instruction
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
 * (the value given, else its default; a bool as 0 or 1), sorted by id, with what admission reads (the constant's
 * fixed_by and whether the value is its default). Values for ids a module does not declare
 * or does not use are ignored, as Vulkan ignores them; declaring a constant at its default equals omitting it.
 * SBK_ERROR_INVALID_STATE when `stage_count` is 0 or above SBK_SPECCONST_MAX_STAGES, when a value for a used
 * constant has a size other than its width / 8 or lies outside `data`, or when an id is given twice;
 * SBK_ERROR_BUFFER_TOO_SMALL when the key does not fit `capacity` (`*size_out` then says how much it needs). */
SBK_API sbk_result sbk_specconst_encode_exact_key(const sbk_specconst_module* const* modules,
                                                  const sbk_specconst_values* values, uint32_t stage_count,
                                                  uint8_t* out, size_t capacity, size_t* size_out);

/* Admission of an exact key to the fallback route (sbk_specconst_admit_key). */
typedef struct sbk_specconst_admission {
  sbk_specconst_reason reason; /* SBK_SPECCONST_ADMITTED, or why not */
  uint32_t stage;              /* when rejected: the stage (VkShaderStageFlagBits) and constant id it names */
  uint32_t constant_id;
} sbk_specconst_admission;

/* Whether the family's generic pipeline, given the packet, does what the exact key's pipeline does: a key is
 * admitted unless a constant the packet cannot carry has a value other than its default (the first such
 * constant, by stage then id, names the reason). Reads the key as sbk_specconst_encode_exact_key writes it, every
 * byte checked: SBK_ERROR_INVALID_STATE (and `out` zeroed) for bytes that are not such a key. */
SBK_API sbk_result sbk_specconst_admit_key(const uint8_t* exact_key, size_t key_size, sbk_specconst_admission* out);

/* The stable name of a reason ("array_size", ...; "admitted" for 0), or NULL for a value outside the enum. */
SBK_API const char* sbk_specconst_reason_name(uint32_t reason);

/* Size of the fallback family key of a pipeline of `stages` modules. */
#define SBK_SPECCONST_FAMILY_KEY_SIZE(stages) (6u + 20u * (stages))

/* Writes the fallback family key of a pipeline of `modules` (compute: one; graphics: vertex then fragment): per
 * module its stage and hash. SBK_ERROR_INVALID_STATE when `stage_count` is 0 or above SBK_SPECCONST_MAX_STAGES;
 * SBK_ERROR_BUFFER_TOO_SMALL when the key does not fit `capacity` (`*size_out` says how much it needs). */
SBK_API sbk_result sbk_specconst_encode_family_key(const sbk_specconst_module* const* modules, uint32_t stage_count,
                                                   uint8_t* out, size_t capacity, size_t* size_out);

/* The fallback packet: the uniform block the family's generic modules read their constants from, at descriptor
 * set 0, binding sbk_specconst_packet_binding, std140. It holds one 32-bit word per constant the packet carries
 * (used, fixed_by 0), stage by stage (vertex then fragment, or the compute stage), each stage's by ascending id:
 * the value's bits (a bool as 0 or 1). */
#define SBK_SPECCONST_PACKET_MAX_SIZE (4u * SBK_SPECCONST_MAX_CONSTANTS * SBK_SPECCONST_MAX_STAGES)

/* How many words of the packet a module's constants take. */
SBK_API uint32_t sbk_specconst_packet_words(const sbk_specconst_module* module);

/* The packet's binding in descriptor set 0: one past the highest binding any of the modules declares. */
SBK_API uint32_t sbk_specconst_packet_binding(const sbk_specconst_module* const* modules, uint32_t stage_count);

/* Writes the packet of a pipeline of `modules` created with `values[i]` (NULL: every default); `*size_out` is its
 * size in bytes (0 when no constant goes in it: then the family's modules read no block). Errors as
 * sbk_specconst_encode_exact_key's. */
SBK_API sbk_result sbk_specconst_encode_packet(const sbk_specconst_module* const* modules,
                                               const sbk_specconst_values* values, uint32_t stage_count,
                                               uint8_t* out, size_t capacity, size_t* size_out);

/* ---- bundles of this guest ----
 * Opening a bundle checks only the format; a renderer of this guest calls this right after open and runs
 * without the bundle unless it returns SBK_OK (keys of another guest or schema never match). SBK_ERROR_VERSION
 * when the bundle's guest is not SBK_GUEST_SPECCONST or its key schema is not SBK_SPECCONST_KEY_SCHEMA_VERSION.
 * Reads the open bundle's header fields only. */
SBK_API sbk_result sbk_specconst_check_bundle(const sbk_bundle* bundle);

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
  SBK__DECORATION_SPEC_ID = 1,
  /* What the fallback classification reads. */
  SBK__OP_NOP = 0,
  SBK__OP_UNDEF = 1,
  SBK__OP_SOURCE_CONTINUED = 2,
  SBK__OP_SOURCE_EXTENSION = 4,
  SBK__OP_EXTENSION = 10,
  SBK__OP_EXT_INST_IMPORT = 11,
  SBK__OP_MEMORY_MODEL = 14,
  SBK__OP_ENTRY_POINT = 15,
  SBK__OP_EXECUTION_MODE = 16,
  SBK__OP_CAPABILITY = 17,
  SBK__OP_TYPE_ARRAY = 28,
  SBK__OP_CONSTANT_TRUE = 41,
  SBK__OP_CONSTANT_NULL = 46,
  SBK__OP_SPEC_CONSTANT_COMPOSITE = 51,
  SBK__OP_SPEC_CONSTANT_OP = 52,
  SBK__OP_FUNCTION = 54,
  SBK__OP_VARIABLE = 59,
  SBK__OP_NO_LINE = 317,
  SBK__OP_EXECUTION_MODE_ID = 331,
  SBK__OP_DECORATE_ID = 332,
  SBK__OP_TYPE_COOPERATIVE_MATRIX_KHR = 4456,
  SBK__OP_TYPE_COOPERATIVE_MATRIX_NV = 5358,
  SBK__DECORATION_BUILT_IN = 11,
  SBK__DECORATION_BINDING = 33,
  SBK__BUILT_IN_WORKGROUP_SIZE = 25,
  SBK__EXECUTION_MODE_LOCAL_SIZE_ID = 38,
  SBK__EXECUTION_MODE_LOCAL_SIZE_HINT_ID = 39
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

/* Derived constants (OpSpecConstantOp, OpSpecConstantComposite) tracked by the classification: beyond this many
 * that depend on a constant, every constant counts as fixed (SBK_SPECCONST_MODULE_SCOPE_USE). */
#define SBK__SPECCONST_MAX_DERIVED 256

typedef struct sbk__spv_derived {
  uint32_t id;
  uint64_t depends_on; /* bit k: constant k (scan order) */
} sbk__spv_derived;

typedef struct sbk__spv_classifier {
  sbk_specconst_module* module;
  const uint32_t* result_ids; /* constant k's result id, scan order */
  sbk__spv_derived derived[SBK__SPECCONST_MAX_DERIVED];
  uint32_t derived_count;
  int overflow;
} sbk__spv_classifier;

/* The constants `id` is built from: itself, or a derived constant's operands (transitively). */
static uint64_t sbk__spv_depends_on(const sbk__spv_classifier* c, uint32_t id) {
  uint32_t k;
  for (k = 0; k < c->module->constant_count; ++k)
    if (c->result_ids[k] == id) return (uint64_t)1 << k;
  for (k = 0; k < c->derived_count; ++k)
    if (c->derived[k].id == id) return c->derived[k].depends_on;
  return 0;
}

static uint64_t sbk__spv_depends_on_any(const sbk__spv_classifier* c, const uint32_t* ids, uint32_t count) {
  uint64_t mask = 0;
  uint32_t i;
  for (i = 0; i < count; ++i) mask |= sbk__spv_depends_on(c, ids[i]);
  return mask;
}

/* Marks the constants of `mask` fixed by `reason` (the lowest reason wins: the most specific one). */
static void sbk__spv_fix(sbk__spv_classifier* c, uint64_t mask, sbk_specconst_reason reason) {
  uint32_t k;
  for (k = 0; k < c->module->constant_count; ++k) {
    sbk_specconst_constant* constant = &c->module->constants[k];
    if ((mask >> k & 1u) && (constant->fixed_by == 0 || (uint8_t)reason < constant->fixed_by))
      constant->fixed_by = (uint8_t)reason;
  }
}

/* Instructions of a module's preamble, debug and annotation sections: what they name is not a use the packet
 * must replace (the annotations that fix a constant are read apart). */
static int sbk__spv_preamble(uint32_t opcode) {
  return opcode == SBK__OP_NOP || opcode == SBK__OP_SOURCE_CONTINUED || opcode == 3u /* OpSource */ ||
         opcode == SBK__OP_SOURCE_EXTENSION || opcode == SBK__OP_EXTENSION || opcode == SBK__OP_EXT_INST_IMPORT ||
         opcode == SBK__OP_MEMORY_MODEL || opcode == SBK__OP_ENTRY_POINT || opcode == SBK__OP_EXECUTION_MODE ||
         opcode == SBK__OP_CAPABILITY || opcode == SBK__OP_NO_LINE || opcode == SBK__OP_EXECUTION_MODE_ID ||
         opcode == SBK__OP_DECORATE_ID || sbk__spv_only_names(opcode);
}

/* Sets fixed_by of every constant of `c->module` (words checked by the caller: whole instructions). Only the
 * instructions before the first function are read: a use inside a function is one a loaded value replaces. */
static void sbk__spv_classify(sbk__spv_classifier* c, const uint32_t* words, size_t word_count) {
  size_t at;
  uint32_t k;
  for (at = 5; at < word_count; at += words[at] >> 16) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFFu;
    if (opcode == SBK__OP_FUNCTION) break;
    if (sbk__spv_preamble(opcode) || (opcode >= SBK__OP_TYPE_VOID && opcode <= SBK__OP_TYPE_FORWARD_POINTER &&
                                      opcode != SBK__OP_TYPE_ARRAY) ||
        (opcode >= SBK__OP_CONSTANT_TRUE && opcode <= SBK__OP_SPEC_CONSTANT) || opcode == SBK__OP_UNDEF)
      continue; /* types' operands are types, constants' are literals or plain constants */
    if (opcode == SBK__OP_TYPE_ARRAY) {
      if (count >= 4) sbk__spv_fix(c, sbk__spv_depends_on(c, words[at + 3]), SBK_SPECCONST_ARRAY_SIZE);
    } else if (opcode == SBK__OP_SPEC_CONSTANT_COMPOSITE || opcode == SBK__OP_SPEC_CONSTANT_OP) {
      /* An OpSpecConstantOp's literal operands (indices) are read as ids too: a spare dependency, never a
       * missed one. */
      const uint32_t first = opcode == SBK__OP_SPEC_CONSTANT_OP ? 4u : 3u;
      const uint64_t mask = count > first ? sbk__spv_depends_on_any(c, words + at + first, count - first) : 0;
      if (mask != 0 && count >= 3) {
        if (c->derived_count == SBK__SPECCONST_MAX_DERIVED) c->overflow = 1;
        else {
          c->derived[c->derived_count].id = words[at + 2];
          c->derived[c->derived_count++].depends_on = mask;
        }
      }
    } else if (opcode == SBK__OP_VARIABLE) {
      if (count > 4) sbk__spv_fix(c, sbk__spv_depends_on(c, words[at + 4]), SBK_SPECCONST_MODULE_SCOPE_USE);
    } else if (opcode == SBK__OP_TYPE_COOPERATIVE_MATRIX_KHR || opcode == SBK__OP_TYPE_COOPERATIVE_MATRIX_NV) {
      sbk__spv_fix(c, sbk__spv_depends_on_any(c, words + at + 1, count - 1), SBK_SPECCONST_TYPE_OPERAND);
    } else {
      /* Anything else at module scope (an extended instruction, an extension's declaration): every operand
       * word is read as an id. */
      sbk__spv_fix(c, sbk__spv_depends_on_any(c, words + at + 1, count - 1), SBK_SPECCONST_MODULE_SCOPE_USE);
    }
  }
  /* The annotations and execution modes that fix a constant name ids defined after them. */
  for (at = 5; at < word_count; at += words[at] >> 16) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFFu;
    if (opcode == SBK__OP_FUNCTION) break;
    if (opcode == SBK__OP_DECORATE && count >= 4 && words[at + 2] == SBK__DECORATION_BUILT_IN &&
        words[at + 3] == SBK__BUILT_IN_WORKGROUP_SIZE)
      sbk__spv_fix(c, sbk__spv_depends_on(c, words[at + 1]), SBK_SPECCONST_WORKGROUP_SIZE);
    else if (opcode == SBK__OP_EXECUTION_MODE_ID && count >= 3)
      sbk__spv_fix(c, sbk__spv_depends_on_any(c, words + at + 3, count - 3),
                   words[at + 2] == SBK__EXECUTION_MODE_LOCAL_SIZE_ID ||
                           words[at + 2] == SBK__EXECUTION_MODE_LOCAL_SIZE_HINT_ID
                       ? SBK_SPECCONST_WORKGROUP_SIZE
                       : SBK_SPECCONST_MODULE_SCOPE_USE);
    else if (opcode == SBK__OP_DECORATE_ID && count >= 3)
      sbk__spv_fix(c, sbk__spv_depends_on_any(c, words + at + 3, count - 3), SBK_SPECCONST_MODULE_SCOPE_USE);
  }
  if (c->overflow) sbk__spv_fix(c, ~(uint64_t)0, SBK_SPECCONST_MODULE_SCOPE_USE);
  for (k = 0; k < c->module->constant_count; ++k)
    if (c->module->constants[k].fixed_by == 0 && c->module->constants[k].width == 64)
      c->module->constants[k].fixed_by = SBK_SPECCONST_WIDE_CONSTANT;
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
    if (opcode == SBK__OP_DECORATE && count >= 4 && words[at + 2] == SBK__DECORATION_BINDING &&
        words[at + 3] >= out->binding_end)
      out->binding_end = words[at + 3] == UINT32_MAX ? UINT32_MAX : words[at + 3] + 1u;
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
  {
    sbk__spv_classifier classifier; /* about 4 KiB of stack */
    classifier.module = out;
    classifier.result_ids = result_ids;
    classifier.derived_count = 0;
    classifier.overflow = 0;
    sbk__spv_classify(&classifier, words, word_count);
  }
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

/* Whether a pipeline's modules and values can be encoded: 1 to SBK_SPECCONST_MAX_STAGES modules, each of at most
 * SBK_SPECCONST_MAX_CONSTANTS constants, and each stage's values naming every constant id at most once (whether
 * or not the module uses it). */
static int sbk__specconst_pipeline_valid(const sbk_specconst_module* const* modules, const sbk_specconst_values* values,
                                         uint32_t stage_count) {
  uint32_t s, m, k;
  if (stage_count == 0 || stage_count > SBK_SPECCONST_MAX_STAGES) return 0;
  for (s = 0; s < stage_count; ++s) {
    SBK_ASSERT(modules[s] != NULL);
    if (modules[s]->constant_count > SBK_SPECCONST_MAX_CONSTANTS) return 0;
    if (values == NULL) continue;
    for (m = 0; m < values[s].map_count; ++m)
      for (k = m + 1; k < values[s].map_count; ++k)
        if (values[s].map[m].constant_id == values[s].map[k].constant_id) return 0;
  }
  return 1;
}

/* Exact key layout (schema version 2):
 *   0  u8 guest (SBK_GUEST_SPECCONST)   1  u8 kind (SBK_KEY_KIND_EXACT)   2  u16 key schema version
 *   4  u8 module count                  5  u8 0
 *   per module: u32 stage, 16 bytes hash, u16 count of used constants, u16 0,
 *               per used constant by id: u32 id, u8 type, u8 width, u8 fixed_by, u8 at default (0/1),
 *               u64 value bits */
SBK_API sbk_result sbk_specconst_encode_exact_key(const sbk_specconst_module* const* modules,
                                                  const sbk_specconst_values* values, uint32_t stage_count,
                                                  uint8_t* out, size_t capacity, size_t* size_out) {
  sbk__writer w;
  uint32_t s, k;
  SBK_ASSERT(modules != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if (!sbk__specconst_pipeline_valid(modules, values, stage_count)) return SBK_ERROR_INVALID_STATE;
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
      sbk__put_u8(&w, c->fixed_by);
      sbk__put_u8(&w, bits == c->default_bits);
      sbk__put_u32(&w, (uint32_t)bits);
      sbk__put_u32(&w, (uint32_t)(bits >> 32));
    }
  }
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

/* Family key layout (schema version 2):
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

SBK_API sbk_result sbk_specconst_admit_key(const uint8_t* exact_key, size_t key_size, sbk_specconst_admission* out) {
  size_t at = 6;
  uint32_t s, module_count, k;
  SBK_ASSERT(exact_key != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  if (key_size < 6 || exact_key[0] != SBK_GUEST_SPECCONST || exact_key[1] != SBK_KEY_KIND_EXACT ||
      sbk__get_u16(exact_key + 2) != SBK_SPECCONST_KEY_SCHEMA_VERSION || exact_key[4] == 0 ||
      exact_key[4] > SBK_SPECCONST_MAX_STAGES || exact_key[5] != 0)
    return SBK_ERROR_INVALID_STATE;
  module_count = exact_key[4];
  for (s = 0; s < module_count; ++s) {
    uint32_t stage, constants;
    if (key_size - at < 24) goto malformed;
    stage = sbk__get_u32(exact_key + at);
    constants = sbk__get_u16(exact_key + at + 20);
    if (sbk__get_u16(exact_key + at + 22) != 0 || constants > SBK_SPECCONST_MAX_CONSTANTS) goto malformed;
    at += 24;
    if ((key_size - at) / 16u < constants) goto malformed;
    for (k = 0; k < constants; ++k, at += 16) {
      const uint8_t* c = exact_key + at;
      if (c[4] > SBK_SPECCONST_FLOAT || (c[5] != 32 && c[5] != 64) || c[6] >= SBK_SPECCONST_REASON_COUNT || c[7] > 1)
        goto malformed;
      if (c[6] != SBK_SPECCONST_ADMITTED && c[7] == 0 && out->reason == SBK_SPECCONST_ADMITTED) {
        out->reason = (sbk_specconst_reason)c[6];
        out->stage = stage;
        out->constant_id = sbk__get_u32(c);
      }
    }
  }
  if (at != key_size) goto malformed;
  return SBK_OK;
malformed:
  memset(out, 0, sizeof *out);
  return SBK_ERROR_INVALID_STATE;
}

SBK_API const char* sbk_specconst_reason_name(uint32_t reason) {
  switch (reason) {
    case SBK_SPECCONST_ADMITTED: return "admitted";
    case SBK_SPECCONST_ARRAY_SIZE: return "array_size";
    case SBK_SPECCONST_WORKGROUP_SIZE: return "workgroup_size";
    case SBK_SPECCONST_TYPE_OPERAND: return "type_operand";
    case SBK_SPECCONST_MODULE_SCOPE_USE: return "module_scope_use";
    case SBK_SPECCONST_WIDE_CONSTANT: return "wide_constant";
    default: return NULL;
  }
}

SBK_API uint32_t sbk_specconst_packet_words(const sbk_specconst_module* module) {
  uint32_t k, words = 0;
  SBK_ASSERT(module != NULL);
  for (k = 0; k < module->constant_count && k < SBK_SPECCONST_MAX_CONSTANTS; ++k)
    words += module->constants[k].used && module->constants[k].fixed_by == SBK_SPECCONST_ADMITTED;
  return words;
}

SBK_API uint32_t sbk_specconst_packet_binding(const sbk_specconst_module* const* modules, uint32_t stage_count) {
  uint32_t s, binding = 0;
  SBK_ASSERT(modules != NULL);
  for (s = 0; s < stage_count; ++s)
    if (modules[s]->binding_end > binding) binding = modules[s]->binding_end;
  return binding;
}

SBK_API sbk_result sbk_specconst_encode_packet(const sbk_specconst_module* const* modules,
                                               const sbk_specconst_values* values, uint32_t stage_count,
                                               uint8_t* out, size_t capacity, size_t* size_out) {
  sbk__writer w;
  uint32_t s, k;
  SBK_ASSERT(modules != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if (!sbk__specconst_pipeline_valid(modules, values, stage_count)) return SBK_ERROR_INVALID_STATE;
  w = sbk__writer_to(out, capacity);
  for (s = 0; s < stage_count; ++s) {
    const sbk_specconst_module* mod = modules[s];
    for (k = 0; k < mod->constant_count; ++k) {
      const sbk_specconst_constant* c = &mod->constants[k];
      uint64_t bits;
      if (!c->used || c->fixed_by != SBK_SPECCONST_ADMITTED) continue;
      if (sbk__specconst_value_of(c, values != NULL ? &values[s] : NULL, &bits) != SBK_OK)
        return SBK_ERROR_INVALID_STATE;
      sbk__put_u32(&w, (uint32_t)bits);
    }
  }
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

SBK_API sbk_result sbk_specconst_check_bundle(const sbk_bundle* bundle) {
  sbk_header_info info;
  SBK_ASSERT(bundle != NULL);
  sbk_bundle_info(bundle, &info);
  if (info.guest != SBK_GUEST_SPECCONST || info.key_schema != SBK_SPECCONST_KEY_SCHEMA_VERSION) return SBK_ERROR_VERSION;
  return SBK_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION */
