/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_nv2a.h — the nv2a guest model (NV2A register combiners and texture shader) as a renderer of that
 * guest needs it at a draw: the program a draw runs (raw hardware words), its canonical exact and fallback
 * family keys (encoders and decoders), validity and fail-closed admission to the fallback route, the runtime
 * packet and dynamic block of the layout contract both routes share, and sbk_nv2a_check_bundle: whether a
 * bundle's keys are nv2a keys of the schema this header speaks. The shaderbake tool compiles this same code.
 *
 * Who includes it: a renderer of the nv2a guest (emulator), next to shaderbake.h, and the tool's nv2a emitters.
 * It includes shaderbake.h (outside its own include guard, so that including it again with
 * SHADERBAKE_IMPLEMENTATION defined also compiles shaderbake.h's implementation, whose private helpers this
 * one's uses). Implementation: SHADERBAKE_IMPLEMENTATION in one translation unit, as for shaderbake.h. Needs
 * libc and what shaderbake.h needs; no Vulkan.
 *
 * Contracts: no allocation, no global state, no I/O; every function is thread-safe and re-entrant; NULL
 * where a pointer is required is checked with SBK_ASSERT; any program words give a key (admission, not the
 * key, judges validity). schemas/keys.md documents the key layouts byte by byte.
 */
#include "shaderbake.h" /* outside the guard: see the top comment */

#ifndef SHADERBAKE_NV2A_H
#define SHADERBAKE_NV2A_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- guest model nv2a (register combiners) ---------------------------------------------------------- */

#define SBK_NV2A_MAX_STAGES 8
#define SBK_NV2A_TEXTURE_STAGES 4
#define SBK_NV2A_KEY_SCHEMA_VERSION 2

/* The vertex shader input location of each nv2a vertex attribute: what a renderer puts in
 * sbk_vertex_attribute.location, and what the semantic names of a trace of format /1 ("position",
 * "diffuse", ... "texcoord3") stand for. */
typedef enum sbk_nv2a_vertex_location {
  SBK_NV2A_LOCATION_POSITION = 0,
  SBK_NV2A_LOCATION_DIFFUSE = 1,
  SBK_NV2A_LOCATION_SPECULAR = 2,
  SBK_NV2A_LOCATION_FOG = 3,
  SBK_NV2A_LOCATION_TEXCOORD0 = 4,
  SBK_NV2A_LOCATION_TEXCOORD1 = 5,
  SBK_NV2A_LOCATION_TEXCOORD2 = 6,
  SBK_NV2A_LOCATION_TEXCOORD3 = 7,
  SBK_NV2A_LOCATION_COUNT = 8
} sbk_nv2a_vertex_location;

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

/* What a texel equal to its stage's colour key does (SET_TEXTURE_CONTROL0 bits 0-1). */
typedef enum sbk_nv2a_color_key_mode {
  SBK_NV2A_COLOR_KEY_NONE = 0,
  SBK_NV2A_COLOR_KEY_KILL_ALPHA = 1, /* the texel's alpha becomes 0 */
  SBK_NV2A_COLOR_KEY_KILL_COLOR = 2, /* the texel becomes (0, 0, 0, 0) */
  SBK_NV2A_COLOR_KEY_DISCARD = 3     /* the fragment is discarded */
} sbk_nv2a_color_key_mode;

/* Channels of a stage's texels read as two's complement (SET_TEXTURE_FILTER bits 28-31), as a mask. */
enum { SBK_NV2A_SIGNED_A = 1, SBK_NV2A_SIGNED_R = 2, SBK_NV2A_SIGNED_G = 4, SBK_NV2A_SIGNED_B = 8 };

/* Texel format of a stage as far as the model needs it: 32-bit ARGB, or XRGB (alpha reads 1 and a colour key
 * ignores it). */
typedef enum sbk_nv2a_texture_format { SBK_NV2A_FORMAT_ARGB8 = 0, SBK_NV2A_FORMAT_XRGB8 = 1 } sbk_nv2a_texture_format;

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
  /* The texture shader's static fields (raw words and per-stage controls; shared/NV2A-TEXTURE.md in the
   * guest's README: which mode reads which). */
  uint32_t dot_rgb_mapping;   /* SET_DOT_RGBMAPPING: stage 1's mapping at bits 0-3, stage 2's at 4-7, stage 3's at 8-11 */
  uint32_t other_stage_input; /* SET_SHADER_OTHER_STAGE_INPUT: stage 2's input stage at bits 16-19, stage 3's at 20-23 */
  uint32_t clip_plane_mode;   /* SET_SHADER_CLIP_PLANE_MODE: stage i's nibble at bits 4i..4i+3 (bit 0 s, 1 t, 2 r, 3 q) */
  uint8_t texture_alpha_kill[SBK_NV2A_TEXTURE_STAGES]; /* 0 or 1: discard a fetched texel of alpha 0 */
  uint8_t texture_color_key[SBK_NV2A_TEXTURE_STAGES];  /* sbk_nv2a_color_key_mode */
  uint8_t texture_signed[SBK_NV2A_TEXTURE_STAGES];     /* SBK_NV2A_SIGNED_* mask */
  uint8_t texture_format[SBK_NV2A_TEXTURE_STAGES];     /* sbk_nv2a_texture_format */
} sbk_nv2a_program;

/* Runtime values of a draw: never part of any key. Colours are 0xAARRGGBB. */
typedef struct sbk_nv2a_dynamic {
  uint32_t c0[SBK_NV2A_MAX_STAGES];
  uint32_t c1[SBK_NV2A_MAX_STAGES];
  uint32_t final_c0, final_c1;
  uint32_t fog_color;
  uint8_t alpha_ref;
  float bump_env_matrix[SBK_NV2A_TEXTURE_STAGES][4]; /* per stage W0..W3 in method order (stage 0's unused) */
  float bump_env_scale[SBK_NV2A_TEXTURE_STAGES];
  float bump_env_offset[SBK_NV2A_TEXTURE_STAGES];
  uint32_t color_keys[SBK_NV2A_TEXTURE_STAGES]; /* 0xAARRGGBB, compared with a texel's raw bytes */
  float eye_vector[3];                           /* SET_EYE_VECTOR (dot_rflct_spec_const) */
} sbk_nv2a_dynamic;

