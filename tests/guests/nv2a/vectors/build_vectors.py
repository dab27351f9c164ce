#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the nv2a vector files of this folder (shaderbake-vectors/1).

The JSON files are the contract; this script is how they were written, kept so that a reader can see
each program in decoded form. Every expected value below was derived by hand (the "check" text of its
case) and is NOT computed here: this script never runs an evaluator. check_reference.py confirms the
hand values against reference_nv2a.py afterwards.

Usage: build_vectors.py [OUTPUT_DIR]   (default: the folder of this script)
"""

import json
import os
import re
import sys

# Registers, mappings and ops, spelled as in guests/nv2a/README.md (Semantics).
ZERO, C0, C1, FOG, V0, V1 = 0, 1, 2, 3, 4, 5
T0, T1, T2, T3, R0, R1 = 8, 9, 10, 11, 12, 13
SUM14, EF15 = 14, 15
UI, INV, EXPN, EXPNEG, HBN, HBNEG, SID, SNEG = range(8)
OP_NONE, OP_BIAS, OP_X2, OP_BIAS_X2, OP_X4, OP_HALF = 0, 1, 2, 3, 4, 6


def inp(reg, alpha=False, m=UI):
    """One input byte: bits 0-3 register, bit 4 alpha, bits 5-7 mapping."""
    return reg | (0x10 if alpha else 0) | (m << 5)


ONE = inp(ZERO, m=INV)   # 1 - clamp(0, 0, 1) = 1, in both portions (zero.b is 0 too)


def ins(a=0, b=0, c=0, d=0):
    return a << 24 | b << 16 | c << 8 | d


def out(ab=0, cd=0, s=0, op=OP_NONE, ab_dot=False, cd_dot=False, mux=False, ab_b2a=False, cd_b2a=False):
    return (cd | ab << 4 | s << 8 | int(cd_dot) << 12 | int(ab_dot) << 13 | int(mux) << 14 | op << 15
            | int(cd_b2a) << 18 | int(ab_b2a) << 19)


def fin0(a=0, b=0, c=0, d=0):
    return ins(a, b, c, d)


def fin1(e=0, f=0, g=0, flags=0):
    return ins(e, f, g, flags)


def hx(w):
    return "0x%08X" % w


NOP = (0, 0, 0, 0)   # a stage that reads zero and writes nothing


def copy_stage(reg, dst=R0, op=OP_NONE, m=UI):
    """rgb: dst.rgb = op(map(reg.rgb) * 1); alpha: dst.a = op(map(reg.a) * 1)."""
    return (ins(inp(reg, m=m), ONE), out(ab=dst, op=op), ins(inp(reg, True, m=m), ONE), out(ab=dst, op=op))


FINAL_R0 = (fin0(d=R0), fin1(g=inp(R0, True)))   # rgb = max(0, r0.rgb), alpha = max(0, r0.a)
FINAL_R1 = (fin0(d=R1), fin1(g=inp(R1, True)))


def case(name, cc, stages, final, rgba8, check, provenance, discard=False, v0=0, v1=0,
         textures=(0, 0, 0, 0), fog_color=0, fog_factor=1.0, c0=(0,), c1=(0,), final_c0=0, final_c1=0,
         alpha_ref=0, modes=("none",) * 4, enabled=(False,) * 4, alpha_test=None):
    assert isinstance(check, str) and check
    return {
        "name": name,
        "program": {
            "combiner_control": hx(cc),
            "rgb_inputs": [hx(s[0]) for s in stages],
            "rgb_outputs": [hx(s[1]) for s in stages],
            "alpha_inputs": [hx(s[2]) for s in stages],
            "alpha_outputs": [hx(s[3]) for s in stages],
            "final_inputs": [hx(final[0]), hx(final[1])],
            "texture_modes": list(modes),
            "texture_enabled": list(enabled),
            "alpha_test": alpha_test or {"enabled": False, "func": "always"},
        },
        "inputs": {
            "v0": hx(v0), "v1": hx(v1), "textures": [hx(t) for t in textures], "fog_color": hx(fog_color),
            "fog_factor": fog_factor, "c0": [hx(c) for c in c0], "c1": [hx(c) for c in c1],
            "final_c0": hx(final_c0), "final_c1": hx(final_c1), "alpha_ref": alpha_ref,
        },
        "expect": {"rgba8": list(rgba8), "discard": discard, "tolerance": 1},
        "provenance": provenance,
        "check": check,
    }


SEMANTICS = "nv2a semantics (guests/nv2a/README.md)"
NVRC = "NV_register_combiners"

# ---------------------------------------------------------------------------------------------------
# output_ops.json: every output op on both portions (stage 0 copies v0 into r0 through the op).
# ---------------------------------------------------------------------------------------------------


def op_case(name, op, v0, rgba8, check):
    return case(name, 0x1, [copy_stage(V0, op=op)], FINAL_R0, rgba8, check,
                SEMANTICS + ": ops none, bias(-128/255), x2, (x-bias)*2, x4, x0.5; out = clamp((x+bias)*scale,-1,1)",
                v0=v0)


OUTPUT_OPS = [
    op_case("op_none_rgb_and_alpha", OP_NONE, 0x66996633, [153, 102, 51, 102],
            "v0=0x66996633: r0 = v0*1 = (153,102,51 | a 102)/255; op 0 leaves it; final D=r0, G=r0.a"),
    op_case("op_bias_rgb_and_alpha", OP_BIAS, 0xE6FFC0A0, [127, 64, 32, 102],
            "v0=(255,192,160 | a 230); x - 128/255: r 255-128=127, g 192-128=64, b 160-128=32, a 230-128=102"),
    op_case("op_x2_rgb_and_alpha", OP_X2, 0x40604020, [192, 128, 64, 128],
            "v0=(96,64,32 | a 64); x2: r 192, g 128, b 64, a 128"),
    op_case("op_bias_x2_rgb_and_alpha", OP_BIAS_X2, 0xC0E0C0A0, [192, 128, 64, 128],
            "v0=(224,192,160 | a 192); (x-128/255)*2: r (224-128)*2=192, g (192-128)*2=128, "
            "b (160-128)*2=64, a (192-128)*2=128"),
    op_case("op_x4_rgb_and_alpha", OP_X4, 0x30302010, [192, 128, 64, 192],
            "v0=(48,32,16 | a 48); x4: r 192, g 128, b 64, a 192"),
    op_case("op_x0_5_rgb_and_alpha", OP_HALF, 0xC8FEC080, [127, 96, 64, 100],
            "v0=(254,192,128 | a 200); x0.5: r 127, g 96, b 64, a 100 (even inputs: no rounding tie)"),
    op_case("op_x2_saturates_at_one", OP_X2, 0xFF99CC66, [255, 255, 204, 255],
            "v0=(153,204,102 | a 255); x2: r 306->clamp 255, g 408->255, b 204, a 510->255"),
    case("op_bias_result_stays_signed", 0x2,
         [copy_stage(V0, op=OP_BIAS), copy_stage(R0, m=SNEG)], FINAL_R0, [64, 32, 0, 96],
         "v0=(64,96,128 | a 32); stage0 bias: r0 = (64-128, 96-128, 128-128 | 32-128)/255 = (-64,-32,0 | -96); "
         "stage1 r0 = -r0 (signed_negate) = (64,32,0 | 96)",
         SEMANTICS + ": registers hold signed [-1,1] values; bias 128/255", v0=0x20406080),
    case("ops_are_per_portion", 0x1,
         [(ins(inp(V0), ONE), out(ab=R0, op=OP_X4), ins(inp(V0, True), ONE), out(ab=R0, op=OP_HALF))],
         FINAL_R0, [192, 128, 64, 100],
         "v0=(48,32,16 | a 200); rgb op x4: (192,128,64); alpha op x0.5: 100",
         SEMANTICS + ": the rgb and alpha output words each carry their own op", v0=0xC8302010),
    case("op_applies_to_cd_and_sum", 0x1,
         [(ins(inp(V0), ONE, inp(V1), ONE), out(cd=R1, s=R0, op=OP_X2),
           ins(inp(V0, True), ONE, inp(V1, True), ONE), out(cd=R1, s=R0, op=OP_X2))],
         (fin0(d=R0), fin1(g=inp(R1, True))), [96, 96, 112, 64],
         "v0=(16,32,48 | a 16), v1=(32,16,8 | a 32); SUM x2 -> r0.rgb = ((16+32)*2, (32+16)*2, (48+8)*2) = "
         "(96,96,112); CD x2 -> r1.a = 32*2 = 64; final D=r0, G=r1.a",
         SEMANTICS + ": the op applies to every output of the portion (AB, CD and SUM)",
         v0=0x10102030, v1=0x20201008),
    case("op_bias_is_128_over_255", 0x3,
         [copy_stage(V0, op=OP_BIAS), copy_stage(R0, op=OP_X4, m=SID), copy_stage(R0, op=OP_X4, m=SID)],
         FINAL_R0, [0, 0, 0, 0],
         "v0=(128,128,128 | a 128); stage0 bias: 128/255 - 128/255 = 0 exactly; stages 1,2 x4: 0. "
         "(With a bias of exactly 0.5: 0.5/255 -> x4 -> x4 = 8/255 -> 8, outside tolerance.)",
         SEMANTICS + ": 'Hardware evidence: the bias is 128/255' (this case depends on that value)",
         v0=0x80808080),
]

# ---------------------------------------------------------------------------------------------------
# clamp_order.json: one clamp, after bias and scale; SUM from unclamped, unscaled products.
# ---------------------------------------------------------------------------------------------------

SUM_V0_V1 = ins(inp(V0), ONE, inp(V1), ONE)
SUM_V0A_V1A = ins(inp(V0, True), ONE, inp(V1, True), ONE)
CLAMP_ORDER = [
    case("sum_above_one_then_bias_clamps_once", 0x1,
         [(SUM_V0_V1, out(s=R0, op=OP_BIAS), SUM_V0A_V1A, out(s=R0, op=OP_BIAS))], FINAL_R0,
         [229, 229, 229, 229],
         "v0=204/255, v1=153/255 (all channels); SUM = 357/255 = 1.4; bias: (357-128)/255 = 229/255 -> 229. "
         "Clamping SUM to 1 before the bias would give 127",
         SEMANTICS + ": every output = clamp((x + bias) * scale, -1, 1): one clamp, after bias and scale",
         v0=0xCCCCCCCC, v1=0x99999999),
    case("sum_above_one_then_x0_5_clamps_once", 0x1,
         [(SUM_V0_V1, out(s=R0, op=OP_HALF), SUM_V0A_V1A, out(s=R0, op=OP_HALF))], FINAL_R0,
         [179, 179, 179, 179],
         "v0=204, v1=154 (all channels); SUM = 358/255; x0.5 = 179/255 -> 179. Clamp first would give 128",
         SEMANTICS + ": one clamp, after bias and scale", v0=0xCCCCCCCC, v1=0x9A9A9A9A),
    case("x4_clamps_to_one_before_next_stage", 0x2,
         [copy_stage(V0, op=OP_X4), copy_stage(R0, op=OP_BIAS, m=SID)], FINAL_R0, [127, 127, 127, 127],
         "v0=77 (all channels); stage0 x4: 308/255 -> clamp 1; stage1 r0 - 128/255 = 127/255 -> 127. "
         "Without the stage-0 clamp: (308-128) = 180",
         SEMANTICS + ": output clamp to [-1,1] at every stage", v0=0x4D4D4D4D),
    case("negative_x4_clamps_to_minus_one", 0x2,
         [copy_stage(V0, op=OP_X4, m=SNEG), copy_stage(R0, op=OP_BIAS, m=SNEG)], FINAL_R0,
         [127, 127, 127, 127],
         "v0=77; stage0 -77*4/255 = -308/255 -> clamp -1; stage1 -(-1) - 128/255 = 127/255 -> 127. "
         "Without the clamp at -1: 180",
         SEMANTICS + ": output clamp to [-1,1]", v0=0x4D4D4D4D),
    case("negative_sum_then_x0_5_clamps_once", 0x2,
         [(ins(inp(V0, m=SNEG), ONE, inp(V1, m=SNEG), ONE), out(s=R0, op=OP_HALF),
           ins(inp(V0, True, SNEG), ONE, inp(V1, True, SNEG), ONE), out(s=R0, op=OP_HALF)),
          copy_stage(R0, m=SNEG)], FINAL_R0, [179, 179, 179, 179],
         "v0=204, v1=154; stage0 SUM = -(204+154)/255 = -358/255; x0.5 = -179/255 (no clamp needed); "
         "stage1 negate: 179. Clamping -1.40 to -1 before x0.5 would give 128",
         SEMANTICS + ": one clamp, after bias and scale", v0=0xCCCCCCCC, v1=0x9A9A9A9A),
    case("sum_uses_unscaled_products_x4", 0x1,
         [(ins(inp(V0), ONE, inp(V1, m=SNEG), ONE), out(ab=R1, s=R0, op=OP_X4),
           ins(inp(V0, True), ONE, inp(V1, True, SNEG), ONE), out(ab=R1, s=R0, op=OP_X4))], FINAL_R0,
         [100, 100, 100, 100],
         "v0=153, v1=128 (all channels); AB = 153/255, CD = -128/255; SUM = 25/255; x4 -> 100/255 -> 100. "
         "(AB output written to r1 is clamp(612/255)=1; summing clamped scaled outputs 1 + -1 would give 0)",
         SEMANTICS + ": SUM = AB+CD computed from the unclamped, unscaled products",
         v0=0x99999999, v1=0x80808080),
    case("sum_uses_unbiased_products", 0x1,
         [(SUM_V0_V1, out(s=R0, op=OP_BIAS), SUM_V0A_V1A, out(s=R0, op=OP_BIAS))], FINAL_R0,
         [26, 26, 26, 26],
         "v0=v1=77; SUM = 154/255; bias: (154-128)/255 = 26/255 -> 26. Summing biased products "
         "(77-128)+(77-128) < 0 would give 0",
         SEMANTICS + ": SUM = AB+CD computed from the unclamped, unscaled products",
         v0=0x4D4D4D4D, v1=0x4D4D4D4D),
]

# ---------------------------------------------------------------------------------------------------
# mux.json: AB = v0, CD = v1 (both portions); MUX -> r0; spare0.a at stage 0 entry = t0.a.
# ---------------------------------------------------------------------------------------------------

MUX_STAGE = (SUM_V0_V1, out(s=R0, mux=True), SUM_V0A_V1A, out(s=R0, mux=True))
MUX_V0, MUX_V1 = 0x33336699, 0xCCCC9966
AB_PICK, CD_PICK = [51, 102, 153, 51], [204, 153, 102, 204]
T0_ON = (("project2d", "none", "none", "none"), (True, False, False, False))


def mux_case(name, cc, t0_alpha, pick, check, provenance):
    return case(name, cc, [MUX_STAGE], FINAL_R0, AB_PICK if pick == "AB" else CD_PICK,
                "AB = v0 = (51,102,153 | 51), CD = v1 = (204,153,102 | 204); " + check, provenance,
                v0=MUX_V0, v1=MUX_V1, textures=(t0_alpha << 24, 0, 0, 0), modes=T0_ON[0], enabled=T0_ON[1])


MUX_MSB = SEMANTICS + ": MUX = CD if spare0.a >= 0.5 (MSB mode, COMBINECTL bit 8)"
MUX_LSB = SEMANTICS + ": MUX = CD if bit 0 of the 8-bit spare0.a is set (LSB mode, COMBINECTL bit 8 clear)"
MUX = [
    mux_case("msb_spare0a_127_selects_ab", 0x101, 0x7F, "AB",
             "r0.a = t0.a = 127/255 = 0.498 < 0.5 -> AB", MUX_MSB),
    mux_case("msb_spare0a_128_selects_cd", 0x101, 0x80, "CD",
             "r0.a = t0.a = 128/255 = 0.502 >= 0.5 -> CD", MUX_MSB),
    mux_case("msb_spare0a_0xfe_selects_cd", 0x101, 0xFE, "CD",
             "r0.a = 254/255 >= 0.5 -> CD (LSB mode would pick AB: bit 0 clear)", MUX_MSB),
    mux_case("lsb_spare0a_0x81_selects_cd", 0x001, 0x81, "CD",
             "r0.a byte = 0x81, bit 0 set -> CD", MUX_LSB),
    mux_case("lsb_spare0a_0x82_selects_ab", 0x001, 0x82, "AB",
             "r0.a byte = 0x82, bit 0 clear -> AB", MUX_LSB),
    mux_case("lsb_spare0a_0x7f_selects_cd", 0x001, 0x7F, "CD",
             "r0.a byte = 0x7F, bit 0 set -> CD (MSB mode would pick AB)", MUX_LSB),
    mux_case("lsb_spare0a_0x80_selects_ab", 0x001, 0x80, "AB",
             "r0.a byte = 0x80, bit 0 clear -> AB (MSB mode would pick CD)", MUX_LSB),
    mux_case("lsb_spare0a_0x01_selects_cd", 0x001, 0x01, "CD",
             "r0.a byte = 0x01, bit 0 set -> CD (MSB mode would pick AB)", MUX_LSB),
    case("lsb_t0_disabled_spare0a_one_selects_cd", 0x001, [MUX_STAGE], FINAL_R0, CD_PICK,
         "t0 disabled reads (0,0,0,1) so r0.a = 1 -> byte 0xFF, bit 0 set -> CD = v1",
         MUX_LSB + "; initial r0 = (0,0,0,t0.a), disabled stage reads (0,0,0,1)",
         v0=MUX_V0, v1=MUX_V1, textures=(0x02000000, 0, 0, 0)),
    case("mux_reads_spare0a_at_stage_entry", 0x001,
         [(SUM_V0_V1, out(s=R0, mux=True), ins(inp(C0, True), ONE), out(ab=R0))],
         FINAL_R0, [204, 153, 102, 130],
         "entry r0.a = t0.a = 0x81 (odd) -> rgb MUX = CD = (204,153,102); the alpha portion of the same "
         "stage writes r0.a = c0.a = 130 (even), which the mux must not see; final a = 130",
         MUX_LSB + "; writes are delayed (both portions read stage-entry values)",
         v0=MUX_V0, v1=MUX_V1, c0=(0x82000000,), textures=(0x81000000, 0, 0, 0),
         modes=T0_ON[0], enabled=T0_ON[1]),
    case("mux_in_next_stage_reads_written_spare0a", 0x002,
         [(0, 0, ins(inp(C0, True), ONE), out(ab=R0)), MUX_STAGE], FINAL_R0, AB_PICK,
         "stage0 writes r0.a = c0.a = 0x82 (t0.a was 0x81); stage1 entry r0.a byte 0x82, bit 0 clear -> AB "
         "= v0 = (51,102,153 | 51)",
         MUX_LSB + "; a stage sees the previous stage's writes",
         v0=MUX_V0, v1=MUX_V1, c0=(0x82000000,), textures=(0x81000000, 0, 0, 0),
         modes=T0_ON[0], enabled=T0_ON[1]),
    case("mux_applies_op_once", 0x101,
         [(SUM_V0_V1, out(s=R0, mux=True, op=OP_X4), SUM_V0A_V1A, out(s=R0, mux=True, op=OP_X4))],
         FINAL_R0, [192, 128, 64, 192],
         "t0 disabled -> r0.a = 1 >= 0.5 -> CD = v1 = (48,32,16 | 48) raw; x4 once: (192,128,64 | 192)",
         MUX_MSB + "; the op applies once to the selected unscaled product",
         v0=MUX_V0, v1=0x30302010),
]

# ---------------------------------------------------------------------------------------------------
# delayed_writes.json
# ---------------------------------------------------------------------------------------------------

DELAYED = SEMANTICS + ": writes are delayed: both portions of a stage read the register values from stage entry"
SWAP = [(ins(inp(V0), ONE, inp(V1), ONE), out(ab=R0, cd=R1), SUM_V0A_V1A, out(ab=R0, cd=R1)),
        (ins(inp(R1), ONE, inp(R0), ONE), out(ab=R0, cd=R1),
         ins(inp(R1, True), ONE, inp(R0, True), ONE), out(ab=R0, cd=R1))]
DELAYED_WRITES = [
    case("cd_reads_r0_from_entry_while_ab_writes_r0", 0x2,
         [copy_stage(V1),
          (ins(inp(V0), ONE, inp(R0), ONE), out(ab=R0, cd=R1),
           ins(inp(V0, True), ONE, inp(R0, True), ONE), out(ab=R0, cd=R1))],
         FINAL_R1, [204, 153, 102, 204],
         "stage0 r0 = v1 = (204,153,102 | 204); stage1 AB writes r0 = v0 while CD reads r0 -> r1 = entry "
         "r0 = v1 (an immediate write would give v0 = (51,102,153 | 51))", DELAYED,
         v0=0x33336699, v1=0xCCCC9966),
    case("swap_r0_r1_r1_gets_old_r0", 0x2, SWAP, FINAL_R1, [51, 102, 153, 51],
         "stage0 r0 = v0, r1 = v1; stage1 r0 <- r1, r1 <- r0 at once: r1 = old r0 = v0 = (51,102,153 | 51)",
         DELAYED, v0=0x33336699, v1=0xCCCC9966),
    case("swap_r0_r1_r0_gets_old_r1", 0x2, SWAP, FINAL_R0, [204, 153, 102, 204],
         "same program; r0 = old r1 = v1 = (204,153,102 | 204)", DELAYED, v0=0x33336699, v1=0xCCCC9966),
    case("alpha_reads_r0a_at_entry_while_rgb_blue_to_alpha_writes_it", 0x1,
         [(ins(inp(V0), ONE), out(ab=R0, ab_b2a=True), ins(inp(R0, True), ONE), out(ab=R1))],
         (fin0(d=R0), fin1(g=inp(R1, True))), [51, 102, 153, 64],
         "entry r0.a = t0.a = 64; rgb: r0 = v0 = (51,102,153), blue->alpha r0.a = 153; alpha portion reads "
         "entry r0.a: r1.a = 64 (not 153); final D=r0, G=r1.a",
         DELAYED, v0=0xFF336699, textures=(0x40000000, 0, 0, 0), modes=T0_ON[0], enabled=T0_ON[1]),
    case("rgb_reads_r0a_at_entry_while_alpha_writes_it", 0x1,
         [(ins(inp(R0, True), ONE), out(ab=R1), ins(inp(V0, True), ONE), out(ab=R0))],
         (fin0(d=R1), fin1(g=inp(R0, True))), [204, 204, 204, 51],
         "entry r0.a = t0.a = 204; rgb: r1 = r0.aaa = 204 each; alpha: r0.a = v0.a = 51; final D=r1, G=r0.a",
         DELAYED, v0=0x33000000, textures=(0xCC000000, 0, 0, 0), modes=T0_ON[0], enabled=T0_ON[1]),
    case("alpha_reads_r0b_at_entry_while_rgb_writes_it", 0x2,
         [(ins(inp(V1), ONE), out(ab=R0), 0, 0),
          (ins(inp(V0), ONE), out(ab=R0), ins(inp(R0), ONE), out(ab=R1))],
         (fin0(d=R0), fin1(g=inp(R1, True))), [51, 102, 153, 102],
         "stage0 r0.rgb = v1 = (204,153,102); stage1 rgb r0 = v0 = (51,102,153); alpha reads entry r0.b = "
         "102 -> r1.a = 102 (not v0.b = 153)", DELAYED, v0=0xFF336699, v1=0xFFCC9966),
    case("v0_write_visible_next_stage_not_same_stage", 0x2,
         [(ins(inp(C0), ONE, inp(V0), ONE), out(ab=V0, cd=R0),
           ins(inp(C0, True), ONE, inp(V0, True), ONE), out(ab=V0, cd=R0)),
          (0, 0, ins(inp(V0, True), ONE), out(ab=R1))],
         (fin0(d=R0), fin1(g=inp(R1, True))), [51, 102, 153, 204],
         "stage0 writes v0 = c0 and reads old v0 into r0 = (51,102,153 | 51); stage1 reads the new v0.a = "
         "c0.a = 204 into r1.a; final D=r0 -> (51,102,153), G=r1.a -> 204",
         DELAYED + "; v0 is writable and later stages read the written value",
         v0=0x33336699, c0=(0xCCFFFFFF,)),
]

# ---------------------------------------------------------------------------------------------------
# blue_to_alpha.json
# ---------------------------------------------------------------------------------------------------

B2A = SEMANTICS + ": output word bits 18/19, dst.a = that output's post-op blue"
BLUE_TO_ALPHA = [
    case("ab_blue_to_alpha", 0x1, [(ins(inp(V0), ONE), out(ab=R0, ab_b2a=True), 0, 0)], FINAL_R0,
         [51, 102, 153, 153],
         "r0.rgb = v0 = (51,102,153); AB blue->alpha: r0.a = 153 (without it r0.a would stay 1 -> 255)",
         B2A, v0=0x11336699),
    case("cd_blue_to_alpha", 0x1, [(ins(0, 0, inp(V1), ONE), out(cd=R1, cd_b2a=True), 0, 0)], FINAL_R1,
         [204, 153, 51, 51],
         "r1.rgb = v1 = (204,153,51); CD blue->alpha: r1.a = 51", B2A, v1=0x22CC9933),
    case("alpha_portion_write_wins_over_blue_to_alpha", 0x1,
         [(ins(inp(V0), ONE), out(ab=R0, ab_b2a=True), ins(inp(V0, True), ONE), out(ab=R0))], FINAL_R0,
         [51, 102, 153, 17],
         "rgb writes r0.rgb = (51,102,153) and blue->alpha r0.a = 153; the alpha portion writes r0.a = "
         "v0.a = 17, which wins", SEMANTICS + ": the alpha portion's write to X.a wins over a blue->alpha write",
         v0=0x11336699),
    case("alpha_write_to_other_register_keeps_blue_to_alpha", 0x1,
         [(ins(inp(V0), ONE), out(ab=R0, ab_b2a=True), ins(inp(V0, True), ONE), out(ab=R1))], FINAL_R0,
         [51, 102, 153, 153],
         "alpha portion writes r1.a, not r0.a: r0.a keeps the blue->alpha value 153", B2A, v0=0x11336699),
    case("blue_to_alpha_is_post_op", 0x1, [(ins(inp(V0), ONE), out(ab=R0, ab_b2a=True, op=OP_X2), 0, 0)],
         FINAL_R0, [64, 96, 160, 160],
         "v0.rgb = (32,48,80); x2: r0.rgb = (64,96,160); r0.a = post-op blue 160 (pre-op would be 80)",
         B2A, v0=0x11203050),
    case("blue_to_alpha_of_dot_product", 0x1,
         [(ins(inp(V0), inp(V1)), out(ab=R0, ab_dot=True, ab_b2a=True), 0, 0)], FINAL_R0,
         [154, 154, 154, 154],
         "dot((51,102,153),(128,128,128))/255^2 = 306*128/255 /255 = 153.6/255 in every channel; "
         "r0.a = that blue -> 154", B2A, v0=0xFF336699, v1=0xFF808080),
    case("ab_and_cd_blue_to_alpha_to_two_registers", 0x1,
         [(ins(inp(V0), ONE, inp(V1), ONE), out(ab=R0, cd=R1, ab_b2a=True, cd_b2a=True), 0, 0)],
         (fin0(d=R0), fin1(g=inp(R1, True))), [51, 102, 153, 51],
         "r0 = v0 = (51,102,153), r0.a = 153; r1 = v1 = (204,153,51), r1.a = 51; final D=r0, G=r1.a",
         B2A, v0=0x11336699, v1=0x22CC9933),
]

# ---------------------------------------------------------------------------------------------------
# dot_products.json
# ---------------------------------------------------------------------------------------------------

DOT = SEMANTICS + ": AB = A*B or dot3 (RGB only), CD = C*D or dot3; " + NVRC + " dot product replicated to rgb"
DOT_PRODUCTS = [
    case("ab_dot_unsigned", 0x1,
         [(ins(inp(V0), inp(V1)), out(ab=R0, ab_dot=True), ins(inp(V0, True), ONE), out(ab=R0))], FINAL_R0,
         [163, 163, 163, 255],
         "v0 = (51,102,153), v1 = (204,153,102): (51*204 + 102*153 + 153*102)/255 = 41616/255 = 163.2 -> 163 "
         "in r, g and b; r0.a = v0.a = 255", DOT, v0=0xFF336699, v1=0xFFCC9966),
    case("cd_dot_unsigned", 0x1,
         [(ins(0, 0, inp(V0), inp(V1)), out(cd=R1, cd_dot=True), ins(0, 0, inp(V1, True), ONE), out(cd=R1))],
         FINAL_R1, [163, 163, 163, 128],
         "same dot as ab_dot_unsigned through CD -> r1 = 163.2 -> 163; r1.a = v1.a = 128", DOT,
         v0=0xFF336699, v1=0x80CC9966),
    case("dot_expand_normal", 0x1,
         [(ins(inp(V0, m=EXPN), inp(V1, m=EXPN)), out(ab=R0, ab_dot=True), ins(ONE, ONE), out(ab=R0))],
         FINAL_R0, [129, 129, 129, 255],
         "expand 2k/255-1: v0 (192,128,128) -> (129,1,1)/255; v1 (255,128,128) -> (255,1,1)/255; "
         "dot = (129*255 + 1 + 1)/255^2 = 129.008/255 -> 129; r0.a = 1*1", DOT,
         v0=0xFFC08080, v1=0xFFFF8080),
    case("negative_dot_reads_zero_as_unsigned_identity", 0x2,
         [(ins(inp(V0, m=EXPN), inp(V1, m=EXPN)), out(ab=R0, ab_dot=True), 0, 0),
          (ins(inp(R0), ONE), out(ab=R1), ins(inp(V0, True), ONE), out(ab=R1))],
         FINAL_R1, [0, 0, 0, 128],
         "v0.rgb = 0 -> expand (-1,-1,-1); v1.rgb = 255 -> (1,1,1); dot = -3 -> clamp -1 = r0.rgb; "
         "stage1 unsigned identity max(0,-1) = 0 -> r1.rgb = 0; r1.a = v0.a = 128", DOT,
         v0=0x80000000, v1=0xFFFFFFFF),
    case("negative_dot_clamps_to_minus_one", 0x2,
         [(ins(inp(V0, m=EXPN), inp(V1, m=EXPN)), out(ab=R0, ab_dot=True), 0, 0),
          (ins(inp(R0, m=SID), inp(C0), ONE, ONE), out(s=R1), ins(inp(C0, True), ONE), out(ab=R1))],
         FINAL_R1, [127, 127, 127, 128],
         "r0.rgb = clamp(-3) = -1; stage1 SUM = -1 * 128/255 + 1*1 = 127/255 -> 127 (unclamped -3 would "
         "give 1 - 384/255 < 0 -> 0); r1.a = c0.a = 128", DOT + "; output clamp to [-1,1]",
         v0=0x80000000, v1=0xFFFFFFFF, c0=(0x80808080,)),
    case("ab_and_cd_dot_products", 0x1,
         [(ins(inp(V0), inp(V1), inp(C0), inp(C1)), out(ab=R0, cd=R1, ab_dot=True, cd_dot=True), 0, 0)],
         (fin0(c=R0, d=R1), fin1(g=inp(R0, True))), [214, 214, 214, 255],
         "r0 = dot(v0,v1) = 163.2/255; r1 = dot(c0,c1) = 51*255/255 /255 = 51/255; final A=0: rgb = "
         "min(C + D, 1) = 214.2/255 -> 214; G = r0.a = initial t0.a = 1 (t0 disabled) -> 255", DOT,
         v0=0xFF336699, v1=0xFFCC9966, c0=(0x00330000,), c1=(0x00FF0000,)),
    case("dot_product_then_x4", 0x1,
         [(ins(inp(V0), inp(V1)), out(ab=R0, ab_dot=True, op=OP_X4), ins(ONE, ONE), out(ab=R0))], FINAL_R0,
         [193, 193, 193, 255],
         "dot((32,32,32),(128,128,128)) = 3*32*128/255 = 48.19/255; x4 = 192.75/255 -> 193; r0.a = 1", DOT,
         v0=0xFF202020, v1=0xFF808080),
]

# ---------------------------------------------------------------------------------------------------
# input_mappings.json: observed value = (map(x) + 1) * 0.5, so negative results stay visible.
#   stage: A = src with mapping M, B = 1, C = 1, D = 1; SUM = map + 1; op x0.5 -> r0.
# ---------------------------------------------------------------------------------------------------

MAP_NOTE = SEMANTICS + ": input mappings (bits 5-7)"


def mapping_stage(reg, m):
    return (ins(inp(reg, m=m), ONE, ONE, ONE), out(s=R0, op=OP_HALF),
            ins(inp(reg, True, m=m), ONE, ONE, ONE), out(s=R0, op=OP_HALF))


def pos_map(name, m, v0, rgba8, check):
    return case(name, 0x1, [mapping_stage(V0, m)], FINAL_R0, rgba8,
                "r0 = (map(v0) + 1) * 0.5; " + check, MAP_NOTE, v0=v0)


NEG_STAGE0 = copy_stage(V1, dst=R1, m=SNEG)    # r1 = -v1


def neg_map(name, m, rgba8, check):
    return case(name, 0x2, [NEG_STAGE0, mapping_stage(R1, m)], FINAL_R0, rgba8,
                "stage0 r1 = -v1 = -(51,153,255 | a 101)/255; stage1 r0 = (map(r1) + 1) * 0.5; " + check,
                MAP_NOTE, v1=0x653399FF)


def neg_expand(name, m, c0_mapping, check):
    """Expand mappings saturate the (m+1)/2 view; these read SUM = map(r1) * (+-c0) + 1 instead, so that
    2e-1 without the max(0, e) (a value below -1) stays visible."""
    stage = (ins(inp(R1, m=m), inp(C0, m=c0_mapping), ONE, ONE), out(s=R0),
             ins(inp(R1, True, m=m), inp(C0, True, c0_mapping), ONE, ONE), out(s=R0))
    return case(name, 0x2, [NEG_STAGE0, stage], FINAL_R0, [127, 127, 127, 127],
                "stage0 r1 = -v1 = -(51,153,255 | a 101)/255; " + check, MAP_NOTE, v1=0x653399FF,
                c0=(0x80808080,))


INPUT_MAPPINGS = [
    pos_map("unsigned_identity_positive", UI, 0xCB3399FF, [153, 204, 255, 229],
            "max(0,e) = e; (k+255)/2: r 51->153, g 153->204, b 255->255, a 203->229"),
    pos_map("unsigned_invert_positive", INV, 0xCC3298FE, [230, 179, 128, 153],
            "1-e; (510-k)/2: r 50->230, g 152->179, b 254->128, a 204->153"),
    pos_map("expand_normal_positive", EXPN, 0x103380FF, [51, 128, 255, 16],
            "2e-1; ((2k-255)+255)/2 = k: r 51, g 128, b 255, a 16 (r 51 maps to -0.6)"),
    pos_map("expand_negate_positive", EXPNEG, 0x103380FF, [204, 127, 0, 239],
            "1-2e; (510-2k)/2 = 255-k: r 204, g 127, b 0, a 239"),
    pos_map("half_bias_normal_positive", HBN, 0x103380FF, [89, 128, 191, 72],
            "e-0.5; (k-127.5+255)/2: r 89.25->89, g 127.75->128, b 191.25->191, a 71.75->72"),
    pos_map("half_bias_negate_positive", HBNEG, 0x103380FF, [166, 127, 64, 183],
            "0.5-e; (127.5-k+255)/2: r 165.75->166, g 127.25->127, b 63.75->64, a 183.25->183"),
    pos_map("signed_identity_positive", SID, 0xCB3399FF, [153, 204, 255, 229],
            "e; (k+255)/2: r 153, g 204, b 255, a 229"),
    pos_map("signed_negate_positive", SNEG, 0xCB3399FF, [102, 51, 0, 26],
            "-e; (255-k)/2: r 102, g 51, b 0, a 26"),
    neg_map("unsigned_identity_negative", UI, [128, 128, 128, 128],
            "max(0,e) = 0 -> 0.5 = 127.5 -> 128 (exact tie; 127 also within tolerance)"),
    neg_map("unsigned_invert_negative", INV, [255, 255, 255, 255], "1 - clamp(e,0,1) = 1 -> 1 -> 255"),
    neg_expand("expand_normal_negative", EXPN, UI,
               "stage1 SUM = map(r1)*c0 + 1*1 with c0 = 128/255; map = 2*max(0,e)-1 = -1 in every channel: "
               "SUM = 1 - 128/255 = 127/255 -> 127. (2e-1 without the max: r (-357/255) -> 1 - 0.703 -> 76)"),
    neg_expand("expand_negate_negative", EXPNEG, SNEG,
               "stage1 SUM = map(r1)*(-c0) + 1*1 with c0 = 128/255; map = -2*max(0,e)+1 = 1 in every channel: "
               "SUM = 1 - 128/255 = 127/255 -> 127. (1-2e without the max: r 357/255 -> 1 - 0.703 -> 76)"),
    neg_map("half_bias_normal_negative", HBN, [64, 64, 64, 64], "max(0,e)-0.5 = -0.5 -> 0.25 -> 63.75 -> 64"),
    neg_map("half_bias_negate_negative", HBNEG, [191, 191, 191, 191],
            "-max(0,e)+0.5 = 0.5 -> 0.75 -> 191.25 -> 191"),
    neg_map("signed_identity_negative", SID, [102, 51, 0, 77],
            "e = -k/255; (255-k)/2: r 102, g 51, b 0, a (255-101)/2 = 77"),
    neg_map("signed_negate_negative", SNEG, [153, 204, 255, 178],
            "-e = k/255; (255+k)/2: r 153, g 204, b 255, a (255+101)/2 = 178"),
]

# ---------------------------------------------------------------------------------------------------
# final_sum_v1r0.json: spare0+secondary (register 14). Final rgb = final_c0 (128/255) * S, G = 1.
#   r0 = (0.8,0.2,0.6) = (204,51,153)/255, v1 = (0.6,0.4,0.2) = (153,102,51)/255.  rgb8 = 128*S.
# ---------------------------------------------------------------------------------------------------

V1R0 = (SEMANTICS + ": spare0+secondary = max(0,r0) + max(0,v1), each optionally complemented (CW1 0x20 r0, "
        "0x40 v1), clamped to [0,1] only with CW1 0x80")


def v1r0_case(name, flags, rgba8, check, negate_r0=False, cw0=None, provenance=V1R0):
    stage = copy_stage(V0, m=SNEG if negate_r0 else UI)
    stage = (stage[0], stage[1], 0, 0)
    final = (cw0 if cw0 is not None else fin0(a=C0, b=SUM14), fin1(g=ONE, flags=flags))
    return case(name, 0x1, [stage], final, rgba8, check, provenance, v0=0xFFCC3399, v1=0xFF996633,
                final_c0=0x00808080)


FINAL_SUM = [
    v1r0_case("flags_0x00_unclamped_sum", 0x00, [179, 77, 102, 255],
              "S = r0+v1 = (357,153,204)/255; rgb = 128*S/255: 179.2->179, 76.8->77, 102.4->102; G=1"),
    v1r0_case("flags_0x80_clamped_sum", 0x80, [128, 77, 102, 255],
              "S = clamp((357,153,204)/255) = (255,153,204)/255; 128*S: 128, 76.8->77, 102.4->102"),
    v1r0_case("flags_0x20_complement_r0", 0x20, [102, 154, 77, 255],
              "1-r0 = (51,204,102); S = (51+153, 204+102, 102+51) = (204,306,153); 128*S/255: "
              "102.4->102, 153.6->154, 76.8->77"),
    v1r0_case("flags_0x40_complement_v1", 0x40, [154, 102, 179, 255],
              "1-v1 = (102,153,204); S = (204+102, 51+153, 153+204) = (306,204,357); 128*S/255: "
              "153.6->154, 102.4->102, 179.2->179"),
    v1r0_case("flags_0xe0_complement_both_clamped", 0xE0, [77, 128, 128, 255],
              "S = (51+102, 204+153, 102+204) = (153,357,306) -> clamp (153,255,255); 128*S/255: "
              "76.8->77, 128, 128"),
    v1r0_case("flags_0x60_complement_both_unclamped", 0x60, [77, 179, 154, 255],
              "S = (153,357,306) unclamped; 128*S/255: 76.8->77, 179.2->179, 153.6->154"),
    v1r0_case("negative_r0_counts_as_zero", 0x00, [77, 51, 26, 255],
              "r0 = -v0 = (-204,-51,-153); max(0,r0) = 0; S = v1 = (153,102,51); 128*S/255: 76.8->77, "
              "51.2->51, 25.6->26. (xemu adds the raw r0: (0, 25.6, 0) -> (0,26,0))", negate_r0=True,
              provenance=V1R0 + " (hardware; xemu sums the raw r0)"),
    v1r0_case("negative_r0_complemented_is_one", 0x20, [205, 179, 154, 255],
              "r0 negative: 1 - max(0,r0) = 1; S = 1 + v1 = (408,357,306)/255; 128*S/255: 204.8->205, "
              "179.2->179, 153.6->154. (xemu: 1 - r0 = 1.8 -> 2.4*128/255 -> 255)", negate_r0=True,
              provenance=V1R0 + " (hardware; xemu complements the raw r0)"),
    v1r0_case("sum_in_d_saturates_through_min", 0x00, [255, 153, 204, 255],
              "final D = S = (357,153,204)/255, A=B=C=0: rgb = min(S,1) = (255,153,204)",
              cw0=fin0(d=SUM14), provenance=V1R0 + "; final rgb = min(A*B + (1-A)*C + D, 1)"),
    v1r0_case("sum_through_unsigned_invert_in_c", 0x00, [0, 102, 51, 255],
              "final C = invert(S) = 1 - clamp(S,0,1) = (0, 102, 51)/255, A=0 so (1-A)*C = C",
              cw0=fin0(c=inp(SUM14, m=INV)),
              provenance=V1R0 + "; final mappings identity/invert (" + NVRC + " unsigned_invert)"),
]

# ---------------------------------------------------------------------------------------------------
# final_combiner.json
# ---------------------------------------------------------------------------------------------------

FINAL = SEMANTICS + ": final rgb = min(A*B + (1-A)*C + D, 1), alpha = G"
FINAL_COMBINER = [
    case("lerp_a_b_c", 0x1, [NOP], (fin0(a=C0, b=V0, c=V1), fin1(g=inp(V0, True))), [102, 153, 128, 64],
         "A = final_c0 = 102/255 (0.4); r = 0.4*255 + 0.6*0 = 102; g = 0.4*0 + 0.6*255 = 153; "
         "b = 0.4*128 + 0.6*128 = 128; G = v0.a = 64", FINAL + "; final combiner has its own constants",
         v0=0x40FF0080, v1=0x0000FF80, final_c0=0x00666666),
    case("sum_saturates_at_one", 0x1, [NOP], (fin0(c=V0, d=V1), fin1(g=inp(V0, True))), [255, 102, 153, 255],
         "A=0: rgb = min(C + D, 1) = min((204+153, 51+51, 102+51)/255, 1) = (255,102,153); G = 255", FINAL,
         v0=0xFFCC3366, v1=0xFF993333),
    case("ef_product_in_d", 0x1, [NOP], (fin0(d=EF15), fin1(e=inp(V0), f=inp(V1), g=ONE)),
         [122, 122, 102, 255],
         "E*F = (204*153, 153*204, 102*255)/255^2 = (122.4, 122.4, 102)/255 -> (122,122,102); G = 1",
         SEMANTICS + ": register 15 = E*F (final A-D)", v0=0xFFCC9966, v1=0xFF99CCFF),
    case("ef_product_as_lerp_factor", 0x1, [NOP], (fin0(a=EF15, b=C1, c=C0), fin1(e=inp(V0), f=ONE, g=ONE)),
         [153, 204, 255, 255],
         "A = E*F = v0 = (51,153,255)/255; B = final_c1 = 1; C = final_c0 = 128/255: r = 51 + 204*128/255 = "
         "153.4 -> 153; g = 153 + 102*128/255 = 204.2 -> 204; b = 255 + 0 = 255", FINAL,
         v0=0xFF3399FF, final_c0=0x00808080, final_c1=0x00FFFFFF),
    case("ef_of_negative_register_is_not_negative", 0x1,
         [(ins(inp(V0, m=SNEG), ONE), out(ab=R0), 0, 0)],
         (fin0(c=V1, d=EF15), fin1(e=inp(R0), f=ONE, g=ONE)), [153, 102, 51, 255],
         "r0 = -v0 = -(204,153,102)/255; E = unsigned identity max(0,r0) = 0, so E*F = 0; rgb = C + D = v1 "
         "= (153,102,51). (A signed E would give v1 - v0 < 0 -> 0)",
         SEMANTICS + ": final inputs allow only identity (unsigned_identity max(0,e)) and invert; " + NVRC +
         " final combiner inputs are unsigned", v0=0xFFCC9966, v1=0xFF996633),
    case("ef_with_inverted_negative_register", 0x1,
         [(ins(inp(V0, m=SNEG), ONE), out(ab=R0), 0, 0)],
         (fin0(d=EF15), fin1(e=inp(R0, m=INV), f=inp(C0), g=ONE)), [51, 102, 153, 255],
         "r0 negative; E = 1 - clamp(r0,0,1) = 1; E*F = final_c0 = (51,102,153)", FINAL,
         v0=0xFFCC9966, final_c0=0x00336699),
    case("g_without_bit4_reads_blue", 0x1, [NOP], (fin0(d=V0), fin1(g=inp(V0))), [51, 102, 153, 153],
         "D = v0 = (51,102,153); G byte bit 4 clear: G reads v0.b = 153, not v0.a = 64",
         SEMANTICS + ": alpha = G, an alpha-portion input; input byte bit 4 in an alpha portion: 1 = alpha, "
         "0 = blue (xemu reads G the same way)", v0=0x40336699),
    case("g_with_unsigned_invert", 0x1, [NOP], (fin0(d=V0), fin1(g=inp(V0, True, INV))), [51, 102, 153, 191],
         "D = v0 = (51,102,153); G = 1 - v0.a = 1 - 64/255 = 191/255", FINAL, v0=0x40336699),
    case("fog_lerp_uses_fog_factor", 0x1, [NOP],
         (fin0(a=inp(FOG, True), b=V0, c=FOG), fin1(g=inp(FOG, True))), [64, 191, 32, 64],
         "fog = (fog_color.rgb, fog_factor 0.25); A = 0.25: r = 0.25*255 + 0.75*0 = 63.75 -> 64; "
         "g = 0 + 0.75*255 = 191.25 -> 191; b = 0.25*128 + 0 = 32; G = 0.25 -> 64 (fog_color's own "
         "alpha 0x77 is not read)",
         SEMANTICS + ": fog register rgb = fog colour, a = fog factor (alpha readable in the final combiner)",
         v0=0xFFFF0080, fog_color=0x7700FF00, fog_factor=0.25),
    case("a_with_unsigned_invert", 0x1, [NOP], (fin0(a=inp(V0, True, INV), b=C0, c=C1), fin1(g=inp(V0, True))),
         [51, 204, 0, 204],
         "A = 1 - v0.a = 1 - 0.8 = 0.2; rgb = 0.2*final_c0 + 0.8*final_c1 = 0.2*(255,0,0) + 0.8*(0,255,0) = "
         "(51,204,0); G = v0.a = 204", FINAL, v0=0xCC000000, final_c0=0x00FF0000, final_c1=0x0000FF00),
    case("d_one_saturates_cw1_zero_alpha_zero", 0x1, [NOP], (fin0(c=V0, d=ONE), 0), [255, 255, 255, 0],
         "D = 1: rgb = min(v0 + 1, 1) = 1; CW1 = 0 so G = zero.b = 0 (CW0 != 0: combiner enabled)", FINAL,
         v0=0xFF336699),
]

# ---------------------------------------------------------------------------------------------------
# final_disabled.json
# ---------------------------------------------------------------------------------------------------

FINAL_DISABLED = [
    case("cw0_cw1_zero_outputs_transparent_black", 0x1, [copy_stage(V0)], (0, 0), [0, 0, 0, 0],
         "CW0 = CW1 = 0: output (0,0,0,0) whatever r0 holds (r0 = v0 = (51,102,153 | 255) here)",
         SEMANTICS + ": when CW0 = CW1 = 0 the output is (0,0,0,0) (hardware; xemu writes nothing)",
         v0=0xFF336699),
    case("cw0_zero_cw1_g_only", 0x1, [NOP], (0, fin1(g=inp(V0, True))), [0, 0, 0, 128],
         "CW0 = 0: A=B=C=D = zero -> rgb 0; CW1 G = v0.a = 128 (combiner enabled since CW1 != 0)", FINAL,
         v0=0x80336699),
    case("cw1_zero_cw0_d_only", 0x1, [NOP], (fin0(d=V0), 0), [51, 102, 153, 0],
         "CW0 D = v0 -> rgb (51,102,153); CW1 = 0 -> G = zero.b = 0", FINAL, v0=0x80336699),
]

# ---------------------------------------------------------------------------------------------------
# textures.json
# ---------------------------------------------------------------------------------------------------

TEX = SEMANTICS + ": a disabled or NONE texture stage reads (0,0,0,1); each stage samples a 1x1 texture"
INIT = SEMANTICS + ": initial values r0 = (0,0,0,t0.a), r1 = 0"
TEXTURES = [
    case("disabled_stage_reads_0001", 0x1, [copy_stage(T1)], FINAL_R0, [0, 0, 0, 255],
         "t1 disabled (mode project2d, colour ignored) reads (0,0,0,1); r0 = t1", TEX,
         textures=(0, 0x80FF4020, 0, 0), modes=("none", "project2d", "none", "none")),
    case("none_mode_enabled_reads_0001", 0x1, [copy_stage(T1)], FINAL_R0, [0, 0, 0, 255],
         "t1 enabled with mode none reads (0,0,0,1)", TEX,
         textures=(0, 0x80FF4020, 0, 0), enabled=(False, True, False, False)),
    case("project2d_enabled_reads_texel", 0x1, [copy_stage(T1)], FINAL_R0, [255, 64, 32, 128],
         "t1 enabled project2d, 1x1 colour 0x80FF4020 -> (255,64,32 | 128)", TEX,
         textures=(0, 0x80FF4020, 0, 0), modes=("none", "project2d", "none", "none"),
         enabled=(False, True, False, False)),
    case("r0_alpha_starts_as_t0_alpha", 0x1, [NOP], FINAL_R0, [0, 0, 0, 90],
         "no stage writes; r0 = (0,0,0,t0.a) = (0,0,0,90) (r0.rgb is not t0.rgb)", INIT,
         textures=(0x5AFFFFFF, 0, 0, 0), modes=T0_ON[0], enabled=T0_ON[1]),
    case("r0_alpha_starts_as_one_when_t0_disabled", 0x1, [NOP], FINAL_R0, [0, 0, 0, 255],
         "t0 disabled reads (0,0,0,1): r0 = (0,0,0,1); the texture colour's alpha 0x10 is not used",
         INIT + "; " + TEX, textures=(0x10FFFFFF, 0, 0, 0), modes=("project2d", "none", "none", "none")),
    case("r0_alpha_starts_as_one_when_t0_mode_none", 0x1, [NOP], FINAL_R0, [0, 0, 0, 255],
         "t0 enabled but mode none reads (0,0,0,1): r0 = (0,0,0,1)", INIT + "; " + TEX,
         textures=(0x10FFFFFF, 0, 0, 0), enabled=(True, False, False, False)),
    case("r1_starts_zero", 0x1, [NOP], FINAL_R1, [0, 0, 0, 0],
         "r1 = (0,0,0,0) initially, whatever the textures", INIT,
         textures=(0xFFFFFFFF, 0xFFFFFFFF, 0, 0), modes=("project2d", "project2d", "none", "none"),
         enabled=(True, True, False, False)),
    case("two_textures_multiplied", 0x1,
         [(ins(inp(T2), inp(T3)), out(ab=R0), ins(inp(T2, True), inp(T3, True)), out(ab=R0))], FINAL_R0,
         [153, 51, 0, 102],
         "t2 = (153,102,51 | 204), t3 = (255,128,0 | 128): r 153*255/255 = 153, g 102*128/255 = 51.2 -> 51, "
         "b 0, a 204*128/255 = 102.4 -> 102", TEX, textures=(0, 0, 0xCC996633, 0x80FF8000),
         modes=("none", "none", "project2d", "project2d"), enabled=(False, False, True, True)),
    case("disabled_t3_in_product", 0x1,
         [(ins(inp(T2), inp(T3)), out(ab=R0), ins(inp(T2, True), inp(T3, True)), out(ab=R0))], FINAL_R0,
         [0, 0, 0, 204],
         "t3 disabled = (0,0,0,1): rgb = t2.rgb * 0 = 0; a = t2.a * 1 = 204", TEX,
         textures=(0, 0, 0xCC996633, 0x80FF8000), modes=("none", "none", "project2d", "project2d"),
         enabled=(False, False, True, False)),
]

# ---------------------------------------------------------------------------------------------------
# constants.json
# ---------------------------------------------------------------------------------------------------

CONST = SEMANTICS + ": COMBINECTL bit 12 per-stage c0, bit 16 per-stage c1 (else stage 0's constant everywhere)"
CONST_STAGE1 = (ins(inp(C0), ONE, inp(C1), ONE), out(ab=R0, cd=R1),
                ins(inp(C0, True), ONE, inp(C1, True), ONE), out(ab=R0, cd=R1))
C0S, C1S = (0x11223344, 0x55667788), (0x99AABBCC, 0xDDEEFF10)
ACC_STAGE = (ins(inp(R0), ONE, inp(C0), ONE), out(s=R0), ins(inp(R0, True), ONE, inp(C0, True), ONE), out(s=R0))
CONSTANTS = [
    case("c0_shared_without_bit12", 0x00002, [NOP, CONST_STAGE1], FINAL_R0, [34, 51, 68, 17],
         "stage1 reads c0[0] = 0x11223344 -> r0 = (0x22,0x33,0x44 | 0x11) = (34,51,68 | 17)", CONST,
         c0=C0S, c1=C1S),
    case("c0_per_stage_with_bit12", 0x01002, [NOP, CONST_STAGE1], FINAL_R0, [102, 119, 136, 85],
         "stage1 reads c0[1] = 0x55667788 -> (0x66,0x77,0x88 | 0x55) = (102,119,136 | 85)", CONST,
         c0=C0S, c1=C1S),
    case("c1_shared_with_bit12_only", 0x01002, [NOP, CONST_STAGE1], FINAL_R1, [170, 187, 204, 153],
         "bit 16 clear: stage1 reads c1[0] = 0x99AABBCC -> (170,187,204 | 153)", CONST, c0=C0S, c1=C1S),
    case("c1_per_stage_with_bit16", 0x10002, [NOP, CONST_STAGE1], FINAL_R1, [238, 255, 16, 221],
         "stage1 reads c1[1] = 0xDDEEFF10 -> (238,255,16 | 221)", CONST, c0=C0S, c1=C1S),
    case("c0_shared_with_bit16_only", 0x10002, [NOP, CONST_STAGE1], FINAL_R0, [34, 51, 68, 17],
         "bit 12 clear: stage1 reads c0[0] -> (34,51,68 | 17)", CONST, c0=C0S, c1=C1S),
    case("per_stage_c0_accumulates", 0x01003, [copy_stage(C0), ACC_STAGE, ACC_STAGE], FINAL_R0,
         [112, 112, 112, 112],
         "r0 = c0[0] + c0[1] + c0[2] = 16 + 32 + 64 = 112 in every channel", CONST,
         c0=(0x10101010, 0x20202020, 0x40404040)),
    case("shared_c0_accumulates_stage0_value", 0x00003, [copy_stage(C0), ACC_STAGE, ACC_STAGE], FINAL_R0,
         [48, 48, 48, 48],
         "bit 12 clear: every stage reads c0[0] = 16: r0 = 16*3 = 48", CONST,
         c0=(0x10101010, 0x20202020, 0x40404040)),
    case("final_combiner_has_its_own_constants", 0x01002, [NOP, CONST_STAGE1],
         (fin0(d=C0), fin1(g=inp(C1, True))), [18, 52, 86, 154],
         "final reads c0 = final_c0 = (0x12,0x34,0x56) = (18,52,86), c1.a = final_c1.a = 0x9A = 154; "
         "the stage constants c0[0], c0[1] are not used there",
         SEMANTICS + ": the final combiner has its own constant pair", c0=C0S, c1=C1S,
         final_c0=0x00123456, final_c1=0x9A000000),
    case("per_stage_c0_missing_entry_is_zero", 0x01002, [NOP, CONST_STAGE1], FINAL_R0, [0, 0, 0, 0],
         "bit 12 set, c0 has one entry: stage1's c0[1] is missing -> 0; r0 = 0 (and r0.a written 0)",
         "vector format (README, Test vectors): missing constants are 0; schemas/trace.schema.json: missing entries are 0",
         c0=(0x11223344,), c1=C1S),
]

# ---------------------------------------------------------------------------------------------------
# stage_count.json
# ---------------------------------------------------------------------------------------------------

COUNT = SEMANTICS + ": stage words at index >= stage count must not affect output nor the key"
STAGE_COUNT = [
    case("valid_words_past_count_are_ignored", 0x1,
         [copy_stage(V0), copy_stage(V1, op=OP_X4), copy_stage(C0, dst=R1), copy_stage(ZERO, m=INV)],
         FINAL_R0, [51, 102, 153, 51],
         "count 1: only stage0 runs, r0 = v0 = (51,102,153 | 51); stages 1-3 (which would overwrite r0) "
         "are ignored", COUNT, v0=0x33336699, v1=0xCCCC9966, c0=(0xFFFFFFFF,)),
    case("garbage_words_past_count_are_ignored", 0x1,
         [copy_stage(V0)] + [(0xFFFFFFFF, 0xFFFFFFFF, 0xDEADBEEF, 0xFFFFFFFF)] * 7,
         FINAL_R0, [51, 102, 153, 51],
         "count 1: stages 1-7 hold words that would be invalid (registers 6/7/14/15, reserved ops, "
         "undocumented bits) and must be neither evaluated nor rejected; r0 = v0",
         COUNT + "; section 11 / trace schema: entries past the stage count are ignored (may hold garbage)",
         v0=0x33336699),
    case("eight_stages_per_stage_c0_sum", 0x01008, [copy_stage(C0)] + [ACC_STAGE] * 7, FINAL_R0,
         [225, 225, 225, 225],
         "r0 = sum of c0[0..7] = 5+10+20+30+40+50+60+10 = 225 in every channel", COUNT + "; " + CONST,
         c0=(0x05050505, 0x0A0A0A0A, 0x14141414, 0x1E1E1E1E, 0x28282828, 0x32323232, 0x3C3C3C3C, 0x0A0A0A0A)),
    case("two_of_four_stages_run", 0x2,
         [copy_stage(V0), copy_stage(R0, op=OP_X2), copy_stage(ZERO), copy_stage(ZERO)], FINAL_R0,
         [128, 192, 32, 64],
         "stage0 r0 = v0 = (64,96,16 | 32); stage1 x2 = (128,192,32 | 64); stages 2,3 (r0 = 0) ignored",
         COUNT, v0=0x20406010),
]

# ---------------------------------------------------------------------------------------------------
# alpha_test.json: rgb = v0, a = v0.a, reference 128 unless stated.
# ---------------------------------------------------------------------------------------------------

ATEST = SEMANTICS + ": alpha test after the final combiner: discard unless round(a*255) FUNC ref"
ALPHA_FINAL = (fin0(d=V0), fin1(g=inp(V0, True)))


def at_case(name, func, a, ref, discard, enabled=True):
    if enabled:
        check = "a = v0.a = %d; test %d %s %d (ref): %s" % (
            a, a, func, ref, "fails -> discard" if discard else "passes -> kept")
    else:
        check = "alpha test disabled (func %s ignored): never discards; a = %d" % (func, a)
    return case(name, 0x1, [NOP], ALPHA_FINAL, [51, 102, 153, a], check, ATEST, discard=discard,
                v0=(a << 24) | 0x336699, alpha_ref=ref, alpha_test={"enabled": enabled, "func": func})


ALPHA_TEST = [
    at_case("never_discards_at_ref", "never", 128, 128, True),
    at_case("less_passes_below_ref", "less", 127, 128, False),
    at_case("less_discards_at_ref", "less", 128, 128, True),
    at_case("equal_passes_at_ref", "equal", 128, 128, False),
    at_case("equal_discards_below_ref", "equal", 127, 128, True),
    at_case("equal_discards_above_ref", "equal", 129, 128, True),
    at_case("less_or_equal_passes_at_ref", "less_or_equal", 128, 128, False),
    at_case("less_or_equal_discards_above_ref", "less_or_equal", 129, 128, True),
    at_case("greater_passes_above_ref", "greater", 129, 128, False),
    at_case("greater_discards_at_ref", "greater", 128, 128, True),
    at_case("not_equal_discards_at_ref", "not_equal", 128, 128, True),
    at_case("not_equal_passes_above_ref", "not_equal", 129, 128, False),
    at_case("greater_or_equal_passes_at_ref", "greater_or_equal", 128, 128, False),
    at_case("greater_or_equal_discards_below_ref", "greater_or_equal", 127, 128, True),
    at_case("always_passes", "always", 128, 128, False),
    at_case("disabled_test_ignores_never", "never", 128, 128, False, enabled=False),
    at_case("greater_discards_zero_at_ref_zero", "greater", 0, 0, True),
    at_case("greater_or_equal_passes_255_at_ref_255", "greater_or_equal", 255, 255, False),
    case("equal_compares_rounded_computed_alpha", 0x1,
         [(0, 0, ins(inp(V0, True), inp(C0, True)), out(ab=R0))], (fin0(d=V0), fin1(g=inp(R0, True))),
         [51, 102, 153, 122],
         "r0.a = v0.a * c0.a = 153*204/255 = 122.4/255; round(122.4) = 122 equal ref 122: passes "
         "(a float compare 0.48 == 122/255 would fail)", ATEST, v0=0x99336699, c0=(0xCC000000,),
         alpha_ref=122, alpha_test={"enabled": True, "func": "equal"}),
]

# ---------------------------------------------------------------------------------------------------
# registers.json
# ---------------------------------------------------------------------------------------------------

REGS = SEMANTICS + ": registers and input byte bit 4 (RGB: replicate alpha; alpha: 1 = alpha, 0 = blue)"
REGISTERS = [
    case("fog_rgb_and_blue_in_general_stage", 0x1,
         [(ins(inp(FOG), ONE), out(ab=R0), ins(inp(FOG), ONE), out(ab=R0))], FINAL_R0, [51, 102, 153, 153],
         "rgb: r0 = fog colour = (51,102,153); alpha portion bit 4 clear reads fog.b = 153 (fog alpha is not "
         "readable in a general stage)", REGS + "; fog rgb = fog colour",
         fog_color=0x11336699, fog_factor=0.5),
    case("alpha_portion_reads_blue_without_bit4", 0x1,
         [(ins(inp(V0), ONE), out(ab=R0), ins(inp(V0), ONE), out(ab=R0))], FINAL_R0, [51, 102, 153, 153],
         "r0.rgb = v0 = (51,102,153); alpha input bit 4 clear -> v0.b = 153", REGS, v0=0x11336699),
    case("rgb_portion_replicates_alpha_with_bit4", 0x1,
         [(ins(inp(V0, True), ONE), out(ab=R0), ins(inp(V0, True), ONE), out(ab=R0))], FINAL_R0,
         [128, 128, 128, 128], "rgb input bit 4 set -> (v0.a, v0.a, v0.a) = 128 each; r0.a = v0.a = 128",
         REGS, v0=0x80336699),
    case("texture_register_written_and_read_in_final", 0x1, [copy_stage(V0, dst=T1)], (fin0(d=T1), fin1(g=inp(T1, True))), [51, 102, 153, 68],
         "t1 disabled (reads (0,0,0,1)) but stage0 writes t1 = v0 = (51,102,153 | 68); final reads t1",
         REGS + "; t0-t3 are writable destinations", v0=0x44336699),
    case("v1_written_then_read_next_stage", 0x2, [copy_stage(C0, dst=V1), copy_stage(V1)], FINAL_R0,
         [204, 153, 51, 34],
         "stage0 v1 = c0 = (204,153,51 | 34); stage1 r0 = v1 = c0 (the input v1 0xFF000000 is gone)",
         REGS + "; v1 is a writable destination", v1=0xFF000000, c0=(0x22CC9933,)),
    case("fog_factor_as_float32_bits", 0x1, [NOP], (fin0(d=FOG), fin1(g=inp(FOG, True))), [51, 102, 153, 64],
         "fog_factor \"0x3E800000\" is float32 0.25; final D = fog rgb = (51,102,153), G = fog alpha = "
         "0.25 -> 63.75 -> 64", "vector format (README, Test vectors): fog_factor is a number or a float32 bit pattern "
         "string; " + SEMANTICS + ": fog a = fog factor", fog_color=0x00336699, fog_factor="0x3E800000"),
]

FILES = {
    "output_ops.json": ("Every output op (none, bias, x2, bias x2, x4, x0.5) on both portions.", OUTPUT_OPS),
    "clamp_order.json": ("One clamp after bias and scale; SUM from unclamped, unscaled products.",
                         CLAMP_ORDER),
    "mux.json": ("MUX boundaries in MSB and LSB modes; mux reads spare0.a at stage entry.", MUX),
    "delayed_writes.json": ("Delayed writes and register aliasing within a stage.", DELAYED_WRITES),
    "blue_to_alpha.json": ("Blue-to-alpha, and the alpha portion's write winning over it.", BLUE_TO_ALPHA),
    "dot_products.json": ("AB and CD dot products, expand_normal inputs, negative dot clamping.", DOT_PRODUCTS),
    "input_mappings.json": ("All eight input mappings on positive and negative inputs.", INPUT_MAPPINGS),
    "final_sum_v1r0.json": ("spare0+secondary (register 14) with each flag combination.", FINAL_SUM),
    "final_combiner.json": ("Final combiner lerp, saturation, E*F, fog, G.", FINAL_COMBINER),
    "final_disabled.json": ("Final combiner words CW0 = CW1 = 0 and half-empty words.", FINAL_DISABLED),
    "textures.json": ("Disabled / NONE texture stages and initial register values.", TEXTURES),
    "constants.json": ("Per-stage vs stage-0 constants, and the final combiner's own pair.", CONSTANTS),
    "stage_count.json": ("Stage words past the stage count; eight stages.", STAGE_COUNT),
    "alpha_test.json": ("Alpha test, every function, at and around the reference.", ALPHA_TEST),
    "registers.json": ("Fog, blue/alpha selection, writable input registers, fog_factor bits.", REGISTERS),
}


def dump(doc):
    """JSON with arrays of scalars kept on one line."""
    text = json.dumps(doc, indent=2)
    return re.sub(r"\[\s*((?:[^\[\]{}\s][^\[\]{}]*?)?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    names = set()
    total = 0
    for filename, (description, cases) in FILES.items():
        for c in cases:
            assert c["name"] not in names, c["name"]
            names.add(c["name"])
        doc = {"format": "shaderbake-vectors/1", "guest": "nv2a", "description": description, "cases": cases}
        with open(os.path.join(out_dir, filename), "w", encoding="utf-8") as f:
            f.write(dump(doc))
        print("%-22s %3d cases" % (filename, len(cases)))
        total += len(cases)
    print("%-22s %3d cases" % ("total", total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
