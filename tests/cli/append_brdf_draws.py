#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Copies a trace (JSON Lines) and appends draws whose program runs brdf in texture stage 2: a program the nv2a
guest has no exact shader for (its semantics are unknown on hardware) and admission refuses, so a build of
the copy reports a failed module with its key. The draws reuse the first draw's host and program otherwise.

Usage: append_brdf_draws.py IN.jsonl OUT.jsonl [COUNT]   (COUNT distinct programs, default 1)
"""

import json
import sys


def main(argv):
    source, target = argv[1], argv[2]
    count = int(argv[3]) if len(argv) > 3 else 1
    with open(source, encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    first = next(r for r in records if r.get("type") in ("draw", "state") and "program" in r)
    last_frame = max(r.get("frame", 0) for r in records if r.get("type") == "draw")
    out = list(lines)
    for k in range(count):
        program = dict(first["program"])
        program["texture_modes"] = ["project2d", "project2d", "brdf", "none"]
        program["texture_enabled"] = [True, True, True, False]
        program["combiner_control"] = "0x%08X" % ((int(program["combiner_control"], 16) & ~0xFF) | (k % 8 + 1))
        for field in ("rgb_inputs", "rgb_outputs", "alpha_inputs", "alpha_outputs"):
            words = list(program[field]) + ["0x00000000"] * (8 - len(program[field]))
            program[field] = words[:8]
        draw = {"type": "draw", "frame": last_frame + 1, "draw": k, "program": program, "host": first["host"]}
        if "dynamic" in first:
            draw["dynamic"] = first["dynamic"]
        out.append(json.dumps(draw, separators=(",", ":")))
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
