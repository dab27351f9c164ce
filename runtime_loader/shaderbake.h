/* SPDX-License-Identifier: MIT */
/*
 * shaderbake.h — the guest-independent runtime side of shaderbake, as one C99 header: result codes, the key
 * hash, the identities every canonical key starts with, the host state (Vulkan terms) and the pipeline key
 * (encoders and decoders), and the loader of bundle format 4 with its router data. The shaderbake tool
 * compiles this same code, so writer and reader cannot drift.
 *
 * Who includes what (each header includes the ones it needs):
 *   shaderbake.h          every client of a bundle: the renderer, the tool, the router
 *   shaderbake_GUEST.h    one per guest model (SBK_GUEST_*): that guest's keys, admission, fallback packet,
 *                         layout contract, and the check a renderer of that guest calls right after open (this
 *                         loader checks the format only, never a bundle's guest model or key schema)
 *   shaderbake_spirv.h    the packed-SPIR-V coder of bundle modules: a bundle writer's (the loader uses it
 *                         inside sbk_bundle_read_module; a renderer never calls it)
 *   shaderbake_vulkan.h   create-info structures filled from a bundle's recipes (needs the Vulkan headers)
 *   shaderbake_router.h   the runtime router (Vulkan and threads)
 *
 * Use: include the headers anywhere; in exactly one C or C++ translation unit define SHADERBAKE_IMPLEMENTATION
 * before including them: that one macro compiles the implementation of every shaderbake header included
 * there (each once, in any include order; this header's implementation brings shaderbake_spirv.h's, which the
 * loader calls). Needs libc, libzstd and xxhash.h (the key hash is XXH3-128, inlined unless
 * SHADERBAKE_XXHASH_LINKED is defined, then link libxxhash); no Vulkan.
 *
 * Contracts that hold for every function here:
 *  - no global state (constant tables only) and no hidden I/O: files are read by sbk_bundle_open_file only;
 *  - no allocation on lookup: key encoders, probes (sbk_bundle_find, sbk_bundle_entry_at) and accessors
 *    allocate nothing. What allocates says so: sbk_bundle_open_file (a heap copy where there is no mmap),
 *    sbk_bundle_prepare_dictionary, and decompression (sbk_bundle_read_module without a caller's ZSTD_DCtx or
 *    for a module with a parent, sbk_module_reader_init and a reader's read that grows its block,
 *    sbk_bundle_module_read_order, sbk_bundle_read_report);
 *  - thread-safe and re-entrant: an open bundle is immutable (once sbk_bundle_prepare_dictionary, if called,
 *    has returned), and every function taking a const sbk_bundle* may run on any number of threads at once,
 *    each call with its own outputs (and ZSTD_DCtx or module reader, if it uses one);
 *  - caller mistakes (NULL where a pointer is required) are checked with SBK_ASSERT, which you may
 *    define before the implementation to your own assert;
 *  - bad *data* (a state with out-of-range enums or counts, a damaged bundle) is never asserted on: it gets
 *    an error code.
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
  SBK_ERROR_BUFFER_TOO_SMALL = -2, /* the caller's output buffer cannot hold the result */
  SBK_ERROR_NOT_A_BUNDLE = -3,     /* the bytes do not start with the bundle magic */
  SBK_ERROR_VERSION = -4,          /* a bundle format major this loader, or a guest model or key schema the
                                     guest's header (its bundle check), does not speak */
  SBK_ERROR_CORRUPT = -5,          /* a size, offset, checksum or record of the bundle is wrong (or truncated) */
  SBK_ERROR_IO = -6,               /* the file cannot be opened, sized or mapped */
  SBK_ERROR_OUT_OF_MEMORY = -7,    /* memory (host, or a decompression context) could not be allocated */
  SBK_ERROR_DEVICE = -8            /* a Vulkan call failed (shaderbake_router.h: the VkResult is reported beside it) */
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
enum { SBK_GUEST_NONE = 0, SBK_GUEST_NV2A = 1, SBK_GUEST_SPECCONST = 2 };

/* Second byte of every canonical key: which of the three identities it is. */
enum {
  SBK_KEY_KIND_EXACT = 1,           /* exact specialization key: every static field the exact emitter reads */
  SBK_KEY_KIND_FAMILY = 2,          /* fallback family key: static fields the ubershader cannot take at run time */
  SBK_KEY_KIND_PIPELINE = 3,        /* graphics pipeline: fragment identity + host fixed-function state */
  SBK_KEY_KIND_COMPUTE_PIPELINE = 4 /* compute pipeline: the compute shader's identity */
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
  uint32_t location; /* the vertex shader input it feeds: 0 .. SBK_VERTEX_LOCATIONS - 1, each at most once */
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
 * attributes by location, so the caller's order never matters; fields of disabled features (depth state
 * without a depth test or without a depth attachment, stencil state without a stencil test or stencil
 * aspect, blend factors of a disabled attachment, values declared dynamic) are written as zero.
 * Returns SBK_ERROR_INVALID_STATE for an out-of-range enum or count, a duplicate binding or location, or an
 * attribute whose binding is not declared. */
SBK_API sbk_result sbk_encode_host_state(const sbk_host_state* state, uint8_t* out, size_t capacity,
                                         size_t* size_out);

/* Decodes a canonical host-state encoding (as written by sbk_encode_host_state) at the start of `bytes`.
 * *consumed gets its length. SBK_ERROR_INVALID_STATE unless the bytes are exactly what the encoder writes
 * for the decoded state (so a damaged encoding is refused rather than half-read). */
SBK_API sbk_result sbk_decode_host_state(const uint8_t* bytes, size_t size, sbk_host_state* out, size_t* consumed);

/* Largest pipeline key for a fragment key of `fragment_key_size` bytes. */
#define SBK_PIPELINE_KEY_MAX_SIZE(fragment_key_size) (4 + 2 + (fragment_key_size) + SBK_HOST_STATE_MAX_SIZE)

/* Exact pipeline key: route + the fragment identity (an exact key or a family key, full bytes) + the
 * canonical host state. The vertex interface is the vertex attribute list inside the host state. */
SBK_API sbk_result sbk_encode_pipeline_key(uint8_t route, const uint8_t* fragment_key, size_t fragment_key_size,
                                           const sbk_host_state* host, uint8_t* out, size_t capacity,
                                           size_t* size_out);

/* Size of the compute pipeline key of a shader key of `shader_key_size` bytes. */
#define SBK_COMPUTE_PIPELINE_KEY_SIZE(shader_key_size) (4 + 2 + (shader_key_size))

/* Compute pipeline key: route + the compute shader's identity (an exact key or a family key, full bytes). A
 * compute pipeline has no fixed-function state. */
SBK_API sbk_result sbk_encode_compute_pipeline_key(uint8_t route, const uint8_t* shader_key, size_t shader_key_size,
                                                   uint8_t* out, size_t capacity, size_t* size_out);

/* Splits a pipeline key into its route, fragment key (pointing into `key`) and decoded host state. */
SBK_API sbk_result sbk_decode_pipeline_key(const uint8_t* key, size_t key_size, uint8_t* route,
                                           const uint8_t** fragment_key, size_t* fragment_key_size,
                                           sbk_host_state* host);

/* ---- bundle loader (format 4; schemas/bundle.md is the normative byte layout) -----------------------
 * A bundle holds, for the keys a build met: specializations (exact key -> exact fragment module, or why
 * there is none, and the admission result), fallback families (family key -> ubershader module) and
 * pipelines (pipeline key -> complete recipe: vertex + fragment module, layout contract, host state).
 * Shader keys and host states are stored once and referenced from the pipelines' rows; modules are zstd
 * frames, stored once by content.
 *
 * Opening validates the header and the section table only: O(1) in the bundle's size. Every other offset
 * and size is checked when it is used, so a truncated or corrupt bundle gives SBK_ERROR_CORRUPT (or, for
 * damage inside the hash index or the stored key bytes, a miss), never an out-of-bounds read. A hit is
 * always confirmed by comparing the full key bytes, and every row it reads by the row's 32-bit check (seeded
 * with its index position and hash tag). sbk_bundle_check_sections verifies every section checksum (O(size))
 * for callers that want corruption found up front.
 *
 * Thread-safety: an open bundle is immutable (once sbk_bundle_prepare_dictionary, if called, has returned);
 * every function taking a const sbk_bundle* may run on any number of threads at once. Probes allocate nothing
 * and change nothing. */

#define SBK_BUNDLE_FORMAT_MAJOR 4
#define SBK_BUNDLE_FORMAT_MINOR 0
#define SBK_BUNDLE_HEADER_SIZE 64
#define SBK_BUNDLE_SECTION_ENTRY_SIZE 32
#define SBK_BUNDLE_MAX_SECTIONS 64
#define SBK_BUNDLE_RECORD_SIZE 20       /* RECORDS: one fixed row per index entry */
#define SBK_BUNDLE_MODULE_ENTRY_SIZE 32 /* MODULES: u32 count, u32 reserved, then 32-byte rows */
#define SBK_BUNDLE_MAX_MODULE_SIZE (64u << 20) /* raw SPIR-V bytes of one module, at most */
#define SBK_BUNDLE_INDEX_ENTRY_SIZE 4   /* INDEX: one 32-bit hash tag per entry */
#define SBK_BUNDLE_HOST_STATE_SIZE 16   /* HOST_STATES: u32 count, u32 reserved, then rows of 4 part items */
#define SBK_HOST_STATE_PARTS 4          /* a host state's encoding, stored as four separately shared parts */
#define SBK_BUNDLE_LAYOUT_SIZE 272
#define SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE 48 /* DRIVER_CACHE: u32 count, u32 reserved, then 48-byte entries */
#define SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE 264 /* DYNAMIC_FALLBACKS: count, location mask, 16 x 4 defaults */
#define SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE 64          /* then one recipe per (family, attachment signature) */
#define SBK_BUNDLE_PREWARM_ENTRY_SIZE 8              /* PREWARM: u32 count, u32 reserved, then 8-byte entries */
#define SBK_VERTEX_LOCATIONS 16
#define SBK_BUNDLE_MAX_DIRECTORY_BITS 24
#define SBK_MAX_LAYOUT_BINDINGS 16
#define SBK_NO_MODULE 0xFFFFFFFFu
#define SBK_NO_ENTRY 0xFFFFFFFFu

/* Section types. Types this header does not know are skipped (a later minor version may add some). */
typedef enum sbk_section_type {
  SBK_SECTION_META = 1,         /* JSON text: generator, guest, toolchain fingerprint, emitter versions */
  SBK_SECTION_INDEX = 2,        /* hash directory + sorted hash tags, searched in place */
  SBK_SECTION_RECORDS = 3,      /* one fixed-size row per entry, referring to keys, host states, modules */
  SBK_SECTION_MODULES = 4,      /* module table: where each zstd frame is, its raw size and checksum */
  SBK_SECTION_MODULE_DATA = 5,  /* the zstd frames */
  SBK_SECTION_DICTIONARY = 6,   /* zstd dictionary trained on the bundle's own modules (optional) */
  SBK_SECTION_LAYOUTS = 7,      /* pipeline layout contracts */
  SBK_SECTION_REPORT = 8,       /* build report: one zstd frame of JSON */
  SBK_SECTION_DRIVER_CACHE = 9, /* VkPipelineCache blobs per device (optional) */
  SBK_SECTION_DYNAMIC_FALLBACKS = 10, /* dynamic-state fallback pipeline recipes, vertex defaults (optional) */
  SBK_SECTION_PREWARM = 11,           /* first-use order of the exact pipelines (optional) */
  SBK_SECTION_SHADER_KEYS = 12,       /* the exact and family keys, each once */
  SBK_SECTION_HOST_STATES = 13,       /* host states, each a row of four part items */
  SBK_SECTION_HOST_STATE_PARTS = 14,  /* the parts of host-state encodings, each once */
  SBK_SECTION_SPECIALIZATION_DATA = 15, /* VkSpecializationInfo contents of pipelines (optional) */
  SBK_SECTION_TYPE_COUNT = 16
} sbk_section_type;

/* Why an entry has no module (SBK_STATUS_READY: it has one). */
enum { SBK_STATUS_READY = 0, SBK_STATUS_GENERATION_FAILED = 1, SBK_STATUS_COMPILE_FAILED = 2 };

/* An open bundle. Fields are private: read them through the functions below. It owns what open and prepare
 * acquired: move it (and zero the source), never close two copies. */
typedef struct sbk_bundle {
  const uint8_t* data;
  uint64_t size;
  void* mapping; /* non-NULL when sbk_bundle_open_file mapped the file */
  uint64_t mapping_size;
  void* zstd_ddict; /* ZSTD_DDict* of the DICTIONARY section (sbk_bundle_prepare_dictionary), or NULL */
  uint64_t section_offset[SBK_SECTION_TYPE_COUNT];
  uint64_t section_size[SBK_SECTION_TYPE_COUNT];
  uint64_t section_checksum[SBK_SECTION_TYPE_COUNT];
  uint32_t entry_count;
  uint32_t directory_bits;
  uint32_t module_count;
  uint32_t layout_count;
  uint32_t shader_key_count;
  uint32_t host_state_count;
  uint32_t host_state_part_count;
  uint32_t specialization_count;
  uint16_t format_minor;
  uint16_t key_schema;
  uint8_t guest;
  uint8_t toolchain_digest[16];
  const uint8_t* index_entries; /* the INDEX section's first entry, past its header and directory */
  /* Where the probe's tables start, set at open: RECORDS' rows, HOST_STATES' rows, and the two byte tables' end
   * arrays with their data's size in bytes (the data follows the ends). */
  const uint8_t* records;
  const uint8_t* host_state_rows;
  const uint8_t* shader_key_ends;
  const uint8_t* host_state_part_ends;
  uint64_t shader_key_data_size;
  uint64_t host_state_part_data_size;
} sbk_bundle;

/* One entry found by a probe (or enumerated). `key` points into the bundle and lives as long as it. */
typedef struct sbk_entry {
  uint32_t index;           /* position in the index, for sbk_bundle_entry_at */
  uint32_t kind;            /* SBK_KEY_KIND_EXACT (specialization), _FAMILY, _PIPELINE or _COMPUTE_PIPELINE */
  const uint8_t* key;       /* exact and family entries: the key's bytes; pipelines: NULL, as a pipeline's key is
                               stored in parts (sbk_bundle_entry_key assembles it) */
  uint32_t key_size;        /* the full canonical key's size, every kind */
  uint32_t status;          /* SBK_STATUS_*: READY when fragment_module is set (pipelines: always) */
  uint32_t fragment_module; /* module index, or SBK_NO_MODULE; a compute pipeline's: its compute module */
  uint32_t vertex_module;   /* graphics pipelines: module index; otherwise SBK_NO_MODULE */
  uint32_t layout;          /* pipelines: layout index; otherwise 0 */
  uint32_t rejection;       /* specializations: the guest's admission reason (0 = admitted to a family) */
  uint32_t route;           /* pipelines: SBK_ROUTE_*; otherwise 0 */
  uint32_t shader_entry;    /* pipelines: the index of the exact or family entry whose key is the pipeline's
                               fragment (compute: shader) identity; otherwise SBK_NO_ENTRY */
  uint32_t host_state;      /* graphics pipelines: the host state's row; otherwise SBK_NO_ENTRY */
} sbk_entry;

typedef struct sbk_module_info {
  uint32_t stage;      /* VkShaderStageFlagBits: 1 vertex, 16 fragment, 32 compute */
  uint32_t raw_size;   /* bytes of SPIR-V sbk_bundle_read_module writes */
  uint32_t compressed_size;
  uint32_t parent;     /* the module whose content the frame was compressed against, or SBK_NO_MODULE */
} sbk_module_info;

/* A pipeline layout contract: descriptor set 0 and the push-constant range. Descriptor types and stage
 * flags are Vulkan's numbers (VkDescriptorType, VkShaderStageFlags). */
typedef struct sbk_layout_binding {
  uint32_t binding, descriptor_type, descriptor_count, stage_flags;
} sbk_layout_binding;

typedef struct sbk_layout {
  uint32_t binding_count;
  uint32_t push_constant_size;
  uint32_t push_constant_stages;
  sbk_layout_binding bindings[SBK_MAX_LAYOUT_BINDINGS]; /* ascending binding numbers */
} sbk_layout;

/* Borrows `size` bytes at `data` (8-byte aligned; they must outlive the bundle). Validates the header and
 * section table. SBK_ERROR_NOT_A_BUNDLE, SBK_ERROR_VERSION (another format major) or SBK_ERROR_CORRUPT
 * otherwise; on error `bundle` is left closed. The bundle's guest model and key schema are not checked here:
 * a renderer calls its guest's check (shaderbake_GUEST.h) next, and closes the bundle when that refuses. */
