"""classify_by_avoid.py: a bundle whose reduced model (bodies included) matches a documented
avoid rule is named by it; any other is left to judge."""
import os
import subprocess
import sys

import onnx
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bundle(campaign, name, graph):
    folder = campaign / "bugs" / name
    folder.mkdir(parents=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), folder / "model.onnx")
    (folder / "README.md").write_text(f"# {name}\n")


def test_documented_configurations_are_named_and_the_rest_left(tmp_path):
    f64 = helper.make_tensor_value_info("x", TensorProto.DOUBLE, [2])
    out = helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2])
    bundle(tmp_path, "acos-f64", helper.make_graph([helper.make_node("Acos", ["x"], ["y"])], "g", [f64], [out]))
    f32 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    out32 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    bundle(tmp_path, "acos-f32", helper.make_graph([helper.make_node("Acos", ["x"], ["y"])], "g", [f32], [out32]))
    # The documented node inside an If's branch counts too.
    branch = helper.make_graph([helper.make_node("Acos", ["x"], ["z"])], "then", [], [out])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["w"])], "else", [], [out])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    bundle(tmp_path, "in-body", helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=other)], "g", [cond, f64], [out]))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "classify_by_avoid.py"), str(tmp_path)],
                       capture_output=True, text=True, check=True)
    lines = {line.split()[1]: line.split()[0] for line in r.stdout.splitlines()}
    assert lines == {"acos-f32": "???", "acos-f64": "DOC", "in-body": "DOC"}, r.stdout
