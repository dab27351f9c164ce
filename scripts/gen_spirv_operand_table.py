#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the operand-kind table of runtime_loader/shaderbake_spirv.h (sbk__spirv_operand_kinds, one packed word
# an opcode below 400) from the Khronos SPIR-V grammar, in place between its "BEGIN GENERATED" and
# "END GENERATED" marker lines. The kinds are frozen with the bundle format: they decide how packed modules
# are coded, so changing them needs a new format major. The word layout (packed_word) is the header's own and
# may change with the header's reader, as long as each opcode's kinds and result position stay.
# --check (what the test spirv_operand_table_generated runs) changes nothing and exits 1 when the header's
# table is not what the grammar gives, 77 when the grammar file is missing (the test is then skipped).
# Usage: scripts/gen_spirv_operand_table.py [--check] [--grammar GRAMMAR.json] [--header HEADER]
#   GRAMMAR defaults to /usr/include/spirv/unified1/spirv.core.grammar.json (Debian: spirv-headers)
import argparse
import difflib
import json
import os
import sys

BEGIN = "/* BEGIN GENERATED: scripts/gen_spirv_operand_table.py */"
END = "/* END GENERATED */"
ID_KINDS = {"IdRef", "IdScope", "IdMemorySemantics"}
SKIPPED = 77  # CTest's SKIP_RETURN_CODE


def kinds(operands):
    out, rest = "", ""
    for operand in operands:
        kind, quantifier = operand["kind"], operand.get("quantifier", "")
        code = {"IdResultType": "T", "IdResult": "R", "LiteralString": "S"}.get(kind, "I" if kind in ID_KINDS else "L")
        if kind == "PairIdRefIdRef":
            code = "I"
        if kind == "ImageOperands":
            # The mask, then its operands: IDs.
            out += "L"
            rest = "I"
            break
        if quantifier == "*":
            rest = code
            break
        out += code
    return out + ("*" + rest if rest else "")


# A word of the table: bits 0-3 the count of fixed operand kinds (at most 12), bits 4-5 the kind of every
# further word, then 2 bits a fixed kind from bit 6 on, and in bits 30-31 the word position of the result ID
# (1 or 2: the first or second operand is R; 0: none), which a reader needs per instruction and would otherwise
# derive from the kinds. Kind codes: L 0, I 1 (T is coded as I), R 2, S 3.
KIND_CODES = {"L": 0, "I": 1, "T": 1, "R": 2, "S": 3}
OPCODES = 400  # core instructions of SPIR-V 1.0-1.6; extensions' opcodes are coded as literals


def packed_word(code):
    fixed, _, rest = code.partition("*")
    if len(fixed) > 12:
        raise ValueError(f"{code}: more than 12 fixed operand kinds do not fit the table's word")
    word = len(fixed) | KIND_CODES[rest or "L"] << 4
    for i, kind in enumerate(fixed):
        word |= KIND_CODES[kind] << (6 + 2 * i)
    result_position = fixed.find("R") + 1 if "R" in fixed[:2] else 0
    return word | result_position << 30


def table_lines(grammar):
    entries = [(0, "", "")] * OPCODES
    for inst in grammar["instructions"]:
        opcode = inst["opcode"]
        if opcode >= OPCODES:
            continue
        code = kinds(inst.get("operands", []))
        entries[opcode] = (packed_word(code), inst["opname"], code)
    lines = []
    for opcode, (word, name, code) in enumerate(entries):
        note = f" {name} {code}".rstrip() if name else ""
        lines.append(f"    0x{word:08X}u, /* {opcode}{note} */\n")
    return lines


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Generate the packed-SPIR-V operand table.")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when the table differs")
    parser.add_argument("--grammar", default="/usr/include/spirv/unified1/spirv.core.grammar.json")
    parser.add_argument("--header", default=os.path.join(root, "runtime_loader", "shaderbake_spirv.h"))
    args = parser.parse_args()

    if not os.path.exists(args.grammar):
        print(f"gen_spirv_operand_table: {args.grammar} not found (Debian: install spirv-headers)", file=sys.stderr)
        return SKIPPED if args.check else 2
    with open(args.grammar, encoding="utf-8") as f:
        grammar = json.load(f)
    with open(args.header, encoding="utf-8", newline="") as f:
        lines = f.readlines()
    begin = [i for i, line in enumerate(lines) if line.strip() == BEGIN]
    end = [i for i, line in enumerate(lines) if line.strip() == END]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        print(f"gen_spirv_operand_table: {args.header} needs one '{BEGIN}' line and one '{END}' line after it",
              file=sys.stderr)
        return 2
    current = lines[begin[0] + 1:end[0]]
    wanted = table_lines(grammar)
    if args.check:
        if current == wanted:
            return 0
        sys.stderr.writelines(difflib.unified_diff(current, wanted, args.header, "generated from " + args.grammar))
        print("gen_spirv_operand_table: the operand table differs from what the grammar gives. Its kinds are "
              "frozen with the bundle format's packed SPIR-V: regenerate it with changed kinds only with a new "
              "format major.", file=sys.stderr)
        return 1
    if current != wanted:
        with open(args.header, "w", encoding="utf-8", newline="") as f:
            f.writelines(lines[:begin[0] + 1] + wanted + lines[end[0]:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
