#!/usr/bin/env bash
# Installs everything nnfuzz needs on a fresh Debian (bookworm) machine and builds it.
#   Debian packages: compiler toolchain, protobuf, ONNX (protos, checker, shape inference,
#   backend node-test data), GoogleTest, Google Benchmark, CLI11, fmt, nlohmann-json, SQLite,
#   mimalloc (nnfuzz's allocator: generation makes many small allocations);
#   for `nnfuzz report`: Chart.js (inlined into each report), Graphviz (model drawings) and
#   Chromium (the headless-browser test of the report).
#   Python (a virtualenv in .venv): onnx 1.22, numpy, pytest and the systems under test -
#   onnxruntime, openvino, apache-tvm, opencv-python-headless, MNN, onnxoptimizer, onnxsim, and
#   IREE 3.13.0 (compiler with its ONNX importer, runtime), ncnn with pnnx (its ONNX converter),
#   torch 2.13.0 with onnx2torch (torch always pinned: this version installs the CPU build, an
#   unpinned one pulls GBs of CUDA), and Ray (campaigns across machines, tools/ray_fuzz.py);
#   together ~2 GB installed - used by the validation
#   scripts, the tests and the backend workers (workers/*.py), never linked into nnfuzz.
#   --with-litert (or NNFUZZ_WITH_LITERT=1) adds LiteRT via onnx2tf (backend litert) in a venv of
#   its own, .venv-litert: onnx2tf pins TensorFlow 2.19 and its own onnx, numpy and protobuf,
#   which clash with .venv's; ~2.6 GB and ~2 min more.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_LITERT=${NNFUZZ_WITH_LITERT:-0}
for arg in "$@"; do
  case "$arg" in
    --with-litert) WITH_LITERT=1 ;;
    *) echo "setup: unknown option $arg (known: --with-litert)" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
packages=(build-essential cmake ninja-build pkg-config protobuf-compiler libprotobuf-dev
          libonnx-dev libonnx-testdata libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
          libfmt-dev nlohmann-json3-dev libsqlite3-dev libz3-dev libmimalloc-dev python3 python3-venv
          libjs-chart.js graphviz chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/python -m pip install -q --disable-pip-version-check "onnx==1.22.*" numpy pytest \
  onnxruntime==1.31.1 openvino==2026.4.1 apache-tvm==0.27.0.post1 \
  opencv-python-headless==5.0.0.93 MNN==3.6.1 onnxoptimizer==0.4.2 onnxsim==0.8.1 torch==2.13.0 ray==2.60.0
# IREE (~100 MB): compiler with its ONNX importer (torch-mlir), and the runtime.
.venv/bin/python -m pip install -q --disable-pip-version-check \
  "iree-base-compiler[onnx]==3.13.0" iree-base-runtime==3.13.0
# onnx2torch without its torchvision dependency: PyPI's torchvision is the CUDA build, which
# cannot load next to the CPU torch (workers/pytorch_worker.py stands in for the two calls).
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps onnx2torch==1.5.15
# ncnn, and pnnx (its ONNX converter, a self-contained binary in the wheel) without its torch
# dependency: pip would replace the pinned CPU torch 2.13.0 by a CUDA build of a newer one.
.venv/bin/python -m pip install -q --disable-pip-version-check ncnn==1.0.20261020
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps pnnx==20261020
# OpenCV 5 has no Caffe importer: OpenCV 4.12 beside it, for workers/opencv_caffe_worker.py only.
if [ ! -d .venv/opencv4/cv2 ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --target .venv/opencv4 \
    opencv-python-headless==4.12.0.88
fi

if [ "$WITH_LITERT" = 1 ]; then
  if [ ! -x .venv-litert/bin/python ]; then python3 -m venv .venv-litert; fi
  # Once only: pip would put back onnx2tf's pin of ai-edge-litert (2.1.0; onnx2tf only
  # converts), and the interpreter under test is 2.3.0 (pip warns about the pin, installs it).
  .venv-litert/bin/python -c 'import importlib.metadata as m; assert m.version("onnx2tf") == "1.29.24"' 2>/dev/null ||
    .venv-litert/bin/python -m pip install -q --disable-pip-version-check onnx2tf==1.29.24
  .venv-litert/bin/python -m pip install -q --disable-pip-version-check ai-edge-litert==2.3.0
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DNNFUZZ_UNITY=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "setup: built $BUILD_DIR/nnfuzz; set-up took ${SECONDS} s"