SBK_API sbk_result sbk_bundle_open_memory(sbk_bundle* bundle, const void* data, size_t size);

/* Maps a file read-only (POSIX mmap; a heap copy elsewhere) and opens it as above. SBK_ERROR_IO when the
 * file cannot be opened or mapped. */
SBK_API sbk_result sbk_bundle_open_file(sbk_bundle* bundle, const char* path);

/* Digests the DICTIONARY section once (a ZSTD_DDict: a copy of the at most 64 KiB dictionary and its
 * decoding tables; sbk_bundle_close frees it) after verifying the section's checksum, so that module reads no
 * longer rebuild the tables on every call (several microseconds a read, most of a small module's cost).
 * Optional: without it every read still works. Call it after open and before the bundle is shared between
 * threads; afterwards the bundle is immutable again. SBK_OK also when the bundle has no dictionary (or is
 * already prepared); SBK_ERROR_CORRUPT when the section's checksum does not match; SBK_ERROR_OUT_OF_MEMORY
 * when zstd cannot build the tables (zstd also refuses a dictionary it cannot parse, which an intact bundle
 * never holds). On an error the bundle stays unprepared: reads go on the unprepared way, and as always give
 * an error or the module's true bytes (each read checks its output's checksum). */
SBK_API sbk_result sbk_bundle_prepare_dictionary(sbk_bundle* bundle);

/* Unmaps what sbk_bundle_open_file mapped and frees what sbk_bundle_prepare_dictionary built. Safe on a
 * closed or zeroed bundle. */
SBK_API void sbk_bundle_close(sbk_bundle* bundle);

/* Verifies the checksum of every section and that the padding between them is zero: O(bundle size).
 * SBK_ERROR_CORRUPT on the first problem. */
SBK_API sbk_result sbk_bundle_check_sections(const sbk_bundle* bundle);

SBK_API uint32_t sbk_bundle_entry_count(const sbk_bundle* bundle);
SBK_API uint32_t sbk_bundle_module_count(const sbk_bundle* bundle);
SBK_API uint32_t sbk_bundle_layout_count(const sbk_bundle* bundle);
SBK_API uint32_t sbk_bundle_format_minor(const sbk_bundle* bundle);

/* What the bundle's header says about where it comes from, as open read it. */
typedef struct sbk_header_info {
  uint32_t format_major;        /* SBK_BUNDLE_FORMAT_MAJOR: open refuses any other */
  uint32_t format_minor;        /* any: a later minor only adds what this loader may skip */
  uint32_t guest;               /* SBK_GUEST_* of the keys: checked by the guest's header */
  uint32_t key_schema;          /* that guest model's key schema version */
  uint8_t toolchain_digest[16]; /* XXH3-128 of the toolchain fingerprint text: low 64 bits, then high, LE */
} sbk_header_info;

/* Fills `out` from an open bundle's header. No check beyond open's: which guest models and key schemas a
 * renderer can use is its guest header's business (the check it calls after open). */
SBK_API void sbk_bundle_info(const sbk_bundle* bundle, sbk_header_info* out);

/* Bytes and size of a section (NULL and 0 when absent), as stored: not checked against the section's
 * checksum (sbk_bundle_check_sections does that). */
SBK_API const uint8_t* sbk_bundle_section(const sbk_bundle* bundle, sbk_section_type type, uint64_t* size_out);

/* Looks up a canonical key (any kind). SBK_OK fills `entry`; SBK_NOT_FOUND is the normal miss (also when
 * the only candidate's key bytes are damaged); SBK_ERROR_CORRUPT when a candidate's row (or, for a pipeline,
 * its shader entry's row or host state) is damaged. One XXH3-128 of the key, a 16-byte row check per row read
 * (a pipeline reads two), one compare of the full key bytes. No allocation, no side effect. */
SBK_API sbk_result sbk_bundle_find(const sbk_bundle* bundle, const uint8_t* key, size_t key_size, sbk_entry* entry);

/* The index-th entry, in index order (for listing and verification). SBK_ERROR_CORRUPT also when the key the
 * row assembles to does not hash to the entry's tag. */
SBK_API sbk_result sbk_bundle_entry_at(const sbk_bundle* bundle, uint32_t index, sbk_entry* entry);

/* Writes the full canonical key of entry `index` (a pipeline's assembled from its route, its shader entry's key
 * and its host state's parts) into `out`. *size_out gets the key's size, also on SBK_ERROR_BUFFER_TOO_SMALL.
 * Errors as sbk_bundle_entry_at. No allocation. */
SBK_API sbk_result sbk_bundle_entry_key(const sbk_bundle* bundle, uint32_t index, uint8_t* out, size_t capacity,
                                        size_t* size_out);

/* Decodes the host state of graphics pipeline entry `index`. SBK_ERROR_INVALID_STATE for an entry of another
 * kind; SBK_ERROR_CORRUPT as sbk_bundle_entry_at, or when the stored encoding does not decode. No allocation. */
SBK_API sbk_result sbk_bundle_entry_host_state(const sbk_bundle* bundle, uint32_t index, sbk_host_state* out);

/* The specialization constants of one pipeline stage (VkSpecializationInfo's contents): map_count entries of
 * 12 bytes at `map` (u32 constant id, u32 offset, u32 size, little-endian) and data_size bytes at `data`, both
 * inside the bundle. */
typedef struct sbk_specialization_block {
  uint32_t map_count;
  const uint8_t* map;
  uint32_t data_size;
  const uint8_t* data;
} sbk_specialization_block;

typedef struct sbk_specialization {
  sbk_specialization_block vertex; /* graphics pipelines: the vertex stage's; empty for compute */
  sbk_specialization_block shader; /* the fragment (compute) stage's */
} sbk_specialization;

/* The specialization data of pipeline entry `index`. SBK_NOT_FOUND when the pipeline has none (the bundle has no
 * SPECIALIZATION_DATA section, or no item for this entry): its modules are used as they are. SBK_ERROR_CORRUPT
 * when the section's checksum (verified on each call) or a rule of schemas/bundle.md fails. On any result but
 * SBK_OK, *out is zeroed. Meant for pipeline creation, not per draw. */
SBK_API sbk_result sbk_bundle_specialization(const sbk_bundle* bundle, uint32_t index, sbk_specialization* out);

/* Stage, sizes and parent of module `module`. SBK_ERROR_CORRUPT when the row's 32-bit check fails, its frame
 * does not lie inside MODULE_DATA, the stage is not vertex, fragment or compute, the raw size is not a non-zero multiple
 * of 4 or exceeds SBK_BUNDLE_MAX_MODULE_SIZE, the parent is out of range or the module itself, the flags have
 * unknown bits or the reserved field is not zero, or the frame's own header disagrees with the sizes (only the
 * frame's headers are read; nothing is decoded). The row check catches all but ~1 in 4 billion damaged rows;
 * sbk_bundle_check_sections the rest. */
SBK_API sbk_result sbk_bundle_module_info(const sbk_bundle* bundle, uint32_t module, sbk_module_info* info);

/* Decompresses module `module` into `out` (`capacity` bytes; the size it needs is info.raw_size) and checks
 * its checksum. `zstd_dctx` is an optional ZSTD_DCtx* of the caller's (reused across calls, one per
 * thread); with NULL the call allocates one for itself. A renderer that reads modules during play passes a
 * dctx and calls sbk_bundle_prepare_dictionary once after open: then reading a module without a parent costs
 * the decoding alone. A module with a parent (info.parent) is decoded against a raw prefix of the dictionary's
 * bytes and the parent's content: the call decodes the parent first (with the prepared dictionary, if any) into
 * a heap block of the dictionary's size plus the parent's, freed before it returns; a raw prefix needs no
 * tables built, so such a read costs about two parentless reads (bench/README.md, the loader). Code that
 * reads many modules uses a module reader (below) instead, which keeps that block from one read to the next.
 * *size_out gets the raw size (also on SBK_ERROR_BUFFER_TOO_SMALL). */
SBK_API sbk_result sbk_bundle_read_module(const sbk_bundle* bundle, uint32_t module, void* out, size_t capacity,
                                          size_t* size_out, void* zstd_dctx);

/* A module reader: reads modules of one bundle keeping what one read can hand the next, for code that reads
 * many (a renderer warming up, the tool). It owns a block holding the DICTIONARY section's bytes, copied once,
 * followed by the content of the last parent it decoded: a module with a parent then costs no allocation and
 * no dictionary copy, and modules that share a parent (sbk_bundle_module_read_order puts them together) decode
 * it once; a module that is some module's parent, read itself, is decoded into the block and copied out, so its
 * children that follow need no second decode. It also owns two ZSTD_DCtx, one for frames against the dictionary
 * and one for children's frames against the block: zstd decodes a frame against a dictionary other than its
 * context's last one with a slower, prefetching decoder. Output and checks as sbk_bundle_read_module's; on a
 * prepared bundle (sbk_bundle_prepare_dictionary) parentless modules decode with the digested dictionary. One
 * thread at a time per reader; any number of readers per bundle, which must outlive them. The fields are
 * private. */
typedef struct sbk_module_reader {
  const sbk_bundle* bundle;
  void* zstd_dctx;        /* ZSTD_DCtx*, owned: frames without a parent */
  void* zstd_child_dctx;  /* ZSTD_DCtx*, owned: children's frames against the block */
  uint8_t* prefix;        /* dictionary_size bytes of the dictionary, then parent prefix_parent's content */
  size_t prefix_capacity;
  size_t dictionary_size;
  size_t prefix_parent_payload; /* bytes of prefix_parent's content in the block */
  uint32_t prefix_parent; /* SBK_NO_MODULE while the block holds no parent */
  uint8_t* is_parent;     /* a bit per module: some row names it as parent (a hint only: NULL when unallocated) */
} sbk_module_reader;

/* SBK_ERROR_OUT_OF_MEMORY when the context or the block cannot be allocated (the reader is then freed).
 * O(modules): it notes which modules are parents (a bit each). */
SBK_API sbk_result sbk_module_reader_init(sbk_module_reader* reader, const sbk_bundle* bundle);

/* Reads module `module` like sbk_bundle_read_module. Allocates only to grow its block for a larger parent. */
SBK_API sbk_result sbk_module_reader_read(sbk_module_reader* reader, uint32_t module, void* out, size_t capacity,
                                          size_t* size_out);

/* Frees what the reader holds. Safe on a freed or zeroed reader. */
SBK_API void sbk_module_reader_free(sbk_module_reader* reader);

/* Fills `order` (sbk_bundle_module_count entries) with every module index once, in the order that serves a
 * reader best: each module without a parent, followed by the modules that have it as parent; groups in the
 * order of their parent's index, children by index. SBK_ERROR_CORRUPT when a module's row fails
 * sbk_bundle_module_info; SBK_ERROR_OUT_OF_MEMORY when its scratch (8 bytes a module) cannot be allocated. */
SBK_API sbk_result sbk_bundle_module_read_order(const sbk_bundle* bundle, uint32_t* order);

/* Layout contract `layout`. Layouts have no checksum of their own, so each call verifies the checksum of the
 * whole LAYOUTS section (272 bytes a layout; a bundle holds few distinct layouts) before reading it:
 * SBK_ERROR_CORRUPT on a mismatch or a layout that breaks the rules of schemas/bundle.md. Meant to be called
 * once per layout, when its VkPipelineLayout is created, not per draw. */
SBK_API sbk_result sbk_bundle_layout(const sbk_bundle* bundle, uint32_t layout, sbk_layout* out);

/* Decompresses the build report (JSON text, not NUL-terminated) into `out`; sizing works like
 * sbk_bundle_read_module. The REPORT section's checksum is verified first (its zstd frame carries none):
 * SBK_ERROR_CORRUPT on a mismatch. SBK_NOT_FOUND when the bundle has no report. */
SBK_API sbk_result sbk_bundle_read_report(const sbk_bundle* bundle, char* out, size_t capacity, size_t* size_out);

/* The VkPipelineCache data `shaderbake warm` stored for one device, to pass to vkCreatePipelineCache as
 * pInitialData/initialDataSize. The device is named by the four values a driver's cache data depends on,
 * all from VkPhysicalDeviceProperties: vendorID, deviceID, driverVersion and pipelineCacheUUID. Only a blob
 * stored for exactly that device is returned; blobs of other devices or driver versions are ignored.
 *
 * SBK_OK: *data points into the bundle (it lives as long as the bundle; 8-byte aligned from a file the
 * loader mapped) and *size is its byte count. Before handing it out, the call verifies the DRIVER_CACHE
 * section's checksum (the blobs have none of their own: O(section size), ~1 ms for 10 MB), the section's
 * structure (schemas/bundle.md), and that the blob starts with a VkPipelineCacheHeaderVersionOne whose
 * vendorID, deviceID and pipelineCacheUUID are the entry's: a blob damaged or labelled for another device
 * is never given to a driver.
 * SBK_NOT_FOUND: the bundle has no DRIVER_CACHE section or no blob for exactly this device: a normal answer
 * (create an empty cache). SBK_ERROR_CORRUPT: the section or the blob breaks a rule above (an empty cache
 * is the right fallback too). On any result but SBK_OK, *data is NULL and *size is 0.
 * No allocation, no side effect: thread-safe on an open bundle. Meant to be called once per device, when its
 * VkPipelineCache is created. */
SBK_API sbk_result sbk_bundle_driver_cache(const sbk_bundle* bundle, uint32_t vendor_id, uint32_t device_id,
                                           uint32_t driver_version, const uint8_t pipeline_cache_uuid[16],
                                           const void** data, size_t* size);

/* ---- router data (schemas/bundle.md, DYNAMIC_FALLBACKS and PREWARM) -----------------------------------
 * Both sections are optional: without them a renderer serves a host state no pipeline key names with the
 * per-host-state fallback pipelines only. Open checks each section's size against its count;
 * every other rule is checked by the calls below, on use. */

/* The attachment signature of a host state: what a dynamic-state fallback pipeline cannot take at draw time. */
typedef struct sbk_attachment_signature {
  uint32_t color_count;
  uint32_t color_formats[SBK_MAX_COLOR_ATTACHMENTS]; /* 0 past color_count */
  uint32_t depth_format;                            /* 0 = none */
  uint32_t samples;
} sbk_attachment_signature;

/* Fills the signature of a host state (zeroes unused entries): comparable with memcmp. color_count is copied
 * as it is (a count above SBK_MAX_COLOR_ATTACHMENTS, an invalid state, then matches no recipe); at most
 * SBK_MAX_COLOR_ATTACHMENTS formats are read. */
SBK_API void sbk_attachment_signature_of(const sbk_host_state* host, sbk_attachment_signature* out);

/* A dynamic-state fallback pipeline: with VK_EXT_extended_dynamic_state 1/2/3 and
 * VK_EXT_vertex_input_dynamic_state, one pipeline of these modules and layout serves every host state of the
 * family whose attachment signature is `signature`; the rest of the host state is set at the draw. The vertex
 * module reads every location of the bundle's location mask; a location the host
 * state supplies no attribute for is fed its default (sbk_bundle_vertex_defaults). */
typedef struct sbk_dynamic_fallback {
  uint32_t family_entry, vertex_module, fragment_module, layout;
  sbk_attachment_signature signature;
} sbk_dynamic_fallback;

/* 0 when the bundle has no DYNAMIC_FALLBACKS section. */
SBK_API uint32_t sbk_bundle_dynamic_fallback_count(const sbk_bundle* bundle);
/* Recipe `index`; SBK_ERROR_CORRUPT when a field breaks a rule (indices out of range, family entry not a ready
   family, fragment module not the family's, vertex module not a vertex module, bad counts/samples, nonzero
   reserved or padding). SBK_NOT_FOUND for an index at or past the count. The recipes carry no check of their
   own, so each call first verifies the DYNAMIC_FALLBACKS section's checksum (64 bytes a recipe: O(section
   size), as sbk_bundle_layout does), and then reads the family entry's record and the vertex module's row:
   meant to be called when a pipeline is created, not per draw. On any result but SBK_OK, *out is zeroed. */
SBK_API sbk_result sbk_bundle_dynamic_fallback(const sbk_bundle* bundle, uint32_t index, sbk_dynamic_fallback* out);
/* Every recipe at once, in section order, into out[0 .. count) with count = sbk_bundle_dynamic_fallback_count:
   the section's checksum is verified once and each recipe checked as above (what a router does at load, instead
   of one O(section) call per recipe). SBK_OK also for a bundle without the section (nothing written);
   SBK_ERROR_BUFFER_TOO_SMALL when `capacity` is below the count; SBK_ERROR_CORRUPT at the first recipe that breaks
   a rule. */
SBK_API sbk_result sbk_bundle_read_dynamic_fallbacks(const sbk_bundle* bundle, sbk_dynamic_fallback* out,
                                                     uint32_t capacity);
