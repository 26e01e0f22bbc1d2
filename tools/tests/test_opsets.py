"""Generation across opsets (issue 11 §2): 1,000 default models at each of opsets 11, 13,
15, 18 and 21 must all pass python's onnx checker (full_check: strict shape inference
with type checks) and match ONNX Runtime (optimisations off) against nnfuzz's reference.
A mismatch counts against the opset's forms unless the same model written at opset 17
(`nnfuzz convert`) mismatches the same way: then it is the model's own (a generator or
engine problem that opset 17 has too), reported but not an opset failure.

NNFUZZ_OPSET_CASES sets the models per opset (default 1000)."""
import json
import os
import sys
from multiprocessing import Pool

import onnx
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import validate_cases  # noqa: E402

CASES = int(os.environ.get("NNFUZZ_OPSET_CASES", "1000"))


def _check(case):
    return case, validate_cases.check_case(case, 1e-3, 1e-4)


@pytest.mark.parametrize("opset", [11, 13, 15, 18, 21])
def test_every_model_passes_checker_and_runtime(nnfuzz, tmp_path, opset):
    out = tmp_path / f"opset{opset}"
    nnfuzz("gen", "-n", CASES, "--seed", 1100 + opset, "--opset", opset, "-j", 2, "-o", out)
    cases = sorted(str(p.parent) for p in out.glob("*/model.onnx"))
    assert len(cases) == CASES
    for case in cases[:20]:
        model = onnx.load(os.path.join(case, "model.onnx"))
        assert [(i.domain, i.version) for i in model.opset_import] == [("", opset)]
        assert json.load(open(os.path.join(case, "meta.json")))["opset"] == opset
    with Pool(2) as pool:
        results = pool.map(_check, cases, chunksize=16)
    failures = [(case, stage, message) for case, (stage, message) in results if stage != "ok"]
    own = []
    for case, stage, message in failures:
        if stage not in ("mismatch", "run"):
            continue
        twin = tmp_path / "at17" / os.path.basename(case)
        nnfuzz("convert", case, "--opset", 17, "-o", twin)
        if validate_cases.check_case(str(twin), 1e-3, 1e-4) == (stage, message):
            own.append(case)
    print(f"opset {opset}: {len(cases) - len(failures)}/{len(cases)} pass; "
          f"{len(own)} fail the same way at opset 17: {[os.path.basename(c) for c in own]}")
    opset_failures = [f for f in failures if f[0] not in own]
    assert not opset_failures, "\n".join(f"{c}: {s}: {m}" for c, s, m in opset_failures[:20])
    assert len(own) <= CASES // 100


def test_opset_mix_is_drawn_per_model(nnfuzz, tmp_path):
    config = tmp_path / "mix.json"
    config.write_text(json.dumps({"opsets": {"11": 1, "21": 1}}))
    nnfuzz("gen", "--config", config, "-n", 40, "--seed", 3, "-o", tmp_path / "a")
    nnfuzz("gen", "--config", config, "-n", 40, "--seed", 3, "-j", 2, "-o", tmp_path / "b")
    seen = set()
    for meta in sorted((tmp_path / "a").glob("*/meta.json")):
        opset = json.load(open(meta))["opset"]
        seen.add(opset)
        model = onnx.load(str(meta.parent / "model.onnx"))
        assert model.opset_import[0].version == opset
        twin = tmp_path / "b" / meta.parent.name / "model.onnx"
        assert twin.read_bytes() == (meta.parent / "model.onnx").read_bytes()
    assert seen == {11, 21}


@pytest.mark.parametrize("value", ["6", "22", "x"])
def test_bad_opset_is_one_line(nnfuzz, tmp_path, value):
    r = nnfuzz("gen", "-n", 1, "--opset", value, "-o", tmp_path / "o", check=False)
    assert r.returncode != 0
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "opset" in lines[0], r.stderr
