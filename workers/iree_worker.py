#!/usr/bin/env python3
"""iree_worker.py - nnfuzz worker for IREE (ONNX import, llvm-cpu compile, in-process runtime).

Prepare runs IREE's two command-line steps as subprocesses, so a crash or hang in either is a
finding and never kills the worker: `iree-import-onnx` (torch-mlir's ONNX importer, ONNX to
the torch dialect; the stage "convert") and `iree-compile` (torch dialect to a .vmfb for the
llvm-cpu backend; the stage "compile": the compiler's own conversion failure, apart from the
importer's). Run loads the .vmfb into the in-process runtime (driver local-sync: one thread)
and calls the function named after the graph with the inputs in graph-input order.

Modes set the compiler's optimisation level: `opt` = --iree-opt-level=O2 for the host CPU,
`noopt` = O0 (IREE's default) for the host CPU, `generic` = O2 for a generic x86-64 CPU
(no AVX: other vector widths and kernels). Every mode keeps f64 and i64 as written
(--iree-input-demote-f64-to-f32=false, --iree-input-demote-i64-to-i32=false): IREE demotes
f64 by default, which would compare f32 results against our double reference.

IREE's integers are signless, so an unsigned result comes back as the signed numpy type of its
width with the right bits; it is viewed as the declared type (signed_as_declared).

A subprocess that outlives TIMEOUT_SECONDS is killed and reported as an error of type
Timeout; nnfuzz's prepare limit for this backend (config/backends.json) is set above twice
that, so a hang is reported by the worker with its stage instead of killing the worker.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

TIMEOUT_SECONDS = float(os.environ.get("NNFUZZ_IREE_TIMEOUT", "90"))
COMMON_FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-input-demote-f64-to-f32=false", "--iree-input-demote-i64-to-i32=false"]
MODE_FLAGS = {"opt": ["--iree-opt-level=O2", "--iree-llvmcpu-target-cpu=host"],
              "noopt": ["--iree-opt-level=O0", "--iree-llvmcpu-target-cpu=host"],
              "generic": ["--iree-opt-level=O2", "--iree-llvmcpu-target-cpu=generic"]}


class ImportFailed(Exception):
    """iree-import-onnx exited with an error."""


class CompileFailed(Exception):
    """iree-compile exited with an error."""


class ToolCrashed(Exception):
    """A step died of a signal; the message names the signal and the fatal line."""


class Timeout(Exception):
    """A step ran longer than TIMEOUT_SECONDS and was killed."""


def compile_flags(mode):
    """iree-compile's flags for a mode (the repro template writes the same list)."""
    return COMMON_FLAGS + MODE_FLAGS[mode]


def gist(text):
    """The lines of a tool's stderr that say what went wrong: MLIR diagnostics ("error:",
    with the file:line:col prefix dropped), the ONNX operator a failing torch.operator stands
    for, a Python exception's last line, LLVM's assertion or fatal lines; at most six."""
    kept = []
    lines = text.splitlines()
    for n, line in enumerate(lines):
        line = line.strip()
        diag = re.search(r"\b(error|LLVM ERROR|Assertion .* failed|UNREACHABLE)\b:?(.*)", line)
        if re.match(r"^[\w.]*(Error|Exception)\b", line) or (diag and not line.startswith("File ")):
            line = re.sub(r"^(\S+:\d+:\d+|<unknown>:\d+): (error: )?", "", line)  # the .mlir file's line:column
            kept.append(re.sub(r"(marked illegal|failed to legalize operation '[\w.]+'): %.*", r"\1", line))  # the op's text
            follow = " ".join(lines[n + 1:n + 3])
            op = re.search(r'torch\.operator "(onnx\.\w+)"', follow) or re.search(r'"(onnx\.\w+)"', line)
            if op and op.group(1) not in kept[-1]:
                kept[-1] += f" [{op.group(1)}]"
    if not kept:  # nothing recognisable: the last non-empty lines
        kept = [line.strip() for line in lines if line.strip()][-3:]
    return " | ".join(dict.fromkeys(kept))[:2000] if kept else "(no output)"


