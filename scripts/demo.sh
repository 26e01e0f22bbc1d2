#!/usr/bin/env bash
# The main job on the embedded default config: generate 200 models with the Isra
# generator and validate them (nnfuzz's own checker, then independently the official ONNX
# checker and ONNX Runtime against our reference outputs); then a 2-minute campaign against
# ONNX Runtime (reference vs opt vs noopt) that ends with its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/demo}
rm -rf "$out"
./build/nnfuzz gen --generator isra -n 200 --seed 7 --min-ops 1 --max-ops 30 -j "$(nproc)" -o "$out"
./build/nnfuzz check "$out"
.venv/bin/python tools/validate_cases.py "$out"
rm -rf out/campaign
./build/nnfuzz fuzz --backends onnxruntime --minutes 2 -j "$(nproc)" -o out/campaign
