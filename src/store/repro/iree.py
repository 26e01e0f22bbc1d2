# --- nnfuzz repro: IREE (src/store/repro/iree.py) -------------------------------------------
# iree-import-onnx (the step "convert") and iree-compile for llvm-cpu (the step "compile") run
# as subprocesses, as nnfuzz's worker runs them (workers/iree_worker.py), with f64 and i64 kept;
# the .vmfb then runs in-process on the local-sync driver, calling the function named after
# the graph. Modes: opt = --iree-opt-level=O2 for the host CPU, noopt = O0 for the host CPU,
# generic = O2 for a generic CPU. A step's failure, death or hang becomes an exception whose message
# is distilled from its stderr the way the worker distils it, so the message compares equal.
import re
import signal

import iree.runtime
from iree.compiler.tools import binaries

FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-input-demote-f64-to-f32=false", "--iree-input-demote-i64-to-i32=false"]
STEP_SECONDS = 90  # the worker's limit for one step: longer is the finding "Timeout"
MODE_FLAGS = {"opt": ["--iree-opt-level=O2", "--iree-llvmcpu-target-cpu=host"],
              "noopt": ["--iree-opt-level=O0", "--iree-llvmcpu-target-cpu=host"],
              "generic": ["--iree-opt-level=O2", "--iree-llvmcpu-target-cpu=generic"]}


class ImportFailed(Exception):
    pass


class CompileFailed(Exception):
    pass


class ToolCrashed(Exception):
    pass


class Timeout(Exception):
    pass


def gist(text):
    """MLIR "error:" lines without their file:line:col, the ONNX operator a failing
    torch.operator stands for, Python exceptions' last lines, LLVM's fatal lines."""
    kept = []
    lines = text.splitlines()
    for n, line in enumerate(lines):
        line = line.strip()
        diag = re.search(r"\b(error|LLVM ERROR|Assertion .* failed|UNREACHABLE)\b:?(.*)", line)
        if re.match(r"^[\w.]*(Error|Exception)\b", line) or (diag and not line.startswith("File ")):
            line = re.sub(r"^(\S+:\d+:\d+|<unknown>:\d+): (error: )?", "", line)
            kept.append(re.sub(r"(marked illegal|failed to legalize operation '[\w.]+'): %.*", r"\1", line))
            follow = " ".join(lines[n + 1:n + 3])
            op = re.search(r'torch\.operator "(onnx\.\w+)"', follow) or re.search(r'"(onnx\.\w+)"', line)
            if op and op.group(1) not in kept[-1]:
                kept[-1] += " [%s]" % op.group(1)
    if not kept:
        kept = [line.strip() for line in lines if line.strip()][-3:]
    return " | ".join(dict.fromkeys(kept))[:2000] if kept else "(no output)"


def crash_gist(text):
    """The innermost frames of LLVM's stack dump (signal handler and libc left out) and the
    innermost pass that was running."""
    frames = re.findall(r"^\s*#\d+ 0x[0-9a-f]+ (.+?)(?: \S+:\d+:\d+| \(\S+\))?$", text, re.M)
    own = [f for f in frames if not re.search(r"llvm::sys::|SignalHandler|^\(/|libc\.so", f)]
    passes = [f for f in own if "runOnOperation" in f and "mlir::detail::" not in f]
    chosen = own[:2] + passes[:1]
    return " | ".join(dict.fromkeys(chosen)) if chosen else gist(text)


def step(tool, argv, failure, name):
    stage(name)
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=STEP_SECONDS)
    except subprocess.TimeoutExpired:
        raise Timeout("%s ran longer than %g s" % (tool, STEP_SECONDS)) from None
    text = proc.stderr.decode("utf-8", "replace") + proc.stdout.decode("utf-8", "replace")
    sys.stderr.write(text)
    if proc.returncode < 0:
        raise ToolCrashed("%s step died of %s: %s" % (name, signal.Signals(-proc.returncode).name, crash_gist(text)))
    if proc.returncode != 0:
        raise failure(gist(text))


def prepare(model_path, mode):
    work = tempfile.mkdtemp(prefix="nnfuzz-repro-iree-")
    mlir, vmfb = os.path.join(work, "model.mlir"), os.path.join(work, "model.vmfb")
    step("iree-import-onnx", [sys.executable, "-m", "iree.compiler.tools.import_onnx", model_path, "-o", mlir], ImportFailed, "convert")
    step("iree-compile", [binaries.find_tool("iree-compile"), mlir, *FLAGS, *MODE_FLAGS[mode], "-o", vmfb], CompileFailed, "compile")
    stage("prepare")
    with open(vmfb, "rb") as f:
        flatbuffer = f.read()
    context = iree.runtime.SystemContext(config=iree.runtime.Config("local-sync"))
    module = iree.runtime.VmModule.copy_buffer(context.instance, flatbuffer)
    context.add_vm_module(module)
    model = onnx.load(model_path)
    declared = [np.dtype(onnx.helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type)) for o in model.graph.output]
    return context, context.modules[module.name][model.graph.name], declared


def run(prepared, feeds):
    """IREE's integers are signless: an unsigned result comes back signed with the right bits,
    and is viewed as the declared type of the same width, as nnfuzz's worker does."""
    _, function, declared = prepared
    results = function(*feeds.values())
    if not isinstance(results, (tuple, list)):
        results = (results,)
    out = []
    for r, want in zip(results, declared):
        value = np.array(r.to_host() if hasattr(r, "to_host") else r, copy=True)  # a mapped view dies with r
        if value.dtype.kind in "iu" and want.kind in "iu" and value.dtype != want and value.dtype.itemsize == want.itemsize:
            value = value.view(want)
        out.append(value)
    return out
