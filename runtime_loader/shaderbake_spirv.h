/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_spirv.h — packed SPIR-V, the byte coding bundle modules are stored in (schemas/bundle.md,
 * "Packed SPIR-V"), and its operand table. The table between the GENERATED markers below is written by
 * scripts/gen_spirv_operand_table.py from the Khronos grammar (--check compares; a test runs it). Its operand
 * kinds are frozen since bundle format 2: they decide how modules are coded (the result positions a reader
 * follows, the operands a writer codes as distances); how a word packs them is this header's own.
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

/* How the operand words of each opcode below 400 are coded, one word an opcode: bits 0-3 the count of fixed
 * operand kinds (at most 12), bits 4-5 the kind of every further word, then 2 bits a fixed kind in order from
 * bit 6, and in bits 30-31 the word position of the result ID (1 or 2; 0: none), derived from the kinds. Kinds:
 * 0 literal (L), 1 ID reference or result type (I), 2 result ID (R), 3 literal string (S: words up to and
 * including the first holding a zero byte). Each line's comment gives the opcode, its name and its kinds as
 * letters (T result type, "*X": every further word is X). Generated from the Khronos grammar (SPIR-V 1.6 core)
 * by scripts/gen_spirv_operand_table.py; the kinds are frozen since bundle format 2, as they decide how modules
 * are coded (a reader takes each opcode's result position from them, a writer also which operands are IDs). A
 * wrong or missing row costs size, never correctness (coder and decoder follow the same table). Opcodes from 400
 * on have no row: no result, every word coded absolute. */
