/* SPDX-License-Identifier: MIT */
/*
 * shaderbake.h — the runtime side of shaderbake, as one C99 header.
 *
 * This header is the ONE definition of everything a renderer and the shaderbake tool must agree on:
 * the canonical key encodings, the key hash and (per guest model) the pure functions a renderer needs for
 * states it meets live. The tool compiles this same code, so writer and reader cannot drift.
 *
 * Use: include it anywhere; in exactly one C or C++ translation unit define SHADERBAKE_IMPLEMENTATION
 * before including it. Link with libxxhash (the key hash is XXH3-128).
 *
 * Contracts that hold for every function here:
 *  - no allocation, no global state, no I/O: every function is thread-safe and re-entrant;
 *  - caller mistakes (NULL where a pointer is required) are checked with SBK_ASSERT, which you may
 *    define before the implementation to your own assert;
 *  - bad *data* (a state with out-of-range enums or counts) is never asserted on: it gets an error code.
 *
 * Canonical encodings are explicit little-endian byte layouts written field by field, with no padding and
 * with every field of a disabled feature normalised to zero. schemas/keys.md documents them byte by byte;
 * a renderer that computes the same bytes finds the same bundle entries.
 */
#ifndef SHADERBAKE_H
#define SHADERBAKE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SBK_API
#define SBK_API
#endif

/* ---- results ---------------------------------------------------------------------------------------- */

typedef enum sbk_result {
  SBK_OK = 0,
  SBK_NOT_FOUND = 1,              /* a normal, positive answer of a probe */
  SBK_ERROR_INVALID_STATE = -1,   /* a state field is out of range or inconsistent */
  SBK_ERROR_BUFFER_TOO_SMALL = -2 /* the caller's output buffer cannot hold the result */
} sbk_result;

/* A short, static, human-readable name for a result code. Never NULL. */
SBK_API const char* sbk_result_name(sbk_result result);

/* ---- key hash --------------------------------------------------------------------------------------- */

/* 128-bit hash of a canonical byte string (XXH3-128, seed 0). A hash only finds candidates: every hit
 * must be confirmed by comparing the full canonical bytes. */
typedef struct sbk_key_hash {
  uint64_t low;
  uint64_t high;
} sbk_key_hash;

SBK_API sbk_key_hash sbk_hash_key(const void* bytes, size_t size);

/* ---- identities ------------------------------------------------------------------------------------- */

/* First byte of every canonical key: which guest model (or 0 for guest-independent keys). */
enum { SBK_GUEST_NONE = 0, SBK_GUEST_NV2A = 1 };

/* Second byte of every canonical key: which of the three identities it is. */
enum {
  SBK_KEY_KIND_EXACT = 1,    /* exact specialization key: every static field the exact emitter reads */
  SBK_KEY_KIND_FAMILY = 2,   /* fallback family key: static fields the ubershader cannot take at run time */
  SBK_KEY_KIND_PIPELINE = 3  /* fragment identity + host fixed-function state */
};

/* Route a pipeline key belongs to. */
enum { SBK_ROUTE_EXACT = 1, SBK_ROUTE_FALLBACK = 2 };

/* ---- host state (Vulkan terms) ---------------------------------------------------------------------- */

/* Enum fields hold the numeric value of the Vulkan enumerant of the same name (VkPrimitiveTopology,
 * VkPolygonMode, VkCullModeFlags, VkFrontFace, VkCompareOp, VkStencilOp, VkBlendFactor, VkBlendOp,
 * VkVertexInputRate, VkFormat), so a renderer can copy them from its own create-info. */

#define SBK_MAX_COLOR_ATTACHMENTS 8
#define SBK_MAX_VERTEX_BINDINGS 16
#define SBK_MAX_VERTEX_ATTRIBUTES 16

/* Vertex semantics of the guest vertex interface (the pass-through vertex shader's inputs). */
typedef enum sbk_vertex_semantic {
  SBK_SEMANTIC_POSITION = 0,
  SBK_SEMANTIC_DIFFUSE = 1,
  SBK_SEMANTIC_SPECULAR = 2,
  SBK_SEMANTIC_FOG = 3,
  SBK_SEMANTIC_TEXCOORD0 = 4,
  SBK_SEMANTIC_TEXCOORD1 = 5,
  SBK_SEMANTIC_TEXCOORD2 = 6,
  SBK_SEMANTIC_TEXCOORD3 = 7,
  SBK_SEMANTIC_COUNT = 8
} sbk_vertex_semantic;

/* Pipeline state a renderer may declare dynamic; a dynamic value never reaches a key. */
enum {
  SBK_DYNAMIC_VIEWPORT = 1u << 0,
  SBK_DYNAMIC_SCISSOR = 1u << 1,
  SBK_DYNAMIC_LINE_WIDTH = 1u << 2,
  SBK_DYNAMIC_DEPTH_BIAS = 1u << 3,
  SBK_DYNAMIC_BLEND_CONSTANTS = 1u << 4,
  SBK_DYNAMIC_DEPTH_BOUNDS = 1u << 5,
  SBK_DYNAMIC_STENCIL_COMPARE_MASK = 1u << 6,
  SBK_DYNAMIC_STENCIL_WRITE_MASK = 1u << 7,
  SBK_DYNAMIC_STENCIL_REFERENCE = 1u << 8,
  SBK_DYNAMIC_ALL_KNOWN = (1u << 9) - 1u
};

/* Colour write mask bits (VkColorComponentFlagBits). */
enum { SBK_WRITE_R = 1, SBK_WRITE_G = 2, SBK_WRITE_B = 4, SBK_WRITE_A = 8 };

typedef struct sbk_stencil_face {
  uint8_t fail_op, pass_op, depth_fail_op, compare_op;
  uint32_t compare_mask, write_mask, reference;
} sbk_stencil_face;

typedef struct sbk_blend_attachment {
  uint8_t enable;
  uint8_t src_color, dst_color, color_op;
  uint8_t src_alpha, dst_alpha, alpha_op;
  uint8_t write_mask; /* SBK_WRITE_* bits */
} sbk_blend_attachment;

typedef struct sbk_vertex_binding {
  uint32_t binding;
  uint32_t stride;
  uint32_t input_rate; /* VkVertexInputRate */
} sbk_vertex_binding;

typedef struct sbk_vertex_attribute {
  uint32_t semantic; /* sbk_vertex_semantic */
  uint32_t binding;
  uint32_t format; /* VkFormat */
  uint32_t offset;
} sbk_vertex_attribute;

