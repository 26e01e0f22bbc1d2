"""Operators added after opset 17 (Mish, Bitwise*, Gelu, GroupNormalization, Col2Im,
CenterCropPad, AffineGrid): random single-node models at each operator's own opset, written
by `nnfuzz gen`, must pass onnx's checker (full_check=True) and ONNX Runtime must agree
with nnfuzz's reference outputs on every one.

Run: NNFUZZ=build/nnfuzz .venv/bin/python -m pytest -q tools/tests -k post17
"""
import json
import re

import pytest

FLOATS = {"f32": 1, "f64": 0.2}
INTEGERS = {"i32": 1, "i64": 1, "i8": 1, "u8": 1}
# (opset of the schema nnfuzz implements, dtypes ONNX Runtime's CPU provider implements).
OPERATORS = {
    "Mish": (18, FLOATS),
    "BitwiseAnd": (18, INTEGERS),
    "BitwiseOr": (18, INTEGERS),
    "BitwiseXor": (18, INTEGERS),
    "BitwiseNot": (18, INTEGERS),
    "Gelu": (20, FLOATS),
    "GroupNormalization": (21, FLOATS),
    "Col2Im": (18, {"f32": 1}),
    "CenterCropPad": (18, {"f32": 1, "f64": 0.2, "i64": 0.2, "u8": 0.2, "bool": 0.2}),
    "AffineGrid": (20, FLOATS),
}
CASES = 300


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_post17_operator_passes_the_checker_and_matches_onnxruntime(nnfuzz, validate, tmp_path, op):
    opset, dtypes = OPERATORS[op]
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"opset": opset, "ops": {op: 1}, "min_ops": 1, "max_ops": 1, "dtypes": dtypes,
                                  "seed": 11}))
    out = tmp_path / "cases"
    nnfuzz("gen", "--config", config, "-n", CASES, "-j", 2, "-o", out)
    models = sorted(out.glob("*/model.onnx"))
    assert len(models) == CASES
    meta = json.loads(models[0].with_name("meta.json").read_text())
    assert meta["ops"] == [op]
    r = validate(out, "--min-match", 1.0, "--json", tmp_path / "results.json")
    print(op, r.stdout.splitlines()[-1])
    results = json.loads((tmp_path / "results.json").read_text())
    stages = {}
    for v in results.values():
        stages[v["stage"]] = stages.get(v["stage"], 0) + 1
    assert stages == {"ok": CASES}, r.stdout[-3000:]


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
    assert r.returncode != 0 and re.search(r"Gelu needs opset 20", r.stderr), r.stderr
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps({"opset": 20, "ops": {"Gelu": 1, "Relu": 1}}))
    r = nnfuzz("gen", "--config", mixed, "-n", 1, "-o", tmp_path / "refused2", check=False)
    assert r.returncode != 0 and "opset 20 is not supported" in r.stderr, r.stderr