#define SBK__SPIRV_KIND_L 0u
#define SBK__SPIRV_KIND_I 1u
#define SBK__SPIRV_KIND_R 2u
#define SBK__SPIRV_KIND_S 3u
#define SBK__SPIRV_OPCODES_WITH_KINDS 400u
static const uint32_t sbk__spirv_operand_kinds[SBK__SPIRV_OPCODES_WITH_KINDS] = {
    /* BEGIN GENERATED: scripts/gen_spirv_operand_table.py */
    0x00000000u, /* 0 OpNop */
    0x80000242u, /* 1 OpUndef TR */
    0x000000C1u, /* 2 OpSourceContinued S */
    0x00003404u, /* 3 OpSource LLIS */
    0x000000C1u, /* 4 OpSourceExtension S */
    0x00000342u, /* 5 OpName IS */
    0x00000C43u, /* 6 OpMemberName ILS */
    0x40000382u, /* 7 OpString RS */
    0x00000043u, /* 8 OpLine ILL */
    0x00000000u, /* 9 */
    0x000000C1u, /* 10 OpExtension S */
    0x40000382u, /* 11 OpExtInstImport RS */
    0x80000654u, /* 12 OpExtInst TRIL*I */
    0x00000000u, /* 13 */
    0x00000002u, /* 14 OpMemoryModel LL */
    0x00000D13u, /* 15 OpEntryPoint LIS*I */
    0x00000042u, /* 16 OpExecutionMode IL */
    0x00000001u, /* 17 OpCapability L */
    0x00000000u, /* 18 */
    0x40000081u, /* 19 OpTypeVoid R */
    0x40000081u, /* 20 OpTypeBool R */
    0x40000083u, /* 21 OpTypeInt RLL */
    0x40000082u, /* 22 OpTypeFloat RL */
    0x40000183u, /* 23 OpTypeVector RIL */
    0x40000183u, /* 24 OpTypeMatrix RIL */
    0x40000189u, /* 25 OpTypeImage RILLLLLLL */
    0x40000081u, /* 26 OpTypeSampler R */
    0x40000182u, /* 27 OpTypeSampledImage RI */
    0x40000583u, /* 28 OpTypeArray RII */
    0x40000182u, /* 29 OpTypeRuntimeArray RI */
    0x40000091u, /* 30 OpTypeStruct R*I */
    0x40000382u, /* 31 OpTypeOpaque RS */
    0x40000483u, /* 32 OpTypePointer RLI */
    0x40000192u, /* 33 OpTypeFunction RI*I */
    0x40000081u, /* 34 OpTypeEvent R */
    0x40000081u, /* 35 OpTypeDeviceEvent R */
    0x40000081u, /* 36 OpTypeReserveId R */
    0x40000081u, /* 37 OpTypeQueue R */
    0x40000082u, /* 38 OpTypePipe RL */
    0x00000042u, /* 39 OpTypeForwardPointer IL */
    0x00000000u, /* 40 */
    0x80000242u, /* 41 OpConstantTrue TR */
    0x80000242u, /* 42 OpConstantFalse TR */
    0x80000243u, /* 43 OpConstant TRL */
    0x80000252u, /* 44 OpConstantComposite TR*I */
    0x80000245u, /* 45 OpConstantSampler TRLLL */
    0x80000242u, /* 46 OpConstantNull TR */
    0x00000000u, /* 47 */
    0x80000242u, /* 48 OpSpecConstantTrue TR */
    0x80000242u, /* 49 OpSpecConstantFalse TR */
    0x80000243u, /* 50 OpSpecConstant TRL */
    0x80000252u, /* 51 OpSpecConstantComposite TR*I */
    0x80000243u, /* 52 OpSpecConstantOp TRL */
    0x00000000u, /* 53 */
    0x80001244u, /* 54 OpFunction TRLI */
    0x80000242u, /* 55 OpFunctionParameter TR */
    0x00000000u, /* 56 OpFunctionEnd */
    0x80000653u, /* 57 OpFunctionCall TRI*I */
    0x00000000u, /* 58 */
    0x80001244u, /* 59 OpVariable TRLI */
    0x80005645u, /* 60 OpImageTexelPointer TRIII */
    0x80000644u, /* 61 OpLoad TRIL */
    0x00000143u, /* 62 OpStore IIL */
    0x00000144u, /* 63 OpCopyMemory IILL */
    0x00000545u, /* 64 OpCopyMemorySized IIILL */
    0x80000653u, /* 65 OpAccessChain TRI*I */
    0x80000653u, /* 66 OpInBoundsAccessChain TRI*I */
    0x80001654u, /* 67 OpPtrAccessChain TRII*I */
    0x80000644u, /* 68 OpArrayLength TRIL */
    0x80000643u, /* 69 OpGenericPtrMemSemantics TRI */
    0x80001654u, /* 70 OpInBoundsPtrAccessChain TRII*I */
    0x00000042u, /* 71 OpDecorate IL */
    0x00000043u, /* 72 OpMemberDecorate ILL */
    0x40000081u, /* 73 OpDecorationGroup R */
    0x00000051u, /* 74 OpGroupDecorate I*I */
    0x00000041u, /* 75 OpGroupMemberDecorate I*L */
    0x00000000u, /* 76 */
    0x80001644u, /* 77 OpVectorExtractDynamic TRII */
    0x80005645u, /* 78 OpVectorInsertDynamic TRIII */
    0x80001644u, /* 79 OpVectorShuffle TRII*L */
    0x80000252u, /* 80 OpCompositeConstruct TR*I */
    0x80000643u, /* 81 OpCompositeExtract TRI*L */
    0x80001644u, /* 82 OpCompositeInsert TRII*L */
    0x80000643u, /* 83 OpCopyObject TRI */
    0x80000643u, /* 84 OpTranspose TRI */
    0x00000000u, /* 85 */
    0x80001644u, /* 86 OpSampledImage TRII */
    0x80001655u, /* 87 OpImageSampleImplicitLod TRIIL*I */
    0x80001655u, /* 88 OpImageSampleExplicitLod TRIIL*I */
    0x80005656u, /* 89 OpImageSampleDrefImplicitLod TRIIIL*I */
    0x80005656u, /* 90 OpImageSampleDrefExplicitLod TRIIIL*I */
    0x80001655u, /* 91 OpImageSampleProjImplicitLod TRIIL*I */
    0x80001655u, /* 92 OpImageSampleProjExplicitLod TRIIL*I */
    0x80005656u, /* 93 OpImageSampleProjDrefImplicitLod TRIIIL*I */
    0x80005656u, /* 94 OpImageSampleProjDrefExplicitLod TRIIIL*I */
    0x80001655u, /* 95 OpImageFetch TRIIL*I */
    0x80005656u, /* 96 OpImageGather TRIIIL*I */
    0x80005656u, /* 97 OpImageDrefGather TRIIIL*I */
    0x80001655u, /* 98 OpImageRead TRIIL*I */
    0x00000554u, /* 99 OpImageWrite IIIL*I */
    0x80000643u, /* 100 OpImage TRI */
    0x80000643u, /* 101 OpImageQueryFormat TRI */
    0x80000643u, /* 102 OpImageQueryOrder TRI */
    0x80001644u, /* 103 OpImageQuerySizeLod TRII */
    0x80000643u, /* 104 OpImageQuerySize TRI */
    0x80001644u, /* 105 OpImageQueryLod TRII */
    0x80000643u, /* 106 OpImageQueryLevels TRI */
    0x80000643u, /* 107 OpImageQuerySamples TRI */
    0x00000000u, /* 108 */
    0x80000643u, /* 109 OpConvertFToU TRI */
    0x80000643u, /* 110 OpConvertFToS TRI */
    0x80000643u, /* 111 OpConvertSToF TRI */
    0x80000643u, /* 112 OpConvertUToF TRI */
    0x80000643u, /* 113 OpUConvert TRI */
    0x80000643u, /* 114 OpSConvert TRI */
    0x80000643u, /* 115 OpFConvert TRI */
    0x80000643u, /* 116 OpQuantizeToF16 TRI */
    0x80000643u, /* 117 OpConvertPtrToU TRI */
    0x80000643u, /* 118 OpSatConvertSToU TRI */
    0x80000643u, /* 119 OpSatConvertUToS TRI */
    0x80000643u, /* 120 OpConvertUToPtr TRI */
    0x80000643u, /* 121 OpPtrCastToGeneric TRI */
    0x80000643u, /* 122 OpGenericCastToPtr TRI */
    0x80000644u, /* 123 OpGenericCastToPtrExplicit TRIL */
    0x80000643u, /* 124 OpBitcast TRI */
    0x00000000u, /* 125 */
    0x80000643u, /* 126 OpSNegate TRI */
    0x80000643u, /* 127 OpFNegate TRI */
    0x80001644u, /* 128 OpIAdd TRII */
    0x80001644u, /* 129 OpFAdd TRII */
    0x80001644u, /* 130 OpISub TRII */
    0x80001644u, /* 131 OpFSub TRII */
    0x80001644u, /* 132 OpIMul TRII */
    0x80001644u, /* 133 OpFMul TRII */
    0x80001644u, /* 134 OpUDiv TRII */
    0x80001644u, /* 135 OpSDiv TRII */
    0x80001644u, /* 136 OpFDiv TRII */
    0x80001644u, /* 137 OpUMod TRII */
    0x80001644u, /* 138 OpSRem TRII */
    0x80001644u, /* 139 OpSMod TRII */
    0x80001644u, /* 140 OpFRem TRII */
    0x80001644u, /* 141 OpFMod TRII */
    0x80001644u, /* 142 OpVectorTimesScalar TRII */
    0x80001644u, /* 143 OpMatrixTimesScalar TRII */
    0x80001644u, /* 144 OpVectorTimesMatrix TRII */
    0x80001644u, /* 145 OpMatrixTimesVector TRII */
    0x80001644u, /* 146 OpMatrixTimesMatrix TRII */
    0x80001644u, /* 147 OpOuterProduct TRII */
    0x80001644u, /* 148 OpDot TRII */
    0x80001644u, /* 149 OpIAddCarry TRII */
    0x80001644u, /* 150 OpISubBorrow TRII */
    0x80001644u, /* 151 OpUMulExtended TRII */
    0x80001644u, /* 152 OpSMulExtended TRII */
    0x00000000u, /* 153 */
    0x80000643u, /* 154 OpAny TRI */
    0x80000643u, /* 155 OpAll TRI */
    0x80000643u, /* 156 OpIsNan TRI */
    0x80000643u, /* 157 OpIsInf TRI */
    0x80000643u, /* 158 OpIsFinite TRI */
    0x80000643u, /* 159 OpIsNormal TRI */
    0x80000643u, /* 160 OpSignBitSet TRI */
    0x80001644u, /* 161 OpLessOrGreater TRII */
    0x80001644u, /* 162 OpOrdered TRII */
    0x80001644u, /* 163 OpUnordered TRII */
    0x80001644u, /* 164 OpLogicalEqual TRII */
    0x80001644u, /* 165 OpLogicalNotEqual TRII */
    0x80001644u, /* 166 OpLogicalOr TRII */
    0x80001644u, /* 167 OpLogicalAnd TRII */
    0x80000643u, /* 168 OpLogicalNot TRI */
    0x80005645u, /* 169 OpSelect TRIII */
    0x80001644u, /* 170 OpIEqual TRII */
    0x80001644u, /* 171 OpINotEqual TRII */
    0x80001644u, /* 172 OpUGreaterThan TRII */
    0x80001644u, /* 173 OpSGreaterThan TRII */
    0x80001644u, /* 174 OpUGreaterThanEqual TRII */
    0x80001644u, /* 175 OpSGreaterThanEqual TRII */
    0x80001644u, /* 176 OpULessThan TRII */
    0x80001644u, /* 177 OpSLessThan TRII */
    0x80001644u, /* 178 OpULessThanEqual TRII */
    0x80001644u, /* 179 OpSLessThanEqual TRII */
    0x80001644u, /* 180 OpFOrdEqual TRII */
    0x80001644u, /* 181 OpFUnordEqual TRII */
    0x80001644u, /* 182 OpFOrdNotEqual TRII */
    0x80001644u, /* 183 OpFUnordNotEqual TRII */
    0x80001644u, /* 184 OpFOrdLessThan TRII */
    0x80001644u, /* 185 OpFUnordLessThan TRII */
    0x80001644u, /* 186 OpFOrdGreaterThan TRII */
    0x80001644u, /* 187 OpFUnordGreaterThan TRII */
    0x80001644u, /* 188 OpFOrdLessThanEqual TRII */
    0x80001644u, /* 189 OpFUnordLessThanEqual TRII */
    0x80001644u, /* 190 OpFOrdGreaterThanEqual TRII */
    0x80001644u, /* 191 OpFUnordGreaterThanEqual TRII */
    0x00000000u, /* 192 */
    0x00000000u, /* 193 */
    0x80001644u, /* 194 OpShiftRightLogical TRII */
    0x80001644u, /* 195 OpShiftRightArithmetic TRII */
    0x80001644u, /* 196 OpShiftLeftLogical TRII */
    0x80001644u, /* 197 OpBitwiseOr TRII */
    0x80001644u, /* 198 OpBitwiseXor TRII */
    0x80001644u, /* 199 OpBitwiseAnd TRII */
    0x80000643u, /* 200 OpNot TRI */
    0x80015646u, /* 201 OpBitFieldInsert TRIIII */
    0x80005645u, /* 202 OpBitFieldSExtract TRIII */
    0x80005645u, /* 203 OpBitFieldUExtract TRIII */
    0x80000643u, /* 204 OpBitReverse TRI */
    0x80000643u, /* 205 OpBitCount TRI */
    0x00000000u, /* 206 */
    0x80000643u, /* 207 OpDPdx TRI */
    0x80000643u, /* 208 OpDPdy TRI */
    0x80000643u, /* 209 OpFwidth TRI */
    0x80000643u, /* 210 OpDPdxFine TRI */
    0x80000643u, /* 211 OpDPdyFine TRI */
    0x80000643u, /* 212 OpFwidthFine TRI */
    0x80000643u, /* 213 OpDPdxCoarse TRI */
    0x80000643u, /* 214 OpDPdyCoarse TRI */
    0x80000643u, /* 215 OpFwidthCoarse TRI */
    0x00000000u, /* 216 */
    0x00000000u, /* 217 */
    0x00000000u, /* 218 OpEmitVertex */
    0x00000000u, /* 219 OpEndPrimitive */
    0x00000041u, /* 220 OpEmitStreamVertex I */
    0x00000041u, /* 221 OpEndStreamPrimitive I */
    0x00000000u, /* 222 */
    0x00000000u, /* 223 */
    0x00000543u, /* 224 OpControlBarrier III */
    0x00000142u, /* 225 OpMemoryBarrier II */
    0x00000000u, /* 226 */
    0x80005645u, /* 227 OpAtomicLoad TRIII */
    0x00001544u, /* 228 OpAtomicStore IIII */
    0x80015646u, /* 229 OpAtomicExchange TRIIII */
    0x80155648u, /* 230 OpAtomicCompareExchange TRIIIIII */
    0x80155648u, /* 231 OpAtomicCompareExchangeWeak TRIIIIII */
    0x80005645u, /* 232 OpAtomicIIncrement TRIII */
    0x80005645u, /* 233 OpAtomicIDecrement TRIII */
    0x80015646u, /* 234 OpAtomicIAdd TRIIII */
    0x80015646u, /* 235 OpAtomicISub TRIIII */
    0x80015646u, /* 236 OpAtomicSMin TRIIII */
    0x80015646u, /* 237 OpAtomicUMin TRIIII */
    0x80015646u, /* 238 OpAtomicSMax TRIIII */
    0x80015646u, /* 239 OpAtomicUMax TRIIII */
    0x80015646u, /* 240 OpAtomicAnd TRIIII */
    0x80015646u, /* 241 OpAtomicOr TRIIII */
    0x80015646u, /* 242 OpAtomicXor TRIIII */
    0x00000000u, /* 243 */
    0x00000000u, /* 244 */
    0x80000252u, /* 245 OpPhi TR*I */
    0x00000143u, /* 246 OpLoopMerge IIL */
    0x00000042u, /* 247 OpSelectionMerge IL */
    0x40000081u, /* 248 OpLabel R */
    0x00000041u, /* 249 OpBranch I */
    0x00000543u, /* 250 OpBranchConditional III*L */
    0x00000142u, /* 251 OpSwitch II*L */
    0x00000000u, /* 252 OpKill */
    0x00000000u, /* 253 OpReturn */
    0x00000041u, /* 254 OpReturnValue I */
    0x00000000u, /* 255 OpUnreachable */
    0x00000042u, /* 256 OpLifetimeStart IL */
    0x00000042u, /* 257 OpLifetimeStop IL */
    0x00000000u, /* 258 */
    0x80155648u, /* 259 OpGroupAsyncCopy TRIIIIII */
    0x00000543u, /* 260 OpGroupWaitEvents III */
    0x80001644u, /* 261 OpGroupAll TRII */
    0x80001644u, /* 262 OpGroupAny TRII */
    0x80005645u, /* 263 OpGroupBroadcast TRIII */
    0x80004645u, /* 264 OpGroupIAdd TRILI */
    0x80004645u, /* 265 OpGroupFAdd TRILI */
    0x80004645u, /* 266 OpGroupFMin TRILI */
    0x80004645u, /* 267 OpGroupUMin TRILI */
    0x80004645u, /* 268 OpGroupSMin TRILI */
    0x80004645u, /* 269 OpGroupFMax TRILI */
    0x80004645u, /* 270 OpGroupUMax TRILI */
    0x80004645u, /* 271 OpGroupSMax TRILI */
    0x00000000u, /* 272 */
    0x00000000u, /* 273 */
    0x80015646u, /* 274 OpReadPipe TRIIII */
    0x80015646u, /* 275 OpWritePipe TRIIII */
    0x80155648u, /* 276 OpReservedReadPipe TRIIIIII */
    0x80155648u, /* 277 OpReservedWritePipe TRIIIIII */
    0x80015646u, /* 278 OpReserveReadPipePackets TRIIII */
    0x80015646u, /* 279 OpReserveWritePipePackets TRIIII */
    0x00001544u, /* 280 OpCommitReadPipe IIII */
    0x00001544u, /* 281 OpCommitWritePipe IIII */
    0x80000643u, /* 282 OpIsValidReserveId TRI */
    0x80005645u, /* 283 OpGetNumPipePackets TRIII */
    0x80005645u, /* 284 OpGetMaxPipePackets TRIII */
    0x80055647u, /* 285 OpGroupReserveReadPipePackets TRIIIII */
    0x80055647u, /* 286 OpGroupReserveWritePipePackets TRIIIII */
    0x00005545u, /* 287 OpGroupCommitReadPipe IIIII */
    0x00005545u, /* 288 OpGroupCommitWritePipe IIIII */
    0x00000000u, /* 289 */
    0x00000000u, /* 290 */
    0x80015646u, /* 291 OpEnqueueMarker TRIIII */
    0x9555565Cu, /* 292 OpEnqueueKernel TRIIIIIIIIII*I */
    0x80055647u, /* 293 OpGetKernelNDrangeSubGroupCount TRIIIII */
    0x80055647u, /* 294 OpGetKernelNDrangeMaxSubGroupSize TRIIIII */
    0x80015646u, /* 295 OpGetKernelWorkGroupSize TRIIII */
    0x80015646u, /* 296 OpGetKernelPreferredWorkGroupSizeMultiple TRIIII */
    0x00000041u, /* 297 OpRetainEvent I */
    0x00000041u, /* 298 OpReleaseEvent I */
    0x80000242u, /* 299 OpCreateUserEvent TR */
    0x80000643u, /* 300 OpIsValidEvent TRI */
    0x00000142u, /* 301 OpSetUserEventStatus II */
    0x00000543u, /* 302 OpCaptureEventProfilingInfo III */
    0x80000242u, /* 303 OpGetDefaultQueue TR */
    0x80005645u, /* 304 OpBuildNDRange TRIII */
    0x80001655u, /* 305 OpImageSparseSampleImplicitLod TRIIL*I */
    0x80001655u, /* 306 OpImageSparseSampleExplicitLod TRIIL*I */
    0x80005656u, /* 307 OpImageSparseSampleDrefImplicitLod TRIIIL*I */
    0x80005656u, /* 308 OpImageSparseSampleDrefExplicitLod TRIIIL*I */
    0x80001655u, /* 309 OpImageSparseSampleProjImplicitLod TRIIL*I */
    0x80001655u, /* 310 OpImageSparseSampleProjExplicitLod TRIIL*I */
    0x80005656u, /* 311 OpImageSparseSampleProjDrefImplicitLod TRIIIL*I */
    0x80005656u, /* 312 OpImageSparseSampleProjDrefExplicitLod TRIIIL*I */
    0x80001655u, /* 313 OpImageSparseFetch TRIIL*I */
    0x80005656u, /* 314 OpImageSparseGather TRIIIL*I */
    0x80005656u, /* 315 OpImageSparseDrefGather TRIIIL*I */
    0x80000643u, /* 316 OpImageSparseTexelsResident TRI */
    0x00000000u, /* 317 OpNoLine */
    0x80005645u, /* 318 OpAtomicFlagTestAndSet TRIII */
    0x00000543u, /* 319 OpAtomicFlagClear III */
    0x80001655u, /* 320 OpImageSparseRead TRIIL*I */
    0x80000643u, /* 321 OpSizeOf TRI */
    0x40000081u, /* 322 OpTypePipeStorage R */
    0x80000245u, /* 323 OpConstantPipeStorage TRLLL */
    0x80000643u, /* 324 OpCreatePipeFromPipeStorage TRI */
    0x80055647u, /* 325 OpGetKernelLocalSizeForSubgroupCount TRIIIII */
    0x80015646u, /* 326 OpGetKernelMaxNumSubgroups TRIIII */
    0x40000081u, /* 327 OpTypeNamedBarrier R */
    0x80000643u, /* 328 OpNamedBarrierInitialize TRI */
    0x00000543u, /* 329 OpMemoryNamedBarrier III */
    0x000000C1u, /* 330 OpModuleProcessed S */
    0x00000042u, /* 331 OpExecutionModeId IL */
    0x00000042u, /* 332 OpDecorateId IL */
    0x80000643u, /* 333 OpGroupNonUniformElect TRI */
    0x80001644u, /* 334 OpGroupNonUniformAll TRII */
    0x80001644u, /* 335 OpGroupNonUniformAny TRII */
    0x80001644u, /* 336 OpGroupNonUniformAllEqual TRII */
    0x80005645u, /* 337 OpGroupNonUniformBroadcast TRIII */
    0x80001644u, /* 338 OpGroupNonUniformBroadcastFirst TRII */
    0x80001644u, /* 339 OpGroupNonUniformBallot TRII */
    0x80001644u, /* 340 OpGroupNonUniformInverseBallot TRII */
    0x80005645u, /* 341 OpGroupNonUniformBallotBitExtract TRIII */
    0x80004645u, /* 342 OpGroupNonUniformBallotBitCount TRILI */
    0x80001644u, /* 343 OpGroupNonUniformBallotFindLSB TRII */
    0x80001644u, /* 344 OpGroupNonUniformBallotFindMSB TRII */
    0x80005645u, /* 345 OpGroupNonUniformShuffle TRIII */
    0x80005645u, /* 346 OpGroupNonUniformShuffleXor TRIII */
    0x80005645u, /* 347 OpGroupNonUniformShuffleUp TRIII */
    0x80005645u, /* 348 OpGroupNonUniformShuffleDown TRIII */
    0x80014646u, /* 349 OpGroupNonUniformIAdd TRILII */
    0x80014646u, /* 350 OpGroupNonUniformFAdd TRILII */
    0x80014646u, /* 351 OpGroupNonUniformIMul TRILII */
    0x80014646u, /* 352 OpGroupNonUniformFMul TRILII */
    0x80014646u, /* 353 OpGroupNonUniformSMin TRILII */
    0x80014646u, /* 354 OpGroupNonUniformUMin TRILII */
    0x80014646u, /* 355 OpGroupNonUniformFMin TRILII */
    0x80014646u, /* 356 OpGroupNonUniformSMax TRILII */
    0x80014646u, /* 357 OpGroupNonUniformUMax TRILII */
    0x80014646u, /* 358 OpGroupNonUniformFMax TRILII */
    0x80014646u, /* 359 OpGroupNonUniformBitwiseAnd TRILII */
    0x80014646u, /* 360 OpGroupNonUniformBitwiseOr TRILII */
    0x80014646u, /* 361 OpGroupNonUniformBitwiseXor TRILII */
    0x80014646u, /* 362 OpGroupNonUniformLogicalAnd TRILII */
    0x80014646u, /* 363 OpGroupNonUniformLogicalOr TRILII */
    0x80014646u, /* 364 OpGroupNonUniformLogicalXor TRILII */
    0x80005645u, /* 365 OpGroupNonUniformQuadBroadcast TRIII */
    0x80005645u, /* 366 OpGroupNonUniformQuadSwap TRIII */
    0x00000000u, /* 367 */
    0x00000000u, /* 368 */
    0x00000000u, /* 369 */
    0x00000000u, /* 370 */
    0x00000000u, /* 371 */
    0x00000000u, /* 372 */
    0x00000000u, /* 373 */
    0x00000000u, /* 374 */
    0x00000000u, /* 375 */
    0x00000000u, /* 376 */
    0x00000000u, /* 377 */
    0x00000000u, /* 378 */
    0x00000000u, /* 379 */
    0x00000000u, /* 380 */
    0x00000000u, /* 381 */
    0x00000000u, /* 382 */
    0x00000000u, /* 383 */
    0x00000000u, /* 384 */
    0x00000000u, /* 385 */
    0x00000000u, /* 386 */
    0x00000000u, /* 387 */
    0x00000000u, /* 388 */
    0x00000000u, /* 389 */
    0x00000000u, /* 390 */
    0x00000000u, /* 391 */
    0x00000000u, /* 392 */
    0x00000000u, /* 393 */
    0x00000000u, /* 394 */
    0x00000000u, /* 395 */
    0x00000000u, /* 396 */
    0x00000000u, /* 397 */
    0x00000000u, /* 398 */
    0x00000000u, /* 399 */
    /* END GENERATED */
};

