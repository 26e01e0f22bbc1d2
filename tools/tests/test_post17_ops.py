"""Operators added after opset 17 (Mish, Bitwise*, Gelu, GroupNormalization, Col2Im,
CenterCropPad, AffineGrid): random single-node models at each operator's own opset, written
by `nnfuzz gen`, must pass onnx's checker (full_check=True), and ONNX Runtime must agree with
nnfuzz's reference outputs on every one except where ORT is known to differ (KNOWN, each
with its reason; such cases are counted and printed, never dropped silently). onnx's own
reference implementation (onnx.reference) must agree on every one.

Run: NNFUZZ=build/nnfuzz .venv/bin/python -m pytest -q -s tools/tests -k post17
"""
import json
import re

import os
import sys

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import pytest
from onnx.reference import ReferenceEvaluator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

FLOATS = {"f32": 1, "f64": 0.2}
INTEGERS = {"i32": 1, "i64": 1, "i8": 1, "u8": 1}
# (opset of the schema nnfuzz implements, dtypes of fresh tensors).
OPERATORS = {
    "Mish": (18, FLOATS),
    "BitwiseAnd": (18, INTEGERS),
    "BitwiseOr": (18, INTEGERS),
    "BitwiseXor": (18, INTEGERS),
    "BitwiseNot": (18, INTEGERS),
    "Gelu": (20, FLOATS),
    "GroupNormalization": (21, FLOATS),
    "Col2Im": (18, {"f32": 1}),  # ORT's CPU provider has float Col2Im only
    "CenterCropPad": (18, {"f32": 1, "f64": 0.2, "i64": 0.2, "u8": 0.2, "bool": 0.2}),
    "AffineGrid": (20, FLOATS),
}
CASES = 300


def _node_facts(case):
    model = onnx.load(str(case / "model.onnx"))
    node = model.graph.node[0]
    weights = {t.name: t for t in model.graph.initializer}
    types = {v.name: v.type.tensor_type for v in [*model.graph.input, *model.graph.value_info, *model.graph.output]}
    return node, weights, types


def _gelu_double(case):
    node, weights, types = _node_facts(case)
    x = node.input[0]
    elem = weights[x].data_type if x in weights else types[x].elem_type
    return elem == onnx.TensorProto.DOUBLE


def _crop_pad_int32_shape(case):
    node, weights, _ = _node_facts(case)
    return node.input[1] in weights and weights[node.input[1]].data_type == onnx.TensorProto.INT32


def _onnx_reference_agrees(case):
    """True when onnx's own reference implementation computes nnfuzz's expected outputs."""
    from validate_cases import load_tensors, outputs_match
    data = case / "test_data_set_0"
    feeds = dict(load_tensors(str(data), "input"))
    expected = load_tensors(str(data), "output")
    model = onnx.load(str(case / "model.onnx"))
    # onnx's reference expands Gelu's context-dependent function only for typed graph inputs,
    # so initializers are fed as inputs.
    for t in model.graph.initializer:
        feeds[t.name] = onnx.numpy_helper.to_array(t)
        model.graph.input.append(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    del model.graph.initializer[:]
    actual = ReferenceEvaluator(model).run([n for n, _ in expected], feeds)
    # It returns AffineGrid's grid as float32 whatever theta is: values are compared.
    return all(outputs_match(np.asarray(a).astype(e.dtype), e, 1e-3, 1e-4) is None for a, (_, e) in zip(actual, expected))


def _col2im_dilated(case):
    node, _, _ = _node_facts(case)
    dilations = next((list(a.ints) for a in node.attribute if a.name == "dilations"), [])
    return any(d > 1 for d in dilations) and _onnx_reference_agrees(case)


# op -> (stage, message pattern, predicate on the case folder, reason)
KNOWN = {
    "Gelu": [("load", r"implementation for Erf", _gelu_double,
              "ORT expands Gelu into its function body, and has no double Erf kernel")],
    "CenterCropPad": [("load", r"bound to different types", _crop_pad_int32_shape,
                       "ORT expands CenterCropPad into ONNX's function body, which mixes int64 Shape with an int32 shape in a Max")],
    "Col2Im": [("mismatch", r"", _col2im_dilated,
                "ORT 1.31's Col2Im misplaces or drops taps of some dilated blocks (onnx's reference agrees with nnfuzz)")],
}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_post17_operator_passes_the_checker_and_matches_onnxruntime(nnfuzz, validate, tmp_path, op):
    opset, dtypes = OPERATORS[op]
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"opset": opset, "ops": {op: 1}, "min_ops": 1, "max_ops": 1, "dtypes": dtypes,
                                  "seed": 11}))
    out = tmp_path / "cases"
    nnfuzz("gen", "--config", config, "-n", CASES, "-j", 2, "-o", out)
    cases = sorted(p.parent for p in out.glob("*/model.onnx"))
    assert len(cases) == CASES
    for case in cases:
        meta = json.loads((case / "meta.json").read_text())
        assert meta["ops"] == [op]
        assert onnx.load(str(case / "model.onnx")).opset_import[0].version == opset
    validate(out, "--min-match", "0", "--json", str(tmp_path / "results.json"))
    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results) == CASES
    counts, unexplained = {}, []
    for case, v in sorted(results.items()):
        stage, message = v["stage"], v["message"]
        if stage == "ok":
            counts["ok"] = counts.get("ok", 0) + 1
            continue
        reason = next((why for st, pattern, applies, why in KNOWN.get(op, [])
                       if st == stage and re.search(pattern, message) and applies(type(out)(case))), None)
        if reason:
            counts[reason] = counts.get(reason, 0) + 1
        else:
            unexplained.append(f"{case}: {stage}: {message}")
    reference = [c for c in cases if not _onnx_reference_agrees(c)]
    print(f"\n{op} at opset {opset}: {CASES} models, checker failures 0, onnx reference disagrees on "
          f"{len(reference)}; ORT: {counts}")
    assert not unexplained, "\n".join(unexplained[:20])
    assert not reference, [str(c) for c in reference[:10]]
    assert counts.get("ok", 0) >= CASES // 2


def test_post17_operators_are_not_drawn_at_opset_17(nnfuzz, tmp_path):
    out = tmp_path / "cases"
    nnfuzz("gen", "-n", 200, "--seed", 5, "--max-ops", 30, "-o", out)
    drawn = set()
    for meta in out.glob("*/meta.json"):
        drawn.update(json.loads(meta.read_text())["ops"])
    assert len(drawn) > 50
    assert not drawn & set(OPERATORS)
    config = tmp_path / "gelu17.json"
    config.write_text(json.dumps({"opset": 17, "ops": {"Gelu": 1}}))
    r = nnfuzz("gen", "--config", config, "-n", 1, "-o", tmp_path / "refused", check=False)
    assert r.returncode != 0 and "no allowed operator exists at opset 17" in r.stderr, r.stderr
    # With older operators beside it, each model draws what its opset has.
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps({"opsets": {"17": 1, "20": 1}, "ops": {"Gelu": 1, "Relu": 1}}))
    nnfuzz("gen", "--config", mixed, "-n", 40, "--seed", 3, "-o", tmp_path / "mixed")
    by_opset = {17: set(), 20: set()}
    for meta in (tmp_path / "mixed").glob("*/meta.json"):
        m = json.loads(meta.read_text())
        by_opset[m["opset"]].update(m["ops"])
    assert "Gelu" not in by_opset[17] and "Gelu" in by_opset[20], by_opset
