"""Shared fixtures: every routine test runs on both twins.

The C twin is imported directly: when the extension is expected (PERCEPTRON_C_NO_EXTENSIONS
unset) and missing, its tests fail instead of skipping.
"""
import importlib
import os

import numpy as np
import pytest

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))
BACKENDS = ["c", "python"]


def _module(backend, name):
    if backend == "c" and NO_EXTENSIONS:
        pytest.skip("PERCEPTRON_C_NO_EXTENSIONS is set: the C twins are not built")
    return importlib.import_module(f"perceptron_c.{name}_{'c' if backend == 'c' else 'py'}")


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The `_linear` routine module of one twin."""
    return _module(request.param, "_linear")


@pytest.fixture
def linear_twins():
    """(C twin, Python twin) for cross tests."""
    return _module("c", "_linear"), _module("python", "_linear")


@pytest.fixture(params=BACKENDS)
def model_backend(request):
    """Run estimator code on one twin (through the dispatcher)."""
    from perceptron_c import _backend

    if request.param == "c":
        for name in _backend._MODULES:
            _module("c", name)
    with _backend.using(request.param):
        yield request.param


def pytest_report_header(config):
    import perceptron_c

    return f"perceptron_c {perceptron_c.__version__} backend={perceptron_c.BACKEND} " \
           f"from {os.path.dirname(perceptron_c.__file__)}"


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
