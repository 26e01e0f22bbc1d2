"""The Python workers: each real SUT on a small mixed model in each mode, and the shared
helper's promises (stdout hygiene, error classification, dtype checks, exit statuses)."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from driver import ROOT, WORKERS, load_packed, load_tensor, pack_case, worker_argv, write_case

SUTS = ["onnxruntime", "openvino", "tvm"]


def mixed_model():
    """Conv/pool/activation, MatMul+Softmax, int64 arithmetic, a bool comparison, a float64
    chain, a reduction and a scalar path: seven outputs of five dtypes in a fixed order."""
    rng = np.random.default_rng(3)
    init = [
        numpy_helper.from_array(rng.uniform(-1, 1, (3, 2, 3, 3)).astype(np.float32), "W"),
        numpy_helper.from_array(rng.uniform(-1, 1, (3,)).astype(np.float32), "B"),
        numpy_helper.from_array(rng.uniform(-1, 1, (4, 2)).astype(np.float32), "M"),
        numpy_helper.from_array(np.array([[1, -2, 3], [40, 5, -6]], np.int64), "K"),
        numpy_helper.from_array(np.array(0.25, np.float32), "half"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Sigmoid", ["p"], ["s"]),
        helper.make_node("Add", ["p", "s"], ["pooled"]),
        helper.make_node("MatMul", ["y", "M"], ["mm"]),
        helper.make_node("Softmax", ["mm"], ["probs"], axis=-1),
        helper.make_node("Add", ["idx", "K"], ["k1"]),
        helper.make_node("Mul", ["k1", "idx"], ["ints"]),
        helper.make_node("Greater", ["y", "half"], ["mask"]),
        helper.make_node("Cast", ["y"], ["y64"], to=TensorProto.DOUBLE),
        helper.make_node("Exp", ["y64"], ["exp64"]),
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[2, 3], keepdims=0),
        helper.make_node("Clip", ["z"], ["clipped"]),
    ]
    graph = helper.make_graph(
        nodes, "mixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [2, 3]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, 3, 2, 2]),
         helper.make_tensor_value_info("probs", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("ints", TensorProto.INT64, [2, 3]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, [3, 4]),
         helper.make_tensor_value_info("exp64", TensorProto.DOUBLE, [3, 4]),
         helper.make_tensor_value_info("mean", TensorProto.FLOAT, [1, 2]),
         helper.make_tensor_value_info("clipped", TensorProto.FLOAT, [])],
        init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    inputs = [rng.uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32),
              rng.integers(-9, 9, (2, 3)).astype(np.int64),
              rng.uniform(-1, 1, (3, 4)).astype(np.float32),
              np.array(0.75, np.float32)]
    return model, inputs


@pytest.fixture(scope="module")
def mixed_case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mixed") / "case"
    model, inputs = mixed_model()
    expected = write_case(folder, model, inputs)
    return folder, expected


def check_equal(actual, expected, what):
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if np.issubdtype(expected.dtype, np.floating):
        np.testing.assert_allclose(actual, expected, rtol=1e-2, atol=1e-3, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


@pytest.mark.parametrize("mode", ["opt", "noopt"])
@pytest.mark.parametrize("sut", SUTS)
def test_sut_matches_reference(sut, mode, mixed_case, driver, tmp_path):
    folder, expected = mixed_case
    d = driver(worker_argv(sut, mode))
    assert d.hello["hello"] == sut and mode in d.hello["modes"] and d.hello["version"]
    for round_ in range(2):  # the second case reuses the process
        out = tmp_path / f"out{round_}"
        prepare, run = d.request(folder, out)
        assert prepare == {"id": round_ + 1, "phase": "prepare", "status": "ok", "seconds": prepare["seconds"]}
        assert run["status"] == "ok", run
        assert len(run["outputs"]) == len(expected)
        for k, (path, want) in enumerate(zip(run["outputs"], expected)):
            assert os.path.isabs(path) and os.path.dirname(path) == str(out)
            check_equal(load_tensor(path), want, f"{sut}/{mode} output {k}")
            assert onnx.load_tensor(path).name == ["pooled", "probs", "ints", "mask", "exp64", "mean", "clipped"][k]
    # Protocol 2: a packed case, the outputs packed into out/outputs.pb
    assert d.hello["protocol"] == 2
    packed = pack_case(folder, tmp_path / "packed")
    out = tmp_path / "out_packed"
    prepare, run = d.request(packed, out, packed=True)
    assert (prepare["status"], run["status"]) == ("ok", "ok"), run
    assert "outputs" not in run and run["outputs_file"] == str(out / "outputs.pb")
    tensors = load_packed(run["outputs_file"])
    assert [name for name, _ in tensors] == ["pooled", "probs", "ints", "mask", "exp64", "mean", "clipped"]
    for k, ((_, actual), want) in enumerate(zip(tensors, expected, strict=True)):
        check_equal(actual, want, f"{sut}/{mode} packed output {k}")
    assert d.close() == 0


def test_packed_outputs_go_to_a_missing_output_folder_too(mixed_case, driver, tmp_path):
    """common.py does not ask each case whether `out` exists (nnfuzz makes it once per worker): a
    folder that is not there is made when the outputs are written, and the next case's outputs.pb
    replaces the last one's."""
    folder, expected = mixed_case
    packed = pack_case(folder, tmp_path / "packed")
    d = driver(worker_argv("onnxruntime", "noopt"))
    out = tmp_path / "gone" / "out"
    for round_ in range(2):
        assert not out.exists()
        req_id = d.next_id
        d.next_id += 1
        d.proc.stdin.write((json.dumps({"id": req_id, "case": str(packed), "out": str(out), "packed": True}) + "\n").encode())
        d.proc.stdin.flush()
        prepare, run = d.read(), d.read()
        assert (prepare["id"], run["id"], prepare["status"], run["status"]) == (req_id, req_id, "ok", "ok"), run
        assert run["outputs_file"] == str(out / "outputs.pb")
        tensors = load_packed(run["outputs_file"])
        assert [name for name, _ in tensors] == ["pooled", "probs", "ints", "mask", "exp64", "mean", "clipped"]
        for k, ((_, actual), want) in enumerate(zip(tensors, expected, strict=True)):
            check_equal(actual, want, f"round {round_} output {k}")
        shutil.rmtree(tmp_path / "gone")
    prepare, run = d.request(packed, tmp_path / "kept", packed=True)  # and where it is there, as ever
    assert run["status"] == "ok" and len(load_packed(run["outputs_file"])) == len(expected)
    assert d.close() == 0


