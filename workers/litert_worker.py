#!/usr/bin/env python3
"""litert_worker.py - nnfuzz worker for LiteRT (TFLite), the ONNX model converted by onnx2tf.

Prepare converts model.onnx to a float32 .tflite with onnx2tf (the stage "convert": a
converter failure is an MCF with phase "convert") and builds a LiteRT Interpreter on it, one
thread; run feeds it through its signature runner, by the ONNX input and output names. Modes
choose LiteRT's op resolver: `noopt` = BUILTIN_WITHOUT_DEFAULT_DELEGATES (the optimised
built-in kernels alone), `ref` = BUILTIN_REF (the reference kernels, "for testing and
debugging"), `opt` = BUILTIN with the default delegate, XNNPACK. All three run the same
.tflite file, so mode against mode is LiteRT against itself; the converter's mistakes show
against the reference, in every mode alike.

onnx2tf needs the whole of TensorFlow and pins its own onnx, numpy and protobuf, so LiteRT
lives in its own virtualenv, .venv-litert (scripts/setup.sh --with-litert): started by any
Python, this file runs itself again with that venv's, or says "not installed" (exit 3).
onnx2tf runs in a child process that stays up across cases (litert_convert.py: TensorFlow
takes ~8 s to import), in this worker's process group, so nnfuzz's prepare time limit kills
a hung conversion with the worker; a converter that dies by a signal takes the worker down
with the same signal, so the crash is recorded in the stage convert. The modes of one case
convert once: the first worker to meet a model stores its .tflite (or its conversion error)
under the temp folder by the hash of the model and of the converter's code and versions, and
the others take it from there.

onnx2tf keeps every input as the ONNX graph declares it (see litert_convert.py) but may hand
back a 3-D to 5-D output channel-last; it says which (onnx_output_layouts), and those outputs
are transposed back to channel-first here before they are compared; so is an output its record
misses whose shape is exactly the channel-last form of the ONNX shape (and not the ONNX shape).
"""

import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV_PYTHON = os.environ.get("NNFUZZ_LITERT_PYTHON") or os.path.join(ROOT, ".venv-litert", "bin", "python")

sys.path.insert(0, HERE)
import common  # noqa: E402

# Outside nnfuzz (whose prepare limit comes first) a hung conversion still ends.
CONVERT_SECONDS = float(os.environ.get("NNFUZZ_LITERT_CONVERT_SECONDS", "600"))
CONVERTER_START_SECONDS = 300
RECYCLE_AFTER = 200  # conversions per converter process: TensorFlow's memory only grows
CACHE_MINUTES = 30


class ConversionFailed(Exception):
    """The converter process ended without converting (exit status, no reply in time)."""


class NoInputs(Exception):
    """A model without runtime inputs: onnx2tf cannot convert it (a documented limitation)."""


class LiteRTError(RuntimeError):
    """The converted model does not fit the ONNX graph it came from (inputs or outputs by name)."""


def in_litert_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(os.path.dirname(os.path.dirname(VENV_PYTHON)))


def channel_first(value):
    """Undoes onnx2tf's channel-last layout of a rank >= 3 tensor: N, spatial..., C -> N, C, spatial..."""
    rank = value.ndim
    return value.transpose([0, rank - 1, *range(1, rank - 1)]) if rank >= 3 else value


def unrecorded_channel_last(shape, declared):
    """onnx2tf's record of channel-last outputs misses some (a 5-D BatchNormalization with runtime
    mean and variance comes back N, D, H, W, C, recorded as not channel-last): an output whose
    shape is not the ONNX one but exactly its channel-last form is taken as channel-last too."""
    if declared is None or None in declared or len(declared) < 3 or list(shape) == declared:
        return False
    return list(shape) == [declared[0], *declared[2:], declared[1]]


