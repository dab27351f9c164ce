#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the bash completion of shaderbake from the CLI's own help: its commands (nested ones too) and each
command's options, so the completion cannot drift from the parser. Usage: generate_completion.py SHADERBAKE OUT"""
import re
import subprocess
import sys


def help_of(binary, words):
    return subprocess.run([binary, *words, '--help'], capture_output=True, text=True, check=True).stdout


def subcommands(text):
    out, on = [], False
    for line in text.splitlines():
        if line.startswith('Subcommands:'):
            on = True
        elif on and re.match(r'^  [a-z]', line):
            out.append(line.split()[0])
        elif on and not line.strip():
            on = False
    return out


def options(text):
    """Every option spelling of the Options: block, and those that take a value (a type after the names)."""
    names, valued, on = [], [], False
    for line in text.splitlines():
        if line.startswith('Options:'):
            on = True
            continue
        if on and not line.strip():
            on = False
        # "  -o,--output TEXT:PATH REQUIRED": the type follows the names after one space; a description
        # starts after several.
        m = re.match(r'^  (-\S+)(?: (\S+))?', line) if on else None
        if not m:
            continue
        spellings = [s for s in m.group(1).split(',') if s.startswith('-')]
        names += spellings
        if m.group(2) and re.match(r'^[A-Z][A-Z0-9_/]*(:|$)', m.group(2)):  # TEXT, UINT, FLOAT: takes a value
            valued += spellings
    return names, valued


def main():
    binary, out = sys.argv[1], sys.argv[2]
    top = help_of(binary, [])
    paths = []  # command paths, e.g. "build", "report coverage"
    for command in subcommands(top):
        nested = subcommands(help_of(binary, [command]))
        paths.append(command)
        paths += [f'{command} {n}' for n in nested]
    lines = ['# bash completion for shaderbake; generated from its --help by cmake/generate_completion.py',
             '_shaderbake() {',
             '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" w i',
             '  # The command path: the words before the current one that name commands.',
             '  for ((i = 1; i < COMP_CWORD; ++i)); do',
             '    w=${COMP_WORDS[i]}',
             '    case "$path:$w" in']
    for p in paths:
        parent, _, last = p.rpartition(' ')
        lines.append(f'      "{parent}:{last}") path="{p}" ;;')
    lines += ['    esac', '  done', '  local commands="" opts="" valued=""', '  case "$path" in']
    top_names, _ = options(top)
    lines.append(f'    "") commands="{" ".join(subcommands(top))}"; opts="{" ".join(top_names)}" ;;')
    for p in paths:
        text = help_of(binary, p.split())
        names, valued = options(text)
        lines.append(f'    "{p}") commands="{" ".join(subcommands(text))}"; opts="{" ".join(names)}"; '
                     f'valued="{" ".join(valued)}" ;;')
    lines += ['  esac',
              '  # After an option that takes a value: files (paths, and values typed by hand); one name per line, so names\n  # with spaces stay whole.',
              '  if [[ " $valued " == *" $prev "* ]]; then',
              '    mapfile -t COMPREPLY < <(compgen -f -- "$cur")',
              '  elif [[ $cur == -* ]]; then',
              '    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")',
              '  elif [[ -n $commands ]]; then',
              '    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")',
              '  else',
              '    mapfile -t COMPREPLY < <(compgen -f -- "$cur")',
              '  fi',
              '}',
              'complete -o filenames -F _shaderbake shaderbake',
              '']
    with open(out, 'w') as f:
        f.write('\n'.join(lines))


if __name__ == '__main__':
    main()