#define SBK_NV2A_EXACT_KEY_SIZE 166
#define SBK_NV2A_FAMILY_KEY_SIZE 9

/* Number of general combiner stages the hardware runs (combiner_control bits 0-7, as written; values of 0
 * or above 8 are invalid programs, and the key still distinguishes them). */
SBK_API uint32_t sbk_nv2a_stage_count(const sbk_nv2a_program* program);

/* Texture mode the stage effectively runs: NONE when the stage is disabled. */
SBK_API uint8_t sbk_nv2a_effective_texture_mode(const sbk_nv2a_program* program, uint32_t stage);

/* Sampler a texture mode binds (SBK_SAMPLER_NONE for modes that read no texture and for reserved codes). */
SBK_API sbk_sampler_dim sbk_nv2a_sampler_dim(uint8_t texture_mode);

/* Whether a texture mode computes a dot product of its stage (dot_product and every mode built on one). */
SBK_API int sbk_nv2a_mode_is_dot(uint8_t texture_mode);

/* Whether a texture mode reads the texel of an earlier stage (its input stage): bump-env, dependent reads and
 * the dot modes. */
SBK_API int sbk_nv2a_mode_reads_input(uint8_t texture_mode);

/* Whether a documented texture mode may run in texture stage `stage` (0-3): the dot modes need the stages
 * before them, so each has its own stages (sbk_nv2a_check_program's texture_mode_illegal_in_stage). */
SBK_API int sbk_nv2a_mode_legal_in_stage(uint8_t texture_mode, uint32_t stage);

/* The stage whose texel stage `stage` reads: 0 for stage 1 (fixed in hardware), OTHER_STAGE_INPUT's field for
 * stages 2 and 3 (raw: an invalid value is returned as it is), 0 for stage 0 (which has none). */
SBK_API uint32_t sbk_nv2a_input_stage(const sbk_nv2a_program* program, uint32_t stage);

/* The dot mapping of stage `stage` (DOT_RGBMAPPING's 4-bit field; 0 for stage 0, which has none). */
SBK_API uint32_t sbk_nv2a_dot_mapping(const sbk_nv2a_program* program, uint32_t stage);

/* The texel controls of stage `stage` as the exact key and the packet hold them, in one byte: bit 0 alpha kill,
 * bits 1-2 the colour-key mode, bits 3-6 the signed mask, bit 7 XRGB; 0 when the stage's effective mode
 * fetches no texel (it reads none of them). */
SBK_API uint8_t sbk_nv2a_texel_controls(const sbk_nv2a_program* program, uint32_t stage);

/* Writes the canonical exact key (SBK_NV2A_EXACT_KEY_SIZE bytes). Stage words past the stage count, the mode
 * of disabled texture stages and the function of a disabled alpha test never reach it. Total: any 32-bit
 * words give a key, valid or not; admission, not the key, judges validity. */
SBK_API void sbk_nv2a_encode_exact_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_EXACT_KEY_SIZE]);

/* Writes the canonical fallback family key (SBK_NV2A_FAMILY_KEY_SIZE bytes): the sampler dimensionality of
 * each texture stage and whether a stage replaces the fragment's depth (dot_zw): the static state the
 * ubershader cannot take as runtime data (a shader that writes depth writes it on every path). */
SBK_API void sbk_nv2a_encode_family_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_FAMILY_KEY_SIZE]);

/* Rebuilds the normalised program an exact key describes (the inverse of sbk_nv2a_encode_exact_key: encoding
 * the result gives the same key). SBK_ERROR_INVALID_STATE when `key` is not an nv2a exact key of a schema
 * version this header speaks. */
SBK_API sbk_result sbk_nv2a_decode_exact_key(const uint8_t key[SBK_NV2A_EXACT_KEY_SIZE], sbk_nv2a_program* out);


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
  SBK_NV2A_SUM_WITH_DOT_PRODUCT,         /* retired: a sum next to a dot product is defined (NV_register_combiners 1.6) */
  SBK_NV2A_RESERVED_OUTPUT_OP,           /* ops 5 and 7 */
  SBK_NV2A_BAD_DESTINATION,              /* destination outside {0, 4, 5, 8-13} */
  SBK_NV2A_DUPLICATE_DESTINATION,        /* two equal non-discard destinations in one output word */
  SBK_NV2A_UNDOCUMENTED_BITS,            /* bits set that no documented field uses */
  SBK_NV2A_TEXTURE_MODE_RESERVED,        /* texture mode code 19..31 */
  SBK_NV2A_TEXTURE_MODE_UNSUPPORTED,     /* retired: the ubershader implements every mode the model defines */
  SBK_NV2A_BAD_ALPHA_FUNC,               /* alpha test function above 7 */
  SBK_NV2A_TEXTURE_MODE_ILLEGAL_IN_STAGE, /* a documented mode in a stage it may not run in */
  SBK_NV2A_TEXTURE_PREREQUISITE_MISSING, /* dot_st / dot_zw / the 3-stage dot modes without their dot_product
                                            stages; dot_rflct_diff without a reflect mode in stage 3 */
  SBK_NV2A_BAD_INPUT_STAGE,              /* an input stage not earlier than its stage, or one that fetches no texel */
  SBK_NV2A_BAD_DOT_MAPPING,              /* dot mapping 5, 6 (the hardware raises an error) or 8-15 */
  SBK_NV2A_DEPENDENT_READ_OF_SIGNED,     /* a dependent read of a channel flagged signed */
  SBK_NV2A_UNDEFINED_TEXTURE_READ,       /* a combiner reads T of a clipplane, dot_product or dot_zw stage */
  SBK_NV2A_BRDF_UNDEFINED,               /* brdf: the sign of delta phi is unknown on hardware */
  SBK_NV2A_DOT_ZW_DEPTH_FORMAT,          /* a dot_zw family on a depth attachment other than D16 (its depth is
                                            modelled in Z16 units only): sbk_nv2a_admit_attachment */
  SBK_NV2A_REASON_COUNT
} sbk_nv2a_reason;

