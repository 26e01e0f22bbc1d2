#!/usr/bin/env python3
"""onnxruntime_worker.py - nnfuzz worker for ONNX Runtime (CPUExecutionProvider).

Modes: `opt` = ORT_ENABLE_ALL (every graph optimisation, the default users get) and
`noopt` = ORT_DISABLE_ALL; comparing the two isolates ORT's graph transformers. One intra-op
and one inter-op thread, sequential execution and no spinning, so two pipelines on a
two-core machine do not fight over cores and timings stay meaningful.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


# What `disabled_optimizers` takes: the rewrite rules (by class name, from
# core/optimizer/graph_transformer_utils.cc) before the graph transformers (as ORT 1.31's
# verbose log names them), so the narrowest culprit comes first. ORT ignores unknown names.
REWRITE_RULES = [
    "EliminateIdentity", "EliminateSlice", "UnsqueezeElimination", "EliminateDropout", "ExpandElimination",
    "CastElimination", "CastChainElimination", "PreShapeNodeElimination", "NoopElimination", "DivMulFusion",
    "FuseReluClip", "GemmSumFusion", "GemmTransposeFusion", "NotWhereFusion", "ConvAddFusion", "ConvMulFusion",
    "ConvBNFusion", "PadFusion", "MatmulBNFusion", "LabelEncoderFusion", "ClipQuantFusion", "ReluQuantFusion"]
TRANSFORMERS = [
    "AttentionFusion", "BiasDropoutFusion", "BiasGeluFusion", "BiasSkipLayerNormFusion", "BiasSoftmaxFusion",
    "CommonSubexpressionElimination", "ConstantFolding", "ConstantSharing", "ConvActivationFusion",
    "ConvAddActivationFusion", "DoubleQDQPairsRemover", "DynamicQuantizeMatMulFusion", "EmbedLayerNormFusion",
    "EnsureUniqueDQForNodeUnit", "FastGeluFusion", "FreeDimensionOverrideTransformer",
    "FuseFp16InitializerToFp32NodeTransformer", "GatherSliceToSplitFusion", "GatherToSliceFusion", "GeluFusionL1",
    "GeluFusionL2", "GemmActivationFusion", "GroupQueryAttentionFusion", "GroupQueryAttentionPreNormFusion",
    "LayerNormFusionL1", "LayerNormFusionL2", "MatMulActivationFusion", "MatMulAddFusion",
    "MatMulIntegerToFloatFusion", "MatMulNBitsFusion", "MatMulScaleFusion", "MatmulTransposeFusion",
    "NchwcTransformer", "NhwcTransformer", "QDQFinalCleanupTransformer", "QDQPropagationTransformer",
    "QDQS8ToU8Transformer", "QDQSelectorActionTransformer", "QuickGeluFusion", "ReshapeFusion",
    "SimplifiedLayerNormFusion", "SkipLayerNormFusion", "SliceConcatToSpaceToDepthFusion", "TransposeOptimizer",
    "TransposeOptimizer_CPUExecutionProvider", "WeightBiasQuantization", "WhereDummyDq",
    "Level1_RuleBasedTransformer", "Level2_RuleBasedTransformer"]


class OnnxRuntime(common.Backend):
    NAME = "onnxruntime"
    MODES = {"opt": "graph_optimization_level=ORT_ENABLE_ALL",
             "noopt": "graph_optimization_level=ORT_DISABLE_ALL"}
    PASSES = {"opt": REWRITE_RULES + TRANSFORMERS}
    # Importing onnxruntime 1.31 starts one thread, which sleeps on a condition variable until
    # exit; sessions neither wake nor wait for it.
    FORK_SAFE = True

    def load(self):
        import onnxruntime as ort
        self.ort = ort
        ort.set_default_logger_severity(3)  # errors only: warnings would flood stderr
        return ort.__version__

    def prepare(self, model_path, model):
        so = common.ort_session_options(self.ort, optimize=self.mode == "opt")
        # from the bytes common.py read already: no second read of the file
        return self.ort.InferenceSession(self.model_bytes or model_path, so, providers=["CPUExecutionProvider"],
                                         disabled_optimizers=self.disabled)

    def run(self, session, feeds):
        return session.run(None, dict(feeds))


if __name__ == "__main__":
    sys.exit(common.main(OnnxRuntime))
