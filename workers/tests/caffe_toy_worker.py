#!/usr/bin/env python3
"""caffe_toy_worker.py - a backend that reads the Caffe form, for campaign tests.

Like a Caffe consumer (mnn-caffe, opencv-caffe), it needs the case's deploy.prototxt: a case
without one is a worker_error. Its "SUT" is onnx's ReferenceEvaluator on the same network's
ONNX twin. Mode `noopt` is correct; mode `opt` has two bugs: it runs every Caffe `AbsVal` layer
as identity (as MNN's converter drops `Log`), and a net holding both a `Dropout` and a
`Pooling` layer gets its first output back with an extra unit axis. A finding on such a net
shows as a wrong shape, which only sub-cases keeping both layers reproduce - and those have no
Caffe form (the unused mask and indices results become outputs): the reducer cannot shrink
it, while blame finds the AbsVal on a prefix.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402


class CaffeToy(common.Backend):
    NAME = "caffe-toy"
    MODES = {"noopt": "correct", "opt": "AbsVal runs as identity; with Dropout and Pooling, output 0 gains a unit axis"}

    def load(self):
        import onnx
        return onnx.__version__

    def prepare(self, model_path, model):
        from onnx.reference import ReferenceEvaluator
        prototxt = os.path.join(os.path.dirname(model_path), "deploy.prototxt")
        if not os.path.exists(prototxt):
            raise common.HarnessError("the case has no deploy.prototxt (no Caffe form)")
        with open(prototxt) as f:
            layers = re.findall(r'type: "(\w+)"', f.read())
        if self.mode == "opt" and "AbsVal" in layers:
            for node in model.graph.node:
                if node.op_type == "Abs":
                    node.op_type = "Identity"
        misshapes = self.mode == "opt" and "Dropout" in layers and "Pooling" in layers
        return ReferenceEvaluator(model), misshapes

    def run(self, prepared, feeds):
        evaluator, misshapes = prepared
        outputs = evaluator.run(None, dict(feeds))
        if misshapes:
            outputs[0] = outputs[0][..., None]
        return outputs


if __name__ == "__main__":
    sys.exit(common.main(CaffeToy))
