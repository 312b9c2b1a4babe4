#!/usr/bin/env bash
# libFuzzer runs (clang-14, ASan + UBSan) over every fuzz target, starting from the committed
# corpus. New inputs go to a scratch corpus; crashes are saved to artifacts/fuzz/ and fail the
# run (turn each into a regression: copy it to tests/fuzz/regressions/<target>/).
#
# Default (the test command): a fixed seed and a fixed number of executions per target, so a
# run is reproducible and CI fails only when the code changed, never by luck.
# Exploration: FUZZ_SECONDS=3600 tests/fuzz/run.sh   (time-bounded, random seed)
# Usage: tests/fuzz/run.sh [executions per target, default 200000]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-${FUZZ_RUNS:-200000}}
export NODE_PATH=/usr/share/nodejs
# The fuzz targets build in the ASan + UBSan tree (preset native-asan, -O1, coverage for
# libFuzzer): scripts/test.sh has built it for its sanitizer stage, so this is a no-op there.
cmake --preset native-asan >/dev/null
cmake --build --preset native-asan -j"$(nproc)" >/dev/null
mkdir -p artifacts/fuzz
if [ -n "${FUZZ_SECONDS:-}" ]; then
  mode=(-max_total_time="$FUZZ_SECONDS")
  what="${FUZZ_SECONDS}s"
else
  mode=(-seed=1 -runs="$runs" -max_total_time=600)
  what="seed 1"
fi
# The targets run side by side, one per core (FUZZ_JOBS, default nproc), the slowest first; each
# is bounded by its own seed and execution count, so the result does not depend on the schedule.
jobs=${FUZZ_JOBS:-$(nproc)}
fuzz_one() {
  local bin=$1 t=${1##*/fuzz_} scratch log start execs
  scratch=$(mktemp -d)
  log=artifacts/fuzz/$t.log
  start=$(date +%s)
  if ! ASAN_OPTIONS=detect_leaks=1 "$bin" "${mode[@]}" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
       -artifact_prefix=artifacts/fuzz/"$t"- -print_final_stats=1 \
       "$scratch" tests/fuzz/corpus/"$t" >"$log" 2>&1; then
    echo "fuzz $t: FAILED (see $log)"; tail -30 "$log"; rm -rf "$scratch"; return 1
  fi
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo '?')
  echo "fuzz $t: $execs executions ($what) in $(( $(date +%s) - start ))s, no crash"
  rm -rf "$scratch"
}
# engine_log first: it takes about as long as the rest together.
bins=(build/native-asan/tests/fuzz/fuzz_engine_log)
for bin in build/native-asan/tests/fuzz/fuzz_*; do
  [ "$bin" = "${bins[0]}" ] || bins+=("$bin")
done
status=0
running=0
for bin in "${bins[@]}"; do
  [ -x "$bin" ] || { echo "fuzz: missing $bin"; status=1; continue; }
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$bin" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
