"""`nnfuzz infer`: rule files from node tests, labelled and augmented by the real ONNX Runtime."""
import json
import os
import subprocess
import sys

import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def label(paths):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ort_label.py")], input="\n".join(map(str, paths)),
                       capture_output=True, text=True, check=True)
    return [json.loads(line) for line in r.stdout.splitlines()]


def pool_model(path, size, kernel):
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[kernel])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_ort_label_passes_rejects_and_reports_output_shapes(tmp_path):
    pool_model(tmp_path / "ok.onnx", 5, 2)
    pool_model(tmp_path / "bad.onnx", 2, 5)  # kernel larger than the input
    ok, bad = label([tmp_path / "ok.onnx", tmp_path / "bad.onnx"])
    assert ok == {"label": "pass", "outputs": [[1, [1, 1, 4]]]}
    assert bad["label"] == "reject"


def test_infer_with_onnxruntime_learns_maxpool_output_dim(nnfuzz, tmp_path):
    r = nnfuzz("infer", "--backend", "onnxruntime", "--ops", "MaxPool", "--per-partial", 30, "-o", tmp_path)
    assert "augmentation (onnxruntime " in r.stdout
    rules = json.loads((tmp_path / "MaxPool.json").read_text())
    assert "onnxruntime" in rules["labelled_by"]
    one_d = [p for p in rules["partial_operators"] if p["signature"] == "MaxPool in=3 kernel_shape[1] out=3"]
    assert one_d and one_d[0]["shape"] == ["i0_0", "i0_1", "i0_2 - a.kernel_shape_0 + 1"]
    explained = nnfuzz("infer", "--explain", "MaxPool", "--rules", tmp_path).stdout
    assert "output 0 = [i0_0, i0_1, i0_2 - a.kernel_shape_0 + 1]" in explained


def test_infer_errors_are_one_line(nnfuzz, tmp_path):
    r = nnfuzz("infer", "--explain", "NoSuchOp", "--rules", tmp_path, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "NoSuchOp" in r.stderr
    r = nnfuzz("infer", "--node-tests", tmp_path / "missing", "-o", tmp_path, check=False)
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_ort_label_ends_on_a_model_over_its_budget(tmp_path):
    # A model that cannot be labelled in 0.001 s: the helper answers the ones before it
    # (none here) and exits non-zero, which the caller turns into a drop and a restart.
    pool_model(tmp_path / "ok.onnx", 5, 2)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ort_label.py"), "--model-seconds", "0.001"],
                       input=str(tmp_path / "ok.onnx"), capture_output=True, text=True)
    assert r.returncode != 0 and r.stdout == ""
    assert "Timeout" in r.stderr


def test_contrib_schema_dump_is_what_the_tool_writes(tmp_path):
    # config/ort_contrib_schemas.json is tools/ort_contrib_schemas.py's output for the venv's ONNX Runtime.
    committed = os.path.join(ROOT, "config", "ort_contrib_schemas.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ort_contrib_schemas.py"), "-o", tmp_path / "dump.json"],
                   check=True)
    with open(committed) as f:
        assert (tmp_path / "dump.json").read_text() == f.read()
    dump = json.loads((tmp_path / "dump.json").read_text())
    gelu = next(s for s in dump["schemas"] if s["name"] == "Gelu")
    assert gelu["cpu_kernel"] and gelu["inputs"][0]["type"] == "T"


def test_committed_probe_rules_equal_what_infer_builds(nnfuzz, tmp_path):
    # Operators the node tests lack, probed from their schemas (libonnx's and ONNX Runtime's
    # com.microsoft dump) and labelled by ONNX Runtime; scripts/probe_rules.sh builds them all.
    ops = ["LpPool", "GlobalLpPool", "com.microsoft.Gelu", "com.microsoft.FusedMatMul", "com.microsoft.QuickGelu"]
    r = nnfuzz("infer", "--backend", "onnxruntime", "--probe", 24, "--probe-schemas",
               os.path.join(ROOT, "config", "ort_contrib_schemas.json"), "--ops", ",".join(ops), "-o", tmp_path)
    assert "com.microsoft schema probes" in r.stdout
    for op in ops:
        with open(os.path.join(ROOT, "rules", f"{op}.json")) as f:
            assert (tmp_path / f"{op}.json").read_text() == f.read(), op
