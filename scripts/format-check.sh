#!/usr/bin/env bash
# Checks that src, test and bench are as Prettier (.prettierrc.json: 160 columns, single quotes)
# would write them; lists the files that are not and exits 1. Prettier is not a dependency yet:
# npx fetches this pinned version from the npm registry on first use.
#   scripts/format-check.sh            check
#   scripts/format-check.sh --write    format those files in place
set -euo pipefail
cd "$(dirname "$0")/.."
PRETTIER=prettier@3.10.1
mode=--check
[ "${1:-}" = --write ] && mode=--write
exec npx --yes "$PRETTIER" "$mode" --log-level warn src test bench