typedef struct sbk_host_state {
  uint8_t topology, polygon_mode, cull_mode, front_face;
  uint8_t depth_test, depth_write, depth_compare;
  uint8_t stencil_test;
  sbk_stencil_face stencil_front, stencil_back;
  uint32_t color_count;
  uint32_t color_formats[SBK_MAX_COLOR_ATTACHMENTS];
  sbk_blend_attachment blend[SBK_MAX_COLOR_ATTACHMENTS];
  uint32_t depth_format; /* VK_FORMAT_UNDEFINED (0) when there is no depth/stencil attachment */
  uint32_t samples;      /* 1, 2, 4, ... 64 */
  uint32_t dynamic_states; /* SBK_DYNAMIC_* bits */
  uint32_t binding_count;
  sbk_vertex_binding bindings[SBK_MAX_VERTEX_BINDINGS];
  uint32_t attribute_count;
  sbk_vertex_attribute attributes[SBK_MAX_VERTEX_ATTRIBUTES];
} sbk_host_state;

/* Largest canonical host-state encoding, in bytes. */
#define SBK_HOST_STATE_MAX_SIZE                                                                         \
  (4 + 3 + 1 + 2 * 16 + 1 + SBK_MAX_COLOR_ATTACHMENTS * 12 + 4 + 1 + 4 + 1 + SBK_MAX_VERTEX_BINDINGS * 9 + \
   1 + SBK_MAX_VERTEX_ATTRIBUTES * 10)

/* Checks a host state and writes its canonical encoding. Bindings are ordered by binding number and
 * attributes by semantic, so the caller's order never matters; fields of disabled features (depth state
 * without a depth test or without a depth attachment, stencil state without a stencil test or stencil
 * aspect, blend factors of a disabled attachment, values declared dynamic) are written as zero.
 * Returns SBK_ERROR_INVALID_STATE for an out-of-range enum or count, a duplicate binding or semantic, or an
 * attribute whose binding is not declared. */
SBK_API sbk_result sbk_encode_host_state(const sbk_host_state* state, uint8_t* out, size_t capacity,
                                         size_t* size_out);

/* Largest pipeline key for a fragment key of `fragment_key_size` bytes. */
#define SBK_PIPELINE_KEY_MAX_SIZE(fragment_key_size) (4 + 2 + (fragment_key_size) + SBK_HOST_STATE_MAX_SIZE)

/* Exact pipeline key: route + the fragment identity (an exact key or a family key, full bytes) + the
 * canonical host state. The vertex interface is the vertex attribute list inside the host state. */
SBK_API sbk_result sbk_encode_pipeline_key(uint8_t route, const uint8_t* fragment_key, size_t fragment_key_size,
                                           const sbk_host_state* host, uint8_t* out, size_t capacity,
                                           size_t* size_out);

/* ---- guest model nv2a (register combiners) ---------------------------------------------------------- */

#define SBK_NV2A_MAX_STAGES 8
#define SBK_NV2A_TEXTURE_STAGES 4
#define SBK_NV2A_KEY_SCHEMA_VERSION 1

/* Texture shader program of one texture stage (5 bits in hardware). */
typedef enum sbk_nv2a_texture_mode {
  SBK_NV2A_TEXTURE_NONE = 0,
  SBK_NV2A_TEXTURE_PROJECT2D = 1,
  SBK_NV2A_TEXTURE_PROJECT3D = 2,
  SBK_NV2A_TEXTURE_CUBE = 3,
  SBK_NV2A_TEXTURE_PASSTHRU = 4,
  SBK_NV2A_TEXTURE_CLIPPLANE = 5,
  SBK_NV2A_TEXTURE_BUMPENVMAP = 6,
  SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE = 7,
  SBK_NV2A_TEXTURE_BRDF = 8,
  SBK_NV2A_TEXTURE_DOT_ST = 9,
  SBK_NV2A_TEXTURE_DOT_ZW = 10,
  SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF = 11,
  SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC = 12,
  SBK_NV2A_TEXTURE_DOT_STR_3D = 13,
  SBK_NV2A_TEXTURE_DOT_STR_CUBE = 14,
  SBK_NV2A_TEXTURE_DEPENDENT_AR = 15,
  SBK_NV2A_TEXTURE_DEPENDENT_GB = 16,
  SBK_NV2A_TEXTURE_DOT_PRODUCT = 17,
  SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST = 18,
  SBK_NV2A_TEXTURE_MODE_COUNT = 19, /* 19..31 are reserved encodings */
  SBK_NV2A_TEXTURE_MODE_MAX = 31
} sbk_nv2a_texture_mode;

/* Sampler dimensionality a texture mode needs: a property of the bound descriptor, which is why it is
 * the one field of the fallback family key. */
typedef enum sbk_sampler_dim {
  SBK_SAMPLER_NONE = 0,
  SBK_SAMPLER_2D = 1,
  SBK_SAMPLER_3D = 2,
  SBK_SAMPLER_CUBE = 3
} sbk_sampler_dim;

/* Comparison function (VkCompareOp values). */
enum {
  SBK_COMPARE_NEVER = 0,
  SBK_COMPARE_LESS = 1,
  SBK_COMPARE_EQUAL = 2,
  SBK_COMPARE_LESS_OR_EQUAL = 3,
  SBK_COMPARE_GREATER = 4,
  SBK_COMPARE_NOT_EQUAL = 5,
  SBK_COMPARE_GREATER_OR_EQUAL = 6,
  SBK_COMPARE_ALWAYS = 7
};

/* The static guest pixel-pipeline state of one draw: raw hardware words as the guest wrote them.
 * Per-stage words at index >= the stage count (combiner_control bits 0-7) are ignored. */
typedef struct sbk_nv2a_program {
  uint32_t combiner_control;
  uint32_t rgb_inputs[SBK_NV2A_MAX_STAGES];
  uint32_t rgb_outputs[SBK_NV2A_MAX_STAGES];
  uint32_t alpha_inputs[SBK_NV2A_MAX_STAGES];
  uint32_t alpha_outputs[SBK_NV2A_MAX_STAGES];
  uint32_t final_inputs[2];
  uint8_t texture_modes[SBK_NV2A_TEXTURE_STAGES]; /* sbk_nv2a_texture_mode, 0..31 */
  uint8_t texture_enabled[SBK_NV2A_TEXTURE_STAGES]; /* 0 or 1 */
  uint8_t alpha_test_enabled;
  uint8_t alpha_test_func; /* SBK_COMPARE_* */
} sbk_nv2a_program;

/* Runtime values of a draw: never part of any key. Colours are 0xAARRGGBB. */
typedef struct sbk_nv2a_dynamic {
  uint32_t c0[SBK_NV2A_MAX_STAGES];
  uint32_t c1[SBK_NV2A_MAX_STAGES];
  uint32_t final_c0, final_c1;
  uint32_t fog_color;
  uint8_t alpha_ref;
} sbk_nv2a_dynamic;

