# --- nnfuzz repro: OpenVINO (src/store/repro/openvino.py) --------------------------------
# CPU plugin, f32 inference precision in accuracy mode (no silent bf16/f16 on CPUs that have
# it), one thread, one stream. Modes: opt = defaults (the snippets subgraph fuser on),
# noopt = SNIPPETS_MODE DISABLE.
import openvino as ov

BASE = {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY",
        "INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1}
MODES = {"opt": {}, "noopt": {"SNIPPETS_MODE": "DISABLE"}}


def prepare(model_path, mode):
    core = ov.Core()
    model = core.read_model(model_path)
    return core.compile_model(model, "CPU", dict(BASE, **MODES[mode]))


def run(compiled, feeds):
    request = compiled.create_infer_request()
    request.infer({name: value for name, value in feeds.items()})
    return [request.get_output_tensor(k).data.copy() for k in range(len(compiled.outputs))]
