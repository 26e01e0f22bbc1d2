#!/usr/bin/env python3
"""reduced_sizes.py - one line per unique bug of a campaign: its signature's name, class, count,
the size of its bundle's model (operators, largest dim) and the culprit blame named; then the
medians. Usage: tools/reduced_sizes.py CAMPAIGN_DIR"""
import json
import os
import re
import sqlite3
import statistics
import sys


def model_size(ir_path):
    text = open(ir_path).read()
    ops = len(re.findall(r"= [A-Z][A-Za-z0-9]*\(", text))
    # Only shapes after a dtype count as dims (weights' contents are bracketed too).
    dims = [int(d) for shape in re.findall(r"(?:f32|f64|i32|i64|i8|u8|bool)\[([0-9,]*)\]", text) if shape
            for d in shape.split(",")]
    return ops, max(dims) if dims else 1


def main(campaign):
    db = sqlite3.connect(os.path.join(campaign, "campaign.db"))
    rows = db.execute("select hash, class, backend, count, bundle, signature from bugs order by first_seen").fetchall()
    sizes = []
    for h, cls, backend, count, bundle, signature in rows:
        sig = json.loads(signature)
        ops, dim = model_size(os.path.join(bundle, "model.ir"))
        meta = json.load(open(os.path.join(bundle, "meta.json")))
        culprit = meta.get("reduced", {}).get("culprit", "")
        name = ",".join(sig.get("op_types", [])) or sig.get("message", "")[:60]
        print("%-40s %-4s %4d  ops %2d  max dim %3d  %s %s" % (os.path.basename(bundle), cls, count, ops, dim, name,
                                                             "(culprit %s)" % culprit if culprit else ""))
        sizes.append((ops, dim))
    if sizes:
        print("%d signatures; median operators %s, median max dim %s" % (
            len(sizes), statistics.median(s[0] for s in sizes), statistics.median(s[1] for s in sizes)))


if __name__ == "__main__":
    main(sys.argv[1])
