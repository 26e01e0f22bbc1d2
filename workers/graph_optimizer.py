"""graph_optimizer.py - what the workers for ONNX graph optimizers (onnxoptimizer_worker.py,
onnxsim_worker.py) share: an optimizer is the SUT, ONNX Runtime with every optimisation
disabled only executes.

Mode `noopt` runs the original model, mode `opt` the optimised one, both on ORT_DISABLE_ALL,
so a difference between the two is the optimizer's rewrite. Their entries in
config/backends.json say `"compare": "modes"`: a value our reference disputes in both modes is
ONNX Runtime's, not the optimizer's. The optimizer raising or crashing, or handing back a model that ONNX's
own checker (full_check) rejects, fails in the stage "optimize": an MCF kept apart from ONNX
Runtime's failures in the finding's phase.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


class InvalidModel(Exception):
    """The optimizer's output is not a valid ONNX model (the checker's message)."""


class GraphOptimizer(common.Backend):
    MODES = {}  # set by each optimizer; must hold "noopt" (the original model) and "opt"

    def load_optimizer(self):
        """Imports the optimizer; returns its version."""
        raise NotImplementedError

    def optimize(self, model):
        """Returns the optimised onnx.ModelProto."""
        raise NotImplementedError

    def load(self):
        import onnx
        import onnxruntime as ort
        self.onnx, self.ort = onnx, ort
        ort.set_default_logger_severity(3)
        return self.load_optimizer()

    def prepare(self, model_path, model):
        if self.mode != "noopt":
            with common.stage("optimize"):
                model = self.optimize(model)
                try:
                    self.onnx.checker.check_model(model, full_check=True)
                except self.onnx.checker.ValidationError as exc:
                    raise InvalidModel(f"the optimised model fails the ONNX checker: {exc}") from None
        so = common.ort_session_options(self.ort, optimize=False)
        session = self.ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        return session, [o.name for o in model.graph.output]

    def run(self, prepared, feeds):
        session, outputs = prepared
        # By name: an optimizer may legally reorder nothing, but asking by name makes sure a
        # renamed or dropped output shows as an error rather than as a silent swap.
        return session.run(outputs, dict(feeds))