/* Stable snake_case name of a reason ("invalid_register"). Never NULL. */
SBK_API const char* sbk_nv2a_reason_name(sbk_nv2a_reason reason);

/* Checks that `program` is a valid encoding with semantics shaderbake implements (guests/nv2a/README.md, Semantics): the first
 * problem found, or SBK_NV2A_OK. Only stages below the stage count and enabled texture stages are checked.
 * When `where` is not NULL it receives a short location of the problem ("stage 2 rgb output"). */
SBK_API sbk_nv2a_reason sbk_nv2a_check_program(const sbk_nv2a_program* program, const char** where);


/* ---- nv2a layout contract (shared by the exact and the fallback route) ----
 * Descriptor set 0: bindings 0-3 the texture stages (combined image samplers; 2D, 3D or cube per
 * sbk_nv2a_sampler_dim, present only for stages that sample), binding 4 the dynamic block below (uniform
 * buffer, std140). Fragment inputs: location 0 v0 (diffuse), 1 v1 (specular), 2 fog factor (float),
 * 3-6 texture coordinates 0-3 (vec4). Output: location 0, RGBA. */
#define SBK_NV2A_BINDING_DYNAMIC 4
#define SBK_NV2A_DYNAMIC_BLOCK_SIZE 448

/* Packs the runtime values into the std140 dynamic block: vec4 c0[8] at 0, vec4 c1[8] at 128, vec4 final_c0
 * at 256, vec4 final_c1 at 272, vec4 fog_color at 288 (colours as RGBA floats k/255), uint alpha_ref at 304,
 * vec4 bump_env_matrix[4] at 320 (stage i's W0..W3), vec4 bump_env_scale at 384 and vec4 bump_env_offset at
 * 400 (stage i's in component i), uvec4 color_keys at 416 (0xAARRGGBB), vec4 eye_vector at 432 (xyz). */
SBK_API void sbk_nv2a_pack_dynamic(const sbk_nv2a_dynamic* dynamic, uint8_t out[SBK_NV2A_DYNAMIC_BLOCK_SIZE]);


/* ---- nv2a fallback route: admission and the runtime packet ----
 * The ubershader of a fallback family evaluates any admitted program from a packet of static controls
 * (uniform buffer, std140, binding SBK_NV2A_BINDING_PACKET), next to the dynamic block both routes share:
 *   uvec4 stages[8]  rgb_inputs, rgb_outputs, alpha_inputs, alpha_outputs of each stage (zero past the count)
 *   uvec4 control    combiner_control, final_inputs[0], final_inputs[1], alpha test function (ALWAYS when off)
 *   uvec4 texture    per texture stage: bits 0-4 the effective mode, 5-8 the dot mapping, 9-12 the input
 *                    stage, 13-16 the clip nibble, 17-24 the texel controls (each as the exact key holds it)
 * The family key supplies the rest (which sampler each texture stage binds, whether depth is written). */
#define SBK_NV2A_BINDING_PACKET 5
#define SBK_NV2A_PACKET_SIZE 160

/* Fail-closed admission to the fallback route: SBK_NV2A_OK only when the ubershader is proven to reproduce
 * `program` (it implements every program sbk_nv2a_check_program accepts, so the reasons are the same);
 * anything else keeps the program on its exact route, with the reason reports count. */
SBK_API sbk_nv2a_reason sbk_nv2a_admit(const sbk_nv2a_program* program, const char** where);

/* Admission of a fallback family on a host attachment: SBK_NV2A_DOT_ZW_DEPTH_FORMAT when the family replaces
 * depth (dot_zw) and `depth_format` (a VkFormat; 0 for none) is not VK_FORMAT_D16_UNORM or
 * VK_FORMAT_D16_UNORM_S8_UINT: dot_zw's depth is floor(dot_{i-1} / dot_i) in Z16 units, checked on hardware
 * on Z16 only. A renderer asks this with sbk_nv2a_admit before it takes a family's fallback pipeline for a
 * draw; bundles hold no fallback pipeline, and no dynamic-state recipe, that it refuses. */
SBK_API sbk_nv2a_reason sbk_nv2a_admit_attachment(const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE], uint32_t depth_format);

/* Admission of one draw to its family's fallback route: sbk_nv2a_admit, then sbk_nv2a_admit_attachment with
 * the draw's depth attachment (`where` then reads "depth attachment"). What a renderer asks before it takes a
 * fallback pipeline for a draw. */
SBK_API sbk_nv2a_reason sbk_nv2a_admit_draw(const sbk_nv2a_program* program, const sbk_host_state* host,
                                            const char** where);

/* Writes the packet of an admitted program (SBK_NV2A_PACKET_SIZE bytes, little-endian). */
SBK_API void sbk_nv2a_encode_packet(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_PACKET_SIZE]);

/* Rebuilds the program a packet and family key describe (normalised: the exact key of the result equals
 * the exact key of the program that was encoded). Returns SBK_ERROR_INVALID_STATE for a family key that is
 * not an nv2a family key of a version this header speaks. */
SBK_API sbk_result sbk_nv2a_decode_packet(const uint8_t packet[SBK_NV2A_PACKET_SIZE],
                                          const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE], sbk_nv2a_program* out);


/* ---- bundles of this guest ----
 * A bundle's keys are encoded for one guest model and key schema (its header; sbk_bundle_info). Opening a
 * bundle checks only the format; a renderer of this guest calls this right after open and runs without the
 * bundle unless it returns SBK_OK: keys of another guest or schema would never match, and matching them by
 * accident would be worse. SBK_ERROR_VERSION when the bundle's guest is not SBK_GUEST_NV2A or its key
 * schema is not SBK_NV2A_KEY_SCHEMA_VERSION. Reads the open bundle's header fields only. */
