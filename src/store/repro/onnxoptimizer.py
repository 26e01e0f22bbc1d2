# onnxoptimizer (src/store/repro/onnxoptimizer.py): mode opt applies every fuse and eliminate
# pass it offers, to a fixed point.
import onnxoptimizer


def optimize(model):
    return onnxoptimizer.optimize(model, onnxoptimizer.get_fuse_and_elimination_passes(), fixed_point=True)