def crash_gist(text):
    """Where a tool died, from LLVM's stack dump: the innermost frames of its own code (the
    signal handler's and libc's left out) and the innermost pass that was running."""
    frames = re.findall(r"^\s*#\d+ 0x[0-9a-f]+ (.+?)(?: \S+:\d+:\d+| \(\S+\))?$", text, re.M)
    own = [f for f in frames if not re.search(r"llvm::sys::|SignalHandler|^\(/|libc\.so", f)]
    passes = [f for f in own if "runOnOperation" in f and "mlir::detail::" not in f]
    chosen = own[:2] + passes[:1]
    return " | ".join(dict.fromkeys(chosen)) if chosen else gist(text)


def run_step(tool, argv, failure, stage_name):
    """Runs one step; its stderr goes on to ours (kept by nnfuzz) and, distilled, into the
    exception raised when it fails, dies or hangs. The stage is attached to the exception."""
    with common.stage(stage_name):
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired as exc:
            sys.stderr.write((exc.stderr or b"").decode("utf-8", "replace"))
            raise Timeout(f"{tool} ran longer than {TIMEOUT_SECONDS:g} s") from None
        text = proc.stderr.decode("utf-8", "replace") + proc.stdout.decode("utf-8", "replace")
        sys.stderr.write(text)
        if proc.returncode < 0:
            name = signal.Signals(-proc.returncode).name
            raise ToolCrashed(f"{stage_name} step died of {name}: {crash_gist(text)}")
        if proc.returncode != 0:
            raise failure(gist(text))


def signed_as_declared(value, declared):
    """IREE's integers are signless (MLIR's builtin types): a ui8 result comes back as numpy
    int8 with the right bits. Such a result is viewed as the declared type of the same width;
    any other dtype difference stays, as a finding."""
    declared = np.dtype(declared)
    if (value.dtype.kind in "iu" and declared.kind in "iu" and value.dtype != declared
            and value.dtype.itemsize == declared.itemsize):
        return value.view(declared)
    return value


class Iree(common.Backend):
    NAME = "iree"
    MODES = {"opt": "iree-compile --iree-opt-level=O2, llvm-cpu for the host CPU",
             "noopt": "iree-compile --iree-opt-level=O0, llvm-cpu for the host CPU",
             "generic": "iree-compile --iree-opt-level=O2, llvm-cpu for a generic x86-64 CPU"}

    def load(self):
        from importlib import metadata

        import iree.runtime as rt
        from iree.compiler.tools import binaries
        self.rt = rt
        self.compiler = binaries.find_tool("iree-compile")
        self.dir = tempfile.mkdtemp(prefix="nnfuzz-iree-")
        self.config = rt.Config("local-sync")
        compiler, runtime = metadata.version("iree-base-compiler"), metadata.version("iree-base-runtime")
        return compiler if compiler == runtime else f"compiler {compiler}, runtime {runtime}"

    def prepare(self, model_path, model):
        import onnx
        mlir, vmfb = os.path.join(self.dir, "model.mlir"), os.path.join(self.dir, "model.vmfb")
        for path in (mlir, vmfb):
            if os.path.exists(path):
                os.remove(path)
        run_step("iree-import-onnx", [sys.executable, "-m", "iree.compiler.tools.import_onnx", model_path, "-o", mlir],
                 ImportFailed, "convert")
        run_step("iree-compile", [self.compiler, mlir, *compile_flags(self.mode), "-o", vmfb], CompileFailed, "compile")
        with open(vmfb, "rb") as f:
            flatbuffer = f.read()
        context = self.rt.SystemContext(config=self.config)
        vm_module = self.rt.VmModule.copy_buffer(context.instance, flatbuffer)
        context.add_vm_module(vm_module)
        function = context.modules[vm_module.name][model.graph.name]
        declared = [onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type) for o in model.graph.output]
        return context, function, declared

    def run(self, prepared, feeds):
        _, function, declared = prepared
        results = function(*[arr for _, arr in feeds])
        if not isinstance(results, (tuple, list)):  # a single result comes back bare
            results = (results,)
        # Copied while the DeviceArray lives: to_host() may map the result's buffer, and a view
        # of it outlives the buffer otherwise (read back as freed memory: campaign c22).
        return [signed_as_declared(np.array(r.to_host() if hasattr(r, "to_host") else r, copy=True), want)
                for r, want in zip(results, declared)]


if __name__ == "__main__":
    sys.exit(common.main(Iree))
