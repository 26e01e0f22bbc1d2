#!/usr/bin/env python3
"""buggy_worker.py - a backend with a known wrong answer, for campaign tests.

Its "SUT" is onnx's ReferenceEvaluator. Mode `noopt` is correct; mode `opt` adds 1 to every
float output, so each test yields a wrong-result finding (DCF) against the reference and
against `noopt`: a campaign against it records bugs at a steady rate.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402


class Buggy(common.Backend):
    NAME = "buggy"
    MODES = {"noopt": "correct", "opt": "adds 1 to every float output"}

    def load(self):
        import onnx
        return onnx.__version__

    def prepare(self, model_path, model):
        from onnx.reference import ReferenceEvaluator
        return ReferenceEvaluator(model)

    def run(self, evaluator, feeds):
        outputs = evaluator.run(None, dict(feeds))
        if self.mode == "opt":
            outputs = [o + np.ones((), o.dtype) if np.asarray(o).dtype.kind == "f" else o for o in outputs]
        return outputs


if __name__ == "__main__":
    sys.exit(common.main(Buggy))
