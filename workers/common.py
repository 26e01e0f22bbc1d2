"""common.py - the nnfuzz worker protocol loop shared by the Python workers.

A worker module (onnxruntime_worker.py, ...) defines a `Backend` subclass with four hooks
(load, prepare, run, and the class attributes NAME and MODES) and calls `main(Backend)`.
This file does everything else that docs/worker-protocol.md asks of a worker:

- stdout hygiene: the protocol gets a private duplicate of fd 1, and fd 1 itself is pointed
  at stderr, so chatter from the SUT's native code (printf, std::cout) can never corrupt a
  protocol line;
- thread pinning (one thread, set before the SUT is imported so its pools are created small);
- faulthandler, so a native crash leaves the Python stack on stderr before the process dies
  by the same signal;
- reading a case folder with the exact dtypes the model declares, writing outputs as ONNX
  TensorProto .pb files, and turning every Python exception into a classified error reply.

It imports only the standard library, numpy and onnx; the SUT is imported by Backend.load,
so a missing package is reported on stderr and by the exit status, never by a traceback on
stdout.
"""

import contextlib
import faulthandler
import functools
import gc
import json
import math
import mmap
import os
import signal
import struct
import sys
import time
import traceback

# Set before numpy or any SUT is imported: thread pools read these once, at start-up.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TVM_NUM_THREADS",
             "OMP_WAIT_POLICY"):
    os.environ.setdefault(_var, "PASSIVE" if _var == "OMP_WAIT_POLICY" else "1")

# 2: a request may say "packed": the case may then be in the packed layout, and the outputs go
# into one SequenceProto file, out/outputs.pb (docs/worker-protocol.md, "Protocol 2").
PROTOCOL_VERSION = 2


class HarnessError(Exception):
    """The case folder itself is unusable (missing file, dtype that disagrees with the model):
    reported as status "worker_error", because it says nothing about the SUT."""


# Element types whose raw bytes numpy cannot take as is (strings, bfloat16, float8, 4-bit).
_SLOW_TYPES = {8, 16, 17, 18, 19, 20, 21, 22, 23}


@contextlib.contextmanager
def stage(name):
    """Marks a step of prepare done by something in front of the SUT proper - a converter
    ("convert": ONNX to the SUT's format) or a graph optimizer ("optimize") - so that its
    failures are told apart from the SUT's own (the finding's phase is `name`). An exception
    raised inside carries the stage into the error reply; a native crash or hang inside is
    placed by the "nnfuzz-stage: NAME" line written to stderr (docs/worker-protocol.md)."""
    sys.stderr.write(f"\nnnfuzz-stage: {name}\n")
    sys.stderr.flush()
    try:
        yield
    except Exception as exc:
        try:
            exc.nnfuzz_stage = name
        except AttributeError:  # an exception type without __dict__: keep it, lose the stage
            pass
        raise
    finally:
        sys.stderr.write("\nnnfuzz-stage: prepare\n")
        sys.stderr.flush()


class Backend:
    """One SUT. Subclasses set NAME and MODES and implement the hooks below."""

    NAME = "?"
    #: mode name -> one line saying what it changes (listed by `nnfuzz backends`)
    MODES = {}
    #: mode name -> the SUT's optimisation passes a request may switch off by name
    #: ("disable": [...]); nnfuzz's triage names the pass behind an optimiser bug with them
    PASSES = {}
    #: A fork server (NNFUZZ_FORK_SERVER=1) forks children off the loaded SUT, and fork copies
    #: only the calling thread. By default it is used only when load() leaves one thread. True
    #: says the threads the SUT has started by then are idle helpers a child can do without.
    FORK_SAFE = False

    def __init__(self, mode):
        self.mode = mode
        self.disabled = []  # the current request's "disable" list, read by prepare
        # the current model.onnx's bytes, for a SUT that takes a model from memory (so the
        # file is read once); None when the model keeps tensors in external files
        self.model_bytes = None

    def load(self):
        """Imports the SUT and returns its version string. Raising ImportError here makes the
        worker exit with status 3 (not installed) before the hello line."""
        raise NotImplementedError

    def prepare(self, model_path, model):
        """Converts/compiles the model (`model` is the parsed onnx.ModelProto); returns
        whatever `run` needs."""
        raise NotImplementedError

    def run(self, prepared, feeds):
        """Runs it. `feeds` is a list of (input name, numpy array) in the model's input order
        (runtime inputs only, initializers excluded). Returns the outputs in the model's
        output order, as numpy arrays or anything np.asarray accepts."""
        raise NotImplementedError


def ort_session_options(ort, optimize):
    """ONNX Runtime session options for a worker: all graph optimisations or none, one intra-op
    and one inter-op thread, sequential, no spinning (pipelines share the cores), errors only."""
    so = ort.SessionOptions()
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    so.log_severity_level = 3
    return so


