"""driver.py - helpers for the worker tests: a protocol driver and hand-made case folders.

(Not conftest.py: tools/tests has one too, and `from conftest import` would be ambiguous.)"""
import json
import os
import select
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

WORKERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(WORKERS)


class Driver:
    """Speaks the worker protocol from the nnfuzz side (just enough for tests)."""

    def __init__(self, argv, timeout=120, stderr=subprocess.PIPE, env=None):
        """stderr: a file for a worker that writes more than a pipe holds (nothing drains it).
        env: the worker's environment (default: this process's)."""
        self.timeout = timeout
        # stdout unbuffered and split by hand: select() on a buffered reader would miss a
        # second line that arrived with the first
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, bufsize=0, env=env)
        self.buffer = b""
        self.forked = None  # a fork server's serving child (its last "forked" line)
        started = time.perf_counter()
        self.hello = self.read()
        self.start_seconds = time.perf_counter() - started
        self.next_id = 1

    def read(self):
        """The next protocol line; a fork server's "forked" lines are noted and skipped, as nnfuzz does."""
        while "forked" in (line := self._read_line()):
            self.forked = line["forked"]
        return line

    def _read_line(self):
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0, deadline - time.monotonic()))
            assert ready, "worker did not answer in time"
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            assert chunk, "worker closed stdout; stderr:\n" + (
                self.proc.stderr.read()[-3000:].decode() if self.proc.stderr else "(in a file)")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def send(self, case, out, **fields):
        """Sends a request without reading the replies; returns its id."""
        req_id = self.next_id
        self.next_id += 1
        os.makedirs(out, exist_ok=True)
        req = {"id": req_id, "case": str(case), "out": str(out), **fields}
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        return req_id

    def request(self, case, out, **fields):
        """fields: more request fields, e.g. packed=True (protocol 2)."""
        req_id = self.send(case, out, **fields)
        replies = [self.read()]
        if replies[0]["status"] == "ok":
            replies.append(self.read())
        for r in replies:
            assert r["id"] == req_id
        return replies

    def close(self):
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self.proc.stdout.close()
        if self.proc.stderr:
            self.proc.stderr.close()
        return code


def write_case(folder, model, inputs):
    """model.onnx + test_data_set_0/input_N.pb + output_N.pb from onnx's reference evaluator."""
    from onnx.reference import ReferenceEvaluator
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, folder / "model.onnx")
    names = [i.name for i in model.graph.input]
    for k, (name, arr) in enumerate(zip(names, inputs)):
        onnx.save_tensor(numpy_helper.from_array(arr, name), data / f"input_{k}.pb")
    outs = ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))
    for k, (o, arr) in enumerate(zip(model.graph.output, outs)):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(arr), o.name), data / f"output_{k}.pb")
    return [np.asarray(a) for a in outs]


def pack_case(folder, packed):
    """A copy of an ONNX-layout case in nnfuzz's packed layout (test_data_set_0/inputs.pb)."""
    import shutil
    data = packed / "test_data_set_0"
    data.mkdir(parents=True)
    shutil.copy(folder / "model.onnx", packed / "model.onnx")
    seq = onnx.SequenceProto(name="inputs", elem_type=onnx.SequenceProto.TENSOR)
    k = 0
    while (folder / "test_data_set_0" / f"input_{k}.pb").exists():
        seq.tensor_values.append(onnx.load_tensor(folder / "test_data_set_0" / f"input_{k}.pb"))
        k += 1
    (data / "inputs.pb").write_bytes(seq.SerializeToString())
    return packed


def load_packed(path):
    """The arrays of a SequenceProto file (a protocol-2 reply's outputs_file) and their names."""
    seq = onnx.SequenceProto()
    with open(path, "rb") as f:
        seq.ParseFromString(f.read())
    return [(t.name, numpy_helper.to_array(t)) for t in seq.tensor_values]


def load_tensor(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


def worker_argv(name, mode):
    return [sys.executable, os.path.join(WORKERS, f"{name}_worker.py"), "--mode", mode]
