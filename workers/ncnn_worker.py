#!/usr/bin/env python3
"""ncnn_worker.py - nnfuzz worker for ncnn (Tencent's inference engine, CPU), reached via pnnx.

Prepare converts the ONNX model to ncnn's format with pnnx (the converter binary in the
`pnnx` wheel, run as a subprocess with a time limit: the stage "convert", so a converter
failure, crash or hang is an MCF with phase "convert"), then loads model.ncnn.param/.bin into
an ncnn.Net; run feeds it through an Extractor. Modes: `opt` = pnnx optlevel=2 and ncnn's
Winograd, sgemm and packed-layout convolution paths on (ncnn's defaults); `noopt` = optlevel=1
and those three off. Not optlevel=0: it skips pnnx's pass_level3/4, which the ncnn lowering
relies on, so even a lone Tan or Reciprocal stays "aten::tan" in model.ncnn.param (pnnx's
main.cpp; a pnnx level for its own PyTorch output, not for ncnn). A layer type ncnn does not
have (ncnn.layer_to_index < 0) in what pnnx wrote is reported as a conversion failure. Both modes keep every fp16/bf16 path off (storage, arithmetic, packed:
ncnn's defaults turn them on) and run one thread, so results compare with float32 references.

What ncnn cannot take is refused with a clear message (config/unsupported.json lists it), never
converted silently: ncnn's Mat holds float32 only, so a graph input or output of another element
type is refused; it holds 1 to 4 dims and no batch axis, so a graph input of rank 0 or above 5,
or of rank 4 or 5 whose dim 0 is not 1 (pnnx reads rank 4 as NCHW), is refused too, as is an
ONNX operator pnnx has no conversion for at all (it writes it through under its ONNX name;
config/unsupported.json lists those; any other layer type ncnn lacks is a conversion failure). pnnx decides per input and output
whether its axis 0 is a batch axis (it says so in the model_ncnn.py it writes, batch_index=0);
the worker follows that, exactly as that script does: such an input must have dim 0 = 1 and is
handed over without it, such an output gets its leading axis of 1 back. An ONNX scalar (rank 0)
output comes back from ncnn as a one-element Mat and is returned as a scalar. Nothing else is
reshaped: any other shape ncnn returns is its answer.

The blob names are pnnx's: in0, in1, ... for the graph's runtime inputs and out0, out1, ... for
its outputs, in the graph's order; the worker reads them from model_ncnn.py and checks that the
.param file has each of them.
"""

import contextlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

CONVERT_SECONDS = 50  # below nnfuzz's 60 s prepare limit, so a hung pnnx is reported, not killed with us


class ConversionFailed(Exception):
    """pnnx failed, died or wrote no ncnn model; the message ends with what it printed."""


class NcnnUnsupported(Exception):
    """What ncnn's Mat cannot hold (an element type, a rank, a batch): a documented limitation."""


class NcnnError(RuntimeError):
    """ncnn returned an error code; the message ends with what it printed."""


@contextlib.contextmanager
def native_stderr(lines):
    """ncnn reports errors by printing them (NCNN_LOGE, on fd 2) and returning a code. While
    inside, fd 2 goes through a pipe whose reader copies everything to the real stderr at once
    (kept if the process then dies) and appends the lines to `lines` for the error message."""
    read_fd, write_fd = os.pipe()
    saved = os.dup(2)

    def pump():
        with os.fdopen(read_fd, "rb") as pipe:
            for raw in pipe:
                os.write(saved, raw)
                lines.append(raw.decode("utf-8", "replace").strip())

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    sys.stderr.flush()
    os.dup2(write_fd, 2)
    os.close(write_fd)
    try:
        yield lines
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)  # closes the pipe's last write end: the reader sees end of file
        reader.join(timeout=10)
        os.close(saved)


def said(lines, what="ncnn"):
    kept = [line for line in lines if line]
    return " | ".join(kept[-6:]) if kept else f"({what} printed nothing)"