class Protocol:
    """Owns the protocol stream (a private duplicate of fd 1)."""

    def __init__(self):
        sys.stdout.flush()
        proto_fd = os.dup(1)
        os.dup2(2, 1)  # fd 1 is now stderr: native printf can no longer reach the protocol
        sys.stdout = sys.stderr
        self._out = os.fdopen(proto_fd, "w", buffering=1, encoding="utf-8")
        # json.dumps builds an encoder per call when given an option: one, kept, does the same
        self._encode = json.JSONEncoder(allow_nan=False).encode

    def send(self, obj):
        self._out.write(self._encode(obj) + "\n")
        self._out.flush()


def _error_reply(req_id, phase, exc, seconds):
    text = str(exc) or repr(exc)
    reply = {"id": req_id, "phase": phase, "status": "error", "type": type(exc).__name__,
             "message": text, "seconds": seconds}
    if phase == "prepare" and getattr(exc, "nnfuzz_stage", None):
        reply["stage"] = exc.nnfuzz_stage
    return reply


def read_file(path):
    """A file's bytes in four system calls (open, fstat, read, close): Python's open() makes nine,
    and a worker reads two files a case."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size) if size > 0 else b""
        if size > 0 and len(data) == size:
            return data  # a regular file: all of it in one read
        chunks = [data]  # empty by its size (/proc), or cut short: on to end of file
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_file(path, data):
    """Creates or truncates `path` and writes `data`, in three system calls (open() makes six)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def read_case_tensors(data_dir, kind):
    """The TensorProtos of a data set's inputs or outputs (kind "input" or "output"): packed in
    one SequenceProto (inputs.pb, nnfuzz's default) or one input_N.pb each (ONNX's layout)."""
    import onnx

    try:
        data = read_file(os.path.join(data_dir, f"{kind}s.pb"))
    except FileNotFoundError:
        data = None
    if data is not None:
        seq = onnx.SequenceProto()
        seq.ParseFromString(data)
        return list(seq.tensor_values)
    protos = []
    while os.path.exists(os.path.join(data_dir, f"{kind}_{len(protos)}.pb")):
        proto = onnx.TensorProto()
        proto.ParseFromString(read_file(os.path.join(data_dir, f"{kind}_{len(protos)}.pb")))
        protos.append(proto)
    return protos


@functools.lru_cache(maxsize=None)
def _np_dtype(elem_type):
    """helper.tensor_dtype_to_np_dtype, remembered: it costs microseconds a call, per tensor."""
    import numpy as np
    from onnx import helper

    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))


def tensor_to_array(proto):
    """numpy_helper.to_array, with a fast path for raw little-endian data (what nnfuzz writes):
    a third of the time on small tensors."""
    import numpy as np
    from onnx import numpy_helper

    dtype = None
    if proto.HasField("raw_data") and sys.byteorder == "little" and proto.data_type not in _SLOW_TYPES:
        dtype = _np_dtype(proto.data_type)
    if dtype is None or len(proto.raw_data) != dtype.itemsize * math.prod(proto.dims):
        return numpy_helper.to_array(proto)
    return np.frombuffer(proto.raw_data, dtype=dtype).reshape(tuple(proto.dims)).copy()


