# onnxsim (src/store/repro/onnxsim.py): mode opt is onnxsim.simplify with its defaults, without
# its own random-input check.
import onnxsim


def optimize(model):
    simplified, _ = onnxsim.simplify(model, check_n=0)
    if simplified is None:
        raise RuntimeError("onnxsim.simplify returned no model")
    return simplified
