"""ncnn via pnnx, real: every mode on a few tiny models against ONNX Runtime, the blob-name and
batch-axis mapping, what the worker refuses as unsupported (with the message that
config/unsupported.json recognises), and a pnnx failure reported with stage "convert"."""
import importlib.util
import json
import os
import re
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from driver import ROOT, load_tensor, worker_argv, write_case
from models import conv_bn_relu_pool, model_of, uniform_f32
from test_workers import check_equal

pytest.importorskip("ncnn")
pytest.importorskip("onnxruntime")
if importlib.util.find_spec("pnnx") is None:
    pytest.skip("pnnx is not installed", allow_module_level=True)
PNNX = os.path.join(list(importlib.util.find_spec("pnnx").submodule_search_locations)[0], "pnnx")

MODES = ["opt", "noopt"]
RNG = np.random.default_rng(22)
F = TensorProto.FLOAT


def f32(*shape):
    return uniform_f32(RNG, *shape)



def conv_block():
    """NCHW with batch 1 (pnnx drops it on the way in; the worker puts it back): Conv + BN +
    Relu + MaxPool, which pnnx fuses at optlevel 2, and a 3x3 Conv ncnn may run by Winograd."""
    nodes, init, x, y, data = conv_bn_relu_pool(RNG, 8, 8, 8)
    return model_of(nodes, [x], [y], init), [data]


def two_inputs_two_outputs():
    """Inputs named against their order and outputs in an order unlike the nodes': pnnx's in0/in1
    and out0/out1 follow the graph's order. No batch axis here (no NCHW operator): a leading 1
    of a rank-3 output stays as ncnn returns it."""
    nodes = [helper.make_node("Mul", ["b", "a"], ["m"]), helper.make_node("Tanh", ["m"], ["t"]),
             helper.make_node("Sub", ["a", "b"], ["d"]), helper.make_node("Exp", ["d"], ["e"])]
    return model_of(nodes, [helper.make_tensor_value_info("b", F, [1, 4, 5]), helper.make_tensor_value_info("a", F, [1, 4, 5])],
                    [helper.make_tensor_value_info("e", F, [1, 4, 5]), helper.make_tensor_value_info("t", F, [1, 4, 5])]), \
        [f32(1, 4, 5), f32(1, 4, 5)]