SBK_API sbk_result sbk_nv2a_check_bundle(const sbk_bundle* bundle);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_NV2A_H */

/* ===================================================================================================== */
#if defined(SHADERBAKE_IMPLEMENTATION) && !defined(SHADERBAKE_NV2A_IMPLEMENTATION_DONE)
#define SHADERBAKE_NV2A_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

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

SBK_API int sbk_nv2a_mode_is_dot(uint8_t texture_mode) {
  switch (texture_mode) {
    case SBK_NV2A_TEXTURE_DOT_PRODUCT:
    case SBK_NV2A_TEXTURE_DOT_ST:
    case SBK_NV2A_TEXTURE_DOT_ZW:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
    case SBK_NV2A_TEXTURE_DOT_STR_3D:
    case SBK_NV2A_TEXTURE_DOT_STR_CUBE:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST:
      return 1;
    default:
      return 0;
  }
}

SBK_API int sbk_nv2a_mode_reads_input(uint8_t texture_mode) {
  return texture_mode == SBK_NV2A_TEXTURE_BUMPENVMAP || texture_mode == SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE ||
         texture_mode == SBK_NV2A_TEXTURE_DEPENDENT_AR || texture_mode == SBK_NV2A_TEXTURE_DEPENDENT_GB ||
         sbk_nv2a_mode_is_dot(texture_mode);
}

SBK_API uint32_t sbk_nv2a_input_stage(const sbk_nv2a_program* program, uint32_t stage) {
  SBK_ASSERT(program != NULL && stage < SBK_NV2A_TEXTURE_STAGES);
  if (stage == 2) return (program->other_stage_input >> 16) & 0xFu;
  if (stage == 3) return (program->other_stage_input >> 20) & 0xFu;
  return 0; /* stage 1 reads stage 0; stage 0 reads none */
}

SBK_API uint32_t sbk_nv2a_dot_mapping(const sbk_nv2a_program* program, uint32_t stage) {
  SBK_ASSERT(program != NULL && stage < SBK_NV2A_TEXTURE_STAGES);
  return stage == 0 ? 0u : (program->dot_rgb_mapping >> (4u * (stage - 1u))) & 0xFu;
}

/* Bits of the texture shader's words that no documented field uses. */
#define SBK__NV2A_DOT_MAPPING_BITS 0x00000FFFu
#define SBK__NV2A_STAGE_INPUT_BITS 0x00FF0000u
#define SBK__NV2A_CLIP_PLANE_BITS 0x0000FFFFu

/* A texture stage's static fields as the key holds them: each only where the stage's effective mode reads it
 * (a dot mapping for the dot modes, an input stage for the modes that read one, a clip nibble for clipplane,
 * the texel controls for the modes that fetch a texel), else 0. */
typedef struct sbk__nv2a_stage_fields {
  uint8_t mode, dot_mapping, input_stage, clip, texel_flags;
} sbk__nv2a_stage_fields;

SBK_API uint8_t sbk_nv2a_texel_controls(const sbk_nv2a_program* p, uint32_t stage) {
  SBK_ASSERT(p != NULL && stage < SBK_NV2A_TEXTURE_STAGES);
  if (sbk_nv2a_sampler_dim(sbk_nv2a_effective_texture_mode(p, stage)) == SBK_SAMPLER_NONE) return 0;
  return (uint8_t)((p->texture_alpha_kill[stage] ? 1u : 0u) | ((p->texture_color_key[stage] & 3u) << 1) |
                   ((p->texture_signed[stage] & 0xFu) << 3) |
                   (p->texture_format[stage] == SBK_NV2A_FORMAT_XRGB8 ? 0x80u : 0u));
}

static sbk__nv2a_stage_fields sbk__nv2a_stage_fields_of(const sbk_nv2a_program* p, uint32_t stage) {
  sbk__nv2a_stage_fields f;
  f.mode = sbk_nv2a_effective_texture_mode(p, stage);
  f.dot_mapping = (uint8_t)(sbk_nv2a_mode_is_dot(f.mode) ? sbk_nv2a_dot_mapping(p, stage) : 0u);
  f.input_stage = (uint8_t)(sbk_nv2a_mode_reads_input(f.mode) ? sbk_nv2a_input_stage(p, stage) : 0u);
  f.clip = (uint8_t)(f.mode == SBK_NV2A_TEXTURE_CLIPPLANE ? (p->clip_plane_mode >> (4u * stage)) & 0xFu : 0u);
  f.texel_flags = sbk_nv2a_texel_controls(p, stage);
  return f;
}

