/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_spirv.h — packed SPIR-V, the byte coding bundle modules are stored in (schemas/bundle.md,
 * "Packed SPIR-V"), and its operand table. The table between the GENERATED markers below is written by
 * scripts/gen_spirv_operand_table.py from the Khronos grammar (--check compares; a test runs it) and is
 * frozen since bundle format 2 (format 3 codes modules the same way): it decides how modules are coded.
 *
 * Who includes it: a bundle writer (the shaderbake tool packs every module) and tests. A renderer never
 * calls it and needs no include of it: sbk_bundle_read_module unpacks, and shaderbake.h's implementation
 * compiles this one's. It includes shaderbake.h (outside its own include guard, so that either header may
 * come first: this implementation uses shaderbake.h's private writer and is always compiled inside
 * shaderbake.h's). Implementation: SHADERBAKE_IMPLEMENTATION in one translation unit, as for shaderbake.h.
 * Needs libc, and what shaderbake.h needs.
 *
 * Contracts: no allocation, no global state, no I/O; thread-safe and re-entrant; NULL where a pointer is
 * required is checked with SBK_ASSERT; bytes that do not decode exactly give SBK_ERROR_CORRUPT, never an
 * out-of-bounds read or write.
 */
#include "shaderbake.h" /* outside the guard: see the top comment */

#ifndef SHADERBAKE_SPIRV_H
#define SHADERBAKE_SPIRV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Packed SPIR-V (schemas/bundle.md, "Packed SPIR-V") -------------------------------------------------
 * Bundle modules are stored as a byte coding of their SPIR-V words that a zstd dictionary compresses about
 * twice as well as the words: varints, result IDs inside functions left implicit, references to function-local
 * IDs as short distances, global IDs absolute. sbk_bundle_read_module decodes it; a renderer never calls these. */

/* The most bytes sbk_spirv_pack writes for `word_count` words. */
#define SBK_SPIRV_PACK_BOUND(word_count) ((size_t)(word_count) * 6u + 16u)

/* Builder side: codes `word_count` words (a SPIR-V module: at least its 5 header words) into `out`.
 * *size_out gets the bytes written. Any word sequence packs and unpacks to itself; what is not a well-formed
 * instruction stream is carried raw. SBK_ERROR_INVALID_STATE for fewer than 5 words,
 * SBK_ERROR_BUFFER_TOO_SMALL when `capacity` is below SBK_SPIRV_PACK_BOUND(word_count). */
SBK_API sbk_result sbk_spirv_pack(const uint32_t* words, size_t word_count, uint8_t* out, size_t capacity,
                                  size_t* size_out);

/* Decodes `packed_size` packed bytes into exactly `raw_size` bytes at `out` (separate buffers).
 * SBK_ERROR_CORRUPT when they do not decode to exactly that. */
SBK_API sbk_result sbk_spirv_unpack(const void* packed, size_t packed_size, void* out, size_t raw_size);

/* Decodes packed SPIR-V in place: `buffer` has `raw_size` bytes (a multiple of 4), the packed bytes are its
 * last `packed_size`; the words are written from the start, each only over packed bytes already read.
 * SBK_ERROR_CORRUPT when the bytes do not decode to exactly raw_size bytes that way (a writer stores a module
 * packed only when its own packed bytes do). */
SBK_API sbk_result sbk_spirv_unpack_in_place(void* buffer, size_t raw_size, size_t packed_size);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_SPIRV_H */

/* ===================================================================================================== */
#if defined(SHADERBAKE_IMPLEMENTATION) && !defined(SHADERBAKE_SPIRV_IMPLEMENTATION_DONE)
#define SHADERBAKE_SPIRV_IMPLEMENTATION_DONE

