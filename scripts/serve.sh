#!/usr/bin/env bash
# The main command: builds the calculator page (WebAssembly, Emscripten) and serves it on
# http://127.0.0.1:8080/ with a tiny static server (node). Installs what is missing first.
# Usage: scripts/serve.sh [port]
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
port=${1:-8080}
bash scripts/setup.sh
cmake --preset wasm-release >/dev/null
cmake --build --preset wasm-release -j"$(nproc)" --target llmsize_web
echo
echo "llmsize: open http://127.0.0.1:$port/ in a browser"
echo "         embed example: http://127.0.0.1:$port/embed-example.html   JS API example: http://127.0.0.1:$port/api-example.html"
echo "         (Ctrl+C stops the server; the desktop app: build/native-release/src/app/llmsize-app)"
exec node tests/web/static_server.mjs build/wasm-release/web "$port"