/* Binary search for (family_entry, signature): SBK_OK fills *out (and *index_out if not NULL); SBK_NOT_FOUND is the
   normal miss (also with no section); SBK_ERROR_CORRUPT when a recipe met breaks a rule. No allocation. The
   section's checksum is verified first, as above. On any result but SBK_OK, *out is zeroed and *index_out (if not
   NULL) is 0xFFFFFFFF. */
SBK_API sbk_result sbk_bundle_find_dynamic_fallback(const sbk_bundle* bundle, uint32_t family_entry,
                                                    const sbk_attachment_signature* signature,
                                                    sbk_dynamic_fallback* out, uint32_t* index_out);
/* The location mask and per-location defaults; SBK_NOT_FOUND without the section; SBK_ERROR_CORRUPT when a
   default is not finite or a location outside the mask is not zero (also: the section's checksum does not match,
   or the mask has a bit at or above SBK_VERTEX_LOCATIONS). On any result but SBK_OK, both outputs are zeroed. */
SBK_API sbk_result sbk_bundle_vertex_defaults(const sbk_bundle* bundle, uint32_t* location_mask,
                                              float defaults[SBK_VERTEX_LOCATIONS][4]);
/* 0 when the bundle has no PREWARM section. */
SBK_API uint32_t sbk_bundle_prewarm_count(const sbk_bundle* bundle);
/* Position `position` of the prewarm order: SBK_ERROR_CORRUPT when the entry is out of range, not an exact pipeline
   entry, or reserved is not 0. SBK_NOT_FOUND for a position at or past the count (also with no section). The
   pipeline entry is read through sbk_bundle_entry_at (its record's check and key hash) on every call; the
   section's own checksum is not (sbk_bundle_check_sections covers it), so damage the rules let through can only
   name another exact pipeline of the bundle or another frame: what a prewarm creates is always one of its
   recipes. On any result but SBK_OK, *pipeline_entry is 0xFFFFFFFF and *first_frame 0. */
SBK_API sbk_result sbk_bundle_prewarm_at(const sbk_bundle* bundle, uint32_t position, uint32_t* pipeline_entry,
                                         uint32_t* first_frame);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_H */

/* ===================================================================================================== */
#ifdef SHADERBAKE_IMPLEMENTATION
#ifndef SHADERBAKE_IMPLEMENTATION_DONE
#define SHADERBAKE_IMPLEMENTATION_DONE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* XXH3 inlined into the probes (xxhash.h's own mode; its names are then private to this translation unit,
 * so a program that also links libxxhash sees no clash): a 270-byte key hashes ~1.5x faster than through
 * the shared library, and ~2x faster again where the compiler may use AVX2 (-mavx2, -march=x86-64-v3).
 * Define SHADERBAKE_XXHASH_LINKED to call libxxhash instead. */
#ifndef SHADERBAKE_XXHASH_LINKED
#define XXH_INLINE_ALL
#else
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t's size, for a hash state on the stack */
#endif
#include <xxhash.h>
#include <zstd.h>
/* On x86-64 the probe uses SSE2 (every x86-64 has it), and AVX2 where the compiler may: its key hash
 * (sbk__key_hash_high) keeps XXH3's accumulators in vector registers, and it compares key pieces 16 bytes at a time. */
#if defined(__x86_64__) || defined(_M_X64)
#define SBK__X86_64_SIMD 1
#if defined(__AVX2__)
#include <immintrin.h>
#else
#include <emmintrin.h>
#endif
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif
#else
#define SBK__X86_64_SIMD 0
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

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
    case SBK_ERROR_NOT_A_BUNDLE: return "not a shaderbake bundle";
    case SBK_ERROR_VERSION: return "unsupported bundle version, guest model or key schema";
    case SBK_ERROR_CORRUPT: return "corrupt or truncated bundle";
    case SBK_ERROR_IO: return "I/O error";
    case SBK_ERROR_OUT_OF_MEMORY: return "out of memory";
    case SBK_ERROR_DEVICE: return "Vulkan device error";
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

/* Private helpers shared by the implementations of the shaderbake headers (this one's, the guest headers',
 * shaderbake_spirv.h's and shaderbake_vulkan.h's), which all compile after this point. */

/* For small helpers on hot paths (the probe, the packed-SPIR-V decoder), called once per key piece or word:
 * inlined, they cost a few loads each. */
#if defined(__GNUC__) || defined(__clang__)
#define SBK__INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define SBK__INLINE __forceinline
#else
#define SBK__INLINE
#endif

/* Bounded little-endian writer. Writes past the capacity are counted but not stored, so the caller
 * learns the size it needed and reports SBK_ERROR_BUFFER_TOO_SMALL. */
typedef struct sbk__writer {
  uint8_t* out;
  size_t capacity;
  size_t size;
} sbk__writer;

/* A writer of at most `capacity` bytes at `out`, empty. */
static sbk__writer sbk__writer_to(uint8_t* out, size_t capacity) {
  sbk__writer w;
  w.out = out;
  w.capacity = capacity;
  w.size = 0;
  return w;
}

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

static uint32_t sbk__get_u32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t sbk__get_u64(const uint8_t* p) {
  return (uint64_t)sbk__get_u32(p) | ((uint64_t)sbk__get_u32(p + 4) << 32);
}

static uint32_t sbk__get_u16(const uint8_t* p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }

#ifdef __cplusplus
}
#endif

/* sbk_bundle_read_module decodes packed SPIR-V: the coder's implementation compiles here, after the private
 * helpers it shares, whichever header the translation unit included first. */
