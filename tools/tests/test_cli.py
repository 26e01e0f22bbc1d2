"""End-to-end checks of `nnfuzz gen` / `nnfuzz check` with the official ONNX tools."""
import filecmp
import json
import os
import stat

import pytest


def test_generated_cases_pass_checker_and_match_onnxruntime(nnfuzz, validate, tmp_path):
    out = tmp_path / "cases"
    nnfuzz("gen", "--generator", "isra", "-n", 300, "--seed", 7, "--min-ops", 1, "--max-ops", 30, "-j", 2, "-o", out)
    r = validate(out, "--json", tmp_path / "results.json")
    print(r.stdout[-3000:])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results) == 300
    assert not [c for c, v in results.items() if v["stage"] == "checker"]
    check = nnfuzz("check", out)
    assert "300 passed" in check.stdout


def test_same_seed_gives_byte_identical_cases_whatever_the_job_count(nnfuzz, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    nnfuzz("gen", "-n", 20, "--seed", 3, "--max-ops", 12, "-j", 1, "-o", a)
    nnfuzz("gen", "-n", 20, "--seed", 3, "--max-ops", 12, "-j", 2, "-o", b)
    cmp = filecmp.dircmp(a, b)
    assert sorted(os.listdir(a)) == sorted(os.listdir(b))
    for case in sorted(os.listdir(a)):
        if case == "config.json":
            assert filecmp.cmp(a / case, b / case, shallow=False)
            continue
        for rel in ["model.onnx", "meta.json", "test_data_set_0/inputs.pb", "test_data_set_0/outputs.pb"]:
            assert filecmp.cmp(a / case / rel, b / case / rel, shallow=False), f"{case}/{rel} differs"
    assert not cmp.diff_files


def test_replay_one_case_from_its_meta(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 5, "--seed", 11, "-o", tmp_path / "all")
    nnfuzz("gen", "--config", tmp_path / "all" / "config.json", "--seed", 11, "--first", 3, "-n", 1, "-o", tmp_path / "one")
    assert filecmp.cmp(tmp_path / "all" / "000003" / "model.onnx", tmp_path / "one" / "000003" / "model.onnx", shallow=False)


def one_line_error(result):
    assert result.returncode != 0
    lines = [l for l in result.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_bad_inputs_give_one_clear_line(nnfuzz, tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"min_ops": 3,,}')
    assert "bad.json" in one_line_error(nnfuzz("gen", "--config", bad_json, "-o", tmp_path / "x", check=False))

    unknown_op = tmp_path / "unknown.json"
    unknown_op.write_text('{"ops": {"Frobnicate": 1}}')
    assert "Frobnicate" in one_line_error(nnfuzz("gen", "--config", unknown_op, "-o", tmp_path / "y", check=False))

    assert "greater than max_ops" in one_line_error(
        nnfuzz("gen", "--min-ops", 9, "--max-ops", 3, "-o", tmp_path / "z", check=False))
    # 100,000 operators used to run for minutes with 1.5 GB resident.
    assert "max_ops must be <= 10000" in one_line_error(
        nnfuzz("gen", "--max-ops", 100000, "-o", tmp_path / "big", check=False, timeout=10))

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if os.access(locked, os.W_OK):  # root ignores permissions: use a path under a file instead
        target = tmp_path / "a_file"
        target.write_text("")
        target = target / "sub"
    else:
        target = locked / "out"
    assert "not" in one_line_error(nnfuzz("gen", "-n", 2, "-o", target, check=False))
    assert not any(p.name.isdigit() for p in tmp_path.rglob("*") if p.is_dir())


def test_the_packed_layout_is_four_files_and_reads_as_the_onnx_one(nnfuzz, validate, tmp_path):
    packed, plain = tmp_path / "packed", tmp_path / "onnx"
    nnfuzz("gen", "-n", 30, "--seed", 8, "-o", packed)
    nnfuzz("gen", "-n", 30, "--seed", 8, "--layout", "onnx", "-o", plain)
    for case in (p for p in sorted(os.listdir(packed)) if p != "config.json"):
        files = sorted(os.path.relpath(os.path.join(d, f), packed / case)
                       for d, _, fs in os.walk(packed / case) for f in fs)
        assert files == ["meta.json", "model.onnx", "test_data_set_0/inputs.pb", "test_data_set_0/outputs.pb"]
        assert filecmp.cmp(packed / case / "model.onnx", plain / case / "model.onnx", shallow=False)
    assert "30 passed" in nnfuzz("check", packed).stdout
    r = validate(packed)
    assert r.returncode == 0, r.stdout[-2000:]
    r = nnfuzz("gen", "-n", 1, "--layout", "npz", "-o", tmp_path / "bad", check=False)
    assert r.returncode != 0 and "npz" in r.stderr


def test_check_reports_corrupt_and_tampered_cases(nnfuzz, tmp_path):
    out = tmp_path / "cases"
    nnfuzz("gen", "-n", 3, "--seed", 5, "--min-ops", 3, "--max-ops", 6, "--layout", "onnx", "-o", out)
    (out / "000000" / "model.onnx").write_bytes(b"\x08\x07garbage that is not protobuf")
    with open(out / "000001" / "test_data_set_0" / "output_0.pb", "r+b") as f:
        data = bytearray(f.read())
        data[-1] ^= 0x40  # flip a bit in the last float
        f.seek(0)
        f.write(data)
    r = nnfuzz("check", out, check=False)
    assert r.returncode != 0
    assert "000000: FAIL" in r.stdout and "000001: FAIL" in r.stdout
    assert "000002: FAIL" not in r.stdout
    assert "1 passed" in r.stdout and "2 failed" in r.stdout


def _hostile_case(folder, model, inputs):
    """A case folder holding `model` and `inputs`, with placeholder outputs."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    onnx.save(model, str(folder / "model.onnx"))
    for k, a in enumerate(inputs):
        (data / f"input_{k}.pb").write_bytes(numpy_helper.from_array(a).SerializeToString())
    (data / "output_0.pb").write_bytes(numpy_helper.from_array(np.zeros(1, np.float32)).SerializeToString())


def test_hostile_models_are_refused_in_one_line_not_run(nnfuzz, tmp_path):
    """Models that used to pass as valid, hang the reference, or crash ONNX's shape inference."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    opset = [helper.make_opsetid("", 17)]
    short = TensorProto(name="shape", data_type=TensorProto.INT64, dims=[2], raw_data=b"\x01\x00")
    g = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])], [short])
    _hostile_case(tmp_path / "short_raw", helper.make_model(g, opset_imports=opset), [np.ones((2, 3), np.float32)])
    g = helper.make_graph([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[1, 1 << 40], pads=[0, (1 << 40) - 1, 0, 0])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    _hostile_case(tmp_path / "huge_window", helper.make_model(g, opset_imports=opset), [np.ones((1, 1, 4, 4), np.float32)])
    w = numpy_helper.from_array(np.ones((64, 64, 50, 50), np.float32), "w")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[300] * 4)], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 200, 200])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    _hostile_case(tmp_path / "heavy_conv", helper.make_model(g, opset_imports=opset), [np.ones((1, 64, 200, 200), np.float32)])

    r = nnfuzz("check", tmp_path, check=False, timeout=60)
    assert r.returncode == 1
    assert "0 passed" in r.stdout and "3 failed" in r.stdout
    assert "short_raw: FAIL: " in r.stdout and "has 2 bytes of raw data, its 2 elements need 16" in r.stdout
    assert "huge_window: FAIL: " in r.stdout and "beyond any window" in r.stdout
    assert "heavy_conv: FAIL: the reference would take about 5.8e+12 steps" in r.stdout
    # An output folder that cannot be written fails before any SUT starts (no worker stderr).
    good = tmp_path / "good"
    nnfuzz("gen", "-n", 1, "-o", good)
    (tmp_path / "a_file").write_text("")
    r = nnfuzz("reduce", good / "000000", "--backends", "onnxruntime", "-o", tmp_path / "a_file" / "sub", check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot write reduced cases" in r.stderr, r.stderr
    for case in ("short_raw", "huge_window"):
        r = nnfuzz("reduce", tmp_path / case, "--backends", "onnxruntime", "-o", tmp_path / "r", check=False, timeout=60)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "is refused" in r.stderr, r.stderr


@pytest.mark.parametrize("generator", ["declgen", "randoop"])
def test_baseline_generators_produce_valid_models(nnfuzz, validate, tmp_path, generator):
    out = tmp_path / generator
    nnfuzz("gen", "--generator", generator, "-n", 40, "--seed", 2, "--min-ops", 1, "--max-ops", 8, "-o", out)
    r = validate(out, "--min-match", "0")
    assert r.returncode == 0, r.stdout[-2000:]
    assert "checker failures 0" in r.stdout


def test_cov_values_shows_what_each_operand_held(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 40, "--seed", 3, "-o", tmp_path / "cases")
    j = json.loads(nnfuzz("cov", "--values", "--json", tmp_path / "cases").stdout)
    assert j["cases"] == 40 and j["skipped"] == 0
    rows = {(r["op"], r["operand"]): r for r in j["values"]}
    assert rows and all(r["nodes"] > 0 and r["min"] <= r["max"] for r in rows.values())
    assert all(r["large_nodes"] <= r["nodes"] for r in rows.values())
    text = nnfuzz("cov", "--values", tmp_path / "cases").stdout
    assert "40 case folders run through the reference" in text
    # A folder without cases says so and exits 1; a file is no folder.
    (tmp_path / "empty").mkdir()
    assert nnfuzz("cov", "--values", tmp_path / "empty", check=False).returncode == 1
    r = nnfuzz("cov", "--values", tmp_path / "cases" / "nothing", check=False)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_neuri_models_pass_the_checker_and_match_onnxruntime(nnfuzz, validate, tmp_path):
    out = tmp_path / "neuri"
    nnfuzz("gen", "--generator", "neuri", "-n", 60, "--seed", 4, "--min-ops", 1, "--max-ops", 10, "-o", out)
    r = validate(out, "--min-match", "0.98")
    assert r.returncode == 0, r.stdout[-2000:]
    assert "checker failures 0" in r.stdout
    meta = json.loads((out / "000000" / "meta.json").read_text())
    assert meta["generator"] == "neuri" and "inserted" in meta["graph"]
