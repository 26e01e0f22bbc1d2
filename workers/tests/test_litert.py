"""The litert backend (LiteRT via onnx2tf), real, in each mode, on tiny models whose outputs
onnx2tf hands back channel-last (rank 3, 4 and 5) or not; a conversion failure is the
converter's (stage convert); without its venv the worker says "not installed"."""
import os
import subprocess

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from driver import ROOT, load_tensor, worker_argv, write_case
from models import conv_bn_relu_pool, model_of, uniform_f32
from test_workers import check_equal

MODES = ["noopt", "ref", "opt"]
VENV_PYTHON = os.path.join(ROOT, ".venv-litert", "bin", "python")
RNG = np.random.default_rng(22)


def litert_installed():
    if not os.access(VENV_PYTHON, os.X_OK):
        return False
    probe = "import ai_edge_litert.interpreter, importlib.util; assert importlib.util.find_spec('onnx2tf')"
    return subprocess.run([VENV_PYTHON, "-c", probe], capture_output=True).returncode == 0


needs_litert = pytest.mark.skipif(not litert_installed(),
                                  reason="LiteRT is not installed: no .venv-litert (scripts/setup.sh --with-litert)")



def f32(*shape):
    return uniform_f32(RNG, *shape)


def info(name, shape, kind=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, kind, shape)


def conv_block():
    """4-D: Conv + BatchNormalization + Relu + MaxPool (channel-last inside onnx2tf), and a
    Transpose of the input whose ONNX result already looks channel-last: it must not be
    transposed back."""
    nodes, init, x, y, data = conv_bn_relu_pool(RNG, 4, 6, 5)
    nodes.append(helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]))
    return model_of(nodes, [x], [y, info("t", [1, 6, 5, 3])], init), [data]


def conv_1d_3d():
    """Rank 3 (Conv1d) and rank 5 (Conv3d) side by side, with unequal dims so a wrong
    transposition cannot pass."""
    init = [numpy_helper.from_array(f32(5, 2, 3), "W1"), numpy_helper.from_array(f32(3, 2, 2, 2, 2), "W3")]
    nodes = [helper.make_node("Conv", ["a", "W1"], ["y1"], pads=[1, 1]),
             helper.make_node("Conv", ["b", "W3"], ["y3"])]
    return model_of(nodes, [info("a", [1, 2, 7]), info("b", [1, 2, 3, 4, 5])],
                    [info("y1", [1, 5, 7]), info("y3", [1, 3, 2, 3, 4])], init), [f32(1, 2, 7), f32(1, 2, 3, 4, 5)]


def batchnorm_5d_runtime_stats():
    """5-D BatchNormalization with mean and variance as runtime inputs: onnx2tf hands the output
    back channel-last without recording it so; the worker still transposes it back."""
    init = [numpy_helper.from_array(f32(5), "scale"), numpy_helper.from_array(f32(5), "shift")]
    node = helper.make_node("BatchNormalization", ["x", "scale", "shift", "mean", "var"], ["y"], epsilon=1e-3)
    return model_of([node], [info("x", [1, 5, 4, 3, 2]), info("mean", [5]), info("var", [5])],
                    [info("y", [1, 5, 4, 3, 2])], init), [f32(1, 5, 4, 3, 2), f32(5), f32(5) + 1.5]


def int64_math():
    nodes = [helper.make_node("Mul", ["i", "i"], ["sq"]), helper.make_node("Sub", ["sq", "i"], ["y"])]
    return model_of(nodes, [info("i", [2, 3], TensorProto.INT64)], [info("y", [2, 3], TensorProto.INT64)]), \
        [np.array([[-7, 0, 3], [12, -1, 5]], np.int64)]


MODELS = {"conv_block": conv_block, "conv_1d_3d": conv_1d_3d, "batchnorm_5d_runtime_stats": batchnorm_5d_runtime_stats,
          "int64_math": int64_math}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    out = {}
    for name, make in MODELS.items():
        folder = tmp_path_factory.mktemp(name) / "case"
        model, inputs = make()
        out[name] = (folder, write_case(folder, model, inputs))
    return out


