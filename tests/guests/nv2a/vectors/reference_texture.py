#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent reference of the NV2A texture-shader stage (shaderbake-vectors/2), for reference_nv2a.py.

Written from the texture-shader semantics (guests/nv2a/README.md, Texture shader, and the NV2A texture-shader
notes it cites: the register table, every mode, the dot mappings, signed channels, alpha kill, colour key),
sharing no code with guests/ or lib/. Python 3 standard library only.

    T, discard, depth = texture_stage(program, inputs)   # T: four [r, g, b, a] float registers
    reasons = validate_texture(program)                 # [] when the texture shader's fields are valid

Choices where hardware is unknown, the same the README states:
  X1  passthru clamps (s, t, r, q) to [0, 1].
  X2  alpha kill is tested on the fetched texel (XRGB alpha reads 0xFF) before the colour key.
  X3  a stage's texel, after its colour key and (bumpenvmap_luminance) its luminance scaling, is both T and
      the source a later stage reads.
  X4  luminance-scaled bytes are kept within 0..255; dot_zw's depth within 0..65535, a NaN quotient 0.
  X5  a zero reflection normal gives R = -E; a zero cube direction reads the centre of +X.
"""

import math

MODES = ["none", "project2d", "project3d", "cube", "passthru", "clipplane", "bumpenvmap",
         "bumpenvmap_luminance", "brdf", "dot_st", "dot_zw", "dot_rflct_diff", "dot_rflct_spec",
         "dot_str_3d", "dot_str_cube", "dependent_ar", "dependent_gb", "dot_product",
         "dot_rflct_spec_const"]
(NONE, PROJECT2D, PROJECT3D, CUBE, PASSTHRU, CLIPPLANE, BUMP, BUMP_LUM, BRDF, DOT_ST, DOT_ZW, RFLCT_DIFF,
 RFLCT_SPEC, STR_3D, STR_CUBE, DEP_AR, DEP_GB, DOT_PRODUCT, RFLCT_SPEC_CONST) = range(19)
LEGAL = {NONE: {0, 1, 2, 3}, PROJECT2D: {0, 1, 2, 3}, PROJECT3D: {0, 1, 2, 3}, CUBE: {0, 1, 2, 3},
         PASSTHRU: {0, 1, 2, 3}, CLIPPLANE: {0, 1, 2, 3}, BUMP: {1, 2, 3}, BUMP_LUM: {1, 2, 3},
         BRDF: {2, 3}, DOT_ST: {2, 3}, DOT_ZW: {2, 3}, RFLCT_DIFF: {2}, RFLCT_SPEC: {3}, STR_3D: {3},
         STR_CUBE: {3}, DEP_AR: {1, 2, 3}, DEP_GB: {1, 2, 3}, DOT_PRODUCT: {1, 2}, RFLCT_SPEC_CONST: {3}}
DOT_MODES = {DOT_PRODUCT, DOT_ST, DOT_ZW, RFLCT_DIFF, RFLCT_SPEC, STR_3D, STR_CUBE, RFLCT_SPEC_CONST}
INPUT_MODES = DOT_MODES | {BUMP, BUMP_LUM, DEP_AR, DEP_GB}
SAMPLER = {PROJECT2D: "2d", BUMP: "2d", BUMP_LUM: "2d", DOT_ST: "2d", DEP_AR: "2d", DEP_GB: "2d",
           PROJECT3D: "3d", BRDF: "3d", STR_3D: "3d",
           CUBE: "cube", RFLCT_DIFF: "cube", RFLCT_SPEC: "cube", STR_CUBE: "cube", RFLCT_SPEC_CONST: "cube"}
T_UNDEFINED = {CLIPPLANE, DOT_PRODUCT, DOT_ZW}
KEY_NAMES = ["none", "kill_alpha", "kill_color", "discard"]


def _word(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    return int(v[2:], 16)


def _float(v):
    if isinstance(v, str):
        import struct
        return struct.unpack("<f", struct.pack("<I", _word(v)))[0]
    return float(v)


def _int8(x):
    return x - 256 if x >= 128 else x


def _int16(x):
    return x - 65536 if x >= 32768 else x


def effective_modes(program):
    modes = program.get("texture_modes", ["none"] * 4)
    enabled = program.get("texture_enabled", [False] * 4)
    out = []
    for i in range(4):
        m = modes[i] if isinstance(modes[i], int) else MODES.index(modes[i])
        out.append(m if enabled[i] else NONE)
    return out


def input_stage(program, i):
    word = _word(program.get("other_stage_input", 0))
    return {0: 0, 1: 0, 2: (word >> 16) & 0xF, 3: (word >> 20) & 0xF}[i]


def dot_mapping(program, i):
    return 0 if i == 0 else (_word(program.get("dot_rgb_mapping", 0)) >> (4 * (i - 1))) & 0xF


def signed_mask(program, i):
    return set(program.get("texture_signed", [""] * 4)[i])


def controls(program, i):
    c = program.get("texture_control", [{}] * 4)[i]
    key = c.get("color_key", "none")
    return bool(c.get("alpha_kill", False)), (key if isinstance(key, int) else KEY_NAMES.index(key))


def is_xrgb(program, i):
    return program.get("texture_formats", ["argb8"] * 4)[i] == "xrgb8"


def validate_texture(program):
    """The texture shader's rejection reasons (empty: valid)."""
    reasons = []
    if _word(program.get("dot_rgb_mapping", 0)) & ~0xFFF or _word(program.get("other_stage_input", 0)) & ~0xFF0000 \
            or _word(program.get("clip_plane_mode", 0)) & ~0xFFFF:
        reasons.append("undocumented bits in a texture-shader word")
    m = effective_modes(program)
    for i in range(4):
        if m[i] > 18:
            reasons.append("stage %d: reserved mode %d" % (i, m[i]))
            continue
        if i not in LEGAL[m[i]]:
            reasons.append("stage %d: %s is illegal here" % (i, MODES[m[i]]))
            continue
        if m[i] == BRDF:
            reasons.append("stage %d: brdf (delta phi sign unknown)" % i)
        if m[i] in (DOT_ST, DOT_ZW) and m[i - 1] != DOT_PRODUCT:
            reasons.append("stage %d: needs dot_product before it" % i)
        if m[i] in (STR_3D, STR_CUBE) and (m[1] != DOT_PRODUCT or m[2] != DOT_PRODUCT):
            reasons.append("stage 3: needs dot_product in stages 1 and 2")
        if m[i] == RFLCT_DIFF and (m[1] != DOT_PRODUCT or m[3] not in (RFLCT_SPEC, RFLCT_SPEC_CONST)):
            reasons.append("stage 2: dot_rflct_diff needs dot_product in 1 and a reflect mode in 3")
        if m[i] in (RFLCT_SPEC, RFLCT_SPEC_CONST) and (m[1] != DOT_PRODUCT or m[2] not in (DOT_PRODUCT, RFLCT_DIFF)):
            reasons.append("stage 3: reflect needs dot_product in 1 and dot_product or dot_rflct_diff in 2")
        if m[i] in INPUT_MODES:
            src = input_stage(program, i)
            if src >= i or m[src] not in SAMPLER:
                reasons.append("stage %d: input stage %d is not an earlier stage with a texel" % (i, src))
            elif i == 3 and src == 2 and m[2] == RFLCT_DIFF:
                reasons.append("stage 3: reads stage 2, whose N needs stage 3")
            elif (m[i] == DEP_AR and signed_mask(program, src) & {"a", "r"}) or \
                    (m[i] == DEP_GB and signed_mask(program, src) & {"g", "b"}):
                reasons.append("stage %d: dependent read of a signed channel" % i)
        if m[i] in DOT_MODES and (dot_mapping(program, i) in (5, 6) or dot_mapping(program, i) > 7):
            reasons.append("stage %d: dot mapping %d" % (i, dot_mapping(program, i)))
    return reasons


