#!/usr/bin/env bash
# Decode of a Gated DeltaNet layer (its state read and written) beside a GEMV of the same bytes,
# natively and in WASM under node, in one run each (bench/state_bench.cpp). Prints markdown rows.
# Usage: scripts/bench_state.sh [--batch B] [--reps N]   (after scripts/test.sh built both presets)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
cmake --build --preset native-release --target state_bench >/dev/null
cmake --build --preset wasm-release --target state_bench_wasm >/dev/null
build/native-release/bench/state_bench "$@"
node --no-experimental-fetch build/wasm-release/bench/state_bench_wasm.js "$@" | tail -1
