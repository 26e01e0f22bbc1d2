#!/usr/bin/env python3
"""validate_caffe_cases.py - loads every Caffe case under a folder in OpenCV DNN's Caffe
importer and compares its outputs with nnfuzz's reference.

    .venv/bin/python tools/validate_caffe_cases.py out [--onnx] [--json]

A case is a folder with deploy.prototxt, weights.caffemodel, caffe.json (input and output
blob names) and caffe_data/input_N.npy / output_N.npy (nnfuzz gen --format caffe|both).
Outputs match when numpy.allclose(actual, expected, rtol=1e-2, atol=1e-3) holds (nnfuzz's
default policy) with equal shapes. With --onnx, the same network's model.onnx also goes
through readNetFromONNX (OpenCV 4.12's ONNX importer) for comparison. OpenCV 5 has no Caffe
importer: this uses OpenCV 4.12 from .venv/opencv4 (scripts/setup.sh installs it).
"""

import argparse
import collections
import json
import os
import sys

import numpy as np

OPENCV4_DIR = os.path.join(sys.prefix, "opencv4")
if os.path.isdir(OPENCV4_DIR):
    sys.path.insert(0, OPENCV4_DIR)
import cv2  # noqa: E402

RTOL, ATOL = 1e-2, 1e-3


def forward_outputs(net, names, onnx=False):
    """The graph's outputs: by name from the ONNX importer; from the Caffe importer by the
    layer that writes each blob (Net.forward takes layer names), all tops of each layer."""
    if onnx:
        return [np.asarray(a) for a in net.forward(names["outputs"])]
    layers = list(dict.fromkeys(layer for layer, _ in names["output_layers"]))
    tops = dict(zip(layers, net.forwardAndRetrieve(layers)))
    return [np.asarray(tops[layer][top]) for layer, top in names["output_layers"]]


def one_d(actual, shape):
    """OpenCV 4's Mat has at least two dims: a 1-D result comes back as (n, 1) or (1, n)."""
    if len(shape) == 1 and actual.ndim == 2 and actual.size == shape[0] and 1 in actual.shape:
        return actual.reshape(shape)
    return actual


def run_case(case, onnx=False):
    """('match' | 'mismatch' | 'load-error' | 'run-error', detail, layer types)."""
    with open(os.path.join(case, "caffe.json")) as f:
        names = json.load(f)
    data = os.path.join(case, "caffe_data")
    inputs = [np.load(os.path.join(data, f"input_{i}.npy")) for i in range(len(names["inputs"]))]
    expected = [np.load(os.path.join(data, f"output_{i}.npy")) for i in range(len(names["outputs"]))]
    try:
        if onnx:
            net = cv2.dnn.readNetFromONNX(os.path.join(case, "model.onnx"))
        else:
            net = cv2.dnn.readNetFromCaffe(os.path.join(case, "deploy.prototxt"),
                                           os.path.join(case, "weights.caffemodel"))
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    except cv2.error as e:
        return "load-error", str(e).strip().splitlines()[-1]
    try:
        for name, arr in zip(names["inputs"], inputs):
            net.setInput(cv2.Mat(np.ascontiguousarray(arr), wrap_channels=False), name)
        actual = forward_outputs(net, names, onnx)
    except cv2.error as e:
        return "run-error", str(e).strip().splitlines()[-1]
    for k, (a, e) in enumerate(zip(actual, expected)):
        a = one_d(a, e.shape)
        if a.shape != e.shape:
            return "mismatch", f"output {k}: shape {a.shape}, expected {e.shape}"
        if not np.allclose(a, e, rtol=RTOL, atol=ATOL):
            return "mismatch", f"output {k}: max abs diff {float(np.max(np.abs(a - e))):.3g}"
    return "match", ""


def cases_under(folder):
    return sorted(os.path.join(root) for root, _, files in os.walk(folder) if "deploy.prototxt" in files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--onnx", action="store_true", help="use the case's model.onnx with readNetFromONNX instead")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    counts = collections.Counter()
    problems = []
    for case in cases_under(args.folder):
        verdict, detail = run_case(case, args.onnx)
        counts[verdict] += 1
        if verdict != "match":
            problems.append({"case": case, "verdict": verdict, "detail": detail})
    total = sum(counts.values())
    summary = {"opencv": cv2.__version__, "importer": "onnx" if args.onnx else "caffe", "cases": total,
               **{k: counts[k] for k in ("match", "mismatch", "load-error", "run-error")},
               "match_rate": counts["match"] / total if total else 0.0, "problems": problems}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"OpenCV {cv2.__version__} {summary['importer']} importer: {counts['match']} of {total} cases match "
              f"({100 * summary['match_rate']:.1f}%), {counts['mismatch']} mismatch, {counts['load-error']} fail to "
              f"load, {counts['run-error']} fail to run")
        for p in problems:
            print(f"  {p['verdict']}: {p['case']}: {p['detail']}")
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main())