class Converter:
    """The onnx2tf child process (litert_convert.py), started on first use."""

    def __init__(self):
        self.proc, self.used = None, 0

    def start(self):
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "litert_convert.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None)
        self.used = 0
        ready = self.reply(CONVERTER_START_SECONDS)
        if "ready" not in ready:
            raise ConversionFailed(f"the onnx2tf process did not start: {ready}")

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def reply(self, seconds):
        """The converter's next line; its death by a signal is this worker's death by it."""
        deadline = time.monotonic() + seconds
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready = select.select([self.proc.stdout], [], [], max(0.0, left))[0]
            if not ready:
                self.stop()
                raise ConversionFailed(f"onnx2tf did not finish in {seconds:.0f} s (killed)")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                code = self.proc.wait()
                self.proc = None
                if code < 0:
                    die_like(-code)
                raise ConversionFailed(f"the onnx2tf process exited with status {code} mid-conversion")
            line += chunk
        return json.loads(line)

    def convert(self, model_path, out_dir):
        if self.proc is None or self.used >= RECYCLE_AFTER:
            self.stop()
            self.start()
        self.used += 1
        self.proc.stdin.write((json.dumps({"model": model_path, "out": out_dir}) + "\n").encode())
        self.proc.stdin.flush()
        return self.reply(CONVERT_SECONDS)


def converter_error(name):
    """An exception class named as the one raised in the converter process."""
    return ConversionFailed if name == ConversionFailed.__name__ else type(name, (ConversionFailed,), {})


def die_like(sig):
    """The converter died by `sig`: so does the worker, inside the stage convert, so nnfuzz
    files a crash of the converter (its stack is on the shared stderr already)."""
    import faulthandler
    sys.stderr.write(f"\nlitert worker: onnx2tf died by signal {sig}; the worker follows it\n")
    sys.stderr.flush()
    faulthandler.disable()  # the worker's own stack would only mislead
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    time.sleep(5)
    os._exit(128 + sig)


class ConversionCache:
    """Conversions by model hash, shared by the mode workers of one machine: the .tflite, or
    the error. A folder appears whole (renamed into place) or not at all."""

    def __init__(self):
        self.root = os.path.join(tempfile.gettempdir(), f"nnfuzz-litert-{os.getuid()}")
        os.makedirs(self.root, exist_ok=True)
        self.pruned = 0.0

    def lookup(self, key):
        try:
            with open(os.path.join(self.root, key, "result.json")) as f:
                result = json.load(f)
        except (OSError, ValueError):
            return None
        if result.get("tflite"):
            result["tflite"] = os.path.join(self.root, key, result["tflite"])
        return result

    def store(self, key, result, work_dir):
        """Moves the result (and its .tflite, from work_dir) in; returns it as stored."""
        stored = dict(result)
        if result.get("tflite"):
            stored["tflite"] = os.path.basename(result["tflite"])
            shutil.move(result["tflite"], os.path.join(work_dir, stored["tflite"]))
        with open(os.path.join(work_dir, "result.json"), "w") as f:
            json.dump(stored, f)
        try:
            os.rename(work_dir, os.path.join(self.root, key))
        except OSError:  # another mode's worker stored it first: same model, same conversion
            shutil.rmtree(work_dir, ignore_errors=True)
        self.prune()
        return self.lookup(key)

    def prune(self):
        now = time.time()
        if now - self.pruned < 60:
            return
        self.pruned = now
        for name in os.listdir(self.root):
            path = os.path.join(self.root, name)
            try:
                if now - os.path.getmtime(path) > CACHE_MINUTES * 60:
                    shutil.rmtree(path, ignore_errors=True)
            except OSError:
                pass


