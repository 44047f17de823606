"""Shared fixtures: every routine test runs on both twins.

The tests key on ``perceptron_c.BACKEND``: where the C core is in use its twins are tested
beside the Python ones; on a pure install (or with ``PERCEPTRON_C_NO_EXTENSIONS`` set) the
C-only tests skip. A compiled module that is present but broken makes ``import perceptron_c``
itself fail, so nothing can skip silently past a broken C core.
"""
import importlib
import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
import types
import warnings
from fractions import Fraction

import numpy as np
import pytest

with warnings.catch_warnings():  # a pure install warns once at import; the tests know
    warnings.simplefilter("ignore")
    import perceptron_c

HAVE_C = perceptron_c.BACKEND == "c"
NO_EXTENSIONS = not HAVE_C
BACKENDS = ["c", "python"]

# The package's modules that import an optional package at their top (an extra's), by the
# package: a test that imports every module skips these where the package is missing. Any
# other module must import without them.
OPTIONAL_IMPORTS = {"dask": "dask", "dask._sequence": "dask", "plots": "matplotlib",
                    "experiments": "matplotlib", "river._models": "river",
                    "river._pa": "river", "river._budget": "river"}


def skip_without_optional(module):
    """Skip when ``module`` (a name in the package) needs an optional package not installed."""
    needed = OPTIONAL_IMPORTS.get(module)
    if needed is not None and importlib.util.find_spec(needed) is None:
        pytest.skip(f"perceptron_c.{module} needs {needed}")

# Property tests and fuzzers run more cases in CI: PERCEPTRON_C_HYPOTHESIS_PROFILE=ci runs
# ten times the examples of the default "dev" profile (over 10,000 in all).
PROFILE = os.environ.get("PERCEPTRON_C_HYPOTHESIS_PROFILE", "dev")
if PROFILE not in ("dev", "ci"):
    raise ValueError(f"PERCEPTRON_C_HYPOTHESIS_PROFILE must be dev or ci, got {PROFILE!r}")

# The first line of a child script that sends itself SIGINT. Python installs its
# KeyboardInterrupt handler at start-up only where SIGINT is not ignored, and an ignored SIGINT
# is inherited (a background job of a non-interactive shell, nohup): this gives the child the
# handler of an interactive session. It runs before the script imports the package, so
# anything the package itself did to SIGINT would still show.
DEFAULT_SIGINT = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


