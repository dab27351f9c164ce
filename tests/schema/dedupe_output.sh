#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `shaderbake dedupe --json` output validated against schemas/dedupe.schema.json by python3-jsonschema.
# Usage: dedupe_output.sh SHADERBAKE SOURCE_DIR
set -euo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$1" dedupe --json "$2"/samples/traces/*.jsonl "$2"/samples/traces/tiny.json >"$out"
exec /usr/bin/python3 "$2/tests/schema/validate.py" document "$2/schemas/dedupe.schema.json" "$out"