#include "shaderbake_spirv.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  uint32_t i, j, seen_locations = 0;
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
    if (a->location >= SBK_VERTEX_LOCATIONS || a->format == 0u) return SBK_ERROR_INVALID_STATE;
    if (seen_locations & (1u << a->location)) return SBK_ERROR_INVALID_STATE;
    seen_locations |= 1u << a->location;
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
  /* Attributes in location order (locations were checked to be distinct). */
  sbk__put_u8(w, s->attribute_count);
  for (n = 0; n < SBK_VERTEX_LOCATIONS; ++n) {
    for (i = 0; i < s->attribute_count; ++i) {
      const sbk_vertex_attribute* a = &s->attributes[i];
      if (a->location != n) continue;
      sbk__put_u8(w, a->location);
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
  w = sbk__writer_to(out, capacity);
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
  w = sbk__writer_to(out, capacity);
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

SBK_API sbk_result sbk_encode_compute_pipeline_key(uint8_t route, const uint8_t* shader_key, size_t shader_key_size,
                                                   uint8_t* out, size_t capacity, size_t* size_out) {
  sbk__writer w;
  SBK_ASSERT(shader_key != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if ((route != SBK_ROUTE_EXACT && route != SBK_ROUTE_FALLBACK) || shader_key_size > 0xFFFFu)
    return SBK_ERROR_INVALID_STATE;
  w = sbk__writer_to(out, capacity);
  sbk__put_u8(&w, SBK_GUEST_NONE);
  sbk__put_u8(&w, SBK_KEY_KIND_COMPUTE_PIPELINE);
  sbk__put_u8(&w, route);
  sbk__put_u8(&w, 1u); /* pipeline key schema version */
  sbk__put_u16(&w, (uint32_t)shader_key_size);
  sbk__put_bytes(&w, shader_key, shader_key_size);
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

/* Bounded little-endian reader: reads past the end set `failed` and return zero. */
typedef struct sbk__reader {
  const uint8_t* p;
  size_t size;
  size_t at;
  int failed;
} sbk__reader;

static uint32_t sbk__take_u8(sbk__reader* r) {
  if (r->at >= r->size) {
    r->failed = 1;
    return 0;
  }
  return r->p[r->at++];
}

static uint32_t sbk__take_u32(sbk__reader* r) {
  uint32_t v = sbk__take_u8(r);
  v |= sbk__take_u8(r) << 8;
  v |= sbk__take_u8(r) << 16;
  v |= sbk__take_u8(r) << 24;
  return v;
}

static void sbk__take_stencil_face(sbk__reader* r, sbk_stencil_face* f) {
  f->fail_op = (uint8_t)sbk__take_u8(r);
  f->pass_op = (uint8_t)sbk__take_u8(r);
  f->depth_fail_op = (uint8_t)sbk__take_u8(r);
  f->compare_op = (uint8_t)sbk__take_u8(r);
  f->compare_mask = sbk__take_u32(r);
  f->write_mask = sbk__take_u32(r);
  f->reference = sbk__take_u32(r);
}

SBK_API sbk_result sbk_decode_host_state(const uint8_t* bytes, size_t size, sbk_host_state* out, size_t* consumed) {
  sbk__reader r;
  uint32_t i;
  uint8_t check[SBK_HOST_STATE_MAX_SIZE];
  size_t check_size = 0;
  SBK_ASSERT(bytes != NULL && out != NULL && consumed != NULL);
  *consumed = 0;
  memset(out, 0, sizeof *out);
  r.p = bytes;
  r.size = size;
  r.at = 0;
  r.failed = 0;
  out->topology = (uint8_t)sbk__take_u8(&r);
  out->polygon_mode = (uint8_t)sbk__take_u8(&r);
  out->cull_mode = (uint8_t)sbk__take_u8(&r);
  out->front_face = (uint8_t)sbk__take_u8(&r);
  out->depth_test = (uint8_t)sbk__take_u8(&r);
  out->depth_write = (uint8_t)sbk__take_u8(&r);
  out->depth_compare = (uint8_t)sbk__take_u8(&r);
  out->stencil_test = (uint8_t)sbk__take_u8(&r);
  sbk__take_stencil_face(&r, &out->stencil_front);
  sbk__take_stencil_face(&r, &out->stencil_back);
  out->color_count = sbk__take_u8(&r);
  if (out->color_count > SBK_MAX_COLOR_ATTACHMENTS) return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < out->color_count; ++i) {
    sbk_blend_attachment* b = &out->blend[i];
    out->color_formats[i] = sbk__take_u32(&r);
    b->enable = (uint8_t)sbk__take_u8(&r);
    b->src_color = (uint8_t)sbk__take_u8(&r);
    b->dst_color = (uint8_t)sbk__take_u8(&r);
    b->color_op = (uint8_t)sbk__take_u8(&r);
    b->src_alpha = (uint8_t)sbk__take_u8(&r);
    b->dst_alpha = (uint8_t)sbk__take_u8(&r);
    b->alpha_op = (uint8_t)sbk__take_u8(&r);
    b->write_mask = (uint8_t)sbk__take_u8(&r);
  }
  out->depth_format = sbk__take_u32(&r);
  out->samples = sbk__take_u8(&r);
  out->dynamic_states = sbk__take_u32(&r);
  out->binding_count = sbk__take_u8(&r);
  if (out->binding_count > SBK_MAX_VERTEX_BINDINGS) return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < out->binding_count; ++i) {
    out->bindings[i].binding = sbk__take_u32(&r);
    out->bindings[i].stride = sbk__take_u32(&r);
    out->bindings[i].input_rate = sbk__take_u8(&r);
  }
  out->attribute_count = sbk__take_u8(&r);
  if (out->attribute_count > SBK_MAX_VERTEX_ATTRIBUTES) return SBK_ERROR_INVALID_STATE;
  for (i = 0; i < out->attribute_count; ++i) {
    out->attributes[i].location = sbk__take_u8(&r);
    out->attributes[i].binding = sbk__take_u8(&r);
    out->attributes[i].format = sbk__take_u32(&r);
    out->attributes[i].offset = sbk__take_u32(&r);
  }
  if (r.failed) return SBK_ERROR_INVALID_STATE;
  /* Canonical or nothing: the encoder must give back exactly these bytes. */
  if (sbk_encode_host_state(out, check, sizeof check, &check_size) != SBK_OK || check_size != r.at ||
      memcmp(check, bytes, r.at) != 0)
    return SBK_ERROR_INVALID_STATE;
  *consumed = r.at;
  return SBK_OK;
}

SBK_API sbk_result sbk_decode_pipeline_key(const uint8_t* key, size_t key_size, uint8_t* route,
                                           const uint8_t** fragment_key, size_t* fragment_key_size,
                                           sbk_host_state* host) {
  size_t length, consumed = 0;
  SBK_ASSERT(key != NULL && route != NULL && fragment_key != NULL && fragment_key_size != NULL && host != NULL);
  if (key_size < 6 || key[0] != SBK_GUEST_NONE || key[1] != SBK_KEY_KIND_PIPELINE || key[3] != 1u ||
      (key[2] != SBK_ROUTE_EXACT && key[2] != SBK_ROUTE_FALLBACK))
    return SBK_ERROR_INVALID_STATE;
  length = sbk__get_u16(key + 4);
  if (length > key_size - 6) return SBK_ERROR_INVALID_STATE;
  if (sbk_decode_host_state(key + 6 + length, key_size - 6 - length, host, &consumed) != SBK_OK ||
      6 + length + consumed != key_size)
    return SBK_ERROR_INVALID_STATE;
  *route = key[2];
  *fragment_key = key + 6;
  *fragment_key_size = length;
  return SBK_OK;
}

/* ---- bundle loader ---- */

static const uint8_t sbk__bundle_magic[8] = {0x89, 'S', 'B', 'K', 0x0D, 0x0A, 0x1A, 0x0A};

/* Bounds test without overflow: does [offset, offset + size) lie inside [0, limit)? */
static int sbk__fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

static uint64_t sbk__align8(uint64_t v) { return (v + 7u) & ~(uint64_t)7u; }

/* Bytes of the index section before its entries: the 16-byte header and the directory. */
static uint64_t sbk__index_prefix_size(uint32_t directory_bits) {
  return 16u + sbk__align8(4u * (((uint64_t)1 << directory_bits) + 1u));
}

static const uint8_t* sbk__section_bytes(const sbk_bundle* b, uint32_t type) {
  return b->data + b->section_offset[type];
}

/* A byte table (schemas/bundle.md): u32 item count N, u32 reserved, u32 end[N], then the items' bytes, item i
 * being bytes [end[i-1], end[i]) of them (end[-1] = 0). Open checks only that the ends fit; each item's bounds
 * are checked when it is read. */
static int sbk__byte_table_count(const sbk_bundle* b, uint32_t type, uint32_t* count) {
  const uint64_t size = b->section_size[type];
  if (size < 8u) return 0;
  *count = sbk__get_u32(sbk__section_bytes(b, type));
  return size >= 8u + 4u * (uint64_t)*count;
}

/* Item `i` of a byte table whose `count` ends start at `ends`, its `data_size` bytes of data following them (as
 * open checked): 0 when `i` is out of range or the item's ends break the rules. */
static SBK__INLINE int sbk__table_item_at(const uint8_t* ends, uint32_t count, uint64_t data_size, uint32_t i,
                                          const uint8_t** bytes, uint32_t* item_size) {
  uint32_t begin, end;
  if (i >= count) return 0;
  begin = i == 0 ? 0u : sbk__get_u32(ends + 4u * (uint64_t)(i - 1u));
  end = sbk__get_u32(ends + 4u * (uint64_t)i);
  if (begin > end || end > data_size) return 0;
  *bytes = ends + 4u * (uint64_t)count + begin;
  *item_size = end - begin;
  return 1;
}

/* The same for the byte table at `table`, `size` bytes in all. */
static int sbk__table_item_in(const uint8_t* table, uint64_t size, uint32_t count, uint32_t i, const uint8_t** bytes,
                              uint32_t* item_size) {
  return sbk__table_item_at(table + 8u, count, size - (8u + 4u * (uint64_t)count), i, bytes, item_size);
}

/* The header check: XXH3-64 of the section table, seeded with XXH3-64 of the header's first 56 bytes. */
static uint64_t sbk__header_check(const uint8_t* data, uint32_t header_size, uint32_t section_count) {
  return XXH3_64bits_withSeed(data + header_size, (size_t)section_count * SBK_BUNDLE_SECTION_ENTRY_SIZE,
                              XXH3_64bits(data, 56));
}

/* Checks the parts of the header and section table open relies on. Sections a later minor version adds
 * are bounds-checked and skipped. */
static sbk_result sbk__open_checked(sbk_bundle* b, const uint8_t* data, uint64_t size) {
  uint32_t header_size, section_count, i, j;
  uint64_t table_end;
  memset(b, 0, sizeof *b);
  if (size < 8 || memcmp(data, sbk__bundle_magic, 8) != 0) return SBK_ERROR_NOT_A_BUNDLE;
  if (size < SBK_BUNDLE_HEADER_SIZE) return SBK_ERROR_CORRUPT;
  if (sbk__get_u16(data + 8) != SBK_BUNDLE_FORMAT_MAJOR) return SBK_ERROR_VERSION;
  header_size = sbk__get_u32(data + 12);
  section_count = sbk__get_u32(data + 24);
  if (header_size < SBK_BUNDLE_HEADER_SIZE || header_size % 8u != 0 || section_count > SBK_BUNDLE_MAX_SECTIONS)
    return SBK_ERROR_CORRUPT;
  if (sbk__get_u64(data + 16) != size) return SBK_ERROR_CORRUPT; /* truncated, or trailing bytes */
  table_end = (uint64_t)header_size + (uint64_t)section_count * SBK_BUNDLE_SECTION_ENTRY_SIZE;
  if (table_end > size) return SBK_ERROR_CORRUPT;
  if (sbk__header_check(data, header_size, section_count) != sbk__get_u64(data + 56)) return SBK_ERROR_CORRUPT;
  b->data = data;
  b->size = size;
  b->format_minor = (uint16_t)sbk__get_u16(data + 10);
  memcpy(b->toolchain_digest, data + 32, 16);
  b->guest = data[48];
  b->key_schema = (uint16_t)sbk__get_u16(data + 50);
  for (i = 0; i < section_count; ++i) {
    const uint8_t* e = data + header_size + (uint64_t)i * SBK_BUNDLE_SECTION_ENTRY_SIZE;
    const uint32_t type = sbk__get_u32(e);
    const uint64_t offset = sbk__get_u64(e + 8), length = sbk__get_u64(e + 16);
    if (offset < table_end || offset % 8u != 0 || !sbk__fits(offset, length, size)) return SBK_ERROR_CORRUPT;
    for (j = 0; j < i; ++j) { /* sections never overlap */
      const uint8_t* o = data + header_size + (uint64_t)j * SBK_BUNDLE_SECTION_ENTRY_SIZE;
      const uint64_t o_offset = sbk__get_u64(o + 8), o_length = sbk__get_u64(o + 16);
      if (sbk__get_u32(o) == type) return SBK_ERROR_CORRUPT; /* a type appears once */
      if (offset < o_offset + o_length && o_offset < offset + length) return SBK_ERROR_CORRUPT;
    }
    if (type == 0) return SBK_ERROR_CORRUPT;
    if (type < SBK_SECTION_TYPE_COUNT) {
      b->section_offset[type] = offset;
      b->section_size[type] = length;
      b->section_checksum[type] = sbk__get_u64(e + 24);
    }
  }
  {
    const uint32_t required[] = {SBK_SECTION_META,        SBK_SECTION_INDEX,       SBK_SECTION_RECORDS,
                                 SBK_SECTION_MODULES,     SBK_SECTION_MODULE_DATA, SBK_SECTION_LAYOUTS,
                                 SBK_SECTION_SHADER_KEYS, SBK_SECTION_HOST_STATES, SBK_SECTION_HOST_STATE_PARTS};
    for (i = 0; i < sizeof required / sizeof required[0]; ++i)
      if (b->section_offset[required[i]] == 0) return SBK_ERROR_CORRUPT;
  }
  {
    /* Fixed-size tables: their headers say how many rows, and the section is exactly that long. */
    const uint8_t* index = sbk__section_bytes(b, SBK_SECTION_INDEX);
    const uint8_t* modules = sbk__section_bytes(b, SBK_SECTION_MODULES);
    const uint8_t* layouts = sbk__section_bytes(b, SBK_SECTION_LAYOUTS);
    if (b->section_size[SBK_SECTION_INDEX] < 16 || b->section_size[SBK_SECTION_MODULES] < 8 ||
        b->section_size[SBK_SECTION_LAYOUTS] < 8)
      return SBK_ERROR_CORRUPT;
    b->entry_count = sbk__get_u32(index);
    b->directory_bits = sbk__get_u32(index + 4);
    if (b->directory_bits > SBK_BUNDLE_MAX_DIRECTORY_BITS) return SBK_ERROR_CORRUPT;
    if (b->section_size[SBK_SECTION_INDEX] !=
        sbk__index_prefix_size(b->directory_bits) + (uint64_t)b->entry_count * SBK_BUNDLE_INDEX_ENTRY_SIZE)
      return SBK_ERROR_CORRUPT;
    if (b->section_size[SBK_SECTION_RECORDS] != (uint64_t)b->entry_count * SBK_BUNDLE_RECORD_SIZE) return SBK_ERROR_CORRUPT;
    b->index_entries = index + sbk__index_prefix_size(b->directory_bits);
    if (!sbk__byte_table_count(b, SBK_SECTION_SHADER_KEYS, &b->shader_key_count) ||
        !sbk__byte_table_count(b, SBK_SECTION_HOST_STATE_PARTS, &b->host_state_part_count))
      return SBK_ERROR_CORRUPT;
    if (b->section_size[SBK_SECTION_HOST_STATES] < 8u) return SBK_ERROR_CORRUPT;
    b->host_state_count = sbk__get_u32(sbk__section_bytes(b, SBK_SECTION_HOST_STATES));
    if (b->section_size[SBK_SECTION_HOST_STATES] != 8u + (uint64_t)b->host_state_count * SBK_BUNDLE_HOST_STATE_SIZE)
      return SBK_ERROR_CORRUPT;
    b->records = sbk__section_bytes(b, SBK_SECTION_RECORDS);
    b->host_state_rows = sbk__section_bytes(b, SBK_SECTION_HOST_STATES) + 8u;
    b->shader_key_ends = sbk__section_bytes(b, SBK_SECTION_SHADER_KEYS) + 8u;
    b->shader_key_data_size = b->section_size[SBK_SECTION_SHADER_KEYS] - (8u + 4u * (uint64_t)b->shader_key_count);
    b->host_state_part_ends = sbk__section_bytes(b, SBK_SECTION_HOST_STATE_PARTS) + 8u;
    b->host_state_part_data_size =
        b->section_size[SBK_SECTION_HOST_STATE_PARTS] - (8u + 4u * (uint64_t)b->host_state_part_count);
    if (b->section_offset[SBK_SECTION_SPECIALIZATION_DATA] != 0) {
      /* u32 pair count P, u32 reserved, P pairs of 8 bytes, then a byte table of the items. */
      const uint64_t size = b->section_size[SBK_SECTION_SPECIALIZATION_DATA];
      if (size < 8u) return SBK_ERROR_CORRUPT;
      b->specialization_count = sbk__get_u32(sbk__section_bytes(b, SBK_SECTION_SPECIALIZATION_DATA));
      if (size < 8u + 8u * (uint64_t)b->specialization_count + 8u) return SBK_ERROR_CORRUPT;
    }
    b->module_count = sbk__get_u32(modules);
    if (b->section_size[SBK_SECTION_MODULES] != 8u + (uint64_t)b->module_count * SBK_BUNDLE_MODULE_ENTRY_SIZE)
      return SBK_ERROR_CORRUPT;
    b->layout_count = sbk__get_u32(layouts);
    if (b->section_size[SBK_SECTION_LAYOUTS] != 8u + (uint64_t)b->layout_count * SBK_BUNDLE_LAYOUT_SIZE)
      return SBK_ERROR_CORRUPT;
    /* The optional fixed-size tables, when present. */
    if (b->section_offset[SBK_SECTION_DYNAMIC_FALLBACKS] != 0) {
      const uint64_t size = b->section_size[SBK_SECTION_DYNAMIC_FALLBACKS];
      if (size < SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE ||
          size != SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE +
                      (uint64_t)sbk__get_u32(sbk__section_bytes(b, SBK_SECTION_DYNAMIC_FALLBACKS)) *
                          SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE)
        return SBK_ERROR_CORRUPT;
    }
    if (b->section_offset[SBK_SECTION_PREWARM] != 0) {
      const uint64_t size = b->section_size[SBK_SECTION_PREWARM];
      if (size < 8u ||
          size != 8u + (uint64_t)sbk__get_u32(sbk__section_bytes(b, SBK_SECTION_PREWARM)) * SBK_BUNDLE_PREWARM_ENTRY_SIZE)
        return SBK_ERROR_CORRUPT;
    }
  }
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_open_memory(sbk_bundle* bundle, const void* data, size_t size) {
  sbk_result r;
  SBK_ASSERT(bundle != NULL && (data != NULL || size == 0));
  if (data == NULL) {
    memset(bundle, 0, sizeof *bundle);
    return SBK_ERROR_NOT_A_BUNDLE;
  }
  r = sbk__open_checked(bundle, (const uint8_t*)data, (uint64_t)size);
  if (r != SBK_OK) memset(bundle, 0, sizeof *bundle);
  return r;
}

SBK_API void sbk_bundle_close(sbk_bundle* bundle) {
  SBK_ASSERT(bundle != NULL);
#if defined(__unix__) || defined(__APPLE__)
  if (bundle->mapping != NULL) munmap(bundle->mapping, (size_t)bundle->mapping_size);
#else
  free(bundle->mapping);
#endif
  ZSTD_freeDDict((ZSTD_DDict*)bundle->zstd_ddict);
  memset(bundle, 0, sizeof *bundle);
}

SBK_API sbk_result sbk_bundle_prepare_dictionary(sbk_bundle* bundle) {
  const uint8_t* dict;
  size_t dict_size;
  SBK_ASSERT(bundle != NULL && bundle->data != NULL);
  if (bundle->zstd_ddict != NULL || bundle->section_offset[SBK_SECTION_DICTIONARY] == 0) return SBK_OK;
  dict = sbk__section_bytes(bundle, SBK_SECTION_DICTIONARY);
  dict_size = (size_t)bundle->section_size[SBK_SECTION_DICTIONARY];
  /* Checked once here, where the whole section is read anyway; every module read still checks its output. */
  if (XXH3_64bits(dict, dict_size) != bundle->section_checksum[SBK_SECTION_DICTIONARY]) return SBK_ERROR_CORRUPT;
  /* ZSTD_createDDict copies the bytes (by reference is zstd's experimental API). A ZSTD_DDict is read-only
   * once built: every thread's ZSTD_DCtx may use it at once. */
  bundle->zstd_ddict = ZSTD_createDDict(dict, dict_size);
  return bundle->zstd_ddict != NULL ? SBK_OK : SBK_ERROR_OUT_OF_MEMORY;
}

SBK_API sbk_result sbk_bundle_open_file(sbk_bundle* bundle, const char* path) {
  sbk_result r;
  void* mapping = NULL;
  uint64_t size = 0;
  SBK_ASSERT(bundle != NULL && path != NULL);
  memset(bundle, 0, sizeof *bundle);
#if defined(__unix__) || defined(__APPLE__)
  {
    struct stat st;
    const int fd = open(path, O_RDONLY);
    if (fd < 0) return SBK_ERROR_IO;
    if (fstat(fd, &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
      close(fd);
      return SBK_ERROR_IO;
    }
    if (st.st_size == 0) { /* mmap refuses empty files; an empty file is simply not a bundle */
      close(fd);
      return SBK_ERROR_NOT_A_BUNDLE;
    }
    size = (uint64_t)st.st_size;
    mapping = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (mapping == MAP_FAILED) return SBK_ERROR_IO;
  }
#else
  {
    FILE* f = fopen(path, "rb");
    long end = -1;
    if (f == NULL) return SBK_ERROR_IO;
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
      fclose(f);
      return end == 0 ? SBK_ERROR_NOT_A_BUNDLE : SBK_ERROR_IO;
    }
    size = (uint64_t)end;
    mapping = malloc((size_t)size);
    if (mapping == NULL || fread(mapping, 1, (size_t)size, f) != (size_t)size) {
      free(mapping);
      fclose(f);
      return SBK_ERROR_IO;
    }
    fclose(f);
  }
#endif
  r = sbk__open_checked(bundle, (const uint8_t*)mapping, size);
  if (r != SBK_OK) {
    bundle->mapping = mapping;
    bundle->mapping_size = size;
    sbk_bundle_close(bundle);
    return r;
  }
  bundle->mapping = mapping;
  bundle->mapping_size = size;
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_check_sections(const sbk_bundle* bundle) {
  uint32_t header_size, count, i;
  uint64_t at;
  SBK_ASSERT(bundle != NULL && bundle->data != NULL);
  header_size = sbk__get_u32(bundle->data + 12);
  count = sbk__get_u32(bundle->data + 24);
  for (i = 0; i < count; ++i) {
    const uint8_t* e = bundle->data + header_size + (uint64_t)i * SBK_BUNDLE_SECTION_ENTRY_SIZE;
    const uint64_t offset = sbk__get_u64(e + 8), length = sbk__get_u64(e + 16);
    if (XXH3_64bits(bundle->data + offset, (size_t)length) != sbk__get_u64(e + 24)) return SBK_ERROR_CORRUPT;
  }
  /* Every byte no section covers (the padding after the section table and between sections) must be zero,
   * so that no byte of the file escapes this check. Walk the gaps in file order: every section starts after
   * the table and none overlaps another (checked at open), so from the end of the table or of a section, the
   * bytes up to the nearest section start are padding, and that section's end is the next place to look. */
  at = (uint64_t)header_size + (uint64_t)count * SBK_BUNDLE_SECTION_ENTRY_SIZE;
  while (at < bundle->size) {
    uint64_t next = bundle->size, next_end = bundle->size;
    for (i = 0; i < count; ++i) {
      const uint8_t* e = bundle->data + header_size + (uint64_t)i * SBK_BUNDLE_SECTION_ENTRY_SIZE;
      const uint64_t offset = sbk__get_u64(e + 8), length = sbk__get_u64(e + 16);
      if (length != 0 && offset >= at && offset < next) { /* an empty section covers nothing */
        next = offset;
        next_end = offset + length;
      }
    }
    for (; at < next; ++at)
      if (bundle->data[at] != 0) return SBK_ERROR_CORRUPT;
    at = next_end;
  }
  return SBK_OK;
}

SBK_API uint32_t sbk_bundle_entry_count(const sbk_bundle* bundle) { return bundle->entry_count; }
SBK_API uint32_t sbk_bundle_module_count(const sbk_bundle* bundle) { return bundle->module_count; }
SBK_API uint32_t sbk_bundle_layout_count(const sbk_bundle* bundle) { return bundle->layout_count; }
SBK_API uint32_t sbk_bundle_format_minor(const sbk_bundle* bundle) { return bundle->format_minor; }

SBK_API void sbk_bundle_info(const sbk_bundle* bundle, sbk_header_info* out) {
  SBK_ASSERT(bundle != NULL && bundle->data != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  out->format_major = SBK_BUNDLE_FORMAT_MAJOR; /* open accepted no other */
  out->format_minor = bundle->format_minor;
  out->guest = bundle->guest;
  out->key_schema = bundle->key_schema;
  memcpy(out->toolchain_digest, bundle->toolchain_digest, sizeof out->toolchain_digest);
}

SBK_API const uint8_t* sbk_bundle_section(const sbk_bundle* bundle, sbk_section_type type, uint64_t* size_out) {
  SBK_ASSERT(bundle != NULL && size_out != NULL);
  *size_out = 0;
  if ((uint32_t)type >= SBK_SECTION_TYPE_COUNT || bundle->section_offset[type] == 0) return NULL;
  *size_out = bundle->section_size[type];
  return sbk__section_bytes(bundle, type);
}

/* ---- The probe's key hash ----
 * A probe needs only the high half of its key's XXH3-128: the index's bucket and tag come from it. For keys of
 * over 240 bytes (XXH3's long path, where pipeline keys of a few hundred bytes fall) sbk__key_hash_high computes
 * that half alone, with the accumulators held in vector registers and one final merge where XXH3_128bits does
 * two: 0.52x its time on a 286-byte key with AVX2, 0.82x with SSE2 alone (bench/README.md). Shorter keys, and
 * targets other than x86-64, call XXH3_128bits. For every key the result is XXH3_128bits(key, size).high64,
 * which tests/loader/key_hash.c checks against libxxhash. The steps are those of XXH3's specification for a
 * long input with the default secret and seed 0: 64-byte stripes accumulated into eight 64-bit lanes, the
 * lanes scrambled after every 1,024-byte block, a last stripe at the input's end, then one merge. */
#if SBK__X86_64_SIMD
/* XXH3's default secret: a constant of the hash's definition, which every stored tag depends on. */
static const uint8_t sbk__xxh3_secret[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

/* The low 64 bits of a 64x64-bit product xor its high 64 bits. */
#if defined(_MSC_VER) && !defined(__clang__)
static SBK__INLINE uint64_t sbk__mul_fold64(uint64_t a, uint64_t b) {
  uint64_t high;
  const uint64_t low = _umul128(a, b, &high);
  return low ^ high;
}
#else
__extension__ typedef unsigned __int128 sbk__u128;
static SBK__INLINE uint64_t sbk__mul_fold64(uint64_t a, uint64_t b) {
  const sbk__u128 product = (sbk__u128)a * b;
  return (uint64_t)product ^ (uint64_t)(product >> 64);
}
#endif

#if defined(__AVX2__)
typedef __m256i sbk__xxh3_vector;
#define SBK__XXH3_REGISTERS 2
#define SBK__XXH3_LOAD(p) _mm256_loadu_si256((const __m256i*)(const void*)(p))
#define SBK__XXH3_XOR _mm256_xor_si256
#define SBK__XXH3_ADD64 _mm256_add_epi64
#define SBK__XXH3_MUL32 _mm256_mul_epu32
#define SBK__XXH3_SHR64 _mm256_srli_epi64
#define SBK__XXH3_SHL64 _mm256_slli_epi64
#define SBK__XXH3_SWAP64(v) _mm256_shuffle_epi32((v), 0x4E)
#define SBK__XXH3_SET32 _mm256_set1_epi32
#else
typedef __m128i sbk__xxh3_vector;
#define SBK__XXH3_REGISTERS 4
#define SBK__XXH3_LOAD(p) _mm_loadu_si128((const __m128i*)(const void*)(p))
#define SBK__XXH3_XOR _mm_xor_si128
#define SBK__XXH3_ADD64 _mm_add_epi64
#define SBK__XXH3_MUL32 _mm_mul_epu32
#define SBK__XXH3_SHR64 _mm_srli_epi64
#define SBK__XXH3_SHL64 _mm_slli_epi64
#define SBK__XXH3_SWAP64(v) _mm_shuffle_epi32((v), 0x4E)
#define SBK__XXH3_SET32 _mm_set1_epi32
#endif
/* The bytes of input (and of secret) one register covers. */
#define SBK__XXH3_REGISTER_BYTES (64 / SBK__XXH3_REGISTERS)

/* XXH3's eight 64-bit accumulator lanes, in order. */
typedef struct sbk__xxh3_lanes {
  sbk__xxh3_vector v[SBK__XXH3_REGISTERS];
} sbk__xxh3_lanes;

static SBK__INLINE void sbk__xxh3_start(sbk__xxh3_lanes* lanes) {
  static const uint64_t initial[8] = {0xC2B2AE3Du,           0x9E3779B185EBCA87u, 0xC2B2AE3D27D4EB4Fu,
                                      0x165667B19E3779F9u,   0x85EBCA77C2B2AE63u, 0x85EBCA77u,
                                      0x27D4EB2F165667C5u,   0x9E3779B1u};
  int r;
  for (r = 0; r < SBK__XXH3_REGISTERS; ++r) lanes->v[r] = SBK__XXH3_LOAD((const uint8_t*)initial + SBK__XXH3_REGISTER_BYTES * r);
}

/* One 64-byte stripe: lane i adds the product of the two 32-bit halves of (input word i xor secret word i),
 * and input word i xor 1 (neighbouring lanes swap their words). */
static SBK__INLINE void sbk__xxh3_stripe(sbk__xxh3_lanes* lanes, const uint8_t* input, const uint8_t* secret) {
  int r;
  for (r = 0; r < SBK__XXH3_REGISTERS; ++r) {
    const sbk__xxh3_vector data = SBK__XXH3_LOAD(input + SBK__XXH3_REGISTER_BYTES * r);
    const sbk__xxh3_vector mixed = SBK__XXH3_XOR(data, SBK__XXH3_LOAD(secret + SBK__XXH3_REGISTER_BYTES * r));
    const sbk__xxh3_vector product = SBK__XXH3_MUL32(mixed, SBK__XXH3_SHR64(mixed, 32));
    lanes->v[r] = SBK__XXH3_ADD64(SBK__XXH3_ADD64(lanes->v[r], SBK__XXH3_SWAP64(data)), product);
  }
}

/* After each full block: lane ^= lane >> 47, ^= secret word, *= XXH3's 32-bit prime 1 (modulo 2^64). */
static SBK__INLINE void sbk__xxh3_scramble(sbk__xxh3_lanes* lanes, const uint8_t* secret) {
  const sbk__xxh3_vector prime = SBK__XXH3_SET32((int)0x9E3779B1u);
  int r;
  for (r = 0; r < SBK__XXH3_REGISTERS; ++r) {
    sbk__xxh3_vector v = SBK__XXH3_XOR(lanes->v[r], SBK__XXH3_SHR64(lanes->v[r], 47));
    v = SBK__XXH3_XOR(v, SBK__XXH3_LOAD(secret + SBK__XXH3_REGISTER_BYTES * r));
    lanes->v[r] = SBK__XXH3_ADD64(SBK__XXH3_MUL32(v, prime), SBK__XXH3_SHL64(SBK__XXH3_MUL32(SBK__XXH3_SHR64(v, 32), prime), 32));
  }
}

/* The sum of fold(word 2k xor lane 2k, word 2k+1 xor lane 2k+1) over the four pairs, from `start`, avalanched. The
 * lanes leave the registers through lane extracts, not a store and reloads (which would wait on store forwarding). */
static SBK__INLINE uint64_t sbk__xxh3_merge(const sbk__xxh3_lanes* lanes, const uint8_t* secret, uint64_t start) {
  uint64_t result = start;
  int r;
  for (r = 0; r < SBK__XXH3_REGISTERS; ++r) {
    const sbk__xxh3_vector mixed = SBK__XXH3_XOR(lanes->v[r], SBK__XXH3_LOAD(secret + SBK__XXH3_REGISTER_BYTES * r));
#if defined(__AVX2__)
    const __m128i pairs[2] = {_mm256_castsi256_si128(mixed), _mm256_extracti128_si256(mixed, 1)};
    int k;
    for (k = 0; k < 2; ++k)
      result += sbk__mul_fold64((uint64_t)_mm_cvtsi128_si64(pairs[k]),
                                (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(pairs[k], pairs[k])));
#else
    result += sbk__mul_fold64((uint64_t)_mm_cvtsi128_si64(mixed), (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(mixed, mixed)));
#endif
  }
  result ^= result >> 37;
  result *= 0x165667919E3779F9u;
  return result ^ (result >> 32);
}
#endif /* SBK__X86_64_SIMD */

/* The high 64 bits of XXH3-128 of `size` bytes at `key`. */
static SBK__INLINE uint64_t sbk__key_hash_high(const uint8_t* key, size_t size) {
#if SBK__X86_64_SIMD
  if (size > 240u) {
    const uint8_t* secret = sbk__xxh3_secret;
    const size_t block_size = 1024u; /* 16 stripes: (secret size - 64) / 8 */
    const size_t blocks = (size - 1u) / block_size;
    const size_t stripes = (size - 1u - blocks * block_size) / 64u;
    sbk__xxh3_lanes lanes;
    size_t b, s;
    sbk__xxh3_start(&lanes);
    for (b = 0; b < blocks; ++b) {
      for (s = 0; s < 16u; ++s) sbk__xxh3_stripe(&lanes, key + b * block_size + 64u * s, secret + 8u * s);
      sbk__xxh3_scramble(&lanes, secret + 192u - 64u);
    }
    for (s = 0; s < stripes; ++s) sbk__xxh3_stripe(&lanes, key + blocks * block_size + 64u * s, secret + 8u * s);
    sbk__xxh3_stripe(&lanes, key + size - 64u, secret + 192u - 64u - 7u);
    return sbk__xxh3_merge(&lanes, secret + 192u - 64u - 11u, ~((uint64_t)size * 0xC2B2AE3D27D4EB4Fu));
  }
#endif
  return (uint64_t)XXH3_128bits(key, size).high64;
}

/* The hash tag of index entry `i`: the low 32 bits of the high half of its key's XXH3-128. */
static SBK__INLINE uint32_t sbk__index_tag(const sbk_bundle* b, uint32_t i) {
  return sbk__get_u32(b->index_entries + (uint64_t)i * SBK_BUNDLE_INDEX_ENTRY_SIZE);
}

static SBK__INLINE uint32_t sbk__bucket_of(const sbk_bundle* b, uint64_t hash_high) {
  return b->directory_bits ? (uint32_t)(hash_high >> (64u - b->directory_bits)) : 0u;
}

/* The parts of host state `row`: 0 when the row or a part item is out of range. */
static SBK__INLINE int sbk__host_state_parts(const sbk_bundle* b, uint32_t row, const uint8_t* part[SBK_HOST_STATE_PARTS],
                                 uint32_t part_size[SBK_HOST_STATE_PARTS], uint32_t* total) {
  const uint8_t* r;
  uint32_t p;
  if (row >= b->host_state_count) return 0;
  r = b->host_state_rows + (uint64_t)row * SBK_BUNDLE_HOST_STATE_SIZE;
  *total = 0;
  for (p = 0; p < SBK_HOST_STATE_PARTS; ++p) {
    if (!sbk__table_item_at(b->host_state_part_ends, b->host_state_part_count, b->host_state_part_data_size,
                            sbk__get_u32(r + 4u * p), &part[p], &part_size[p]))
      return 0;
    *total += part_size[p];
  }
  return *total <= SBK_HOST_STATE_MAX_SIZE;
}

/* Row `i` of RECORDS, its check verified: the low 32 bits of XXH3-64 of bytes 4..19, seeded with the index
 * position (high 32 bits) and the entry's hash tag (low 32 bits). */
static SBK__INLINE const uint8_t* sbk__checked_row(const sbk_bundle* b, uint32_t i) {
  const uint8_t* r = b->records + (uint64_t)i * SBK_BUNDLE_RECORD_SIZE;
  const uint64_t seed = ((uint64_t)i << 32) | sbk__index_tag(b, i);
  return (uint32_t)XXH3_64bits_withSeed(r + 4, SBK_BUNDLE_RECORD_SIZE - 4u, seed) == sbk__get_u32(r) ? r : NULL;
}

/* The key of exact or family row `r`: its key item, in range, naming the row's kind (schemas/keys.md). 0 when it
 * breaks a rule. */
static SBK__INLINE int sbk__shader_row_key(const sbk_bundle* b, const uint8_t* r, const uint8_t** key, uint32_t* key_size) {
  if (!sbk__table_item_at(b->shader_key_ends, b->shader_key_count, b->shader_key_data_size, sbk__get_u32(r + 8), key,
                          key_size))
    return 0;
  return *key_size >= 4u && (*key)[1] == r[4];
}

/* An exact or family row (its check verified) as an entry: its fields range-checked and its key found. */
static SBK__INLINE sbk_result sbk__load_shader_row(const sbk_bundle* b, uint32_t i, const uint8_t* r,
                                                    sbk_entry* entry) {
  entry->index = i;
  entry->kind = r[4];
  entry->status = r[5];
  entry->rejection = sbk__get_u16(r + 6);
  entry->fragment_module = sbk__get_u32(r + 12);
  entry->vertex_module = SBK_NO_MODULE;
  entry->layout = 0;
  entry->route = 0;
  entry->shader_entry = SBK_NO_ENTRY;
  entry->host_state = SBK_NO_ENTRY;
  if (sbk__get_u32(r + 16) != 0u || entry->status > SBK_STATUS_COMPILE_FAILED) return SBK_ERROR_CORRUPT;
  if (entry->kind == SBK_KEY_KIND_FAMILY && entry->rejection != 0u) return SBK_ERROR_CORRUPT;
  if (entry->fragment_module != SBK_NO_MODULE && entry->fragment_module >= b->module_count) return SBK_ERROR_CORRUPT;
  if ((entry->status == SBK_STATUS_READY) != (entry->fragment_module != SBK_NO_MODULE)) return SBK_ERROR_CORRUPT;
  return sbk__shader_row_key(b, r, &entry->key, &entry->key_size) ? SBK_OK : SBK_ERROR_CORRUPT;
}

/* Shader row `r` (its check verified) as a pipeline's: sbk__load_shader_row's rules narrowed to a ready row of
 * `kind` (a module in range), without filling an entry; gives its module and key, 0 when a rule is broken. */
static SBK__INLINE int sbk__pipeline_shader_row(const sbk_bundle* b, const uint8_t* r, uint32_t kind, uint32_t* module,
                                                const uint8_t** key, uint32_t* key_size) {
  *module = sbk__get_u32(r + 12);
  if (r[4] != kind || r[5] != SBK_STATUS_READY || sbk__get_u32(r + 16) != 0u || *module >= b->module_count ||
      (kind == SBK_KEY_KIND_FAMILY && sbk__get_u16(r + 6) != 0u))
    return 0;
  return sbk__shader_row_key(b, r, key, key_size) && *key_size <= 0xFFFFu;
}

/* Where the pieces of an entry's full key lie: a shader entry's key, or a pipeline's shader key and host-state
 * parts (none for compute). */
typedef struct sbk__key_pieces {
  const uint8_t* shader_key;
  uint32_t shader_key_size;
  uint32_t part_count;
  const uint8_t* part[SBK_HOST_STATE_PARTS];
  uint32_t part_size[SBK_HOST_STATE_PARTS];
} sbk__key_pieces;

/* Entry `i` from its row (checked) and, for a pipeline, its shader entry's row and host state; `pieces` gets
 * where its key's pieces lie. The key is not hashed here: a probe compares it with the probed key;
 * sbk_bundle_entry_at hashes it against the index. */
static sbk_result sbk__load_entry(const sbk_bundle* b, uint32_t i, sbk_entry* entry, sbk__key_pieces* pieces) {
  const uint8_t* r = sbk__checked_row(b, i);
  const uint8_t* shader_row;
  uint32_t kind, shader_key_size;
  sbk_result result;
  pieces->part_count = 0;
  if (r == NULL) return SBK_ERROR_CORRUPT;
  kind = r[4];
  if (kind == SBK_KEY_KIND_EXACT || kind == SBK_KEY_KIND_FAMILY) {
    result = sbk__load_shader_row(b, i, r, entry);
    if (result == SBK_OK) {
      pieces->shader_key = entry->key;
      pieces->shader_key_size = entry->key_size;
    }
    return result;
  }
  if (kind != SBK_KEY_KIND_PIPELINE && kind != SBK_KEY_KIND_COMPUTE_PIPELINE) return SBK_ERROR_CORRUPT;
  entry->index = i;
  entry->kind = kind;
  entry->key = NULL;
  entry->status = SBK_STATUS_READY;
  entry->rejection = 0;
  entry->route = r[5];
  entry->layout = sbk__get_u16(r + 6);
  entry->shader_entry = sbk__get_u32(r + 8);
  entry->host_state = sbk__get_u32(r + 12);
  entry->vertex_module = sbk__get_u32(r + 16);
  if ((entry->route != SBK_ROUTE_EXACT && entry->route != SBK_ROUTE_FALLBACK) || entry->layout >= b->layout_count ||
      entry->shader_entry >= b->entry_count || entry->shader_entry == i)
    return SBK_ERROR_CORRUPT;
  if (kind == SBK_KEY_KIND_PIPELINE) {
    uint32_t host_size;
    if (entry->vertex_module >= b->module_count ||
        !sbk__host_state_parts(b, entry->host_state, pieces->part, pieces->part_size, &host_size))
      return SBK_ERROR_CORRUPT;
    pieces->part_count = SBK_HOST_STATE_PARTS;
    entry->key_size = host_size;
  } else {
    if (entry->vertex_module != SBK_NO_MODULE || entry->host_state != SBK_NO_ENTRY) return SBK_ERROR_CORRUPT;
    entry->key_size = 0;
  }
  /* The shader entry: an exact entry for the exact route, a family for the fallback route, with a module. */
  shader_row = sbk__checked_row(b, entry->shader_entry);
  if (shader_row == NULL ||
      !sbk__pipeline_shader_row(b, shader_row, entry->route == SBK_ROUTE_EXACT ? SBK_KEY_KIND_EXACT : SBK_KEY_KIND_FAMILY,
                                &entry->fragment_module, &pieces->shader_key, &shader_key_size))
    return SBK_ERROR_CORRUPT;
  entry->key_size += 6u + shader_key_size;
  pieces->shader_key_size = shader_key_size;
  return SBK_OK;
}

/* Calls `visit(context, bytes, size)` for the pieces of an entry's full key, in order (a pipeline: its 6-byte
 * head, its shader entry's key, its host state's parts), as sbk__load_entry found them. 0 as soon as a visit
 * returns 0. */
typedef int (*sbk__key_piece_visitor)(void* context, const uint8_t* bytes, size_t size);

static int sbk__visit_key(const sbk_entry* entry, const sbk__key_pieces* pieces, sbk__key_piece_visitor visit,
                          void* context) {
  uint8_t head[6];
  uint32_t p;
  if (entry->key != NULL) return visit(context, entry->key, entry->key_size);
  head[0] = SBK_GUEST_NONE;
  head[1] = (uint8_t)entry->kind;
  head[2] = (uint8_t)entry->route;
  head[3] = 1; /* pipeline key version */
  head[4] = (uint8_t)(pieces->shader_key_size & 0xFFu);
  head[5] = (uint8_t)(pieces->shader_key_size >> 8);
  if (!visit(context, head, sizeof head) || !visit(context, pieces->shader_key, pieces->shader_key_size)) return 0;
  for (p = 0; p < pieces->part_count; ++p)
    if (!visit(context, pieces->part[p], pieces->part_size[p])) return 0;
  return 1;
}

/* The 8 bytes at p in the host's byte order, one load: for equality tests only (sbk__get_u64 reads a
 * little-endian field, and is not forced inline). */
static SBK__INLINE uint64_t sbk__load_u64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Whether n bytes at a and b are equal, with no call: on x86-64 16 bytes at a time (the last 16 overlapping),
 * elsewhere 8. For the host state's parts, a few dozen bytes each, where a call to memcmp per part cost more than
 * the compare (the shader key, some 200 bytes, stays with memcmp, which was faster there). */
static SBK__INLINE int sbk__same_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
  uint64_t diff = 0;
  size_t i;
#if SBK__X86_64_SIMD
  if (n >= 16u) {
    __m128i differ = _mm_setzero_si128();
    for (i = 0; i + 16u < n; i += 16u)
      differ = _mm_or_si128(differ, _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)(a + i)),
                                                   _mm_loadu_si128((const __m128i*)(const void*)(b + i))));
    differ = _mm_or_si128(differ, _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)(a + n - 16u)),
                                                _mm_loadu_si128((const __m128i*)(const void*)(b + n - 16u))));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(differ, _mm_setzero_si128())) == 0xFFFF;
  }
  if (n >= 8u) return ((sbk__load_u64(a) ^ sbk__load_u64(b)) | (sbk__load_u64(a + n - 8u) ^ sbk__load_u64(b + n - 8u))) == 0;
