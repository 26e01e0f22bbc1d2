#!/usr/bin/env python3
"""onnxsim_worker.py - nnfuzz worker for onnxsim (ONNX simplifier) as the SUT.

Mode `opt` is onnxsim.simplify with its defaults (constant folding, shape inference, its
onnxoptimizer-based passes) but without its own random-input check (check_n=0: nnfuzz
compares); the result runs on ONNX Runtime with optimisations disabled; `noopt` runs the
original model there. See graph_optimizer.py.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from graph_optimizer import GraphOptimizer  # noqa: E402


class SimplifierFailed(Exception):
    """onnxsim returned without a model."""


class OnnxSim(GraphOptimizer):
    NAME = "onnxsim"
    MODES = {"opt": "onnxsim.simplify (defaults, check_n=0), then ORT_DISABLE_ALL",
             "noopt": "the original model on ORT_DISABLE_ALL"}

    def load_optimizer(self):
        import onnxsim
        self.onnxsim = onnxsim
        return onnxsim.__version__.lstrip("v")

    def optimize(self, model):
        simplified, _ = self.onnxsim.simplify(model, check_n=0)
        if simplified is None:
            raise SimplifierFailed("onnxsim.simplify returned no model")
        return simplified


if __name__ == "__main__":
    sys.exit(common.main(OnnxSim))
