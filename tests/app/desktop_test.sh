#!/usr/bin/env bash
# The desktop app in a real window under Xvfb: it starts, renders frames, restores a share
# link given as its argument (same figures as the CLI for that state, same link back), opens
# a config.json given as argument, and writes screenshots to artifacts/.
# Usage: tests/app/desktop_test.sh [native build dir]   (default build/native-release)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/native-release}
app="$build/src/app/llmsize-app"
cli="$build/src/cli/llmsize"
art=${LLMSIZE_ARTIFACTS:-artifacts}
mkdir -p "$art"
fail() { echo "desktop test FAILED: $*" >&2; exit 1; }
run() { xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "$@"; }
colours() { identify -format '%k' "$1"; }
field() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -1; }
passed=0

# 1. Starts, renders frames, screenshot (default state, dark theme).
run --frames 20 --screenshot "$art/desktop.png" --figures "$art/desktop-default.json" > "$art/desktop-default.log"
[ -s "$art/desktop.png" ] || fail "no screenshot"
n=$(colours "$art/desktop.png"); [ "$n" -gt 200 ] || fail "screenshot looks blank ($n colours)"
grep -q '"frames": 20' "$art/desktop-default.log" || fail "did not render 20 frames: $(cat "$art/desktop-default.log")"
passed=$((passed + 1))

# 2. A share link as argument restores that state: the CLI gives the same parameters and the
#    app gives the link back unchanged.
link='#v=1&preset=mixtral-8x7b&ui.tab=scaling'
run "$link" --frames 10 --light --screenshot "$art/desktop-link.png" --figures "$art/desktop-link.json" > /dev/null
want=$("$cli" estimate --preset mixtral-8x7b --json | sed -n 's/.*"total": \([0-9]*\).*/\1/p' | head -1)
got=$(field "$art/desktop-link.json" total)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "link restored total $got, CLI says $want"
grep -qF "\"link\": \"$link\"" "$art/desktop-link.json" || fail "link did not round-trip: $(head -c 200 "$art/desktop-link.json")"
grep -q '"banners": 0' "$art/desktop-link.json" || fail "the link produced a message"
n=$(colours "$art/desktop-link.png"); [ "$n" -gt 200 ] || fail "light screenshot looks blank ($n colours)"
passed=$((passed + 1))

# 3. A config.json as argument is imported.
cfg=tests/core/configs/falcon-rw-1b.json
run "$cfg" --frames 5 --figures "$art/desktop-config.json" > /dev/null
want=$("$cli" estimate --config "$cfg" --json 2>/dev/null | sed -n 's/.*"total": \([0-9]*\).*/\1/p' | head -1)
got=$(field "$art/desktop-config.json" total)
[ "$got" = "$want" ] || fail "config import total $got, CLI says $want"
passed=$((passed + 1))

# 4. A bad link opens the default state with a message, without crashing.
run '#v=1&preset=no-such-model' --frames 5 --screenshot "$art/desktop-bad-link.png" --figures "$art/desktop-bad.json" > /dev/null
grep -q '"banners": 0' "$art/desktop-bad.json" && fail "no message for a bad link"
[ "$(field "$art/desktop-bad.json" total)" = "$(field "$art/desktop-default.json" total)" ] || fail "bad link did not give the default state"
passed=$((passed + 1))

# 5. The demo block runs to completion in the window and its heat map is drawn.
run '#v=1&preset=qwen2.5-0.5b&ui.tab=demo' --demo --frames 4 --screenshot "$art/desktop-demo.png" \
  --figures "$art/desktop-demo.json" > /dev/null
grep -q '"done": true' "$art/desktop-demo.json" || fail "demo did not finish: $(grep -o '"demo": {[^}]*}' "$art/desktop-demo.json")"
grep -q '"heat_positions": 0' "$art/desktop-demo.json" && fail "no attention heat map"
n=$(colours "$art/desktop-demo.png"); [ "$n" -gt 200 ] || fail "demo screenshot looks blank ($n colours)"
passed=$((passed + 1))

# 6. A comparison link (as `llmsize compare` reads it) opens on the Compare tab and comes back unchanged.
link='#v=1&preset=llama-3-8b&c2=v%3D1%26preset%3Dllama-3-8b%26w%3Dq4_k_m&c3=v%3D1%26preset%3Dqwen2.5-7b%26gpu%3Drtx-4090'
run "$link" --frames 6 --size 1400x960 --screenshot "$art/desktop-compare.png" --figures "$art/desktop-compare.json" > /dev/null
grep -qF "\"link\": \"$link\"" "$art/desktop-compare.json" || fail "comparison link did not round-trip: $(head -c 300 "$art/desktop-compare.json")"
grep -q '"banners": 0' "$art/desktop-compare.json" || fail "the comparison link produced a message"
n=$(colours "$art/desktop-compare.png"); [ "$n" -gt 200 ] || fail "compare screenshot looks blank ($n colours)"
passed=$((passed + 1))

# 7. Chinese: --lang zh, or a Chinese locale, draws the interface in Chinese with a glyph for every
#    character of the string tables; a link's lang=en wins over the locale; a bad --lang is refused.
run '#v=1&preset=qwen3.5-0.8b&ui.tab=memory' --lang zh --frames 6 --screenshot "$art/desktop-zh.png" \
  --figures "$art/desktop-zh.json" > /dev/null
grep -q '"language": "zh", "missing_glyphs": 0' "$art/desktop-zh.json" || fail "--lang zh: $(grep -o '"language.*' "$art/desktop-zh.json")"
n=$(colours "$art/desktop-zh.png"); [ "$n" -gt 200 ] || fail "Chinese screenshot looks blank ($n colours)"
LANG=zh_CN.UTF-8 LC_ALL= run --frames 3 --figures "$art/desktop-zh-locale.json" > /dev/null
grep -q '"language": "zh"' "$art/desktop-zh-locale.json" || fail "LANG=zh_CN.UTF-8 did not open in Chinese"
LANG=zh_CN.UTF-8 LC_ALL= run '#v=1&preset=llama-3-8b&lang=en' --frames 3 --figures "$art/desktop-en-link.json" > /dev/null
grep -q '"language": "en"' "$art/desktop-en-link.json" || fail "a link's lang=en did not win over the locale"
if run --lang fr --frames 1 > "$art/desktop-bad-lang.log" 2>&1; then fail "--lang fr was accepted"; fi
grep -q 'en or zh' "$art/desktop-bad-lang.log" || fail "--lang fr: $(cat "$art/desktop-bad-lang.log")"
passed=$((passed + 1))

echo "desktop: $passed passed, 0 failed"