def undefined_t_registers(program):
    """Texture registers (8-11) a combiner may not read, and whether r0.a starts undefined."""
    m = effective_modes(program)
    regs = {8 + i for i in range(4) if m[i] in T_UNDEFINED}
    return regs, m[0] in T_UNDEFINED


# --- sampling ---------------------------------------------------------------------------------------

def _index(coord, size):
    if math.isnan(coord):
        return 0
    return int(min(max(math.floor(coord * size), 0), size - 1))


class Texture:
    def __init__(self, value):
        if isinstance(value, dict):
            if "faces" in value:
                self.kind, self.w, self.h, self.d = "cube", value["size"], value["size"], 1
                self.texels = [_word(t) for face in value["faces"] for t in face]
            else:
                self.kind = "3d" if "depth" in value else "2d"
                self.w, self.h, self.d = value["width"], value["height"], value.get("depth", 1)
                self.texels = [_word(t) for t in value["texels"]]
        else:
            self.kind, self.w, self.h, self.d, self.texels = "flat", 1, 1, 1, [_word(value)]

    def fetch(self, kind, coords):
        if self.kind == "flat":
            return self.texels[0]
        if kind != self.kind:
            raise ValueError("a %s texture where the stage samples %s" % (self.kind, kind))
        if kind == "2d":
            s, t = coords
            return self.texels[_index(t, self.h) * self.w + _index(s, self.w)]
        if kind == "3d":
            s, t, r = coords
            return self.texels[(_index(r, self.d) * self.h + _index(t, self.h)) * self.w + _index(s, self.w)]
        x, y, z = coords   # Vulkan cube face selection
        ax, ay, az = abs(x), abs(y), abs(z)
        if ax >= ay and ax >= az:
            face, sc, tc, ma = (0, -z, -y, ax) if x >= 0 else (1, z, -y, ax)
        elif ay >= az:
            face, sc, tc, ma = (2, x, z, ay) if y >= 0 else (3, x, -z, ay)
        else:
            face, sc, tc, ma = (4, x, -y, az) if z >= 0 else (5, -x, -y, az)
        s = 0.5 * (sc / ma + 1) if ma > 0 else 0.5
        t = 0.5 * (tc / ma + 1) if ma > 0 else 0.5
        return self.texels[(face * self.w + _index(t, self.w)) * self.w + _index(s, self.w)]


