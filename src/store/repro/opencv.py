# --- nnfuzz repro: OpenCV DNN (src/store/repro/opencv.py) ---------------------------------
# readNetFromONNX, OpenCV backend on the CPU, one thread. Modes: opt = ENGINE_AUTO (the new
# engine, the classic one as fallback) with defaults; classic = ENGINE_CLASSIC with defaults;
# noopt = ENGINE_CLASSIC without layer fusion and Winograd convolution. Inputs go in as
# cv2.Mat(wrap_channels=False) (a bare 3-D array would be read as an image with channels);
# the classic engine's int32 results for int64 outputs are widened back, as nnfuzz's worker does.
import cv2


def prepare(model_path, mode):
    engine = {"opt": cv2.dnn.ENGINE_AUTO, "classic": cv2.dnn.ENGINE_CLASSIC, "noopt": cv2.dnn.ENGINE_CLASSIC}[mode]
    cv2.setNumThreads(1)
    net = cv2.dnn.readNetFromONNX(model_path, engine)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    if mode == "noopt":
        net.enableFusion(False)
        net.enableWinograd(False)
    model = onnx.load(model_path)
    declared = [onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type) for o in model.graph.output]
    return net, [o.name for o in model.graph.output], declared, mode


def run(prepared, feeds):
    net, names, declared, mode = prepared
    for name, value in feeds.items():
        net.setInput(cv2.Mat(value, wrap_channels=False), name)
    outs = [np.asarray(o) for o in net.forward(names)]
    return [o.astype(np.int64) if mode != "opt" and want == np.int64 and o.dtype == np.int32 else o
            for o, want in zip(outs, declared)]