@needs_litert
@pytest.mark.parametrize("mode", MODES)
def test_litert_matches_reference(mode, cases, driver, tmp_path):
    # stderr to a file: TensorFlow writes more than a pipe holds, and the driver does not drain it
    with open(tmp_path / "stderr.txt", "wb") as err:
        d = driver(worker_argv("litert", mode), timeout=300, stderr=err)
    assert d.hello["hello"] == "litert" and d.hello["modes"] == MODES and "onnx2tf" in d.hello["version"]
    for name, (folder, expected) in cases.items():
        before = (folder / "model.onnx").read_bytes()
        prepare, run = d.request(folder, tmp_path / name)
        assert (folder / "model.onnx").read_bytes() == before, "onnx2tf rewrites its input file: the case's must stay"
        assert prepare["status"] == "ok" and run["status"] == "ok", (name, prepare, run)
        assert len(run["outputs"]) == len(expected)
        for k, (path, want) in enumerate(zip(run["outputs"], expected)):
            check_equal(load_tensor(path), want, f"litert/{mode} {name} output {k}")
    assert d.close() == 0
    # onnx2tf's first step, the onnxsim command, was found (it warns and goes on without it)
    assert b"Failed to optimize the onnx file" not in (tmp_path / "stderr.txt").read_bytes()


@needs_litert
def test_a_conversion_failure_is_the_converters(driver, tmp_path):
    # onnx2tf asserts on Conv's auto_pad SAME_LOWER: phase "convert", under its own error type
    folder = tmp_path / "same_lower"
    model = model_of([helper.make_node("Conv", ["x", "W"], ["y"], auto_pad="SAME_LOWER", strides=[2, 2])],
                     [info("x", [1, 1, 4, 4])], [info("y", [1, 1, 2, 2])],
                     [numpy_helper.from_array(f32(1, 1, 2, 2), "W")])
    write_case(folder, model, [f32(1, 1, 4, 4)])
    with open(tmp_path / "stderr.txt", "wb") as err:
        d = driver(worker_argv("litert", "noopt"), timeout=300, stderr=err)
    [prepare] = d.request(folder, tmp_path / "out")
    assert (prepare["status"], prepare["stage"], prepare["type"]) == ("error", "convert", "AssertionError"), prepare
    assert "Invalid auto_pad attribute: SAME_LOWER" in prepare["message"]
    assert "\x1b[" not in prepare["message"]  # onnx2tf colours its messages; the finding has none


@needs_litert
def test_a_model_without_runtime_inputs_is_refused_plainly(driver, tmp_path):
    # onnx2tf cannot build a Keras model without inputs; the worker says so before converting
    folder = tmp_path / "no_inputs"
    model = model_of([helper.make_node("Mul", ["a", "b"], ["y"])], [], [info("y", [2])],
                     [numpy_helper.from_array(f32(2), "a"), numpy_helper.from_array(f32(2), "b")])
    write_case(folder, model, [])
    with open(tmp_path / "stderr.txt", "wb") as err:
        d = driver(worker_argv("litert", "noopt"), timeout=300, stderr=err)
    [prepare] = d.request(folder, tmp_path / "out")
    assert (prepare["status"], prepare["stage"], prepare["type"]) == ("error", "convert", "NoInputs"), prepare
    assert "at least one runtime input" in prepare["message"]


def test_without_its_venv_the_worker_is_not_installed():
    env = dict(os.environ, NNFUZZ_LITERT_PYTHON=os.path.join(ROOT, "no-such-venv", "bin", "python"))
    proc = subprocess.run(worker_argv("litert", "noopt"), env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3 and proc.stdout == "", proc
    assert "not installed" in proc.stderr and "--with-litert" in proc.stderr
