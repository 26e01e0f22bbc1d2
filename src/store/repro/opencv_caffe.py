# --- nnfuzz repro: OpenCV DNN's Caffe importer (src/store/repro/opencv_caffe.py) -----------
# readNetFromCaffe(deploy.prototxt, weights.caffemodel) - the network next to model.onnx in
# Caffe form, same input and output names - on the OpenCV backend, CPU, one thread. Modes:
# opt = defaults; noopt = no layer fusion, no Winograd; onnx = readNetFromONNX on model.onnx.
# OpenCV 5 has no Caffe importer: this needs opencv-python-headless==4.12.0.88 (nnfuzz's
# setup keeps it in the virtualenv's opencv4 folder, which is searched first).
_OPENCV4 = os.path.join(sys.prefix, "opencv4")
if os.path.isdir(_OPENCV4):
    sys.path.insert(0, _OPENCV4)
import cv2  # noqa: E402


def prepare(model_path, mode):
    cv2.setNumThreads(1)
    if mode == "onnx":
        net = cv2.dnn.readNetFromONNX(model_path)
    else:
        folder = os.path.dirname(model_path)
        net = cv2.dnn.readNetFromCaffe(os.path.join(folder, "deploy.prototxt"),
                                       os.path.join(folder, "weights.caffemodel"))
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    if mode == "noopt":
        net.enableFusion(False)
        net.enableWinograd(False)
    layers = None
    if mode != "onnx":  # Net.forward takes layer names: caffe.json says which layer writes each output
        with open(os.path.join(os.path.dirname(model_path), "caffe.json")) as f:
            layers = json.load(f)["output_layers"]
    outputs = onnx.load(model_path).graph.output
    return net, [o.name for o in outputs], layers, [len(o.type.tensor_type.shape.dim) for o in outputs]


def run(prepared, feeds):
    # OpenCV 4's Mat has at least two dims: a 1-D result comes back as (n, 1) or (1, n).
    return [o.reshape(-1) if rank == 1 and o.ndim == 2 and 1 in o.shape else o
            for o, rank in zip(forward(prepared[:3], feeds), prepared[3])]


def forward(prepared, feeds):
    net, names, layers = prepared
    for name, value in feeds.items():
        net.setInput(cv2.Mat(np.ascontiguousarray(value), wrap_channels=False), name)
    if layers is None:
        return [np.asarray(o) for o in net.forward(names)]
    unique = list(dict.fromkeys(layer for layer, _ in layers))
    tops = dict(zip(unique, net.forwardAndRetrieve(unique)))
    return [np.asarray(tops[layer][top]) for layer, top in layers]