/* Coding state shared by sbk_spirv_pack and sbk__spirv_unpack_body. */
typedef struct sbk__spirv_state {
  uint32_t max_id;      /* the largest result ID so far (updated after each instruction) */
  uint32_t first_local; /* inside functions (from the first OpFunction on): IDs from here are local */
  uint32_t next_local;  /* the result ID the next result inside functions must have */
  int in_functions;
} sbk__spirv_state;

/* OpFunction (opcode 54), the first one: function-local IDs start after the largest result ID so far. Both
 * directions call it before an instruction's operands. */
static SBK__INLINE void sbk__spirv_begin_instruction(sbk__spirv_state* st, uint32_t opcode) {
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

/* An opcode's operand kinds, read once per instruction: the kinds of its first `fixed_count` operands (2 bits
 * each, the first lowest), then `rest` for every further word. A string (S) holds its kind until its last word,
 * so the position `at` advances per operand, not per word. */
typedef struct sbk__spirv_kinds {
  uint32_t fixed;
  uint32_t fixed_count;
  uint32_t rest;
} sbk__spirv_kinds;

static SBK__INLINE sbk__spirv_kinds sbk__spirv_kinds_of(uint32_t opcode) {
  sbk__spirv_kinds k;
  const uint32_t word = opcode < SBK__SPIRV_OPCODES_WITH_KINDS ? sbk__spirv_operand_kinds[opcode] : 0u;
  k.fixed_count = word & 0xFu;
  k.rest = (word >> 4) & 3u;
  k.fixed = (word >> 6) & 0xFFFFFFu;
  return k;
}

static SBK__INLINE uint32_t sbk__spirv_kind(const sbk__spirv_kinds* kinds, size_t at) {
  return at < kinds->fixed_count ? (kinds->fixed >> (2u * at)) & 3u : kinds->rest;
}

/* The word position of an instruction's result ID: 1 or 2 (the table's first or second operand is R; the
 * grammar puts a result ID nowhere else), or 0 when the opcode has none or `count` words cannot hold it. */
static SBK__INLINE uint32_t sbk__spirv_result_position(uint32_t opcode, uint32_t count) {
  const uint32_t position = opcode < SBK__SPIRV_OPCODES_WITH_KINDS ? sbk__spirv_operand_kinds[opcode] >> 30 : 0u;
  return position < count ? position : 0u;
}

static int sbk__word_has_zero_byte(uint32_t w) {
  return (w & 0xFFu) == 0 || (w & 0xFF00u) == 0 || (w & 0xFF0000u) == 0 || (w & 0xFF000000u) == 0;
}

/* An instruction's head codes count * 512 + its opcode; opcodes from 511 on as count * 512 + 511, then the
 * opcode minus 511. */
#define SBK__SPIRV_OPCODE_ESCAPE 511u

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
    const sbk__spirv_kinds kinds = sbk__spirv_kinds_of(opcode);
    sbk__spirv_state next = st;
    uint32_t result_at, base, j;
    size_t at = 0;
    if (count == 0 || count > word_count - i) break; /* not an instruction: the rest goes raw */
    sbk__spirv_begin_instruction(&next, opcode);
    result_at = sbk__spirv_result_position(opcode, count);
    /* Inside functions a result is implicit: it must be the next local ID, or the rest goes raw. */
    if (next.in_functions && result_at != 0 && words[i + result_at] != next.next_local) break;
    sbk__put_varint(&w, (uint64_t)count * 512u +
                            (opcode < SBK__SPIRV_OPCODE_ESCAPE ? opcode : SBK__SPIRV_OPCODE_ESCAPE));
    if (opcode >= SBK__SPIRV_OPCODE_ESCAPE) sbk__put_varint(&w, opcode - SBK__SPIRV_OPCODE_ESCAPE);
    base = next.in_functions ? next.next_local : next.max_id + 1u;
    for (j = 1; j < count; ++j) {
      const uint32_t word = words[i + j];
      const uint32_t k = sbk__spirv_kind(&kinds, at);
      if (k != SBK__SPIRV_KIND_S || sbk__word_has_zero_byte(word)) ++at;
      if (j == result_at && next.in_functions) {
        ++base; /* implicit */
      } else if (k == SBK__SPIRV_KIND_I && (next.in_functions ? word >= next.first_local : word > next.max_id)) {
        const uint32_t d = base - word;
        const uint32_t zigzag = (d & 0x80000000u) ? ((~d) << 1) | 1u : d << 1;
        sbk__put_varint(&w, (uint64_t)zigzag * 2u + 1u);
      } else {
        sbk__put_varint(&w, (uint64_t)word * 2u);
      }
    }
    if (next.in_functions)
      next.next_local = base;
    else if (result_at != 0 && words[i + result_at] > next.max_id)
      next.max_id = words[i + result_at];
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

/* Reads the varint at `in` (at most 5 bytes, 35 bits; `end` bounds it) into *v: where the next field starts,
 * or NULL when it runs past the end or past 5 bytes. */
static SBK__INLINE const uint8_t* sbk__spirv_read_varint(const uint8_t* in, const uint8_t* end, uint64_t* v) {
  unsigned shift;
  uint64_t value = 0;
  for (shift = 0;; shift += 7u) {
    uint8_t byte;
    if (in >= end || shift > 28u) return NULL;
    byte = *in++;
    value |= (uint64_t)(byte & 0x7Fu) << shift;
    if (!(byte & 0x80u)) break;
  }
  *v = value;
  return in;
}

/* Stores w little-endian. On a little-endian host that is the word's own bytes: one store (the byte-wise form
 * costs GCC a reassembly of the word on this hot path). */
static SBK__INLINE void sbk__spirv_store_word(uint8_t* p, uint32_t w) {
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &w, sizeof w);
#else
  p[0] = (uint8_t)w;
  p[1] = (uint8_t)(w >> 8);
  p[2] = (uint8_t)(w >> 16);
  p[3] = (uint8_t)(w >> 24);
#endif
}

