#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs reference_nv2a.py over every case of the vector files in a folder (default: this one).

Usage: check_reference.py [DIR_OR_FILE...]
Prints one line a case and ends with "N passed, M failed"; exits 1 when a case fails (or a file cannot
be read), 0 otherwise. A case passes when the discard verdict matches and, when the expectation is not
a discard, every rgba8 channel is within the case's tolerance (1 unless stated); a depth_z16 expectation
must match exactly. A discarded fragment has no colour, so a case expecting a discard compares only the
verdict. A case expecting {"rejected": ...} passes when the evaluator finds the program invalid.
"""

import glob
import json
import os
import sys

sys.dont_write_bytecode = True   # CTest runs this from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_nv2a  # noqa: E402


def vector_files(args):
    paths = []
    for arg in args or [os.path.dirname(os.path.abspath(__file__))]:
        if os.path.isdir(arg):
            paths.extend(sorted(glob.glob(os.path.join(arg, "*.json"))))
        else:
            paths.append(arg)
    return paths


def check_case(case):
    """Returns (ok, detail)."""
    expect = case["expect"]
    if "rejected" in expect:
        reasons = reference_nv2a.validate(case["program"])
        if reasons:
            return True, "rejected: %s" % "; ".join(reasons)
        return False, "valid, but the case says rejected (%s)" % expect["rejected"]
    tolerance = expect.get("tolerance", 1)
    try:
        result = reference_nv2a.evaluate(case["program"], case["inputs"])
    except (reference_nv2a.InvalidProgram, reference_nv2a.Unsupported, ValueError, KeyError) as error:
        return False, "error: %s" % error
    got = "rgba8=%s discard=%s" % (result.rgba8, str(result.discard).lower())
    if result.depth_z16 is not None:
        got += " depth=%d" % result.depth_z16
    if "depth_z16" in expect and result.depth_z16 != expect["depth_z16"]:
        return False, "%s, expected depth=%d" % (got, expect["depth_z16"])
    if result.discard != bool(expect.get("discard", False)):
        return False, "%s, expected discard=%s" % (got, str(bool(expect.get("discard"))).lower())
    if not result.discard:
        want = expect["rgba8"]
        if any(abs(g - w) > tolerance for g, w in zip(result.rgba8, want)):
            return False, "%s, expected rgba8=%s (tolerance %d)" % (got, want, tolerance)
    return True, got


def main(argv):
    passed = failed = 0
    for path in vector_files(argv[1:]):
        label = os.path.basename(path)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            if doc.get("format") not in ("shaderbake-vectors/1", "shaderbake-vectors/2") or doc.get("guest") != "nv2a":
                raise ValueError("not a shaderbake-vectors/1 or /2 nv2a file")
            cases = doc["cases"]
        except (OSError, ValueError, KeyError) as error:
            print("%s: error: %s" % (label, error))
            failed += 1
            continue
        for case in cases:
            ok, detail = check_case(case)
            print("%s %s/%s: %s" % ("ok  " if ok else "FAIL", label, case.get("name", "?"), detail))
            if ok:
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
