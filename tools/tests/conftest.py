import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def nnfuzz():
    exe = os.environ.get("NNFUZZ", os.path.join(ROOT, "build", "nnfuzz"))
    exe = exe if os.path.isabs(exe) else os.path.join(ROOT, exe)
    assert os.path.exists(exe), f"build nnfuzz first ({exe})"

    def run(*args, check=True, timeout=None):
        r = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"nnfuzz {' '.join(map(str, args))} failed ({r.returncode}):\n{r.stderr}")
        return r
    return run


@pytest.fixture(scope="session")
def validate():
    def run(folder, *extra):
        return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "validate_cases.py"), str(folder), *extra],
                              capture_output=True, text=True)
    return run
