#!/usr/bin/env python3
"""ray_fuzz.py - one nnfuzz campaign across a Ray cluster, in shards.

Each of N Ray tasks runs `nnfuzz fuzz --shard I/N ...` on whichever node Ray places it (the
C++ binary does the work; the task only starts it, streams its progress lines to the driver
and ships the shard's folder back as a tar archive). The driver unpacks the shards under
OUT/shards/ and folds them with `nnfuzz merge -o OUT`, so OUT is one campaign (one database,
one bundle per unique bug, one report).

  python3 tools/ray_fuzz.py --address auto --shards 8 -o camp -- --backends onnxruntime --minutes 30
  python3 tools/ray_fuzz.py --shards 2 -o camp -- --backends onnxruntime -n 500   # a local cluster

Every node needs nnfuzz and the SUTs at the same path (scripts/setup.sh in the same folder on
each, or a shared filesystem); --nnfuzz names the binary. Arguments after `--` go to every
shard's `nnfuzz fuzz` (all but -o and --shard); -n and --minutes are per shard.
"""
import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time

import ray

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@ray.remote
class Progress:
    """The latest progress line of every shard, for the driver to print."""

    def __init__(self):
        self.lines = {}

    def report(self, shard, line):
        self.lines[shard] = line

    def snapshot(self):
        return dict(self.lines)


@ray.remote(num_cpus=1)
def run_shard(nnfuzz, shard, count, fuzz_args, progress):
    """Runs shard `shard` of `count` on this node; returns (exit status, output tail, tar bytes)."""
    with tempfile.TemporaryDirectory(prefix="nnfuzz-shard-") as tmp:
        out = os.path.join(tmp, f"shard{shard}")
        proc = subprocess.Popen([nnfuzz, "fuzz", *fuzz_args, "--shard", f"{shard}/{count}", "-o", out],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        tail = []
        for line in proc.stdout:
            line = line.rstrip("\n")
            tail = (tail + [line])[-40:]
            if line.strip():
                progress.report.remote(shard, line.strip()[:200])
        status = proc.wait()
        archive = io.BytesIO()
        if os.path.isdir(out):
            with tarfile.open(fileobj=archive, mode="w:gz") as tar:
                tar.add(out, arcname=f"shard{shard}")
        return status, "\n".join(tail), archive.getvalue()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    fuzz_args = []
    if "--" in argv:
        cut = argv.index("--")
        argv, fuzz_args = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(description="nnfuzz campaign in shards on a Ray cluster")
    p.add_argument("--address", default=None, help="Ray cluster address ('auto' for a running one; none: start a local one)")
    p.add_argument("--shards", type=int, required=True, help="number of shards (Ray tasks)")
    p.add_argument("-o", "--out", required=True, help="the merged campaign's folder")
    p.add_argument("--nnfuzz", default=os.path.join(ROOT, "build", "nnfuzz"), help="nnfuzz binary on every node")
    args = p.parse_args(argv)
    if args.shards < 1:
        p.error("--shards must be >= 1")
    if os.path.exists(os.path.join(args.out, "campaign.db")):
        p.error(f"{args.out} holds a campaign already")
    for banned in ("-o", "--out", "--shard", "--resume"):
        if banned in fuzz_args:
            p.error(f"{banned} is the driver's to set")

    ray.init(address=args.address, logging_level="ERROR", log_to_driver=False)
    progress = Progress.remote()
    tasks = {run_shard.remote(args.nnfuzz, i, args.shards, fuzz_args, progress): i for i in range(args.shards)}
    pending, results, last = list(tasks), {}, 0.0
    while pending:
        done, pending = ray.wait(pending, timeout=1.0)
        for ref in done:
            results[tasks[ref]] = ray.get(ref)
        if time.time() - last >= 10 or not pending:
            last = time.time()
            for shard, line in sorted(ray.get(progress.snapshot.remote()).items()):
                print(f"[shard {shard}/{args.shards}] {line}", flush=True)

    shard_dirs, failed = [], []
    os.makedirs(os.path.join(args.out, "shards"), exist_ok=True)
    for shard in range(args.shards):
        status, tail, archive = results[shard]
        if status != 0:
            failed.append(shard)
            print(f"shard {shard}/{args.shards} exited with status {status}:\n{tail}", file=sys.stderr)
        if archive:
            with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
                tar.extractall(os.path.join(args.out, "shards"), filter="data")
            shard_dirs.append(os.path.join(args.out, "shards", f"shard{shard}"))
    if not shard_dirs:
        print("no shard produced a campaign", file=sys.stderr)
        return 1
    merged = subprocess.run([args.nnfuzz, "merge", "-o", args.out, *shard_dirs], text=True, capture_output=True)
    sys.stdout.write(merged.stdout)
    sys.stderr.write(merged.stderr)
    return merged.returncode or (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
