#!/usr/bin/env python3
"""opencv_worker.py - nnfuzz worker for OpenCV DNN (opencv-python-headless), CPU.

cv2.dnn.readNetFromONNX, DNN_BACKEND_OPENCV on DNN_TARGET_CPU, one thread. Modes:
`opt` = the default engine (ENGINE_AUTO: OpenCV 5's new engine, falling back to the classic
one for a model it cannot take) with its defaults; `classic` = ENGINE_CLASSIC (the 4.x engine)
with its defaults (layer fusion and Winograd convolution on); `noopt` = ENGINE_CLASSIC with
enableFusion(False) and enableWinograd(False). So classic vs noopt isolates the classic
engine's fusions, opt vs noopt compares the new engine with the plain classic one. (The new
engine cannot serve as `noopt`: in 5.0.0 enableFusion(False) on it makes the net forget its
inputs - setInput then fails with "Requested blob ... not found" on every model.)

Inputs go in as cv2.Mat(wrap_channels=False): a plain 3-D numpy array would be taken as an
H x W x C image and come out as the wrong tensor. The classic engine computes int64
tensors as int32 (its ONNX importer converts int64 constants and inputs to int32) and hands
int32 back for an int64 output; such an output is widened back to the declared int64, so the
values are still compared exactly (any overflow shows as a wrong value).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class OpenCvDnn(common.Backend):
    NAME = "opencv"
    MODES = {"opt": "ENGINE_AUTO (the new engine, classic as fallback), defaults",
             "classic": "ENGINE_CLASSIC (the 4.x engine), fusion and Winograd on (defaults)",
             "noopt": "ENGINE_CLASSIC, enableFusion(False), enableWinograd(False)"}

    def load(self):
        import cv2
        self.cv2 = cv2
        cv2.setNumThreads(1)
        return cv2.__version__

    def prepare(self, model_path, model):
        cv2 = self.cv2
        engine = cv2.dnn.ENGINE_AUTO if self.mode == "opt" else cv2.dnn.ENGINE_CLASSIC
        net = cv2.dnn.readNetFromONNX(model_path, engine)
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
        if self.mode == "noopt":
            net.enableFusion(False)
            net.enableWinograd(False)
        import onnx
        declared = [onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type) for o in model.graph.output]
        return net, [o.name for o in model.graph.output], declared

    def run(self, prepared, feeds):
        net, names, declared = prepared
        for name, arr in feeds:
            net.setInput(self.cv2.Mat(arr, wrap_channels=False), name)
        outputs = net.forward(names)
        result = []
        for out, want in zip(outputs, declared):
            out = np.asarray(out)
            if self.mode != "opt" and want == np.int64 and out.dtype == np.int32:
                out = out.astype(np.int64)
            result.append(out)
        return result


if __name__ == "__main__":
    sys.exit(common.main(OpenCvDnn))
