#!/usr/bin/env python3
"""pytorch_worker.py - nnfuzz worker for the PyTorch 2 compiler, the model brought over by
onnx2torch.

Prepare converts the ONNX model to a torch.fx GraphModule with onnx2torch (the stage
"convert": a converter failure is onnx2torch's bug, an MCF with phase "convert", never the
compiler's). Modes: `noopt` runs the module eagerly; `opt` runs torch.compile(backend="inductor",
dynamic=False) of it, which compiles lazily at the first call, so a compiler failure shows in
run with its own type (BackendCompilerFailed, ...). One thread; Inductor's cache in a fresh
folder per worker (nothing carried over from earlier campaigns). Inductor's one-time start-up
(some 20 s here) is paid before the hello, by compiling a one-line function, so the first
case's run does not run into its time limit.

onnx2torch imports torchvision for its NMS and RoiAlign converters only. PyPI's torchvision
is the CUDA build and cannot load next to the CPU torch, so the worker gives onnx2torch a
stand-in module whose nms/roi_align (and box_convert, which NMS with center_point_box=1 calls
first) raise NotImplementedError: such models are unsupported here, not bugs.
"""

import os
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def _torchvision_stand_in():
    def unavailable(*_args, **_kwargs):
        raise NotImplementedError("torchvision is not installed (NMS and RoiAlign are not supported here)")
    vision = types.ModuleType("torchvision")
    vision.ops = types.ModuleType("torchvision.ops")
    vision.ops.nms = vision.ops.batched_nms = vision.ops.roi_align = vision.ops.box_convert = unavailable
    return {"torchvision": vision, "torchvision.ops": vision.ops}


class PyTorch(common.Backend):
    NAME = "pytorch"
    MODES = {"noopt": "onnx2torch, then eager",  # first: the mode `nnfuzz backends` probes, quick to start
             "opt": "onnx2torch, then torch.compile (inductor, dynamic=False)"}

    def load(self):
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="nnfuzz-inductor-"))
        import torch
        try:
            import torchvision  # noqa: F401
        except Exception:  # absent, or the CUDA build that cannot load here
            for name in [m for m in sys.modules if m.startswith("torchvision")]:
                del sys.modules[name]
            sys.modules.update(_torchvision_stand_in())
        import onnx2torch
        self.torch, self.onnx2torch = torch, onnx2torch
        torch.set_num_threads(1)
        if self.mode == "opt":
            torch.compile(lambda x: x * 2 + 1, backend="inductor", dynamic=False)(torch.ones(2))
        return torch.__version__.split("+")[0]

    def prepare(self, model_path, model):
        with common.stage("convert"):
            module = self.onnx2torch.convert(model).eval()
        if self.mode == "opt":
            self.torch._dynamo.reset()  # forget the previous model's graphs and guards
            return self.torch.compile(module, backend="inductor", dynamic=False)
        return module

    def run(self, module, feeds):
        torch = self.torch
        with torch.no_grad():
            out = module(*[torch.from_numpy(arr.copy()) for _, arr in feeds])
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [o.detach().numpy() if isinstance(o, torch.Tensor) else o for o in outs]


if __name__ == "__main__":
    sys.exit(common.main(PyTorch))
