#!/usr/bin/env python3
"""retriage_figures.py - signatures per judged root cause, before and after `nnfuzz retriage`.

The judged root causes come from docs/findings.md: the c11a section's "Signature → root cause"
lines ("OpenCV DNN 5.0.0 (181): O1: dcf-... mcf-...; O2: ...", the title's first word naming
the backend) and the PyTorch section's
"Signature by signature" table ("| `dcf-04136e12` (3) | T6 | ..."). Each retriage folder's
retriage.jsonl says which new bugs each old bundle's test gave; an old bundle's new signature is
the bug of the run in its own mode and comparison, else the bug of another run the old signature
was seen in (its "modes"), else none
(lost: today's code sees no bug in those runs of its stored case, or refuses the case). Other modes'
bugs on the same model are not counted: they may be other root causes.

Prints, per campaign and backend and in total: old signatures and root causes (of the bundles
retriaged), new signatures, the two ratios, bundles lost, and every new signature that the old
signatures of two judged root causes both map to (a merge: must be 0). With --sizes, the median
reduced model (operators, largest dim) of the new bugs, as tools/reduced_sizes.py measures it.

Usage: tools/retriage_figures.py [--findings docs/findings.md] [--sizes] NEW [NEW ...]
"""
import argparse
import collections
import json
import os
import re
import sqlite3
import statistics
import sys

def judged_root_causes(findings_text):
    """{"opencv-any-mcf-846b4bf4": "opencv:O1", ...} from both judged campaigns' lists."""
    causes = {}
    in_list = in_table = False
    section = ""
    for line in findings_text.splitlines():
        if line.startswith("## "):
            section = line
        if line.startswith("### "):
            in_list = line.startswith("### Signature → root cause")
            in_table = line.startswith("### Signature by signature") and "pytorch" in section.lower()
        if in_list:
            m = re.match(r"(.+?) \(\d+\): (.*)$", line)
            if not m:
                continue
            backend = m.group(1).split()[0].lower()  # "OpenCV DNN 5.0.0" -> opencv, "MNN 3.6.1" -> mnn
            for group in m.group(2).rstrip(".").split("; "):
                cause, sigs = group.split(": ", 1)
                for sig in sigs.split():
                    causes["%s-any-%s" % (backend, sig)] = "%s:%s" % (backend, cause)
        elif in_table:
            m = re.match(r"\| `((?:dcf|if|mcf)-[0-9a-f]{8})`(?: \(\d+\))? \| (\w+) \|", line)
            if m:
                causes["pytorch-any-%s" % m.group(1)] = "pytorch:%s" % m.group(2)
    return causes


def model_size(ir_path):
    text = open(ir_path).read()
    ops = len(re.findall(r"= [A-Z][A-Za-z0-9]*\(", text))
    dims = [int(d) for shape in re.findall(r"(?:f16|f32|f64|i8|i16|i32|i64|u8|u16|u32|u64|bool)\[([0-9,]*)\]", text)
            if shape for d in shape.split(",")]
    return ops, max(dims) if dims else 1


def new_signature(line, old_modes):
    """(hash, how) of an old bundle's test today; hash None when lost. Only the runs the old
    signature was seen in count: another mode of the same model may show another bug."""
    if line.get("skipped"):
        return None, "skipped: " + line["skipped"]
    seen = lambda j: j["mode"] + ("" if j["against"] == "reference" else " vs " + j["against"])
    own = [j for j in line["judged"] if j["mode"] == line["old_mode"] and j["against"] == line["old_against"]]
    if own and own[0]["bug"]:
        return own[0]["bug"], "own mode"
    for j in line["judged"]:
        if j["bug"] and seen(j) in old_modes:
            return j["bug"], "another mode of the old signature"
    return None, "its modes now: " + ", ".join(
        "%s %s" % (seen(j), j["verdict"]) for j in line["judged"] if seen(j) in old_modes or j in own)


def ratio(sigs, causes):
    return "%.2f" % (sigs / causes) if causes else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--findings", default=os.path.join(os.path.dirname(__file__), "..", "docs", "findings.md"))
    ap.add_argument("--sizes", action="store_true", help="median reduced size of the new bugs")
    ap.add_argument("--by-cause", action="store_true", help="old and new signatures of each root cause with several")
    ap.add_argument("new", nargs="+", help="retriage output folders")
    args = ap.parse_args()
    causes = judged_root_causes(open(args.findings).read())
    rows = collections.defaultdict(lambda: {"old": set(), "causes": set(), "new": set(), "new_causes": set(),
                                            "lost": []})
    new_to_causes = collections.defaultdict(set)
    new_to_old = collections.defaultdict(set)
    per_cause = collections.defaultdict(lambda: [set(), set()])  # cause -> old bundles, new hashes
    sizes = []
    unjudged = []
    for folder in args.new:
        config = json.loads(sqlite3.connect(os.path.join(folder, "campaign.db")).execute(
            "select config from campaign").fetchone()[0])
        campaign = os.path.basename(os.path.normpath(config["retriage_of"]))
        for text in open(os.path.join(folder, "retriage.jsonl")):
            line = json.loads(text)
            cause = causes.get(line["bundle"])
            if cause is None:
                unjudged.append(line["bundle"])
                continue
            old_meta = json.load(open(os.path.join(config["retriage_of"], "bugs", line["bundle"], "meta.json")))
            h, how = new_signature(line, old_meta["signature"].get("modes", []) or [line["old_mode"]])
            for key in ((campaign, line["backend"]), (campaign, "all"), ("total", "all")):
                r = rows[key]
                r["old"].add(line["bundle"])
                r["causes"].add(cause)
                if h:
                    r["new"].add(h)
                    r["new_causes"].add(cause)
                else:
                    r["lost"].append("%s (%s): %s" % (line["bundle"], cause, how))
            per_cause[cause][0].add(line["bundle"])
            if h:
                per_cause[cause][1].add(h)
                new_to_causes[h].add(cause)
                new_to_old[h].add(line["bundle"])
        if args.sizes:
            db = sqlite3.connect(os.path.join(folder, "campaign.db"))
            for (bundle,) in db.execute("select bundle from bugs"):
                if os.path.exists(os.path.join(bundle, "model.ir")):
                    sizes.append(model_size(os.path.join(bundle, "model.ir")))
    print("%-22s %6s %7s %6s %6s %7s %6s %5s" % ("campaign/backend", "old", "causes", "ratio", "new", "causes",
                                                 "ratio", "lost"))
    for (campaign, backend), r in sorted(rows.items(), key=lambda kv: (kv[0][0] == "total", kv[0][0],
                                                                       kv[0][1] == "all", kv[0][1])):
        print("%-22s %6d %7d %6s %6d %7d %6s %5d" % (
            campaign + "/" + backend, len(r["old"]), len(r["causes"]), ratio(len(r["old"]), len(r["causes"])),
            len(r["new"]), len(r["new_causes"]), ratio(len(r["new"]), len(r["new_causes"])), len(r["lost"])))
    merges = {h: c for h, c in new_to_causes.items() if len(c) > 1}
    print("merges (a new signature over two judged root causes): %d" % len(merges))
    for h, c in sorted(merges.items()):
        print("  %s: %s <- %s" % (h[:8], ", ".join(sorted(c)), " ".join(sorted(new_to_old[h]))))
    lost = rows[("total", "all")]["lost"]
    if lost:
        print("lost (%d):" % len(lost))
        for item in lost:
            print("  " + item)
    if unjudged:
        print("bundles without a judged root cause (left out): %s" % " ".join(unjudged))
    if args.by_cause:
        print("root causes with several signatures (old -> new):")
        for cause, (old, new) in sorted(per_cause.items(), key=lambda kv: -len(kv[1][0])):
            if len(old) > 1 or len(new) > 1:
                print("  %-18s %3d -> %3d" % (cause, len(old), len(new)))
    if sizes:
        print("reduced models of the %d new bugs: median operators %s, median largest dim %s" % (
            len(sizes), statistics.median(s[0] for s in sizes), statistics.median(s[1] for s in sizes)))
    return 1 if merges else 0


if __name__ == "__main__":
    sys.exit(main())