def array_to_tensor(arr, name):
    """numpy_helper.from_array, with a fast path for the plain numeric dtypes."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    arr = np.asarray(arr)
    if arr.dtype.kind not in "biuf" or arr.dtype.itemsize > 8 or arr.dtype == np.float16:
        return numpy_helper.from_array(arr, name=name)
    proto = TensorProto()
    proto.name = name
    proto.data_type = helper.np_dtype_to_tensor_dtype(arr.dtype)
    proto.dims.extend(arr.shape)
    proto.raw_data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return proto


def read_case(case_dir, model):
    """Loads test_data_set_0's inputs (either layout) as numpy arrays matched to the model's runtime inputs.
    Tensors are matched by name when the names agree (our cases and ONNX's name them), else
    by position; a dtype or shape that disagrees with the model is a HarnessError: casting
    silently would test a different model."""
    import onnx

    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    data_dir = os.path.join(case_dir, "test_data_set_0")
    arrays = [(proto.name, tensor_to_array(proto)) for proto in read_case_tensors(data_dir, "input")]
    if len(arrays) != len(inputs):
        raise HarnessError(f"the model has {len(inputs)} runtime inputs, the case {len(arrays)}")
    by_name = {name: arr for name, arr in arrays}
    use_names = all(i.name in by_name for i in inputs)
    feeds = []
    for pos, info in enumerate(inputs):
        arr = by_name[info.name] if use_names else arrays[pos][1]
        want = _np_dtype(info.type.tensor_type.elem_type)
        if arr.dtype != want:
            raise HarnessError(f"input {info.name} is {arr.dtype} in the case, {want} in the model")
        dims = info.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims) and list(arr.shape) != [d.dim_value for d in dims]:
            raise HarnessError(f"input {info.name} has shape {list(arr.shape)}, the model {[d.dim_value for d in dims]}")
        # not np.ascontiguousarray: it turns a 0-d (scalar) input into shape (1,)
        feeds.append((info.name, arr if arr.flags.c_contiguous else arr.copy(order="C")))
    return feeds


def _output_tensors(model, outputs):
    import numpy as np

    names = [o.name for o in model.graph.output]
    return [array_to_tensor(np.asarray(value), names[n] if n < len(names) else f"output_{n}")
            for n, value in enumerate(outputs)]


def write_outputs(out_dir, model, outputs):
    """Writes output_N.pb named as the model's outputs; returns the absolute paths."""
    paths = []
    for n, proto in enumerate(_output_tensors(model, outputs)):
        path = os.path.abspath(os.path.join(out_dir, f"output_{n}.pb"))
        _write_output_file(path, proto.SerializeToString())
        paths.append(path)
    return paths


def write_packed_outputs(out_dir, model, outputs):
    """Writes every output into one SequenceProto, out_dir/outputs.pb (protocol 2: one file to
    create and read instead of one per output); returns its absolute path."""
    from onnx import SequenceProto

    seq = SequenceProto(name="outputs", elem_type=SequenceProto.TENSOR)
    seq.tensor_values.extend(_output_tensors(model, outputs))
    path = os.path.abspath(os.path.join(out_dir, "outputs.pb"))
    _write_output_file(path, seq.SerializeToString())
    return path


def _write_output_file(path, data):
    """write_file, making the output folder first if it is missing (nnfuzz makes it: this is
    cheaper than asking each case whether it exists)."""
    try:
        write_file(path, data)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_file(path, data)


def load_model(model_path):
    """The parsed model and its bytes (None when tensors may live in external files, which a
    SUT must then find next to the path). The file is read once, unless its bytes hold the key
    external data needs: then onnx.load reads it and the external files."""
    import onnx

    data = read_file(model_path)
    if b"location" in data:
        return onnx.load(model_path), None
    model = onnx.ModelProto()
    model.ParseFromString(data)
    return model, data


def _timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def serve_one(backend, req, send):
    """Handles one request: a prepare reply, then (if prepare succeeded) a run reply.

    The last reply goes out only once everything the request made is freed (outputs, inputs,
    model, exceptions and the frames their tracebacks hold): a SUT that crashes while freeing
    them (an output array backed by its memory, a destructor) then dies during its request,
    where nnfuzz blames the right case, instead of after it, where the death would be skipped
    or blamed on the next one."""
    reply = _handle(backend, req, send)  # its locals, and what they hold, die as it returns
    backend.model_bytes = None
    send(reply)


def _handle(backend, req, send):
    """serve_one's work: sends the prepare reply when prepare succeeded and returns the last
    reply, which holds plain data only. Error replies are built inside `except` and returned:
    the exception and its traceback die as the block ends."""
    req_id = req.get("id")
    start = time.perf_counter()
    packed = req.get("packed") is True
    try:
        backend.disabled = [str(name) for name in req.get("disable") or []]
        case_dir, out_dir = req["case"], req["out"]
        model_path = os.path.join(case_dir, "model.onnx")
        model, backend.model_bytes = load_model(model_path)
        feeds = read_case(case_dir, model)
    except Exception as exc:  # the case, not the SUT: never an SUT finding
        return {"id": req_id, "phase": "prepare", "status": "worker_error",
                "type": type(exc).__name__, "message": str(exc), "seconds": 0.0}
    try:
        prepared, seconds = _timed(backend.prepare, model_path, model)
    except HarnessError as exc:  # the case lacks what this worker reads (a Caffe worker: the Caffe form)
        return {"id": req_id, "phase": "prepare", "status": "worker_error",
                "type": type(exc).__name__, "message": str(exc), "seconds": 0.0}
    except Exception as exc:
        traceback.print_exc()  # stderr: part of the finding's context
        return _error_reply(req_id, "prepare", exc, time.perf_counter() - start)
    send({"id": req_id, "phase": "prepare", "status": "ok", "seconds": seconds})
    start = time.perf_counter()
    seconds = 0.0
    try:
        outputs, seconds = _timed(backend.run, prepared, feeds)
        outputs = list(outputs)
    except Exception as exc:
        traceback.print_exc()
        return _error_reply(req_id, "run", exc, time.perf_counter() - start)
    finally:
        freeing = time.perf_counter()
        del prepared  # free the compiled model before the next case
        # the SUT's own teardown (a TVM module: tens of ms) counts as the SUT's time, not the harness's
        seconds += time.perf_counter() - freeing
    try:
        written = (("outputs_file", write_packed_outputs(out_dir, model, outputs)) if packed
                   else ("outputs", write_outputs(out_dir, model, outputs)))
    except Exception as exc:  # e.g. an output numpy cannot represent: the SUT's doing
        return _error_reply(req_id, "run", exc, seconds)
    return {"id": req_id, "phase": "run", "status": "ok", written[0]: written[1], "seconds": seconds}


def main(backend_class, argv=None):
    argv = sys.argv[1:] if argv is None else argv
    faulthandler.enable(all_threads=True)
    mode = None
    if len(argv) == 2 and argv[0] == "--mode":
        mode = argv[1]
    if mode not in backend_class.MODES:
        print(f"{backend_class.NAME} worker: usage: --mode {{{','.join(backend_class.MODES)}}}",
              file=sys.stderr)
        return 2
    proto = Protocol()
    backend = backend_class(mode)
    try:
        import numpy  # noqa: F401  (before the hello: the first case should not pay for it)
        import onnx  # noqa: F401
        version = backend.load()
    except ImportError as exc:
        print(f"{backend_class.NAME} worker: not installed: {exc}", file=sys.stderr)
        return 3
    forking = os.environ.get("NNFUZZ_FORK_SERVER") == "1" and (backend.FORK_SAFE or _single_threaded())
    hello = {"hello": backend_class.NAME, "version": version, "modes": list(backend_class.MODES),
             "protocol": PROTOCOL_VERSION, "fork_server": forking}
    if backend_class.PASSES.get(mode):
        hello["passes"] = list(backend_class.PASSES[mode])
    proto.send(hello)
    # The SUT's and numpy's modules stay for good: the collector need not walk them again
    # each time it runs (about 1% of a campaign's CPU).
    gc.freeze()
    if forking:
        return _keep_forking(backend, proto)
    _serve(backend, proto, None)
    return 0


def _serve(backend, proto, serving):
    """The request loop. `serving` (fork server only) is shared with the keeper: the id of the
    request in hand, 0 between requests."""
    while True:
        if serving is not None:
            _SERVING.pack_into(serving, 0, 0)
        line = sys.stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError:
            print(f"worker: ignoring a request that is not JSON: {line[:200]!r}", file=sys.stderr)
            continue
        if serving is not None and isinstance(req.get("id"), int) and 0 < req["id"] < 2 ** 63:
            _SERVING.pack_into(serving, 0, req["id"])
        # Anything escaping serve_one (say MemoryError while replying) ends the worker: nnfuzz
        # sees it die mid-case, reads the traceback on stderr and starts a fresh one.
        serve_one(backend, req, proto.send)


_SERVING = struct.Struct("q")


def _single_threaded():
    """Forking copies only the calling thread: a SUT that started threads while loading
    (a pool, a watchdog) would wake up in the child without them."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _keep_forking(backend, proto):
    """The fork server (docs/worker-protocol.md): this process, with the SUT loaded, forks a
    child that serves requests. The child's "forked" line tells nnfuzz whom to kill on a
    timeout; when the child dies, a "died" line says how and during which request, and the
    next child is one fork away instead of a restart with every import."""
    serving = mmap.mmap(-1, _SERVING.size)  # MAP_SHARED: the child's writes reach the keeper
    die_with_parent = _death_signal_setter()
    while True:
        _SERVING.pack_into(serving, 0, 0)
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                # A process group of its own, named on the "forked" line: nnfuzz can then kill a
                # hung child, and whatever it started (a compiler), and leave the keeper be.
                os.setpgid(0, 0)
                die_with_parent()
                proto.send({"forked": os.getpid()})
                _serve(backend, proto, serving)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # what would have ended a plain worker: the traceback, status 1
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            os._exit(code)  # no interpreter shutdown: the keeper owns the SUT's teardown
        # Unreaped, the child's pid cannot be reused: its group is killed (what it started and
        # left behind) before the child is reaped. Both calls are retried on EINTR (PEP 475).
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        served = _SERVING.unpack_from(serving, 0)[0]
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and served == 0:
            return 0  # end of input
        died = ({"signal": os.WTERMSIG(status)} if os.WIFSIGNALED(status)
                else {"exit": os.WEXITSTATUS(status)})
        proto.send({"died": died, "id": served or None})


def _death_signal_setter():
    """What a child calls first to die with the keeper (PR_SET_PDEATHSIG), as the keeper dies
    with nnfuzz; looked up once, before forking."""
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda: None
    keeper = os.getpid()

    def set_it():
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != keeper:  # the keeper died before prctl took effect
            os._exit(1)
    return set_it
