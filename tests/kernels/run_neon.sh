#!/usr/bin/env bash
# Cross-builds the kernels tests for AArch64 (Debian's aarch64-linux-gnu-g++, NEON kernel)
# and runs them under qemu-aarch64. Usage: tests/kernels/run_neon.sh [BUILD_DIR]
# (default build/kernels-arm). Called by ctest as kernels_neon_qemu; about 1-2 min on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/kernels-arm}
cmake -S "$here" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64.cmake" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target kernels_test --parallel 2
cd "$build"
ctest --output-on-failure -R '^kernels_test$'