def _channels(texel):
    return (texel >> 24) & 0xFF, (texel >> 16) & 0xFF, (texel >> 8) & 0xFF, texel & 0xFF   # a, r, g, b


def _dot_map(mapping, texel):
    a, r, g, b = _channels(texel)
    if mapping == 0:
        return [x / 255 for x in (r, g, b)]
    if mapping == 1:
        return [(x - 128) / 127 for x in (r, g, b)]
    if mapping == 2:
        return [(_int8(x) + 0.5) / 127.5 for x in (r, g, b)]
    if mapping == 3:
        return [_int8(x) / 127 for x in (r, g, b)]
    h, l = a << 8 | r, g << 8 | b
    if mapping == 4:
        return [h / 65535, l / 65535, 1.0]
    hh, ll = _int16(h) / 32767, _int16(l) / 32767
    return [hh, ll, math.sqrt(max(0.0, 1 - hh * hh - ll * ll))]


def texture_stage(program, inputs):
    """T0-T3 as the combiners read them, the discard verdict, and dot_zw's depth (or None)."""
    m = effective_modes(program)
    textures = [Texture(t) for t in (inputs.get("textures", []) + ["0x00000000"] * 4)[:4]]
    tc = [[_float(x) for x in c] for c in (inputs.get("texcoords", []) + [[0, 0, 0, 1]] * 4)[:4]]
    bump = (inputs.get("bump_env", []) + [{}] * 4)[:4]
    keys = [_word(k) for k in (inputs.get("color_keys", []) + ["0x00000000"] * 4)[:4]]
    eye = [_float(x) for x in inputs.get("eye_vector", [0, 0, 0])]
    clip = _word(program.get("clip_plane_mode", 0))
    T = [[0.0, 0.0, 0.0, 1.0] for _ in range(4)]
    texel = [0, 0, 0, 0]
    dots = [0.0] * 4
    discard = False
    depth = None

    def dot(i):
        mm = _dot_map(dot_mapping(program, i), texel[input_stage(program, i)])
        return tc[i][0] * mm[0] + tc[i][1] * mm[1] + tc[i][2] * mm[2]

    def take(i, fetched):
        nonlocal discard
        value = fetched | 0xFF000000 if is_xrgb(program, i) else fetched
        kill, key_mode = controls(program, i)
        if kill and (value >> 24) == 0:                 # X2
            discard = True
        mask = 0x00FFFFFF if is_xrgb(program, i) else 0xFFFFFFFF
        if (value & mask) == (keys[i] & mask):
            if key_mode == 1:
                value &= 0x00FFFFFF
            elif key_mode == 2:
                value = 0
            elif key_mode == 3:
                discard = True
        texel[i] = value

    def cube(i, v):
        take(i, textures[i].fetch("cube", v))

    for i in range(4):
        mode, c = m[i], tc[i]
        if mode == NONE:
            continue
        if mode == PASSTHRU:                             # X1
            T[i] = [min(max(x, 0.0), 1.0) for x in c]
            continue
        if mode == CLIPPLANE:
            nibble = (clip >> (4 * i)) & 0xF
            for k in range(4):
                if (c[k] >= 0) if (nibble >> k) & 1 else (c[k] < 0):
                    discard = True
            continue
        if mode == PROJECT2D:
            take(i, textures[i].fetch("2d", (c[0] / c[3], c[1] / c[3])))
        elif mode == PROJECT3D:
            take(i, textures[i].fetch("3d", (c[0] / c[3], c[1] / c[3], c[2] / c[3])))
        elif mode == CUBE:
            cube(i, (c[0], c[1], c[2]))
        elif mode in (BUMP, BUMP_LUM):
            src = texel[input_stage(program, i)]
            _, sr, sg, sb = _channels(src)
            du, dv = _int8(sb) / 128, _int8(sg) / 128
            w = [_float(x) for x in bump[i].get("matrix", [0, 0, 0, 0])]
            take(i, textures[i].fetch("2d", (c[0] + w[0] * du + w[3] * dv, c[1] + w[1] * du + w[2] * dv)))
            if mode == BUMP_LUM:
                f = _float(bump[i].get("scale", 0)) * sr / 255 + _float(bump[i].get("offset", 0))
                a, r, g, b = _channels(texel[i])
                r, g, b = [int(min(max(math.floor(x * f), 0), 255)) for x in (r, g, b)]   # X4
                texel[i] = a << 24 | r << 16 | g << 8 | b
        elif mode == DOT_PRODUCT:
            dots[i] = dot(i)
            continue
        elif mode == DOT_ST:
            dots[i] = dot(i)
            take(i, textures[i].fetch("2d", (dots[i - 1], dots[i])))
        elif mode == DOT_ZW:
            dots[i] = dot(i)
            if dots[i] != 0:
                q = dots[i - 1] / dots[i]
            else:   # IEEE division by a signed zero
                q = math.nan if dots[i - 1] == 0 else math.copysign(math.inf, dots[i - 1]) * math.copysign(1, dots[i])
            depth = 0 if math.isnan(q) else int(min(max(math.floor(q), 0), 65535))
            continue
        elif mode == RFLCT_DIFF:
            dots[i] = dot(i)
            cube(i, (dots[1], dots[2], dot(3)))
        elif mode in (RFLCT_SPEC, RFLCT_SPEC_CONST):
            dots[i] = dot(i)
            n = dots[1:4]
            e = [tc[1][3], tc[2][3], tc[3][3]] if mode == RFLCT_SPEC else eye
            nn = sum(x * x for x in n)
            k = 2 * sum(a * b for a, b in zip(n, e)) / nn if nn > 0 else 0.0   # X5
            cube(i, tuple(k * a - b for a, b in zip(n, e)))
        elif mode in (STR_3D, STR_CUBE):
            dots[i] = dot(i)
            if mode == STR_3D:
                take(i, textures[i].fetch("3d", tuple(dots[1:4])))
            else:
                cube(i, tuple(dots[1:4]))
        elif mode in (DEP_AR, DEP_GB):
            sa, sr, sg, sb = _channels(texel[input_stage(program, i)])
            s, t = (sa, sr) if mode == DEP_AR else (sg, sb)
            take(i, textures[i].fetch("2d", (s / 255, t / 255)))
        a, r, g, b = _channels(texel[i])
        signed = signed_mask(program, i)
        conv = lambda x, ch: 2 * _int8(x) / 255 if ch in signed else x / 255
        T[i] = [conv(r, "r"), conv(g, "g"), conv(b, "b"), conv(a, "a")]
    return T, discard, depth