class LiteRT(common.Backend):
    NAME = "litert"
    MODES = {"noopt": "op resolver BUILTIN_WITHOUT_DEFAULT_DELEGATES (built-in kernels, no XNNPACK)",
             "ref": "op resolver BUILTIN_REF (reference kernels)",
             "opt": "op resolver BUILTIN with the default XNNPACK delegate"}

    def load(self):
        from importlib import metadata
        from ai_edge_litert import interpreter
        for package in ("onnx2tf", "tensorflow"):
            metadata.version(package)  # PackageNotFoundError is an ImportError: "not installed"
        self.litert = interpreter
        resolvers = {"noopt": "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "ref": "BUILTIN_REF", "opt": "BUILTIN"}
        self.resolver = getattr(interpreter.OpResolverType, resolvers[self.mode])
        self.converter, self.cache = Converter(), ConversionCache()
        # A conversion is keyed by the model and by how it was made: the converter's code and versions
        with open(os.path.join(HERE, "litert_convert.py"), "rb") as f:
            self.recipe = f.read() + metadata.version("onnx2tf").encode() + metadata.version("tensorflow").encode()
        return (f"{metadata.version('ai-edge-litert')} (onnx2tf {metadata.version('onnx2tf')}, "
                f"tensorflow {metadata.version('tensorflow')})")

    def convert(self, model_path):
        digest = hashlib.sha256(self.recipe)
        with open(model_path, "rb") as f:
            digest.update(f.read())
        key = digest.hexdigest()[:32]
        result = self.cache.lookup(key)
        if result is None:
            work = tempfile.mkdtemp(prefix=f"{key}.", dir=self.cache.root)
            result = self.converter.convert(os.path.abspath(model_path), work)
            if result.get("type") == "MemoryError":  # not the model's doing: convert it again next time
                shutil.rmtree(work, ignore_errors=True)
            else:
                result = self.cache.store(key, result, work)
        if result["status"] != "ok":  # reported under the converter's own exception type
            error = converter_error(result["type"])(result["message"])
            error.nnfuzz_stage = "convert"
            raise error
        return result["tflite"], result["outputs"]

    def prepare(self, model_path, model):
        initializers = {t.name for t in model.graph.initializer}
        if all(i.name in initializers for i in model.graph.input):
            # onnx2tf builds a Keras functional model, which needs an input: it fails on these in
            # ways that vary with the operators (each a "new" bug), so say it once, plainly
            error = NoInputs("onnx2tf converts only models with at least one runtime input; this one has none")
            error.nnfuzz_stage = "convert"
            raise error
        with common.stage("convert"):
            tflite, outputs = self.convert(model_path)
        interpreter = self.litert.Interpreter(model_path=tflite, num_threads=1,
                                              experimental_op_resolver_type=self.resolver)
        interpreter.allocate_tensors()
        runner = interpreter.get_signature_runner()
        declared = {o.name: [d.dim_value if d.HasField("dim_value") else None for d in o.type.tensor_type.shape.dim]
                    for o in model.graph.output}
        return interpreter, runner, runner.get_input_details(), [(*o, declared.get(o[0])) for o in outputs]

    def run(self, prepared, feeds):
        _, runner, details, outputs = prepared
        args = {}
        for name, value in feeds:
            key = name if name in details else name.replace(":", "__")  # onnx2tf's renaming
            if key not in details:
                raise LiteRTError(f"the .tflite has no input {name!r} (it has {sorted(details)})")
            args[key] = value
        results = runner(**args)
        values = []
        for name, key, channel_last, declared in outputs:
            if key not in results:
                raise LiteRTError(f"the .tflite has no output {key!r} for {name!r} (it has {sorted(results)})")
            value = results[key]
            if channel_last or unrecorded_channel_last(value.shape, declared):
                value = channel_first(value)
            values.append(value)
        return values


if __name__ == "__main__":
    if not in_litert_venv():
        if not os.access(VENV_PYTHON, os.X_OK):
            sys.stderr.write(f"litert worker: not installed: no {VENV_PYTHON} "
                             "(scripts/setup.sh --with-litert makes it)\n")
            sys.exit(3)
        os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])
    sys.exit(common.main(LiteRT))
