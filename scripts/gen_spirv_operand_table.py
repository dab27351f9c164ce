#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Prints the operand-kind switch of runtime_loader/shaderbake.h (sbk__spirv_operands) from the Khronos SPIR-V
# grammar. The table is frozen with the bundle format: it decides how packed modules are coded, so changing it
# needs a new format major. Kept to reproduce and review the table, not run by the build.
# Usage: scripts/gen_spirv_operand_table.py [/usr/include/spirv/unified1/spirv.core.grammar.json]
import collections
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "/usr/include/spirv/unified1/spirv.core.grammar.json"
grammar = json.load(open(path))
ID_KINDS = {"IdRef", "IdScope", "IdMemorySemantics"}


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


groups = collections.OrderedDict()
for inst in grammar["instructions"]:
    opcode = inst["opcode"]
    if opcode >= 400:  # core instructions of SPIR-V 1.0-1.6; extensions' opcodes are coded as literals
        continue
    groups.setdefault(kinds(inst.get("operands", [])), []).append(opcode)
for code, opcodes in sorted(groups.items(), key=lambda item: item[1][0]):
    line = "   "
    for label in [f"case {op}:" for op in opcodes] + [f'return "{code}";']:
        if len(line) + 1 + len(label) > 110:
            print(line)
            line = "   "
        line += " " + label
    print(line)