#ifdef __cplusplus
extern "C" {
#endif

/* How the operand words of each opcode are coded: T result type, R result, I ID reference, L literal, S literal
 * string (words up to and including the first holding a zero byte); "*X": every further word is X; words past
 * the list are L. Generated from the Khronos grammar (SPIR-V 1.6 core, opcodes below 400) by
 * scripts/gen_spirv_operand_table.py and frozen since bundle format 2 (format 3 codes modules the same way): it
 * decides how modules are coded. A wrong or missing row costs size, never correctness (coder and decoder follow
 * the same table). */
static const char* sbk__spirv_operands(uint32_t opcode) {
  switch (opcode) {
    /* BEGIN GENERATED: scripts/gen_spirv_operand_table.py */
    case 0: case 56: case 218: case 219: case 252: case 253: case 255: case 317: return "";
    case 1: case 41: case 42: case 46: case 48: case 49: case 55: case 299: case 303: return "TR";
    case 2: case 4: case 10: case 330: return "S";
    case 3: return "LLIS";
    case 5: return "IS";
    case 6: return "ILS";
    case 7: case 11: case 31: return "RS";
    case 8: case 72: return "ILL";
    case 12: return "TRIL*I";
    case 14: return "LL";
    case 15: return "LIS*I";
    case 16: case 39: case 71: case 247: case 256: case 257: case 331: case 332: return "IL";
    case 17: return "L";
    case 19: case 20: case 26: case 34: case 35: case 36: case 37: case 73: case 248: case 322: case 327:
    return "R";
    case 21: return "RLL";
    case 22: case 38: return "RL";
    case 23: case 24: return "RIL";
    case 25: return "RILLLLLLL";
    case 27: case 29: return "RI";
    case 28: return "RII";
    case 30: return "R*I";
    case 32: return "RLI";
    case 33: return "RI*I";
    case 43: case 50: case 52: return "TRL";
    case 44: case 51: case 80: case 245: return "TR*I";
    case 45: case 323: return "TRLLL";
    case 54: case 59: return "TRLI";
    case 57: case 65: case 66: return "TRI*I";
    case 60: case 78: case 169: case 202: case 203: case 227: case 232: case 233: case 263: case 283:
    case 284: case 304: case 318: case 337: case 341: case 345: case 346: case 347: case 348: case 365:
    case 366: return "TRIII";
    case 61: case 68: case 123: return "TRIL";
    case 62: case 246: return "IIL";
    case 63: return "IILL";
    case 64: return "IIILL";
    case 67: case 70: return "TRII*I";
    case 69: case 83: case 84: case 100: case 101: case 102: case 104: case 106: case 107: case 109: case 110:
    case 111: case 112: case 113: case 114: case 115: case 116: case 117: case 118: case 119: case 120:
    case 121: case 122: case 124: case 126: case 127: case 154: case 155: case 156: case 157: case 158:
    case 159: case 160: case 168: case 200: case 204: case 205: case 207: case 208: case 209: case 210:
    case 211: case 212: case 213: case 214: case 215: case 282: case 300: case 316: case 321: case 324:
    case 328: case 333: return "TRI";
    case 74: return "I*I";
    case 75: return "I*L";
    case 77: case 86: case 103: case 105: case 128: case 129: case 130: case 131: case 132: case 133:
    case 134: case 135: case 136: case 137: case 138: case 139: case 140: case 141: case 142: case 143:
    case 144: case 145: case 146: case 147: case 148: case 149: case 150: case 151: case 152: case 161:
    case 162: case 163: case 164: case 165: case 166: case 167: case 170: case 171: case 172: case 173:
    case 174: case 175: case 176: case 177: case 178: case 179: case 180: case 181: case 182: case 183:
    case 184: case 185: case 186: case 187: case 188: case 189: case 190: case 191: case 194: case 195:
    case 196: case 197: case 198: case 199: case 261: case 262: case 334: case 335: case 336: case 338:
    case 339: case 340: case 343: case 344: return "TRII";
    case 79: case 82: return "TRII*L";
    case 81: return "TRI*L";
    case 87: case 88: case 91: case 92: case 95: case 98: case 305: case 306: case 309: case 310: case 313:
    case 320: return "TRIIL*I";
    case 89: case 90: case 93: case 94: case 96: case 97: case 307: case 308: case 311: case 312: case 314:
    case 315: return "TRIIIL*I";
    case 99: return "IIIL*I";
    case 201: case 229: case 234: case 235: case 236: case 237: case 238: case 239: case 240: case 241:
    case 242: case 274: case 275: case 278: case 279: case 291: case 295: case 296: case 326: return "TRIIII";
    case 220: case 221: case 249: case 254: case 297: case 298: return "I";
    case 224: case 260: case 302: case 319: case 329: return "III";
    case 225: case 301: return "II";
    case 228: case 280: case 281: return "IIII";
    case 230: case 231: case 259: case 276: case 277: return "TRIIIIII";
    case 250: return "III*L";
    case 251: return "II*L";
    case 264: case 265: case 266: case 267: case 268: case 269: case 270: case 271: case 342: return "TRILI";
    case 285: case 286: case 293: case 294: case 325: return "TRIIIII";
    case 287: case 288: return "IIIII";
    case 292: return "TRIIIIIIIIII*I";
    case 349: case 350: case 351: case 352: case 353: case 354: case 355: case 356: case 357: case 358:
    case 359: case 360: case 361: case 362: case 363: case 364: return "TRILII";
    /* END GENERATED */
    default: return "";
  }
}

/* Coding state shared by sbk_spirv_pack and sbk__spirv_unpack. */
typedef struct sbk__spirv_state {
  uint32_t max_id;      /* the largest result ID so far (updated after each instruction) */
  uint32_t first_local; /* inside functions (from the first OpFunction on): IDs from here are local */
  uint32_t next_local;  /* the result ID the next result inside functions must have */
  int in_functions;
} sbk__spirv_state;

/* The reference base: the next local ID inside functions, else one past the largest result ID so far. */
static uint32_t sbk__spirv_base(const sbk__spirv_state* st) {
  return st->in_functions ? st->next_local : st->max_id + 1u;
}

/* OpFunction (opcode 54), the first one: function-local IDs start after the largest result ID so far. Both
 * directions call it before an instruction's operands. */
static void sbk__spirv_begin_instruction(sbk__spirv_state* st, uint32_t opcode) {
  if (opcode == 54u && !st->in_functions) {
    st->in_functions = 1;
    st->first_local = st->next_local = st->max_id + 1u;
  }
}

static void sbk__put_varint(sbk__writer* w, uint64_t v) {
  while (v >= 0x80u) {
    sbk__put_u8(w, (uint32_t)(v & 0x7Fu) | 0x80u);
    v >>= 7;
  }
  sbk__put_u8(w, (uint32_t)v);
}

/* Kind of operand word `index` (from 0) of an instruction, given the kinds and where the scan stands:
 * `at` advances over fixed kinds as words are used; a string holds its kind until its last word. */
static char sbk__spirv_kind(const char* kinds, size_t at) {
  size_t fixed = 0;
  while (kinds[fixed] != '\0' && kinds[fixed] != '*') ++fixed;
  if (at < fixed) return kinds[at];
  return kinds[fixed] == '*' ? kinds[fixed + 1] : 'L';
}

static int sbk__word_has_zero_byte(uint32_t w) {
  return (w & 0xFFu) == 0 || (w & 0xFF00u) == 0 || (w & 0xFF0000u) == 0 || (w & 0xFF000000u) == 0;
}

SBK_API sbk_result sbk_spirv_pack(const uint32_t* words, size_t word_count, uint8_t* out, size_t capacity,
                                  size_t* size_out) {
  sbk__spirv_state st;
  sbk__writer w;
  size_t i;
  SBK_ASSERT(words != NULL && out != NULL && size_out != NULL);
  *size_out = 0;
  if (word_count < 5) return SBK_ERROR_INVALID_STATE;
  if (capacity < SBK_SPIRV_PACK_BOUND(word_count)) return SBK_ERROR_BUFFER_TOO_SMALL;
  memset(&st, 0, sizeof st);
  w = sbk__writer_to(out, capacity);
  for (i = 0; i < 5; ++i) sbk__put_varint(&w, words[i]);
  for (i = 5; i < word_count;) {
    const uint32_t opcode = words[i] & 0xFFFFu, count = words[i] >> 16;
    const char* kinds = sbk__spirv_operands(opcode);
    sbk__spirv_state next = st;
    size_t j, at = 0;
    int result_ok = 1;
    uint32_t result = 0;
    int has_result = 0;
    if (count == 0 || count > word_count - i) break; /* not an instruction: the rest goes raw */
    sbk__spirv_begin_instruction(&next, opcode);
    /* Inside functions a result is implicit: it must be the next local ID, or the rest goes raw. */
    for (j = 1; j < count; ++j) {
      const char k = sbk__spirv_kind(kinds, at);
      if (k == 'R' && next.in_functions && words[i + j] != next.next_local) result_ok = 0;
      if (k == 'R') break;
      if (k != 'S' || sbk__word_has_zero_byte(words[i + j])) ++at;
    }
    if (!result_ok) break;
    sbk__put_varint(&w, (uint64_t)opcode + 1u);
    sbk__put_varint(&w, count);
    at = 0;
    for (j = 1; j < count; ++j) {
      const uint32_t word = words[i + j];
      const char k = sbk__spirv_kind(kinds, at);
      if (k == 'S') {
        sbk__put_u32(&w, word);
        if (sbk__word_has_zero_byte(word)) ++at;
        continue;
      }
      ++at;
      if (k == 'R') {
        has_result = 1;
        result = word;
        if (next.in_functions)
          ++next.next_local; /* implicit */
        else
          sbk__put_varint(&w, word);
      } else if (k == 'T' || k == 'I') {
        const int local = next.in_functions ? word >= next.first_local : word > next.max_id;
        if (local) {
          const uint32_t d = sbk__spirv_base(&next) - word;
          const uint32_t zigzag = (d & 0x80000000u) ? ((~d) << 1) | 1u : d << 1;
          sbk__put_varint(&w, (uint64_t)zigzag * 2u + 1u);
        } else {
          sbk__put_varint(&w, (uint64_t)word * 2u);
        }
      } else {
        sbk__put_varint(&w, word);
      }
    }
    if (has_result && result > next.max_id) next.max_id = result;
    st = next;
    i += count;
  }
  if (i < word_count) { /* escape: 0, the word count left, the words raw */
    sbk__put_u8(&w, 0);
    sbk__put_varint(&w, word_count - i);
    for (; i < word_count; ++i) sbk__put_u32(&w, words[i]);
  }
  SBK_ASSERT(w.size <= capacity); /* SBK_SPIRV_PACK_BOUND holds */
  *size_out = w.size;
  return SBK_OK;
}

/* Decodes `packed_size` bytes at `src` into exactly raw_size bytes at `dst`. With `lag` != SIZE_MAX, src is
 * dst + lag (in place): a word is written only over bytes already read. */
static sbk_result sbk__spirv_unpack(const uint8_t* src, size_t packed_size, uint8_t* dst, size_t raw_size, size_t lag) {
  const uint8_t* const b = src;
  const size_t total = raw_size / 4u;
  size_t in = 0, out = 0; /* next byte to read; next word to write */
  sbk__spirv_state st;
  if (raw_size % 4u != 0 || total < 5 || packed_size == 0) return SBK_ERROR_CORRUPT;
  memset(&st, 0, sizeof st);
/* Reads a varint of at most 5 bytes (35 bits) into v, or fails. */
#define SBK__READ_VARINT(v)                                                        \
  do {                                                                             \
    unsigned shift_ = 0;                                                           \
    (v) = 0;                                                                       \
    for (;;) {                                                                     \
      uint8_t byte_;                                                               \
      if (in >= packed_size || shift_ > 28u) return SBK_ERROR_CORRUPT;             \
      byte_ = b[in++];                                                             \
      (v) |= (uint64_t)(byte_ & 0x7Fu) << shift_;                                  \
      if (!(byte_ & 0x80u)) break;                                                 \
      shift_ += 7u;                                                                \
    }                                                                              \
  } while (0)
/* Writes word w at `out`: only over bytes already read, and never past raw_size. */
#define SBK__WRITE_WORD(w)                                                         \
  do {                                                                             \
    const uint32_t w_ = (w);                                                       \
    if (out >= total || (lag != (size_t)-1 && out * 4u + 4u > lag + in))           \
      return SBK_ERROR_CORRUPT;                                                    \
    dst[out * 4u] = (uint8_t)w_;                                                   \
    dst[out * 4u + 1u] = (uint8_t)(w_ >> 8);                                       \
    dst[out * 4u + 2u] = (uint8_t)(w_ >> 16);                                      \
    dst[out * 4u + 3u] = (uint8_t)(w_ >> 24);                                      \
    ++out;                                                                         \
  } while (0)
  while (out < 5) {
    uint64_t v;
    SBK__READ_VARINT(v);
    if (v > 0xFFFFFFFFu) return SBK_ERROR_CORRUPT;
    SBK__WRITE_WORD((uint32_t)v);
  }
  while (out < total) {
    uint64_t v, count;
    uint32_t opcode, result = 0;
    const char* kinds;
    size_t j, at = 0;
    int has_result = 0;
    SBK__READ_VARINT(v);
    if (v == 0) { /* escape: the rest raw */
      SBK__READ_VARINT(count);
      if (count != total - out) return SBK_ERROR_CORRUPT;
      while (out < total) {
        uint32_t w;
        if (packed_size - in < 4u) return SBK_ERROR_CORRUPT;
        w = sbk__get_u32(b + in);
        in += 4u;
        SBK__WRITE_WORD(w);
      }
      break;
    }
    if (v > 0x10000u) return SBK_ERROR_CORRUPT;
    opcode = (uint32_t)(v - 1u);
    SBK__READ_VARINT(count);
    if (count == 0 || count > 0xFFFFu || count > total - out) return SBK_ERROR_CORRUPT;
    SBK__WRITE_WORD((uint32_t)count << 16 | opcode);
    kinds = sbk__spirv_operands(opcode);
    sbk__spirv_begin_instruction(&st, opcode);
    for (j = 1; j < count; ++j) {
      const char k = sbk__spirv_kind(kinds, at);
      uint32_t w;
      if (k == 'S') {
        if (packed_size - in < 4u) return SBK_ERROR_CORRUPT;
        w = sbk__get_u32(b + in);
        in += 4u;
        if (sbk__word_has_zero_byte(w)) ++at;
        SBK__WRITE_WORD(w);
        continue;
      }
      ++at;
      if (k == 'R' && st.in_functions) {
        w = st.next_local++;
      } else {
        SBK__READ_VARINT(v);
        if (k == 'T' || k == 'I') {
          if (v > 0x1FFFFFFFFu) return SBK_ERROR_CORRUPT;
          if (v & 1u) {
            const uint32_t zigzag = (uint32_t)(v >> 1);
            const uint32_t d = (zigzag & 1u) ? ~(zigzag >> 1) : zigzag >> 1;
            w = sbk__spirv_base(&st) - d;
          } else {
            w = (uint32_t)(v >> 1);
          }
        } else {
          if (v > 0xFFFFFFFFu) return SBK_ERROR_CORRUPT;
          w = (uint32_t)v;
        }
      }
      if (k == 'R') {
        has_result = 1;
        result = w;
      }
      SBK__WRITE_WORD(w);
    }
    if (has_result && result > st.max_id) st.max_id = result;
  }
#undef SBK__READ_VARINT
#undef SBK__WRITE_WORD
  return in == packed_size ? SBK_OK : SBK_ERROR_CORRUPT;
}

SBK_API sbk_result sbk_spirv_unpack(const void* packed, size_t packed_size, void* out, size_t raw_size) {
  SBK_ASSERT((packed != NULL || packed_size == 0) && (out != NULL || raw_size == 0));
  return sbk__spirv_unpack((const uint8_t*)packed, packed_size, (uint8_t*)out, raw_size, (size_t)-1);
}

SBK_API sbk_result sbk_spirv_unpack_in_place(void* buffer, size_t raw_size, size_t packed_size) {
  SBK_ASSERT(buffer != NULL || raw_size == 0);
  if (packed_size > raw_size) return SBK_ERROR_CORRUPT;
  return sbk__spirv_unpack((const uint8_t*)buffer + (raw_size - packed_size), packed_size, (uint8_t*)buffer, raw_size,
                           raw_size - packed_size);
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION */
