"""Campaigns end to end: a real one against ONNX Runtime, and kill -9 + --resume losing nothing."""
import json
import os
import signal
import re
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
    # Where the time went: every phase, shares that add up to 100%.
    breakdown = next(line for line in r.stdout.splitlines() if line.startswith("time per test:"))
    shares = [float(x) for x in re.findall(r"\(([0-9.]+)%\)", breakdown)]
    assert len(shares) == 8, breakdown
    assert "worker start" in breakdown, breakdown
    assert abs(sum(shares) - 100) < 0.5, breakdown
    assert shares[2] + shares[3] > 0, "the SUT's prepare and run take time"
    assert re.search(r"nnfuzz's own share [0-9.]+%", breakdown)
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


def count_tests(db):
    """Tests recorded so far (0 while the database is missing or being created)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
            return c.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_kill_minus_nine_at_random_points_loses_nothing(nnfuzz, tmp_path):
    """Six kills at random moments of one campaign, each followed by --resume: the database
    stays consistent, no recorded bug or test is lost, and no bundle is left half written."""
    import random
    rng = random.Random(1234)
    out = tmp_path / "camp"
    exe = os.environ.get("NNFUZZ", os.path.join(ROOT, "build", "nnfuzz"))
    exe = exe if os.path.isabs(exe) else os.path.join(ROOT, exe)
    backends = buggy_backends(tmp_path)
    db = out / "campaign.db"
    bugs, tests = {}, 0
    # Six kills at random moments, then (a loaded machine can spend them all starting the
    # worker) up to six more, each once the campaign has recorded a test of its own.
    for round_ in range(12):
        if round_ >= 6 and tests > 0 and bugs:
            break
        args = [exe, "fuzz", "--backends-file", str(backends), "--backends", "buggy", "--minutes", "5", "-o", str(out)]
        if round_:
            args.append("--resume")
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if round_ >= 6:
            deadline = time.time() + 120
            while time.time() < deadline and count_tests(db) <= tests:
                time.sleep(0.2)
        time.sleep(rng.uniform(0.3, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if not db.exists():
            continue
        with sqlite3.connect(db) as c:
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            now_tests = c.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
        now_bugs = bug_rows(db)
        assert set(bugs) <= set(now_bugs), f"round {round_}: a bug recorded before a kill is gone"
        assert now_tests >= tests, f"round {round_}: recorded tests went from {tests} to {now_tests}"
        bugs, tests = now_bugs, now_tests
        for bundle in bugs.values():
            assert (out / "bugs" / bundle / "model.onnx").exists() or os.path.exists(os.path.join(bundle, "model.onnx"))
    assert tests > 0 and bugs, "twelve rounds should record tests and bugs"
    r = nnfuzz("fuzz", "--backends-file", backends, "--backends", "buggy", "--resume", "-n", 3, "--minutes", 0, "-o", out)
    assert "resuming at test" in r.stdout
    assert set(bugs) <= set(bug_rows(db))
    assert not [p for p in (out / "bugs").iterdir() if p.name.startswith(".")], "a partial bundle was left behind"


def test_run_prints_a_verdict_per_backend_mode(nnfuzz, tmp_path):
    nnfuzz("gen", "-n", 1, "--seed", 4, "--min-ops", 3, "--max-ops", 8, "-o", tmp_path / "cases")
    r = nnfuzz("run", tmp_path / "cases" / "000000", "--backends", "onnxruntime")
    assert "onnxruntime/opt" in r.stdout and "onnxruntime/noopt" in r.stdout and "pass" in r.stdout


def test_run_reports_a_wrong_answer(nnfuzz, tmp_path):
    # Float operators onnx's ReferenceEvaluator (the buggy worker's engine) runs: it fails on
    # some valid forms (TfIdfVectorizer's IDF without weights), which would be no wrong answer.
    config = tmp_path / "float_ops.json"
    config.write_text(json.dumps({"ops": {"Add": 1, "Mul": 1, "Relu": 1, "Sigmoid": 1, "Conv": 1}}))
    nnfuzz("gen", "--config", config, "-n", 1, "--seed", 4, "--min-ops", 3, "--max-ops", 8, "-o", tmp_path / "cases")
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


def search_state(db):
    with sqlite3.connect(db) as c:
        row = c.execute("SELECT tests, state FROM search_state").fetchone()
    return (row[0], json.loads(row[1])) if row else (0, None)


def test_mcts_campaign_resumes_its_search_tree_after_kill_minus_nine(nnfuzz, tmp_path):
    out = tmp_path / "camp"
    exe = os.environ.get("NNFUZZ", os.path.join(ROOT, "build", "nnfuzz"))
    exe = exe if os.path.isabs(exe) else os.path.join(ROOT, exe)
    proc = subprocess.Popen([exe, "fuzz", "--backends", "onnxruntime", "--generator", "graph", "--search", "mcts",
                             "--blocks", "5", "--minutes", "5", "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    db = out / "campaign.db"
    deadline = time.time() + 120
    saved = (0, None)
    while time.time() < deadline:
        time.sleep(0.5)
        try:
            saved = search_state(db) if db.exists() else saved
        except sqlite3.OperationalError:
            continue
        if saved[0] >= 60:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    tests_before, tree_before = search_state(db)
    assert tests_before >= 60 and tree_before is not None, proc.stderr.read().decode()[-2000:]
    visits_before = tree_before["tree"]["nodes"][0][2]
    kept_before = len(list((out / "corpus").glob("*.ir")))
    assert kept_before > 0

    r = nnfuzz("fuzz", "--backends", "onnxruntime", "--resume", "-n", 20, "--minutes", 0, "-o", out)
    assert "resuming at test" in r.stdout and f"({kept_before} kept models reloaded)" in r.stdout, r.stdout
    _, tree_after = search_state(db)
    # The resumed search grew the saved tree: its old nodes are all still there, the root has
    # exactly 20 more visits (-j 1 leaves no test to rerun), and the resumed session is recorded as the mcts source.
    before, after = tree_before["tree"]["nodes"], tree_after["tree"]["nodes"]
    assert [n[:2] for n in after[:len(before)]] == [n[:2] for n in before]
    assert after[0][2] == visits_before + 20
    # The reward's running mean resumed too: 20 more tests were learned from.
    assert tree_after["tests"] == tree_before["tests"] + 20
    with sqlite3.connect(db) as c:
        generators = {row[0] for row in c.execute("SELECT DISTINCT generator FROM tests")}
    assert generators == {"graph+mcts"}


def test_sigint_stops_a_campaign_with_exit_130_and_says_so(tmp_path):
    exe = os.environ.get("NNFUZZ", os.path.join(ROOT, "build", "nnfuzz"))
    exe = exe if os.path.isabs(exe) else os.path.join(ROOT, exe)
    out = tmp_path / "camp"
    proc = subprocess.Popen([exe, "fuzz", "--backends", "onnxruntime", "--minutes", "5", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (out / "campaign.db").exists():
        time.sleep(0.2)
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout and "tests in" in stdout


def test_a_bad_search_or_generator_is_one_line_and_leaves_no_folder(nnfuzz, tmp_path):
    for flag, value in (("--search", "dfs"), ("--generator", "nosuch")):
        out = tmp_path / value
        r = nnfuzz("fuzz", "--backends", "onnxruntime", "-n", 3, flag, value, "-o", out, check=False)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert value in r.stderr and not out.exists()


def test_a_full_disk_stops_the_campaign_cleanly_and_resume_goes_on(nnfuzz, tmp_path):
    """The campaign folder on a 3 MB tmpfs: bundles fill it; the campaign must stop with its
    summary and a one-line reason, leave a consistent database, and resume once there is room."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        import pytest
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        out = mnt / "camp"
        backends = buggy_backends(tmp_path)
        r = nnfuzz("fuzz", "--backends-file", backends, "--backends", "buggy", "--minutes", 2, "-o", out,
                   check=False)
        assert r.returncode == 2, r.stdout[-2000:] + r.stderr
        assert "campaign stopped after" in r.stderr and ("full" in r.stderr or "I/O" in r.stderr), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "unique bugs in the campaign" in r.stdout, "no summary"
        with sqlite3.connect(out / "campaign.db") as c:
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        before = bug_rows(out / "campaign.db")
        assert before
        subprocess.run(["mount", "-o", "remount,size=64m", str(mnt)], check=True)
        r = nnfuzz("fuzz", "--backends-file", backends, "--backends", "buggy", "--resume", "-n", 5, "--minutes", 0,
                   "-o", out)
        assert "resuming at test" in r.stdout
        assert set(before) <= set(bug_rows(out / "campaign.db"))
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_your_engines_unsupported_patterns_come_from_the_backends_file(nnfuzz, tmp_path):
    def backends(extra):
        path = tmp_path / f"backends-{len(extra)}.json"
        path.write_text(json.dumps({"backends": [{
            "name": "toy", "command": ["{python}", os.path.join(ROOT, "workers", "tests", "toy_worker.py")],
            "modes": ["convert-fails"], **extra}]}))
        return path

    def verdicts(out):
        with sqlite3.connect(out / "campaign.db") as c:
            return {row[0] for row in c.execute("SELECT verdict FROM results")}

    # The toy converter refuses every model: without the engine's own words, each is a bug ...
    nnfuzz("fuzz", "--backends-file", backends({}), "--backends", "toy", "-n", 3, "--minutes", 0,
           "--no-reduce", "-o", tmp_path / "plain")
    assert verdicts(tmp_path / "plain") == {"mcf"}
    # ... and with them in its backends-file entry, none is.
    nnfuzz("fuzz", "--backends-file", backends({"unsupported": ["converter cannot take \\w+"]}), "--backends", "toy",
           "-n", 3, "--minutes", 0, "--no-reduce", "-o", tmp_path / "known")
    assert verdicts(tmp_path / "known") == {"unsupported"}
    assert not list((tmp_path / "known" / "bugs").iterdir())


def test_a_backend_without_a_template_is_reproduced_through_its_worker(nnfuzz, tmp_path):
    out = tmp_path / "camp"
    nnfuzz("fuzz", "--backends-file", buggy_backends(tmp_path), "--backends", "buggy", "-n", 6, "--minutes", 0,
           "-o", out)
    # A wrong result of mode opt (an operator onnx's evaluator lacks fails in both modes: an MCF).
    # Mode opt's: a noopt bundle is onnx's own evaluator disagreeing with the reference (it gives
    # LpNormalization(p=1) of [-1] as 1, for one).
    bundles = sorted(p for p in (out / "bugs").iterdir()
                     if "-dcf-" in p.name and json.loads((p / "meta.json").read_text())["mode"] == "opt")
    assert bundles
    facts = json.loads((bundles[0] / "repro.py").read_text().split('BUG = json.loads(r"""')[1].split('""")')[0])
    assert facts["worker"]["command"][-1].endswith("buggy_worker.py")
    import sys
    r = subprocess.run([sys.executable, bundles[0] / "repro.py"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr  # the bug is there, seen through the worker
    assert "NotImplementedError" not in r.stdout + r.stderr
    # The same repro against the worker's correct mode finds nothing: the verdict is the worker's.
    fixed = (bundles[0] / "repro.py").read_text().replace('"mode": "opt"', '"mode": "noopt"')
    (tmp_path / "fixed_repro.py").write_text(fixed)
    for name in ("model.onnx", "test_data_set_0"):
        os.symlink(bundles[0] / name, tmp_path / name)
    r = subprocess.run([sys.executable, tmp_path / "fixed_repro.py"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_backends_check_says_what_works(nnfuzz, tmp_path):
    r = nnfuzz("backends", "--check", "--backends-file", buggy_backends(tmp_path), "--backends", "buggy", check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "buggy/noopt: ok" in r.stdout
    assert "buggy/opt: FAILS the check model (dcf)" in r.stdout, r.stdout
    r = nnfuzz("backends", "--backends", "nosuch", check=False)
    assert r.returncode != 0 and "unknown backend 'nosuch'" in r.stderr