def pnnx_error_lines(text):
    """The lines of pnnx's output that say what went wrong: its pass log and tables left out."""
    noise = ("#############", "pnnxparam", "pnnxbin", "pnnxpy", "pnnxonnx", "ncnnparam", "ncnnbin",
             "ncnnpy", "fp16 =", "optlevel =", "device =", "inputshape", "input =", "input2 =",
             "customop", "moduleop", "get inputshape", " ...", "FLOPS", "memory OPS", "Unknown CPU vendor")
    kept = [line.strip() for line in text.splitlines()
            if line.strip() and not any(word in line for word in noise) and not line.lstrip().startswith(("│", "┌", "├", "└"))]
    return " | ".join(kept[-8:]) if kept else "(pnnx printed nothing)"


# model_ncnn.py's lines that name the blobs and pnnx's batch axis decision.
_INPUT_LINE = re.compile(r'ex\.input\("(\w+)",\s*ncnn\.Mat\((\w+)\.numpy\(\)(?:,\s*batch_index=(\d+))?\)')
_EXTRACT_LINE = re.compile(r'_,\s*(\w+)\s*=\s*ex\.extract\("(\w+)"\)')
_OUTPUT_LINE = re.compile(r'out\.append\(torch\.from_numpy\((\w+)\.numpy\((?:batch_index=(\d+))?\)\)\)')
NO_BATCH = 233  # ncnn's Python binding's "no batch axis" (the default of Mat(array) and Mat.numpy)


def read_blobs(script):
    """[(blob, batch_index)] for the inputs and for the outputs, in model_ncnn.py's order."""
    inputs = [(blob, int(bi) if bi else NO_BATCH) for blob, _, bi in _INPUT_LINE.findall(script)]
    extracted = dict(_EXTRACT_LINE.findall(script))  # variable -> blob
    outputs = [(extracted.get(var, var), int(bi) if bi else NO_BATCH) for var, bi in _OUTPUT_LINE.findall(script)]
    return inputs, outputs


