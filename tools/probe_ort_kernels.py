#!/usr/bin/env python3
"""Probes ONNX Runtime's CPU provider for (operator, dtype) kernels it lacks.

For every operator nnfuzz knows and every dtype, generates a few single-operator models
(no avoid rules), loads each in ONNX Runtime and records NOT_IMPLEMENTED rejections. The
dtype that explains a rejection is found per operand: the operand whose dtypes in
rejected models never occur in accepted ones. Prints the "no kernel" rules; hand-written
rules (those whose "why" is not "no kernel") in --merge FILE are kept, so

    tools/probe_ort_kernels.py --merge config/onnxruntime_avoid.json > new.json

refreshes config/onnxruntime_avoid.json for a new ONNX Runtime release. ONNX Runtime
registers kernels per schema version, so a kernel may exist at opset 17 and not at 11 (or
21): `--opsets 11,13,21` probes those target opsets too and adds, for gaps opset 17 does
not have, rules limited to the opsets that show them ("opsets": [...]).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from multiprocessing import Pool

import onnx
import onnxruntime as ort

DTYPES = ["f32", "f64", "i32", "i64", "i8", "u8", "bool"]
ELEM = {1: "f32", 11: "f64", 6: "i32", 7: "i64", 3: "i8", 2: "u8", 9: "bool"}


def operand_dtypes(model):
    types = {v.name: v.type.tensor_type.elem_type for v in list(model.graph.input) + list(model.graph.value_info)}
    types.update({i.name: i.data_type for i in model.graph.initializer})
    node = model.graph.node[0]
    return [ELEM.get(types.get(name)) if name else None for name in node.input]


def probe(nnfuzz, op, dtype, count, workdir, opset=17):
    cfg = os.path.join(workdir, f"cfg_{op}_{dtype}_{opset}.json")
    with open(cfg, "w") as f:
        json.dump({"ops": {op: 1}, "dtypes": {dtype: 1}, "min_ops": 1, "max_ops": 1, "avoid": [],
                   "opset": opset}, f)
    out = os.path.join(workdir, f"{op}_{dtype}_{opset}")
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


def probe_op(args):
    nnfuzz, op, count, work, opset = args
    results = []
    for dtype in DTYPES:
        results += probe(nnfuzz, op, dtype, count, work, opset)
    return op, opset, explain(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nnfuzz", default=os.path.join(os.path.dirname(__file__), "..", "build", "nnfuzz"))
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--merge", help="existing rules file: keep its hand-written rules")
    parser.add_argument("--opsets", default="", help="further target opsets to probe, e.g. 11,13,15,18,21")
    parser.add_argument("-j", type=int, default=2, help="operators probed in parallel")
    args = parser.parse_args()
    ort.set_default_logger_severity(4)
    listing = subprocess.run([args.nnfuzz, "ops"], capture_output=True, text=True, check=True).stdout.splitlines()
    ops = [line.split()[0] for line in listing[1:-1]]
    opsets = [17] + [int(x) for x in args.opsets.split(",") if x and int(x) != 17]
    rules, gaps = [], {}
    with tempfile.TemporaryDirectory() as work:
        jobs = [(args.nnfuzz, op, args.count, work, opset) for opset in opsets for op in ops]
        with Pool(args.j) as pool:
            for op, opset, found in pool.imap(probe_op, jobs):
                for operand, dtypes in found:
                    gaps.setdefault((op, operand), {})[opset] = set(dtypes)
    for (op, operand), by_opset in gaps.items():
        rule = {"op": op}
        if operand not in (None, 0):
            rule["operand"] = operand
        at17 = by_opset.get(17, set())
        if at17:
            rules.append({**rule, "dtypes": sorted(at17), "why": "no kernel"})
            print(f"{op}: no kernel for {sorted(at17)} (operand {operand})", file=sys.stderr)
        extra = {}
        for opset, dtypes in by_opset.items():
            if dtypes - at17:
                extra.setdefault(tuple(sorted(dtypes - at17)), []).append(opset)
        for dtypes, where in sorted(extra.items()):
            rules.append({**rule, "dtypes": list(dtypes), "opsets": sorted(where), "why": "no kernel"})
            print(f"{op}: no kernel for {list(dtypes)} at opsets {sorted(where)} (operand {operand})",
                  file=sys.stderr)
    if args.merge:
        with open(args.merge) as f:
            rules += [r for r in json.load(f) if r.get("why") != "no kernel"]
    print("[\n" + ",\n".join("  " + json.dumps(r) for r in rules) + "\n]")


if __name__ == "__main__":
    main()
