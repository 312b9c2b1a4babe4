#!/usr/bin/env bash
# The main job. Until the web app lands: builds the CLI natively and prints the estimate
# for a preset (default llama-3-8b).
# Usage: scripts/serve.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset native-release >/dev/null
cmake --build --preset native-release -j"$(nproc)" --target llmsize
./build/native-release/src/cli/llmsize estimate --preset "${1:-llama-3-8b}"
