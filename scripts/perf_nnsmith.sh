#!/usr/bin/env bash
# Re-measures "Against NNSmith" in docs/performance.md, both tools on one core:
#  (a) CPU per generated model at 5 and 10 operators: nnfuzz_bench BM_Isra/5, /10 and
#      `nnfuzz gen` against NNSmith's generation pipeline (scripts/nnsmith_gen_time.py);
#  (b) campaign tests/s against ONNX Runtime at 5 operators: `nnfuzz fuzz` against
#      `nnsmith.fuzz`, interleaved (A B A B) so the machine's load falls on both, then nnfuzz
#      again with ORT's optimising session alone, one session a test as NNSmith's loop runs.
#   scripts/perf_nnsmith.sh [NNSMITH_VENV]      (default /work/camps/venv-nnsmith)
# NNSMITH_VENV holds nnsmith, torch, onnx and onnxruntime. Knobs (environment): SECS
# per campaign (180), ROUNDS of the A B pair (2), MODELS per NNSmith timing (200), CORE (0),
# NNSMITH_ARGS (extra hydra overrides for nnsmith.fuzz, e.g. fuzz.crash_safe=true).
set -euo pipefail
cd "$(dirname "$0")/.."
NNFUZZ=${NNFUZZ:-build/nnfuzz}
BENCH=${BENCH:-$(dirname "$NNFUZZ")/nnfuzz_bench}
VENV=${1:-/work/camps/venv-nnsmith}
NPY="$VENV/bin/python"
SECS=${SECS:-180}
ROUNDS=${ROUNDS:-2}
MODELS=${MODELS:-200}
CORE=${CORE:-0}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
one_core=(taskset -c "$CORE")
[ -x "$NPY" ] && "$NPY" -c 'import nnsmith' 2>/dev/null ||
  { echo "error: $VENV has no nnsmith (see docs/performance.md, Against NNSmith)" >&2; exit 2; }
