#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent CPU reference evaluator of NV2A register combiners (shaderbake-vectors/1, guest nv2a).

Written from guests/nv2a/README.md (Semantics) and, where it is silent, from the OpenGL NV_register_combiners /
NV_register_combiners2 specifications. It shares no code with guests/ or lib/: its job is to be a
second opinion on the hand-derived expectations of the vector files in this folder, and through them on
the project's oracle and emitters.

Python 3 standard library only. Library use:

    import reference_nv2a as ref
    result = ref.evaluate(program, inputs)      # program / inputs: the objects of one vector case
    result.rgba8, result.discard, result.rgba   # 8-bit output, alpha-test verdict, float output
    ref.validate(program)                       # list of rejection reasons ([] = valid encoding)

Command line: reference_nv2a.py FILE.json [CASE_NAME] prints the evaluation of each case, with a
register trace per stage when a case name is given.

Decisions taken where the semantics (guests/nv2a/README.md) are silent or open (kept in sync with README.md):
  D1  Arithmetic is float (Python double), registers are never quantised between stages; the only
      quantisation is the output one, rgba8 = floor(clamp(x, 0, 1) * 255 + 0.5) (round half up), and
      the alpha test's round(a * 255), also half up.
  D2  Output bias (ops 1 and 3) is -128/255, as the semantics record from hardware. The half-bias *input*
      mappings (4, 5) use exactly 0.5: the semantics give no hardware value for them.
  D3  Output op 6 (x0.5) is modelled as an exact float multiply by 0.5. "Rounds half up" on hardware is
      a statement about the 8-bit result; in float it only shows at the output quantisation, which is
      already half up (D1). No vector depends on the tie.
  D4  LSB mux: the 8-bit spare0.a is round(clamp(r0.a, 0, 1) * 255) (round to nearest, not the
      truncation xemu uses); CD is selected when bit 0 of that byte is set. MSB mux: CD when
      r0.a >= 0.5 (float compare). Both read r0.a as it was at stage entry. No vector uses a negative
      spare0.a (its 8-bit form on hardware is unknown here).
  D5  Blue-to-alpha applies only when its output has a destination (dst != 0); it writes the post-op,
      post-clamp blue of that output to dst.a. All RGB-portion writes happen first, then all alpha-
      portion writes, so an alpha-portion write to X.a wins over a blue-to-alpha write to X.a.
  D6  A dot product feeds SUM/MUX with its scalar value replicated (dot products with a non-discard
      SUM output are otherwise unspecified by the semantics; no vector uses them).
  D7  Final combiner inputs: mapping 0 (identity) is the *unsigned* identity max(0, e) and mapping 1 is
      1 - clamp(e, 0, 1), as for general stages. Hence E, F >= 0 and E*F >= 0: the "signed" E*F of
      the semantics can never be negative with a valid encoding (see README).
  D8  spare0+secondary (register 14): per channel s = R + V with R = max(0, r0), V = max(0, v1), then
      R -> 1 - R with CW1 0x20 and V -> 1 - V with CW1 0x40 (complement applied after the max), and
      s = clamp(s, 0, 1) only with CW1 0x80. The final combiner reads r0 and v1 as the general stages
      left them. Its alpha, and E*F's alpha, are 0 (unreadable: using them is a rejection).
  D9  The final combiner reads every register as the last general stage left it (including writes to
      v0, v1 and t0-t3); c0/c1 there are final_c0/final_c1. Fog alpha there is the fog factor, clamped
      to [0, 1]; the fog colour's own alpha byte is never read.
  D10 With CW0 = CW1 = 0 the combiner output is (0, 0, 0, 0) and the alpha test still runs on a = 0.
  D11 The texture stages are reference_texture.py's (every mode of the texture shader; a 1x1 texture of
      vector format /1 serves any sampler); disabled or mode none reads (0, 0, 0, 1).
  D12 Per-stage constants: with COMBINECTL bit 12 (c0) / bit 16 (c1) stage i reads c0[i] / c1[i], else
      c0[0] / c1[0]; a missing array entry is 0 (the vector format's rule).
  D13 The alpha test compares round(clamp(a, 0, 1) * 255) with alpha_ref; a disabled alpha test never
      discards whatever its func. A discarded case still reports the colour it computed.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_texture  # noqa: E402

# Register codes (guests/nv2a/README.md, Semantics).
ZERO, C0, C1, FOG, V0, V1 = 0, 1, 2, 3, 4, 5
T0, T1, T2, T3, R0, R1 = 8, 9, 10, 11, 12, 13
V1R0_SUM, EF_PROD = 14, 15
WRITABLE = {V0, V1, T0, T1, T2, T3, R0, R1}

MAPPING_NAMES = ["unsigned_identity", "unsigned_invert", "expand_normal", "expand_negate",
                 "half_bias_normal", "half_bias_negate", "signed_identity", "signed_negate"]

OUTPUT_BIAS = 128.0 / 255.0          # D2
OPS = {0: (0.0, 1.0), 1: (-OUTPUT_BIAS, 1.0), 2: (0.0, 2.0), 3: (-OUTPUT_BIAS, 2.0),
       4: (0.0, 4.0), 6: (0.0, 0.5)}  # op -> (bias, scale); 5 and 7 are reserved

TEXTURE_MODES = ["none", "project2d", "project3d", "cube", "passthru", "clipplane", "bumpenvmap",
                 "bumpenvmap_luminance", "brdf", "dot_st", "dot_zw", "dot_rflct_diff", "dot_rflct_spec",
                 "dot_str_3d", "dot_str_cube", "dependent_ar", "dependent_gb", "dot_product",
                 "dot_rflct_spec_const"]
ALPHA_FUNCS = {
    "never": lambda a, r: False, "less": lambda a, r: a < r, "equal": lambda a, r: a == r,
    "less_or_equal": lambda a, r: a <= r, "greater": lambda a, r: a > r,
    "not_equal": lambda a, r: a != r, "greater_or_equal": lambda a, r: a >= r,
    "always": lambda a, r: True}


class InvalidProgram(ValueError):
    """The program uses an encoding guests/nv2a/README.md makes a rejection reason."""


class Unsupported(ValueError):
    """The program is valid but needs something this evaluator does not model (D11)."""


class Result:
    def __init__(self, rgba, discard, trace):
        self.rgba = rgba
        self.rgba8 = [to_byte(x) for x in rgba]
        self.discard = discard
        self.trace = trace


# --- small helpers ---------------------------------------------------------------------------------

def word(value):
    """A word or colour of the vector format: "0x..." hex string (either case) or a JSON integer."""
    if isinstance(value, bool):
        raise ValueError("boolean where a word was expected")
    if isinstance(value, int):
        result = value
    elif isinstance(value, str) and value[:2] in ("0x", "0X") and len(value) > 2:
        result = int(value[2:], 16)
    else:
        raise ValueError("bad word %r" % (value,))
    if not 0 <= result <= 0xFFFFFFFF:
        raise ValueError("word out of range %r" % (value,))
    return result


def colour(value):
    """0xAARRGGBB -> [r, g, b, a], each channel k/255."""
    w = word(value)
    return [((w >> 16) & 0xFF) / 255.0, ((w >> 8) & 0xFF) / 255.0, (w & 0xFF) / 255.0,
            ((w >> 24) & 0xFF) / 255.0]


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def to_byte(x):
    """D1: round(clamp(x, 0, 1) * 255), half up. The 1e-9 absorbs float noise of k/255 arithmetic."""
    return int(math.floor(clamp(x, 0.0, 1.0) * 255.0 + 0.5 + 1e-9))


def fog_factor(value):
    """A number, or a float32 bit pattern string (vector format)."""
    if isinstance(value, str):
        import struct
        return struct.unpack("<f", struct.pack("<I", word(value)))[0]
    return float(value)


def apply_mapping(mapping, e):
    if mapping == 0:
        return max(0.0, e)
    if mapping == 1:
        return 1.0 - clamp(e, 0.0, 1.0)
    if mapping == 2:
        return 2.0 * max(0.0, e) - 1.0
    if mapping == 3:
        return -2.0 * max(0.0, e) + 1.0
    if mapping == 4:
        return max(0.0, e) - 0.5
    if mapping == 5:
        return -max(0.0, e) + 0.5
    if mapping == 6:
        return e
    return -e


def apply_op(op, x):
    """Every general-combiner output: clamp((x + bias) * scale, -1, 1): one clamp, after both."""
    bias, scale = OPS[op]
    return clamp((x + bias) * scale, -1.0, 1.0)


def split_inputs(w):
    """A<<24|B<<16|C<<8|D -> (A, B, C, D) input bytes."""
    return (w >> 24) & 0xFF, (w >> 16) & 0xFF, (w >> 8) & 0xFF, w & 0xFF


def decode_output(w):
    return {"cd": w & 0xF, "ab": (w >> 4) & 0xF, "sum": (w >> 8) & 0xF, "cd_dot": bool(w >> 12 & 1),
            "ab_dot": bool(w >> 13 & 1), "mux": bool(w >> 14 & 1), "op": (w >> 15) & 7,
            "cd_b2a": bool(w >> 18 & 1), "ab_b2a": bool(w >> 19 & 1)}


def stage_count(program):
    return word(program["combiner_control"]) & 0xFF


def texture_mode_value(mode):
    if isinstance(mode, bool):
        raise ValueError("bad texture mode")
    if isinstance(mode, int):
        return mode
    if mode in TEXTURE_MODES:
        return TEXTURE_MODES.index(mode)
    raise ValueError("unknown texture mode %r" % (mode,))


# --- validation (guests/nv2a/README.md, "Invalid or unknown encodings are rejection reasons") -----------

def validate(program):
    """Returns the list of rejection reasons of a program; [] means every encoding is valid."""
    reasons = []
    cc = word(program["combiner_control"])
    n = cc & 0xFF
    if n == 0 or n > 8:
        reasons.append("stage count %d outside 1-8" % n)
    if cc & ~0x000111FF:
        reasons.append("undocumented COMBINECTL bits 0x%08x" % (cc & ~0x000111FF))
    for field in ("rgb_inputs", "rgb_outputs", "alpha_inputs", "alpha_outputs"):
        if not 1 <= len(program[field]) <= 8 or len(program[field]) < min(n, 8):
            reasons.append("%s has %d entries for %d stages" % (field, len(program[field]), n))
    if reasons:
        return reasons
    for i in range(n):
        for portion in ("rgb", "alpha"):
            for slot, byte in zip("ABCD", split_inputs(word(program[portion + "_inputs"][i]))):
                reg, alpha = byte & 0xF, byte & 0x10
                where = "stage %d %s %s" % (i, portion, slot)
                if reg in (6, 7):
                    reasons.append("%s: invalid register %d" % (where, reg))
                elif reg in (V1R0_SUM, EF_PROD):
                    reasons.append("%s: register %d only legal in the final combiner" % (where, reg))
                elif reg == FOG and alpha:
                    reasons.append("%s: fog alpha in a general stage" % where)
            w = word(program[portion + "_outputs"][i])
            out = decode_output(w)
            where = "stage %d %s output" % (i, portion)
            if w >> 20:
                reasons.append("%s: undocumented bits 0x%08x" % (where, w & 0xFFF00000))
            if portion == "alpha" and (out["ab_dot"] or out["cd_dot"] or out["ab_b2a"] or out["cd_b2a"]):
                reasons.append("%s: dot or blue-to-alpha flag in an alpha output word" % where)
            if out["op"] in (5, 7):
                reasons.append("%s: reserved op %d" % (where, out["op"]))
            dsts = [out["ab"], out["cd"], out["sum"]]
            for d in dsts:
                if d != 0 and d not in WRITABLE:
                    reasons.append("%s: destination %d not writable" % (where, d))
            nonzero = [d for d in dsts if d != 0]
            if len(nonzero) != len(set(nonzero)):
                reasons.append("%s: two equal destinations" % where)
    fin = program["final_inputs"]
    if len(fin) != 2:
        reasons.append("final_inputs must hold 2 words")
        return reasons
    cw0, cw1 = word(fin[0]), word(fin[1])
    if cw0 or cw1:
        a, b, c, d = split_inputs(cw0)
        e, f, g, flags = split_inputs(cw1)
        for slot, byte in zip("ABCDEFG", (a, b, c, d, e, f, g)):
            reg, alpha, mapping = byte & 0xF, byte & 0x10, byte >> 5
            where = "final %s" % slot
            if reg in (6, 7):
                reasons.append("%s: invalid register %d" % (where, reg))
            if reg == V1R0_SUM and slot not in "BCD":
                reasons.append("%s: spare0+secondary outside B/C/D" % where)
            if reg == EF_PROD and slot not in "ABCD":
                reasons.append("%s: E*F outside A-D" % where)
            if reg in (V1R0_SUM, EF_PROD) and alpha:
                reasons.append("%s: alpha of register %d" % (where, reg))
            if mapping > 1:
                reasons.append("%s: mapping %s not allowed in the final combiner"
                               % (where, MAPPING_NAMES[mapping]))
        if flags & 0x1F:
            reasons.append("final_inputs[1]: undocumented flag bits 0x%02x" % (flags & 0x1F))
    modes = program.get("texture_modes", ["none"] * 4)
    for i, mode in enumerate(modes):
        try:
            texture_mode_value(mode)
        except ValueError as error:
            reasons.append("texture stage %d: %s" % (i, error))
    if reasons:
        return reasons
    reasons.extend(reference_texture.validate_texture(program))
    reasons.extend(undefined_texture_reads(program, n))
    test = program.get("alpha_test", {"enabled": False, "func": "always"})
    if test.get("func", "always") not in ALPHA_FUNCS:
        reasons.append("alpha_test: unknown func %r" % test.get("func"))
    return reasons


def undefined_texture_reads(program, n):
    """Combiner reads of a T that its texture stage leaves undefined (clipplane, dot_product, dot_zw), and of
    r0.a while it holds a clipplane stage 0's undefined T0.a (until a stage writes r0.a)."""
    bad, r0_undefined = reference_texture.undefined_t_registers(program)
    reasons = []
    if not bad:
        return reasons
    for i in range(n):
        for portion in ("rgb", "alpha"):
            for byte in split_inputs(word(program[portion + "_inputs"][i])):
                if (byte & 0xF) in bad or (r0_undefined and (byte & 0xF) == R0 and byte & 0x10):
                    reasons.append("stage %d %s: reads an undefined texture register" % (i, portion))
        rgb_out, alpha_out = decode_output(word(program["rgb_outputs"][i])), decode_output(word(program["alpha_outputs"][i]))
        if R0 in (alpha_out["ab"], alpha_out["cd"], alpha_out["sum"]) or \
                (rgb_out["ab_b2a"] and rgb_out["ab"] == R0) or (rgb_out["cd_b2a"] and rgb_out["cd"] == R0):
            r0_undefined = False
    cw0, cw1 = (word(w) for w in program["final_inputs"])
    for byte in split_inputs(cw0) + split_inputs(cw1)[:3]:
        if (byte & 0xF) in bad or (r0_undefined and (byte & 0xF) == R0 and byte & 0x10):
            reasons.append("final combiner: reads an undefined texture register")
    return reasons


# --- evaluation ------------------------------------------------------------------------------------

def evaluate(program, inputs, want_trace=False):
    reasons = validate(program)
    if reasons:
        raise InvalidProgram("; ".join(reasons))
    cc = word(program["combiner_control"])
    n = cc & 0xFF
    mux_msb = bool(cc & 0x100)
    unique_c0 = bool(cc & 0x1000)
    unique_c1 = bool(cc & 0x10000)

    # Runtime inputs, with the format's defaults (missing constants are 0).
    c0s = [colour(c) for c in inputs.get("c0", [])]
    c1s = [colour(c) for c in inputs.get("c1", [])]
    zero4 = [0.0, 0.0, 0.0, 0.0]

    def constant(array, unique, stage):
        index = stage if unique else 0
        return list(array[index]) if index < len(array) else list(zero4)

    regs = {ZERO: list(zero4), V0: colour(inputs.get("v0", 0)), V1: colour(inputs.get("v1", 0))}
    fog_rgb = colour(inputs.get("fog_color", 0))[:3]
    regs[FOG] = fog_rgb + [clamp(fog_factor(inputs.get("fog_factor", 1.0)), 0.0, 1.0)]   # D9
    t_regs, texture_discard, depth = reference_texture.texture_stage(program, inputs)
    for i in range(4):
        regs[T0 + i] = list(t_regs[i])
    regs[R0] = [0.0, 0.0, 0.0, regs[T0][3]]
    regs[R1] = list(zero4)

    trace = []
    if want_trace:
        trace.append(("entry", {k: list(v) for k, v in regs.items()}))

    for i in range(n):
        regs[C0] = constant(c0s, unique_c0, i)
        regs[C1] = constant(c1s, unique_c1, i)
        entry = {k: list(v) for k, v in regs.items()}     # delayed writes: read from stage entry
        spare0_a = entry[R0][3]
        if mux_msb:
            select_cd = spare0_a >= 0.5
        else:
            select_cd = bool(to_byte(spare0_a) & 1)      # D4
        writes = []   # (register, channel index, value), applied in order after both portions

        # RGB portion.
        w_in = word(program["rgb_inputs"][i])
        out = decode_output(word(program["rgb_outputs"][i]))
        vals = []
        for byte in split_inputs(w_in):
            reg = entry[byte & 0xF]
            src = [reg[3]] * 3 if byte & 0x10 else reg[:3]
            vals.append([apply_mapping(byte >> 5, x) for x in src])
        a, b, c, d = vals
        ab = [sum(x * y for x, y in zip(a, b))] * 3 if out["ab_dot"] else [x * y for x, y in zip(a, b)]
        cd = [sum(x * y for x, y in zip(c, d))] * 3 if out["cd_dot"] else [x * y for x, y in zip(c, d)]
        if out["mux"]:
            s = list(cd) if select_cd else list(ab)
        else:
            s = [x + y for x, y in zip(ab, cd)]    # from the unclamped, unscaled products
        ab_o = [apply_op(out["op"], x) for x in ab]
        cd_o = [apply_op(out["op"], x) for x in cd]
        s_o = [apply_op(out["op"], x) for x in s]
        for dst, value, b2a in ((out["ab"], ab_o, out["ab_b2a"]), (out["cd"], cd_o, out["cd_b2a"]),
                                (out["sum"], s_o, False)):
            if dst:
                for ch in range(3):
                    writes.append((dst, ch, value[ch]))
                if b2a:                                   # D5
                    writes.append((dst, 3, value[2]))

        # Alpha portion.
        w_in = word(program["alpha_inputs"][i])
        out = decode_output(word(program["alpha_outputs"][i]))
        vals = []
        for byte in split_inputs(w_in):
            reg = entry[byte & 0xF]
            vals.append(apply_mapping(byte >> 5, reg[3] if byte & 0x10 else reg[2]))
        a, b, c, d = vals
        ab, cd = a * b, c * d
        s = (cd if select_cd else ab) if out["mux"] else ab + cd
        for dst, value in ((out["ab"], ab), (out["cd"], cd), (out["sum"], s)):
            if dst:
                writes.append((dst, 3, apply_op(out["op"], value)))

        for dst, ch, value in writes:                     # alpha portion last: it wins on X.a
            regs[dst][ch] = value
        if want_trace:
            trace.append(("after stage %d" % i, {k: list(v) for k, v in regs.items()}))

    # Final combiner.
    cw0, cw1 = (word(w) for w in program["final_inputs"])
    if cw0 == 0 and cw1 == 0:
        rgba = [0.0, 0.0, 0.0, 0.0]                       # D10
    else:
        regs[C0] = colour(inputs.get("final_c0", 0))
        regs[C1] = colour(inputs.get("final_c1", 0))
        fa, fb, fc, fd = split_inputs(cw0)
        fe, ff, fg, flags = split_inputs(cw1)

        def read_rgb(byte, special):
            reg = byte & 0xF
            if reg in special:
                src = special[reg]
            else:
                v = regs[reg]
                src = [v[3]] * 3 if byte & 0x10 else v[:3]
            return [apply_mapping(byte >> 5, x) for x in src]

        e = read_rgb(fe, {})
        f = read_rgb(ff, {})
        ef = [x * y for x, y in zip(e, f)]
        r_part = [max(0.0, x) for x in regs[R0][:3]]      # D8
        v_part = [max(0.0, x) for x in regs[V1][:3]]
        if flags & 0x20:
            r_part = [1.0 - x for x in r_part]
        if flags & 0x40:
            v_part = [1.0 - x for x in v_part]
        spare_sum = [x + y for x, y in zip(r_part, v_part)]
        if flags & 0x80:
            spare_sum = [clamp(x, 0.0, 1.0) for x in spare_sum]
        special = {V1R0_SUM: spare_sum, EF_PROD: ef}
        a, b, c, d = (read_rgb(x, special) for x in (fa, fb, fc, fd))
        rgb = [min(a[k] * b[k] + (1.0 - a[k]) * c[k] + d[k], 1.0) for k in range(3)]
        g_reg = regs[fg & 0xF]
        alpha = apply_mapping(fg >> 5, g_reg[3] if fg & 0x10 else g_reg[2])
        rgba = rgb + [alpha]
        if want_trace:
            trace.append(("final", {"A": a, "B": b, "C": c, "D": d, "E": e, "F": f, "EF": ef,
                                    "spare0+secondary": spare_sum, "G": [alpha]}))

    test = program.get("alpha_test", {"enabled": False, "func": "always"})
    discard = texture_discard
    if test.get("enabled", False):
        a8 = to_byte(rgba[3])
        discard = discard or not ALPHA_FUNCS[test.get("func", "always")](a8, int(inputs.get("alpha_ref", 0)))
    result = Result(rgba, discard, trace)
    result.depth_z16 = depth
    return result


def _format_regs(regs):
    names = {V0: "v0", V1: "v1", T0: "t0", T1: "t1", T2: "t2", T3: "t3", R0: "r0", R1: "r1", FOG: "fog",
             C0: "c0", C1: "c1"}
    parts = []
    for key in sorted(regs, key=str):
        label = names.get(key, str(key))
        parts.append("%s=(%s)" % (label, ", ".join("%.4f" % x for x in regs[key])))
    return " ".join(parts)


def main(argv):
    if len(argv) < 2:
        print("usage: reference_nv2a.py FILE.json [CASE_NAME]", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    only = argv[2] if len(argv) > 2 else None
    for case in doc["cases"]:
        if only and case["name"] != only:
            continue
        result = evaluate(case["program"], case["inputs"], want_trace=bool(only))
        print("%s: rgba8=%s discard=%s" % (case["name"], result.rgba8, str(result.discard).lower()))
        for label, regs in result.trace:
            print("  %s: %s" % (label, _format_regs(regs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