def matmul_softmax():
    """Rank 2: MatMul of two runtime inputs (ncnn's MatMul) and Softmax over the last axis."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["g"]), helper.make_node("Softmax", ["g"], ["y"], axis=-1)]
    return model_of(nodes, [helper.make_tensor_value_info("x", F, [2, 6]), helper.make_tensor_value_info("w", F, [6, 3])],
                    [helper.make_tensor_value_info("y", F, [2, 3])]), [f32(2, 6), f32(6, 3)]


def sum_to_scalar():
    """A rank-0 output (ReduceSum over every axis, keepdims 0): ncnn has no 0-d Mat, the worker
    reads the one-element Mat back as a scalar."""
    nodes = [helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0), helper.make_node("Sigmoid", ["x"], ["s"])]
    return model_of(nodes, [helper.make_tensor_value_info("x", F, [2, 3])],
                    [helper.make_tensor_value_info("y", F, []), helper.make_tensor_value_info("s", F, [2, 3])]), [f32(2, 3)]


MODELS = {"conv_block": conv_block, "sum_to_scalar": sum_to_scalar, "two_inputs_two_outputs": two_inputs_two_outputs, "matmul_softmax": matmul_softmax}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    import onnxruntime as ort
    out = {}
    for name, make in MODELS.items():
        folder = tmp_path_factory.mktemp(name) / "case"
        model, inputs = make()
        write_case(folder, model, inputs)
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        out[name] = (folder, session.run(None, {i.name: a for i, a in zip(model.graph.input, inputs)}))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_ncnn_matches_onnxruntime(mode, cases, driver, tmp_path):
    d = driver(worker_argv("ncnn", mode))
    assert d.hello["hello"] == "ncnn" and d.hello["modes"] == MODES
    assert d.hello["version"].startswith("1.0.") and "pnnx" in d.hello["version"]
    for name, (folder, expected) in cases.items():
        prepare, run = d.request(folder, tmp_path / name)
        assert prepare["status"] == "ok" and run["status"] == "ok", (name, run)
        assert len(run["outputs"]) == len(expected)
        for k, (path, want) in enumerate(zip(run["outputs"], expected)):
            got = load_tensor(path)
            check_equal(got, want, f"ncnn/{mode} {name} output {k}")
            assert onnx.load_tensor(path).name == onnx.load(folder / "model.onnx").graph.output[k].name
    assert d.close() == 0


def test_the_modes_really_differ(cases, tmp_path):
    # optlevel 2 fuses Conv+BN+Relu into one Convolution; optlevel 1 does not.
    layers = {}
    for level in ("1", "2"):
        work = tmp_path / level
        work.mkdir()
        onnx.save(onnx.load(cases["conv_block"][0] / "model.onnx"), work / "model.onnx")
        subprocess.run([PNNX, "model.onnx", "inputshape=[1,3,8,8]", "fp16=0", f"optlevel={level}"], cwd=work,
                       capture_output=True, check=True, timeout=120)
        layers[level] = [line.split()[0] for line in (work / "model.ncnn.param").read_text().splitlines()[2:]]
    assert "BatchNorm" in layers["1"] and "BatchNorm" not in layers["2"], layers


def unsupported_patterns():
    with open(os.path.join(ROOT, "config", "unsupported.json")) as f:
        return json.load(f)["backends"]["ncnn"]


def refused(driver, tmp_path, model, inputs, mode="opt"):
    folder = tmp_path / "case"
    write_case(folder, model, inputs)
    d = driver(worker_argv("ncnn", mode))
    [prepare] = d.request(folder, tmp_path / "out")
    assert prepare["status"] == "error", prepare
    text = f"{prepare['type']}: {prepare['message']}"
    assert any(re.search(p, text, re.IGNORECASE) for p in unsupported_patterns()), text
    return prepare


def test_int64_is_refused_as_unsupported(driver, tmp_path):
    model = model_of([helper.make_node("Add", ["i", "i"], ["y"])], [helper.make_tensor_value_info("i", TensorProto.INT64, [3])],
                     [helper.make_tensor_value_info("y", TensorProto.INT64, [3])])
    prepare = refused(driver, tmp_path, model, [np.array([1, 2, 3], np.int64)])
    assert "graph input i is int64" in prepare["message"]


def test_a_bool_output_is_refused_as_unsupported(driver, tmp_path):
    model = model_of([helper.make_node("Less", ["x", "x"], ["y"])], [helper.make_tensor_value_info("x", F, [3])],
                     [helper.make_tensor_value_info("y", TensorProto.BOOL, [3])])
    assert "graph output y is bool" in refused(driver, tmp_path, model, [f32(3)])["message"]


def test_batch_two_is_refused_as_unsupported(driver, tmp_path):
    model = model_of([helper.make_node("Relu", ["x"], ["y"])], [helper.make_tensor_value_info("x", F, [2, 3, 4, 4])],
                     [helper.make_tensor_value_info("y", F, [2, 3, 4, 4])])
    assert "has batch 2" in refused(driver, tmp_path, model, [f32(2, 3, 4, 4)])["message"]


def test_a_conv_over_batch_three_is_refused_as_unsupported(driver, tmp_path):
    # rank 3 (no input-rank rule applies): the Conv's batch axis is what ncnn lacks
    model = model_of([helper.make_node("Conv", ["x", "W"], ["y"])], [helper.make_tensor_value_info("x", F, [3, 2, 5])],
                     [helper.make_tensor_value_info("y", F, [3, 4, 3])], [numpy_helper.from_array(f32(4, 2, 3), "W")])
    assert "Conv node y gets batch 3" in refused(driver, tmp_path, model, [f32(3, 2, 5)])["message"]


def test_an_operator_pnnx_lacks_is_unsupported_in_stage_convert(driver, tmp_path):
    model = model_of([helper.make_node("Det", ["x"], ["y"])], [helper.make_tensor_value_info("x", F, [3, 2, 2])],
                     [helper.make_tensor_value_info("y", F, [3])])
    prepare = refused(driver, tmp_path, model, [f32(3, 2, 2)])
    assert (prepare["phase"], prepare["stage"], prepare["type"]) == ("prepare", "convert", "ConversionFailed"), prepare
    assert "ONNX operator Det unconverted" in prepare["message"]


def test_a_pnnx_failure_is_the_converters_and_not_unsupported(driver, tmp_path):
    # BatchNormalization whose statistics are runtime inputs: pnnx keeps F.batch_norm, which has
    # no ncnn layer (its BatchNorm takes constants). A conversion failure, stage "convert".
    vec = [helper.make_tensor_value_info(n, F, [2]) for n in ("s", "b", "m", "v")]
    model = model_of([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
                     [helper.make_tensor_value_info("x", F, [1, 2, 3])] + vec, [helper.make_tensor_value_info("y", F, [1, 2, 3])])
    write_case(tmp_path / "case", model, [f32(1, 2, 3), f32(2), f32(2), f32(2), np.abs(f32(2)) + 1])
    d = driver(worker_argv("ncnn", "noopt"))
    [prepare] = d.request(tmp_path / "case", tmp_path / "out")
    assert (prepare["status"], prepare["stage"], prepare["type"]) == ("error", "convert", "ConversionFailed"), prepare
    assert prepare["message"] == "pnnx wrote a layer ncnn does not have: F.batch_norm"
    text = f"{prepare['type']}: {prepare['message']}"
    assert not any(re.search(p, text, re.IGNORECASE) for p in unsupported_patterns()), text