/* Reads the varint at `in` whose first byte has been seen to continue, with no bound: the caller has shown
 * that 5 bytes are there. Where the next field starts, or NULL past 5 bytes. */
static SBK__INLINE const uint8_t* sbk__spirv_read_varint_unbounded(const uint8_t* in, uint64_t* v) {
  uint64_t value = (uint64_t)(*in++ & 0x7Fu);
  unsigned shift;
  for (shift = 7u;; shift += 7u) {
    const uint8_t byte = *in++;
    value |= (uint64_t)(byte & 0x7Fu) << shift;
    if (!(byte & 0x80u)) break;
    if (shift == 28u) return NULL;
  }
  *v = value;
  return in;
}

/* An operand word from its code v (below 2^33, checked by the caller): v / 2 when v is even, else the
 * reference base minus the zigzag-decoded distance v / 2. */
static SBK__INLINE uint32_t sbk__spirv_operand(uint64_t v, uint32_t base) {
  const uint32_t u = (uint32_t)(v >> 1);
  return (v & 1u) ? base - ((u >> 1) ^ (0u - (u & 1u))) : u;
}
/* Decodes `words` operand words at `in` into *out_p, which advances, each against the reference base `base`.
 * `checked` is a constant at each call, so that each use compiles to its own loop: every read is held against
 * in_end and, in place, every store against the read position. Unchecked is for an instruction the caller has
 * shown fits: at least 5 bytes to read per word and, in place, all its words below the read position, so no
 * store can overtake a read. Returns where the next field starts, or NULL when the input is corrupt. */