#else
  if (n >= 8u) {
    for (i = 0; i + 8u < n; i += 8u) diff |= sbk__load_u64(a + i) ^ sbk__load_u64(b + i);
    return (diff | (sbk__load_u64(a + n - 8u) ^ sbk__load_u64(b + n - 8u))) == 0;
  }
#endif
  for (i = 0; i < n; ++i) diff |= (uint64_t)(a[i] ^ b[i]);
  return diff == 0;
}

/* Whether `key` (entry->key_size bytes, as the caller checked) is the key the entry's pieces assemble: the
 * probe's compare, written out (a pipeline: its head, its shader key, its host state's parts). */
static SBK__INLINE int sbk__key_equals(const sbk_entry* entry, const sbk__key_pieces* pieces, const uint8_t* key) {
  const uint8_t* at;
  uint32_t p;
  if (entry->key != NULL) return memcmp(entry->key, key, entry->key_size) == 0;
  if (key[0] != SBK_GUEST_NONE || key[1] != entry->kind || key[2] != entry->route || key[3] != 1u ||
      sbk__get_u16(key + 4) != pieces->shader_key_size || memcmp(key + 6, pieces->shader_key, pieces->shader_key_size) != 0)
    return 0;
  at = key + 6 + pieces->shader_key_size;
  for (p = 0; p < pieces->part_count; ++p) {
    if (!sbk__same_bytes(at, pieces->part[p], pieces->part_size[p])) return 0;
    at += pieces->part_size[p];
  }
  return 1;
}

