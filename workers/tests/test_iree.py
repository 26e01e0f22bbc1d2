"""IREE (iree-import-onnx, iree-compile for llvm-cpu, the in-process runtime), real, in every
mode, on tiny checker-valid models; and where a failure of each step of prepare is filed."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from driver import load_tensor, worker_argv, write_case
from models import conv_bn_relu_pool, model_of
from test_workers import check_equal

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

MODES = ["opt", "noopt", "generic"]
RNG = np.random.default_rng(22)



def conv_block():
    """Conv + BatchNormalization + Relu + MaxPool in f32: what every compiler fuses."""
    nodes, init, x, y, data = conv_bn_relu_pool(RNG, 4, 6, 6)
    return model_of(nodes, [x], [y], init), [data]


def double_bool_scalar():
    """f64 in and out (IREE demotes f64 to f32 unless told not to: 1e-12 would vanish), a bool
    output, a 0-d output, and outputs in an order unlike the nodes'."""
    x = np.array([[1.0, 1e-12, -2.0], [3.5, 0.0, 1e300]])
    y = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], keepdims=0),
             helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Sub", ["s", "y"], ["back"]),
             helper.make_node("Greater", ["x", "y"], ["gt"])]
    d = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.DOUBLE, shape)  # noqa: E731
    return model_of(nodes, [d("x", [2, 3]), d("y", [2, 3])],
                    [helper.make_tensor_value_info("gt", TensorProto.BOOL, [2, 3]), d("back", [2, 3]),
                     d("total", [])]), [x, y]


def int64_bool_inputs():
    """int64 beyond int32's range (IREE demotes i64 to i32 unless told not to), a bool input
    and a 0-d input, under a graph name that is no identifier."""
    i = np.array([[3_000_000_000, -7, 0], [12, -1, 2**40]], np.int64)
    nodes = [helper.make_node("Mul", ["i", "k"], ["scaled"]),
             helper.make_node("Where", ["cond", "scaled", "i"], ["y"])]
    return model_of(nodes, [helper.make_tensor_value_info("i", TensorProto.INT64, [2, 3]),
                            helper.make_tensor_value_info("k", TensorProto.INT64, []),
                            helper.make_tensor_value_info("cond", TensorProto.BOOL, [2, 3])],
                    [helper.make_tensor_value_info("y", TensorProto.INT64, [2, 3])], name="torch-jit-export"), \
        [i, np.array(3, np.int64), np.array([[True, False, True], [False, True, True]])]


def uint8_wrap():
    """uint8 in and out, wrapping: IREE's integers are signless, the result comes back as
    int8 bits and must be handed on as the declared uint8."""
    nodes = [helper.make_node("Add", ["u", "u"], ["y"])]
    return model_of(nodes, [helper.make_tensor_value_info("u", TensorProto.UINT8, [4])],
                    [helper.make_tensor_value_info("y", TensorProto.UINT8, [4])]), \
        [np.array([200, 100, 7, 128], np.uint8)]


def constant_only():
    """No runtime input at all: the function takes no argument."""
    init = [numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "c")]
    return model_of([helper.make_node("Neg", ["c"], ["y"])], [],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], init), []


def write_inputs_only(folder, model, inputs):
    """A case folder without expected outputs, for operators onnx's reference cannot run (the
    tests using it look at prepare only)."""
    onnx.checker.check_model(model, full_check=True)
    (folder / "test_data_set_0").mkdir(parents=True)
    onnx.save(model, folder / "model.onnx")
    for k, (info, arr) in enumerate(zip(model.graph.input, inputs)):
        onnx.save_tensor(numpy_helper.from_array(arr, info.name), folder / "test_data_set_0" / f"input_{k}.pb")


MODELS = {"conv_block": conv_block, "double_bool_scalar": double_bool_scalar,
          "int64_bool_inputs": int64_bool_inputs, "uint8_wrap": uint8_wrap, "constant_only": constant_only}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    out = {}
    for name, make in MODELS.items():
        folder = tmp_path_factory.mktemp(name) / "case"
        model, inputs = make()
        out[name] = (folder, write_case(folder, model, inputs))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_iree_matches_reference(mode, cases, driver, tmp_path):
    d = driver(worker_argv("iree", mode))
    assert d.hello["hello"] == "iree" and d.hello["modes"] == MODES and "3.13.0" in d.hello["version"]
    for name, (folder, expected) in cases.items():
        prepare, run = d.request(folder, tmp_path / name)
        assert prepare["status"] == "ok" and run["status"] == "ok", (name, prepare, run)
        assert len(run["outputs"]) == len(expected)
        for k, (path, want) in enumerate(zip(run["outputs"], expected)):
            got = load_tensor(path)
            check_equal(got, want, f"iree/{mode} {name} output {k}")
            if want.dtype.kind in "iub":  # exact: a demotion to 32 bits would show here
                np.testing.assert_array_equal(got, want)
    # f64 kept as f64: 1e-12 survives x + 1 - 1 only in double... as long as IREE does not
    # demote; exactly what IREE computes for it in double: 1 + 1e-12 - 1.
    back = load_tensor(tmp_path / "double_bool_scalar" / "output_1.pb")
    assert back[0, 1] == (1.0 + 1e-12) - 1.0 and back[1, 2] == 1e300
    assert d.close() == 0