#define SBK_NV2A_EXACT_KEY_SIZE 149
#define SBK_NV2A_FAMILY_KEY_SIZE 8

/* Number of general combiner stages the hardware runs (combiner_control bits 0-7, as written; values of 0
 * or above 8 are invalid programs, and the key still distinguishes them). */
SBK_API uint32_t sbk_nv2a_stage_count(const sbk_nv2a_program* program);

/* Texture mode the stage effectively runs: NONE when the stage is disabled. */
SBK_API uint8_t sbk_nv2a_effective_texture_mode(const sbk_nv2a_program* program, uint32_t stage);

/* Sampler a texture mode binds (SBK_SAMPLER_NONE for modes that read no texture and for reserved codes). */
SBK_API sbk_sampler_dim sbk_nv2a_sampler_dim(uint8_t texture_mode);

/* Writes the canonical exact key (SBK_NV2A_EXACT_KEY_SIZE bytes). Stage words past the stage count, the mode
 * of disabled texture stages and the function of a disabled alpha test never reach it. Total: any 32-bit
 * words give a key, valid or not; admission, not the key, judges validity. */
SBK_API void sbk_nv2a_encode_exact_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_EXACT_KEY_SIZE]);

/* Writes the canonical fallback family key (SBK_NV2A_FAMILY_KEY_SIZE bytes): the sampler dimensionality of
 * each texture stage, the only static state the ubershader cannot take as runtime data. */
SBK_API void sbk_nv2a_encode_family_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_FAMILY_KEY_SIZE]);


/* Why a program has no defined behaviour (or none shaderbake implements). SBK_NV2A_OK = 0 means valid.
 * Reasons are stable: reports count by their names (sbk_nv2a_reason_name). */
typedef enum sbk_nv2a_reason {
  SBK_NV2A_OK = 0,
  SBK_NV2A_BAD_STAGE_COUNT,              /* combiner_control stage count 0 or above 8 */
  SBK_NV2A_INVALID_REGISTER,             /* input register code 6 or 7 */
  SBK_NV2A_REGISTER_NOT_ALLOWED_HERE,    /* 14 (spare0+secondary) outside final B/C/D, 15 (E*F) outside final A-D */
  SBK_NV2A_FOG_ALPHA_IN_GENERAL_STAGE,   /* fog alpha is readable in the final combiner only */
  SBK_NV2A_BAD_FINAL_MAPPING,            /* final combiner inputs take unsigned identity or invert only */
  SBK_NV2A_ALPHA_OF_PRODUCT_OR_SUM,      /* alpha of E*F or of spare0+secondary */
  SBK_NV2A_DOT_OR_BLUE_TO_ALPHA_IN_ALPHA_PORTION,
  SBK_NV2A_SUM_WITH_DOT_PRODUCT,         /* a dot product with a non-discarded sum/mux output (NV_register_combiners) */
  SBK_NV2A_RESERVED_OUTPUT_OP,           /* ops 5 and 7 */
  SBK_NV2A_BAD_DESTINATION,              /* destination outside {0, 4, 5, 8-13} */
  SBK_NV2A_DUPLICATE_DESTINATION,        /* two equal non-discard destinations in one output word */
  SBK_NV2A_UNDOCUMENTED_BITS,            /* bits set that no documented field uses */
  SBK_NV2A_TEXTURE_MODE_RESERVED,        /* texture mode code 19..31 */
  SBK_NV2A_TEXTURE_MODE_UNSUPPORTED,     /* a documented texture mode shaderbake does not implement yet */
  SBK_NV2A_BAD_ALPHA_FUNC,               /* alpha test function above 7 */
  SBK_NV2A_REASON_COUNT
} sbk_nv2a_reason;

/* Stable snake_case name of a reason ("invalid_register"). Never NULL. */
SBK_API const char* sbk_nv2a_reason_name(sbk_nv2a_reason reason);

/* Checks that `program` is a valid encoding with semantics shaderbake implements (DESIGN.md §4): the first
 * problem found, or SBK_NV2A_OK. Only stages below the stage count and enabled texture stages are checked.
 * When `where` is not NULL it receives a short location of the problem ("stage 2 rgb output"). */
SBK_API sbk_nv2a_reason sbk_nv2a_check_program(const sbk_nv2a_program* program, const char** where);


/* ---- nv2a layout contract (shared by the exact and the fallback route) ----
 * Descriptor set 0: bindings 0-3 the texture stages (combined image samplers; 2D, 3D or cube per
 * sbk_nv2a_sampler_dim, present only for stages that sample), binding 4 the dynamic block below (uniform
 * buffer, std140). Fragment inputs: location 0 v0 (diffuse), 1 v1 (specular), 2 fog factor (float),
 * 3-6 texture coordinates 0-3 (vec4). Output: location 0, RGBA. */
#define SBK_NV2A_BINDING_DYNAMIC 4
#define SBK_NV2A_DYNAMIC_BLOCK_SIZE 320

/* Packs the runtime values into the std140 dynamic block: vec4 c0[8] at 0, vec4 c1[8] at 128, vec4 final_c0
 * at 256, vec4 final_c1 at 272, vec4 fog_color at 288 (colours as RGBA floats k/255), uint alpha_ref at 304. */
SBK_API void sbk_nv2a_pack_dynamic(const sbk_nv2a_dynamic* dynamic, uint8_t out[SBK_NV2A_DYNAMIC_BLOCK_SIZE]);


/* ---- nv2a fallback route: admission and the runtime packet ----
 * The ubershader of a fallback family evaluates any admitted program from a packet of static controls
 * (uniform buffer, std140, binding SBK_NV2A_BINDING_PACKET), next to the dynamic block both routes share:
 *   uvec4 stages[8]  rgb_inputs, rgb_outputs, alpha_inputs, alpha_outputs of each stage (zero past the count)
 *   uvec4 control    combiner_control, final_inputs[0], final_inputs[1], alpha test function (ALWAYS when off)
 * The family key supplies the rest (which sampler each texture stage binds). */
#define SBK_NV2A_BINDING_PACKET 5
#define SBK_NV2A_PACKET_SIZE 144

/* Fail-closed admission to the fallback route: SBK_NV2A_OK only when the ubershader is proven to reproduce
 * `program` (it implements every program sbk_nv2a_check_program accepts, so the reasons are the same);
 * anything else keeps the program on its exact route, with the reason reports count. */
SBK_API sbk_nv2a_reason sbk_nv2a_admit(const sbk_nv2a_program* program, const char** where);

/* Writes the packet of an admitted program (SBK_NV2A_PACKET_SIZE bytes, little-endian). */
SBK_API void sbk_nv2a_encode_packet(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_PACKET_SIZE]);

