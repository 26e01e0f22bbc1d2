"""Fixtures for the worker tests (helpers live in driver.py)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver import Driver  # noqa: E402


@pytest.fixture
def driver():
    started = []

    def start(argv, **kw):
        d = Driver(argv, **kw)
        started.append(d)
        return d
    yield start
    for d in started:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
