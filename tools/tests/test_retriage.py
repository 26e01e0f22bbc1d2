"""nnfuzz retriage: a campaign's bundles triaged again into a new campaign, and the figures tool."""
import json
import os
import subprocess
import sys

from test_fuzz import buggy_backends

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_retriage_maps_every_bundle_to_todays_signature(nnfuzz, tmp_path):
    backends = buggy_backends(tmp_path)
    camp, new = tmp_path / "camp", tmp_path / "new"
    nnfuzz("fuzz", "--backends-file", backends, "--backends", "buggy", "-n", 8, "--minutes", 0, "-o", camp)
    bundles = sorted(os.listdir(camp / "bugs"))
    assert bundles, "the buggy backend always gives wrong results"
    r = nnfuzz("retriage", camp, "-o", new, "--backends-file", backends)
    assert "%d bundles retriaged" % len(bundles) in r.stdout
    lines = [json.loads(l) for l in (new / "retriage.jsonl").read_text().splitlines()]
    assert sorted(l["bundle"] for l in lines) == bundles
    for line in lines:
        own = [j for j in line["judged"] if j["mode"] == line["old_mode"] and j["against"] == line["old_against"]]
        assert own and own[0]["bug"], line
        # The same code on the same (reduced) case: the same bug as before.
        assert own[0]["bug"] == line["old_hash"], line
        assert (new / "bugs" / own[0]["bundle"].split("/")[-1]).is_dir() or os.path.isdir(own[0]["bundle"])
    # Each old bundle its own judged root cause: nothing merges, one new signature each.
    findings = tmp_path / "findings.md"
    findings.write_text("### Signature → root cause\n\nbuggy 1.0 (%d): %s.\n" % (len(bundles), "; ".join(
        "B%d: %s" % (k, b.split("-any-")[1]) for k, b in enumerate(bundles))))
    fig = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "retriage_figures.py"), "--findings", findings,
                          "--sizes", new], capture_output=True, text=True)
    assert fig.returncode == 0, fig.stdout + fig.stderr
    assert "merges (a new signature over two judged root causes): 0" in fig.stdout
    total = [l for l in fig.stdout.splitlines() if l.startswith("total/all")][0].split()
    assert total[1:4] == [str(len(bundles)), str(len(bundles)), "1.00"], fig.stdout
    assert total[4] == str(len(set(l["old_hash"] for l in lines))), fig.stdout
    # A second retriage into the same folder is refused (one line of error).
    again = nnfuzz("retriage", camp, "-o", new, "--backends-file", backends, check=False)
    assert again.returncode != 0 and "exists" in again.stderr