def test_prepare_error_is_classified(driver, tmp_path):
    folder = tmp_path / "case"
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.STRING, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.STRING, [2])])
    (folder / "test_data_set_0").mkdir(parents=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), folder / "model.onnx")
    onnx.save_tensor(numpy_helper.from_array(np.array(["a", "b"], dtype=object), "x"),
                     folder / "test_data_set_0" / "input_0.pb")
    d = driver(worker_argv("onnxruntime", "opt"))
    [prepare] = d.request(folder, tmp_path / "out")
    assert prepare["status"] == "error" and prepare["phase"] == "prepare"
    assert prepare["type"] in ("InvalidGraph", "Fail", "NotImplemented"), prepare
    assert "Relu" in prepare["message"] or "string" in prepare["message"].lower(), prepare


TOY = os.path.join(WORKERS, "tests", "toy_worker.py")


def identity_case(tmp_path, dtype=np.float32):
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    folder = tmp_path / "identity"
    write_case(folder, model, [np.array([1.5, -2], np.float32)])
    if dtype != np.float32:  # overwrite the input with a wrong dtype
        onnx.save_tensor(numpy_helper.from_array(np.array([1.5, -2], dtype), "x"),
                         folder / "test_data_set_0" / "input_0.pb")
    return folder


def test_native_stdout_chatter_never_reaches_the_protocol(driver, tmp_path):
    d = driver([sys.executable, TOY, "--mode", "chatty"])
    prepare, run = d.request(identity_case(tmp_path), tmp_path / "out")
    assert (prepare["status"], run["status"]) == ("ok", "ok")
    np.testing.assert_array_equal(load_tensor(run["outputs"][0]), [1.5, -2])
    d.proc.stdin.close()
    d.proc.wait(timeout=30)
    err = d.proc.stderr.read().decode()
    assert "native write to fd 1 during prepare" in err and "python print during prepare" in err
    assert d.buffer + d.proc.stdout.read() == b""


def test_memory_error_is_reported_with_its_type(driver, tmp_path):
    d = driver([sys.executable, TOY, "--mode", "memory"])
    prepare, run = d.request(identity_case(tmp_path), tmp_path / "out")
    assert prepare["status"] == "ok"
    assert (run["status"], run["phase"], run["type"], run["message"]) == ("error", "run", "MemoryError", "toy ran out")


