# --- nnfuzz repro: ncnn via pnnx (src/store/repro/ncnn.py) ---------------------------------
# Converts with the pnnx binary from the pnnx wheel (a subprocess: the step "convert"; pnnx's
# Python package itself is not imported, it imports torch), then runs model.ncnn.param/.bin
# with ncnn's Python API, one thread, fp16/bf16 off. Modes: opt = pnnx optlevel=2 and ncnn's
# Winograd, sgemm and packed layout on; noopt = optlevel=1 and those off. Blob names and the
# batch axis are read from the model_ncnn.py pnnx writes (batch_index=0: axis 0 is a batch
# axis of 1, dropped on the way in and put back on the way out), as nnfuzz's worker does
# (workers/ncnn_worker.py); a rank-0 output comes back from a one-element Mat as a scalar.
# `pip install --no-deps pnnx` is enough: the converter binary does not need torch.
import contextlib
import importlib.util
import re
import shutil
import signal
import threading

import ncnn

_INPUT_LINE = re.compile(r'ex\.input\("(\w+)",\s*ncnn\.Mat\((\w+)\.numpy\(\)(?:,\s*batch_index=(\d+))?\)')
_EXTRACT_LINE = re.compile(r'_,\s*(\w+)\s*=\s*ex\.extract\("(\w+)"\)')
_OUTPUT_LINE = re.compile(r'out\.append\(torch\.from_numpy\((\w+)\.numpy\((?:batch_index=(\d+))?\)\)\)')


@contextlib.contextmanager
def native_stderr(lines):
    """ncnn prints its errors on fd 2 and returns a code: caught here for the error message."""
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
        os.dup2(saved, 2)
        reader.join(timeout=10)
        os.close(saved)


def said(lines, what="ncnn"):
    kept = [line for line in lines if line]
    return " | ".join(kept[-6:]) if kept else "(%s printed nothing)" % what


def pnnx_error_lines(text):
    noise = ("#############", "pnnxparam", "pnnxbin", "pnnxpy", "pnnxonnx", "ncnnparam", "ncnnbin",
             "ncnnpy", "fp16 =", "optlevel =", "device =", "inputshape", "input =", "input2 =",
             "customop", "moduleop", "get inputshape", " ...", "FLOPS", "memory OPS", "Unknown CPU vendor")
    kept = [line.strip() for line in text.splitlines()
            if line.strip() and not any(word in line for word in noise)
            and not line.lstrip().startswith(("\u2502", "\u250c", "\u251c", "\u2514"))]
    return " | ".join(kept[-8:]) if kept else "(pnnx printed nothing)"


def prepare(model_path, mode):
    model = onnx.load(model_path)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    shapes = [[d.dim_value for d in i.type.tensor_type.shape.dim] for i in inputs]
    work = tempfile.mkdtemp(prefix="nnfuzz-repro-ncnn-")
    shutil.copyfile(model_path, os.path.join(work, "model.onnx"))
    stage("convert")
    pnnx = os.path.join(list(importlib.util.find_spec("pnnx").submodule_search_locations)[0], "pnnx")
    command = [pnnx, "model.onnx", "optlevel=%s" % ("2" if mode == "opt" else "1"), "fp16=0", "device=cpu"]
    if shapes:
        command.append("inputshape=" + ",".join("[%s]f32" % ",".join(map(str, s)) for s in shapes))
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, errors="replace", timeout=50)
    output = done.stdout + "\n" + done.stderr
    if done.returncode < 0:
        raise RuntimeError("pnnx died by %s: %s" % (signal.Signals(-done.returncode).name, pnnx_error_lines(output)))
    paths = [os.path.join(work, name) for name in ("model_ncnn.py", "model.ncnn.param", "model.ncnn.bin")]
    if done.returncode != 0 or not all(os.path.exists(p) for p in paths):
        raise RuntimeError("pnnx exited with status %d and %s model.ncnn.param: %s" % (
            done.returncode, "wrote" if os.path.exists(paths[1]) else "no", pnnx_error_lines(output)))
    with open(paths[0]) as f, open(paths[1]) as g:
        script, param = f.read(), g.read()
    foreign = sorted({line.split()[0] for line in param.splitlines()[2:]
                      if line.strip() and ncnn.layer_to_index(line.split()[0]) < 0})
    unknown = [kind for kind in foreign if onnx.defs.has(kind)]
    if unknown:
        raise RuntimeError("pnnx left the ONNX operator %s unconverted (written through to model.ncnn.param)" % unknown[0])
    if foreign:
        raise RuntimeError("pnnx wrote a layer ncnn does not have: %s" % foreign[0])
    in_blobs = [(blob, int(bi) if bi else 233) for blob, _, bi in _INPUT_LINE.findall(script)]
    extracted = dict(_EXTRACT_LINE.findall(script))
    out_blobs = [(extracted.get(var, var), int(bi) if bi else 233) for var, bi in _OUTPUT_LINE.findall(script)]
    if len(in_blobs) != len(inputs) or len(out_blobs) != len(model.graph.output):
        raise RuntimeError("pnnx's model_ncnn.py feeds %d of %d inputs and extracts %d of %d outputs" % (
            len(in_blobs), len(inputs), len(out_blobs), len(model.graph.output)))
    stage("prepare")
    net = ncnn.Net()
    opt = net.opt
    opt.num_threads = 1
    opt.use_vulkan_compute = False
    opt.use_fp16_packed = opt.use_fp16_storage = opt.use_fp16_arithmetic = opt.use_bf16_storage = False
    opt.use_winograd_convolution = opt.use_sgemm_convolution = opt.use_packing_layout = mode == "opt"
    printed = []
    with native_stderr(printed):
        loaded = (net.load_param(paths[1]), net.load_model(paths[2]))
    if loaded != (0, 0):
        raise RuntimeError("load_param/load_model returned %s: %s" % (loaded, said(printed)))
    ranks = [len(o.type.tensor_type.shape.dim) for o in model.graph.output]
    return net, in_blobs, out_blobs, ranks


def run(prepared, feeds):
    net, in_blobs, out_blobs, ranks = prepared
    results, printed, failure = [], [], None
    with native_stderr(printed):
        try:
            with net.create_extractor() as ex:
                mats = []
                for (blob, batch), value in zip(in_blobs, feeds.values()):
                    mats.append(ncnn.Mat(np.ascontiguousarray(value, dtype=np.float32), batch_index=batch).clone())
                    if ex.input(blob, mats[-1]) != 0:
                        raise RuntimeError("input %s failed" % blob)
                for (blob, batch), rank in zip(out_blobs, ranks):
                    code, mat = ex.extract(blob)
                    if code != 0:
                        raise RuntimeError("extract %s returned %d" % (blob, code))
                    value = np.array(mat.numpy(batch_index=batch), dtype=np.float32, copy=True)
                    results.append(value.reshape(()) if rank == 0 and value.size == 1 else value)
        except Exception as exc:
            failure = exc
    if failure is not None:
        raise RuntimeError("%s: %s" % (failure, said(printed)))
    return results
