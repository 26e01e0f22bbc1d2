# --- nnfuzz repro: MNN (src/store/repro/mnn.py) -------------------------------------------
# Converts with the converter inside the MNN wheel (native _tools.mnnconvert: the step
# "convert"), then runs the module on the CPU backend, one thread. Modes: noopt = converter
# --optimizePrefer 0 and precision "high"; opt = --optimizePrefer 2 and precision "normal";
# session = noopt's conversion run through the Session API (Interpreter.runSession) instead of
# the Module API; all exact Gelu and denormal weights kept. MNN narrows int64/float64/bool to int32/float32/
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
    config = {"backend": "CPU", "precision": "normal" if mode == "opt" else "high", "numThread": 1}
    printed, failure = [], None
    with native_output(printed):
        try:
            if mode == "session":
                interpreter = MNN.Interpreter(out)
                runner = (interpreter, interpreter.createSession(config), outputs)
            else:
                runtime = MNN.nn.create_runtime_manager((config,))
                runner = MNN.nn.load_module_from_file(out, inputs, outputs, runtime_manager=runtime)
        except Exception as exc:
            failure = exc
    if failure is not None:
        call = "createSession" if mode == "session" else "load_module_from_file"
        raise RuntimeError("%s failed (%s): %s" % (call, failure, said(printed)))
    declared = [np.dtype(onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type)) for o in model.graph.output]
    return runner, declared


def run_module(module, feeds):
    expr = MNN.expr
    types = {np.dtype(np.float32): expr.float, np.dtype(np.int32): expr.int, np.dtype(np.int8): expr.int8,
             np.dtype(np.uint8): expr.uint8}
    args = [expr.const(value, list(value.shape), expr.NCHW, types.get(value.dtype, expr.float)) for value in feeds.values()]
    return [np.array(var.read()) for var in module.forward(args)]


def run_session(runner, feeds):
    """Inputs resized and copied in from NCHW host tensors, runSession, outputs copied out."""
    interpreter, session, outputs = runner
    halide = [(MNN.Halide_Type_Float, np.float32), (MNN.Halide_Type_Int, np.int32), (MNN.Halide_Type_Uint8, np.uint8),
              (MNN.Halide_Type_Int64, np.int64), (MNN.Halide_Type_Double, np.float64)]
    numpy_of = lambda kind: next(dtype for h, dtype in halide if kind == h)  # noqa: E731
    for name, value in feeds.items():
        interpreter.resizeTensor(interpreter.getSessionInput(session, name), tuple(value.shape))
    interpreter.resizeSession(session)
    for name, value in feeds.items():
        tensor = interpreter.getSessionInput(session, name)
        data = np.ascontiguousarray(value.astype(numpy_of(tensor.getDataType())))
        tensor.copyFrom(MNN.Tensor(tuple(value.shape), tensor.getDataType(), data, MNN.Tensor_DimensionType_Caffe))
    code = interpreter.runSession(session)
    if code != 0:
        raise RuntimeError("runSession returned error code %d" % code)
    values = []
    for name in outputs:
        tensor = interpreter.getSessionOutput(session, name)
        shape = tuple(tensor.getShape())
        host = MNN.Tensor(shape, tensor.getDataType(), np.zeros(shape, numpy_of(tensor.getDataType())),
                          MNN.Tensor_DimensionType_Caffe)
        tensor.copyToHostTensor(host)
        values.append(np.array(host.getNumpyData()).reshape(shape))
    return values


def run(prepared, feeds):
    runner, declared = prepared
    feeds = {name: value.astype(NARROWED.get(value.dtype, value.dtype)) for name, value in feeds.items()}
    printed, failure, values = [], None, []
    with native_output(printed):
        try:
            session_api = isinstance(runner, tuple)  # prepare's (interpreter, session, outputs)
            values = (run_session if session_api else run_module)(runner, feeds)
        except Exception as exc:
            failure = exc
    if failure is not None:
        raise RuntimeError("%s: %s" % (failure, said(printed)))
    if len(values) != len(declared):
        raise RuntimeError("forward returned %d of %d outputs: %s" % (len(values), len(declared), said(printed)))
    return [out.astype(want) if NARROWED.get(want) == out.dtype and (want != np.bool_ or np.isin(out, (0, 1)).all())
            else out for out, want in zip(values, declared)]
