#!/usr/bin/env python3
"""mnn_worker.py - nnfuzz worker for MNN (Alibaba's inference engine, CPU backend).

Prepare converts the ONNX model to MNN's format with the converter that ships in the MNN
wheel (the native `_tools.mnnconvert`, the stage "convert": a converter failure or crash is
an MCF with phase "convert") and loads it as an expression module (the Module API); run
feeds it. Modes: `noopt` = converter optimisation preference 0 (normal) and precision "high"
at run time; `opt` = optimisation preference 2 (fastest) and precision "normal" (MNN's
default); `session` = noopt's conversion run through MNN's other API, the Session API
(Interpreter.createSession / runSession, inputs and outputs copied as NCHW host tensors), so
"session vs noopt" sets MNN's two runtimes against each other on the same .mnn file. All
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

import contextlib
import os
import sys
import tempfile
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class ConversionFailed(Exception):
    """mnnconvert returned failure; the message ends with what it printed about it."""


class MnnError(RuntimeError):
    """MNN failed without raising (an empty result, an unreadable output); the message ends
    with what MNN printed about it."""


@contextlib.contextmanager
def native_output(lines):
    """MNN reports its errors by printing them (on fd 1), not in its exceptions. While inside,
    fd 1 goes through a pipe whose reader copies everything to stderr at once (kept if the
    process then dies) and appends the lines to `lines`, to go into the error message."""
    read_fd, write_fd = os.pipe()
    saved = os.dup(1)

    def pump():
        with os.fdopen(read_fd, "rb") as pipe:
            for raw in pipe:
                os.write(2, raw)
                lines.append(raw.decode("utf-8", "replace").strip())

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    sys.stdout.flush()
    os.dup2(write_fd, 1)
    os.close(write_fd)
    try:
        yield lines
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)  # closes the pipe's last write end: the reader sees end of file
        os.close(saved)
        reader.join(timeout=10)


def said(lines, skip=("Start to", "ONNX Model", "inputTensors", "outputTensors", "The device supports")):
    """The lines MNN printed that say what went wrong, joined: progress chatter left out."""
    kept = [line for line in lines if line and not any(word in line for word in skip)]
    return " | ".join(kept[-6:]) if kept else "(MNN printed nothing)"


class Mnn(common.Backend):
    NAME = "mnn"
    MODES = {"opt": "convert --optimizePrefer 2, precision normal",
             "noopt": "convert --optimizePrefer 0, precision high",
             "session": "noopt's conversion run through the Session API (Interpreter.runSession), not the Module API"}
    NARROWED = {np.dtype(np.int64): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.float32),
                np.dtype(np.bool_): np.dtype(np.int32)}

    def load(self):
        import _tools  # the converter (native), without MNN.tools' logger
        import MNN
        self.tools, self.mnn = _tools, MNN
        self.dir = tempfile.mkdtemp(prefix="nnfuzz-mnn-")
        # The Session API's element types as numpy's (its tensors carry a Halide type).
        self.halide = [(MNN.Halide_Type_Float, np.dtype(np.float32)), (MNN.Halide_Type_Int, np.dtype(np.int32)),
                       (MNN.Halide_Type_Uint8, np.dtype(np.uint8)), (MNN.Halide_Type_Int64, np.dtype(np.int64)),
                       (MNN.Halide_Type_Double, np.dtype(np.float64))]
        return MNN.version()

    def source_args(self, model_path):
        """The converter's source format and files (mnn_caffe_worker.py converts the Caffe form)."""
        return ["-f", "ONNX", "--modelFile", model_path]

    def prepare(self, model_path, model):
        import onnx
        path = os.path.join(self.dir, "model.mnn")
        if os.path.exists(path):
            os.remove(path)
        prefer = "2" if self.mode == "opt" else "0"
        printed = []
        with common.stage("convert"), native_output(printed):
            ok = self.tools.mnnconvert(["mnnconvert", *self.source_args(model_path), "--MNNModel", path,
                                        "--bizCode", "nnfuzz", "--optimizeLevel", "1", "--optimizePrefer", prefer,
                                        "--useGeluApproximation", "0", "--alignDenormalizedValue", "0"])
        if not ok or not os.path.exists(path):
            error = ConversionFailed(f"mnnconvert failed to convert the model: {said(printed)}")
            error.nnfuzz_stage = "convert"
            raise error
        initializers = {t.name for t in model.graph.initializer}
        inputs = [i.name for i in model.graph.input if i.name not in initializers]
        outputs = [o.name for o in model.graph.output]
        declared = [onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type) for o in model.graph.output]
        precision = "normal" if self.mode == "opt" else "high"
        printed, failure = [], None
        with native_output(printed):
            try:
                if self.mode == "session":
                    interpreter = self.mnn.Interpreter(path)
                    session = interpreter.createSession({"backend": "CPU", "precision": precision, "numThread": 1})
                    kinds = [interpreter.getSessionInput(session, name).getDataType() for name in inputs]
                    runner = (interpreter, session, inputs, outputs)
                else:
                    runtime = self.mnn.nn.create_runtime_manager(
                        ({"backend": "CPU", "precision": precision, "numThread": 1},))
                    runner = self.mnn.nn.load_module_from_file(path, inputs, outputs, runtime_manager=runtime)
            except Exception as exc:
                failure = exc
        if failure is not None:  # raised after the pipe is drained, so the message has it all
            call = "createSession" if self.mode == "session" else "load_module_from_file"
            raise MnnError(f"{call} failed ({failure}): {said(printed)}")
        if self.mode == "session" and None in map(self.numpy_of, kinds):  # as the Module API's const says it
            raise MnnError("an input's element type: MNN's Python Tensor does not support this dtype (Session API)")
        return runner, declared

    def run(self, prepared, feeds):
        runner, declared = prepared
        feeds = [(name, arr.astype(self.NARROWED.get(arr.dtype, arr.dtype))) for name, arr in feeds]
        forward = self.run_session if self.mode == "session" else self.run_module
        printed, failure, values = [], None, []
        with native_output(printed):
            try:
                values = forward(runner, feeds)
            except Exception as exc:
                failure = exc
        if failure is not None:  # raised after the pipe is drained, so the message has it all
            raise MnnError(f"{failure}: {said(printed)}")
        results = []
        if len(values) != len(declared):  # how the module API says forward failed
            raise MnnError(f"forward returned {len(values)} of {len(declared)} outputs: {said(printed)}")
        for out, want in zip(values, declared):
            want = np.dtype(want)
            if self.NARROWED.get(want) == out.dtype and (want != np.bool_ or np.isin(out, (0, 1)).all()):
                out = out.astype(want)
            results.append(out)
        return results

    def run_module(self, module, feeds):
        """The Module API: `forward` on NCHW constants."""
        expr = self.mnn.expr
        types = {np.dtype(np.float32): expr.float, np.dtype(np.int32): expr.int, np.dtype(np.int8): expr.int8,
                 np.dtype(np.uint8): expr.uint8}
        args = [expr.const(arr, list(arr.shape), expr.NCHW, types.get(arr.dtype, expr.float)) for _, arr in feeds]
        return [np.array(var.read()) for var in module.forward(args)]

    def run_session(self, runner, feeds):
        """The Session API: inputs resized to the feeds' shapes and copied in from NCHW ("Caffe")
        host tensors, runSession, outputs copied out the same way."""
        interpreter, session, inputs, outputs = runner
        for name, arr in feeds:
            interpreter.resizeTensor(interpreter.getSessionInput(session, name), tuple(arr.shape))
        interpreter.resizeSession(session)
        for name, arr in feeds:
            tensor = interpreter.getSessionInput(session, name)
            data = np.ascontiguousarray(arr.astype(self.numpy_of(tensor.getDataType())))
            tensor.copyFrom(self.mnn.Tensor(tuple(arr.shape), tensor.getDataType(), data,
                                            self.mnn.Tensor_DimensionType_Caffe))
        code = interpreter.runSession(session)
        if code != 0:
            raise MnnError(f"runSession returned error code {code}")
        values = []
        for name in outputs:
            tensor = interpreter.getSessionOutput(session, name)
            shape, kind = tuple(tensor.getShape()), self.numpy_of(tensor.getDataType())
            if kind is None:
                raise MnnError(f"output {name}: MNN's Python Tensor does not support this dtype (Session API)")
            host = self.mnn.Tensor(shape, tensor.getDataType(), np.zeros(shape, kind), self.mnn.Tensor_DimensionType_Caffe)
            tensor.copyToHostTensor(host)
            values.append(np.array(host.getNumpyData()).reshape(shape))
        return values

    def numpy_of(self, kind):
        """The numpy twin of a Session API tensor's element type (a Halide type), or None."""
        return next((dtype for halide, dtype in self.halide if kind == halide), None)


if __name__ == "__main__":
    sys.exit(common.main(Mnn))