/* Rebuilds the program a packet and family key describe (normalised: the exact key of the result equals
 * the exact key of the program that was encoded). Returns SBK_ERROR_INVALID_STATE for a family key that is
 * not an nv2a family key of a version this header speaks. */
SBK_API sbk_result sbk_nv2a_decode_packet(const uint8_t packet[SBK_NV2A_PACKET_SIZE],
                                          const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE], sbk_nv2a_program* out);


/* Rebuilds the normalised program an exact key describes (the inverse of sbk_nv2a_encode_exact_key: encoding
 * the result gives the same key). SBK_ERROR_INVALID_STATE when `key` is not an nv2a exact key of a schema
 * version this header speaks. */
SBK_API sbk_result sbk_nv2a_decode_exact_key(const uint8_t key[SBK_NV2A_EXACT_KEY_SIZE], sbk_nv2a_program* out);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_H */

/* ===================================================================================================== */
#ifdef SHADERBAKE_IMPLEMENTATION
#ifndef SHADERBAKE_IMPLEMENTATION_DONE
#define SHADERBAKE_IMPLEMENTATION_DONE

#include <string.h>
#include <xxhash.h>

#ifndef SBK_ASSERT
#include <assert.h>
#define SBK_ASSERT(x) assert(x)
#endif

#ifdef __cplusplus
extern "C" {
#endif

SBK_API const char* sbk_result_name(sbk_result result) {
  switch (result) {
    case SBK_OK: return "ok";
    case SBK_NOT_FOUND: return "not found";
    case SBK_ERROR_INVALID_STATE: return "invalid state";
    case SBK_ERROR_BUFFER_TOO_SMALL: return "buffer too small";
  }
  return "unknown result";
}

SBK_API sbk_key_hash sbk_hash_key(const void* bytes, size_t size) {
  XXH128_hash_t h;
  sbk_key_hash out;
  SBK_ASSERT(bytes != NULL || size == 0);
  h = XXH3_128bits(bytes, size);
  out.low = (uint64_t)h.low64;
  out.high = (uint64_t)h.high64;
  return out;
}

/* Bounded little-endian writer. Writes past the capacity are counted but not stored, so the caller
 * learns the size it needed and reports SBK_ERROR_BUFFER_TOO_SMALL. */
typedef struct sbk__writer {
  uint8_t* out;
  size_t capacity;
  size_t size;
} sbk__writer;

static void sbk__put_u8(sbk__writer* w, uint32_t v) {
  if (w->size < w->capacity) w->out[w->size] = (uint8_t)v;
  w->size += 1;
}

static void sbk__put_u16(sbk__writer* w, uint32_t v) {
  sbk__put_u8(w, v & 0xFFu);
  sbk__put_u8(w, (v >> 8) & 0xFFu);
}

static void sbk__put_u32(sbk__writer* w, uint32_t v) {
  sbk__put_u16(w, v & 0xFFFFu);
  sbk__put_u16(w, v >> 16);
}

static void sbk__put_bytes(sbk__writer* w, const uint8_t* bytes, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) sbk__put_u8(w, bytes[i]);
}

/* ---- host state ---- */

static int sbk__format_has_stencil(uint32_t format) {
  /* VK_FORMAT_S8_UINT, D16_UNORM_S8_UINT, D24_UNORM_S8_UINT, D32_SFLOAT_S8_UINT */
  return format >= 127u && format <= 130u;
}

static int sbk__format_has_depth(uint32_t format) {
  /* VK_FORMAT_D16_UNORM .. D32_SFLOAT_S8_UINT, except S8_UINT */
  return format >= 124u && format <= 130u && format != 127u;
}

static int sbk__stencil_face_valid(const sbk_stencil_face* f) {
  return f->fail_op <= 7 && f->pass_op <= 7 && f->depth_fail_op <= 7 && f->compare_op <= 7;
}

static void sbk__put_stencil_face(sbk__writer* w, const sbk_stencil_face* f, uint32_t dynamic_states) {
  sbk__put_u8(w, f->fail_op);
  sbk__put_u8(w, f->pass_op);
  sbk__put_u8(w, f->depth_fail_op);
  sbk__put_u8(w, f->compare_op);
  sbk__put_u32(w, (dynamic_states & SBK_DYNAMIC_STENCIL_COMPARE_MASK) ? 0u : f->compare_mask);
  sbk__put_u32(w, (dynamic_states & SBK_DYNAMIC_STENCIL_WRITE_MASK) ? 0u : f->write_mask);
  sbk__put_u32(w, (dynamic_states & SBK_DYNAMIC_STENCIL_REFERENCE) ? 0u : f->reference);
}

static sbk_result sbk__check_host_state(const sbk_host_state* s) {
  uint32_t i, j, seen_semantics = 0;
  if (s->topology > 5 || s->polygon_mode > 2 || s->cull_mode > 3 || s->front_face > 1) return SBK_ERROR_INVALID_STATE;
  if (s->depth_test > 1 || s->depth_write > 1 || s->depth_compare > 7 || s->stencil_test > 1)
    return SBK_ERROR_INVALID_STATE;
  if (s->stencil_test && (!sbk__stencil_face_valid(&s->stencil_front) || !sbk__stencil_face_valid(&s->stencil_back)))
    return SBK_ERROR_INVALID_STATE;
  if (s->color_count > SBK_MAX_COLOR_ATTACHMENTS) return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < s->color_count; ++i) {
    const sbk_blend_attachment* b = &s->blend[i];
    if (s->color_formats[i] == 0u || b->enable > 1 || b->write_mask > 15) return SBK_ERROR_INVALID_STATE;
    if (b->enable && (b->src_color > 18 || b->dst_color > 18 || b->src_alpha > 18 || b->dst_alpha > 18 ||
                      b->color_op > 4 || b->alpha_op > 4))
      return SBK_ERROR_INVALID_STATE;
  }
  if (s->depth_format != 0u && !sbk__format_has_depth(s->depth_format) && !sbk__format_has_stencil(s->depth_format))
    return SBK_ERROR_INVALID_STATE;
  if (s->samples == 0u || s->samples > 64u || (s->samples & (s->samples - 1u)) != 0u) return SBK_ERROR_INVALID_STATE;
  if ((s->dynamic_states & ~(uint32_t)SBK_DYNAMIC_ALL_KNOWN) != 0u) return SBK_ERROR_INVALID_STATE;
  if (s->binding_count > SBK_MAX_VERTEX_BINDINGS || s->attribute_count > SBK_MAX_VERTEX_ATTRIBUTES)
    return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < s->binding_count; ++i) {
    /* Binding numbers are stored in one byte (Vulkan guarantees at least 16 bindings; nobody uses 256). */
    if (s->bindings[i].input_rate > 1u || s->bindings[i].binding > 255u) return SBK_ERROR_INVALID_STATE;
    for (j = 0; j < i; ++j)
      if (s->bindings[j].binding == s->bindings[i].binding) return SBK_ERROR_INVALID_STATE;
  }
  for (i = 0; i < s->attribute_count; ++i) {
    const sbk_vertex_attribute* a = &s->attributes[i];
    int binding_declared = 0;
    if (a->semantic >= SBK_SEMANTIC_COUNT || a->format == 0u) return SBK_ERROR_INVALID_STATE;
    if (seen_semantics & (1u << a->semantic)) return SBK_ERROR_INVALID_STATE;
    seen_semantics |= 1u << a->semantic;
    for (j = 0; j < s->binding_count; ++j)
      if (s->bindings[j].binding == a->binding) binding_declared = 1;
    if (!binding_declared) return SBK_ERROR_INVALID_STATE;
  }
  return SBK_OK;
}