/* Sets the fields of `stage` in a program being rebuilt from a key or packet. */
static void sbk__nv2a_set_stage_fields(sbk_nv2a_program* p, uint32_t stage, const sbk__nv2a_stage_fields* f) {
  p->texture_modes[stage] = (uint8_t)(f->mode & 0x1Fu);
  p->texture_enabled[stage] = f->mode != SBK_NV2A_TEXTURE_NONE;
  if (stage > 0) p->dot_rgb_mapping |= (uint32_t)(f->dot_mapping & 0xFu) << (4u * (stage - 1u));
  if (stage >= 2) p->other_stage_input |= (uint32_t)(f->input_stage & 0xFu) << (stage == 2 ? 16u : 20u);
  p->clip_plane_mode |= (uint32_t)(f->clip & 0xFu) << (4u * stage);
  p->texture_alpha_kill[stage] = f->texel_flags & 1u;
  p->texture_color_key[stage] = (uint8_t)((f->texel_flags >> 1) & 3u);
  p->texture_signed[stage] = (uint8_t)((f->texel_flags >> 3) & 0xFu);
  p->texture_format[stage] = (f->texel_flags & 0x80u) ? (uint8_t)SBK_NV2A_FORMAT_XRGB8 : (uint8_t)SBK_NV2A_FORMAT_ARGB8;
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

/* Exact key layout (schema version 2), 166 bytes:
 *   0  u8  guest (SBK_GUEST_NV2A)        1  u8  kind (SBK_KEY_KIND_EXACT)     2  u16 key schema version
 *   4  u32 combiner_control
 *   8  8 x { u32 rgb_input, u32 rgb_output, u32 alpha_input, u32 alpha_output }, zero past the stage count
 * 136  u32 final_inputs[0], u32 final_inputs[1]
 * 144  u8  effective texture mode x 4 (NONE for a disabled stage)
 * 148  u8  alpha test function (ALWAYS when the test is disabled: the same behaviour)
 * 149  u8  undocumented bits set in the texture shader's words: bit 0 DOT_RGBMAPPING, 1 OTHER_STAGE_INPUT,
 *          2 CLIP_PLANE_MODE (any such program is invalid; the key keeps it apart from the valid one)
 * 150  4 x { u8 dot mapping, u8 input stage, u8 clip nibble, u8 texel controls }: each 0 where the stage's
 *          mode does not read it (sbk__nv2a_stage_fields_of) */
SBK_API void sbk_nv2a_encode_exact_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_EXACT_KEY_SIZE]) {
  sbk__writer w;
  uint32_t i;
  SBK_ASSERT(program != NULL && out != NULL);
  w = sbk__writer_to(out, SBK_NV2A_EXACT_KEY_SIZE);
  sbk__put_u8(&w, SBK_GUEST_NV2A);
  sbk__put_u8(&w, SBK_KEY_KIND_EXACT);
  sbk__put_u16(&w, SBK_NV2A_KEY_SCHEMA_VERSION);
  sbk__put_u32(&w, program->combiner_control);
  sbk__put_live_stage_words(&w, program);
  sbk__put_u32(&w, program->final_inputs[0]);
  sbk__put_u32(&w, program->final_inputs[1]);
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) sbk__put_u8(&w, sbk_nv2a_effective_texture_mode(program, i));
  sbk__put_u8(&w, program->alpha_test_enabled ? (program->alpha_test_func & 7u) : (uint32_t)SBK_COMPARE_ALWAYS);
  sbk__put_u8(&w, ((program->dot_rgb_mapping & ~SBK__NV2A_DOT_MAPPING_BITS) ? 1u : 0u) |
                      ((program->other_stage_input & ~SBK__NV2A_STAGE_INPUT_BITS) ? 2u : 0u) |
                      ((program->clip_plane_mode & ~SBK__NV2A_CLIP_PLANE_BITS) ? 4u : 0u));
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    const sbk__nv2a_stage_fields f = sbk__nv2a_stage_fields_of(program, i);
    sbk__put_u8(&w, f.dot_mapping);
    sbk__put_u8(&w, f.input_stage);
    sbk__put_u8(&w, f.clip);
    sbk__put_u8(&w, f.texel_flags);
  }
  SBK_ASSERT(w.size == SBK_NV2A_EXACT_KEY_SIZE);
}

/* Family key layout (schema version 2), 9 bytes:
 *   0  u8 guest   1  u8 kind (SBK_KEY_KIND_FAMILY)   2  u16 key schema version
 *   4  u8 sampler dimensionality (sbk_sampler_dim) of each of the 4 texture stages
 *   8  u8 1 when a stage runs dot_zw (the ubershader then writes the fragment's depth), else 0 */
SBK_API void sbk_nv2a_encode_family_key(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_FAMILY_KEY_SIZE]) {
  sbk__writer w;
  uint32_t i;
  SBK_ASSERT(program != NULL && out != NULL);
  w = sbk__writer_to(out, SBK_NV2A_FAMILY_KEY_SIZE);
  sbk__put_u8(&w, SBK_GUEST_NV2A);
  sbk__put_u8(&w, SBK_KEY_KIND_FAMILY);
  sbk__put_u16(&w, SBK_NV2A_KEY_SCHEMA_VERSION);
  uint32_t writes_depth = 0;
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    const uint8_t mode = sbk_nv2a_effective_texture_mode(program, i);
    sbk__put_u8(&w, sbk_nv2a_sampler_dim(mode));
    if (mode == SBK_NV2A_TEXTURE_DOT_ZW) writes_depth = 1;
  }
  sbk__put_u8(&w, writes_depth);
  SBK_ASSERT(w.size == SBK_NV2A_FAMILY_KEY_SIZE);
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
    sbk__nv2a_stage_fields f;
    f.mode = key[144 + i];
    f.dot_mapping = key[150 + 4 * i];
    f.input_stage = key[151 + 4 * i];
    f.clip = key[152 + 4 * i];
    f.texel_flags = key[153 + 4 * i];
    sbk__nv2a_set_stage_fields(out, i, &f);
  }
  out->alpha_test_func = (uint8_t)(key[148] & 7u);
  out->alpha_test_enabled = out->alpha_test_func != SBK_COMPARE_ALWAYS;
  /* One undocumented bit of each word the key says had some. */
  if (key[149] & 1u) out->dot_rgb_mapping |= 1u << 12;
  if (key[149] & 2u) out->other_stage_input |= 1u << 24;
  if (key[149] & 4u) out->clip_plane_mode |= 1u << 16;
  /* A key this encoder cannot have written (a field where its mode reads none, a bit past a field) does not
   * decode: re-encoding must give the same bytes. */
  {
    uint8_t again[SBK_NV2A_EXACT_KEY_SIZE];
    sbk_nv2a_encode_exact_key(out, again);
    if (memcmp(again, key, SBK_NV2A_EXACT_KEY_SIZE) != 0) return SBK_ERROR_INVALID_STATE;
  }
  return SBK_OK;
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
    case SBK_NV2A_TEXTURE_MODE_ILLEGAL_IN_STAGE: return "texture_mode_illegal_in_stage";
    case SBK_NV2A_TEXTURE_PREREQUISITE_MISSING: return "texture_prerequisite_missing";
    case SBK_NV2A_BAD_INPUT_STAGE: return "bad_input_stage";
    case SBK_NV2A_BAD_DOT_MAPPING: return "bad_dot_mapping";
    case SBK_NV2A_DEPENDENT_READ_OF_SIGNED: return "dependent_read_of_signed";
    case SBK_NV2A_UNDEFINED_TEXTURE_READ: return "undefined_texture_read";
    case SBK_NV2A_BRDF_UNDEFINED: return "brdf_undefined";
    case SBK_NV2A_DOT_ZW_DEPTH_FORMAT: return "dot_zw_depth_format";
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
  const uint32_t op = (word >> 15) & 7u;
  if ((word >> 20) != 0u) return SBK_NV2A_UNDOCUMENTED_BITS;
  if (!rgb && (word & ((1u << 12) | (1u << 13) | (1u << 18) | (1u << 19))) != 0u)
    return SBK_NV2A_DOT_OR_BLUE_TO_ALPHA_IN_ALPHA_PORTION;
  if (op == 5u || op == 7u) return SBK_NV2A_RESERVED_OUTPUT_OP;
  if (!sbk__valid_destination(cd) || !sbk__valid_destination(ab) || !sbk__valid_destination(sum))
    return SBK_NV2A_BAD_DESTINATION;
  if ((cd != 0u && (cd == ab || cd == sum)) || (ab != 0u && ab == sum)) return SBK_NV2A_DUPLICATE_DESTINATION;
  /* A sum next to a dot product sums the dot products: defined (NV_register_combiners 1.6), not refused. */
  return SBK_NV2A_OK;
}