work=$(mktemp -d /dev/shm/nnfuzz-vs-nnsmith.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== Versions"
"$NPY" -c 'import nnsmith, torch, onnx, onnxruntime as o
print(f"NNSmith {nnsmith.__version__}, torch {torch.__version__}, onnx {onnx.__version__}, onnxruntime {o.__version__}")'
echo "nnfuzz $NNFUZZ (built $(date -u -r "$NNFUZZ" '+%F %T'), tree at $(git -C "$(dirname "$NNFUZZ")" rev-parse --short HEAD 2>/dev/null || echo '?')), its onnxruntime worker: $(.venv/bin/python -c 'import onnxruntime as o; print(o.__version__)')"
echo "load: $(uptime)"

echo "== (a) CPU per model, one core"
"${one_core[@]}" "$BENCH" --benchmark_filter='BM_Isra/(5|10)$' --benchmark_min_time=2 2>/dev/null | grep BM_
for ops in 5 10; do
  /usr/bin/time -f "%U %S" -o "$work/gen.time" "${one_core[@]}" "$NNFUZZ" gen -n 2000 --seed 3 \
    --min-ops "$ops" --max-ops "$ops" -j 1 -o "$work/gen" --force >/dev/null
  read -r user sys < "$work/gen.time"
  echo "nnfuzz gen $ops operators (written to tmpfs): $(echo "($user + $sys) / 2" | bc -l | xargs printf '%.3f') ms CPU a case"
  rm -rf "$work/gen"
done
for nodes in 5 10; do
  "${one_core[@]}" "$NPY" scripts/nnsmith_gen_time.py --nodes "$nodes" --models "$MODELS" 2>/dev/null
done

# NNSmith's CLI, with torch.onnx.export's default put back to the TorchScript exporter it
# was written against (torch >= 2.9 defaults to dynamo); NNSmith's own code is unchanged.
nnsmith_fuzz() {
  local root=$1 seed=$2
  /usr/bin/time -f "%e %U %S" -o "$root.time" "${one_core[@]}" "$NPY" -c '
import functools, runpy, sys, torch.onnx
torch.onnx.export = functools.partial(torch.onnx.export, dynamo=False)
runpy.run_module("nnsmith.cli.fuzz", run_name="__main__", alter_sys=True)' \
    model.type=onnx backend.type=onnxruntime mgen.max_nodes=5 fuzz.time="${SECS}s" \
    fuzz.seed="$seed" fuzz.root="$root" hydra.run.dir="$root.hydra" ${NNSMITH_ARGS:-} >/dev/null 2>&1 || true
  local tests gen eval
  tests=$(grep -c 'Timing:' "$root.hydra/fuzz.log" || true)
  read -r wall user sys < "$root.time"
  gen=$(grep -o 'gen: [0-9.]*' "$root.hydra/fuzz.log" | awk '{s += $2} END {printf "%.2f", s / NR}')
  eval=$(grep -o 'eval: [0-9.]*' "$root.hydra/fuzz.log" | awk '{s += $2} END {printf "%.2f", s / NR}')
  # NNSmith's per-test times are heavy-tailed (a few tests take seconds): the median too.
  median=$(grep -oE 'gen: [0-9.]+ms, eval: [0-9.]+' "$root.hydra/fuzz.log" | awk '{print $2 + $4}' |
    sort -n | awk '{a[NR] = $1} END {printf "%.1f", a[int((NR + 1) / 2)]}')
  echo "NNSmith   round seed $seed: median wall per test (gen + eval) $median ms"
  if grep -q 'testcases generated' "$root.hydra/fuzz.log"; then
    printf 'NNSmith   %6d tests in %ss: %6.2f tests/s; per test gen+oracle %s ms, ORT compile+run+compare %s ms; CPU %.2f ms a test (start-up included); %s bug folders\n' \
      "$tests" "$SECS" "$(echo "$tests / $SECS" | bc -l)" "$gen" "$eval" \
      "$(echo "($user + $sys) * 1000 / $tests" | bc -l)" "$(ls "$root" | wc -l)"
  else
    echo "NNSmith stopped early after $tests tests (wall $wall s): $(grep -m1 -E 'Error|error' "$root.hydra/fuzz.log" | cut -c1-160)"
  fi
}

# Like for like: ONNX Runtime's ORT_ENABLE_ALL session alone, one session a test as NNSmith runs
# (nnfuzz's default adds an ORT_DISABLE_ALL session and judges the two against each other too).
printf '%s\n' '{"backends": [{"name": "ort-opt", "description": "ONNX Runtime, ORT_ENABLE_ALL only",' \
  '  "command": ["{python}", "{root}/workers/onnxruntime_worker.py"], "modes": ["opt"]}]}' > "$work/ort-opt.json"

nnfuzz_fuzz() {
  local out=$1 seed=$2 backend=${3:-onnxruntime} label=${4:-nnfuzz}
  /usr/bin/time -f "%e %U %S" -o "$out.time" "${one_core[@]}" "$NNFUZZ" fuzz --backends "$backend" \
    --backends-file "$work/ort-opt.json" --min-ops 5 --max-ops 5 -j 1 --minutes "$(echo "$SECS / 60" | bc -l)" \
    --seed "$seed" -o "$out" > "$out.log" 2>&1
  local tests
  tests=$(grep -oE '^[0-9]+ tests in' "$out.log" | grep -oE '^[0-9]+')
  read -r wall user sys < "$out.time"
  printf '%-9s %s; CPU %.2f ms a test (all processes)\n' "$label" \
    "$(grep -oE '^[0-9]+ tests in .*tests/s\)' "$out.log")" "$(echo "($user + $sys) * 1000 / $tests" | bc -l)"
  grep '^time per test' "$out.log" | sed 's/^/          /'
}

echo "== (b) campaigns against ONNX Runtime, 5 operators a model, ${SECS} s each, one core"
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r (load: $(uptime | sed 's/.*load average: //'))"
  nnfuzz_fuzz "$work/nnfuzz-$r" "$r"
  nnsmith_fuzz "$work/nnsmith-$r" "$r"
  nnfuzz_fuzz "$work/nnfuzz-opt-$r" "$r" ort-opt "nnfuzz opt"
done