static void sbk__put_host_state(sbk__writer* w, const sbk_host_state* s) {
  uint32_t i, n;
  const int has_depth = sbk__format_has_depth(s->depth_format);
  const int has_stencil = sbk__format_has_stencil(s->depth_format);
  const int depth_test = has_depth && s->depth_test;
  const int stencil_test = has_stencil && s->stencil_test;
  static const sbk_stencil_face zero_face = {0, 0, 0, 0, 0, 0, 0};

  sbk__put_u8(w, s->topology);
  sbk__put_u8(w, s->polygon_mode);
  sbk__put_u8(w, s->cull_mode);
  sbk__put_u8(w, s->front_face);
  /* Vulkan writes depth only when the depth test is enabled, so the write flag means nothing without it. */
  sbk__put_u8(w, (uint32_t)depth_test);
  sbk__put_u8(w, depth_test ? s->depth_write : 0u);
  sbk__put_u8(w, depth_test ? s->depth_compare : 0u);
  sbk__put_u8(w, (uint32_t)stencil_test);
  sbk__put_stencil_face(w, stencil_test ? &s->stencil_front : &zero_face, s->dynamic_states);
  sbk__put_stencil_face(w, stencil_test ? &s->stencil_back : &zero_face, s->dynamic_states);
  sbk__put_u8(w, s->color_count);
  for (i = 0; i < s->color_count; ++i) {
    const sbk_blend_attachment* b = &s->blend[i];
    sbk__put_u32(w, s->color_formats[i]);
    sbk__put_u8(w, b->enable);
    sbk__put_u8(w, b->enable ? b->src_color : 0u);
    sbk__put_u8(w, b->enable ? b->dst_color : 0u);
    sbk__put_u8(w, b->enable ? b->color_op : 0u);
    sbk__put_u8(w, b->enable ? b->src_alpha : 0u);
    sbk__put_u8(w, b->enable ? b->dst_alpha : 0u);
    sbk__put_u8(w, b->enable ? b->alpha_op : 0u);
    sbk__put_u8(w, b->write_mask);
  }
  sbk__put_u32(w, s->depth_format);
  sbk__put_u8(w, s->samples);
  sbk__put_u32(w, s->dynamic_states);

  /* Bindings in ascending binding number: selection by "smallest greater than the last written". */
  sbk__put_u8(w, s->binding_count);
  {
    int have_last = 0;
    uint32_t last = 0;
    for (n = 0; n < s->binding_count; ++n) {
      const sbk_vertex_binding* next = NULL;
      for (i = 0; i < s->binding_count; ++i) {
        const sbk_vertex_binding* b = &s->bindings[i];
        if (have_last && b->binding <= last) continue;
        if (next == NULL || b->binding < next->binding) next = b;
      }
      SBK_ASSERT(next != NULL); /* bindings were checked to be distinct */
      sbk__put_u32(w, next->binding);
      sbk__put_u32(w, next->stride);
      sbk__put_u8(w, next->input_rate);
      last = next->binding;
      have_last = 1;
    }
  }
  /* Attributes in semantic order (semantics were checked to be distinct). */
  sbk__put_u8(w, s->attribute_count);
  for (n = 0; n < SBK_SEMANTIC_COUNT; ++n) {
    for (i = 0; i < s->attribute_count; ++i) {
      const sbk_vertex_attribute* a = &s->attributes[i];
      if (a->semantic != n) continue;
      sbk__put_u8(w, a->semantic);
      sbk__put_u8(w, a->binding);
      sbk__put_u32(w, a->format);
      sbk__put_u32(w, a->offset);
    }
  }
}

