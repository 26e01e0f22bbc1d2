#!/usr/bin/env bash
# Instructions per generated model, which a loaded machine does not change (docs/performance.md,
# "Generation speed against Isra"): callgrind over BM_Isra65_1000/ARG (cases 0..999 of
# config/isra65.json: generate with reference values, verify, export, serialise, free), less the
# benchmark's set-up, divided by 1,000; and the same less verifyGraph (BM_Isra65's work).
# ARG 0: 1-30 operators; 10: 10 operators.
#   scripts/gen_instructions.sh [ARG] [BENCH]
set -euo pipefail
cd "$(dirname "$0")/.."
ARG=${1:-0}
BENCH=${2:-build/nnfuzz_bench}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='nnfuzz::(anonymous namespace)::BM_Isra65*' \
  "$BENCH" --benchmark_filter="BM_Isra65_1000/$ARG/" >/dev/null 2>&1
inclusive() {  # inclusive instructions of the first function whose name contains $1
  callgrind_annotate --threshold=100 --inclusive=yes "$out" | grep -F "$1" | head -1 | awk '{gsub(",", "", $1); print $1}'
}
total=$(inclusive '(anonymous namespace)::BM_Isra65Verified(')
setup=$(( $(inclusive 'nnfuzz::loadConfigFile(') + $(inclusive 'nnfuzz::validateConfig(') + $(inclusive 'nnfuzz::makeGenerator(') ))
verify=$(inclusive 'nnfuzz::verifyGraph[')
echo "BM_Isra65_1000/$ARG: $(( (total - setup) / 1000 )) instructions a model, $(( (total - setup - verify) / 1000 )) without verifyGraph"
