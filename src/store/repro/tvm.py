# --- nnfuzz repro: Apache TVM, Relax ONNX frontend (src/store/repro/tvm.py) --------------
# llvm target, one thread. Modes: opt = the target's default Relax pipeline (with FuseOps and
# FuseTIR), noopt = relax_pipeline "default" (legalise and memory planning, no fusion).
# Falls back to the older names (relax.build, tvm.nd.array) on TVM releases before tvm.compile.
import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx


def prepare(model_path, mode):
    if mode not in ("opt", "noopt"):
        raise KeyError(mode)
    mod = from_onnx(onnx.load(model_path), keep_params_in_input=False)
    mod = relax.transform.DecomposeOpsForInference()(mod)
    target = tvm.target.Target("llvm")
    pipeline = relax.get_default_pipeline(target) if mode == "opt" else "default"
    build = getattr(tvm, "compile", None) or relax.build
    with tvm.transform.PassContext(opt_level=3):
        executable = build(mod, target=target, relax_pipeline=pipeline)
    return relax.VirtualMachine(executable, tvm.cpu())


def run(vm, feeds):
    make = getattr(tvm.runtime, "tensor", None) or tvm.nd.array
    out = vm["main"](*[make(value) for value in feeds.values()])
    return _arrays(out, [])


def _arrays(value, out):
    # A tensor, a tuple of them, or a Relax shape (a tuple of ints: an int64 vector the
    # frontend computed at import time).
    if hasattr(value, "numpy"):
        out.append(value.numpy())
        return out
    items = list(value)
    if items and all(isinstance(item, int) for item in items):
        out.append(np.array(items, dtype=np.int64))
    else:
        for item in items:
            _arrays(item, out)
    return out
