#!/usr/bin/env python3
"""litert_convert.py - onnx2tf as a long-lived converter process for litert_worker.py.

Importing TensorFlow and onnx2tf costs ~8 s and a conversion ~2 s, so the worker keeps one of
these alive instead of running the onnx2tf CLI per case (its own process all the same: a
converter crash or hang is the converter's, and TensorFlow never shares a process with the
LiteRT interpreter under test). Protocol: one JSON request a line on stdin,
{"model": PATH, "out": DIR}; one JSON reply a line on the original stdout,
{"status": "ok", "tflite": PATH, "outputs": [[ONNX name, signature name, channel-last], ...]} or
{"status": "error", "type": ..., "message": ...}. Everything onnx2tf and TensorFlow print goes
to stderr; onnx2tf's own "ERROR:" lines also go into the error message.

Conversion: onnx2tf's defaults (onnxsim first, strict mode on), on a copy of the model (onnx2tf
rewrites its input file), plus every runtime input kept
as the ONNX graph declares it (--keep_shape_absolutely_input_names), so the worker feeds the
case's arrays as they are. onnx2tf still turns 3-D to 5-D tensors channel-last inside, and
an output may come out that way: it records which (the Keras model's onnx_output_layouts),
and the worker transposes those back.

onnx2tf feeds its check inferences of 4-D three-channel inputs with sample images it
downloads unless calibration_image_sample_data_20x128x128x3_float32.npy is in the working
directory; there is no network here, so the converter makes that file itself (seeded
uniform noise) and works in that directory.
"""

import io
import json
import os
import re
import shutil
import sys
import tempfile
import traceback

SAMPLE_FILE = "calibration_image_sample_data_20x128x128x3_float32.npy"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Tee(io.TextIOBase):
    """sys.stdout during a conversion: onnx2tf prints its errors; keep them and pass them on."""

    def __init__(self, sink):
        self.sink, self.lines = sink, []

    def write(self, text):
        self.sink.write(text)
        self.lines.extend(ANSI.sub("", line).strip() for line in text.splitlines())
        return len(text)

    def flush(self):
        self.sink.flush()


def graph_names(model_path):
    """The ONNX graph's runtime input names and output names."""
    import onnx
    model = onnx.load(model_path, load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in initializers], [o.name for o in model.graph.output]


def said(lines):
    """onnx2tf's ERROR lines, without its advice on which flags to try."""
    advice = ("Read this and deal with it", "Alternatively, if the input OP", "If the input OP of ONNX",
              "Also, for models that include", "The trace log is below", "input_onnx_file_path:")
    kept = [line[len("ERROR:"):].strip() for line in lines
            if line.startswith("ERROR:") and not any(a in line for a in advice)]
    return " | ".join([line for line in kept if line][-4:])


def convert(onnx2tf, model_path, out_dir, tee):
    """Converts; returns the float32 .tflite's path and, per ONNX output in order, [its name,
    its name in the .tflite's signature, whether it is channel-last]."""
    inputs, outputs = graph_names(model_path)
    # onnx2tf rewrites its input file in place (onnxsim, then sng4onnx's op names): convert a copy
    private = os.path.join(out_dir, "model.onnx")
    shutil.copyfile(model_path, private)
    saved, sys.stdout = sys.stdout, tee
    try:
        keras_model = onnx2tf.convert(input_onnx_file_path=private, output_folder_path=out_dir,
                                      keep_shape_absolutely_input_names=inputs or None, non_verbose=True)
    except SystemExit as exc:  # onnx2tf says what failed, then calls sys.exit(1)
        raise ConversionFailed(f"onnx2tf exited with status {exc.code}") from None
    finally:
        sys.stdout = saved
    tflite = os.path.join(out_dir, "model_float32.tflite")
    if not os.path.exists(tflite):
        raise ConversionFailed("onnx2tf wrote no float32 .tflite")
    layouts = getattr(keras_model, "onnx_output_layouts", None)
    if layouts is None:
        raise ConversionFailed("onnx2tf did not say which outputs are channel-last (onnx_output_layouts)")
    # The signature names its outputs after the Keras model's output layers, in the ONNX order;
    # a constant output is a Lambda layer named "lambda..." (onnx2tf's support for constant outputs).
    signature = list(keras_model.output_names)
    if len(signature) != len(outputs):
        raise ConversionFailed(f"the converted model has {len(signature)} outputs, the ONNX graph {len(outputs)}")
    return tflite, [[name, sig, bool(layouts.get(name, layouts.get(name.replace(":", "__"), False)))]
                    for name, sig in zip(outputs, signature)]


class ConversionFailed(Exception):
    """onnx2tf gave up (it prints why and exits) or wrote no model."""


def serve():
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # TensorFlow's native logging and onnx2tf's prints: stderr
    sys.stdout = sys.stderr
    import numpy as np
    work = tempfile.mkdtemp(prefix="nnfuzz-onnx2tf-")
    np.save(os.path.join(work, SAMPLE_FILE), np.random.default_rng(0).random((20, 128, 128, 3), dtype=np.float32))
    os.chdir(work)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's info and warning lines
    # onnx2tf runs the onnxsim command (its first step, three times) found on PATH: this venv's, as
    # in an activated venv; without it onnx2tf warns and converts the model unsimplified.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)  # before any op: one thread, as the SUT
    tf.config.threading.set_inter_op_parallelism_threads(1)
    import onnx2tf
    import tf_keras
    proto.write(json.dumps({"ready": onnx2tf.__version__}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        tee = Tee(sys.stderr)
        try:
            tflite, outputs = convert(onnx2tf, req["model"], req["out"], tee)
            reply = {"status": "ok", "tflite": tflite, "outputs": outputs}
        except Exception as exc:
            traceback.print_exc()
            printed = said(tee.lines)
            message = ANSI.sub("", str(exc) or repr(exc))
            reply = {"status": "error", "type": type(exc).__name__,
                     "message": message + (f" | onnx2tf: {printed}" if printed and printed not in message else "")}
        finally:
            tf_keras.backend.clear_session()  # the layers of the last model: memory, and names
        proto.write(json.dumps(reply) + "\n")
        proto.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
