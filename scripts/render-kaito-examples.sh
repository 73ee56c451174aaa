#!/usr/bin/env bash
# Renders every file of KAITO's examples that holds a Workspace or InferenceSet, as KAITO ships it
# (multi-document files included): first with the default flags, then on bring-your-own nodes (the
# MIG examples are BYO). Prints the exit code and, for a refusal, its line; then the count.
# Usage, from the project root after `npm run build`: scripts/render-kaito-examples.sh [EXAMPLES_DIR]
set -u
dir=${1:-/tmp/ksrc/kaito-v0.12.0/examples}
err=$(mktemp)
trap 'rm -f "$err"' EXIT
ok=0
total=0
while IFS= read -r f; do
  total=$((total + 1))
  if node bin/kaito-ts.js render -f "$f" >/dev/null 2>"$err"; then
    echo "0 ${f#"$dir"/}"
  elif node bin/kaito-ts.js render -f "$f" --feature-gates disableNodeAutoProvisioning=true >/dev/null 2>/dev/null; then
    echo "0 ${f#"$dir"/} (BYO)"
  else
    echo "2 ${f#"$dir"/}: $(tail -n 1 "$err")"
    continue
  fi
  ok=$((ok + 1))
done < <(grep -lrE '^kind: (Workspace|InferenceSet)[[:space:]]*$' "$dir" --include='*.yaml' | sort)
echo "$ok of $total exit 0"
