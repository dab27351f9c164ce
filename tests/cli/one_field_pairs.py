#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a trace of a base state and variants that each differ from it in exactly one field.

Key-field variants (a live stage word, a texture mode, the alpha test, one host field each) must each get an
entry of their own; dynamic-only variants and changes to fields a key must ignore (a stage word past the
stage count) must not. Prints, on stdout, the number of distinct exact keys and pipeline keys expected."""
import copy
import json
import sys

base_program = {
    "combiner_control": "0x00000002",
    "rgb_inputs": ["0x08040000", "0x0C010000"] + ["0x00000000"] * 6,
    "rgb_outputs": ["0x000000C0", "0x000000C0"] + ["0x00000000"] * 6,
    "alpha_inputs": ["0x18140000", "0x1C300000"] + ["0x00000000"] * 6,
    "alpha_outputs": ["0x000000C0", "0x000000C0"] + ["0x00000000"] * 6,
    "final_inputs": ["0x130C0300", "0x00001C00"],
    "texture_modes": ["project2d", "none", "none", "none"],
    "texture_enabled": [True, False, False, False],
    "alpha_test": {"enabled": False, "func": "always"},
}
base_host = {
    "topology": "triangle_list", "polygon_mode": "fill", "cull_mode": "back", "front_face": "counter_clockwise",
    "depth": {"test": True, "write": True, "compare": "less_or_equal"},
    "stencil": {"test": False},
    "blend": [{"enable": True, "src_color": "src_alpha", "dst_color": "one_minus_src_alpha", "color_op": "add",
               "src_alpha": "one", "dst_alpha": "zero", "alpha_op": "add", "write_mask": "rgba"}],
    "color_formats": ["r8g8b8a8_unorm"], "depth_format": "d24_unorm_s8_uint", "samples": 1,
    "vertex": {"bindings": [{"binding": 0, "stride": 36, "rate": "vertex"}],
               "attributes": [{"semantic": "position", "binding": 0, "format": "r32g32b32a32_sfloat", "offset": 0},
                              {"semantic": "diffuse", "binding": 0, "format": "b8g8r8a8_unorm", "offset": 16},
                              {"semantic": "texcoord0", "binding": 0, "format": "r32g32_sfloat", "offset": 20}]},
}
base_dynamic = {"c0": ["0xFF808080"], "alpha_ref": 0}


def variant(base, path, value):
    """A deep copy of `base` with the field at `path` (keys and indices) set to `value`."""
    out = copy.deepcopy(base)
    target = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return out


program_changes = [
    (("rgb_inputs", 1), "0x0C020000"),
    (("rgb_outputs", 0), "0x000000D0"),
    (("alpha_inputs", 0), "0x18150000"),
    (("alpha_outputs", 1), "0x000000D0"),
    (("final_inputs", 1), "0x00001D00"),
    (("combiner_control",), "0x00001002"),
    (("texture_modes", 0), "project3d"),
    (("alpha_test",), {"enabled": True, "func": "greater"}),
]
host_changes = [
    (("topology",), "triangle_strip"),
    (("cull_mode",), "none"),
    (("front_face",), "clockwise"),
    (("depth", "compare"), "less"),
    (("blend", 0, "dst_color"), "one"),
    (("color_formats", 0), "b8g8r8a8_unorm"),
    (("samples",), 4),
    (("vertex", "attributes", 1, "offset"), 24),
    (("vertex", "bindings", 0, "stride"), 40),
]
states = [("base", base_program, base_host, base_dynamic)]
for i, (path, value) in enumerate(program_changes):
    states.append((f"p{i}", variant(base_program, path, value), base_host, base_dynamic))
for i, (path, value) in enumerate(host_changes):
    states.append((f"h{i}", base_program, variant(base_host, path, value), base_dynamic))
# Must NOT make a new key: a dynamic value, and a word past the stage count.
states.append(("i0", base_program, base_host, {"c0": ["0xFF000000"], "alpha_ref": 7}))
states.append(("i1", variant(base_program, ("rgb_inputs", 5), "0x12345678"), base_host, base_dynamic))

with open(sys.argv[1], "w") as out:
    out.write(json.dumps({"type": "capture", "format": "shaderbake-trace/1", "guest": "nv2a",
                          "generator": "tests/cli/one_field_pairs.py"}) + "\n")
    for frame, (sid, program, host, dynamic) in enumerate(states):
        out.write(json.dumps({"type": "state", "id": sid, "program": program, "host": host, "dynamic": dynamic}) + "\n")
        out.write(json.dumps({"type": "draw", "frame": frame, "draw": 0, "state": sid}) + "\n")
print(1 + len(program_changes), 1 + len(program_changes) + len(host_changes))
