#!/usr/bin/env python3
"""onnxoptimizer_worker.py - nnfuzz worker for onnxoptimizer (ONNX graph optimizer) as the SUT.

Mode `opt` applies every fuse and eliminate pass onnxoptimizer offers
(get_fuse_and_elimination_passes(), run to a fixed point) and runs the result on ONNX Runtime
with optimisations disabled; `noopt` runs the original model there. See graph_optimizer.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from graph_optimizer import GraphOptimizer  # noqa: E402


class OnnxOptimizer(GraphOptimizer):
    NAME = "onnxoptimizer"
    MODES = {"opt": "all fuse/eliminate passes to a fixed point, then ORT_DISABLE_ALL",
             "noopt": "the original model on ORT_DISABLE_ALL"}

    def load_optimizer(self):
        import onnxoptimizer
        self.onnxoptimizer = onnxoptimizer
        self.passes = onnxoptimizer.get_fuse_and_elimination_passes()
        return onnxoptimizer.__version__

    def optimize(self, model):
        return self.onnxoptimizer.optimize(model, self.passes, fixed_point=True)


if __name__ == "__main__":
    sys.exit(common.main(OnnxOptimizer))
