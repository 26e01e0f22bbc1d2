#!/usr/bin/env python3
"""openvino_worker.py - nnfuzz worker for OpenVINO (CPU plugin).

Both modes pin f32 inference precision and the ACCURACY execution mode: on CPUs with
avx512_bf16/AMX the plugin otherwise computes in bf16 and every float result would differ
from the reference. `opt` is the plugin as shipped; `noopt` sets SNIPPETS_MODE=DISABLE,
which turns off the CPU plugin's JIT subgraph fuser ("snippets": chains of eltwise ops
compiled into one kernel) - the runtime graph then shows separate Eltwise nodes where `opt`
shows one Subgraph node. One inference thread, one stream, no model cache.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class OpenVino(common.Backend):
    NAME = "openvino"
    MODES = {"opt": "CPU, f32, ACCURACY, snippets on (default)",
             "noopt": "CPU, f32, ACCURACY, SNIPPETS_MODE=DISABLE"}

    def load(self):
        # `import openvino` also imports its converter (openvino.tools.ovc), which sends a telemetry
        # event from a thread and a forked process unless the user opted out; the worker reads
        # ONNX through Core.read_model and needs neither. openvino/__init__.py tolerates its absence.
        sys.modules.setdefault("openvino.tools.ovc", None)
        import openvino as ov
        self.ov = ov
        self.core = ov.Core()
        return ov.get_version().split("-")[0]

    def prepare(self, model_path, model):
        config = {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY",
                  "INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
                  "ENABLE_CPU_PINNING": False}
        if self.mode == "noopt":
            config["SNIPPETS_MODE"] = "DISABLE"
        ov_model = self.core.read_model(model_path)
        return self.core.compile_model(ov_model, "CPU", config)

    def run(self, compiled, feeds):
        request = compiled.create_infer_request()
        # By position: OpenVINO keeps the ONNX graph's input and output order.
        result = request.infer([arr for _, arr in feeds])
        return [result[out] for out in compiled.outputs]


if __name__ == "__main__":
    sys.exit(common.main(OpenVino))
