#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Writes a session trace of the sample shaders (shaderbake-trace/2, guest specconst): a renderer playing three
# levels with a settings change, its materials, foliage, post chain and blur passes, each pipeline a state at
# its first use and a draw (or dispatch) per use. Deterministic: the same seed gives the same bytes.
#   generate_session.py [--seed N] [--frames N] [-o traces/session.jsonl]
import argparse
import json
import random

MESH_HOST = {
    "topology": "triangle_list", "cull_mode": "back", "front_face": "counter_clockwise",
    "depth": {"test": True, "write": True, "compare": "less_or_equal"},
    "color_formats": ["r16g16b16a16_sfloat"], "depth_format": "d32_sfloat", "samples": 1,
    "vertex": {"bindings": [{"binding": 0, "stride": 32, "rate": "vertex"}],
               "attributes": [{"location": 0, "binding": 0, "format": "r32g32b32_sfloat", "offset": 0},
                              {"location": 1, "binding": 0, "format": "r32g32b32_sfloat", "offset": 12},
                              {"location": 2, "binding": 0, "format": "r32g32_sfloat", "offset": 24}]}}
# Foliage: alpha-blended, no culling.
FOLIAGE_HOST = dict(MESH_HOST, cull_mode="none", blend=[{
    "enable": True, "src_color": "src_alpha", "dst_color": "one_minus_src_alpha", "color_op": "add",
    "src_alpha": "one", "dst_alpha": "zero", "alpha_op": "add", "write_mask": "rgba"}])
POST_HOST = {"topology": "triangle_list", "color_formats": ["b8g8r8a8_unorm"],
             "vertex": {"bindings": [], "attributes": []}}

# Settings presets: lighting quality, light count, tone curve, blur width (workgroup) and radius.
PRESETS = {
    "low": {"quality": 0, "lights": 2, "curve": 1, "width": 64, "radius": 2},
    "medium": {"quality": 1, "lights": 4, "curve": 1, "width": 64, "radius": 3},
    "high": {"quality": 2, "lights": 8, "curve": 2, "width": 128, "radius": 4},
}
# Levels: fog, exposure, and the materials drawn there (name, normal map, specular power, foliage sway).
LEVELS = [
    {"fog": False, "exposure": 1.0, "materials": [("stone", True, 16.0, None), ("metal", True, 64.0, None),
                                                   ("plaster", False, 8.0, None)]},
    {"fog": True, "exposure": 0.8, "materials": [("stone", True, 16.0, None), ("bark", True, 12.0, None),
                                                  ("grass", False, 4.0, 0.08), ("fern", False, 6.0, 0.05)]},
    {"fog": False, "exposure": 1.25, "materials": [("metal", True, 64.0, None), ("glass", False, 96.5, None),
                                                    ("ivy", False, 6.0, 0.03)]},
]


def lighting(preset, level, material):
    _, normal_map, specular, sway = material
    fragment = {"0": preset["quality"], "1": normal_map, "2": level["fog"], "3": specular, "4": preset["lights"]}
    vertex = {"0": True, "1": sway} if sway is not None else {}
    return {"vertex": {"shader": "../shaders/mesh.vert", "constants": vertex},
            "fragment": {"shader": "../shaders/lighting.frag", "constants": fragment}}, \
        FOLIAGE_HOST if sway is not None else MESH_HOST


def tonemap(preset, level, cutscene):
    return {"vertex": {"shader": "../shaders/fullscreen.vert"},
            "fragment": {"shader": "../shaders/tonemap.frag",
                         "constants": {"0": preset["curve"], "1": cutscene, "3": level["exposure"]}}}, POST_HOST


def blur(preset, horizontal):
    return {"compute": {"shader": "../shaders/blur.comp",
                        "constants": {"0": preset["width"], "1": preset["radius"], "2": horizontal}}}, None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--frames", type=int, default=360)
    parser.add_argument("-o", "--output", default="traces/session.jsonl")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    records = [{"type": "capture", "format": "shaderbake-trace/2", "guest": "specconst",
                "generator": "samples/specconst/generate_session.py", "seed": args.seed,
                "title": "specconst sample session: three levels, a settings change, post chain"}]
    states = {}

    def use(frame, draw, program_host):
        program, host = program_host
        text = json.dumps([program, host], sort_keys=True)
        if text not in states:
            states[text] = "s%d" % len(states)
            record = {"type": "state", "id": states[text], "program": program}
            if host is not None:
                record["host"] = host
            records.append(record)
        records.append({"type": "draw", "frame": frame, "draw": draw, "state": states[text]})

    per_level = args.frames // len(LEVELS)
    for frame in range(args.frames):
        level = LEVELS[min(frame // per_level, len(LEVELS) - 1)]
        # The player raises the settings from medium to high two thirds into the first level, and drops to low
        # for the last level.
        preset = PRESETS["medium" if frame < per_level * 2 // 3 else "high" if frame < 2 * per_level else "low"]
        cutscene = frame % per_level < 20  # each level opens with a cutscene (vignette)
        draw = 0
        for _ in range(rng.randint(8, 14)):
            use(frame, draw, lighting(preset, level, rng.choice(level["materials"])))
            draw += 1
        for horizontal in (True, False):
            use(frame, draw, blur(preset, horizontal))
            draw += 1
        use(frame, draw, tonemap(preset, level, cutscene))
    with open(args.output, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