SBK_API sbk_result sbk_encode_host_state(const sbk_host_state* state, uint8_t* out, size_t capacity,
                                         size_t* size_out) {
  sbk__writer w;
  sbk_result r;
  SBK_ASSERT(state != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  r = sbk__check_host_state(state);
  if (r != SBK_OK) return r;
  w.out = out;
  w.capacity = capacity;
  w.size = 0;
  sbk__put_host_state(&w, state);
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

SBK_API sbk_result sbk_encode_pipeline_key(uint8_t route, const uint8_t* fragment_key, size_t fragment_key_size,
                                           const sbk_host_state* host, uint8_t* out, size_t capacity,
                                           size_t* size_out) {
  sbk__writer w;
  size_t host_size = 0;
  sbk_result r;
  SBK_ASSERT(fragment_key != NULL && host != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if ((route != SBK_ROUTE_EXACT && route != SBK_ROUTE_FALLBACK) || fragment_key_size > 0xFFFFu)
    return SBK_ERROR_INVALID_STATE;
  r = sbk_encode_host_state(host, NULL, 0, &host_size);
  if (r != SBK_OK && r != SBK_ERROR_BUFFER_TOO_SMALL) return r;
  w.out = out;
  w.capacity = capacity;
  w.size = 0;
  sbk__put_u8(&w, SBK_GUEST_NONE);
  sbk__put_u8(&w, SBK_KEY_KIND_PIPELINE);
  sbk__put_u8(&w, route);
  sbk__put_u8(&w, 1u); /* pipeline key schema version */
  sbk__put_u16(&w, (uint32_t)fragment_key_size);
  sbk__put_bytes(&w, fragment_key, fragment_key_size);
  sbk__put_host_state(&w, host);
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

/* ---- nv2a ---- */

SBK_API uint32_t sbk_nv2a_stage_count(const sbk_nv2a_program* program) {
  SBK_ASSERT(program != NULL);
  return program->combiner_control & 0xFFu;
}

SBK_API uint8_t sbk_nv2a_effective_texture_mode(const sbk_nv2a_program* program, uint32_t stage) {
  SBK_ASSERT(program != NULL && stage < SBK_NV2A_TEXTURE_STAGES);
  return program->texture_enabled[stage] ? (uint8_t)(program->texture_modes[stage] & 0x1Fu)
                                         : (uint8_t)SBK_NV2A_TEXTURE_NONE;
}

SBK_API sbk_sampler_dim sbk_nv2a_sampler_dim(uint8_t texture_mode) {
  switch (texture_mode) {
    case SBK_NV2A_TEXTURE_PROJECT2D:
    case SBK_NV2A_TEXTURE_BUMPENVMAP:
    case SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE:
    case SBK_NV2A_TEXTURE_DOT_ST:
    case SBK_NV2A_TEXTURE_DEPENDENT_AR:
    case SBK_NV2A_TEXTURE_DEPENDENT_GB:
      return SBK_SAMPLER_2D;
    case SBK_NV2A_TEXTURE_PROJECT3D:
    case SBK_NV2A_TEXTURE_BRDF:
    case SBK_NV2A_TEXTURE_DOT_STR_3D:
      return SBK_SAMPLER_3D;
    case SBK_NV2A_TEXTURE_CUBE:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
    case SBK_NV2A_TEXTURE_DOT_STR_CUBE:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST:
      return SBK_SAMPLER_CUBE;
    default:
      return SBK_SAMPLER_NONE;
  }
}

/* The four words of every stage below the stage count (capped at 8), zeros for the others: the part of a
 * program the exact key and the fallback packet both carry. */
static void sbk__put_live_stage_words(sbk__writer* w, const sbk_nv2a_program* program) {
  uint32_t i, stages = sbk_nv2a_stage_count(program);
  if (stages > SBK_NV2A_MAX_STAGES) stages = SBK_NV2A_MAX_STAGES;
  for (i = 0; i < SBK_NV2A_MAX_STAGES; ++i) {
    const int live = i < stages;
    sbk__put_u32(w, live ? program->rgb_inputs[i] : 0u);
    sbk__put_u32(w, live ? program->rgb_outputs[i] : 0u);
    sbk__put_u32(w, live ? program->alpha_inputs[i] : 0u);
    sbk__put_u32(w, live ? program->alpha_outputs[i] : 0u);
  }
}

/* Exact key layout (schema version 1), 149 bytes:
 *   0  u8  guest (SBK_GUEST_NV2A)        1  u8  kind (SBK_KEY_KIND_EXACT)     2  u16 key schema version
 *   4  u32 combiner_control
 *   8  8 x { u32 rgb_input, u32 rgb_output, u32 alpha_input, u32 alpha_output }, zero past the stage count
 * 136  u32 final_inputs[0], u32 final_inputs[1]
 * 144  u8  effective texture mode x 4 (NONE for a disabled stage)
 * 148  u8  alpha test function (ALWAYS when the test is disabled: the same behaviour) */
SBK_API void sbk_nv2a_encode_exact_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_EXACT_KEY_SIZE]) {
  sbk__writer w;
  uint32_t i;
  SBK_ASSERT(program != NULL && out != NULL);
  w.out = out;
  w.capacity = SBK_NV2A_EXACT_KEY_SIZE;
  w.size = 0;
  sbk__put_u8(&w, SBK_GUEST_NV2A);
  sbk__put_u8(&w, SBK_KEY_KIND_EXACT);
  sbk__put_u16(&w, SBK_NV2A_KEY_SCHEMA_VERSION);
  sbk__put_u32(&w, program->combiner_control);
  sbk__put_live_stage_words(&w, program);
  sbk__put_u32(&w, program->final_inputs[0]);
  sbk__put_u32(&w, program->final_inputs[1]);
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) sbk__put_u8(&w, sbk_nv2a_effective_texture_mode(program, i));
  sbk__put_u8(&w, program->alpha_test_enabled ? (program->alpha_test_func & 7u) : (uint32_t)SBK_COMPARE_ALWAYS);
  SBK_ASSERT(w.size == SBK_NV2A_EXACT_KEY_SIZE);
}

/* Family key layout (schema version 1), 8 bytes:
 *   0  u8 guest   1  u8 kind (SBK_KEY_KIND_FAMILY)   2  u16 key schema version
 *   4  u8 sampler dimensionality (sbk_sampler_dim) of each of the 4 texture stages */
SBK_API void sbk_nv2a_encode_family_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_FAMILY_KEY_SIZE]) {
  sbk__writer w;
  uint32_t i;
  SBK_ASSERT(program != NULL && out != NULL);
  w.out = out;
  w.capacity = SBK_NV2A_FAMILY_KEY_SIZE;
  w.size = 0;
  sbk__put_u8(&w, SBK_GUEST_NV2A);
  sbk__put_u8(&w, SBK_KEY_KIND_FAMILY);
  sbk__put_u16(&w, SBK_NV2A_KEY_SCHEMA_VERSION);
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i)
    sbk__put_u8(&w, sbk_nv2a_sampler_dim(sbk_nv2a_effective_texture_mode(program, i)));
  SBK_ASSERT(w.size == SBK_NV2A_FAMILY_KEY_SIZE);
}


SBK_API const char* sbk_nv2a_reason_name(sbk_nv2a_reason reason) {
  switch (reason) {
    case SBK_NV2A_OK: return "ok";
    case SBK_NV2A_BAD_STAGE_COUNT: return "bad_stage_count";
    case SBK_NV2A_INVALID_REGISTER: return "invalid_register";
    case SBK_NV2A_REGISTER_NOT_ALLOWED_HERE: return "register_not_allowed_here";
    case SBK_NV2A_FOG_ALPHA_IN_GENERAL_STAGE: return "fog_alpha_in_general_stage";
    case SBK_NV2A_BAD_FINAL_MAPPING: return "bad_final_mapping";
    case SBK_NV2A_ALPHA_OF_PRODUCT_OR_SUM: return "alpha_of_product_or_sum";
    case SBK_NV2A_DOT_OR_BLUE_TO_ALPHA_IN_ALPHA_PORTION: return "dot_or_blue_to_alpha_in_alpha_portion";
    case SBK_NV2A_SUM_WITH_DOT_PRODUCT: return "sum_with_dot_product";
    case SBK_NV2A_RESERVED_OUTPUT_OP: return "reserved_output_op";
    case SBK_NV2A_BAD_DESTINATION: return "bad_destination";
    case SBK_NV2A_DUPLICATE_DESTINATION: return "duplicate_destination";
    case SBK_NV2A_UNDOCUMENTED_BITS: return "undocumented_bits";
    case SBK_NV2A_TEXTURE_MODE_RESERVED: return "texture_mode_reserved";
    case SBK_NV2A_TEXTURE_MODE_UNSUPPORTED: return "texture_mode_unsupported";
    case SBK_NV2A_BAD_ALPHA_FUNC: return "bad_alpha_func";
    case SBK_NV2A_REASON_COUNT: break;
  }
  return "unknown_reason";
}

