"""Per-model CPU time of NNSmith's ONNX generation, many models in one process.

Run with the Python of a venv that has nnsmith, torch, onnx (scripts/perf_nnsmith.sh does):
    python scripts/nnsmith_gen_time.py --nodes 5 --models 200 --seed 1

Each model goes through the steps `nnsmith.model_gen model.type=onnx` takes, with its
config defaults (method symbolic-cinit, max_elem_per_tensor 2^16, timeout 10 s):
  gen:         model_gen() (z3 insertion) + make_concrete()
  materialize: ONNXModel.from_gir (torch module) + refine_weights (value search, then
               torch.onnx.export to bytes + full ONNX check) + make_oracle (eager torch run)
Saving to disk is left out. Times are time.process_time (CPU of this process), so a
shared machine's load drops out; start-up and the one-off op-set probe are not counted.
"""

import argparse
import functools
import random
import statistics
import sys
import time

import torch
import torch.onnx

# torch >= 2.9 exports through dynamo by default (needs onnxscript); NNSmith was written
# against the TorchScript exporter, which torch still has behind dynamo=False.
torch.onnx.export = functools.partial(torch.onnx.export, dynamo=False)

from nnsmith.graph_gen import model_gen  # noqa: E402
from nnsmith.materialize import Model  # noqa: E402
from nnsmith.narrow_spec import auto_opset  # noqa: E402
from nnsmith.util import set_seed  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5, help="mgen.max_nodes")
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=5, help="models made before timing")
    args = ap.parse_args()

    torch.set_num_threads(1)
    model_type = Model.init("onnx", backend_target="cpu")
    model_type.add_seed_setter()
    opset = auto_opset(model_type, None)  # model_gen's op set without a backend
    set_seed(args.seed)
    rng = random.Random(args.seed)

    gen_s, mat_s, ops = [], [], []
    failed = 0
    for i in range(args.warmup + args.models):
        seed = rng.getrandbits(32)
        t0 = time.process_time()
        try:
            gen = model_gen(opset=opset, method="symbolic-cinit", seed=seed,
                            max_elem_per_tensor=65536, max_nodes=args.nodes, timeout_ms=10000)
            ir = gen.make_concrete()
            t1 = time.process_time()
            model = model_type.from_gir(ir)
            model.refine_weights()
            model.make_oracle()
            t2 = time.process_time()
        except Exception as e:  # noqa: BLE001 - counted and reported, as nnsmith.fuzz does
            failed += 1
            print(f"model {i} (seed {seed}) failed: {type(e).__name__}: {e}"[:200], file=sys.stderr)
            continue
        if i >= args.warmup:
            gen_s.append(t1 - t0)
            mat_s.append(t2 - t1)
            ops.append(ir.n_compute_inst())

    n = len(gen_s)
    if n == 0:
        print("no model made", file=sys.stderr)
        return 1
    g, m = sum(gen_s) / n * 1e3, sum(mat_s) / n * 1e3
    print(f"NNSmith max_nodes={args.nodes}: {n} models ({failed} failed), "
          f"{statistics.mean(ops):.1f} ops a model; CPU per model: gen {g:.2f} ms, "
          f"materialize {m:.2f} ms, total {g + m:.2f} ms "
          f"(median total {statistics.median(a + b for a, b in zip(gen_s, mat_s)) * 1e3:.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
