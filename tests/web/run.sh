#!/usr/bin/env bash
# Browser tests of the page (Playwright + Debian's Chromium, headless, WebGL2 via SwiftShader)
# and the transfer-size report. Screenshots and measurements land in artifacts/.
# Usage: tests/web/run.sh [built web folder]   (default build/wasm-release/web)
set -euo pipefail
cd "$(dirname "$0")/../.."
export LLMSIZE_WEB_DIR=${1:-build/wasm-release/web}
export LLMSIZE_ARTIFACTS=${LLMSIZE_ARTIFACTS:-artifacts}
mkdir -p "$LLMSIZE_ARTIFACTS"
rm -f "$LLMSIZE_ARTIFACTS/web-metrics.json"
node tests/web/transfer_size.mjs "$LLMSIZE_WEB_DIR"
# One file at a time (one browser at a time on 2 cores; works with Node 18's runner too).
status=0
for f in tests/web/page.test.mjs tests/web/input.test.mjs tests/web/api.test.mjs tests/web/hostile.test.mjs tests/web/lang.test.mjs; do
  node --test "$f" || status=1
done
exit $status
