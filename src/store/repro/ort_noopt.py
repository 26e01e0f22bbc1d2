# --- nnfuzz repro: an ONNX graph optimizer as the SUT (src/store/repro/ort_noopt.py) ------
# Mode noopt runs the original model, mode opt the optimised one (the step "optimize": the
# optimizer, then ONNX's checker on its output), both on ONNX Runtime with every optimisation
# disabled, one thread - so what differs is the optimizer's rewrite.
import onnxruntime as ort


class InvalidModel(Exception):
    pass


def prepare(model_path, mode):
    model = onnx.load(model_path)
    if mode != "noopt":
        stage("optimize")
        model = optimize(model)
        try:
            onnx.checker.check_model(model, full_check=True)
        except onnx.checker.ValidationError as exc:
            raise InvalidModel("the optimised model fails the ONNX checker: %s" % exc) from None
        stage("prepare")
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return session, [o.name for o in model.graph.output]


def run(prepared, feeds):
    session, outputs = prepared
    return session.run(outputs, feeds)
