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
# One preset per job, one job per core (JOBS, default nproc): the node start-up dominates.
check_one() {
  local id=$1 extra a b
  for extra in "" ${CROSS_CHECK_EXTRA:-}; do
    # shellcheck disable=SC2086
    a=$("$native" estimate --preset "$id" --json $extra)
    # shellcheck disable=SC2086
    b=$(node --no-experimental-fetch "$wasm" estimate --preset "$id" --json $extra)
    if [ "$a" != "$b" ]; then
      echo "native and WASM differ for $id $extra:" >&2
      diff <(echo "$a") <(echo "$b") | head -20 >&2
      return 1
    fi
  done
}
export -f check_one
export native wasm CROSS_CHECK_EXTRA
# shellcheck disable=SC2016
printf '%s\n' $ids | xargs -P "${JOBS:-$(nproc)}" -I{} bash -c 'check_one "$1"' _ {} ||
  { echo "native and WASM differ (above)" >&2; exit 1; }
extras=(${CROSS_CHECK_EXTRA:-})
n=$(( $(printf '%s\n' $ids | wc -l) * (1 + ${#extras[@]}) ))
[ "$("$native" presets --json)" = "$(run_wasm presets --json)" ] || { echo "preset lists differ" >&2; exit 1; }
echo "cross-check: $n estimates identical in native and WASM builds"