def test_an_import_failure_is_the_converters(driver, tmp_path):
    # A Constant given as a sparse tensor: torch-mlir's importer has no generic handling for
    # an attribute of type SPARSE_TENSOR (phase "convert", with the importer's exception).
    folder = tmp_path / "sparse"
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "v"),
                                       numpy_helper.from_array(np.array([0, 3], np.int64), "i"), [4])
    model = model_of([helper.make_node("Constant", [], ["y"], sparse_value=sparse)], [],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    write_inputs_only(folder, model, [])
    d = driver(worker_argv("iree", "noopt"))
    [prepare] = d.request(folder, tmp_path / "out")
    assert (prepare["status"], prepare["stage"], prepare["type"]) == ("error", "convert", "ImportFailed"), prepare
    assert "OnnxImportError" in prepare["message"] and "SPARSE_TENSOR" in prepare["message"], prepare


def test_a_compile_failure_is_the_compilers(driver, tmp_path):
    # MaxRoiPool imports (as torch.operator "onnx.MaxRoiPool") but iree-compile cannot lower
    # the max_pool2d it expands to: phase "compile", and the message names the ONNX operator.
    folder = tmp_path / "maxroipool"
    model = model_of([helper.make_node("MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=[1, 1])],
                     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4]),
                      helper.make_tensor_value_info("rois", TensorProto.FLOAT, [1, 5])],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 1, 1])])
    write_inputs_only(folder, model, [RNG.uniform(-1, 1, (1, 1, 4, 4)).astype(np.float32),
                               np.array([[0, 0, 0, 3, 3]], np.float32)])
    d = driver(worker_argv("iree", "noopt"))
    [prepare] = d.request(folder, tmp_path / "out")
    assert (prepare["status"], prepare["stage"], prepare["type"]) == ("error", "compile", "CompileFailed"), prepare
    assert "failed to legalize operation" in prepare["message"] and "onnx.MaxRoiPool" in prepare["message"], prepare


def test_a_compiler_crash_is_a_finding_and_the_worker_lives(driver, tmp_path):
    # iree-compile 3.13.0 dies of SIGSEGV on Unique (in the verifier, during input conversion):
    # an error reply of the stage "compile" naming the signal; the same worker serves on.
    folder = tmp_path / "unique"
    model = model_of([helper.make_node("Unique", ["x"], ["y"])], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
    write_case(folder, model, [np.array([2, 1, 2, 3], np.float32)])
    d = driver(worker_argv("iree", "noopt"))
    [prepare] = d.request(folder, tmp_path / "out")
    assert (prepare["status"], prepare["stage"], prepare["type"]) == ("error", "compile", "ToolCrashed"), prepare
    assert "died of SIGSEGV" in prepare["message"], prepare
    folder = tmp_path / "neg"
    write_case(folder, model_of([helper.make_node("Neg", ["x"], ["y"])], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])]), [np.ones(4, np.float32)])
    prepare, run = d.request(folder, tmp_path / "out2")
    assert run["status"] == "ok" and (load_tensor(run["outputs"][0]) == -1).all(), run


def test_results_are_read_while_their_buffers_live(driver, tmp_path, monkeypatch):
    # Under nnfuzz's heap checks (freed memory filled with 165), a result read through a view
    # of a buffer already released came back as 165 (campaign c22's DynamicQuantizeLinear
    # "bug"): the worker must copy each result out while its DeviceArray lives.
    debug = "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
    if not os.path.exists(debug):
        pytest.skip("glibc's malloc debug library is not at " + debug)
    monkeypatch.setenv("LD_PRELOAD", debug)
    monkeypatch.setenv("MALLOC_CHECK_", "3")
    monkeypatch.setenv("MALLOC_PERTURB_", "165")
    init = [numpy_helper.from_array(np.array([[1.0]], np.float32), "x")]
    model = model_of([helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero"])], [],
                     [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 1])], init)
    folder = tmp_path / "dql"
    write_case(folder, model, [])
    d = driver(worker_argv("iree", "noopt"))
    prepare, run = d.request(folder, tmp_path / "out")
    assert run["status"] == "ok", run
    got = load_tensor(run["outputs"][0])
    assert got.dtype == np.uint8 and got.tolist() == [[255]], got
