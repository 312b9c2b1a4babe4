#!/usr/bin/env bash
# Installs everything llmsize needs on a fresh Debian 12 machine, idempotently.
# Debian packages through apt, the Dear ImGui sources for the WASM build through
# `apt-get source` (deb-src entries derived from the machine's own apt sources),
# npm packages through npm. Nothing else is downloaded; nothing third-party is committed.
# Usage: scripts/setup.sh [--bench]   (--bench adds benchmark-only baselines)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

PKGS=(
  build-essential cmake ninja-build pkg-config git dpkg-dev
  emscripten                       # em++ 3.1.6 (clang-14), binaryen
  clang-14 libclang-rt-14-dev      # libFuzzer, ASan, UBSan
  catch2 nlohmann-json3-dev        # tests, JSON
  libimgui-dev libglfw3-dev libgl-dev libgl1-mesa-dri   # native UI
  libstb-dev fonts-roboto-unhinted  # desktop screenshots (stb_image_write), the UI font
  fonts-noto-cjk python3-fonttools  # the Chinese interface's glyphs, cut at build time
  chromium xvfb xauth imagemagick  # browser and desktop tests
  g++-aarch64-linux-gnu qemu-user  # NEON kernel tests
  libopenblas-dev                  # benchmark baseline
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs (emscripten pulls it in) comes without npm, which installs the browser-test
# driver; a machine whose Node.js distribution bundles npm needs nothing more.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Dear ImGui sources (same 1.86 as libimgui-dev) for the WASM build, into .deps/ (git-ignored).
IMGUI_DIR="$ROOT/.deps/imgui"
if [ ! -f "$IMGUI_DIR/imgui.cpp" ]; then
  SRC_LIST=/etc/apt/sources.list.d/llmsize-deb-src.sources
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $SUDO tee "$SRC_LIST" >/dev/null
    elif [ -f /etc/apt/sources.list ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee /etc/apt/sources.list.d/llmsize-deb-src.list >/dev/null
    fi
    $SUDO apt-get update -qq
  fi
  scratch=$(mktemp -d)
  (cd "$scratch" && apt-get source -qq imgui >/dev/null 2>&1 || (cd "$scratch" && apt-get source imgui))
  src=$(find "$scratch" -maxdepth 1 -type d -name 'imgui-*' | head -1)
  [ -f "$src/imgui.cpp" ] || { echo "setup: apt-get source imgui did not give imgui.cpp" >&2; exit 1; }
  rm -rf "$IMGUI_DIR"; mkdir -p "$ROOT/.deps"
  cp -r "$src" "$IMGUI_DIR"
  rm -rf "$scratch"
fi

# npm packages (test drivers; benchmark baselines with --bench).
if [ ! -d "$ROOT/node_modules/playwright-core" ] || [ ! -d "$ROOT/node_modules/@huggingface/gguf" ]; then
  (cd "$ROOT" && npm install --no-audit --no-fund --silent)
fi
if [ "${1:-}" = "--bench" ]; then
  (cd "$ROOT/bench/wasm" && [ -d node_modules/@tensorflow/tfjs-backend-wasm ] || npm install --no-audit --no-fund --silent)
fi
echo "setup: done"
