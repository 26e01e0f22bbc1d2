#!/usr/bin/env python3
"""Probes ONNX Runtime's CPU provider for (operator, dtype) kernels it lacks.

For every operator nnfuzz knows and every dtype, generates a few single-operator models
(no avoid rules), loads each in ONNX Runtime and records NOT_IMPLEMENTED rejections. The
dtype that explains a rejection is found per operand: the operand whose dtypes in
rejected models never occur in accepted ones. Prints the "no kernel" rules; hand-written
rules (those whose "why" is not "no kernel") in --merge FILE are kept, so

    tools/probe_ort_kernels.py --merge config/onnxruntime_avoid.json > new.json

refreshes config/onnxruntime_avoid.json for a new ONNX Runtime release.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import onnx
import onnxruntime as ort

DTYPES = ["f32", "f64", "i32", "i64", "i8", "u8", "bool"]
ELEM = {1: "f32", 11: "f64", 6: "i32", 7: "i64", 3: "i8", 2: "u8", 9: "bool"}


def operand_dtypes(model):
    types = {v.name: v.type.tensor_type.elem_type for v in list(model.graph.input) + list(model.graph.value_info)}
    types.update({i.name: i.data_type for i in model.graph.initializer})
    node = model.graph.node[0]
    return [ELEM.get(types.get(name)) if name else None for name in node.input]


def probe(nnfuzz, op, dtype, count, workdir):
    cfg = os.path.join(workdir, "cfg.json")
    with open(cfg, "w") as f:
        json.dump({"ops": {op: 1}, "dtypes": {dtype: 1}, "min_ops": 1, "max_ops": 1, "avoid": []}, f)
    out = os.path.join(workdir, f"{op}_{dtype}")
    r = subprocess.run([nnfuzz, "gen", "--config", cfg, "-n", str(count), "--seed", "1", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return []  # the op cannot take this dtype
    results = []
    for case in sorted(os.listdir(out)):
        path = os.path.join(out, case, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path)
        try:
            ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            results.append((operand_dtypes(model), True))
        except Exception as e:  # noqa: BLE001 - any rejection is data here
            results.append((operand_dtypes(model), "NOT_IMPLEMENTED" not in str(e)))
    return results


def explain(results):
    """Rules {operand, dtypes} explaining the rejected models."""
    rejected = [d for d, ok in results if not ok]
    accepted = [d for d, ok in results if ok]
    if not rejected:
        return []
    for k in range(max(len(d) for d in rejected)):
        bad = {d[k] for d in rejected if k < len(d) and d[k]}
        good = {d[k] for d in accepted if k < len(d) and d[k]}
        if bad and not bad & good and all(k < len(d) and d[k] in bad for d in rejected):
            return [(k, sorted(bad))]
    return [(None, sorted({d[0] for d in rejected if d and d[0]}))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nnfuzz", default=os.path.join(os.path.dirname(__file__), "..", "build", "nnfuzz"))
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--merge", help="existing rules file: keep its hand-written rules")
    args = parser.parse_args()
    ort.set_default_logger_severity(4)
    listing = subprocess.run([args.nnfuzz, "ops"], capture_output=True, text=True, check=True).stdout.splitlines()
    ops = [line.split()[0] for line in listing[1:-1]]
    rules = []
    with tempfile.TemporaryDirectory() as work:
        for op in ops:
            results = []
            for dtype in DTYPES:
                results += probe(args.nnfuzz, op, dtype, args.count, work)
            for operand, dtypes in explain(results):
                rule = {"op": op}
                if operand not in (None, 0):
                    rule["operand"] = operand
                rule["dtypes"] = dtypes
                rule["why"] = "no kernel"
                rules.append(rule)
                print(f"{op}: no kernel for {dtypes} (operand {operand})", file=sys.stderr)
    if args.merge:
        with open(args.merge) as f:
            rules += [r for r in json.load(f) if r.get("why") != "no kernel"]
    print("[\n" + ",\n".join("  " + json.dumps(r) for r in rules) + "\n]")


if __name__ == "__main__":
    main()