static SBK__INLINE const uint8_t* sbk__spirv_unpack_operands(const uint8_t* in, const uint8_t* in_end,
                                                            uint8_t** out_p, uint32_t words, uint32_t base,
                                                            int checked, int in_place) {
  uint8_t* out = *out_p;
  uint8_t* const end = out + 4u * (size_t)words;
  uint64_t v;
  while (out != end) {
    if (checked) {
      if (in < in_end && *in < 0x80u)
        v = *in++;
      else if ((in = sbk__spirv_read_varint(in, in_end, &v)) == NULL)
        return NULL;
      if (v > 0x1FFFFFFFFu || (in_place && out + 4 > in)) return NULL;
    } else if (*in < 0x80u) { /* most operands are one or two bytes, read here without a call */
      v = *in++;
    } else if (in[1] < 0x80u) {
      v = (uint64_t)(in[0] & 0x7Fu) | (uint64_t)in[1] << 7;
      in += 2;
    } else if ((in = sbk__spirv_read_varint_unbounded(in, &v)) == NULL || v > 0x1FFFFFFFFu) {
      return NULL;
    }
    sbk__spirv_store_word(out, sbk__spirv_operand(v, base));
    out += 4;
  }
  *out_p = out;
  return in;
}

/* Decodes the operands (words 1 to count-1) of one instruction whose result is word `result_at` (0: none),
 * implicit inside functions; `in_functions` (st->in_functions), `checked` and `in_place` are constants at each
 * call, as for sbk__spirv_unpack_operands. */
