"""Generation knobs of issue 11 §2 that shape the graph's outputs (config "outputs"): the
models stay valid for onnx's checker and ONNX Runtime, and the knobs show in the ONNX files.

Run: NNFUZZ=build/nnfuzz .venv/bin/python -m pytest -q -s tools/tests -k knobs
"""
import json

import onnx


def test_knobs_outputs_consumed_and_weights_reach_the_onnx_files(nnfuzz, validate, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"outputs": {"consumed": 0.2, "weights": 0.2}, "seed": 4, "max_ops": 20}))
    out = tmp_path / "cases"
    nnfuzz("gen", "--config", config, "-n", 200, "-j", 2, "-o", out)
    consumed = weights = 0
    for model_path in sorted(out.glob("*/model.onnx")):
        graph = onnx.load(str(model_path)).graph
        outputs = {o.name for o in graph.output}
        read = {name for node in graph.node for name in node.input}
        consumed += len(outputs & read - {t.name for t in graph.initializer})
        weights += len(outputs & {t.name for t in graph.initializer})
    r = validate(out, "--json", str(tmp_path / "results.json"))
    print(f"\n200 models: {consumed} graph outputs read by later nodes, {weights} initializers that are outputs; "
          + r.stdout.splitlines()[-1])
    assert consumed > 50 and weights > 20
    results = json.loads((tmp_path / "results.json").read_text())
    assert not [c for c, v in results.items() if v["stage"] == "checker"]
    assert r.returncode == 0, r.stdout[-3000:]


def _empty_input_counts(folder):
    """(nodes ending in an empty input name, nodes with an empty name before a given one)."""
    trailing = middle = 0
    for model_path in sorted(folder.glob("*/model.onnx")):
        for node in onnx.load(str(model_path)).graph.node:
            names = list(node.input)
            trailing += bool(names) and names[-1] == ""
            middle += any(n == "" for n in names[:-1]) and names[-1] != ""
    return trailing, middle


def test_knobs_empty_inputs_are_written_and_stay_valid(nnfuzz, validate, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"empty_inputs": 0.8, "seed": 6, "max_ops": 20,
                                  "ops": {"Clip": 3, "Resize": 3, "Pad": 3, "Conv": 1, "Gemm": 1, "*": 0.2}}))
    out = tmp_path / "cases"
    nnfuzz("gen", "--config", config, "-n", 200, "-j", 2, "-o", out)
    trailing, middle = _empty_input_counts(out)
    r = validate(out, "--json", str(tmp_path / "results.json"))
    print(f"\n200 models: {trailing} nodes end in an empty input, {middle} have one in the middle; "
          + r.stdout.splitlines()[-1])
    assert trailing > 50 and middle > 20
    results = json.loads((tmp_path / "results.json").read_text())
    assert not [c for c, v in results.items() if v["stage"] == "checker"]
    assert r.returncode == 0, r.stdout[-3000:]
    # Off: no node ends in an empty name.
    config.write_text(json.dumps({"empty_inputs": 0, "seed": 6, "max_ops": 20,
                                  "ops": {"Clip": 3, "Resize": 3, "Pad": 3, "Conv": 1, "Gemm": 1, "*": 0.2}}))
    nnfuzz("gen", "--config", config, "-n", 50, "-o", tmp_path / "off")
    assert _empty_input_counts(tmp_path / "off")[0] == 0


def _attribute_count(folder):
    return sum(len(node.attribute) for p in sorted(folder.glob("*/model.onnx")) for node in onnx.load(str(p)).graph.node)


def test_knobs_default_attrs_written_or_omitted_keep_the_meaning(nnfuzz, validate, tmp_path):
    """default_attrs at 1 (every default written out, or every one left out) at opsets 13 and
    21: onnx's checker accepts the models and ONNX Runtime agrees with our reference."""
    counts = {}
    for way in ("written", "omitted", "neither"):
        knob = {"written": float(way == "written"), "omitted": float(way == "omitted")}
        config = tmp_path / f"{way}.json"
        config.write_text(json.dumps({"default_attrs": knob, "seed": 8, "max_ops": 15,
                                      "opsets": {"13": 1, "21": 1}}))
        out = tmp_path / way
        nnfuzz("gen", "--config", config, "-n", 150, "-j", 2, "-o", out)
        counts[way] = _attribute_count(out)
        if way == "neither":
            continue
        r = validate(out, "--json", str(tmp_path / f"{way}.results.json"))
        print(f"\n150 models, default_attrs {way}: {counts[way]} attributes; " + r.stdout.splitlines()[-1])
        results = json.loads((tmp_path / f"{way}.results.json").read_text())
        assert not [c for c, v in results.items() if v["stage"] == "checker"]
        assert r.returncode == 0, r.stdout[-3000:]
    # The same seed draws the same graphs: only the attributes at their defaults differ.
    assert counts["written"] > counts["neither"] > counts["omitted"]