/* The stages a texture mode may run in, as a mask of stages 0-3. */
static uint32_t sbk__nv2a_legal_stages(uint8_t mode) {
  switch (mode) {
    case SBK_NV2A_TEXTURE_NONE:
    case SBK_NV2A_TEXTURE_PROJECT2D:
    case SBK_NV2A_TEXTURE_PROJECT3D:
    case SBK_NV2A_TEXTURE_CUBE:
    case SBK_NV2A_TEXTURE_PASSTHRU:
    case SBK_NV2A_TEXTURE_CLIPPLANE: return 0xFu;
    case SBK_NV2A_TEXTURE_BUMPENVMAP:
    case SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE:
    case SBK_NV2A_TEXTURE_DEPENDENT_AR:
    case SBK_NV2A_TEXTURE_DEPENDENT_GB: return 0xEu;
    case SBK_NV2A_TEXTURE_BRDF:
    case SBK_NV2A_TEXTURE_DOT_ST:
    case SBK_NV2A_TEXTURE_DOT_ZW: return 0xCu;
    case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF: return 0x4u;
    case SBK_NV2A_TEXTURE_DOT_PRODUCT: return 0x6u;
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
    case SBK_NV2A_TEXTURE_DOT_STR_3D:
    case SBK_NV2A_TEXTURE_DOT_STR_CUBE:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST: return 0x8u;
    default: return 0u;
  }
}

SBK_API int sbk_nv2a_mode_legal_in_stage(uint8_t texture_mode, uint32_t stage) {
  return stage < SBK_NV2A_TEXTURE_STAGES && ((sbk__nv2a_legal_stages(texture_mode) >> stage) & 1u) != 0u;
}

/* Whether a stage running `mode` leaves T undefined (a combiner may not read it). */
static int sbk__nv2a_t_undefined(uint8_t mode) {
  return mode == SBK_NV2A_TEXTURE_CLIPPLANE || mode == SBK_NV2A_TEXTURE_DOT_PRODUCT || mode == SBK_NV2A_TEXTURE_DOT_ZW;
}

/* The texture-shader rules of stage i (`m`: every stage's effective mode): legality, prerequisites, input
 * stage, dot mapping, signed reads. */
static sbk_nv2a_reason sbk__nv2a_check_texture_stage(const sbk_nv2a_program* p, const uint8_t m[SBK_NV2A_TEXTURE_STAGES],
                                                     uint32_t i) {
  if (m[i] >= SBK_NV2A_TEXTURE_MODE_COUNT) return SBK_NV2A_TEXTURE_MODE_RESERVED;
  if (!sbk_nv2a_mode_legal_in_stage(m[i], i)) return SBK_NV2A_TEXTURE_MODE_ILLEGAL_IN_STAGE;
  if (m[i] == SBK_NV2A_TEXTURE_BRDF) return SBK_NV2A_BRDF_UNDEFINED;
  switch (m[i]) {
    case SBK_NV2A_TEXTURE_DOT_ST:
    case SBK_NV2A_TEXTURE_DOT_ZW:
      if (m[i - 1] != SBK_NV2A_TEXTURE_DOT_PRODUCT) return SBK_NV2A_TEXTURE_PREREQUISITE_MISSING;
      break;
    case SBK_NV2A_TEXTURE_DOT_STR_3D:
    case SBK_NV2A_TEXTURE_DOT_STR_CUBE:
      if (m[1] != SBK_NV2A_TEXTURE_DOT_PRODUCT || m[2] != SBK_NV2A_TEXTURE_DOT_PRODUCT)
        return SBK_NV2A_TEXTURE_PREREQUISITE_MISSING;
      break;
    case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF:
      if (m[1] != SBK_NV2A_TEXTURE_DOT_PRODUCT ||
          (m[3] != SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC && m[3] != SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST))
        return SBK_NV2A_TEXTURE_PREREQUISITE_MISSING;
      break;
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST:
      if (m[1] != SBK_NV2A_TEXTURE_DOT_PRODUCT ||
          (m[2] != SBK_NV2A_TEXTURE_DOT_PRODUCT && m[2] != SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF))
        return SBK_NV2A_TEXTURE_PREREQUISITE_MISSING;
      break;
    default:
      break;
  }
  if (sbk_nv2a_mode_reads_input(m[i])) {
    const uint32_t in = sbk_nv2a_input_stage(p, i);
    /* The input must be an earlier stage that fetched a texel (a passthru stage fetches none: what it would
     * hand on is unknown, so it is refused too). */
    if (in >= i || sbk_nv2a_sampler_dim(m[in]) == SBK_SAMPLER_NONE) return SBK_NV2A_BAD_INPUT_STAGE;
    /* dot_rflct_diff (stage 2) takes N's third component from stage 3's input: stage 2 itself would be a loop. */
    if (i == 3 && in == 2 && m[2] == SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF) return SBK_NV2A_BAD_INPUT_STAGE;
    if (m[i] == SBK_NV2A_TEXTURE_DEPENDENT_AR && (p->texture_signed[in] & (SBK_NV2A_SIGNED_A | SBK_NV2A_SIGNED_R)))
      return SBK_NV2A_DEPENDENT_READ_OF_SIGNED;
    if (m[i] == SBK_NV2A_TEXTURE_DEPENDENT_GB && (p->texture_signed[in] & (SBK_NV2A_SIGNED_G | SBK_NV2A_SIGNED_B)))
      return SBK_NV2A_DEPENDENT_READ_OF_SIGNED;
  }
  if (sbk_nv2a_mode_is_dot(m[i])) {
    const uint32_t mapping = sbk_nv2a_dot_mapping(p, i);
    if (mapping == 5u || mapping == 6u || mapping > 7u) return SBK_NV2A_BAD_DOT_MAPPING;
  }
  return SBK_NV2A_OK;
}