/* Key-piece visitors: hash, copy out. */
static int sbk__hash_piece(void* context, const uint8_t* bytes, size_t size) {
  return XXH3_128bits_update((XXH3_state_t*)context, bytes, size) == XXH_OK;
}

static int sbk__copy_piece(void* context, const uint8_t* bytes, size_t size) {
  sbk__put_bytes((sbk__writer*)context, bytes, size);
  return 1;
}

/* Whether the key an entry's pieces assemble hashes to the entry's tag: no probed key vouches for a row's
 * references when an entry is read by position. (Whether the directory sends the key's bucket there is the
 * index's rule, which verification checks.) */
static int sbk__entry_hash_holds(const sbk_bundle* b, const sbk_entry* entry, const sbk__key_pieces* pieces) {
  XXH3_state_t state;
  XXH128_hash_t h;
  XXH3_128bits_reset(&state);
  if (!sbk__visit_key(entry, pieces, sbk__hash_piece, &state)) return 0;
  h = XXH3_128bits_digest(&state);
  return (uint32_t)h.high64 == sbk__index_tag(b, entry->index);
}

SBK_API sbk_result sbk_bundle_entry_at(const sbk_bundle* bundle, uint32_t index, sbk_entry* entry) {
  sbk__key_pieces pieces;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && entry != NULL);
  if (index >= bundle->entry_count) return SBK_NOT_FOUND;
  r = sbk__load_entry(bundle, index, entry, &pieces);
  if (r == SBK_OK && !sbk__entry_hash_holds(bundle, entry, &pieces)) r = SBK_ERROR_CORRUPT;
  if (r != SBK_OK) memset(entry, 0, sizeof *entry);
  return r;
}

SBK_API sbk_result sbk_bundle_entry_key(const sbk_bundle* bundle, uint32_t index, uint8_t* out, size_t capacity,
                                        size_t* size_out) {
  sbk__key_pieces pieces;
  sbk_entry entry;
  sbk__writer w;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if (index >= bundle->entry_count) return SBK_NOT_FOUND;
  r = sbk__load_entry(bundle, index, &entry, &pieces);
  if (r != SBK_OK) return r;
  if (!sbk__entry_hash_holds(bundle, &entry, &pieces)) return SBK_ERROR_CORRUPT;
  w = sbk__writer_to(out, capacity);
  (void)sbk__visit_key(&entry, &pieces, sbk__copy_piece, &w);
  *size_out = w.size;
  return w.size <= capacity ? SBK_OK : SBK_ERROR_BUFFER_TOO_SMALL;
}

SBK_API sbk_result sbk_bundle_entry_host_state(const sbk_bundle* bundle, uint32_t index, sbk_host_state* out) {
  sbk__key_pieces pieces;
  uint8_t bytes[SBK_HOST_STATE_MAX_SIZE];
  sbk__writer w = sbk__writer_to(bytes, sizeof bytes);
  sbk_entry entry;
  size_t consumed = 0;
  uint32_t p;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && out != NULL);
  if (index >= bundle->entry_count) return SBK_NOT_FOUND;
  r = sbk__load_entry(bundle, index, &entry, &pieces);
  if (r != SBK_OK) return r;
  if (entry.kind != SBK_KEY_KIND_PIPELINE) return SBK_ERROR_INVALID_STATE;
  if (!sbk__entry_hash_holds(bundle, &entry, &pieces)) return SBK_ERROR_CORRUPT;
  for (p = 0; p < pieces.part_count; ++p) sbk__put_bytes(&w, pieces.part[p], pieces.part_size[p]);
  if (w.size > sizeof bytes || sbk_decode_host_state(bytes, w.size, out, &consumed) != SBK_OK || consumed != w.size)
    return SBK_ERROR_CORRUPT;
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_find(const sbk_bundle* bundle, const uint8_t* key, size_t key_size, sbk_entry* entry) {
  const uint8_t* directory;
  uint64_t hash_high;
  uint32_t bucket, tag, first, last, i;
  sbk_result damaged = SBK_NOT_FOUND;
  SBK_ASSERT(bundle != NULL && key != NULL && entry != NULL);
  if (bundle->entry_count == 0) return SBK_NOT_FOUND;
  directory = sbk__section_bytes(bundle, SBK_SECTION_INDEX) + 16;
  hash_high = sbk__key_hash_high(key, key_size);
  /* The directory maps the top `directory_bits` bits of the hash's high half to the first entry of that
   * bucket; entries are sorted by hash, so a bucket is a short contiguous run of tags. */
  bucket = sbk__bucket_of(bundle, hash_high);
  tag = (uint32_t)hash_high;
  first = sbk__get_u32(directory + 4u * (uint64_t)bucket);
  last = sbk__get_u32(directory + 4u * ((uint64_t)bucket + 1u));
  if (first > last || last > bundle->entry_count) return SBK_ERROR_CORRUPT;
  for (i = first; i < last; ++i) {
    sbk__key_pieces pieces;
    sbk_result r;
    if (sbk__index_tag(bundle, i) != tag) continue;
    r = sbk__load_entry(bundle, i, entry, &pieces);
    if (r != SBK_OK) {
      damaged = r; /* keep looking; report it only if nothing else matches */
      continue;
    }
    if (entry->key_size != key_size) continue;
    /* Equal bytes: the entry holds exactly the probed key, whose hash gave the tag its row's check is seeded with. */
    if (sbk__key_equals(entry, &pieces, key)) return SBK_OK;
  }
  memset(entry, 0, sizeof *entry);
  return damaged;
}

/* One block of a specialization item at `p` (`left` bytes remain in the item): 0 when it breaks a rule. */
static int sbk__read_specialization_block(const uint8_t** p, uint32_t* left, sbk_specialization_block* out) {
  uint64_t need;
  uint32_t i, previous_id = 0;
  if (*left < 8u) return 0;
  out->map_count = sbk__get_u32(*p);
  out->data_size = sbk__get_u32(*p + 4);
  need = 8u + 12u * (uint64_t)out->map_count + (((uint64_t)out->data_size + 3u) & ~(uint64_t)3u);
  if (need > *left) return 0;
  out->map = *p + 8;
  out->data = out->map + 12u * (uint64_t)out->map_count;
  for (i = 0; i < out->map_count; ++i) {
    const uint8_t* m = out->map + 12u * (uint64_t)i;
    const uint32_t id = sbk__get_u32(m), offset = sbk__get_u32(m + 4), size = sbk__get_u32(m + 8);
    if ((i > 0 && id <= previous_id) || (size != 1u && size != 2u && size != 4u && size != 8u) ||
        offset > out->data_size || size > out->data_size - offset)
      return 0;
    previous_id = id;
  }
  for (i = out->data_size; i % 4u != 0; ++i)
    if (out->data[i] != 0u) return 0; /* padding */
  if (out->map_count == 0) out->map = NULL;
  if (out->data_size == 0) out->data = NULL;
  *p += need;
  *left -= (uint32_t)need;
  return 1;
}

