#!/usr/bin/env python3
"""tvm_worker.py - nnfuzz worker for Apache TVM (Relax ONNX frontend, llvm target).

Relay is gone since TVM 0.20; the model goes through tvm.relax.frontend.onnx.from_onnx,
then tvm.compile for target "llvm" and runs on the Relax VirtualMachine. The two modes
differ only in the Relax pipeline: `opt` is relax.get_default_pipeline(llvm), the CPU
pipeline with FoldConstant + FuseOps + FuseTIR; `noopt` is tvm.compile's "default" build
pipeline, which legalises and plans memory but never fuses or folds. TVM_NUM_THREADS=1.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def _flatten(value, out):
    """VM results are a tensor, a shape or a (nested) tuple of them; returns numpy arrays.

    The frontend keeps an int64 vector it can compute at import time as a Relax shape, so the
    VM hands it back as a tuple of ints (tvm_ffi Shape): that is the 1-D int64 tensor's value.
    """
    if hasattr(value, "numpy"):
        out.append(value.numpy())
        return out
    items = list(value)
    if items and all(isinstance(item, int) for item in items):
        out.append(np.array(items, dtype=np.int64))
    else:
        for item in items:
            _flatten(item, out)
    return out


# Passes PassContext(disabled_pass=...) may switch off without breaking the build (the
# lowering passes are required), as TVM 0.27's pass instrument names them.
TIR_PASSES = ["tirx.VectorizeLoop", "s_tir.LoopPartition", "tirx.UnrollLoop", "tirx.CommonSubexprElim",
              "s_tir.HoistIfThenElse", "tirx.NarrowDataType", "tirx.RemoveNoOp", "tirx.StorageRewrite",
              "tirx.StmtSimplify", "s_tir.StmtSimplify"]
RELAX_PASSES = ["FoldConstant", "FuseOps", "FuseTIR", "CanonicalizeBindings", "DeadCodeElimination",
                "RewriteDataflowReshape", "RemoveUnusedParameters", "ExpandTupleArguments"]


class Tvm(common.Backend):
    NAME = "tvm"
    MODES = {"opt": "relax.get_default_pipeline(llvm): FoldConstant, FuseOps, FuseTIR",
             "noopt": "tvm.compile default pipeline: legalise only, no fusion"}
    PASSES = {"opt": RELAX_PASSES + TIR_PASSES, "noopt": TIR_PASSES}

    def load(self):
        import tvm
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx
        self.tvm, self.relax, self.from_onnx = tvm, relax, from_onnx
        self.target = tvm.target.Target("llvm")
        return tvm.__version__

    def prepare(self, model_path, model):
        tvm, relax = self.tvm, self.relax
        mod = self.from_onnx(model, keep_params_in_input=False)
        pipeline = relax.get_default_pipeline(self.target) if self.mode == "opt" else "default"
        with tvm.transform.PassContext(opt_level=3, disabled_pass=self.disabled):
            executable = tvm.compile(mod, target=self.target, relax_pipeline=pipeline)
        return relax.VirtualMachine(executable, tvm.cpu())

    def run(self, vm, feeds):
        args = [self.tvm.runtime.tensor(arr) for _, arr in feeds]
        return _flatten(vm["main"](*args), [])


if __name__ == "__main__":
    sys.exit(common.main(Tvm))
