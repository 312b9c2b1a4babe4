#!/usr/bin/env bash
# GEMM benchmark: builds bench/ natively (build/kernels-native) and to WASM (build/kernels-wasm),
# then prints two markdown tables: ours vs single-threaded OpenBLAS, and ours (SIMD128,
# relaxed-SIMD) vs XNNPACK (tfjs-backend-wasm) and onnxruntime-web under Node, one thread.
# Usage: scripts/bench.sh [--quick | --all] [--reps N]   (copies land in build/bench-*.md)
# Needs libopenblas-dev, emscripten and node; npm-installs the baselines into bench/wasm.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emcc needs acorn from there
native=build/kernels-native
wasm=build/kernels-wasm

cmake -S . -B "$native" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLMSIZE_APP=OFF -DLLMSIZE_BENCH=ON >/dev/null
cmake --build "$native" --target gemm_bench --parallel 2 >/dev/null
emcmake cmake -S . -B "$wasm" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLMSIZE_APP=OFF -DLLMSIZE_BENCH=ON >/dev/null
cmake --build "$wasm" --target gemm_bench_wasm gemm_bench_wasm_relaxed --parallel 2 >/dev/null
if [ ! -d bench/wasm/node_modules/@tensorflow/tfjs-backend-wasm ] || [ ! -d bench/wasm/node_modules/onnxruntime-web ]; then
  (cd bench/wasm && npm install --no-audit --no-fund --silent)
fi

# The environment may pin OpenBLAS to an older kernel (OPENBLAS_CORETYPE=Haswell): unset it for
# the baseline here only (gemm_bench would also re-exec itself without it).
env -u OPENBLAS_CORETYPE LLMSIZE_BENCH_UNPINNED="${OPENBLAS_CORETYPE:-}" OPENBLAS_NUM_THREADS=1 \
  "$native/bench/gemm_bench" "$@" | tee build/bench-native.md
echo
# The WASM fraction of peak uses the clock the native run measured.
ghz=$(sed -n 's/.*assumed = \([0-9.]*\) GHz.*/\1/p' build/bench-native.md | head -1)
node --experimental-wasm-relaxed-simd bench/wasm/bench.mjs "$wasm/bench" --ghz "${ghz:-3.4}" "$@" \
  | tee build/bench-wasm.md
