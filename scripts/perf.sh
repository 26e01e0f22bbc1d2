#!/usr/bin/env bash
# Re-measures docs/performance.md: graph connectivity on Isra's 65 operators (against
# Isra's own generator when ISRA_DIR, a checkout of israProj/isra, is given), and the
# time to write cases per layout, on this repository's disk and on tmpfs.
#   scripts/perf.sh [ISRA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
NNFUZZ=${NNFUZZ:-build/nnfuzz}
PY=${PY:-.venv/bin/python}
ISRA_DIR=${1:-}
work=$(mktemp -d "$PWD/.perf.XXXXXX")
shm=$(mktemp -d /dev/shm/nnfuzz-perf.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT

echo "== Connectivity: Isra's 65 operators, 1-30 operators a model, f32, 1,000 models"
corpus="$work/corpus65.json"
if [ -n "$ISRA_DIR" ]; then
  cp "$ISRA_DIR/bc.json" "$corpus"   # Isra's own corpus: its out-degrees 1..12 give its ODC
else
  "$NNFUZZ" cov --dump-corpus | "$PY" -c '
import json, sys
ops = set(json.load(open("config/isra65.json"))["ops"])
blocks = [b for b in json.load(sys.stdin)["blocks"] if b["name"] in ops]
json.dump({"blocks": blocks}, sys.stdout)' > "$corpus"
fi
"$NNFUZZ" gen --config config/isra65.json -n 1000 -o "$work/ours" | head -1
echo "nnfuzz isra:"
"$NNFUZZ" cov "$work/ours" --metrics isra --corpus "$corpus" | tail -2
if [ -n "$ISRA_DIR" ]; then
  cp -r "$ISRA_DIR" "$work/isra" && rm -rf "$work/isra/models"   # only this run's models
  sed -i 's/^import netron/# import netron/' "$work/isra/criterion.py"  # a viewer, unused here
  (cd "$work/isra" && "$OLDPWD/$PY" g.py --minnode 1 --maxnode 30 --pickrate 0.97 --case baseline --seed 100 \
     --loop 1 --times 1000 >/dev/null)
  echo "Isra (g.py --minnode 1 --maxnode 30 --pickrate 0.97 --seed 100):"
  "$NNFUZZ" cov "$work/isra/models" --metrics isra --corpus "$corpus" | tail -2
fi

echo "== Generation speed, per model, CPU: Isra's 65 operators at 1-30 and at 10 operators"
BENCH=${BENCH:-$(dirname "$NNFUZZ")/nnfuzz_bench}
# BM_Isra65: as a campaign makes a model; BM_Isra65Verified: with `nnfuzz gen`'s verifyGraph too.
"$BENCH" --benchmark_filter='BM_Isra65(Verified)?/' --benchmark_min_time=2 2>/dev/null | grep BM_
if [ -n "$ISRA_DIR" ]; then
  for size in "1 30" "10 10"; do
    set -- $size
    # Isra's own timer around work(), as CPU time: the machine may be shared.
    (cd "$work/isra" && rm -rf models/baseline && "$OLDPWD/$PY" -c '
import runpy, sys, time
time.perf_counter = time.process_time
sys.argv = ["g.py"] + sys.argv[1:]
runpy.run_path("g.py", run_name="__main__")' --minnode "$1" --maxnode "$2" --pickrate 0.97 --seed 100 --times 1000 >/dev/null 2>&1
     printf 'Isra %s-%s operators: ' "$1" "$2"; tail -1 models/baseline/dice/"$1_$2_0.97"/time_*.txt)
  done
fi

echo "== Writing cases: nnfuzz gen -n 2000 --seed 3 -j 1 (second of two runs)"
for dir in "$work" "$shm"; do
  for layout in packed onnx; do
    "$NNFUZZ" gen -n 2000 --seed 3 -j 1 --layout "$layout" -o "$dir/w-$layout" --force >/dev/null
    rm -rf "$dir/w-$layout"; sync
    printf '%-6s %-6s ' "$(stat -f -c %T "$dir")" "$layout"
    "$NNFUZZ" gen -n 2000 --seed 3 -j 1 --layout "$layout" -o "$dir/w-$layout" | head -1
    rm -rf "$dir/w-$layout"
  done
done
