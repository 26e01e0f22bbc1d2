"""Small checker-valid ONNX models that the real-SUT worker tests share."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


def model_of(nodes, inputs, outputs, init=(), name="g"):
    """An opset-17 model (IR 8, which every SUT here reads)."""
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, list(init)),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def uniform_f32(rng, *shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def conv_bn_relu_pool(rng, channels, height, width):
    """Conv (3x3, padded) + BatchNormalization + Relu + MaxPool (2x2) on a [1, 3, H, W] input:
    what every engine fuses. Returns the nodes, initializers, the input's and the output's
    value infos ("x", "y") and an input array."""
    def w(*shape):
        return uniform_f32(rng, *shape)
    init = [numpy_helper.from_array(w(channels, 3, 3, 3), "W"), numpy_helper.from_array(w(channels), "B"),
            numpy_helper.from_array(w(channels) + 1.5, "scale"), numpy_helper.from_array(w(channels), "shift"),
            numpy_helper.from_array(w(channels), "mean"), numpy_helper.from_array(w(channels) + 2, "var")]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["n"]),
             helper.make_node("Relu", ["n"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2], strides=[2, 2])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, height, width])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels, height // 2, width // 2])
    return nodes, init, x, y, w(1, 3, height, width)
