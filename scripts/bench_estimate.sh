#!/usr/bin/env bash
# Estimator speed, this tree against a base commit in one run: builds bench/estimate_bench here
# (build/estimate-bench) and at BASE (a temporary git worktree), runs them alternately ROUNDS
# times and prints each row's median for both and the ratio (the machine is shared and noisy:
# only same-run ratios mean anything).
# With --instructions it prints, instead, the instructions one estimate() (or one Scaling tab)
# executes, counted by valgrind's callgrind inside estimate() only: deterministic, so small
# differences are real.
# Usage: scripts/bench_estimate.sh [--instructions] [BASE (default 44f7d9c, the commit that added the benchmark)] [ROUNDS (default 5)]
set -euo pipefail
cd "$(dirname "$0")/.."
count=0
if [ "${1:-}" = "--instructions" ]; then count=1; shift; fi
base=${1:-44f7d9c}
rounds=${2:-5}
here=build/estimate-bench
there=$(mktemp -d)
trap 'git worktree remove --force "$there/src" >/dev/null 2>&1 || true; rm -rf "$there"' EXIT
build() {  # <source dir> <build dir>
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLMSIZE_APP=OFF -DLLMSIZE_TESTS=OFF >/dev/null
  cmake --build "$2" --target estimate_bench --parallel 2 >/dev/null
}
build . "$here"
git worktree add -q --detach "$there/src" "$base"
cp bench/estimate_bench.cpp "$there/src/bench/"  # the same harness on both sides (the API it uses is older)
build "$there/src" "$there/build"
if [ "$count" = 1 ]; then
  ir1() {  # <binary> <preset> <what> <n>: instructions inside estimate() over n calls
    local out; out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='llmsize::core::estimate(*' \
      "$1" --once "$2" "$3" "$4" >/dev/null 2>&1
    sed -n 's/^summary: *//p' "$out"; rm -f "$out"
  }
  ir() {  # one call, first-call statics (tables, GPU catalog) excluded: (11 calls − 1 call) / 10
    echo $(( ($(ir1 "$@" 11) - $(ir1 "$@" 1)) / 10 ))
  }
  echo "| preset | estimate() base → this | training | Scaling tab (all its estimates) |"
  echo "|---|---:|---:|---:|"
  for p in deepseek-v3 llama-3.1-405b mixtral-8x7b gemma-2-27b llama-3-8b; do
    line="| $p"
    for what in inference training scaling; do
      b=$(ir "$there/build/bench/estimate_bench" "$p" "$what"); t=$(ir "$here/bench/estimate_bench" "$p" "$what")
      line="$line | $b → $t ($(awk -v b="$b" -v t="$t" 'BEGIN { printf "%+.1f%%", (t - b) * 100 / b }'))"
    done
    echo "$line |"
  done
  exit 0
fi
for ((i = 0; i < rounds; i++)); do
  "$there/build/bench/estimate_bench" 3 | sed 's/^/base /'
  "$here/bench/estimate_bench" 3 | sed 's/^/this /'
done | awk '
  $2 == "preset" { next }
  { key = $2; n[$1 SUBSEP key]++; for (c = 3; c <= 5; c++) v[$1 SUBSEP key SUBSEP c SUBSEP n[$1 SUBSEP key]] = $c
    if (!(key in seen)) { seen[key] = 1; order[++m] = key } }
  function med(who, key, c,   k, a, t, i, j) {
    k = n[who SUBSEP key]; for (i = 1; i <= k; i++) a[i] = v[who SUBSEP key SUBSEP c SUBSEP i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((k + 1) / 2)] }
  END {
    print "| preset | estimate µs base → this | training µs base → this | scaling tab µs base → this |"
    print "|---|---:|---:|---:|"
    for (i = 1; i <= m; i++) { k = order[i]; line = "| " k
      for (c = 3; c <= 5; c++) { t = med("this", k, c)
        if (!(("base" SUBSEP k) in n)) { line = line sprintf(" | %.2f (no preset at the base)", t); continue }
        b = med("base", k, c); line = line sprintf(" | %.2f → %.2f (×%.2f)", b, t, t / b) }
      print line " |" } }'
