# --- nnfuzz repro: PyTorch 2 via onnx2torch (src/store/repro/pytorch.py) ------------------
# onnx2torch converts the model (the step "convert": its failures are the converter's), then
# noopt runs it eagerly and opt through torch.compile(backend="inductor", dynamic=False), one
# thread. PyPI's torchvision (which onnx2torch imports for NMS/RoiAlign only) is the CUDA
# build; when it cannot load, a stand-in without those two is used, as nnfuzz's worker does.
import types

import torch

try:
    import torchvision  # noqa: F401
except Exception:
    for _name in [m for m in sys.modules if m.startswith("torchvision")]:
        del sys.modules[_name]
    _vision = types.ModuleType("torchvision")
    _vision.ops = types.ModuleType("torchvision.ops")
    _vision.ops.nms = _vision.ops.batched_nms = _vision.ops.roi_align = None
    sys.modules.update({"torchvision": _vision, "torchvision.ops": _vision.ops})
import onnx2torch


def prepare(model_path, mode):
    torch.set_num_threads(1)
    stage("convert")
    module = onnx2torch.convert(onnx.load(model_path)).eval()
    stage("prepare")
    if mode == "opt":
        return torch.compile(module, backend="inductor", dynamic=False)
    return module


def run(module, feeds):
    with torch.no_grad():
        out = module(*[torch.from_numpy(value.copy()) for value in feeds.values()])
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o.detach().numpy() if isinstance(o, torch.Tensor) else o for o in outs]
