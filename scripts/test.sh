#!/usr/bin/env bash
# Runs every llmsize test on a fresh Debian 12 machine: installs what is missing
# (scripts/setup.sh), then native tests, the same tests in WASM under node, a native-vs-WASM
# cross-check of every preset, and the ASan+UBSan suite. Later stages add themselves here.
# Usage: scripts/test.sh            (from anywhere; run as root or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
JOBS=${JOBS:-$(nproc)}
t0=$(date +%s)
stage() { printf '\n== %s (%ds)\n' "$*" $(( $(date +%s) - t0 )); }

stage "setup"
bash scripts/setup.sh

stage "native build + tests (g++, release)"
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j"$JOBS"
ctest --preset native-release -j"$JOBS"

stage "WASM build + tests under node (Emscripten)"
cmake --preset wasm-release >/dev/null
cmake --build --preset wasm-release -j"$JOBS"
ctest --preset wasm-release -j"$JOBS"

stage "native and WASM print identical estimates for every preset"
CROSS_CHECK_EXTRA="--mode=training --weights=q4_k_m --kv-dtype=q8_0 --explain --gpus=8" \
  bash tests/cross_check.sh build/native-release build/wasm-release

stage "ASan + UBSan build + tests (clang-14)"
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j"$JOBS"
ctest --preset native-asan -j"$JOBS"

stage "bounded fuzzing (libFuzzer, ASan + UBSan, fixed seed, ${FUZZ_RUNS:-200000} executions per target)"
bash tests/fuzz/run.sh "${FUZZ_RUNS:-200000}"

stage "browser tests (Playwright, headless Chromium, WebGL2 via SwiftShader) + page transfer size"
bash tests/web/run.sh build/wasm-release/web

stage "desktop app under Xvfb (GLFW + OpenGL 3.3 on llvmpipe)"
bash tests/app/desktop_test.sh build/native-release

stage "all tests passed"
