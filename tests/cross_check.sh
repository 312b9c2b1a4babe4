#!/usr/bin/env bash
# Proves the native and WASM builds compute identical numbers: runs `llmsize estimate
# --json` for every preset in both and compares the outputs byte for byte.
# Usage: tests/cross_check.sh <native build dir> <wasm build dir>
set -euo pipefail
native="$1/src/cli/llmsize"
wasm="$2/src/cli/llmsize.js"
run_wasm() { node --no-experimental-fetch "$wasm" "$@"; }
ids=$("$native" presets --json | sed -n 's/.*"id": "\([^"]*\)".*/\1/p')
[ -n "$ids" ] || { echo "no presets listed" >&2; exit 1; }
n=0
for id in $ids; do
  for extra in "" ${CROSS_CHECK_EXTRA:-}; do
    # shellcheck disable=SC2086
    a=$("$native" estimate --preset "$id" --json $extra)
    # shellcheck disable=SC2086
    b=$(run_wasm estimate --preset "$id" --json $extra)
    if [ "$a" != "$b" ]; then
      echo "native and WASM differ for $id $extra:" >&2
      diff <(echo "$a") <(echo "$b") | head -20 >&2
      exit 1
    fi
    n=$((n + 1))
  done
done
[ "$("$native" presets --json)" = "$(run_wasm presets --json)" ] || { echo "preset lists differ" >&2; exit 1; }
echo "cross-check: $n estimates identical in native and WASM builds"
