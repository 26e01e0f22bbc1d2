# --- nnfuzz repro: common part (src/store/repro/common.py) -------------------------------
# Loads the bundle's case, runs the SUT in a child process (so a crash or hang is observed,
# not suffered), and decides whether the recorded bug is still there. BUG (above) says what
# was recorded; run_sut's backend part (below) says how to drive the SUT.
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
PRESENT, ABSENT, OTHER = 1, 0, 2


def load_case():
    """The model path, the runtime inputs by name, and the reference outputs in order."""
    model_path = os.path.join(HERE, "model.onnx")
    model = onnx.load(model_path)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    data = os.path.join(HERE, "test_data_set_0")
    feeds = {}
    for k, name in enumerate(names):
        feeds[name] = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "input_%d.pb" % k)))
    expected = []
    while os.path.exists(os.path.join(data, "output_%d.pb" % len(expected))):
        expected.append(numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "output_%d.pb" % len(expected)))))
    return model_path, feeds, expected


# --- the message normaliser: a line-for-line port of src/triage/normalize.cpp ---------------
def _digit(c): return "0" <= c <= "9"
def _alpha(c): return "a" <= c <= "z" or "A" <= c <= "Z"
def _word(c): return _digit(c) or _alpha(c) or c == "_"
def _hex(c): return _digit(c) or "a" <= c <= "f" or "A" <= c <= "F"
def _space(c): return c in " \t\r\n\v\f"
def _high(c): return ord(c) >= 0x80
def _pathchar(c): return _word(c) or c in "./-+~"


def _is_name(w):
    us = w.rfind("_")
    if 0 < us < len(w) - 1 and all(_digit(c) for c in w[us + 1:]):
        return True
    for prefix in ("t", "lv", "gv", "tmp"):
        if len(w) > len(prefix) and w.startswith(prefix) and all(_digit(c) for c in w[len(prefix):]):
            return True
    return False


def _with_node_numbers(w):
    if not w or not ("A" <= w[0] <= "Z"):
        return ""
    head = w.split("_", 1)[0]
    if not any("a" <= c <= "z" for c in head):
        return ""
    out, i, numbered = [], 0, False
    while i < len(w):
        if w[i] == "_" and i > 0 and i + 1 < len(w) and _digit(w[i + 1]):
            out.append("_<n>")
            i += 1
            while i < len(w) and _digit(w[i]):
                i += 1
            numbered = True
            continue
        out.append(w[i])
        i += 1
    return "".join(out) if numbered else ""


def _is_bare_hex(w):
    if len(w) < 8 or not all(_hex(c) for c in w):
        return False
    return any(_digit(c) for c in w) and any(not _digit(c) for c in w)


def _is_traceback_line(t):
    if not t or t.startswith("Traceback") or t.startswith('File "'):
        return True
    if t[0] == "%" and " = " in t:
        return True
    if t[0] == "#" and len(t) > 1 and _digit(t[1]):
        return True
    i = 0
    while i < len(t) and _digit(t[i]):
        i += 1
    if i > 0 and i + 1 < len(t) and t[i] == ":" and t[i + 1] == " ":
        return True
    return all(c in "^~ " for c in t)


def _is_error_code(s, begin, end):
    before, after = s[:begin], s[end:]
    if before.endswith("] : ") and after.startswith(" : "):
        return True
    return any(before.endswith(t) for t in ("code ", "code: ", "errno ", "errno: "))


def _collapse_tuples(line):
    out, n, i = [], len(line), 0

    def element_at(at):
        if line.startswith("<n>", at) and (at + 3 >= n or not _word(line[at + 3]) or line.startswith("x<n>", at + 3)):
            return 3
        if at < n and line[at] == "?" and (at + 1 >= n or not _word(line[at + 1])):
            return 1
        return 0

    while i < n:
        ln = element_at(i)
        if ln == 0 or (i > 0 and _word(line[i - 1])):
            out.append(line[i])
            i += 1
            continue
        end, count, number = i + ln, 1, ln == 3
        while end < n:
            sep = end
            while sep < n and sep - end < 3 and not element_at(sep):
                sep += 1
            if sep >= n or not element_at(sep) or line[end:sep] not in (",", ", ", "x", " x ", "..", "*", " "):
                break
            nxt = element_at(sep)
            number = number or nxt == 3
            end = sep + nxt
            count += 1
        out.append("<n>" if count > 1 or number else "?")
        i = end
    return "".join(out)


