#!/usr/bin/env python3
"""Luo et al.'s Table III (ICSE'21 §V-B..D) on our SUTs: random vs MCTS block choosing, WS vs RN vs
both graph models, with and without mutations, at N = 5, 10, 15 blocks; plus the isra generator at
the same test budget as a baseline row.

Each cell is a real campaign (`nnfuzz fuzz`, -n MODELS tests, no time limit) per seed; a cell's
figures are the mean over the seeds:
  OLC        Luo's operator-level coverage of the cell's tests (the campaign's own tracker, over
             the block corpus's operators), as its summary prints it;
  d/t        unique bugs after deduplication / tests with at least one failure (MCF, IF or DCF);
  minutes    wall time of the campaign.

    python3 tools/table3.py --backends onnxruntime,openvino --models 400 --seeds 1,2,3 -o /tmp/t3
writes /tmp/t3/table3.md (and table3.json); campaigns stay under /tmp/t3/cells/ for a look.
"""
import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, graph model, mutations on, search): the paper's five rows (MCTS with nnfuzz's default
# "gain" reward), our baseline, then row 5 again with the paper's own 0/1 "success" reward.
ROWS = [
    ("WS and RN", "both", True, "random"),
    ("WS", "ws", False, "mcts"),
    ("RN", "rn", False, "mcts"),
    ("WS and RN", "both", False, "mcts"),
    ("WS and RN", "both", True, "mcts"),
    ("isra (baseline)", None, False, "random"),
    ("WS and RN", "both", True, "mcts/success"),
]
PAPER = {  # Table III as published (MNN 1.0.2, 400 models, 10 repetitions): OLC, d, t per N
    0: [(60.2, 12, 103), (69.9, 20.1, 161), (71.8, 21.7, 201)],
    1: [(57.2, 10.9, 75.3), (62.9, 13.7, 95.4), (64.8, 14.2, 91.8)],
    2: [(57.7, 14.4, 77.2), (65.3, 19.5, 92.8), (67.3, 17.9, 113.4)],
    3: [(59.2, 16.7, 81.2), (65.8, 20.2, 93.1), (69.7, 19.5, 118.9)],
    4: [(61.5, 20.1, 84.5), (76.4, 31.9, 89.6), (81.7, 31.2, 120.3)],
}


def cell_config(row, n, seed):
    _, model, mutations, search = row
    search, _, reward = search.partition("/")
    if model is None:  # the isra generator with as many operators as the graph has blocks
        return {"generator": "isra", "seed": seed, "min_ops": n, "max_ops": n, "search": search}
    rates = [0.0, 0.1, 0.2] if mutations else [0.0]
    config = {"generator": "graph", "seed": seed, "search": search,
              "graph": {"model": model, "blocks": n, "mutations": {"r": rates}}}
    if reward:
        config["mcts"] = {"reward": reward}
    return config


def run_cell(nnfuzz, backends, models, jobs, row, n, seed, out):
    folder = os.path.join(out, "cells", f"r{ROWS.index(row) + 1}-n{n}-s{seed}")
    db = os.path.join(folder, "campaign.db")
    if os.path.exists(os.path.join(folder, "result.json")):
        with open(os.path.join(folder, "result.json")) as f:
            return json.load(f)
    subprocess.run(["rm", "-rf", folder], check=True)
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    config = folder + ".json"
    with open(config, "w") as f:
        json.dump(cell_config(row, n, seed), f)
    started = time.time()
    r = subprocess.run([nnfuzz, "fuzz", "--config", config, "--backends", backends, "-n", str(models),
                        "--minutes", "0", "-j", str(jobs), "-o", folder], capture_output=True, text=True)
    minutes = (time.time() - started) / 60
    if r.returncode != 0:
        sys.exit(f"cell {folder} failed ({r.returncode}): {r.stderr.strip()}")
    olc = float(re.search(r"OLC ([0-9.]+)%", r.stdout.split("operator-level coverage (Luo):")[1]).group(1))
    with sqlite3.connect(db) as c:
        unique = c.execute("SELECT COUNT(*) FROM bugs").fetchone()[0]
        failing = c.execute("SELECT COUNT(DISTINCT test) FROM results WHERE verdict IN ('mcf', 'if', 'dcf')"
                            ).fetchone()[0]
        tests = c.execute("SELECT COUNT(*) FROM tests").fetchone()[0]
    result = {"olc": olc, "unique": unique, "failing": failing, "tests": tests, "minutes": minutes}
    with open(os.path.join(folder, "result.json"), "w") as f:
        json.dump(result, f)
    return result


def mean(values):
    return sum(values) / len(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nnfuzz", default=os.path.join(ROOT, "build", "nnfuzz"))
    ap.add_argument("--backends", default="onnxruntime,openvino")
    ap.add_argument("--models", type=int, default=400)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--blocks", default="5,10,15")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    sizes = [int(n) for n in args.blocks.split(",")]
    table = []
    for row in ROWS:
        cells = []
        for n in sizes:
            runs = [run_cell(args.nnfuzz, args.backends, args.models, args.jobs, row, n, s, args.out) for s in seeds]
            cells.append({k: mean([r[k] for r in runs]) for k in runs[0]})
            print(f"{row[0]:<16} {row[1] or '-':<5} mut={row[2]!s:<5} {row[3]:<6} N={n:<3} "
                  f"OLC {cells[-1]['olc']:.1f}%  {cells[-1]['unique']:.1f}/{cells[-1]['failing']:.1f}  "
                  f"{cells[-1]['minutes']:.1f} min", flush=True)
        table.append(cells)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "table3.json"), "w") as f:
        json.dump({"args": vars(args), "rows": [r[0] for r in ROWS], "table": table}, f, indent=1)
    lines = [f"Backends {args.backends}; {args.models} models per cell; mean of seeds {args.seeds}.", "",
             "| # | graph model | mutations | search | " +
             " | ".join(f"N={n} OLC | N={n} d/t | N={n} min" for n in sizes) + " |",
             "|---|---|---|---|" + "---|---|---|" * len(sizes)]
    for i, (row, cells) in enumerate(zip(ROWS, table)):
        parts = [f"{c['olc']:.1f}% | {c['unique']:.1f}/{c['failing']:.1f} | {c['minutes']:.1f}" for c in cells]
        lines.append(f"| {i + 1} | {row[0]} | {'yes' if row[2] else 'no'} | {row[3]} | " + " | ".join(parts) + " |")
    lines += ["", "The paper's Table III (MNN 1.0.2, TensorFlow reference, 400 models, 10 repetitions; duration in hours):",
              "", "| # | " + " | ".join(f"N={n} OLC | N={n} d/t" for n in (5, 10, 15)) + " |",
              "|---|" + "---|---|" * 3]
    for i, cells in PAPER.items():
        lines.append(f"| {i + 1} | " + " | ".join(f"{o}% | {d}/{t}" for o, d, t in cells) + " |")
    with open(os.path.join(args.out, "table3.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
