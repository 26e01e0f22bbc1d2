# --- nnfuzz repro: ONNX Runtime (src/store/repro/onnxruntime.py) -------------------------
# Modes: opt = ORT_ENABLE_ALL, noopt = ORT_DISABLE_ALL; CPU provider, one thread, no spinning.
import onnxruntime as ort

MODES = {
    "opt": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    "noopt": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
}


def prepare(model_path, mode):
    so = ort.SessionOptions()
    so.graph_optimization_level = MODES[mode]
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])


def run(session, feeds):
    return session.run(None, feeds)
