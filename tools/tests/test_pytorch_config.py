"""config/pytorch.json leaves out the operators onnx2torch (the PyTorch backend's converter)
has no converter for, so a PyTorch campaign's tests reach the compiler: every operator the
config allows at its opset must have a converter in onnx2torch's registry for the schema
version in force there, and the models it generates hold only such operators.

Run: NNFUZZ=build/nnfuzz .venv/bin/python -m pytest -q -s tools/tests -k pytorch_config
"""
import json
import os
import re
import sys

import onnx
import onnx.defs
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "pytorch.json")


@pytest.fixture(scope="module")
def get_converter():
    pytest.importorskip("torch")
    sys.path.insert(0, os.path.join(ROOT, "workers"))
    import pytorch_worker  # the worker's torchvision stand-in, as a campaign loads onnx2torch
    sys.modules.update(pytorch_worker._torchvision_stand_in())
    from onnx2torch.node_converters.registry import get_converter
    return get_converter


def has_converter(get_converter, op, opset):
    try:
        get_converter(op, opset)
        return True
    except NotImplementedError:
        return False


def test_every_allowed_operator_has_an_onnx2torch_converter(get_converter):
    config = json.load(open(CONFIG))
    opset = config["opset"]
    ops = re.findall(r"^OP\((\w+)\)", open(os.path.join(ROOT, "src", "ops", "ops.def")).read(), re.M)
    assert not set(config["exclude_ops"]) - set(ops), "excluded operators nnfuzz does not know"
    allowed = []
    for op in ops:
        try:
            onnx.defs.get_schema(op, opset)
        except onnx.defs.SchemaError:
            continue  # not at this opset: nnfuzz does not draw it there
        if op not in config["exclude_ops"]:
            allowed.append(op)
    lacking = [op for op in allowed if not has_converter(get_converter, op, opset)]
    assert not lacking, f"onnx2torch has no converter at opset {opset} for {lacking}"
    # Nothing is left out that onnx2torch converts: the config keeps every operator it can.
    needless = [op for op in config["exclude_ops"] if has_converter(get_converter, op, opset)]
    assert not needless, f"excluded although onnx2torch converts them: {needless}"
    print(f"\n{len(allowed)} operators allowed at opset {opset}, {len(config['exclude_ops'])} left out")


def test_generated_models_hold_convertible_operators_only(nnfuzz, get_converter, tmp_path):
    out = tmp_path / "cases"
    nnfuzz("gen", "--config", CONFIG, "-n", 100, "--seed", 5, "-j", 2, "-o", out)
    seen = set()
    for path in sorted(out.glob("*/model.onnx")):
        model = onnx.load(str(path))
        opset = model.opset_import[0].version

        def nodes(graph):
            for node in graph.node:
                yield node
                for a in node.attribute:
                    if a.type == onnx.AttributeProto.GRAPH:
                        yield from nodes(a.g)
        for node in nodes(model.graph):
            seen.add(node.op_type)
            assert has_converter(get_converter, node.op_type, opset), f"{path}: {node.op_type}"
    assert len(seen) > 40, sorted(seen)
