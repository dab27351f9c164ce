#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes texture_shader.json (shaderbake-vectors/2): the NV2A texture-shader stage, case by case.

Every expected value was derived by hand from the texture-shader semantics (guests/nv2a/README.md, Texture
shader) and is written here as a constant with its derivation ("check"); nothing here evaluates a program.
../check_reference.py confirms the values against the independent Python reference afterwards, and
`shaderbake check-vectors --engine oracle` against the project's oracle.

Usage: build_texture_vectors.py [OUTPUT_DIR]   (default: the folder of this script)
"""

import json
import os
import sys

T0, T1, T2, T3 = 8, 9, 10, 11
ONE = 0x20            # register zero through unsigned invert: 1
ALPHA = 0x10


def show(reg, signed_negate=False):
    """A one-stage program whose output is texture register `reg` (rgb and alpha): r0 = T * 1, out = r0."""
    mapping = 0xE0 if signed_negate else 0x00
    return {
        "combiner_control": "0x00000001",
        "rgb_inputs": ["0x%08X" % ((reg | mapping) << 24 | ONE << 16)],
        "rgb_outputs": ["0x000000C0"],
        "alpha_inputs": ["0x%08X" % ((reg | ALPHA) << 24 | ONE << 16)],
        "alpha_outputs": ["0x000000C0"],
        "final_inputs": ["0x0000000C", "0x00001C00"],
    }


def program(reg, modes, enabled=None, signed_negate=False, **fields):
    p = show(reg, signed_negate)
    p["texture_modes"] = modes
    p["texture_enabled"] = enabled if enabled is not None else [m != "none" for m in modes]
    p.update(fields)
    return p


def case(name, prog, inputs, expect, check):
    if "texcoords" in inputs:   # the format wants all four stages: the rest (0, 0, 0, 1)
        inputs["texcoords"] = inputs["texcoords"] + [[0, 0, 0, 1]] * (4 - len(inputs["texcoords"]))
    return {"name": name, "program": prog, "inputs": inputs, "expect": expect,
            "provenance": "NV2A texture-shader semantics (guests/nv2a/README.md, Texture shader)", "check": check}


def rgba(r, g, b, a, tolerance=1):
    return {"rgba8": [r, g, b, a], "tolerance": tolerance}


def image(width, height, texels):
    return {"width": width, "height": height, "texels": texels}


def grid(width, height, special):
    """A width x height image of opaque black with the texels of `special` ({index: colour})."""
    return image(width, height, [special.get(i, "0xFF000000") for i in range(width * height)])


def cube_faces(colours):
    return {"size": 1, "faces": [[c] for c in colours]}


FACES = ["0xFF010101", "0xFF020202", "0xFF030303", "0xFF040404", "0xFF050505", "0xFF060606"]
N_X = "0xFFFF0000"    # a texel whose zero_to_one mapping is (1, 0, 0): dot_i = s_i


def cases():
    out = []
    # ---- passthru ----
    out.append(case("passthru_reads_strq", program(T0, ["passthru", "none", "none", "none"]),
                    {"texcoords": [[0.25, 0.5, 0.75, 1.5]]}, rgba(64, 128, 191, 255),
                    "T0 = clamp((0.25, 0.5, 0.75, 1.5)) = (0.25, 0.5, 0.75, 1); x255: 63.75->64, 127.5->128, 191.25->191, 255"))
    out.append(case("passthru_clamps_below_and_above", program(T0, ["passthru", "none", "none", "none"]),
                    {"texcoords": [[-0.5, 2.0, 0.0, 0.0]]}, rgba(0, 255, 0, 0),
                    "clamp((-0.5, 2, 0, 0)) = (0, 1, 0, 0)"))
    # ---- clipplane ----
    clip1 = program(T0, ["project2d", "clipplane", "none", "none"])
    out.append(case("clipplane_discards_a_negative_coordinate", clip1,
                    {"textures": ["0xFF336699"], "texcoords": [[0, 0, 0, 1], [0.1, -0.2, 0.3, 0.4]]},
                    {"discard": True}, "stage 1 nibble 0: discard when any coordinate < 0; t = -0.2"))
    out.append(case("clipplane_keeps_non_negative_coordinates", clip1,
                    {"textures": ["0xFF336699"], "texcoords": [[0, 0, 0, 1], [0.1, 0.0, 0.3, 0.4]]},
                    rgba(0x33, 0x66, 0x99, 255), "all >= 0 (t = 0 is not < 0): kept; output t0 = 0xFF336699"))
    clip_s = program(T0, ["project2d", "clipplane", "none", "none"], clip_plane_mode="0x00000010")
    out.append(case("clipplane_bit_set_discards_a_non_negative_coordinate", clip_s,
                    {"textures": ["0xFF336699"], "texcoords": [[0, 0, 0, 1], [0.5, 1, 1, 1]]},
                    {"discard": True}, "stage 1 nibble 0b0001: s discards when s >= 0; s = 0.5"))
    out.append(case("clipplane_bit_set_keeps_a_negative_coordinate", clip_s,
                    {"textures": ["0xFF336699"], "texcoords": [[0, 0, 0, 1], [-0.5, 1, 1, 1]]},
                    rgba(0x33, 0x66, 0x99, 255), "s = -0.5 < 0 with bit 0 set: kept; t, r, q >= 0 with bits clear: kept"))
    # ---- bump-env ----
    src = "0xFF80C040"   # B = 0x40 -> du = 64/128 = 0.5; G = 0xC0 -> int8 -64 -> dv = -0.5; R = 0x80
    bump_tex = image(4, 1, ["0xFF000000", "0x80204060", "0xFF0000FF", "0xFF00FF00"])
    bump_dyn = [{}, {"matrix": [0.5, 0, 0, 0.1], "scale": 0.5, "offset": 0.25}, {}, {}]
    out.append(case("bumpenvmap_offsets_the_fetch", program(T1, ["project2d", "bumpenvmap", "none", "none"]),
                    {"textures": [src, bump_tex], "texcoords": [[0, 0, 0, 1], [0.125, 0.5, 0, 1]], "bump_env": bump_dyn},
                    rgba(0x20, 0x40, 0x60, 0x80),
                    "s' = 0.125 + W0*du + W3*dv = 0.125 + 0.25 - 0.05 = 0.325 -> texel floor(1.3) = 1 (0x80204060); "
                    "t' = 0.5 + W1*du + W2*dv = 0.5 -> row 0"))
    out.append(case("bumpenvmap_luminance_scales_rgb_by_floor", program(T1, ["project2d", "bumpenvmap_luminance", "none", "none"]),
                    {"textures": [src, bump_tex], "texcoords": [[0, 0, 0, 1], [0.125, 0.5, 0, 1]], "bump_env": bump_dyn},
                    rgba(16, 32, 48, 0x80, tolerance=0),
                    "texel 1 as above; L = 0x80/255; f = 0.5 L + 0.25 = 0.50098; floor(32 f) = 16, floor(64 f) = 32, "
                    "floor(96 f) = 48; alpha 0x80 unchanged"))
    big = [{}, {"matrix": [0.5, 0, 0, 0.1], "scale": 0, "offset": 3}, {}, {}]
    out.append(case("bumpenvmap_luminance_is_not_clamped_but_saturates_each_byte",
                    program(T1, ["project2d", "bumpenvmap_luminance", "none", "none"]),
                    {"textures": [src, bump_tex], "texcoords": [[0, 0, 0, 1], [0.125, 0.5, 0, 1]], "bump_env": big},
                    rgba(96, 192, 255, 0x80, tolerance=0), "f = 3 (no clamp to 1): 32*3 = 96, 64*3 = 192, 96*3 = 288 -> 255"))
    # ---- dependent reads ----
    dep_tex = grid(4, 4, {13: "0xFF102030", 7: "0xFF405060"})
    out.append(case("dependent_ar_reads_alpha_and_red", program(T1, ["project2d", "dependent_ar", "none", "none"]),
                    {"textures": ["0x40C0C040", dep_tex]}, rgba(0x10, 0x20, 0x30, 255),
                    "s = A/255 = 64/255 -> x floor(1.004) = 1; t = R/255 = 192/255 -> y floor(3.01) = 3: texel 13"))
    out.append(case("dependent_gb_reads_green_and_blue", program(T1, ["project2d", "dependent_gb", "none", "none"]),
                    {"textures": ["0x40C0C040", dep_tex]}, rgba(0x40, 0x50, 0x60, 255),
                    "s = G/255 = 192/255 -> x 3; t = B/255 = 64/255 -> y 1: texel 7"))
    # ---- signed channels ----
    out.append(case("signed_channels_read_2_int8_over_255", program(T0, ["project2d", "none", "none", "none"],
                                                                    texture_signed=["rg", "", "", ""]),
                    {"textures": ["0xFF404040"]}, rgba(128, 128, 64, 255),
                    "R, G signed: 2*64/255 = 0.50196 -> 128; B unsigned 64/255 -> 64"))
    out.append(case("signed_negative_channels_through_signed_negate",
                    program(T0, ["project2d", "none", "none", "none"], signed_negate=True, texture_signed=["rgb", "", "", ""]),
                    {"textures": ["0xFFC0C0C0"]}, rgba(128, 128, 128, 255),
                    "0xC0 signed: 2*(-64)/255 = -0.50196; signed negate: 0.50196 -> 128"))
    # ---- alpha kill and colour key ----
    ak = program(T0, ["project2d", "none", "none", "none"], texture_control=[{"alpha_kill": True}, {}, {}, {}])
    out.append(case("alpha_kill_discards_alpha_zero", ak, {"textures": ["0x00112233"]}, {"discard": True},
                    "fetched alpha 0 with alpha kill: discard"))
    out.append(case("alpha_kill_keeps_alpha_one", ak, {"textures": ["0x01112233"]}, rgba(0x11, 0x22, 0x33, 1),
                    "alpha 1/255: kept"))
    for mode, expect, check in (("discard", {"discard": True}, "match: discard"),
                                ("kill_alpha", rgba(0x11, 0x22, 0x33, 0), "match: alpha := 0"),
                                ("kill_color", rgba(0, 0, 0, 0), "match: texel := 0")):
        out.append(case("color_key_" + mode, program(T0, ["project2d", "none", "none", "none"],
                                                     texture_control=[{"color_key": mode}, {}, {}, {}]),
                        {"textures": ["0xFF112233"], "color_keys": ["0xFF112233", "0x00000000", "0x00000000", "0x00000000"]}, expect,
                        "texel 0xFF112233 equals the key 0xFF112233; " + check))
    out.append(case("color_key_needs_all_32_bits_on_argb8", program(T0, ["project2d", "none", "none", "none"],
                                                                    texture_control=[{"color_key": "discard"}, {}, {}, {}]),
                    {"textures": ["0xFE112233"], "color_keys": ["0xFF112233", "0x00000000", "0x00000000", "0x00000000"]}, rgba(0x11, 0x22, 0x33, 0xFE),
                    "alpha differs (0xFE vs 0xFF): no match on ARGB8"))
    out.append(case("xrgb8_reads_alpha_one_and_keys_on_24_bits",
                    program(T0, ["project2d", "none", "none", "none"], texture_formats=["xrgb8", "argb8", "argb8", "argb8"],
                            texture_control=[{"color_key": "kill_alpha"}, {}, {}, {}]),
                    {"textures": ["0x00112233"], "color_keys": ["0x7F112233", "0x00000000", "0x00000000", "0x00000000"]}, rgba(0x11, 0x22, 0x33, 0),
                    "XRGB: alpha reads 0xFF, key compared on 0x00FFFFFF: match; kill_alpha: alpha 0"))
    out.append(case("xrgb8_alpha_reads_one", program(T0, ["project2d", "none", "none", "none"],
                                                     texture_formats=["xrgb8", "argb8", "argb8", "argb8"]),
                    {"textures": ["0x00112233"]}, rgba(0x11, 0x22, 0x33, 255), "XRGB: alpha 0x00 reads 0xFF"))
    # ---- dot products ----
    st_tex = grid(4, 4, {9: "0xFF0A0B0C"})
    out.append(case("dot_st_zero_to_one", program(T2, ["project2d", "dot_product", "dot_st", "none"]),
                    {"textures": [N_X, "0x00000000", st_tex], "texcoords": [[0, 0, 0, 1], [0.3, 0.9, 0.9, 1], [0.6, 0.1, 0.1, 1]]},
                    rgba(10, 11, 12, 255),
                    "m = (1, 0, 0): dot1 = 0.3, dot2 = 0.6; (s, t) = (0.3, 0.6) -> x 1, y 2: texel 9"))
    out.append(case("dot_st_minus1_to_1", program(T2, ["project2d", "dot_product", "dot_st", "none"], dot_rgb_mapping="0x00000033"),
                    {"textures": ["0xFF7F8100", "0x00000000", st_tex],
                     "texcoords": [[0, 0, 0, 1], [0.2, -0.1, 5, 1], [0.4, -0.2, 7, 1]]},
                    rgba(10, 11, 12, 255),
                    "mapping 3: m = (127/127, -127/127, 0) = (1, -1, 0); dot1 = 0.2 + 0.1 = 0.3, dot2 = 0.4 + 0.2 = 0.6: texel 9"))
    out.append(case("dot_st_hilo_1", program(T2, ["project2d", "dot_product", "dot_st", "none"], dot_rgb_mapping="0x00000044"),
                    {"textures": ["0x12345678", "0x00000000", st_tex],
                     "texcoords": [[0, 0, 0, 1], [1, 0, 0.2, 1], [0, 1, 0.3, 1]]},
                    rgba(10, 11, 12, 255),
                    "hilo_1: m = (0x1234/65535, 0x5678/65535, 1) = (0.0711, 0.3378, 1); dot1 = 0.0711 + 0.2 = 0.2711 -> x 1; "
                    "dot2 = 0.3378 + 0.3 = 0.6378 -> y 2: texel 9"))
    out.append(case("dot_st_hilo_hemisphere", program(T2, ["project2d", "dot_product", "dot_st", "none"], dot_rgb_mapping="0x00000077"),
                    {"textures": ["0x40000000", "0x00000000", grid(4, 4, {7: "0xFF0D0E0F"})],
                     "texcoords": [[0, 0, 0, 1], [0, 0, 1, 1], [0.9, 0, 0, 1]]},
                    rgba(13, 14, 15, 255),
                    "H = 0x4000/32767 = 0.50002, L = 0, z = sqrt(1 - H^2) = 0.86601; dot1 = z -> x floor(3.46) = 3; "
                    "dot2 = 0.9 H = 0.45 -> y 1: texel 7"))
    zw = program(T0, ["project2d", "dot_product", "dot_zw", "none"])
    out.append(case("dot_zw_writes_depth", zw,
                    {"textures": [N_X], "texcoords": [[0, 0, 0, 1], [1001, 0, 0, 1], [2.5, 0, 0, 1]]},
                    {"rgba8": [255, 0, 0, 255], "depth_z16": 400},
                    "dot1 = 1001, dot2 = 2.5: depth = floor(1001 / 2.5) = floor(400.4) = 400 (away from an integer, "
                    "so a GPU's division error cannot cross it); output t0 = 0xFFFF0000"))
    out.append(case("dot_zw_depth_is_floored", zw,
                    {"textures": [N_X], "texcoords": [[0, 0, 0, 1], [1001, 0, 0, 1], [4, 0, 0, 1]]},
                    {"rgba8": [255, 0, 0, 255], "depth_z16": 250}, "floor(1001 / 4) = floor(250.25) = 250"))
    out.append(case("dot_str_cube_selects_the_minus_x_face",
                    program(T3, ["project2d", "dot_product", "dot_product", "dot_str_cube"]),
                    {"textures": [N_X, "0x00000000", "0x00000000", cube_faces(FACES)],
                     "texcoords": [[0, 0, 0, 1], [-1, 0, 0, 1], [0.2, 0, 0, 1], [0.3, 0, 0, 1]]},
                    rgba(2, 2, 2, 255), "(dot1, dot2, dot3) = (-1, 0.2, 0.3): |x| largest, x < 0: face -X (second)"))
    out.append(case("dot_str_3d_reads_a_volume",
                    program(T3, ["project2d", "dot_product", "dot_product", "dot_str_3d"]),
                    {"textures": [N_X, "0x00000000", "0x00000000", {"width": 2, "height": 2, "depth": 2,
                                                  "texels": ["0xFF000000"] * 6 + ["0xFF112233", "0xFF000000"]}],
                     "texcoords": [[0, 0, 0, 1], [0.25, 0, 0, 1], [0.75, 0, 0, 1], [0.75, 0, 0, 1]]},
                    rgba(0x11, 0x22, 0x33, 255), "(0.25, 0.75, 0.75) -> x 0, y 1, z 1: index (1*2 + 1)*2 + 0 = 6"))
    out.append(case("dot_rflct_spec_const_reflects_the_eye_vector",
                    program(T3, ["project2d", "dot_product", "dot_product", "dot_rflct_spec_const"]),
                    {"textures": [N_X, "0x00000000", "0x00000000", cube_faces(FACES)],
                     "texcoords": [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 0, 0, 1]], "eye_vector": [0, 3, 1]},
                    rgba(4, 4, 4, 255),
                    "N = (0, 0, 1), E = (0, 3, 1): N.E = 1, N.N = 1, R = 2N - E = (0, -3, 1): face -Y (fourth)"))
    out.append(case("dot_rflct_spec_reflects_the_q_eye_vector",
                    program(T3, ["project2d", "dot_product", "dot_product", "dot_rflct_spec"]),
                    {"textures": [N_X, "0x00000000", "0x00000000", cube_faces(FACES)],
                     "texcoords": [[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 3], [1, 0, 0, 1]]},
                    rgba(4, 4, 4, 255), "E = (q1, q2, q3) = (0, 3, 1): the same reflection, face -Y"))
    out.append(case("dot_rflct_diff_looks_up_the_normal",
                    program(T2, ["project2d", "dot_product", "dot_rflct_diff", "dot_rflct_spec_const"]),
                    {"textures": [N_X, "0x00000000", cube_faces(FACES), cube_faces(FACES)],
                     "texcoords": [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 0, 0, 1]], "eye_vector": [0, 0, 1]},
                    rgba(5, 5, 5, 255), "N = (dot1, dot2, dot3 of stage 3's inputs) = (0, 0, 1): face +Z (fifth)"))
    # ---- rejections ----
    for name, prog, why in (
            ("brdf_is_rejected", program(T0, ["project2d", "project2d", "brdf", "none"]), "brdf: delta phi sign unknown"),
            ("dot_st_without_dot_product_is_rejected", program(T0, ["project2d", "project2d", "dot_st", "none"]),
             "dot_st needs dot_product in the stage before"),
            ("dependent_read_of_a_signed_channel_is_rejected",
             program(T1, ["project2d", "dependent_ar", "none", "none"], texture_signed=["a", "", "", ""]),
             "dependent_ar reads A, flagged signed"),
            ("reading_t_of_a_clipplane_stage_is_rejected", program(T0, ["clipplane", "none", "none", "none"]),
             "T of clipplane is undefined"),
            ("dot_mapping_5_is_rejected", program(T0, ["project2d", "dot_product", "none", "none"], dot_rgb_mapping="0x5"),
             "hilo hemisphere D3D: the hardware raises an error"),
            ("bumpenvmap_in_stage_0_is_rejected", program(T0, ["bumpenvmap", "none", "none", "none"]),
             "bumpenvmap is legal in stages 1-3")):
        out.append({"name": name, "program": prog, "inputs": {}, "expect": {"rejected": why},
                    "provenance": "NV2A texture-shader admission rules (guests/nv2a/README.md)"})
    return out


def main(argv):
    folder = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    doc = {"format": "shaderbake-vectors/2", "guest": "nv2a",
           "description": "The texture-shader stage: every mode, signed channels, alpha kill, colour keys.",
           "cases": cases()}
    with open(os.path.join(folder, "texture_shader.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
