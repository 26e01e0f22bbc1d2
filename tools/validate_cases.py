#!/usr/bin/env python3
"""Validates nnfuzz case folders with the official tools, independently of nnfuzz's C++.

For every case folder under DIR (model.onnx + test_data_set_0 + meta.json):
  1. onnx.checker.check_model(model, full_check=True)
  2. the model loads in ONNX Runtime (CPU, all graph optimisations disabled)
  3. ONNX Runtime's outputs match output_N.pb (rtol/atol below, NaN positions equal);
     outputs meta.json lists in no_reference_outputs (fed by an operator of another domain,
     such as com.microsoft, which nnfuzz has no reference for) are only run, not compared
The official checker knows no com.microsoft schema: it checks such nodes' structure
(names, attributes, the opset import) and every default-domain node; ONNX Runtime's load
(its own contrib schemas and type inference) is the check their types get.
Prints one line per failing case and a summary; exits non-zero when the share of
matching cases is below --min-match (default 0.98) or any case fails the checker.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import onnxruntime as ort

ort.set_default_logger_severity(3)


def load_tensors(folder, prefix):
    """(name, array) of a data set's inputs or outputs, packed (inputs.pb: a SequenceProto) or not."""
    packed = os.path.join(folder, f"{prefix}s.pb")
    if os.path.exists(packed):
        seq = onnx.SequenceProto()
        with open(packed, "rb") as f:
            seq.ParseFromString(f.read())
        return [(t.name, onnx.numpy_helper.to_array(t)) for t in seq.tensor_values]
    files = sorted(glob.glob(os.path.join(folder, f"{prefix}_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    out = []
    for path in files:
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append((t.name, onnx.numpy_helper.to_array(t)))
    return out


def outputs_match(actual, expected, rtol, atol):
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != expected {expected.shape}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if expected.dtype.kind in "fc":
        nan_a, nan_e = np.isnan(actual), np.isnan(expected)
        if not np.array_equal(nan_a, nan_e):
            return "NaN positions differ"
        ok = np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
            return f"{int((~ok).sum())} elements differ, max abs error {np.nanmax(diff):.3g}"
        return None
    if not np.array_equal(actual, expected):
        return f"{int((actual != expected).sum())} elements differ"
    return None


def unreferenced_outputs(case):
    meta_path = os.path.join(case, "meta.json")
    if not os.path.exists(meta_path):
        return set()
    with open(meta_path) as f:
        return set(json.load(f).get("no_reference_outputs", []))


def check_case(case, rtol, atol):
    """Returns (stage, message): stage is 'ok', 'checker', 'load' or 'mismatch'."""
    model_path = os.path.join(case, "model.onnx")
    try:
        onnx.checker.check_model(onnx.load(model_path), full_check=True)
    except Exception as e:  # the checker raises several exception types
        return "checker", str(e).splitlines()[0]
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    except Exception as e:
        return "load", str(e).splitlines()[0]
    data = os.path.join(case, "test_data_set_0")
    feeds = {name: value for name, value in load_tensors(data, "input")}
    expected = load_tensors(data, "output")
    try:
        actual = session.run([name for name, _ in expected], feeds)
    except Exception as e:
        return "run", str(e).splitlines()[0]
    skip = unreferenced_outputs(case)
    for k, ((name, want), got) in enumerate(zip(expected, actual)):
        if k in skip:  # no reference: ran, and has the declared type
            problem = None if np.asarray(got).shape == want.shape and np.asarray(got).dtype == want.dtype else \
                f"shape or dtype {np.asarray(got).shape} {np.asarray(got).dtype} != declared {want.shape} {want.dtype}"
            if problem:
                return "mismatch", f"{name}: {problem}"
            continue
        problem = outputs_match(np.asarray(got), want, rtol, atol)
        if problem:
            return "mismatch", f"{name}: {problem}"
    return "ok", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--min-match", type=float, default=0.98)
    parser.add_argument("--json", help="write per-case results to this file")
    args = parser.parse_args()

    cases = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(args.dir, "**", "model.onnx"), recursive=True))
    if not cases:
        print(f"no cases under {args.dir}", file=sys.stderr)
        return 2
    counts, results, ops = {}, {}, set()
    unreferenced = 0
    for case in cases:
        unreferenced += bool(unreferenced_outputs(case))
        stage, message = check_case(case, args.rtol, args.atol)
        counts[stage] = counts.get(stage, 0) + 1
        results[case] = {"stage": stage, "message": message}
        meta_path = os.path.join(case, "meta.json")
        if os.path.exists(meta_path):
            with open(meta_path) as f:
                ops.update(json.load(f).get("ops", []))
        if stage != "ok":
            print(f"{case}: {stage}: {message}")
    n = len(cases)
    share = counts.get("ok", 0) / n
    print(f"{n} cases, {len(ops)} distinct operators: checker failures {counts.get('checker', 0)}, "
          f"ORT load failures {counts.get('load', 0)}, ORT run failures {counts.get('run', 0)}, "
          f"mismatches {counts.get('mismatch', 0)}, match {counts.get('ok', 0)} ({100 * share:.2f}%)")
    accepted = n - counts.get("checker", 0) - counts.get("load", 0) - counts.get("run", 0)
    print(f"ONNX Runtime loads and runs {accepted} ({100 * accepted / n:.2f}%); {unreferenced} cases have outputs "
          f"without an nnfuzz reference (run, type-checked, not compared)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if counts.get("checker", 0) == 0 and share >= args.min_match else 1


if __name__ == "__main__":
    sys.exit(main())