static SBK__INLINE const uint8_t* sbk__spirv_unpack_instruction(const uint8_t* in, const uint8_t* in_end,
                                                               uint8_t** out_p, uint32_t count, uint32_t result_at,
                                                               sbk__spirv_state* st, int in_functions, int checked,
                                                               int in_place) {
  if (in_functions) {
    uint32_t base = st->next_local;
    if (result_at != 0) {
      in = sbk__spirv_unpack_operands(in, in_end, out_p, result_at - 1u, base, checked, in_place);
      if (in == NULL || (checked && in_place && *out_p + 4 > in)) return NULL;
      sbk__spirv_store_word(*out_p, base++); /* implicit */
      *out_p += 4;
    }
    in = sbk__spirv_unpack_operands(in, in_end, out_p, count - 1u - result_at, base, checked, in_place);
    st->next_local = base;
  } else {
    const uint8_t* const first = *out_p;
    in = sbk__spirv_unpack_operands(in, in_end, out_p, count - 1u, st->max_id + 1u, checked, in_place);
    if (in != NULL && result_at != 0) {
      const uint32_t result = sbk__get_u32(first + 4u * (result_at - 1u));
      /* A select, not a branch: results outside functions mostly grow, but not always (a branch here was
       * mispredicted often enough to cost 5% of the decoder). */
      st->max_id ^= (st->max_id ^ result) & (0u - (uint32_t)(result > st->max_id));
    }
  }
  return in;
}

