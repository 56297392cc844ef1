#!/usr/bin/env bash
# Writes memstand's bash completion from the binary's own help: its subcommands, each
# subcommand's flags, and the scenario names after `scenario run`. zsh uses it through
# bashcompinit (the _memstand file cmake installs). Usage: scripts/make-completion.sh MEMSTAND OUT
set -euo pipefail
bin=$1
out=$2
flags_of() {  # the long and short flags of `memstand ARGS --help`
  if [ "$1" = memtier ]; then  # memtier's flags begin its lines (the reasons name run's flags)
    "$bin" memtier --help | grep -oE '^  (-[A-Za-z0-9], |    )--[A-Za-z0-9-]+' | grep -oE -- '-[-A-Za-z0-9]+' |
      sort -u | tr '\n' ' '
    return
  fi
  "$bin" "$@" --help | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u | tr '\n' ' '
}
subs=$("$bin" --help | awk '/^Subcommands:/ {on = 1; next} on && NF {print $1}' | tr '\n' ' ')
scenarios=$("$bin" scenario list | awk '/^[a-z][a-z-]*$/ {print $1}' | tr '\n' ' ')
{
  printf '# bash completion for memstand, generated from its --help by scripts/make-completion.sh\n'
  printf '_memstand() {\n'
  printf '  local cur=${COMP_WORDS[COMP_CWORD]} sub=${COMP_WORDS[1]}\n'
  printf '  if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=($(compgen -W "%s --help --version" -- "$cur")); return; fi\n' "$subs"
  printf '  if [ "$sub" = scenario ] && [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W "list run" -- "$cur")); return; fi\n'
  printf '  if [ "$sub" = scenario ] && [ "${COMP_WORDS[2]}" = run ] && [ "$COMP_CWORD" -eq 3 ]; then\n'
  printf '    COMPREPLY=($(compgen -W "%s" -- "$cur")); return\n  fi\n' "$scenarios"
  printf '  local flags\n  case "$sub" in\n'
  for s in $subs; do
    printf '    %s) flags="%s" ;;\n' "$s" "$(flags_of "$s")"
  done
  printf '  esac\n'
  printf '  if [ "$sub" = scenario ] && [ "${COMP_WORDS[2]}" = run ]; then\n    case "${COMP_WORDS[3]}" in\n'
  for n in $scenarios; do
    printf '      %s) flags="%s" ;;\n' "$n" "$(flags_of scenario run "$n")"
  done
  printf '    esac\n  fi\n'
  printf '  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi\n'
  printf '}\ncomplete -F _memstand memstand\n'
} > "$out"
