#!/usr/bin/env python3
"""toy_worker.py - a workers/common.py backend for testing the shared helper itself.

Its "SUT" is onnx's ReferenceEvaluator; the mode picks a misbehaviour: `chatty` prints to
stdout from Python and through the raw fd 1 (as native code would), `memory` raises
MemoryError in run, `missing` fails to import its package, `convert-fails` raises inside a
named step of prepare (common.stage). `crashy` dies in prepare when the case folder's name says
how (`segv...`, `exit...`), hangs in prepare with a child process of its own (`hang...`), crashes
when the outputs of run are freed (`late-segv...`) or when the exception run raised is
(`late-segv-raise...`), and serves any other case; `threaded` starts a thread while loading.
"""

import ctypes
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import common  # noqa: E402  (first: it sets the thread knobs numpy's BLAS reads at import)
import numpy as np  # noqa: E402


class CrashesWhenFreed(np.ndarray):
    """An array whose memory the SUT frees wrongly: the crash comes when Python lets go of it."""

    def __del__(self):
        ctypes.string_at(0)  # a real SIGSEGV


class Toy(common.Backend):
    NAME = "toy"
    MODES = {"plain": "", "chatty": "", "memory": "", "missing": "", "convert-fails": "", "crashy": "", "threaded": ""}

    def load(self):
        if self.mode == "missing":
            import nnfuzz_no_such_package  # noqa: F401
        if self.mode == "threaded":
            threading.Thread(target=threading.Event().wait, daemon=True).start()
        import onnx
        return onnx.__version__

    def prepare(self, model_path, model):
        from onnx.reference import ReferenceEvaluator
        case = os.path.basename(os.path.dirname(model_path))
        if self.mode == "crashy" and case.startswith("segv"):
            ctypes.string_at(0)  # a real SIGSEGV, as a native SUT's
        if self.mode == "crashy" and case.startswith("exit"):
            sys.exit(5)
        if self.mode == "crashy" and case.startswith("hang"):
            helper = subprocess.Popen(["sleep", "1000"])  # a compiler it runs: must die with it
            print(f"grandchild {helper.pid}", file=sys.stderr, flush=True)
            threading.Event().wait()
        self.case = case
        if self.mode == "convert-fails":
            with common.stage("convert"):
                raise ValueError("toy converter cannot take Identity")
        if self.mode == "chatty":
            print("python print during prepare")
            os.write(1, b"native write to fd 1 during prepare\n")
        return ReferenceEvaluator(model)

    def run(self, evaluator, feeds):
        if self.mode == "memory":
            raise MemoryError("toy ran out")
        if self.mode == "chatty":
            sys.stdout.write("more chatter\n")
            sys.stdout.flush()
        outputs = evaluator.run(None, dict(feeds))
        if self.mode == "crashy" and self.case.startswith("late-segv"):
            doomed = outputs[0].view(CrashesWhenFreed)
            if self.case.startswith("late-segv-raise"):
                raise RuntimeError("toy failed")  # `doomed` lives on in the traceback's frame
            outputs[0] = doomed
        return outputs


if __name__ == "__main__":
    sys.exit(common.main(Toy))
