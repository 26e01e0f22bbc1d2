"""nnfuzz report end to end: each bundle's onnx.helper script rebuilds its model.onnx, and the
HTML report of real campaigns opens in headless Chromium with its charts drawn and every link
resolving to a file."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import urllib.parse

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INLINE_LIMIT = 64  # SnippetOptions::inlineLimit: larger tensors are drawn, not written out


@pytest.fixture(scope="module")
def buggy_campaign(nnfuzz, tmp_path_factory):
    """A short campaign against a backend with known wrong answers: it has bugs and bundles."""
    tmp = tmp_path_factory.mktemp("buggy")
    backends = tmp / "backends.json"
    backends.write_text(json.dumps({"backends": [{
        "name": "buggy", "description": "test backend with a known wrong answer",
        "command": ["{python}", os.path.join(ROOT, "workers", "tests", "buggy_worker.py")],
        "modes": ["opt", "noopt"]}]}))
    out = tmp / "camp"
    nnfuzz("fuzz", "--backends-file", backends, "--backends", "buggy", "-n", 30, "--minutes", 0, "-o", out)
    bundles = sorted(p for p in (out / "bugs").iterdir() if p.is_dir())
    assert len(bundles) >= 3, "the buggy backend should give several bugs in 30 tests"
    return out


def python_block(markdown):
    blocks = re.findall(r"```python\n(.*?)```", markdown, re.S)
    assert len(blocks) == 1, "a README holds one onnx.helper script"
    return blocks[0]


def tensor_matches(built, stored, where):
    assert built.data_type == stored.data_type, where
    assert list(built.dims) == list(stored.dims), where
    a, b = numpy_helper.to_array(built), numpy_helper.to_array(stored)
    if b.size <= INLINE_LIMIT:  # written out exactly; larger ones are a seeded draw
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where


def models_match(built, stored):
    assert built.ir_version == stored.ir_version
    assert [(o.domain, o.version) for o in built.opset_import] == [(o.domain, o.version) for o in stored.opset_import]
    gb, gs = built.graph, stored.graph
    for field in ("input", "output", "value_info"):
        assert [v.SerializeToString() for v in getattr(gb, field)] == \
               [v.SerializeToString() for v in getattr(gs, field)], field
    assert len(gb.node) == len(gs.node)
    for nb, ns in zip(gb.node, gs.node):
        assert (nb.op_type, list(nb.input), list(nb.output), nb.name, nb.domain) == \
               (ns.op_type, list(ns.input), list(ns.output), ns.name, ns.domain)
        assert [a.name for a in nb.attribute] == [a.name for a in ns.attribute], nb.name
        for ab, as_ in zip(nb.attribute, ns.attribute):
            assert ab.type == as_.type, (nb.name, ab.name)
            if ab.type == onnx.AttributeProto.TENSOR:
                tensor_matches(ab.t, as_.t, (nb.name, ab.name))
            else:
                assert helper.get_attribute_value(ab) == helper.get_attribute_value(as_), (nb.name, ab.name)
    assert [i.name for i in gb.initializer] == [i.name for i in gs.initializer]
    for ib, is_ in zip(gb.initializer, gs.initializer):
        tensor_matches(ib, is_, ib.name)


def test_every_bundle_script_rebuilds_its_model(nnfuzz, buggy_campaign):
    bundles = sorted(p for p in (buggy_campaign / "bugs").iterdir() if p.is_dir())
    for bundle in bundles:
        readme = (bundle / "README.md").read_text()
        scope = {}
        exec(compile(python_block(readme), str(bundle / "README.md"), "exec"), scope)  # noqa: S102
        built, stored = scope["model"], onnx.load(str(bundle / "model.onnx"))
        onnx.checker.check_model(built, full_check=True)
        models_match(built, stored)
        inputs = [i for i in stored.graph.input if i.name not in {t.name for t in stored.graph.initializer}]
        assert sorted(scope.get("feeds", {})) == sorted(i.name for i in inputs)
        # The same text comes out of `nnfuzz report --bug`, by bundle name and by hash prefix.
        hash8 = bundle.name.rsplit("-", 1)[1]
        assert nnfuzz("report", buggy_campaign, "--bug", bundle.name, "--markdown").stdout == readme
        assert nnfuzz("report", buggy_campaign, "--bug", hash8, "--markdown").stdout == readme


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs, self.srcs = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag in ("script", "img", "link") and (a.get("src") or a.get("href")):
            self.srcs.append(a.get("src") or a.get("href"))


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Chromium is not installed (scripts/setup.sh installs Debian's chromium)")


def browser(*args, timeout=120):
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--user-data-dir=" + args[0], *args[1:]]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("which", ["onnxruntime", "buggy"])
def test_report_opens_in_a_browser_with_charts_and_working_links(nnfuzz, buggy_campaign, tmp_path, which):
    if which == "onnxruntime":
        camp = tmp_path / "ort"
        nnfuzz("fuzz", "--backends", "onnxruntime", "-n", 30, "--minutes", 0, "-o", camp)
    else:
        camp = buggy_campaign
    report = tmp_path / "out" / f"{which}.html"  # written away from the campaign: links must climb back
    r = nnfuzz("report", camp, "-o", report)
    assert "unique bugs" in r.stdout
    page = report.read_text()
    assert "http://" not in re.sub(r'xmlns(:xlink)?="http://www\.w3\.org/[^"]*"', "", page.split("<script>")[0]), \
        "the page outside its inlined scripts must not reach the network"

    profile = str(tmp_path / "profile")
    dom = browser(profile, "--dump-dom", report.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    status = re.search(r'<div id="render-status">([^<]*)</div>', dom.stdout)
    assert status, "the page's script did not run"
    assert re.search(r'data-charts="4"', dom.stdout), status.group(1)
    assert re.search(r'data-charts-drawn="4"', dom.stdout), status.group(1)

    links = Links()
    links.feed(page)
    assert not links.srcs, "everything is inlined: no external scripts, images or styles"
    bugs = len(list((camp / "bugs").iterdir())) if (camp / "bugs").exists() else 0
    assert len(links.hrefs) >= 4 * bugs  # folder, README.md, repro.py, model.onnx per bug
    for href in links.hrefs:
        assert not urllib.parse.urlparse(href).scheme, f"{href}: links are relative"
        target = (report.parent / urllib.parse.unquote(href)).resolve()
        assert target.exists(), f"{href} does not resolve ({target})"

    shot = tmp_path / f"{which}.png"
    browser(profile, "--window-size=1400,2200", f"--screenshot={shot}", report.as_uri())
    assert shot.exists() and shot.stat().st_size > 20000
    keep = os.environ.get("NNFUZZ_REPORT_SHOTS")  # to look at them: NNFUZZ_REPORT_SHOTS=/some/dir
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(shot, os.path.join(keep, shot.name))
        shutil.copy(report, os.path.join(keep, report.name))
