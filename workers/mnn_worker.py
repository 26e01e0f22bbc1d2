#!/usr/bin/env python3
"""mnn_worker.py - nnfuzz worker for MNN (Alibaba's inference engine, CPU backend).

Prepare converts the ONNX model to MNN's format with the converter that ships in the MNN
wheel (the native `_tools.mnnconvert`, the stage "convert": a converter failure or crash is
an MCF with phase "convert") and loads it as an expression module; run feeds it. Modes:
`noopt` = converter optimisation preference 0 (normal) and precision "high" at run time;
`opt` = optimisation preference 2 (fastest) and precision "normal" (MNN's default). Both
convert with optimizeLevel 1 (MNN's default, documented as "correct for any input"), exact
Gelu (--useGeluApproximation 0) and weights kept as written (--alignDenormalizedValue 0):
the converter's documented defaults approximate Gelu and flush denormal weights to zero.

MNN computes int64 as int32, float64 as float32 and bool as int32 (its converter narrows
them); inputs are handed over in MNN's type and such outputs widened back to the declared
type, so values are still compared (an overflow shows as a wrong value; an "int32 bool" that
holds anything but 0 and 1 stays int32, a wrong dtype).

Never import MNN.tools (the Python wrappers of mnnconvert/mnnquant): it loads a usage logger
that pip-installs a logging SDK and sends telemetry to a remote service.
"""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class ConversionFailed(Exception):
    """mnnconvert returned failure (its reason is on stderr, kept with the finding)."""


class Mnn(common.Backend):
    NAME = "mnn"
    MODES = {"opt": "convert --optimizePrefer 2, precision normal",
             "noopt": "convert --optimizePrefer 0, precision high"}
    NARROWED = {np.dtype(np.int64): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.float32),
                np.dtype(np.bool_): np.dtype(np.int32)}

    def load(self):
        import _tools  # the converter (native), without MNN.tools' logger
        import MNN
        self.tools, self.mnn = _tools, MNN
        self.dir = tempfile.mkdtemp(prefix="nnfuzz-mnn-")
        return MNN.version()

    def prepare(self, model_path, model):
        import onnx
        path = os.path.join(self.dir, "model.mnn")
        if os.path.exists(path):
            os.remove(path)
        prefer = "2" if self.mode == "opt" else "0"
        with common.stage("convert"):
            ok = self.tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", model_path, "--MNNModel", path,
                                        "--bizCode", "nnfuzz", "--optimizeLevel", "1", "--optimizePrefer", prefer,
                                        "--useGeluApproximation", "0", "--alignDenormalizedValue", "0"])
            if not ok or not os.path.exists(path):
                raise ConversionFailed("mnnconvert failed to convert the model")
        precision = "normal" if self.mode == "opt" else "high"
        runtime = self.mnn.nn.create_runtime_manager(({"backend": "CPU", "precision": precision, "numThread": 1},))
        initializers = {t.name for t in model.graph.initializer}
        inputs = [i.name for i in model.graph.input if i.name not in initializers]
        outputs = [o.name for o in model.graph.output]
        module = self.mnn.nn.load_module_from_file(path, inputs, outputs, runtime_manager=runtime)
        declared = [onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type) for o in model.graph.output]
        return module, declared

    def run(self, prepared, feeds):
        module, declared = prepared
        expr = self.mnn.expr
        types = {np.dtype(np.float32): expr.float, np.dtype(np.int32): expr.int, np.dtype(np.int8): expr.int8,
                 np.dtype(np.uint8): expr.uint8}
        args = []
        for name, arr in feeds:
            arr = arr.astype(self.NARROWED.get(arr.dtype, arr.dtype))
            if arr.dtype not in types:
                raise TypeError(f"input {name}: MNN's Python API takes no {arr.dtype} tensors")
            args.append(expr.const(arr, list(arr.shape), expr.NCHW, types[arr.dtype]))
        results = []
        for var, want in zip(module.forward(args), declared):
            out = np.array(var.read())
            want = np.dtype(want)
            if self.NARROWED.get(want) == out.dtype and (want != np.bool_ or np.isin(out, (0, 1)).all()):
                out = out.astype(want)
            results.append(out)
        return results


if __name__ == "__main__":
    sys.exit(common.main(Mnn))
