#!/usr/bin/env bash
# The main job on the embedded default config: generate 200 models with the Isra
# generator, validate them with nnfuzz's own checker, then independently with the
# official ONNX checker and ONNX Runtime against our reference outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/demo}
rm -rf "$out"
./build/nnfuzz gen --generator isra -n 200 --seed 7 --min-ops 1 --max-ops 30 -j "$(nproc)" -o "$out"
./build/nnfuzz check "$out"
.venv/bin/python tools/validate_cases.py "$out"
