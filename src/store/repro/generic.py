# --- nnfuzz repro: a backend without a template (src/store/repro/generic.py) -------------
# nnfuzz knows no Python API for this backend: fill in prepare() and run() with the calls
# its worker makes, and this script will judge the outcome like nnfuzz did.


def prepare(model_path, mode):
    raise NotImplementedError("no repro template for backend %r: edit prepare() and run() in repro.py" % BUG["backend"])


def run(runner, feeds):
    raise NotImplementedError("no repro template for backend %r" % BUG["backend"])
