# --- nnfuzz repro: LiteRT via onnx2tf (src/store/repro/litert.py) ----------------------------
# Converts with onnx2tf (the step "convert"; TensorFlow, so run this with the Python that has
# onnx2tf and ai-edge-litert, e.g. nnfuzz's .venv-litert/bin/python), every runtime input kept
# as the ONNX graph declares it, to a float32 .tflite; then runs it with LiteRT's Interpreter,
# one thread, through its signature runner by the ONNX names. Modes pick the op resolver:
# noopt = BUILTIN_WITHOUT_DEFAULT_DELEGATES, ref = BUILTIN_REF, opt = BUILTIN (with XNNPACK).
# Outputs onnx2tf hands back channel-last (its onnx_output_layouts, or shaped exactly as the
# channel-last form of the ONNX shape) are transposed back to channel-first, as nnfuzz's worker does (workers/litert_worker.py). onnx2tf would download
# sample images for 4-D three-channel inputs; a seeded noise file in its working folder
# stands in for them.
import contextlib

SAMPLE_FILE = "calibration_image_sample_data_20x128x128x3_float32.npy"


def prepare(model_path, mode):
    work = tempfile.mkdtemp(prefix="nnfuzz-repro-litert-")
    np.save(os.path.join(work, SAMPLE_FILE), np.random.default_rng(0).random((20, 128, 128, 3), dtype=np.float32))
    model = onnx.load(model_path)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    outputs = [o.name for o in model.graph.output]
    private = os.path.join(work, "model.onnx")  # onnx2tf rewrites its input file in place
    with open(model_path, "rb") as src, open(private, "wb") as dst:
        dst.write(src.read())
    # onnx2tf runs the onnxsim command on PATH (as in an activated venv); this Python's, if it has one
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    stage("convert")
    os.chdir(work)
    import onnx2tf
    with contextlib.redirect_stdout(sys.stderr):
        try:
            keras_model = onnx2tf.convert(input_onnx_file_path=private, output_folder_path=work,
                                          keep_shape_absolutely_input_names=inputs or None, non_verbose=True)
        except SystemExit as exc:  # onnx2tf prints what failed, then exits
            raise RuntimeError("onnx2tf exited with status %s" % exc.code)
    tflite = os.path.join(work, "model_float32.tflite")
    if not os.path.exists(tflite):
        raise RuntimeError("onnx2tf wrote no float32 .tflite")
    layouts = keras_model.onnx_output_layouts
    signature = list(keras_model.output_names)
    if len(signature) != len(outputs):
        raise RuntimeError("the converted model has %d outputs, the ONNX graph %d" % (len(signature), len(outputs)))
    stage("prepare")
    from ai_edge_litert import interpreter as litert
    resolver = {"noopt": "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "ref": "BUILTIN_REF", "opt": "BUILTIN"}[mode]
    it = litert.Interpreter(model_path=tflite, num_threads=1,
                            experimental_op_resolver_type=getattr(litert.OpResolverType, resolver))
    it.allocate_tensors()
    declared = [[d.dim_value if d.HasField("dim_value") else None for d in o.type.tensor_type.shape.dim]
                for o in model.graph.output]
    plan = [(sig, bool(layouts.get(name, layouts.get(name.replace(":", "__"), False))), shape)
            for name, sig, shape in zip(outputs, signature, declared)]
    return it, it.get_signature_runner(), plan


def run(prepared, feeds):
    _, runner, plan = prepared
    results = runner(**{name.replace(":", "__"): value for name, value in feeds.items()})
    values = []
    for key, channel_last, declared in plan:
        value = results[key]
        rank = value.ndim
        # onnx2tf's record misses some channel-last outputs: the exact channel-last form of the ONNX shape is one
        missed = (rank >= 3 and None not in declared and list(value.shape) != declared
                  and list(value.shape) == [declared[0]] + declared[2:] + [declared[1]])
        values.append(value.transpose([0, rank - 1] + list(range(1, rank - 1))) if (channel_last or missed) and rank >= 3
                      else value)
    return values
