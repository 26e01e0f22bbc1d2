#!/usr/bin/env python3
"""Dumps ONNX Runtime's contrib operator schemas (a domain, com.microsoft by default) as JSON.

`nnfuzz infer --probe-schemas FILE` reads the file to write random single-node calls of
each operator (issue 9: records from schemas), as it does for the default domain from
libonnx's registry. Regenerate the committed file with the venv's ONNX Runtime:

    .venv/bin/python tools/ort_contrib_schemas.py -o config/ort_contrib_schemas.json

Per schema: name, since_version, inputs and outputs (name, type constraint or type,
option single/optional/variadic, min arity), type constraints (allowed type strings),
attributes (name, type as in onnx.AttributeProto, required, default or null), and
cpu_kernel: whether ONNX Runtime's CPU provider registers a kernel for it (the others,
CUDA- or WebGPU-only, cannot be labelled here and are not probed).
"""
import argparse
import json
import sys

import onnx
import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as C


def option_name(option):
    return {"Single": "single", "Optional": "optional", "Variadic": "variadic"}[option.name]


def default_of(attr):
    raw = attr._default_value  # a serialised AttributeProto; empty when there is none
    if not raw:
        return None
    proto = onnx.AttributeProto()
    proto.ParseFromString(raw)
    if not proto.name:
        return None
    if proto.type in (onnx.AttributeProto.TENSOR, onnx.AttributeProto.GRAPH, onnx.AttributeProto.SPARSE_TENSOR,
                      onnx.AttributeProto.TENSORS, onnx.AttributeProto.GRAPHS, onnx.AttributeProto.TYPE_PROTO,
                      onnx.AttributeProto.TYPE_PROTOS):
        return None
    value = onnx.helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value]
    return value


def formal(p):
    return {"name": p.name, "type": p.typeStr, "option": option_name(p.option),
            "min_arity": 1}


def schema_json(s, cpu):
    return {
        "name": s.name,
        "since_version": s.since_version,
        "deprecated": bool(s.deprecated),
        "cpu_kernel": s.name in cpu,
        "inputs": [formal(p) for p in s.inputs],
        "outputs": [formal(p) for p in s.outputs],
        "type_constraints": [{"name": t.type_param_str, "allowed": sorted(t.allowed_type_strs)}
                             for t in s.type_constraints],
        "attributes": [{"name": name, "type": onnx.AttributeProto.AttributeType.Name(int(a.type.value)),
                        "required": bool(a.required), "default": default_of(a)}
                       for name, a in sorted(s.attributes.items())],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", help="output file (default: stdout)")
    ap.add_argument("--domain", default="com.microsoft")
    args = ap.parse_args()
    cpu = {k.op_name for k in C.get_all_opkernel_def()
           if k.domain == args.domain and k.provider == "CPUExecutionProvider"}
    newest = {}
    for s in C.get_all_operator_schema():
        if s.domain == args.domain and (s.name not in newest or s.since_version > newest[s.name].since_version):
            newest[s.name] = s
    doc = {"domain": args.domain, "onnxruntime": ort.__version__,
           "regenerate": ".venv/bin/python tools/ort_contrib_schemas.py -o config/ort_contrib_schemas.json",
           "schemas": [schema_json(newest[n], cpu) for n in sorted(newest)]}
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
