#!/usr/bin/env bash
# Writes memstand's man page from the binary's own help (help2man, Debian's help2man):
# the top-level --help and --version, then a SUBCOMMANDS section with every
# subcommand's --help (and scenario run NAME --help), so the page is the flag table
# the binary parses. Usage: scripts/make-man.sh MEMSTAND OUT.1
set -euo pipefail
bin=$1
out=$2
include=$(mktemp)
trap 'rm -f "$include"' EXIT
section() {  # a subcommand's help as a preformatted block
  printf '.SS %s\n.nf\n' "$1"
  shift
  "$bin" "$@" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./'
  printf '.fi\n'
}
{
  printf '[SUBCOMMANDS]\n'
  for sub in $("$bin" --help | awk '/^Subcommands:/ {on = 1; next} on && NF {print $1}'); do
    section "memstand $sub" "$sub"
  done
  for name in $("$bin" scenario list | awk '/^[a-z][a-z-]*$/ {print $1}'); do
    section "memstand scenario run $name" scenario run "$name"
  done
  printf '[SEE ALSO]\nThe README and docs/ of the memstand sources: docs/scenarios.md, docs/relay.md, '
  printf 'docs/stand.md, docs/report.md, docs/json-format.md, docs/exit-codes.md.\n'
} > "$include"
help2man --no-info --no-discard-stderr --section 1 \
  --name "a test stand for in-memory data systems" --include "$include" \
  --version-string "$("$bin" --version | head -1 | awk '{print $2}')" "$bin" > "$out"