def _trim(s):
    b, e = 0, len(s)
    while b < e and _space(s[b]):
        b += 1
    while e > b and _space(s[e - 1]):
        e -= 1
    return s[b:e]


def _template_arguments_at(s, i):
    if s[i] != "[":
        return 0
    found = s.startswith("[with ", i)
    if not found and i >= 2 and s[i - 1] == " " and s[i - 2] == ")":
        j = i + 1
        while j < len(s) and _word(s[j]):
            j += 1
        found = j > i + 1 and s.startswith(" = ", j)
    if not found:
        return 0
    depth, j = 0, i
    while j < len(s):
        if s[j] == "[":
            depth += 1
        if s[j] == "]":
            depth -= 1
            if depth == 0:
                return j + 1 - i
        j += 1
    return j - i


def normalize_line(s):
    out, n, i = [], len(s), 0
    while i < n:
        c = s[i]
        if _high(c):
            while i < n and _high(s[i]):
                i += 1
            out.append("?")
            continue
        if _space(c):
            while i < n and _space(s[i]):
                i += 1
            out.append(" ")
            continue
        length = _template_arguments_at(s, i)
        if length:
            if out and out[-1] == " ":
                out.pop()
            i += length
            continue
        if _pathchar(c) and (i == 0 or not _pathchar(s[i - 1])):
            j, slash, dot = i, False, False
            while j < n and _pathchar(s[j]):
                slash = slash or s[j] == "/"
                dot = dot or s[j] == "."
                j += 1
            if slash and (c in "/~" or dot):
                out.append("<path>")
                i = j
                continue
        if c in "-+" and i + 1 < n and _digit(s[i + 1]) and (i == 0 or (not _word(s[i - 1]) and s[i - 1] != ".")):
            i += 1
            continue
        if _word(c):
            j = i
            while j < n and _word(s[j]):
                j += 1
            w = s[i:j]
            if len(w) > 2 and w[0] == "0" and w[1] in "xX" and all(_hex(x) for x in w[2:]):
                out.append("<hex>")
                i = j
                continue
            if _is_bare_hex(w):
                out.append("<hex>")
                i = j
                continue
            if _digit(c):
                k = i
                while k < n and _digit(s[k]):
                    k += 1
                if k + 1 < n and s[k] == "." and _digit(s[k + 1]):
                    k += 1
                    while k < n and _digit(s[k]):
                        k += 1
                if k < n and s[k] in "eE":
                    e = k + 1
                    if e < n and s[e] in "+-":
                        e += 1
                    if e < n and _digit(s[e]):
                        k = e
                        while k < n and _digit(s[k]):
                            k += 1
                if k == j and _is_error_code(s, i, j):
                    out.append(w)
                    i = j
                    continue
                out.append("<n>")
                while k < n and _word(s[k]):
                    if _digit(s[k]):
                        while k < n and _digit(s[k]):
                            k += 1
                        out.append("<n>")
                    else:
                        out.append(s[k])
                        k += 1
                i = k
                continue
            if _is_name(w):
                out.append("<name>")
                k = j
                if k + 1 < n and s[k] == "." and _digit(s[k + 1]):
                    k += 1
                    while k < n and _digit(s[k]):
                        k += 1
                    if k >= n or (not _word(s[k]) and s[k] != "."):
                        j = k
                i = j
                continue
            out.append(_with_node_numbers(w) or w)
            i = j
            continue
        out.append(c)
        i += 1
    return _trim(_collapse_tuples("".join(out)))


_CONVERSION_FAILED_FOR = "Conversion is failed for: "


def _keep_control_flow_failures(line):
    # OpenVINO names every node whose conversion failed; a failing If, Loop or Scan is the failure.
    at = line.find(_CONVERSION_FAILED_FOR)
    if at < 0:
        return line
    start = at + len(_CONVERSION_FAILED_FOR)
    kept = []
    for item in line[start:].split(", "):
        if item.split("-")[0] in ("If", "Loop", "Scan") and item not in kept:
            kept.append(item)
    return line[:start] + ", ".join(kept) if kept else line