def test_input_dtype_disagreeing_with_the_model_is_a_worker_error(driver, tmp_path):
    d = driver([sys.executable, TOY, "--mode", "plain"])
    [prepare] = d.request(identity_case(tmp_path, np.float64), tmp_path / "out")
    assert prepare["status"] == "worker_error" and "float64" in prepare["message"], prepare
    [prepare] = d.request(tmp_path / "identity", tmp_path / "out")  # still serving
    assert prepare["status"] == "worker_error"


def test_fork_server_reports_a_dead_child_and_serves_on(driver, tmp_path):
    ok = identity_case(tmp_path)
    d = driver([sys.executable, TOY, "--mode", "crashy"], env={**os.environ, "NNFUZZ_FORK_SERVER": "1"})
    assert d.hello["fork_server"] is True
    assert [r["status"] for r in d.request(ok, tmp_path / "out")] == ["ok", "ok"]
    for name, died in (("segv", {"signal": 11}), ("exit", {"exit": 5})):
        shutil.copytree(ok, tmp_path / name)
        req_id = d.send(tmp_path / name, tmp_path / "out")
        assert d.read() == {"died": died, "id": req_id}
        assert d.proc.poll() is None  # the keeper lives on
        assert [r["status"] for r in d.request(ok, tmp_path / "out")] == ["ok", "ok"]
    d.proc.stdin.close()
    assert d.proc.wait(timeout=30) == 0
    assert b"Fatal Python error: Segmentation fault" in d.proc.stderr.read()


def test_a_crash_while_freeing_what_a_request_made_is_blamed_on_that_request(driver, tmp_path):
    ok = identity_case(tmp_path)
    forked = driver([sys.executable, TOY, "--mode", "crashy"], env={**os.environ, "NNFUZZ_FORK_SERVER": "1"})
    for name in ("late-segv", "late-segv-raise"):  # the outputs die; the exception (and its frames) die
        shutil.copytree(ok, tmp_path / name)
        req_id = forked.send(tmp_path / name, tmp_path / "out")
        prepare = forked.read()
        assert (prepare["id"], prepare["phase"], prepare["status"]) == (req_id, "prepare", "ok")
        assert forked.read() == {"died": {"signal": 11}, "id": req_id}  # no run reply before it
        assert [r["status"] for r in forked.request(ok, tmp_path / "out")] == ["ok", "ok"]
    # A plain worker dies before its run reply too, so nnfuzz sees it die during run.
    plain = driver([sys.executable, TOY, "--mode", "crashy"])
    plain.send(tmp_path / "late-segv", tmp_path / "out")
    assert plain.read()["status"] == "ok"
    assert plain.proc.wait(timeout=30) == -signal.SIGSEGV
    assert plain.buffer + plain.proc.stdout.read() == b""


def _grandchild(stderr_path, offset):
    """The pid of the process a hung toy started (it says so on stderr, after `offset`)."""
    for _ in range(3000):
        found = re.search(rb"grandchild (\d+)", stderr_path.read_bytes()[offset:])
        if found:
            return int(found[1])
        time.sleep(0.01)
    raise AssertionError("the toy did not start its grandchild")


def _gone(pid):
    """True once `pid` is dead (gone, or a zombie nobody has reaped yet)."""
    for _ in range(500):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.01)
    return False


def test_a_hung_fork_server_child_dies_alone(driver, tmp_path):
    """What nnfuzz does on a timeout: kill the child's group (the pid of its "forked" line); the
    keeper reports the death and serves on. Killed alone, the child's leftovers die too: the keeper
    kills its group before reaping it."""
    ok = identity_case(tmp_path)
    shutil.copytree(ok, tmp_path / "hang")
    stderr_path = tmp_path / "stderr"
    with open(stderr_path, "wb") as stderr:
        d = driver([sys.executable, TOY, "--mode", "crashy"], env={**os.environ, "NNFUZZ_FORK_SERVER": "1"},
                   stderr=stderr)
    assert [r["status"] for r in d.request(ok, tmp_path / "out")] == ["ok", "ok"]
    for kill in (os.killpg, os.kill):
        offset = stderr_path.stat().st_size
        req_id = d.send(tmp_path / "hang", tmp_path / "out")
        grandchild = _grandchild(stderr_path, offset)
        child = d.forked
        assert os.getpgid(child) == child != os.getpgid(d.proc.pid)
        kill(child, signal.SIGKILL)
        assert d.read() == {"died": {"signal": 9}, "id": req_id}
        assert _gone(grandchild)
        assert [r["status"] for r in d.request(ok, tmp_path / "out")] == ["ok", "ok"]
        assert d.forked != child and d.proc.poll() is None


