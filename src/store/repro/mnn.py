# --- nnfuzz repro: MNN (src/store/repro/mnn.py) -------------------------------------------
# Converts with the converter inside the MNN wheel (native _tools.mnnconvert: the step
# "convert"), then runs the module on the CPU backend, one thread. Modes: noopt = converter
# --optimizePrefer 0 and precision "high"; opt = --optimizePrefer 2 and precision "normal";
# both exact Gelu and denormal weights kept. MNN narrows int64/float64/bool to int32/float32/
# int32; results are widened back to the declared type as nnfuzz's worker does.
# (MNN.tools is never imported: its Python wrappers load a telemetry logger.)
import _tools
import MNN

NARROWED = {np.dtype(np.int64): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.float32),
            np.dtype(np.bool_): np.dtype(np.int32)}


def prepare(model_path, mode):
    out = os.path.join(tempfile.mkdtemp(prefix="nnfuzz-repro-mnn-"), "model.mnn")
    stage("convert")
    ok = _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", model_path, "--MNNModel", out,
                            "--bizCode", "nnfuzz", "--optimizeLevel", "1",
                            "--optimizePrefer", "2" if mode == "opt" else "0",
                            "--useGeluApproximation", "0", "--alignDenormalizedValue", "0"])
    if not ok or not os.path.exists(out):
        raise RuntimeError("mnnconvert failed to convert the model")
    stage("prepare")
    model = onnx.load(model_path)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    outputs = [o.name for o in model.graph.output]
    runtime = MNN.nn.create_runtime_manager(
        ({"backend": "CPU", "precision": "normal" if mode == "opt" else "high", "numThread": 1},))
    declared = [np.dtype(onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type)) for o in model.graph.output]
    return MNN.nn.load_module_from_file(out, inputs, outputs, runtime_manager=runtime), declared


def run(prepared, feeds):
    module, declared = prepared
    expr = MNN.expr
    types = {np.dtype(np.float32): expr.float, np.dtype(np.int32): expr.int, np.dtype(np.int8): expr.int8,
             np.dtype(np.uint8): expr.uint8}
    args = []
    for value in feeds.values():
        value = value.astype(NARROWED.get(value.dtype, value.dtype))
        args.append(expr.const(value, list(value.shape), expr.NCHW, types[value.dtype]))
    results = []
    for var, want in zip(module.forward(args), declared):
        out = np.array(var.read())
        if NARROWED.get(want) == out.dtype and (want != np.bool_ or np.isin(out, (0, 1)).all()):
            out = out.astype(want)
        results.append(out)
    return results