# --- Dynamo's wrappers taken off: a port of src/triage/unwrap.cpp's message part -----------
def _ident_char(c): return _word(c) or c == "."
def _ws_trimmed(s):
    b, e = 0, len(s)
    while b < e and s[b] in " \t\r": b += 1
    while e > b and s[e - 1] in " \t\r\n": e -= 1
    return s[b:e]


def _exception_name_at(s):
    i = 0
    while i < len(s) and _ident_char(s[i]):
        i += 1
    name = s[:i]
    named = name.endswith("Error") or name.endswith("Exception")
    return i if named and s[i:].startswith(": ") else 0


def _python_string_at(s, i):
    if i >= len(s) or s[i] not in "'\"":
        return None
    quote, out, k = s[i], "", i + 1
    while k < len(s):
        if s[k] == quote:
            return out
        if s[k] == "\\" and k + 1 < len(s):
            k += 1
            out += {"n": "\n", "t": "\t"}.get(s[k], s[k])
        else:
            out += s[k]
        k += 1
    return None


def _without_torch_size(text):
    key = "torch.Size(["
    at = text.find(key)
    while at >= 0:
        close = text.find("])", at + len(key))
        if close < 0:
            break
        text = text[:at] + text[at + len(key) - 1:close + 1] + text[close + 2:]
        at = text.find(key, at)
    return text


def unwrap_compiler_error(message):
    return _without_torch_size(_unwrapped(message))


def _unwrapped(message):
    dynamo, cut, at = False, None, 0
    while at < len(message):
        end = message.find("\n", at)
        if end < 0:
            end = len(message)
        line = _ws_trimmed(message[at:end])
        if line == "from user code:" or line.startswith("Set TORCHDYNAMO_VERBOSE="):
            cut, dynamo = at, True
            break
        at = end + 1
    body = _ws_trimmed(message[:cut] if cut is not None else message)
    if body.startswith("RuntimeError when making fake tensor call"):
        got = body.find("): got ")
        if got >= 0:
            rest = body[got + 7:]
            name = 0
            while name < len(rest) and _ident_char(rest[name]):
                name += 1
            if 0 < name < len(rest) and rest[name] == "(":
                inner = _python_string_at(rest, name + 1)
                if inner is not None:
                    return inner
    if body.startswith("backend='") and " raised:" in body:
        eol = body.find("\n")
        if eol < 0:
            return message
        body = _ws_trimmed(body[eol + 1:])
        dynamo = True
    if not dynamo:
        return message
    name = _exception_name_at(body)
    return body[name + 2:] if name else body


def _without_onnxruntime_wrappers(message):
    running, status, init = "Non-zero status code returned while running ", "Status Message: ", \
        "Exception during initialization: "
    while True:
        at = message.find(running)
        end = message.find(status, at) if at >= 0 else -1
        if end < 0:
            break
        message = message[:at] + message[end + len(status):]
    return message.replace(init, "")


def normalize_message(message):
    # Bytes as Latin-1 characters: one character per byte, as the C++ scanner sees them.
    if isinstance(message, str):
        message = message.encode("utf-8", "replace")
    text = _without_onnxruntime_wrappers(unwrap_compiler_error(message.decode("latin-1")))
    lines = [_trim(l) for l in text.split("\n")]
    kept = []
    for l in lines:
        if not _is_traceback_line(l) and l not in kept:
            kept.append(l)
    lines = kept
    if len(lines) > 4:
        lines = [lines[0], lines[1], lines[2], lines[-1]]
    out = ""
    for line in lines:
        norm = _keep_control_flow_failures(normalize_line(line))
        if not norm:
            continue
        out += (" | " if out else "") + norm
    if len(out) > 300:
        out = _trim(out[:300])
    return out


# --- the comparison policies: a port of src/oracle/policy.cpp ------------------------------
def _num(x):
    return "%.9g" % x


def _at(i, a, e):
    return " at [%s]: got %s, expected %s" % (",".join(str(int(k)) for k in i), _num(a[i]), _num(e[i]))


