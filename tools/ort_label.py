#!/usr/bin/env python3
"""The ONNX Runtime acceptor of `nnfuzz infer --backend onnxruntime` (NeuRI's labelling).

Reads single-operator model paths from stdin, one per line, and writes one JSON line per
model to stdout:
  {"label": "pass", "outputs": [[elem_type, [dims...]], ...]}   ran; the output types
  {"label": "reject", "error": "..."}                            rejected at load or run
  {"label": "drop", "why": "..."}                                nondeterministic or value-dependent
A model runs with four groups of random inputs (value independence: all must pass or all
fail, with equal output types; two groups let value-dependent contrib operators such as
BifurcationDetector through) and the first group twice (determinism: equal outputs).
ONNX Runtime runs unoptimised on one thread, as the nnfuzz worker's "noopt" mode does.

The labelling budget: `--model-seconds S` (default 10) bounds each model. A model still
running after S seconds (ONNX Runtime cannot be interrupted from Python) ends the process
(status 1, a traceback on stderr) after the lines of the models before it; the caller
drops that model and starts again after it.
"""
import argparse
import faulthandler
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workers"))
from common import ort_session_options  # noqa: E402


def random_inputs(model, rng):
    feeds = {}
    for vi in model.graph.input:
        t = vi.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if dtype == np.bool_:
            feeds[vi.name] = rng.integers(0, 2, size=shape).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            feeds[vi.name] = rng.integers(0, 3, size=shape).astype(dtype)
        elif np.issubdtype(dtype, np.floating):
            feeds[vi.name] = rng.standard_normal(size=shape).astype(dtype)
        else:
            raise ValueError("unsupported input dtype %s" % dtype)
    return feeds


def run(path, feeds):
    options = ort_session_options(ort, False)
    options.log_severity_level = 4  # rejections are expected here: do not log them
    sess = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def label(path):
    model = onnx.load(path)
    results = []
    for seed in (1, 2, 3, 4):
        try:
            feeds = random_inputs(model, np.random.default_rng(seed))
        except ValueError as e:
            return {"label": "drop", "why": str(e)}
        try:
            results.append(run(path, feeds))
        except Exception as e:  # noqa: BLE001 - any rejection is a counter-example
            results.append(str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
    if all(isinstance(r, str) for r in results):
        return {"label": "reject", "error": results[0]}
    if any(isinstance(r, str) for r in results):
        return {"label": "drop", "why": "value-dependent (one input group ran, another failed)"}
    types = [[[str(o.dtype), list(o.shape)] for o in r] for r in results]
    if any(t != types[0] for t in types):
        return {"label": "drop", "why": "value-dependent output types"}
    again = run(path, random_inputs(model, np.random.default_rng(1)))
    for a, b in zip(results[0], again):
        if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
            return {"label": "drop", "why": "nondeterministic"}
    outputs = [[int(onnx.helper.np_dtype_to_tensor_dtype(o.dtype)), [int(d) for d in o.shape]] for o in results[0]]
    return {"label": "pass", "outputs": outputs}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-seconds", type=float, default=10.0)
    args = parser.parse_args()
    ort.set_default_logger_severity(4)
    # faulthandler's watchdog is a C thread: it fires even while ONNX Runtime holds the GIL.
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        faulthandler.dump_traceback_later(args.model_seconds, exit=True, file=sys.stderr)
        try:
            reply = label(path)
        except Exception as e:  # noqa: BLE001 - an unreadable model is a drop, never a crash
            reply = {"label": "drop", "why": "helper: %s" % e}
        faulthandler.cancel_dump_traceback_later()
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
