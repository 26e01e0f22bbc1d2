# --- nnfuzz repro: MNN (src/store/repro/mnn.py) -------------------------------------------
# Converts with the converter inside the MNN wheel (native _tools.mnnconvert: the step
# "convert"), then runs the module on the CPU backend, one thread. Modes: noopt = converter
# --optimizePrefer 0 and precision "high"; opt = --optimizePrefer 2 and precision "normal";
# both exact Gelu and denormal weights kept. MNN narrows int64/float64/bool to int32/float32/
# int32; results are widened back to the declared type as nnfuzz's worker does. MNN prints its
# errors instead of raising them: they are caught from fd 1 into the error message, as nnfuzz's
# worker does (workers/mnn_worker.py), so the message compares equal.
# (MNN.tools is never imported: its Python wrappers load a telemetry logger.)
import contextlib
import threading

import _tools
import MNN

NARROWED = {np.dtype(np.int64): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.float32),
            np.dtype(np.bool_): np.dtype(np.int32)}


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


def prepare(model_path, mode):
    out = os.path.join(tempfile.mkdtemp(prefix="nnfuzz-repro-mnn-"), "model.mnn")
    stage("convert")
    printed = []
    with native_output(printed):
        ok = _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", model_path, "--MNNModel", out,
                                "--bizCode", "nnfuzz", "--optimizeLevel", "1",
                                "--optimizePrefer", "2" if mode == "opt" else "0",
                                "--useGeluApproximation", "0", "--alignDenormalizedValue", "0"])
    if not ok or not os.path.exists(out):
        raise RuntimeError("mnnconvert failed to convert the model: %s" % said(printed))
    stage("prepare")
    model = onnx.load(model_path)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    outputs = [o.name for o in model.graph.output]
    runtime = MNN.nn.create_runtime_manager(
        ({"backend": "CPU", "precision": "normal" if mode == "opt" else "high", "numThread": 1},))
    printed, failure = [], None
    with native_output(printed):
        try:
            module = MNN.nn.load_module_from_file(out, inputs, outputs, runtime_manager=runtime)
        except Exception as exc:
            failure = exc
    if failure is not None:
        raise RuntimeError("load_module_from_file failed (%s): %s" % (failure, said(printed)))
    declared = [np.dtype(onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type)) for o in model.graph.output]
    return module, declared


def run(prepared, feeds):
    module, declared = prepared
    expr = MNN.expr
    types = {np.dtype(np.float32): expr.float, np.dtype(np.int32): expr.int, np.dtype(np.int8): expr.int8,
             np.dtype(np.uint8): expr.uint8}
    printed, failure, values = [], None, []
    with native_output(printed):
        try:
            args = []
            for value in feeds.values():
                value = value.astype(NARROWED.get(value.dtype, value.dtype))
                args.append(expr.const(value, list(value.shape), expr.NCHW, types.get(value.dtype, expr.float)))
            values = [np.array(var.read()) for var in module.forward(args)]
        except Exception as exc:
            failure = exc
    if failure is not None:
        raise RuntimeError("%s: %s" % (failure, said(printed)))
    if len(values) != len(declared):
        raise RuntimeError("forward returned %d of %d outputs: %s" % (len(values), len(declared), said(printed)))
    return [out.astype(want) if NARROWED.get(want) == out.dtype and (want != np.bool_ or np.isin(out, (0, 1)).all())
            else out for out, want in zip(values, declared)]
