# --- nnfuzz repro: a backend without a Python template (src/store/repro/generic.py) -------
# nnfuzz knows no Python API for this backend, so the repro drives its worker the way the
# campaign did (docs/worker-protocol.md): BUG["worker"] holds the worker's command and
# environment; the bundle folder itself is the case. Any engine with a worker, in whatever
# language, gets a one-command repro this way.
import signal as _signal


def _die_with_parent():
    try:  # Linux: the worker goes when this child goes (a timeout kills the child)
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, _signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _error(reply):
    """The worker's error reply as an exception of the SUT's own type name."""
    if reply.get("stage"):
        stage(reply["stage"])
    kind = type(str(reply.get("type") or "WorkerError"), (Exception,), {})
    return kind(reply.get("message", ""))


def _reply(proc, phase):
    line = proc.stdout.readline()
    if not line:
        code = proc.wait()
        if code < 0:  # the worker died by a signal: this child dies by it too, as nnfuzz saw it
            os.kill(os.getpid(), -code)
        raise RuntimeError("the worker exited with status %d during %s" % (code, phase))
    reply = json.loads(line)
    if reply.get("status") == "worker_error":
        raise RuntimeError("the worker could not use the case: %s" % reply.get("message", ""))
    return reply


def prepare(model_path, mode):
    worker = BUG.get("worker") or {}
    if not worker.get("command"):
        raise NotImplementedError("no worker command recorded for backend %r" % BUG["backend"])
    env = dict(os.environ)
    env.update({k: str(v) for k, v in worker.get("env", {}).items()})
    out_dir = tempfile.mkdtemp(prefix="nnfuzz-repro-out-")
    proc = subprocess.Popen(list(worker["command"]) + ["--mode", mode], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, text=True, preexec_fn=_die_with_parent)
    hello = proc.stdout.readline()
    if not hello:
        raise RuntimeError("the worker exited with status %d before its hello" % proc.wait())
    request = {"id": 1, "case": os.path.dirname(os.path.abspath(model_path)), "out": out_dir}
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    reply = _reply(proc, "prepare")
    if reply.get("status") != "ok":
        raise _error(reply)
    return proc


def run(proc, feeds):
    reply = _reply(proc, "run")
    proc.stdin.close()
    if reply.get("status") != "ok":
        raise _error(reply)
    import onnx
    from onnx import numpy_helper
    return [numpy_helper.to_array(onnx.load_tensor(path)) for path in reply["outputs"]]