/* Whether an input byte reads the alpha of register `reg` (in an RGB portion the alpha bit replicates alpha; in an
 * alpha portion it selects alpha over blue). */
static int sbk__nv2a_reads_alpha(uint32_t byte, uint32_t reg) { return (byte & 0xFu) == reg && ((byte >> 4) & 1u); }

/* No combiner input reads T of a stage that leaves it undefined, nor r0's alpha while it still holds the
 * undefined T0.a it starts with (stage 0 clipplane) and no stage has written it. */
static sbk_nv2a_reason sbk__nv2a_check_texture_reads(const sbk_nv2a_program* p, uint32_t stages, const char** where) {
  uint32_t undefined = 0, i, b, k;
  int r0_alpha_undefined;
  for (k = 0; k < SBK_NV2A_TEXTURE_STAGES; ++k)
    if (sbk__nv2a_t_undefined(sbk_nv2a_effective_texture_mode(p, k))) undefined |= 1u << k;
  if (undefined == 0) return SBK_NV2A_OK;
  r0_alpha_undefined = (int)(undefined & 1u);
  for (i = 0; i < stages; ++i) {
    const uint32_t words[2] = {p->rgb_inputs[i], p->alpha_inputs[i]};
    for (k = 0; k < 2; ++k)
      for (b = 0; b < 4; ++b) {
        const uint32_t byte = (words[k] >> (8 * b)) & 0xFFu;
        const uint32_t reg = byte & 0xFu;
        *where = k == 0 ? "rgb input" : "alpha input";
        if (reg >= 8u && reg <= 11u && (undefined & (1u << (reg - 8u)))) return SBK_NV2A_UNDEFINED_TEXTURE_READ;
        if (r0_alpha_undefined && sbk__nv2a_reads_alpha(byte, 12u)) return SBK_NV2A_UNDEFINED_TEXTURE_READ;
      }
    /* Writes land after the stage's reads: r0.a is defined from the next stage on. */
    {
      const uint32_t aw = p->alpha_outputs[i], rw = p->rgb_outputs[i];
      if ((aw & 0xFu) == 12u || ((aw >> 4) & 0xFu) == 12u || ((aw >> 8) & 0xFu) == 12u) r0_alpha_undefined = 0;
      if ((((rw >> 18) & 1u) && (rw & 0xFu) == 12u) || (((rw >> 19) & 1u) && ((rw >> 4) & 0xFu) == 12u))
        r0_alpha_undefined = 0;
    }
  }
  for (b = 0; b < 7; ++b) {
    const uint32_t byte = b < 4 ? (p->final_inputs[0] >> (24 - 8 * b)) & 0xFFu : (p->final_inputs[1] >> (56 - 8 * b)) & 0xFFu;
    const uint32_t reg = byte & 0xFu;
    *where = "final combiner input";
    if (reg >= 8u && reg <= 11u && (undefined & (1u << (reg - 8u)))) return SBK_NV2A_UNDEFINED_TEXTURE_READ;
    if (r0_alpha_undefined && sbk__nv2a_reads_alpha(byte, 12u)) return SBK_NV2A_UNDEFINED_TEXTURE_READ;
  }
  return SBK_NV2A_OK;
}

SBK_API sbk_nv2a_reason sbk_nv2a_check_program(const sbk_nv2a_program* program, const char** where) {
  static const char* const kStageParts[4] = {"rgb input", "rgb output", "alpha input", "alpha output"};
  static const char* const kFinalSlots[7] = {"final A", "final B", "final C", "final D", "final E", "final F", "final G"};
  const uint32_t stages = sbk_nv2a_stage_count(program);
  uint8_t modes[SBK_NV2A_TEXTURE_STAGES];
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
  *where = "texture shader words";
  if ((program->dot_rgb_mapping & ~SBK__NV2A_DOT_MAPPING_BITS) != 0u ||
      (program->other_stage_input & ~SBK__NV2A_STAGE_INPUT_BITS) != 0u ||
      (program->clip_plane_mode & ~SBK__NV2A_CLIP_PLANE_BITS) != 0u)
    return SBK_NV2A_UNDOCUMENTED_BITS;
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) modes[i] = sbk_nv2a_effective_texture_mode(program, i);
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    static const char* const kStageNames[SBK_NV2A_TEXTURE_STAGES] = {"texture stage 0", "texture stage 1",
                                                                     "texture stage 2", "texture stage 3"};
    const sbk_nv2a_reason r = sbk__nv2a_check_texture_stage(program, modes, i);
    *where = kStageNames[i];
    if (r != SBK_NV2A_OK) return r;
  }
  {
    const sbk_nv2a_reason r = sbk__nv2a_check_texture_reads(program, stages, where);
    if (r != SBK_NV2A_OK) return r;
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
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    uint32_t k;
    for (k = 0; k < 4; ++k) sbk__put_f32(out + 320 + 16 * i + 4 * k, dynamic->bump_env_matrix[i][k]);
    sbk__put_f32(out + 384 + 4 * i, dynamic->bump_env_scale[i]);
    sbk__put_f32(out + 400 + 4 * i, dynamic->bump_env_offset[i]);
    out[416 + 4 * i] = (uint8_t)dynamic->color_keys[i];
    out[417 + 4 * i] = (uint8_t)(dynamic->color_keys[i] >> 8);
    out[418 + 4 * i] = (uint8_t)(dynamic->color_keys[i] >> 16);
    out[419 + 4 * i] = (uint8_t)(dynamic->color_keys[i] >> 24);
  }
  for (i = 0; i < 3; ++i) sbk__put_f32(out + 432 + 4 * i, dynamic->eye_vector[i]);
}


