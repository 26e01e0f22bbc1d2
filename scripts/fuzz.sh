#!/usr/bin/env bash
# libFuzzer on nnfuzz's own parsers (fuzz/targets.h): builds build-fuzz with clang
# (-fsanitize=fuzzer,address,undefined), writes seed corpora from generated cases, then
# runs each target for RUNS executions (default 1,000,000). A crash leaves its input in
# build-fuzz/findings/TARGET/ and fails the script.
#   scripts/fuzz.sh [RUNS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(onnx_model ir_text config_json worker_reply)
command -v clang++ >/dev/null || { echo "fuzz: needs clang (apt-get install clang libclang-rt-14-dev)"; exit 2; }

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNNFUZZ_FUZZ=ON -DNNFUZZ_TESTS=OFF -DNNFUZZ_BENCH=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target nnfuzz_fuzz_seeds $(printf 'fuzz_%s ' "${TARGETS[@]}")
rm -rf build-fuzz/seeds && build-fuzz/nnfuzz_fuzz_seeds build-fuzz/seeds
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  start=$(date +%s)
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "build-fuzz/fuzz_$t" -runs="$RUNS" -max_len=65536 -rss_limit_mb=4096 -timeout=20 \
       -artifact_prefix="build-fuzz/findings/$t/" "build-fuzz/corpus/$t" "build-fuzz/seeds/$t" \
       > "build-fuzz/$t.log" 2>&1; then
    echo "fuzz: $t: $RUNS executions, 0 crashes ($(( $(date +%s) - start )) s; $(grep -o 'cov: [0-9]*' "build-fuzz/$t.log" | tail -1))"
  else
    echo "fuzz: $t: FAILED after $(( $(date +%s) - start )) s - see build-fuzz/$t.log and build-fuzz/findings/$t/"
    status=1
  fi
done
exit $status