class Ncnn(common.Backend):
    NAME = "ncnn"
    MODES = {"opt": "pnnx optlevel=2; ncnn Winograd, sgemm and packed layout on; fp16/bf16 off",
             "noopt": "pnnx optlevel=1; ncnn Winograd, sgemm and packed layout off; fp16/bf16 off"}

    def load(self):
        import ncnn
        spec = importlib.util.find_spec("pnnx")  # not imported: its __init__ imports torch
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("the pnnx package (the ONNX to ncnn converter) is not installed")
        self.pnnx = os.path.join(list(spec.submodule_search_locations)[0], "pnnx")
        if not os.access(self.pnnx, os.X_OK):
            raise ImportError(f"the pnnx wheel has no converter binary at {self.pnnx}")
        self.ncnn = ncnn
        self.dir = tempfile.mkdtemp(prefix="nnfuzz-ncnn-")
        return f"{ncnn.__version__} (pnnx {importlib.metadata.version('pnnx')})"

    def prepare(self, model_path, model):
        from onnx import helper
        initializers = {t.name for t in model.graph.initializer}
        inputs = [i for i in model.graph.input if i.name not in initializers]
        for kind, values in (("input", inputs), ("output", list(model.graph.output))):
            for value in values:
                elem = value.type.tensor_type.elem_type
                if elem != 1:  # FLOAT
                    raise NcnnUnsupported(f"graph {kind} {value.name} is {helper.tensor_dtype_to_np_dtype(elem)}: "
                                          "ncnn's Mat holds float32 only (unsupported data type)")
        shapes = [[d.dim_value for d in i.type.tensor_type.shape.dim] for i in inputs]
        for info, shape in zip(inputs, shapes):
            if len(shape) == 0 or len(shape) > 5:
                raise NcnnUnsupported(f"graph input {info.name} has rank {len(shape)}: "
                                      "ncnn's Mat holds 1 to 4 dims (unsupported rank)")
            if len(shape) >= 4 and shape[0] != 1:  # pnnx reads it as N x (C, [D,] H, W)
                raise NcnnUnsupported(f"graph input {info.name} has batch {shape[0]}: ncnn's Mat has no batch axis, "
                                      "pnnx takes axis 0 as one (unsupported batch)")
        self.check_batches(model)
        work = os.path.join(self.dir, "case")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        shutil.copyfile(model_path, os.path.join(work, "model.onnx"))
        with common.stage("convert"):
            script, param = self.convert(work, shapes)
        in_blobs, out_blobs = read_blobs(script)
        with common.stage("convert"):
            if len(in_blobs) != len(inputs) or len(out_blobs) != len(model.graph.output):
                raise ConversionFailed(f"pnnx's model_ncnn.py feeds {len(in_blobs)} of {len(inputs)} inputs and "
                                       f"extracts {len(out_blobs)} of {len(model.graph.output)} outputs")
            declared = set(re.findall(r"\S+", param))
            missing = [blob for blob, _ in in_blobs + out_blobs if blob not in declared]
            if missing:
                raise ConversionFailed(f"model.ncnn.param lacks the blobs {missing} that model_ncnn.py names")
        for (blob, batch), info, shape in zip(in_blobs, inputs, shapes):
            if batch == 0 and shape[0] != 1:
                raise NcnnUnsupported(f"graph input {info.name} has batch {shape[0]}: ncnn's Mat has no batch axis, "
                                      "pnnx takes axis 0 as one (unsupported batch)")
            if len(shape) - (batch == 0) > 4:
                raise NcnnUnsupported(f"graph input {info.name} has rank {len(shape)}: "
                                      "ncnn's Mat holds 1 to 4 dims (unsupported rank)")
        net = self.ncnn.Net()
        optimize = self.mode == "opt"
        opt = net.opt
        opt.num_threads = 1
        opt.use_vulkan_compute = False
        opt.use_fp16_packed = opt.use_fp16_storage = opt.use_fp16_arithmetic = False
        opt.use_bf16_storage = False
        opt.use_winograd_convolution = opt.use_sgemm_convolution = opt.use_packing_layout = optimize
        printed = []
        with native_stderr(printed):
            loaded = (net.load_param(os.path.join(work, "model.ncnn.param")),
                      net.load_model(os.path.join(work, "model.ncnn.bin")))
        if loaded != (0, 0):
            raise NcnnError(f"load_param/load_model returned {loaded}: {said(printed)}")
        ranks = [len(o.type.tensor_type.shape.dim) for o in model.graph.output]
        return net, in_blobs, out_blobs, ranks

    # Operators whose axis 0 is a batch: pnnx lowers them to ncnn layers that work on one image
    # (Convolution, Pooling, ...), so it reads that axis as the batch ncnn does not have.
    BATCHED = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
               "GlobalLpPool", "BatchNormalization", "InstanceNormalization", "LRN", "DepthToSpace", "SpaceToDepth",
               "GridSample", "Resize", "Upsample", "GroupNormalization", "MaxUnpool", "MaxRoiPool", "RoiAlign"}

    def check_batches(self, model):
        """Refuses a model where an operator with a batch axis gets a batch other than 1."""
        import onnx
        inferred = onnx.shape_inference.infer_shapes(model)
        shapes = {v.name: [d.dim_value if d.HasField("dim_value") else None for d in v.type.tensor_type.shape.dim]
                  for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
        shapes.update({t.name: list(t.dims) for t in model.graph.initializer})
        for node in model.graph.node:
            shape = shapes.get(node.input[0]) if node.op_type in self.BATCHED and node.input else None
            if shape and shape[0] not in (1, None):
                raise NcnnUnsupported(f"{node.op_type} node {node.name or node.output[0]} gets batch {shape[0]}: "
                                      "ncnn's Mat has no batch axis, pnnx takes axis 0 as one (unsupported batch)")

    def convert(self, work, shapes):
        """Runs pnnx in `work`; returns model_ncnn.py's text and model.ncnn.param's."""
        import onnx
        level = "2" if self.mode == "opt" else "1"
        shape_arg = ",".join("[" + ",".join(str(d) for d in shape) + "]f32" for shape in shapes)
        command = [self.pnnx, "model.onnx", f"optlevel={level}", "fp16=0", "device=cpu"]
        if shapes:
            command.append(f"inputshape={shape_arg}")
        try:
            done = subprocess.run(command, cwd=work, capture_output=True, text=True, errors="replace",
                                  timeout=CONVERT_SECONDS)
        except subprocess.TimeoutExpired as exc:
            output = (exc.stdout or "") + (exc.stderr or "") if isinstance(exc.stdout, str) else ""
            raise ConversionFailed(f"pnnx did not finish in {CONVERT_SECONDS} s: {pnnx_error_lines(output)}") from None
        output = done.stdout + "\n" + done.stderr
        if done.returncode != 0:
            sys.stderr.write(output[-20000:])  # kept with the finding
        if done.returncode < 0:
            name = signal.Signals(-done.returncode).name
            raise ConversionFailed(f"pnnx died by {name}: {pnnx_error_lines(output)}")
        paths = [os.path.join(work, name) for name in ("model_ncnn.py", "model.ncnn.param", "model.ncnn.bin")]
        if done.returncode != 0 or not all(os.path.exists(p) for p in paths):
            raise ConversionFailed(f"pnnx exited with status {done.returncode} and "
                                   f"{'wrote' if os.path.exists(paths[1]) else 'no'} model.ncnn.param: "
                                   f"{pnnx_error_lines(output)}")
        with open(paths[0]) as f, open(paths[1]) as g:
            script, param = f.read(), g.read()
        # pnnx writes what it could not lower as the operator it found (aten::tan, F.batch_norm,
        # prim::Constant, an ONNX op name) and exits 0; ncnn would refuse the file at load_param.
        layers = [line.split()[:2] for line in param.splitlines()[2:] if line.strip()]
        foreign = sorted({kind for kind, _ in layers if self.ncnn.layer_to_index(kind) < 0})
        unknown = [kind for kind in foreign if onnx.defs.has(kind)]  # passed through under its ONNX name
        # The message names one operator (the first): a signature per operator, not per mix.
        if unknown:
            sys.stderr.write(f"pnnx left these ONNX operators unconverted: {', '.join(unknown)}\n")
            raise ConversionFailed(f"pnnx left the ONNX operator {unknown[0]} unconverted (written through to model.ncnn.param)")
        if foreign:
            sys.stderr.write(f"pnnx wrote these layers ncnn does not have: {', '.join(foreign)}\n")
            raise ConversionFailed(f"pnnx wrote a layer ncnn does not have: {foreign[0]}")
        return script, param

    def run(self, prepared, feeds):
        net, in_blobs, out_blobs, ranks = prepared
        results, printed, failure = [], [], None
        with native_stderr(printed):
            try:
                with net.create_extractor() as ex:
                    mats = []  # kept alive until the extractor is done
                    for (blob, batch), (_, arr) in zip(in_blobs, feeds):
                        mats.append(self.ncnn.Mat(np.ascontiguousarray(arr, dtype=np.float32), batch_index=batch).clone())
                        code = ex.input(blob, mats[-1])
                        if code != 0:
                            raise NcnnError(f"input {blob} returned {code}")
                    for (blob, batch), rank in zip(out_blobs, ranks):
                        code, mat = ex.extract(blob)
                        if code != 0:
                            raise NcnnError(f"extract {blob} returned {code}")
                        value = np.array(mat.numpy(batch_index=batch), dtype=np.float32, copy=True)
                        if rank == 0 and value.size == 1:  # ncnn has no 0-d Mat
                            value = value.reshape(())
                        results.append(value)
            except Exception as exc:
                failure = exc
        if failure is not None:  # raised after the pipe is drained, so the message has it all
            raise NcnnError(f"{failure}: {said(printed)}")
        return results


if __name__ == "__main__":
    sys.exit(common.main(Ncnn))
