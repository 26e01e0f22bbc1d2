#!/usr/bin/env python3
"""mnn_caffe_worker.py - nnfuzz worker for MNN's Caffe converter, then MNN inference (CPU).

As mnn_worker.py (same modes, same runs: `session` sets the Session API against noopt's
Module API on the same .mnn file), but the converter reads the case's Caffe form
(`mnnconvert -f CAFFE --modelFile weights.caffemodel --prototxt deploy.prototxt`), which a
case folder holds when the campaign's config has "format": "caffe" (config/caffe.json). The
MNN module is loaded with the same input and output names (the Caffe blobs are named as the
ONNX graph's inputs and outputs). A case without deploy.prototxt is a worker_error.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from mnn_worker import Mnn  # noqa: E402


class MnnCaffe(Mnn):
    NAME = "mnn-caffe"
    MODES = {"opt": "convert -f CAFFE --optimizePrefer 2, precision normal",
             "noopt": "convert -f CAFFE --optimizePrefer 0, precision high",
             "session": "noopt's conversion run through the Session API (Interpreter.runSession), not the Module API"}

    def source_args(self, model_path):
        folder = os.path.dirname(model_path)
        prototxt = os.path.join(folder, "deploy.prototxt")
        if not os.path.exists(prototxt):
            raise common.HarnessError("the case has no deploy.prototxt (no Caffe form)")
        return ["-f", "CAFFE", "--modelFile", os.path.join(folder, "weights.caffemodel"), "--prototxt", prototxt]


if __name__ == "__main__":
    sys.exit(common.main(MnnCaffe))