def test_no_fork_server_unless_asked_or_when_loading_started_threads(driver):
    plain = driver([sys.executable, TOY, "--mode", "crashy"])
    assert plain.hello["fork_server"] is False
    threaded = driver([sys.executable, TOY, "--mode", "threaded"], env={**os.environ, "NNFUZZ_FORK_SERVER": "1"})
    assert threaded.hello["fork_server"] is False


def test_missing_package_and_unknown_mode_exit_before_hello():
    r = subprocess.run([sys.executable, TOY, "--mode", "missing"], capture_output=True, text=True, input="")
    assert (r.returncode, r.stdout) == (3, "")
    assert "not installed: No module named 'nnfuzz_no_such_package'" in r.stderr
    r = subprocess.run([sys.executable, TOY, "--mode", "turbo"], capture_output=True, text=True, input="")
    assert (r.returncode, r.stdout) == (2, "")
    assert "usage: --mode" in r.stderr


def test_the_documented_example_worker_works(driver, tmp_path):
    doc = open(os.path.join(ROOT, "docs", "worker-protocol.md")).read()
    code = re.search(r"### A complete worker.*?```python\n(.*?)```", doc, re.S).group(1)
    script = tmp_path / "example_worker.py"
    script.write_text(code)
    d = driver([sys.executable, str(script), "--mode", "default"])
    assert d.hello["hello"] == "onnx-reference"
    model, inputs = mixed_model()
    folder = tmp_path / "case"
    expected = write_case(folder, model, inputs)
    prepare, run = d.request(folder, tmp_path / "out")
    assert run["status"] == "ok", run
    for path, want in zip(run["outputs"], expected):
        check_equal(load_tensor(path), want, path)
    assert d.close() == 0


@pytest.mark.parametrize("mode", ["opt", "noopt"])
def test_tvm_shape_valued_output_is_an_int64_tensor(mode, driver, tmp_path):
    # TVM's frontend turns a Concat of int64 constants into a Relax shape and its VM returns a
    # tuple of ints for it; the worker must hand back the int64 vector (a false "crash" before).
    init = [numpy_helper.from_array(np.array([1], np.int64), "a"),
            numpy_helper.from_array(np.array([-2], np.int64), "b")]
    graph = helper.make_graph([helper.make_node("Concat", ["a", "b", "a"], ["y"], axis=0)], "shape_out", [],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [3])], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder = tmp_path / "case"
    expected = write_case(folder, model, [])
    d = driver(worker_argv("tvm", mode))
    prepare, run = d.request(folder, tmp_path / "out")
    assert prepare["status"] == "ok" and run["status"] == "ok", run
    check_equal(load_tensor(run["outputs"][0]), expected[0], "tvm shape output")
    assert d.close() == 0


def test_fast_tensor_paths_agree_with_numpy_helper():
    """common's raw-data fast paths read and write exactly what numpy_helper does."""
    sys.path.insert(0, str(WORKERS))
    import common

    arrays = [np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5, np.array(True), np.zeros((2, 0), np.int64),
              np.array([0, 255], np.uint8), np.array([-128, 127], np.int8), np.array(3.25), np.array([1.5], np.float16),
              np.arange(12, dtype=np.int32).reshape(3, 4).T, np.array([np.nan, -np.inf, -0.0], np.float32)]
    for arr in arrays:
        written = common.array_to_tensor(arr, "t")
        assert written.SerializeToString() == numpy_helper.from_array(arr, name="t").SerializeToString() or \
            np.array_equal(numpy_helper.to_array(written), arr, equal_nan=True)
        for proto in (written, numpy_helper.from_array(arr, name="t")):
            back = common.tensor_to_array(proto)
            assert back.dtype == arr.dtype and back.shape == arr.shape
            assert np.array_equal(back, arr, equal_nan=True)
            if back.size:
                back.flat[0] = 0  # writable: a SUT may write into its inputs
    typed = helper.make_tensor("t", TensorProto.FLOAT, [2], [1.0, 2.0])  # no raw data: the slow path
    assert common.tensor_to_array(typed).tolist() == [1.0, 2.0]
