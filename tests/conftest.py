"""Shared fixtures: every routine test runs on both twins.

The tests key on ``perceptron_c.BACKEND``: where the C core is in use its twins are tested
beside the Python ones; on a pure install (or with ``PERCEPTRON_C_NO_EXTENSIONS`` set) the
C-only tests skip. A compiled module that is present but broken makes ``import perceptron_c``
itself fail, so nothing can skip silently past a broken C core.
"""
import importlib
import os
import types
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():  # a pure install warns once at import; the tests know
    warnings.simplefilter("ignore")
    import perceptron_c

HAVE_C = perceptron_c.BACKEND == "c"
NO_EXTENSIONS = not HAVE_C
BACKENDS = ["c", "python"]

# Property tests and fuzzers run more cases in CI: PERCEPTRON_C_HYPOTHESIS_PROFILE=ci runs
# ten times the examples of the default "dev" profile (over 10,000 in all).
PROFILE = os.environ.get("PERCEPTRON_C_HYPOTHESIS_PROFILE", "dev")
if PROFILE not in ("dev", "ci"):
    raise ValueError(f"PERCEPTRON_C_HYPOTHESIS_PROFILE must be dev or ci, got {PROFILE!r}")


def examples(n):
    """How many examples a property test with n examples in the dev profile runs."""
    return n * (10 if PROFILE == "ci" else 1)


def _module(backend, name):
    """The routine module ``name`` ("_linear", "_gram", "_dual", "_conjunction", "_voted")
    of one twin; skips the test for the C twin when the C core is not in use."""
    if backend == "c" and not HAVE_C:
        pytest.skip("the C core is not in use (pure install or PERCEPTRON_C_NO_EXTENSIONS)")
    return importlib.import_module(f"perceptron_c.{name}_{'c' if backend == 'c' else 'py'}")


def twin(backend, *names):
    """One namespace with the routines of several modules of one twin."""
    merged = types.SimpleNamespace()
    for name in names:
        module = _module(backend, name)
        for attr in module.__all__:
            setattr(merged, attr, getattr(module, attr))
    merged.__name__ = f"{'+'.join(names)} ({backend})"
    return merged


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

    if request.param == "c" and not HAVE_C:
        pytest.skip("the C core is not in use")
    with _backend.using(request.param):
        yield request.param


def pytest_report_header(config):
    return f"perceptron_c {perceptron_c.__version__} backend={perceptron_c.BACKEND} " \
           f"from {os.path.dirname(perceptron_c.__file__)}"


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