SBK_API sbk_nv2a_reason sbk_nv2a_admit(const sbk_nv2a_program* program, const char** where) {
  SBK_ASSERT(program != NULL);
  /* The ubershader implements every program the model defines: the reasons are validity's. */
  return sbk_nv2a_check_program(program, where);
}

SBK_API sbk_nv2a_reason sbk_nv2a_admit_attachment(const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE], uint32_t depth_format) {
  enum { sbk__vk_format_d16_unorm = 124, sbk__vk_format_d16_unorm_s8_uint = 128 }; /* VkFormat values */
  SBK_ASSERT(family_key != NULL);
  if (family_key[8] != 0u && depth_format != sbk__vk_format_d16_unorm && depth_format != sbk__vk_format_d16_unorm_s8_uint)
    return SBK_NV2A_DOT_ZW_DEPTH_FORMAT;
  return SBK_NV2A_OK;
}

SBK_API sbk_nv2a_reason sbk_nv2a_admit_draw(const sbk_nv2a_program* program, const sbk_host_state* host,
                                            const char** where) {
  uint8_t family[SBK_NV2A_FAMILY_KEY_SIZE];
  sbk_nv2a_reason r;
  SBK_ASSERT(program != NULL && host != NULL);
  r = sbk_nv2a_admit(program, where);
  if (r != SBK_NV2A_OK) return r;
  sbk_nv2a_encode_family_key(program, family);
  r = sbk_nv2a_admit_attachment(family, host->depth_format);
  if (r != SBK_NV2A_OK && where != NULL) *where = "depth attachment";
  return r;
}

SBK_API void sbk_nv2a_encode_packet(const sbk_nv2a_program* program, uint8_t out[SBK_NV2A_PACKET_SIZE]) {
  sbk__writer w;
  SBK_ASSERT(program != NULL && out != NULL);
  w = sbk__writer_to(out, SBK_NV2A_PACKET_SIZE);
  sbk__put_live_stage_words(&w, program);
  sbk__put_u32(&w, program->combiner_control);
  sbk__put_u32(&w, program->final_inputs[0]);
  sbk__put_u32(&w, program->final_inputs[1]);
  sbk__put_u32(&w, program->alpha_test_enabled ? (program->alpha_test_func & 7u) : (uint32_t)SBK_COMPARE_ALWAYS);
  {
    uint32_t i;
    for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
      const sbk__nv2a_stage_fields f = sbk__nv2a_stage_fields_of(program, i);
      sbk__put_u32(&w, (uint32_t)f.mode | ((uint32_t)f.dot_mapping << 5) | ((uint32_t)f.input_stage << 9) |
                           ((uint32_t)f.clip << 13) | ((uint32_t)f.texel_flags << 17));
    }
  }
  SBK_ASSERT(w.size == SBK_NV2A_PACKET_SIZE);
}

SBK_API sbk_result sbk_nv2a_decode_packet(const uint8_t packet[SBK_NV2A_PACKET_SIZE],
                                          const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE], sbk_nv2a_program* out) {
  uint32_t i, writes_depth = 0;
  SBK_ASSERT(packet != NULL && family_key != NULL && out != NULL);
  if (family_key[0] != SBK_GUEST_NV2A || family_key[1] != SBK_KEY_KIND_FAMILY ||
      (family_key[2] | ((uint32_t)family_key[3] << 8)) != SBK_NV2A_KEY_SCHEMA_VERSION)
    return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i)
    if (family_key[4 + i] > SBK_SAMPLER_CUBE) return SBK_ERROR_INVALID_STATE;
  if (family_key[8] > 1u) return SBK_ERROR_INVALID_STATE;
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
    const uint32_t word = sbk__get_u32(packet + 144 + 4 * i);
    sbk__nv2a_stage_fields f;
    f.mode = (uint8_t)(word & 0x1Fu);
    f.dot_mapping = (uint8_t)((word >> 5) & 0xFu);
    f.input_stage = (uint8_t)((word >> 9) & 0xFu);
    f.clip = (uint8_t)((word >> 13) & 0xFu);
    f.texel_flags = (uint8_t)((word >> 17) & 0xFFu);
    sbk__nv2a_set_stage_fields(out, i, &f);
    /* The family is the samplers the modes bind: a packet of another family does not decode. */
    if ((word >> 25) != 0u || sbk_nv2a_sampler_dim(f.mode) != family_key[4 + i]) return SBK_ERROR_INVALID_STATE;
    if (f.mode == SBK_NV2A_TEXTURE_DOT_ZW) writes_depth = 1;
  }
  if (writes_depth != family_key[8]) return SBK_ERROR_INVALID_STATE;
  return SBK_OK;
}


SBK_API sbk_result sbk_nv2a_check_bundle(const sbk_bundle* bundle) {
  sbk_header_info info;
  SBK_ASSERT(bundle != NULL);
  sbk_bundle_info(bundle, &info);
  if (info.guest != SBK_GUEST_NV2A || info.key_schema != SBK_NV2A_KEY_SCHEMA_VERSION) return SBK_ERROR_VERSION;
  return SBK_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION */
