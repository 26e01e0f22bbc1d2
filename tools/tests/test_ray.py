"""Campaigns in shards: on one machine and on a local Ray cluster (head + 2 worker nodes)."""
import os
import sqlite3
import subprocess
import sys

from test_fuzz import ROOT, buggy_backends  # the toy SUT with a known wrong answer


def _campaign(db):
    with sqlite3.connect(db) as c:
        tests = c.execute("SELECT idx, seed, generator, op_types FROM tests ORDER BY idx").fetchall()
        verdicts = c.execute("SELECT test, backend, mode, against, verdict, status, phase FROM results "
                             "ORDER BY test, backend, mode, against").fetchall()
        bugs = dict(c.execute("SELECT hash, count FROM bugs").fetchall())
        hits = c.execute("SELECT bug, COUNT(DISTINCT test) FROM results WHERE bug IS NOT NULL AND against = 'reference' "
                         "GROUP BY bug").fetchall()
        bundles = [row[0] for row in c.execute("SELECT bundle FROM bugs")]
    return tests, verdicts, bugs, dict(hits), bundles


def _same_tests_and_verdicts(whole, merged):
    tests, verdicts, _, _, _ = _campaign(whole)
    m_tests, m_verdicts, m_bugs, m_hits, m_bundles = _campaign(merged)
    assert m_tests == tests, "the shards ran other tests than the unsharded campaign"
    assert m_verdicts == verdicts, "a test was judged differently in its shard"
    # One row per signature; every bug a result names is there, with a bundle in the merged folder.
    assert set(m_hits) <= set(m_bugs)
    for bundle in m_bundles:
        assert os.path.exists(os.path.join(bundle, "model.onnx")), bundle
        assert os.path.dirname(bundle) == os.path.join(os.path.dirname(merged), "bugs")


def test_shards_merge_into_the_unsharded_campaign(nnfuzz, tmp_path):
    backends = buggy_backends(tmp_path)
    common = ["--backends-file", backends, "--backends", "buggy", "--minutes", 0]
    nnfuzz("fuzz", *common, "-n", 24, "-o", tmp_path / "whole")
    for i in range(3):
        r = nnfuzz("fuzz", *common, "-n", 8, "--shard", f"{i}/3", "-o", tmp_path / f"s{i}")
        assert f"shard {i}/3" in r.stdout
    r = nnfuzz("merge", "-o", tmp_path / "merged", *(tmp_path / f"s{i}" for i in range(3)))
    assert "merged 3 shards" in r.stdout and "24 tests" in r.stdout
    # Tier 3 of the merged campaign's corpus holds each merged bug once (as the whole campaign's
    # holds its own: the signatures may differ where a shard's reducer knew fewer culprits).
    with sqlite3.connect(tmp_path / "merged" / "corpus.db") as m, sqlite3.connect(tmp_path / "merged" / "campaign.db") as c:
        bundled = c.execute("SELECT COUNT(*) FROM bugs WHERE bundle != ''").fetchone()[0]
        assert m.execute("SELECT COUNT(*) FROM entries WHERE tier = 3").fetchone()[0] == bundled > 0
    assert f"corpus: {bundled} bugs added to tier 3" in r.stdout
    _same_tests_and_verdicts(tmp_path / "whole" / "campaign.db", tmp_path / "merged" / "campaign.db")
    r = nnfuzz("report", tmp_path / "merged")
    assert "24 tests" in r.stdout
    # A shard given twice, a missing shard, another config: one line each, nothing left behind.
    r = nnfuzz("merge", "-o", tmp_path / "bad", tmp_path / "s0", tmp_path / "s0", check=False)
    assert r.returncode == 2 and "given twice" in r.stderr and not (tmp_path / "bad" / "campaign.db").exists()
    r = nnfuzz("merge", "-o", tmp_path / "part", tmp_path / "s0", tmp_path / "s2")
    assert "note: shard 1/3 was not given" in r.stdout
    nnfuzz("fuzz", *common, "-n", 2, "--seed", 9, "--shard", "1/3", "-o", tmp_path / "other")
    r = nnfuzz("merge", "-o", tmp_path / "bad2", tmp_path / "s0", tmp_path / "other", check=False)
    assert r.returncode == 2 and "another config" in r.stderr
    r = nnfuzz("fuzz", *common, "-n", 1, "--shard", "3/3", "-o", tmp_path / "bad3", check=False)
    assert r.returncode == 2 and "0 <= I < N" in r.stderr


def test_sharded_campaign_on_a_ray_cluster_equals_the_unsharded_one(nnfuzz, tmp_path):
    from ray.cluster_utils import Cluster
    backends = buggy_backends(tmp_path)
    common = ["--backends-file", str(backends), "--backends", "buggy", "--minutes", "0"]
    nnfuzz("fuzz", *common, "-n", 30, "-o", tmp_path / "whole")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        exe = os.environ.get("NNFUZZ", os.path.join(ROOT, "build", "nnfuzz"))
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ray_fuzz.py"), "--address", cluster.address,
                            "--shards", "3", "--nnfuzz", os.path.abspath(exe), "-o", str(tmp_path / "ray"), "--",
                            *common, "-n", "10"], capture_output=True, text=True, timeout=600)
    finally:
        cluster.shutdown()
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    for i in range(3):
        assert f"[shard {i}/3] " in r.stdout, r.stdout
    assert "merged 3 shards" in r.stdout and "30 tests" in r.stdout
    _same_tests_and_verdicts(tmp_path / "whole" / "campaign.db", tmp_path / "ray" / "campaign.db")
