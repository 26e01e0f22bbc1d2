#!/usr/bin/env python3
"""opencv_caffe_worker.py - nnfuzz worker for OpenCV DNN's Caffe importer, CPU.

OpenCV 5 dropped the Caffe importer, so this worker runs OpenCV 4.12
(opencv-python-headless==4.12.0.88, installed by scripts/setup.sh with pip --target into
.venv/opencv4 so it does not replace OpenCV 5 in the shared virtualenv).

The case folder holds the network in both forms (nnfuzz gen --format both, or a campaign
whose config has "format": "caffe"): deploy.prototxt + weights.caffemodel next to
model.onnx, with the same input and output blob names. Modes:
  opt    readNetFromCaffe, DNN_BACKEND_OPENCV on DNN_TARGET_CPU, defaults (fusion, Winograd)
  noopt  readNetFromCaffe, enableFusion(False), enableWinograd(False)
  onnx   readNetFromONNX on the same network's model.onnx, defaults
so opt vs noopt isolates the Caffe net's layer fusions, and opt vs onnx compares OpenCV's
Caffe importer with its ONNX importer on one network. A case without deploy.prototxt (a
reducer's candidate that lost its Caffe form) is a worker_error, not a finding. OpenCV 4's Mat
has at least two dims, so a 1-D output that comes back as (n, 1) or (1, n) is flattened.
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

OPENCV4_DIR = os.path.join(sys.prefix, "opencv4")


class OpenCvCaffe(common.Backend):
    NAME = "opencv-caffe"
    MODES = {"opt": "readNetFromCaffe (OpenCV 4.12), OpenCV backend on CPU, defaults (fusion, Winograd)",
             "noopt": "readNetFromCaffe, enableFusion(False), enableWinograd(False)",
             "onnx": "readNetFromONNX (OpenCV 4.12) on the same network's model.onnx, defaults"}

    def load(self):
        if os.path.isdir(OPENCV4_DIR):
            sys.path.insert(0, OPENCV4_DIR)
        import cv2
        if not hasattr(cv2.dnn, "readNetFromCaffe"):
            raise ImportError(f"OpenCV {cv2.__version__} has no Caffe importer (install "
                              f"opencv-python-headless==4.12.0.88 into {OPENCV4_DIR})")
        self.cv2 = cv2
        cv2.setNumThreads(1)
        return cv2.__version__

    def prepare(self, model_path, model):
        cv2 = self.cv2
        folder = os.path.dirname(model_path)
        if self.mode == "onnx":
            net = cv2.dnn.readNetFromONNX(model_path)
        else:
            prototxt = os.path.join(folder, "deploy.prototxt")
            weights = os.path.join(folder, "weights.caffemodel")
            if not os.path.exists(prototxt):
                raise common.HarnessError("the case has no deploy.prototxt (no Caffe form)")
            net = cv2.dnn.readNetFromCaffe(prototxt, weights)
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
        if self.mode == "noopt":
            net.enableFusion(False)
            net.enableWinograd(False)
        layers = None
        if self.mode != "onnx":  # Net.forward takes layer names: caffe.json says which layer writes each output
            with open(os.path.join(folder, "caffe.json")) as f:
                layers = json.load(f)["output_layers"]
        ranks = [len(o.type.tensor_type.shape.dim) for o in model.graph.output]
        return net, [o.name for o in model.graph.output], layers, ranks

    def run(self, prepared, feeds):
        net, names, layers, ranks = prepared
        return [self.one_d(out, rank) for out, rank in zip(self.forward(net, names, layers, feeds), ranks)]

    @staticmethod
    def one_d(out, rank):
        """OpenCV 4's Mat has at least two dims: a 1-D result comes back as (n, 1) or (1, n)."""
        return out.reshape(-1) if rank == 1 and out.ndim == 2 and 1 in out.shape else out

    def forward(self, net, names, layers, feeds):
        for name, arr in feeds:
            net.setInput(self.cv2.Mat(np.ascontiguousarray(arr), wrap_channels=False), name)
        if layers is None:
            return [np.asarray(out) for out in net.forward(names)]
        unique = list(dict.fromkeys(layer for layer, _ in layers))
        tops = dict(zip(unique, net.forwardAndRetrieve(unique)))
        return [np.asarray(tops[layer][top]) for layer, top in layers]


if __name__ == "__main__":
    sys.exit(common.main(OpenCvCaffe))