SBK_API sbk_result sbk_bundle_specialization(const sbk_bundle* bundle, uint32_t index, sbk_specialization* out) {
  const uint8_t* section;
  const uint8_t* item;
  uint64_t size, table_at;
  uint32_t low = 0, high, item_size, count;
  SBK_ASSERT(bundle != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  if (bundle->section_offset[SBK_SECTION_SPECIALIZATION_DATA] == 0) return SBK_NOT_FOUND;
  section = sbk__section_bytes(bundle, SBK_SECTION_SPECIALIZATION_DATA);
  size = bundle->section_size[SBK_SECTION_SPECIALIZATION_DATA];
  /* The data goes to a driver and has no check of its own: the section's checksum first. */
  if (XXH3_64bits(section, (size_t)size) != bundle->section_checksum[SBK_SECTION_SPECIALIZATION_DATA] ||
      sbk__get_u32(section + 4) != 0u)
    return SBK_ERROR_CORRUPT;
  high = bundle->specialization_count;
  while (low < high) { /* pairs sorted by pipeline entry, each entry at most once */
    const uint32_t mid = low + (high - low) / 2u;
    const uint32_t entry = sbk__get_u32(section + 8u + 8u * (uint64_t)mid);
    if (entry == index) {
      low = mid;
      high = mid + 1u;
      break;
    }
    if (entry < index) low = mid + 1u; else high = mid;
  }
  if (low >= high) return SBK_NOT_FOUND;
  table_at = 8u + 8u * (uint64_t)bundle->specialization_count;
  count = sbk__get_u32(section + table_at);
  if (size - table_at < 8u + 4u * (uint64_t)count ||
      !sbk__table_item_in(section + table_at, size - table_at, count, sbk__get_u32(section + 8u + 8u * (uint64_t)low + 4u),
                          &item, &item_size))
    return SBK_ERROR_CORRUPT;
  if (!sbk__read_specialization_block(&item, &item_size, &out->vertex) ||
      !sbk__read_specialization_block(&item, &item_size, &out->shader) || item_size != 0u) {
    memset(out, 0, sizeof *out);
    return SBK_ERROR_CORRUPT;
  }
  return SBK_OK;
}

static const uint8_t* sbk__module_entry(const sbk_bundle* b, uint32_t module) {
  return sbk__section_bytes(b, SBK_SECTION_MODULES) + 8u + (uint64_t)module * SBK_BUNDLE_MODULE_ENTRY_SIZE;
}

/* Module row fields (schemas/bundle.md, MODULES). */
static const uint8_t* sbk__frame_of(const sbk_bundle* b, const uint8_t* e) {
  return sbk__section_bytes(b, SBK_SECTION_MODULE_DATA) + sbk__get_u32(e);
}
static uint32_t sbk__module_flags(const uint8_t* e) { return sbk__get_u16(e + 26); }

/* sbk_bundle_module_info, and the bytes the module's frame decodes to (*payload_size): the packed size its
 * header states, or the raw size. */
static sbk_result sbk__module_info(const sbk_bundle* bundle, uint32_t module, sbk_module_info* info,
                                   size_t* payload_size) {
  const uint8_t* e;
  const uint8_t* frame;
  uint64_t frame_offset;
  unsigned long long content_size;
  size_t frame_size;
  uint32_t flags;
  SBK_ASSERT(bundle != NULL && info != NULL);
  if (module >= bundle->module_count) return SBK_NOT_FOUND;
  e = sbk__module_entry(bundle, module);
  /* The row's own check: XXH3-64 (seeded with the module index) of the 28 bytes before it, low 32 bits. */
  if ((uint32_t)XXH3_64bits_withSeed(e, SBK_BUNDLE_MODULE_ENTRY_SIZE - 4u, module) != sbk__get_u32(e + 28))
    return SBK_ERROR_CORRUPT;
  frame_offset = sbk__get_u32(e);
  info->compressed_size = sbk__get_u32(e + 4);
  info->raw_size = sbk__get_u32(e + 8);
  info->parent = sbk__get_u32(e + 12);
  info->stage = sbk__get_u16(e + 24);
  flags = sbk__module_flags(e);
  if (!sbk__fits(frame_offset, info->compressed_size, bundle->section_size[SBK_SECTION_MODULE_DATA]))
    return SBK_ERROR_CORRUPT;
  /* VkShaderStageFlagBits: 1 vertex, 16 fragment, 32 compute. Flags: bit 0 (dictionary), bit 1 (packed) only.
   * A parent is another module (whether it has no parent itself is checked where it is read). */
  if ((info->stage != 1u && info->stage != 16u && info->stage != 32u) || info->raw_size == 0 ||
      info->raw_size % 4u != 0 || info->raw_size > SBK_BUNDLE_MAX_MODULE_SIZE || flags > 3u ||
      (info->parent != SBK_NO_MODULE && (info->parent >= bundle->module_count || info->parent == module)))
    return SBK_ERROR_CORRUPT;
  /* Hold the sizes against the frame's own headers, which zstd reads without decoding. The frame is exactly
   * compressed_size bytes; it decodes to raw_size bytes, or packed to fewer (then its header must say how
   * many: the packed bytes are decoded at the end of the caller's buffer). */
  frame = sbk__section_bytes(bundle, SBK_SECTION_MODULE_DATA) + frame_offset;
  frame_size = ZSTD_findFrameCompressedSize(frame, info->compressed_size);
  if (ZSTD_isError(frame_size) || frame_size != info->compressed_size) return SBK_ERROR_CORRUPT;
  content_size = ZSTD_getFrameContentSize(frame, info->compressed_size);
  if (content_size == ZSTD_CONTENTSIZE_ERROR) return SBK_ERROR_CORRUPT;
  if (flags & 2u) {
    if (content_size == ZSTD_CONTENTSIZE_UNKNOWN || content_size == 0 ||
        content_size > (unsigned long long)info->raw_size)
      return SBK_ERROR_CORRUPT;
    *payload_size = (size_t)content_size;
  } else if (content_size != ZSTD_CONTENTSIZE_UNKNOWN && content_size != (unsigned long long)info->raw_size) {
    return SBK_ERROR_CORRUPT;
  } else {
    *payload_size = info->raw_size;
  }
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_module_info(const sbk_bundle* bundle, uint32_t module, sbk_module_info* info) {
  size_t payload_size;
  return sbk__module_info(bundle, module, info, &payload_size);
}

/* Decompresses one zstd frame of exactly `raw_size` bytes into `out`, with the bundle's dictionary when
 * `use_dictionary`: its digested form when sbk_bundle_prepare_dictionary made one, else the raw section (zstd
 * then rebuilds its tables for this call). The frame must decode to exactly raw_size bytes. */
static sbk_result sbk__decompress(const sbk_bundle* b, const uint8_t* src, size_t src_size, void* out,
                                  size_t raw_size, int use_dictionary, void* caller_dctx) {
  ZSTD_DCtx* dctx = (ZSTD_DCtx*)caller_dctx;
  size_t n;
  const void* dict = NULL;
  size_t dict_size = 0;
  if (use_dictionary && b->section_offset[SBK_SECTION_DICTIONARY] == 0) return SBK_ERROR_CORRUPT;
  if (use_dictionary && b->zstd_ddict == NULL) {
    dict = sbk__section_bytes(b, SBK_SECTION_DICTIONARY);
    dict_size = (size_t)b->section_size[SBK_SECTION_DICTIONARY];
  }
  if (dctx == NULL) {
    dctx = ZSTD_createDCtx();
    if (dctx == NULL) return SBK_ERROR_OUT_OF_MEMORY;
  }
  if (use_dictionary && b->zstd_ddict != NULL)
    n = ZSTD_decompress_usingDDict(dctx, out, raw_size, src, src_size, (const ZSTD_DDict*)b->zstd_ddict);
  else
    n = ZSTD_decompress_usingDict(dctx, out, raw_size, src, src_size, dict, dict_size);
  if (caller_dctx == NULL) ZSTD_freeDCtx(dctx);
  return (!ZSTD_isError(n) && n == raw_size) ? SBK_OK : SBK_ERROR_CORRUPT;
}

/* The parent of a module that has one (row `e`, `info` from sbk_bundle_module_info): its row, info and payload
 * size, and how many bytes of the DICTIONARY section precede the parent's content in the child's raw prefix
 * (the whole section when the child's flag bit 0 says so, else none). The parent must have no parent itself. */
static sbk_result sbk__parent_of(const sbk_bundle* b, const uint8_t* e, const sbk_module_info* info,
                                 const uint8_t** parent_row, sbk_module_info* parent_info, size_t* parent_payload,
                                 size_t* dict_size) {
  sbk_result r = sbk__module_info(b, info->parent, parent_info, parent_payload);
  if (r != SBK_OK) return r == SBK_NOT_FOUND ? SBK_ERROR_CORRUPT : r;
  if (parent_info->parent != SBK_NO_MODULE) return SBK_ERROR_CORRUPT;
  *parent_row = sbk__module_entry(b, info->parent);
  *dict_size = 0;
  if (sbk__module_flags(e) & 1u) {
    if (b->section_offset[SBK_SECTION_DICTIONARY] == 0) return SBK_ERROR_CORRUPT;
    *dict_size = (size_t)b->section_size[SBK_SECTION_DICTIONARY];
  }
  return SBK_OK;
}

/* Decodes the frame of row `e` (exactly payload_size bytes) against `prefix` as raw content: no dictionary
 * parsing, no tables to build; the prefix serves this one frame. */
static sbk_result sbk__decompress_with_prefix(const sbk_bundle* b, const uint8_t* e, const sbk_module_info* info,
                                              const uint8_t* prefix, size_t prefix_size, void* out,
                                              size_t payload_size, ZSTD_DCtx* dctx) {
  size_t n = ZSTD_DCtx_refPrefix(dctx, prefix, prefix_size);
  if (!ZSTD_isError(n)) n = ZSTD_decompressDCtx(dctx, out, payload_size, sbk__frame_of(b, e), info->compressed_size);
  return (!ZSTD_isError(n) && n == payload_size) ? SBK_OK : SBK_ERROR_CORRUPT;
}

/* Decodes the frame of a module that has a parent: its raw prefix (the dictionary's bytes, if the child uses
 * them, then the parent's decoded frame content) is assembled in a scratch block of the heap. */
static sbk_result sbk__decompress_child(const sbk_bundle* b, const uint8_t* e, const sbk_module_info* info,
                                        void* out, size_t payload_size, void* caller_dctx) {
  sbk_module_info parent_info;
  const uint8_t* pe;
  size_t dict_size, parent_payload;
  uint8_t* scratch;
  ZSTD_DCtx* dctx = (ZSTD_DCtx*)caller_dctx;
  sbk_result r = sbk__parent_of(b, e, info, &pe, &parent_info, &parent_payload, &dict_size);
  if (r != SBK_OK) return r;
  scratch = (uint8_t*)malloc(dict_size + parent_payload);
  if (scratch == NULL) return SBK_ERROR_OUT_OF_MEMORY;
  /* One context for both frames, the caller's or one of this call's. */
  if (dctx == NULL && (dctx = ZSTD_createDCtx()) == NULL) {
    free(scratch);
    return SBK_ERROR_OUT_OF_MEMORY;
  }
  if (dict_size) memcpy(scratch, sbk__section_bytes(b, SBK_SECTION_DICTIONARY), dict_size);
  r = sbk__decompress(b, sbk__frame_of(b, pe), parent_info.compressed_size, scratch + dict_size, parent_payload,
                      (int)(sbk__module_flags(pe) & 1u), dctx);
  if (r == SBK_OK)
    r = sbk__decompress_with_prefix(b, e, info, scratch, dict_size + parent_payload, out, payload_size, dctx);
  if (caller_dctx == NULL) ZSTD_freeDCtx(dctx);
  free(scratch);
  return r;
}

/* The last step of every module read: a packed payload (at the end of `out`) unpacked in place, then the raw
 * checksum. */
static sbk_result sbk__finish_module(const uint8_t* e, const sbk_module_info* info, void* out,
                                     size_t payload_size) {
  if ((sbk__module_flags(e) & 2u) && sbk_spirv_unpack_in_place(out, info->raw_size, payload_size) != SBK_OK)
    return SBK_ERROR_CORRUPT;
  return XXH3_64bits(out, info->raw_size) == sbk__get_u64(e + 16) ? SBK_OK : SBK_ERROR_CORRUPT;
}

SBK_API sbk_result sbk_bundle_read_module(const sbk_bundle* bundle, uint32_t module, void* out, size_t capacity,
                                          size_t* size_out, void* zstd_dctx) {
  sbk_module_info info;
  const uint8_t* e;
  uint8_t* payload_at;
  size_t payload_size;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  r = sbk__module_info(bundle, module, &info, &payload_size);
  if (r != SBK_OK) return r;
  e = sbk__module_entry(bundle, module);
  *size_out = info.raw_size;
  if (info.raw_size > capacity) return SBK_ERROR_BUFFER_TOO_SMALL;
  /* A packed frame decodes to the end of the buffer and is then unpacked forward in place (module_info has
   * checked that the frame's header states a size of at most raw_size). */
  payload_at = (uint8_t*)out + (info.raw_size - payload_size);
  if (info.parent != SBK_NO_MODULE)
    r = sbk__decompress_child(bundle, e, &info, payload_at, payload_size, zstd_dctx);
  else
    r = sbk__decompress(bundle, sbk__frame_of(bundle, e), info.compressed_size, payload_at, payload_size,
                        (int)(sbk__module_flags(e) & 1u), zstd_dctx);
  return r == SBK_OK ? sbk__finish_module(e, &info, out, payload_size) : r;
}

SBK_API sbk_result sbk_module_reader_init(sbk_module_reader* reader, const sbk_bundle* bundle) {
  SBK_ASSERT(reader != NULL && bundle != NULL);
  memset(reader, 0, sizeof *reader);
  reader->bundle = bundle;
  reader->prefix_parent = SBK_NO_MODULE;
  reader->zstd_dctx = ZSTD_createDCtx();
  reader->zstd_child_dctx = ZSTD_createDCtx();
  if (reader->zstd_dctx == NULL || reader->zstd_child_dctx == NULL) {
    sbk_module_reader_free(reader);
    return SBK_ERROR_OUT_OF_MEMORY;
  }
  if (bundle->section_offset[SBK_SECTION_DICTIONARY] != 0) {
    reader->dictionary_size = (size_t)bundle->section_size[SBK_SECTION_DICTIONARY];
    reader->prefix_capacity = reader->dictionary_size;
    reader->prefix = (uint8_t*)malloc(reader->prefix_capacity ? reader->prefix_capacity : 1u);
    if (reader->prefix == NULL) {
      sbk_module_reader_free(reader);
      return SBK_ERROR_OUT_OF_MEMORY;
    }
    memcpy(reader->prefix, sbk__section_bytes(bundle, SBK_SECTION_DICTIONARY), reader->dictionary_size);
  }
  /* Which modules are parents, from the rows' parent fields unchecked: a damaged row can only make a read
   * slower (a wrong bit decodes a module into the block for nothing), never wrong. Without the memory the
   * reader works without the hint. */
  reader->is_parent = (uint8_t*)calloc((size_t)bundle->module_count / 8u + 1u, 1);
  if (reader->is_parent != NULL) {
    uint32_t m;
    for (m = 0; m < bundle->module_count; ++m) {
      const uint32_t parent = sbk__get_u32(sbk__module_entry(bundle, m) + 12);
      if (parent < bundle->module_count) reader->is_parent[parent / 8u] |= (uint8_t)(1u << (parent % 8u));
    }
  }
  return SBK_OK;
}

SBK_API void sbk_module_reader_free(sbk_module_reader* reader) {
  SBK_ASSERT(reader != NULL);
  ZSTD_freeDCtx((ZSTD_DCtx*)reader->zstd_dctx);
  ZSTD_freeDCtx((ZSTD_DCtx*)reader->zstd_child_dctx);
  free(reader->prefix);
  free(reader->is_parent);
  memset(reader, 0, sizeof *reader);
  reader->prefix_parent = SBK_NO_MODULE;
}

/* Makes the reader's block hold the dictionary's bytes, then the content of parent module `parent` (row `pe`),
 * decoded now. */
static sbk_result sbk__reader_hold_parent(sbk_module_reader* reader, uint32_t parent, const uint8_t* pe,
                                          const sbk_module_info* parent_info, size_t parent_payload) {
  const sbk_bundle* b = reader->bundle;
  sbk_result r;
  reader->prefix_parent = SBK_NO_MODULE;
  if (reader->dictionary_size + parent_payload > reader->prefix_capacity) {
    uint8_t* grown = (uint8_t*)realloc(reader->prefix, reader->dictionary_size + parent_payload);
    if (grown == NULL) return SBK_ERROR_OUT_OF_MEMORY;
    reader->prefix = grown;
    reader->prefix_capacity = reader->dictionary_size + parent_payload;
  }
  r = sbk__decompress(b, sbk__frame_of(b, pe), parent_info->compressed_size, reader->prefix + reader->dictionary_size,
                      parent_payload, (int)(sbk__module_flags(pe) & 1u), reader->zstd_dctx);
  if (r == SBK_OK) {
    reader->prefix_parent = parent;
    reader->prefix_parent_payload = parent_payload;
  }
  return r;
}

SBK_API sbk_result sbk_module_reader_read(sbk_module_reader* reader, uint32_t module, void* out, size_t capacity,
                                          size_t* size_out) {
  const sbk_bundle* b;
  sbk_module_info info;
  const uint8_t* e;
  uint8_t* payload_at;
  size_t payload_size;
  sbk_result r;
  SBK_ASSERT(reader != NULL && reader->bundle != NULL && size_out != NULL && (out != NULL || capacity == 0));
  b = reader->bundle;
  *size_out = 0;
  r = sbk__module_info(b, module, &info, &payload_size);
  if (r != SBK_OK) return r;
  e = sbk__module_entry(b, module);
  *size_out = info.raw_size;
  if (info.raw_size > capacity) return SBK_ERROR_BUFFER_TOO_SMALL;
  payload_at = (uint8_t*)out + (info.raw_size - payload_size);
  if (info.parent != SBK_NO_MODULE) {
    sbk_module_info parent_info;
    const uint8_t* pe;
    size_t dict_size = 0, parent_payload = reader->prefix_parent_payload;
    if (info.parent == reader->prefix_parent) {
      /* The block holds this parent already, its row checked when it was decoded: only the child's own
       * dictionary flag is left to check. */
      if (sbk__module_flags(e) & 1u) {
        if (b->section_offset[SBK_SECTION_DICTIONARY] == 0) return SBK_ERROR_CORRUPT;
        dict_size = reader->dictionary_size;
      }
    } else {
      r = sbk__parent_of(b, e, &info, &pe, &parent_info, &parent_payload, &dict_size);
      if (r == SBK_OK) r = sbk__reader_hold_parent(reader, info.parent, pe, &parent_info, parent_payload);
    }
    /* The prefix ends with the parent's content; a child that does not use the dictionary starts after it. */
    if (r == SBK_OK)
      r = sbk__decompress_with_prefix(b, e, &info, reader->prefix + (reader->dictionary_size - dict_size),
                                      dict_size + parent_payload, payload_at, payload_size,
                                      (ZSTD_DCtx*)reader->zstd_child_dctx);
  } else if (module == reader->prefix_parent) {
    /* The block holds this module's payload, decoded and checked against its frame's size already. */
    memcpy(payload_at, reader->prefix + reader->dictionary_size, payload_size);
  } else {
    /* A parent of other modules is decoded into the block for the children that follow, then copied out; any
     * other module, or a parent the block cannot grow for, straight into `out`. */
    r = SBK_ERROR_OUT_OF_MEMORY; /* not in the block */
    if (reader->is_parent != NULL && (reader->is_parent[module / 8u] >> (module % 8u) & 1u))
      r = sbk__reader_hold_parent(reader, module, e, &info, payload_size);
    if (r == SBK_OK)
      memcpy(payload_at, reader->prefix + reader->dictionary_size, payload_size);
    else if (r == SBK_ERROR_OUT_OF_MEMORY)
      r = sbk__decompress(b, sbk__frame_of(b, e), info.compressed_size, payload_at, payload_size,
                          (int)(sbk__module_flags(e) & 1u), reader->zstd_dctx);
  }
  return r == SBK_OK ? sbk__finish_module(e, &info, out, payload_size) : r;
}

SBK_API sbk_result sbk_bundle_module_read_order(const sbk_bundle* bundle, uint32_t* order) {
  /* A counting sort by group. scratch: n + 1 group starts (start[g]: where the group of parent g begins), then
   * each module's parent. */
  uint32_t n, m, at = 0;
  uint32_t *start, *parent;
  SBK_ASSERT(bundle != NULL && (order != NULL || bundle->module_count == 0));
  n = bundle->module_count;
  start = (uint32_t*)calloc(2u * (size_t)n + 1u, sizeof *start);
  if (start == NULL) return SBK_ERROR_OUT_OF_MEMORY;
  parent = start + n + 1;
  for (m = 0; m < n; ++m) { /* first the size of each group, held at start[its parent] */
    sbk_module_info info;
    if (sbk_bundle_module_info(bundle, m, &info) != SBK_OK) {
      free(start);
      return SBK_ERROR_CORRUPT;
    }
    parent[m] = info.parent;
    ++start[info.parent == SBK_NO_MODULE ? m : info.parent];
  }
  for (m = 0; m < n; ++m) {
    const uint32_t size = start[m];
    start[m] = at;
    at += size;
  }
  for (m = 0; m < n; ++m) /* a parent first in its group, */
    if (parent[m] == SBK_NO_MODULE) order[start[m]++] = m;
  for (m = 0; m < n; ++m) /* then its children, by index */
    if (parent[m] != SBK_NO_MODULE) order[start[parent[m]]++] = m;
  free(start);
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_layout(const sbk_bundle* bundle, uint32_t layout, sbk_layout* out) {
  const uint8_t* section;
  const uint8_t* p;
  uint32_t i;
  SBK_ASSERT(bundle != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  if (layout >= bundle->layout_count) return SBK_NOT_FOUND;
  /* A layout has no checksum of its own and no later check (a module read has its raw checksum, a record
   * its check): the section's checksum is the only thing that vouches for these bytes. */
  section = sbk__section_bytes(bundle, SBK_SECTION_LAYOUTS);
  if (XXH3_64bits(section, (size_t)bundle->section_size[SBK_SECTION_LAYOUTS]) !=
      bundle->section_checksum[SBK_SECTION_LAYOUTS])
    return SBK_ERROR_CORRUPT;
  p = section + 8u + (uint64_t)layout * SBK_BUNDLE_LAYOUT_SIZE;
  out->binding_count = sbk__get_u32(p);
  out->push_constant_size = sbk__get_u32(p + 4);
  out->push_constant_stages = sbk__get_u32(p + 8);
  if (out->binding_count > SBK_MAX_LAYOUT_BINDINGS || sbk__get_u32(p + 12) != 0) return SBK_ERROR_CORRUPT;
  for (i = 0; i < out->binding_count; ++i) {
    const uint8_t* q = p + 16u + 16u * i;
    out->bindings[i].binding = sbk__get_u32(q);
    out->bindings[i].descriptor_type = sbk__get_u32(q + 4);
    out->bindings[i].descriptor_count = sbk__get_u32(q + 8);
    out->bindings[i].stage_flags = sbk__get_u32(q + 12);
    if (i > 0 && out->bindings[i].binding <= out->bindings[i - 1].binding) return SBK_ERROR_CORRUPT;
  }
  for (i = 16u + 16u * out->binding_count; i < SBK_BUNDLE_LAYOUT_SIZE; ++i) /* unused bindings are zero */
    if (p[i] != 0) return SBK_ERROR_CORRUPT;
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_read_report(const sbk_bundle* bundle, char* out, size_t capacity, size_t* size_out) {
  const uint8_t* src;
  unsigned long long raw;
  SBK_ASSERT(bundle != NULL && size_out != NULL && (out != NULL || capacity == 0));
  *size_out = 0;
  if (bundle->section_offset[SBK_SECTION_REPORT] == 0) return SBK_NOT_FOUND;
  src = sbk__section_bytes(bundle, SBK_SECTION_REPORT);
  /* The writer's frame carries no content checksum: without this, damage inside it can decode to other text. */
  if (XXH3_64bits(src, (size_t)bundle->section_size[SBK_SECTION_REPORT]) !=
      bundle->section_checksum[SBK_SECTION_REPORT])
    return SBK_ERROR_CORRUPT;
  raw = ZSTD_getFrameContentSize(src, (size_t)bundle->section_size[SBK_SECTION_REPORT]);
  if (raw == ZSTD_CONTENTSIZE_ERROR || raw == ZSTD_CONTENTSIZE_UNKNOWN || raw > (unsigned long long)SIZE_MAX ||
      raw > 0xFFFFFFFFull)
    return SBK_ERROR_CORRUPT;
  *size_out = (size_t)raw;
  if ((size_t)raw > capacity) return SBK_ERROR_BUFFER_TOO_SMALL;
  return sbk__decompress(bundle, src, (size_t)bundle->section_size[SBK_SECTION_REPORT], out, (size_t)raw, 0, NULL);
}

/* DRIVER_CACHE (schemas/bundle.md): u32 count N, u32 reserved, N entries of 48 bytes
 *   0 u32 vendor_id   4 u32 device_id   8 u32 driver_version   12 u32 reserved   16 u8[16] pipelineCacheUUID
 *  32 u64 blob offset from the section start   40 u64 blob size
 * sorted strictly by (vendor, device, driver version, uuid bytes); blobs 8-aligned, after the table, in entry
 * order and non-overlapping. -1/0/1 like memcmp, comparing entry `e` with the probed identity. */
static int sbk__compare_driver_identity(const uint8_t* e, uint32_t vendor_id, uint32_t device_id,
                                        uint32_t driver_version, const uint8_t* uuid) {
  const uint32_t a[3] = {sbk__get_u32(e), sbk__get_u32(e + 4), sbk__get_u32(e + 8)};
  const uint32_t b[3] = {vendor_id, device_id, driver_version};
  int i, c;
  for (i = 0; i < 3; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  c = memcmp(e + 16, uuid, 16);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

SBK_API sbk_result sbk_bundle_driver_cache(const sbk_bundle* bundle, uint32_t vendor_id, uint32_t device_id,
                                           uint32_t driver_version, const uint8_t pipeline_cache_uuid[16],
                                           const void** data, size_t* size) {
  const uint8_t* section;
  const uint8_t* found = NULL;
  const uint8_t* blob;
  uint64_t section_size, count, previous_end, length, i;
  SBK_ASSERT(bundle != NULL && pipeline_cache_uuid != NULL && data != NULL && size != NULL);
  *data = NULL;
  *size = 0;
  if (bundle->section_offset[SBK_SECTION_DRIVER_CACHE] == 0) return SBK_NOT_FOUND;
  section = sbk__section_bytes(bundle, SBK_SECTION_DRIVER_CACHE);
  section_size = bundle->section_size[SBK_SECTION_DRIVER_CACHE];
  /* The blobs carry no checksum of their own: the section's is the only thing that vouches for them. */
  if (XXH3_64bits(section, (size_t)section_size) != bundle->section_checksum[SBK_SECTION_DRIVER_CACHE])
    return SBK_ERROR_CORRUPT;
  if (section_size < 8) return SBK_ERROR_CORRUPT;
  count = sbk__get_u32(section);
  if (count > (section_size - 8) / SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE) return SBK_ERROR_CORRUPT;
  previous_end = 8 + count * SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE; /* the first blob starts after the table */
  /* The whole table is checked, not just the entry that matches: the section is already read in full. */
  for (i = 0; i < count; ++i) {
    const uint8_t* e = section + 8 + i * SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE;
    const uint64_t offset = sbk__get_u64(e + 32), length = sbk__get_u64(e + 40);
    if (offset % 8u != 0 || offset < previous_end || !sbk__fits(offset, length, section_size)) return SBK_ERROR_CORRUPT;
    previous_end = offset + length;
    if (i > 0 && sbk__compare_driver_identity(e - SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE, sbk__get_u32(e),
                                              sbk__get_u32(e + 4), sbk__get_u32(e + 8), e + 16) >= 0)
      return SBK_ERROR_CORRUPT; /* out of order, or the same device twice */
    if (sbk__compare_driver_identity(e, vendor_id, device_id, driver_version, pipeline_cache_uuid) == 0) found = e;
  }
  if (found == NULL) return SBK_NOT_FOUND;
  /* VkPipelineCacheHeaderVersionOne, little-endian whatever the host: u32 headerSize (>= 32), u32
   * headerVersion (1 = VK_PIPELINE_CACHE_HEADER_VERSION_ONE), u32 vendorID, u32 deviceID, u8[16] UUID. */
  blob = section + sbk__get_u64(found + 32);
  length = sbk__get_u64(found + 40);
  if (length < 32 || sbk__get_u32(blob) < 32 || sbk__get_u32(blob) > length || sbk__get_u32(blob + 4) != 1u ||
      sbk__get_u32(blob + 8) != vendor_id || sbk__get_u32(blob + 12) != device_id ||
      memcmp(blob + 16, pipeline_cache_uuid, 16) != 0)
    return SBK_ERROR_CORRUPT;
  *data = blob;
  *size = (size_t)length;
  return SBK_OK;
}

/* ---- router data (DYNAMIC_FALLBACKS, PREWARM) ---- */

SBK_API void sbk_attachment_signature_of(const sbk_host_state* host, sbk_attachment_signature* out) {
  uint32_t i;
  SBK_ASSERT(host != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  out->color_count = host->color_count;
  for (i = 0; i < host->color_count && i < SBK_MAX_COLOR_ATTACHMENTS; ++i) out->color_formats[i] = host->color_formats[i];
  out->depth_format = host->depth_format;
  out->samples = host->samples;
}

/* The DYNAMIC_FALLBACKS section once its checksum holds (the recipes and defaults have no check of their own):
 * SBK_NOT_FOUND when absent. *count is what open checked the section's size against. */
static sbk_result sbk__dynamic_fallbacks(const sbk_bundle* b, const uint8_t** section, uint32_t* count) {
  const uint64_t size = b->section_size[SBK_SECTION_DYNAMIC_FALLBACKS];
  *section = NULL;
  *count = 0;
  if (b->section_offset[SBK_SECTION_DYNAMIC_FALLBACKS] == 0) return SBK_NOT_FOUND;
  if (XXH3_64bits(sbk__section_bytes(b, SBK_SECTION_DYNAMIC_FALLBACKS), (size_t)size) !=
      b->section_checksum[SBK_SECTION_DYNAMIC_FALLBACKS])
    return SBK_ERROR_CORRUPT;
  *section = sbk__section_bytes(b, SBK_SECTION_DYNAMIC_FALLBACKS);
  *count = (uint32_t)((size - SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE) / SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE);
  return SBK_OK;
}

static const uint8_t* sbk__recipe_bytes(const uint8_t* section, uint32_t index) {
  return section + SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE + (uint64_t)index * SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE;
}

/* The order recipes are sorted in: family entry, then the u32 fields of bytes 16..63 in order. -1/0/1 like memcmp,
 * comparing the recipe at `r` with the probed family entry and signature (its reserved field counted as 0). */
static int sbk__compare_recipe(const uint8_t* r, uint32_t family_entry, const sbk_attachment_signature* s) {
  uint32_t want[13], i;
  want[0] = family_entry;
  want[1] = s->color_count;
  want[2] = s->samples;
  want[3] = s->depth_format;
  want[4] = 0;
  for (i = 0; i < SBK_MAX_COLOR_ATTACHMENTS; ++i) want[5 + i] = s->color_formats[i];
  for (i = 0; i < 13; ++i) {
    const uint32_t have = sbk__get_u32(r + (i == 0 ? 0u : 12u + 4u * i));
    if (have != want[i]) return have < want[i] ? -1 : 1;
  }
  return 0;
}

/* Reads and checks recipe `index` of a checksum-verified section (schemas/bundle.md, DYNAMIC_FALLBACKS). */
static sbk_result sbk__read_recipe(const sbk_bundle* b, const uint8_t* section, uint32_t index,
                                   sbk_dynamic_fallback* out) {
  const uint8_t* r = sbk__recipe_bytes(section, index);
  sbk_dynamic_fallback d;
  sbk_entry family;
  sbk_module_info vertex;
  uint32_t i;
  memset(&d, 0, sizeof d);
  d.family_entry = sbk__get_u32(r);
  d.vertex_module = sbk__get_u32(r + 4);
  d.fragment_module = sbk__get_u32(r + 8);
  d.layout = sbk__get_u32(r + 12);
  d.signature.color_count = sbk__get_u32(r + 16);
  d.signature.samples = sbk__get_u32(r + 20);
  d.signature.depth_format = sbk__get_u32(r + 24);
  if (d.signature.color_count > SBK_MAX_COLOR_ATTACHMENTS || sbk__get_u32(r + 28) != 0u) return SBK_ERROR_CORRUPT;
  if (d.signature.samples == 0u || d.signature.samples > 64u || (d.signature.samples & (d.signature.samples - 1u)) != 0u)
    return SBK_ERROR_CORRUPT;
  for (i = 0; i < SBK_MAX_COLOR_ATTACHMENTS; ++i) {
    d.signature.color_formats[i] = sbk__get_u32(r + 32 + 4 * i);
    if (i >= d.signature.color_count && d.signature.color_formats[i] != 0u) return SBK_ERROR_CORRUPT;
  }
  if (d.layout >= b->layout_count) return SBK_ERROR_CORRUPT;
  if (sbk_bundle_module_info(b, d.vertex_module, &vertex) != SBK_OK || vertex.stage != 1u) return SBK_ERROR_CORRUPT;
  if (sbk_bundle_entry_at(b, d.family_entry, &family) != SBK_OK || family.kind != SBK_KEY_KIND_FAMILY ||
      family.status != SBK_STATUS_READY || family.fragment_module != d.fragment_module)
    return SBK_ERROR_CORRUPT;
  *out = d;
  return SBK_OK;
}

SBK_API uint32_t sbk_bundle_dynamic_fallback_count(const sbk_bundle* bundle) {
  SBK_ASSERT(bundle != NULL);
  if (bundle->section_offset[SBK_SECTION_DYNAMIC_FALLBACKS] == 0) return 0;
  return (uint32_t)((bundle->section_size[SBK_SECTION_DYNAMIC_FALLBACKS] - SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE) /
                    SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE);
}

SBK_API sbk_result sbk_bundle_dynamic_fallback(const sbk_bundle* bundle, uint32_t index, sbk_dynamic_fallback* out) {
  const uint8_t* section;
  uint32_t count;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  if (index >= sbk_bundle_dynamic_fallback_count(bundle)) return SBK_NOT_FOUND;
  r = sbk__dynamic_fallbacks(bundle, &section, &count);
  if (r != SBK_OK) return r;
  return sbk__read_recipe(bundle, section, index, out);
}

SBK_API sbk_result sbk_bundle_read_dynamic_fallbacks(const sbk_bundle* bundle, sbk_dynamic_fallback* out,
                                                     uint32_t capacity) {
  const uint8_t* section;
  uint32_t count, i;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && (out != NULL || capacity == 0));
  if (sbk_bundle_dynamic_fallback_count(bundle) == 0) return SBK_OK;
  r = sbk__dynamic_fallbacks(bundle, &section, &count);
  if (r != SBK_OK) return r;
  if (capacity < count) return SBK_ERROR_BUFFER_TOO_SMALL;
  for (i = 0; i < count; ++i) {
    r = sbk__read_recipe(bundle, section, i, &out[i]);
    if (r != SBK_OK) return r;
  }
  return SBK_OK;
}

SBK_API sbk_result sbk_bundle_find_dynamic_fallback(const sbk_bundle* bundle, uint32_t family_entry,
                                                    const sbk_attachment_signature* signature,
                                                    sbk_dynamic_fallback* out, uint32_t* index_out) {
  const uint8_t* section;
  uint32_t count, low = 0, high;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && signature != NULL && out != NULL);
  memset(out, 0, sizeof *out);
  if (index_out != NULL) *index_out = 0xFFFFFFFFu;
  r = sbk__dynamic_fallbacks(bundle, &section, &count);
  if (r != SBK_OK) return r;
  high = count;
  while (low < high) {
    const uint32_t mid = low + (high - low) / 2u;
    sbk_dynamic_fallback met;
    int c;
    /* Every recipe met is held to the rules: a damaged one could steer the search anywhere. */
    r = sbk__read_recipe(bundle, section, mid, &met);
    if (r != SBK_OK) return r;
    c = sbk__compare_recipe(sbk__recipe_bytes(section, mid), family_entry, signature);
    if (c < 0) {
      low = mid + 1u;
    } else if (c > 0) {
      high = mid;
    } else {
      *out = met;
      if (index_out != NULL) *index_out = mid;
      return SBK_OK;
    }
  }
  return SBK_NOT_FOUND;
}

SBK_API sbk_result sbk_bundle_vertex_defaults(const sbk_bundle* bundle, uint32_t* location_mask,
                                              float defaults[SBK_VERTEX_LOCATIONS][4]) {
  const uint8_t* section;
  float values[SBK_VERTEX_LOCATIONS][4];
  uint32_t count, mask, l, c;
  sbk_result r;
  SBK_ASSERT(bundle != NULL && location_mask != NULL && defaults != NULL);
  *location_mask = 0;
  memset(defaults, 0, sizeof values);
  r = sbk__dynamic_fallbacks(bundle, &section, &count);
  if (r != SBK_OK) return r;
  mask = sbk__get_u32(section + 4);
  if ((mask >> SBK_VERTEX_LOCATIONS) != 0u) return SBK_ERROR_CORRUPT;
  for (l = 0; l < SBK_VERTEX_LOCATIONS; ++l) {
    for (c = 0; c < 4; ++c) {
      const uint32_t bits = sbk__get_u32(section + 8 + 16 * l + 4 * c);
      if (((bits >> 23) & 0xFFu) == 0xFFu) return SBK_ERROR_CORRUPT; /* infinity or NaN */
      if (!((mask >> l) & 1u) && bits != 0u) return SBK_ERROR_CORRUPT;
      memcpy(&values[l][c], &bits, sizeof bits);
    }
  }
  *location_mask = mask;
  memcpy(defaults, values, sizeof values);
  return SBK_OK;
}

SBK_API uint32_t sbk_bundle_prewarm_count(const sbk_bundle* bundle) {
  SBK_ASSERT(bundle != NULL);
  if (bundle->section_offset[SBK_SECTION_PREWARM] == 0) return 0;
  return (uint32_t)((bundle->section_size[SBK_SECTION_PREWARM] - 8u) / SBK_BUNDLE_PREWARM_ENTRY_SIZE);
}

SBK_API sbk_result sbk_bundle_prewarm_at(const sbk_bundle* bundle, uint32_t position, uint32_t* pipeline_entry,
                                         uint32_t* first_frame) {
  const uint8_t* section;
  const uint8_t* e;
  sbk_entry entry;
  uint32_t index;
  SBK_ASSERT(bundle != NULL && pipeline_entry != NULL && first_frame != NULL);
  *pipeline_entry = 0xFFFFFFFFu;
  *first_frame = 0;
  if (position >= sbk_bundle_prewarm_count(bundle)) return SBK_NOT_FOUND;
  section = sbk__section_bytes(bundle, SBK_SECTION_PREWARM);
  if (sbk__get_u32(section + 4) != 0u) return SBK_ERROR_CORRUPT;
  e = section + 8u + (uint64_t)position * SBK_BUNDLE_PREWARM_ENTRY_SIZE;
  index = sbk__get_u32(e);
  if (sbk_bundle_entry_at(bundle, index, &entry) != SBK_OK || entry.kind != SBK_KEY_KIND_PIPELINE ||
      entry.route != SBK_ROUTE_EXACT)
    return SBK_ERROR_CORRUPT;
  *pipeline_entry = index;
  *first_frame = sbk__get_u32(e + 4);
  return SBK_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION_DONE */
#endif /* SHADERBAKE_IMPLEMENTATION */