def compare(actual, expected, policy, k):
    """None when output k passes, else one line saying how it differs."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype:
        return "output %d: dtype %s, expected %s" % (k, actual.dtype, expected.dtype)
    if actual.shape != expected.shape:
        return "output %d: shape %s, expected %s" % (k, list(actual.shape), list(expected.shape))
    if expected.size == 0:
        return None
    if not np.issubdtype(expected.dtype, np.floating):
        bad = actual != expected
        if bad.any():
            i = np.unravel_index(np.argmax(bad), bad.shape)
            return "output %d: %d of %d values differ (exact %s), first%s" % (
                k, bad.sum(), bad.size, expected.dtype, _at(i, actual.astype(np.float64), expected.astype(np.float64)))
        return None
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    nonfinite = ~np.isfinite(a) | ~np.isfinite(e)
    agree = (np.isnan(a) & np.isnan(e)) | (a == e)
    wrong = nonfinite & ~agree
    if wrong.any():
        i = np.unravel_index(np.argmax(wrong), wrong.shape)
        return "output %d: NaN/Inf positions differ%s" % (k, _at(i, a, e))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(nonfinite, 0.0, np.abs(a - e))
        magnitude = np.abs(np.where(nonfinite, 0.0, e))
        if policy["policy"] == "luo":
            bad = diff / np.maximum(magnitude, policy["floor"]) > policy["rel_error"]
            if bad.sum() <= policy["max_fraction"] * bad.size:
                return None
        else:
            bad = diff > policy["atol"] + policy["rtol"] * magnitude
    if not bad.any():
        return None
    i = np.unravel_index(np.argmax(bad), bad.shape)
    return "output %d: %d of %d values differ, first%s; max abs error %s" % (
        k, bad.sum(), bad.size, _at(i, a, e), _num(diff.max()))


# --- the child: runs the SUT once and writes what happened --------------------------------
_PHASE = {"file": None, "name": "prepare"}


def stage(name):
    """Where the child is: "prepare", "run", or a step of prepare a backend part names
    ("convert", "optimize") - the phase a failure or a death is put in, as nnfuzz did."""
    _PHASE["name"] = name
    if _PHASE["file"]:
        with open(_PHASE["file"], "w") as f:
            f.write(name)


def child(mode, out_dir):
    if BUG.get("memory_limit_mb"):
        import resource
        limit = int(BUG["memory_limit_mb"]) << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    model_path, feeds, _ = load_case()
    _PHASE["file"] = os.path.join(out_dir, "phase")
    result = {"status": "ok"}
    try:
        stage("prepare")
        runner = prepare(model_path, mode)
        stage("run")
        outputs = run(runner, feeds)
        np.savez(os.path.join(out_dir, "outputs.npz"), *[np.asarray(o) for o in outputs])
        result["outputs"] = len(outputs)
    except BaseException as exc:  # everything the SUT raises is the finding
        result = {"status": "error", "phase": _PHASE["name"], "error_type": type(exc).__name__, "message": str(exc)}
    with open(os.path.join(out_dir, "result.json"), "w") as f:
        json.dump(result, f)
    return 0


def run_child(mode):
    """Runs the SUT in `mode` in a fresh process; returns a dict with 'status' among ok,
    error, crash, timeout, oom, plus 'phase', 'outputs', 'message', 'signal' as they apply."""
    out_dir = tempfile.mkdtemp(prefix="nnfuzz-repro-")
    env = dict(os.environ)
    # The heap as nnfuzz's workers see it: freed and fresh memory filled with a pattern and
    # glibc's checks on, so a read of uninitialised memory or a corrupted heap shows here too.
    env.setdefault("MALLOC_CHECK_", "3")
    env.setdefault("MALLOC_PERTURB_", "165")
    for lib_dir in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/lib64", "/lib"):
        lib = os.path.join(lib_dir, "libc_malloc_debug.so.0")
        if os.path.exists(lib):
            env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
            break
    env.update({k: str(v) for k, v in BUG.get("env", {}).items()})
    try:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, out_dir], env=env,
                              stderr=subprocess.PIPE, timeout=BUG.get("timeout_seconds") or None)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "phase": _read(os.path.join(out_dir, "phase"))}
    phase = _read(os.path.join(out_dir, "phase"))
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0:
        sig = -proc.returncode
        status = "oom" if sig == 9 else "crash"  # SIGKILL: the kernel's OOM killer
        return {"status": status, "phase": phase, "signal": sig, "stderr": stderr[-4000:]}
    result_path = os.path.join(out_dir, "result.json")
    if not os.path.exists(result_path):
        # Exited without a word: the SUT's package failed to import, or something called exit().
        return {"status": "error", "phase": phase or "import", "error_type": "ExitStatus",
                "message": "child exited %d without a result: %s" % (proc.returncode, stderr[-2000:])}
    with open(result_path) as f:
        result = json.load(f)
    if result["status"] == "ok":
        npz = np.load(os.path.join(out_dir, "outputs.npz"))
        result["outputs"] = [npz["arr_%d" % k] for k in range(result["outputs"])]
    elif result["error_type"] == "MemoryError" or "bad_alloc" in result["message"]:
        result["status"] = "oom"
    return result


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def describe(result):
    if result["status"] == "error":
        return "%s failed: %s: %s" % (result["phase"], result["error_type"], result["message"].split("\n")[0][:300])
    if result["status"] == "crash":
        return "died by signal %s during %s" % (result.get("signal"), result.get("phase"))
    return "%s during %s" % (result["status"], result.get("phase"))


def judge_outputs(result, expected, against):
    diffs = [d for d in (compare(a, e, BUG["policy"], k) for k, (a, e) in enumerate(zip(result["outputs"], expected)))
             if d]
    if len(result["outputs"]) != len(expected):
        diffs.append("returned %d outputs, expected %d" % (len(result["outputs"]), len(expected)))
    for d in diffs:
        print("  " + d)
    if diffs:
        print("BUG PRESENT: %s %s gives wrong outputs vs %s (%s policy)" % (
            BUG["backend"], BUG["mode"], against, BUG["policy"]["policy"]))
        return PRESENT
    print("bug absent: outputs match %s" % against)
    return ABSENT


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3])
    if len(sys.argv) >= 2 and sys.argv[1] == "--normalize":
        # Messages separated by NUL bytes, one normalised line out per message (for tests).
        for message in sys.stdin.buffer.read().split(b"\0"):
            sys.stdout.write(normalize_message(message) + "\n")
        return 0
    print("nnfuzz repro of %s: %s" % (BUG["bundle"], BUG["reason"]))
    _, _, expected = load_case()
    if BUG["class"] == "dcf":
        if BUG["against"] != "reference":
            base = run_child(BUG["against"])
            if base["status"] != "ok":
                print("could not tell: mode %s %s" % (BUG["against"], describe(base)))
                return OTHER
            expected = base["outputs"]
        result = run_child(BUG["mode"])
        if result["status"] != "ok":
            print("could not tell: the SUT now %s" % describe(result))
            return OTHER
        return judge_outputs(result, expected, BUG["against"])
    result = run_child(BUG["mode"])
    if result["status"] == "ok":
        print("bug absent: %s %s now runs to the end" % (BUG["backend"], BUG["mode"]))
        return ABSENT
    symptom = BUG["symptom"]
    if symptom == "error" and result["status"] == "error":
        got = normalize_message(result["message"])
        if result["phase"] == BUG["phase"] and got == BUG["message"]:
            print("BUG PRESENT: " + describe(result))
            return PRESENT
        print("could not tell: a different failure: " + describe(result))
        print("  recorded: %s failed: %s" % (BUG["phase"], BUG["message"]))
        print("  now:      %s failed: %s" % (result["phase"], got))
        return OTHER
    wanted = {"timeout": "timeout", "out-of-memory": "oom"}.get(symptom, "crash" if symptom.startswith("crash") else "")
    if result["status"] == wanted:
        print("BUG PRESENT: " + describe(result))
        if result.get("stderr"):
            print(result["stderr"][-2000:])
        return PRESENT
    print("could not tell: recorded %s, now %s" % (symptom, describe(result)))
    return OTHER