/* One input byte of a general stage. `rgb`: the byte feeds an RGB portion. */
static sbk_nv2a_reason sbk__check_general_input(uint32_t byte, int rgb) {
  const uint32_t reg = byte & 0xFu, alpha = (byte >> 4) & 1u;
  (void)rgb;
  if (reg == 6u || reg == 7u) return SBK_NV2A_INVALID_REGISTER;
  if (reg == 14u || reg == 15u) return SBK_NV2A_REGISTER_NOT_ALLOWED_HERE;
  /* The fog register's alpha is the fog factor, readable in the final combiner only. The alpha portion
   * reads .a when the alpha bit is set (else .b); the RGB portion replicates .a when it is set. */
  if (reg == 3u && alpha) return SBK_NV2A_FOG_ALPHA_IN_GENERAL_STAGE;
  return SBK_NV2A_OK;
}

static int sbk__valid_destination(uint32_t dst) {
  return dst == 0u || dst == 4u || dst == 5u || (dst >= 8u && dst <= 13u);
}

static sbk_nv2a_reason sbk__check_output(uint32_t word, int rgb) {
  const uint32_t cd = word & 0xFu, ab = (word >> 4) & 0xFu, sum = (word >> 8) & 0xFu;
  const uint32_t cd_dot = (word >> 12) & 1u, ab_dot = (word >> 13) & 1u, op = (word >> 15) & 7u;
  if ((word >> 20) != 0u) return SBK_NV2A_UNDOCUMENTED_BITS;
  if (!rgb && (word & ((1u << 12) | (1u << 13) | (1u << 18) | (1u << 19))) != 0u)
    return SBK_NV2A_DOT_OR_BLUE_TO_ALPHA_IN_ALPHA_PORTION;
  if (op == 5u || op == 7u) return SBK_NV2A_RESERVED_OUTPUT_OP;
  if (!sbk__valid_destination(cd) || !sbk__valid_destination(ab) || !sbk__valid_destination(sum))
    return SBK_NV2A_BAD_DESTINATION;
  if ((cd != 0u && (cd == ab || cd == sum)) || (ab != 0u && ab == sum)) return SBK_NV2A_DUPLICATE_DESTINATION;
  if ((cd_dot || ab_dot) && sum != 0u) return SBK_NV2A_SUM_WITH_DOT_PRODUCT;
  return SBK_NV2A_OK;
}

SBK_API sbk_nv2a_reason sbk_nv2a_check_program(const sbk_nv2a_program* program, const char** where) {
  static const char* const kStageParts[4] = {"rgb input", "rgb output", "alpha input", "alpha output"};
  static const char* const kFinalSlots[7] = {"final A", "final B", "final C", "final D", "final E", "final F", "final G"};
  const uint32_t stages = sbk_nv2a_stage_count(program);
  /* COMBINECTL: stage count (0-7), mux select (8), per-stage c0 (12), per-stage c1 (16). */
  const uint32_t control_bits = 0xFFu | (1u << 8) | (1u << 12) | (1u << 16);
  uint32_t i, k;
  const char* dummy;
  if (where == NULL) where = &dummy;
  *where = "combiner_control";
  if (stages == 0u || stages > SBK_NV2A_MAX_STAGES) return SBK_NV2A_BAD_STAGE_COUNT;
  if ((program->combiner_control & ~control_bits) != 0u) return SBK_NV2A_UNDOCUMENTED_BITS;
  for (i = 0; i < stages; ++i) {
    const uint32_t words[4] = {program->rgb_inputs[i], program->rgb_outputs[i], program->alpha_inputs[i],
                               program->alpha_outputs[i]};
    for (k = 0; k < 4; ++k) {
      sbk_nv2a_reason r = SBK_NV2A_OK;
      *where = kStageParts[k];
      if (k == 0 || k == 2) {
        uint32_t b;
        for (b = 0; b < 4 && r == SBK_NV2A_OK; ++b) r = sbk__check_general_input((words[k] >> (8 * b)) & 0xFFu, k == 0);
      } else {
        r = sbk__check_output(words[k], k == 1);
      }
      if (r != SBK_NV2A_OK) return r;
    }
  }
  /* Final combiner: A B C D in final_inputs[0] (A in the top byte), E F G flags in final_inputs[1]. */
  {
    const uint32_t bytes[7] = {program->final_inputs[0] >> 24, (program->final_inputs[0] >> 16) & 0xFFu,
                               (program->final_inputs[0] >> 8) & 0xFFu, program->final_inputs[0] & 0xFFu,
                               program->final_inputs[1] >> 24, (program->final_inputs[1] >> 16) & 0xFFu,
                               (program->final_inputs[1] >> 8) & 0xFFu};
    for (k = 0; k < 7; ++k) {
      const uint32_t reg = bytes[k] & 0xFu, alpha = (bytes[k] >> 4) & 1u, mapping = bytes[k] >> 5;
      *where = kFinalSlots[k];
      if (reg == 6u || reg == 7u) return SBK_NV2A_INVALID_REGISTER;
      if (reg == 14u && !(k >= 1 && k <= 3)) return SBK_NV2A_REGISTER_NOT_ALLOWED_HERE;
      if (reg == 15u && k > 3) return SBK_NV2A_REGISTER_NOT_ALLOWED_HERE;
      if ((reg == 14u || reg == 15u) && alpha) return SBK_NV2A_ALPHA_OF_PRODUCT_OR_SUM;
      if (mapping > 1u) return SBK_NV2A_BAD_FINAL_MAPPING;
    }
    *where = "final flags";
    if ((program->final_inputs[1] & 0xFFu & ~0xE0u) != 0u) return SBK_NV2A_UNDOCUMENTED_BITS;
  }
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    const uint8_t mode = sbk_nv2a_effective_texture_mode(program, i);
    *where = "texture mode";
    if (mode >= SBK_NV2A_TEXTURE_MODE_COUNT) return SBK_NV2A_TEXTURE_MODE_RESERVED;
    if (mode != SBK_NV2A_TEXTURE_NONE && mode != SBK_NV2A_TEXTURE_PROJECT2D && mode != SBK_NV2A_TEXTURE_PROJECT3D &&
        mode != SBK_NV2A_TEXTURE_CUBE)
      return SBK_NV2A_TEXTURE_MODE_UNSUPPORTED;
  }
  *where = "alpha test";
  if (program->alpha_test_enabled && program->alpha_test_func > 7u) return SBK_NV2A_BAD_ALPHA_FUNC;
  *where = "";
  return SBK_NV2A_OK;
}


