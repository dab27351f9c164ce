#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Man pages from the CLI's own help (help2man): shaderbake(1) and one page per command, shaderbake-COMMAND(1)
# (shaderbake-report-coverage(1) for a nested one), each NAME line the first sentence of the command's help.
# SOURCE_DATE_EPOCH fixes the date in them (reproducible packages). The pages are written gzipped (as Debian
# installs them): OUT_DIR/NAME.1.gz.
# Usage: generate_man_pages.sh SHADERBAKE OUT_DIR VERSION
set -euo pipefail
bin=$(realpath "$1")
out=$2
version=$3
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The commands: the Subcommands: block of each help, nested ones as "report coverage".
subcommands() { "$bin" $1 --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'; }
commands=()
for c in $(subcommands ""); do
  nested=$(subcommands "$c")
  if [[ -n $nested ]]; then
    commands+=("$c")
    for n in $nested; do commands+=("$c $n"); done
  else
    commands+=("$c")
  fi
done

# The NAME line: the help's first sentence (up to ". " or "; "), lower-cased start; where that sentence opens
# with a condition instead of the action, a NAME of its own.
first_sentence() {
  case "$1" in
    warm) echo "store the target GPU's pipeline cache data in a bundle"; return ;;
  esac
  "$bin" $1 --help | head -n 1 | sed -e 's/^shaderbake: //' -e 's/[.;] .*//' -e 's/\.$//' -e 's/^\(.\)/\L\1/'
}
# The main page's SEE ALSO: every command's page.
{
  echo "[SEE ALSO]"
  for c in "${commands[@]}"; do printf '.BR shaderbake-%s (1)\n' "${c// /-}"; done
} >"$work/see-also.h2m"
page() {  # page NAME "ARGS" [HELP2MAN OPTIONS]
  local name=$1 args=$2
  shift 2
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin" "$args" >"$work/$name"
  chmod +x "$work/$name"
  help2man --no-info --no-discard-stderr --version-string="$version" --name="$(first_sentence "$args")" \
    --section=1 --source=shaderbake "$@" "$work/$name" >"$out/$name.1"
}
page shaderbake "" --include="$work/see-also.h2m"
for c in "${commands[@]}"; do page "shaderbake-${c// /-}" "$c"; done
gzip -9nf "$out"/*.1