/* The most words an instruction may have for sbk__spirv_unpack_run to decode it. */
#define SBK__SPIRV_RUN_MAX_COUNT 16u

/* Decodes instructions at *in_p into *out_p for as long as each is a common one: a two-byte head, an opcode
 * with a row in the operand table, at most SBK__SPIRV_RUN_MAX_COUNT words, and room for the longest such
 * instruction on both sides (every operand 5 bytes to read; its words to write below out_end and, in place,
 * below the read position). Stops with *in_p and *out_p at the first instruction that is not one (or, outside
 * functions, at the first OpFunction) and leaves it to the general path. Per instruction one check of the room
 * and a few of the head, where the general path checks every field against what is left. Returns 0, or 1 when
 * an operand is corrupt. `in_functions` and `in_place` are constants at each call; in place, the input must
 * end where the output does (sbk_spirv_unpack_in_place), so that room to read and room behind the read
 * position imply room to write. */
static SBK__INLINE int sbk__spirv_unpack_run(const uint8_t** in_p, const uint8_t* in_end, uint8_t** out_p,
                                            const uint8_t* out_end, sbk__spirv_state* st, int in_functions,
                                            int in_place) {
  const ptrdiff_t in_room = 2 + 5 * ((ptrdiff_t)SBK__SPIRV_RUN_MAX_COUNT - 1);
  const ptrdiff_t out_room = 4 * (ptrdiff_t)SBK__SPIRV_RUN_MAX_COUNT;
  const uint8_t* in = *in_p;
  uint8_t* out = *out_p;
  while (in_end - in >= in_room && (in_place ? in - out >= out_room : out_end - out >= out_room)) {
    uint32_t head, count, opcode, result_at;
    if ((in[0] & 0x80u) == 0 || (in[1] & 0x80u) != 0) break;
    head = (uint32_t)(in[0] & 0x7Fu) | (uint32_t)in[1] << 7;
    count = head >> 9;
    opcode = head & SBK__SPIRV_OPCODE_ESCAPE;
    if (count - 1u >= SBK__SPIRV_RUN_MAX_COUNT || opcode >= SBK__SPIRV_OPCODES_WITH_KINDS) break;
    if (!in_functions && opcode == 54u) break;
    in += 2;
    result_at = sbk__spirv_result_position(opcode, count);
    sbk__spirv_store_word(out, count << 16 | opcode);
    out += 4;
    in = sbk__spirv_unpack_instruction(in, in_end, &out, count, result_at, st, in_functions, 0, in_place);
    if (in == NULL) return 1;
  }
  *in_p = in;
  *out_p = out;
  return 0;
}