static void sbk__put_f32(uint8_t* out, float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  out[0] = (uint8_t)bits;
  out[1] = (uint8_t)(bits >> 8);
  out[2] = (uint8_t)(bits >> 16);
  out[3] = (uint8_t)(bits >> 24);
}

/* 0xAARRGGBB -> four floats R, G, B, A in [0, 1]. */
static void sbk__put_colour(uint8_t* out, uint32_t argb) {
  sbk__put_f32(out + 0, (float)((argb >> 16) & 0xFFu) / 255.0f);
  sbk__put_f32(out + 4, (float)((argb >> 8) & 0xFFu) / 255.0f);
  sbk__put_f32(out + 8, (float)(argb & 0xFFu) / 255.0f);
  sbk__put_f32(out + 12, (float)(argb >> 24) / 255.0f);
}

SBK_API void sbk_nv2a_pack_dynamic(const sbk_nv2a_dynamic* dynamic, uint8_t out[SBK_NV2A_DYNAMIC_BLOCK_SIZE]) {
  uint32_t i;
  SBK_ASSERT(dynamic != NULL && out != NULL);
  memset(out, 0, SBK_NV2A_DYNAMIC_BLOCK_SIZE);
  for (i = 0; i < SBK_NV2A_MAX_STAGES; ++i) {
    sbk__put_colour(out + 16 * i, dynamic->c0[i]);
    sbk__put_colour(out + 128 + 16 * i, dynamic->c1[i]);
  }
  sbk__put_colour(out + 256, dynamic->final_c0);
  sbk__put_colour(out + 272, dynamic->final_c1);
  sbk__put_colour(out + 288, dynamic->fog_color);
  out[304] = dynamic->alpha_ref;
}


SBK_API sbk_nv2a_reason sbk_nv2a_admit(const sbk_nv2a_program* program, const char** where) {
  SBK_ASSERT(program != NULL);
  /* The ubershader implements every valid program; a feature it lacked would be refused here. */
  return sbk_nv2a_check_program(program, where);
}

SBK_API void sbk_nv2a_encode_packet(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_PACKET_SIZE]) {
  sbk__writer w;
  SBK_ASSERT(program != NULL && out != NULL);
  w.out = out;
  w.capacity = SBK_NV2A_PACKET_SIZE;
  w.size = 0;
  sbk__put_live_stage_words(&w, program);
  sbk__put_u32(&w, program->combiner_control);
  sbk__put_u32(&w, program->final_inputs[0]);
  sbk__put_u32(&w, program->final_inputs[1]);
  sbk__put_u32(&w, program->alpha_test_enabled ? (program->alpha_test_func & 7u) : (uint32_t)SBK_COMPARE_ALWAYS);
  SBK_ASSERT(w.size == SBK_NV2A_PACKET_SIZE);
}

static uint32_t sbk__get_u32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

SBK_API sbk_result sbk_nv2a_decode_packet(const uint8_t packet[SBK_NV2A_PACKET_SIZE],
                                          const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE], sbk_nv2a_program* out) {
  static const uint8_t kModeOfSampler[4] = {SBK_NV2A_TEXTURE_NONE, SBK_NV2A_TEXTURE_PROJECT2D,
                                            SBK_NV2A_TEXTURE_PROJECT3D, SBK_NV2A_TEXTURE_CUBE};
  uint32_t i;
  SBK_ASSERT(packet != NULL && family_key != NULL && out != NULL);
  if (family_key[0] != SBK_GUEST_NV2A || family_key[1] != SBK_KEY_KIND_FAMILY ||
      (family_key[2] | ((uint32_t)family_key[3] << 8)) != SBK_NV2A_KEY_SCHEMA_VERSION)
    return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i)
    if (family_key[4 + i] > SBK_SAMPLER_CUBE) return SBK_ERROR_INVALID_STATE;
  memset(out, 0, sizeof *out);
  for (i = 0; i < SBK_NV2A_MAX_STAGES; ++i) {
    out->rgb_inputs[i] = sbk__get_u32(packet + 16 * i);
    out->rgb_outputs[i] = sbk__get_u32(packet + 16 * i + 4);
    out->alpha_inputs[i] = sbk__get_u32(packet + 16 * i + 8);
    out->alpha_outputs[i] = sbk__get_u32(packet + 16 * i + 12);
  }
  out->combiner_control = sbk__get_u32(packet + 128);
  out->final_inputs[0] = sbk__get_u32(packet + 132);
  out->final_inputs[1] = sbk__get_u32(packet + 136);
  out->alpha_test_func = (uint8_t)(sbk__get_u32(packet + 140) & 7u);
  out->alpha_test_enabled = out->alpha_test_func != SBK_COMPARE_ALWAYS;
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    out->texture_modes[i] = kModeOfSampler[family_key[4 + i]];
    out->texture_enabled[i] = family_key[4 + i] != SBK_SAMPLER_NONE;
  }
  return SBK_OK;
}


SBK_API sbk_result sbk_nv2a_decode_exact_key(const uint8_t key[SBK_NV2A_EXACT_KEY_SIZE], sbk_nv2a_program* out) {
  uint32_t i;
  SBK_ASSERT(key != NULL && out != NULL);
  if (key[0] != SBK_GUEST_NV2A || key[1] != SBK_KEY_KIND_EXACT ||
      (key[2] | ((uint32_t)key[3] << 8)) != SBK_NV2A_KEY_SCHEMA_VERSION)
    return SBK_ERROR_INVALID_STATE;
  memset(out, 0, sizeof *out);
  out->combiner_control = sbk__get_u32(key + 4);
  for (i = 0; i < SBK_NV2A_MAX_STAGES; ++i) {
    out->rgb_inputs[i] = sbk__get_u32(key + 8 + 16 * i);
    out->rgb_outputs[i] = sbk__get_u32(key + 12 + 16 * i);
    out->alpha_inputs[i] = sbk__get_u32(key + 16 + 16 * i);
    out->alpha_outputs[i] = sbk__get_u32(key + 20 + 16 * i);
  }
  out->final_inputs[0] = sbk__get_u32(key + 136);
  out->final_inputs[1] = sbk__get_u32(key + 140);
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    out->texture_modes[i] = (uint8_t)(key[144 + i] & 0x1Fu);
    out->texture_enabled[i] = key[144 + i] != SBK_NV2A_TEXTURE_NONE;
  }
  out->alpha_test_func = (uint8_t)(key[148] & 7u);
  out->alpha_test_enabled = out->alpha_test_func != SBK_COMPARE_ALWAYS;
  return SBK_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION_DONE */
#endif /* SHADERBAKE_IMPLEMENTATION */
