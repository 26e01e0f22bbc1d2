#!/usr/bin/env bash
# Every test: the C++ suites (normal build, then AddressSanitizer + UBSan build) and the
# Python-side checks (official ONNX checker and ONNX Runtime on generated cases).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"   # the node-test harness asks python's onnx about schemas

echo "== C++ tests (Release build)"
ctest --test-dir build --output-on-failure -j "$(nproc)"

echo "== C++ tests (AddressSanitizer + UndefinedBehaviorSanitizer)"
cmake -S . -B build-asan -G Ninja -DNNFUZZ_UNITY=ON -DCMAKE_BUILD_TYPE=Debug -DNNFUZZ_SANITIZE=ON -DNNFUZZ_BENCH=OFF >/dev/null
cmake --build build-asan -j "$(nproc)"
NNFUZZ_TEST_SCALE=0.1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)"

echo "== Python checks (official ONNX checker, ONNX Runtime; the SUT workers)"
NNFUZZ=build/nnfuzz python -m pytest -q tools/tests workers/tests