/* Decodes `packed_size` bytes at `src` into exactly raw_size bytes at `dst`. `in_place` (a constant at each
 * call, so the check folds away where it is 0): src lies inside dst's buffer at its end, and a word is written
 * only over bytes already read. Most instructions go through sbk__spirv_unpack_run, without per-operand bounds
 * checks; the others (long ones, rare opcodes, a module's first OpFunction and its tail) check every field here. */
static SBK__INLINE sbk_result sbk__spirv_unpack_body(const uint8_t* src, size_t packed_size, uint8_t* dst,
                                                     size_t raw_size, int in_place) {
  const uint8_t* in = src;
  const uint8_t* const in_end = src + packed_size;
  uint8_t* out = dst;
  uint8_t* const out_end = dst + raw_size;
  sbk__spirv_state st;
  uint64_t v;
  int header;
  if (raw_size % 4u != 0 || raw_size < 20u || packed_size == 0) return SBK_ERROR_CORRUPT;
  memset(&st, 0, sizeof st);
/* Reads the next varint into v, or fails. */
#define SBK__READ_VARINT()                                                                    \
  do {                                                                                        \
    if (in < in_end && *in < 0x80u)                                                           \
      v = *in++;                                                                              \
    else if ((in = sbk__spirv_read_varint(in, in_end, &v)) == NULL)                           \
      return SBK_ERROR_CORRUPT;                                                               \
  } while (0)
/* Writes word w (its room below out_end checked by the caller), in place only over bytes already read. */
#define SBK__WRITE_WORD(w)                                                                    \
  do {                                                                                        \
    if (in_place && out + 4 > in) return SBK_ERROR_CORRUPT;                                   \
    sbk__spirv_store_word(out, (w));                                                          \
    out += 4;                                                                                 \
  } while (0)
  for (header = 0; header < 5; ++header) {
    SBK__READ_VARINT();
    if (v > 0xFFFFFFFFu) return SBK_ERROR_CORRUPT;
    SBK__WRITE_WORD((uint32_t)v);
  }
  while (out < out_end) {
    size_t words_left;
    uint32_t opcode, count, result_at;
    if (st.in_functions ? sbk__spirv_unpack_run(&in, in_end, &out, out_end, &st, 1, in_place)
                        : sbk__spirv_unpack_run(&in, in_end, &out, out_end, &st, 0, in_place))
      return SBK_ERROR_CORRUPT;
    if (out == out_end) break;
    words_left = (size_t)(out_end - out) / 4u;
    SBK__READ_VARINT();
    if (v == 0) { /* escape: the rest raw */
      SBK__READ_VARINT();
      if (v != words_left || (size_t)(in_end - in) < 4u * words_left) return SBK_ERROR_CORRUPT;
      while (out < out_end) {
        const uint32_t w = sbk__get_u32(in);
        in += 4;
        SBK__WRITE_WORD(w);
      }
      break;
    }
    if (v > 0xFFFFu * 512u + SBK__SPIRV_OPCODE_ESCAPE) return SBK_ERROR_CORRUPT;
    count = (uint32_t)(v >> 9);
    opcode = (uint32_t)v & SBK__SPIRV_OPCODE_ESCAPE;
    if ((size_t)count - 1u >= words_left) return SBK_ERROR_CORRUPT; /* 0, or past the module's end */
    if (opcode == SBK__SPIRV_OPCODE_ESCAPE) {
      SBK__READ_VARINT();
      if (v > 0xFFFFu - SBK__SPIRV_OPCODE_ESCAPE) return SBK_ERROR_CORRUPT;
      opcode += (uint32_t)v;
    }
    /* From here the instruction's `count` words fit below out_end. */
    sbk__spirv_begin_instruction(&st, opcode);
    result_at = sbk__spirv_result_position(opcode, count);
    SBK__WRITE_WORD(count << 16 | opcode);
    in = st.in_functions ? sbk__spirv_unpack_instruction(in, in_end, &out, count, result_at, &st, 1, 1, in_place)
                         : sbk__spirv_unpack_instruction(in, in_end, &out, count, result_at, &st, 0, 1, in_place);
    if (in == NULL) return SBK_ERROR_CORRUPT;
  }
#undef SBK__READ_VARINT
#undef SBK__WRITE_WORD
  return in == in_end ? SBK_OK : SBK_ERROR_CORRUPT;
}

SBK_API sbk_result sbk_spirv_unpack(const void* packed, size_t packed_size, void* out, size_t raw_size) {
  SBK_ASSERT((packed != NULL || packed_size == 0) && (out != NULL || raw_size == 0));
  return sbk__spirv_unpack_body((const uint8_t*)packed, packed_size, (uint8_t*)out, raw_size, 0);
}

SBK_API sbk_result sbk_spirv_unpack_in_place(void* buffer, size_t raw_size, size_t packed_size) {
  SBK_ASSERT(buffer != NULL || raw_size == 0);
  if (packed_size > raw_size) return SBK_ERROR_CORRUPT;
  return sbk__spirv_unpack_body((const uint8_t*)buffer + (raw_size - packed_size), packed_size, (uint8_t*)buffer,
                                raw_size, 1);
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_IMPLEMENTATION */