# the harness of every Ctrl-C test: a case (code that defines ``call``, and ``delay`` if not
# 0.5 s) runs in a fresh interpreter with numpy as np, _backend and a seeded ``rng``; SIGINT
# comes ``delay`` seconds into ``call()``
CTRL_C_RUN = DEFAULT_SIGINT + textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np
    from perceptron_c import _backend
    rng = np.random.default_rng(0)
    sent = []
    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    delay = 0.5  # seconds into the call (a case may set it)
    exec(compile(sys.argv[1], "case", "exec"))
    threading.Timer(delay, interrupt).start()
    try:
        call()
        print("finished")
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - sent[0])
""")


def ctrl_c_latency(case, timeout=300):
    """The seconds from a Ctrl-C to the KeyboardInterrupt of ``call()``, run by `CTRL_C_RUN`
    on ``case``; the test fails if the call finished first or the interpreter failed."""
    result = run_python(["-c", CTRL_C_RUN, textwrap.dedent(case)], capture_output=True,
                        text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    status, *latency = result.stdout.split()
    assert status == "interrupted", result.stdout
    return float(latency[0])


def run_python(args, cwd=None, **kwargs):
    """subprocess.run([sys.executable, *args], **kwargs), from an empty directory unless cwd
    is given: `python -c` and `python -m` put their working directory first on sys.path, and
    from the checkout (where README.md runs the suite) its sources, without the compiled core,
    would shadow the installed package."""
    if cwd is not None:
        return subprocess.run([sys.executable, *args], cwd=cwd, **kwargs)
    with tempfile.TemporaryDirectory(prefix="perceptron_c-run-") as empty:
        return subprocess.run([sys.executable, *args], cwd=empty, **kwargs)


def dot4(a, b):
    """The package's 4-lane dot (``_linear_py``'s contract), one Python float at a time:
    the reference for every float product of the library (no BLAS)."""
    s = [0.0, 0.0, 0.0, 0.0]
    for k, (u, v) in enumerate(zip(a.tolist(), b.tolist())):
        s[k % 4] += u * v
    return (s[0] + s[1]) + (s[2] + s[3])


def dot4_gram(X, Y):
    """out[i, j] = dot4(X[i], Y[j]), slowly."""
    return np.array([[dot4(x, y) for y in Y] for x in X]).reshape(len(X), len(Y))


def examples(n):
    """How many examples a property test with n examples in the dev profile runs."""
    return n * (10 if PROFILE == "ci" else 1)


def c_api_files():
    """The .pxd files and headers of the installed ``perceptron_c._core`` that capi's
    declarations reach: their cimports from ``perceptron_c._core``, the headers they declare
    from, and the headers those include, followed to the end (a file missing from the
    installed package fails the walk)."""
    core = pathlib.Path(perceptron_c.__file__).parent / "_core"
    cimport = re.compile(r"^\s*(?:from|cimport)\s+perceptron_c\._core\.(\w+)", re.M)
    header = re.compile(r'(?:extern from|#include)\s+"(\w+\.h)"')
    todo = list((core.parent / "capi").glob("*.pxd"))
    reached: set[str] = set()
    while todo:
        text = todo.pop().read_text(encoding="utf-8")
        for name in [f"{m}.pxd" for m in cimport.findall(text)] + header.findall(text):
            if name not in reached:
                reached.add(name)
                todo.append(core / name)
    return reached


def _module(backend, name):
    """The routine module ``name`` ("_linear", "_gram", "_dual", "_conjunction", "_voted")
    of one twin; skips the test for the C twin when the C core is not in use."""
    if backend == "c" and not HAVE_C:
        pytest.skip("the C core is not in use (pure install or PERCEPTRON_C_NO_EXTENSIONS)")
    return importlib.import_module(f"perceptron_c._core.{name}_{'c' if backend == 'c' else 'py'}")


def twin(backend, *names):
    """One namespace with the routines of several modules of one twin."""
    merged = types.SimpleNamespace()
    for name in names:
        module = _module(backend, name)
        for attr in module.__all__:
            setattr(merged, attr, getattr(module, attr))
    merged.__name__ = f"{'+'.join(names)} ({backend})"
    return merged


def routine_fixtures(*names):
    """The two fixtures of the tests of routine modules: the routines of one twin (a test
    that takes it runs on each) and the pair (C twin, Python twin) for the cross tests. One
    name is that module itself; several are merged by `twin`. A test module binds them to the
    names its tests take: ``sgd, sgd_twins = routine_fixtures("_sgd")``."""
    def routines(backend):
        return _module(backend, names[0]) if len(names) == 1 else twin(backend, *names)

    @pytest.fixture(params=BACKENDS)
    def one_twin(request):
        """The routines of one twin: the test runs on each."""
        return routines(request.param)

    @pytest.fixture
    def both_twins():
        """(C twin, Python twin) for cross tests."""
        return routines("c"), routines("python")

    return one_twin, both_twins


# the `_linear` routines of one twin, and both for the cross tests
backend, linear_twins = routine_fixtures("_linear")


def to_csr(X):
    """Row-major non-zeros of a dense array as (data, indices int32, indptr int64)."""
    rows, cols = np.nonzero(X)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return np.ascontiguousarray(X[rows, cols]), cols.astype(np.int32), indptr


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


# scikit-learn's averaged SGD folds its averaging sums in with BLAS daxpy (reset of the weight
# scale), and whether that multiply-add is rounded once depends on the CPU's OpenBLAS kernel:
# SkylakeX fuses every element, Haswell/Zen only whole blocks of 16 (the tail is a plain
# multiply then add; measured with scipy-openblas 0.3.30). Our twins fuse every element. Data
# widened with zero columns to a multiple of 16 changes nothing in either arithmetic and makes
# both kernels fuse every element, so the comparison is exact on any x86-64 CPU.
BLAS_BLOCK = 16


def pad_to_blas_block(X):
    """X (dense or scipy CSR) with zero columns appended up to a multiple of BLAS_BLOCK."""
    extra = -X.shape[1] % BLAS_BLOCK
    if hasattr(X, "tocsr"):
        import scipy.sparse as sp

        return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], X.shape[1] + extra))
    return np.hstack([X, np.zeros((X.shape[0], extra), dtype=X.dtype)])


def blas_daxpy_fuses(n=BLAS_BLOCK * 3):
    """True when scipy's BLAS daxpy rounds a * x + y once for every element of length n
    (the values are chosen so that rounding twice would differ in every element)."""
    from scipy.linalg import blas

    a = 1.0 + 2.0 ** -30
    x = 1.0 + 2.0 ** -29 * np.arange(1, n + 1)
    y = -np.ones(n)
    fused = np.array([float(Fraction(a) * Fraction(xi) + Fraction(yi))  # rounded once
                      for xi, yi in zip(x.tolist(), y.tolist())])
    return np.array_equal(blas.daxpy(x, y.copy(), a=a), fused) and not np.array_equal(
        fused, y + a * x)


@pytest.fixture(scope="session")
def blas_fuses():
    """Whether scikit-learn's averaged SGD can be matched bit for bit on this machine (on
    data padded by `pad_to_blas_block`); True with every x86-64 OpenBLAS kernel seen so far.
    Tests compare averaged fits exactly only where it is, and say so when they skip."""
    pytest.importorskip("scipy")
    return blas_daxpy_fuses()


def interrupt_after_real_work(monkeypatch, module, name, after_calls):
    """Make the routine ``name`` run for real, then raise KeyboardInterrupt once it has been
    called ``after_calls`` times: the state it left half-updated must be rolled back."""
    original = getattr(module, name)
    calls = []

    def wrapped(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(1)
        if len(calls) == after_calls:
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(module, name, wrapped)


def assert_same_state(a, b, *counters):
    """Two fitted linear models (a serial fit and a dask one, say) alike: the same state
    arrays bit for bit, mistakes_, coef_ and intercept_, and each attribute named in
    ``counters`` (n_iter_, converged_, ...)."""
    assert a._state.keys() == b._state.keys()
    for key in a._state:
        assert np.array_equal(a._state[key], b._state[key]), key
    assert np.array_equal(a.mistakes_, b.mistakes_)
    for name in counters:
        assert getattr(a, name) == getattr(b, name), name
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)


def run_threads(threads):
    """Start the threads and wait for them all, Python switching threads every microsecond
    meanwhile (at the default 5 ms a short thread may run through alone)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
