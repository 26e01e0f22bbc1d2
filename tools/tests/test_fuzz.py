"""Campaigns end to end: a real one against ONNX Runtime, and kill -9 + --resume losing nothing."""
import json
import os
import signal
import sqlite3
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def buggy_backends(tmp_path):
    path = tmp_path / "backends.json"
    path.write_text(json.dumps({"backends": [{
        "name": "buggy", "description": "test backend with a known wrong answer",
        "command": ["{python}", os.path.join(ROOT, "workers", "tests", "buggy_worker.py")],
        "modes": ["opt", "noopt"]}]}))
    return path


def bug_rows(db):
    with sqlite3.connect(db) as c:
        return {row[0]: row[1] for row in c.execute("SELECT hash, bundle FROM bugs")}


def test_sixty_second_campaign_against_onnxruntime(nnfuzz, tmp_path):
    out = tmp_path / "camp"
    r = nnfuzz("fuzz", "--backends", "onnxruntime", "--minutes", 1, "-j", 2, "-o", out)
    print(r.stdout[-3000:])
    assert "onnxruntime/opt vs noopt" in r.stdout
    with sqlite3.connect(out / "campaign.db") as c:
        tests = c.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
    assert tests >= 100, "a minute should run at least a hundred tests"
    assert f"{tests} tests in" in r.stdout
    # ONNX Runtime agrees with the reference on the default config: any bug here is worth a look
    # but not a test failure; harness errors are ours, though.
    for line in r.stdout.splitlines():
        if line.startswith("onnxruntime/"):
            assert line.split()[-1] == "0", line


def test_kill_minus_nine_then_resume_keeps_every_bug(nnfuzz, tmp_path):
    out = tmp_path / "camp"
    exe = os.environ.get("NNFUZZ", os.path.join(ROOT, "build", "nnfuzz"))
    exe = exe if os.path.isabs(exe) else os.path.join(ROOT, exe)
    backends = buggy_backends(tmp_path)
    proc = subprocess.Popen([exe, "fuzz", "--backends-file", str(backends), "--backends", "buggy",
                             "--minutes", "5", "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    db = out / "campaign.db"
    deadline = time.time() + 120
    before = {}
    while time.time() < deadline:
        time.sleep(0.5)
        if db.exists():
            try:
                before = bug_rows(db)
            except sqlite3.OperationalError:
                continue
            if len(before) >= 5:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(before) >= 5, proc.stderr.read().decode()[-2000:]
    before = bug_rows(db)  # everything committed up to the kill
    for bundle in before.values():
        assert (out / "bugs" / bundle / "model.onnx").exists() or os.path.exists(os.path.join(bundle, "model.onnx"))

    r = nnfuzz("fuzz", "--backends-file", backends, "--backends", "buggy", "--resume", "-n", 5, "--minutes", 0,
               "-o", out)
    assert "resuming at test" in r.stdout
    after = bug_rows(db)
    assert set(before) <= set(after), "a bug recorded before the kill is gone"
    assert not [p for p in (out / "bugs").iterdir() if p.name.startswith(".")], "a partial bundle was left behind"


def test_run_prints_a_verdict_per_backend_mode(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 1, "--seed", 4, "--min-ops", 3, "--max-ops", 8, "-o", tmp_path / "cases")
    r = nnfuzz("run", tmp_path / "cases" / "000000", "--backends", "onnxruntime")
    assert "onnxruntime/opt" in r.stdout and "onnxruntime/noopt" in r.stdout and "pass" in r.stdout


def test_run_reports_a_wrong_answer(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 1, "--seed", 4, "--min-ops", 3, "--max-ops", 8, "-o", tmp_path / "cases")
    r = nnfuzz("run", tmp_path / "cases" / "000000", "--backends-file", buggy_backends(tmp_path), "--backends", "buggy",
               check=False)
    assert r.returncode == 1
    assert "dcf" in r.stdout


def test_findings_are_reduced_to_the_failing_operator(nnfuzz, tmp_path):
    # The buggy backend's opt mode adds 1 to every float output, so any one float-valued
    # operator alone shows the bug: every wrong-result bundle must hold a one-node model.
    out = tmp_path / "camp"
    nnfuzz("fuzz", "--backends-file", buggy_backends(tmp_path), "--backends", "buggy", "-n", 12, "--minutes", 0,
           "-o", out)
    with sqlite3.connect(out / "campaign.db") as c:
        rows = c.execute("SELECT signature, bundle FROM bugs WHERE class = 'dcf'").fetchall()
    assert rows, "the buggy backend always gives wrong results"
    reduced = 0
    for signature, bundle in rows:
        meta = json.loads((out / "bugs" / os.path.basename(bundle) / "meta.json").read_text())
        nodes = [line for line in (out / "bugs" / os.path.basename(bundle) / "model.ir").read_text().splitlines()
                 if "(" in line]
        assert len(nodes) == 1, (bundle, nodes)
        assert json.loads(signature)["op_types"] == [nodes[0].split("= ")[1].split("(")[0]]
        if "reduced" in meta["case"]:
            reduced += 1
            assert (out / "bugs" / os.path.basename(bundle) / "original.onnx").exists()
            assert meta["case"]["reduced"]["to_nodes"] == 1 and meta["case"]["reduced"]["minimal"]
    assert reduced > 0, "some generated case had more than one operator"


def test_reduce_writes_smaller_cases_that_check_and_still_fail(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 1, "--seed", 4, "--min-ops", 6, "--max-ops", 8, "-o", tmp_path / "cases")
    backends = buggy_backends(tmp_path)
    r = nnfuzz("reduce", tmp_path / "cases" / "000000", "--backends-file", backends, "--backends", "buggy",
               "-o", tmp_path / "reduced", check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "(minimal)" in r.stdout, r.stdout
    folders = sorted((tmp_path / "reduced").iterdir())
    assert folders, r.stdout
    for folder in folders:
        nnfuzz("check", folder)  # a case folder of its own that the checker accepts...
        again = nnfuzz("run", folder, "--backends-file", backends, "--backends", "buggy", check=False)
        verdict = folder.name.rsplit("-", 1)[1]
        assert again.returncode == 1 and f" {verdict} " in again.stdout, again.stdout  # ...that still fails
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["reduced"]["to_nodes"] < meta["reduced"]["from_nodes"]


def test_reduce_says_so_when_nothing_fails(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 1, "--seed", 4, "--min-ops", 3, "--max-ops", 5, "-o", tmp_path / "cases")
    r = nnfuzz("reduce", tmp_path / "cases" / "000000", "--backends", "onnxruntime", "-o", tmp_path / "reduced")
    assert "no bug" in r.stdout
