#!/usr/bin/env bash
# Bounded libFuzzer runs (clang-14, ASan + UBSan) over every fuzz target, starting from the
# committed corpus. New inputs go to a scratch corpus; crashes are saved to artifacts/fuzz/
# and fail the run (turn each into a regression: copy it to tests/fuzz/regressions/<target>/).
# Usage: tests/fuzz/run.sh [seconds per target, default 30]   (longer: FUZZ_SECONDS=3600)
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-${FUZZ_SECONDS:-30}}
export NODE_PATH=/usr/share/nodejs
cmake --preset native-fuzz >/dev/null
cmake --build --preset native-fuzz -j"$(nproc)" >/dev/null
mkdir -p artifacts/fuzz
status=0
for bin in build/native-fuzz/tests/fuzz/fuzz_*; do
  t=${bin##*/fuzz_}
  scratch=$(mktemp -d)
  log=artifacts/fuzz/$t.log
  if ! ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
       -max_len=65536 -artifact_prefix=artifacts/fuzz/"$t"- -print_final_stats=1 \
       "$scratch" tests/fuzz/corpus/"$t" >"$log" 2>&1; then
    echo "fuzz $t: FAILED (see $log)"; tail -30 "$log"; status=1
  else
    execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo '?')
    echo "fuzz $t: $execs executions in ${secs}s, no crash"
  fi
  rm -rf "$scratch"
done
exit $status
