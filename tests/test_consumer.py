"""A Cython extension of another library, built by pip against the installed package, cimports
every module of ``perceptron_c.capi`` and calls the C routines directly; its results must equal
the Python twins'.

Needs Cython, setuptools and a C compiler (the test extra installs the first two); skipped
where the C core is not in use or Cython is missing.
"""
import importlib
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
from conftest import HAVE_C, _module, c_api_files

import perceptron_c

pytestmark = pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")

CONSUMER = pathlib.Path(__file__).parent / "consumer"
GUIDE_COMMAND = ("-m", "pip", "install", "--no-build-isolation", ".")
# the tests that compile the consumer with pip: deselect with -m "not build"
build = pytest.mark.build
CAPI = ("linear", "dual", "conjunction", "voted", "popcount", "bigint", "sequence")


def _child_venv(path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """A fresh venv (its python, its site-packages) that sees this environment's packages
    (perceptron-c as installed here, from a local wheel in CI; Cython, setuptools, pip)
    through a .pth line, so that pip installs the consumer there, not here."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True,
                   timeout=120)
    site = pathlib.Path(sysconfig.get_path("purelib", vars={"base": str(path),
                                                            "platbase": str(path)}))
    parents = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (site / "_parent_env.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in parents), encoding="utf-8")
    exe = path / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    return exe, site


@pytest.fixture(scope="module")
def consumer(tmp_path_factory):
    """The consumer project of the guide (pyproject.toml, setup.py, consumer.pyx), built and
    installed exactly as the guide says, ``python -m pip install --no-build-isolation .``
    from its folder, in an environment that has perceptron-c, Cython and setuptools (no
    network: every requirement is already there)."""
    pytest.importorskip("Cython")
    pytest.importorskip("setuptools")
    source = tmp_path_factory.mktemp("consumer")
    for name in ("pyproject.toml", "setup.py", "consumer.pyx"):
        shutil.copy(CONSUMER / name, source)
    python, site = _child_venv(tmp_path_factory.mktemp("env") / "venv")
    result = subprocess.run([str(python), *GUIDE_COMMAND], cwd=source, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    sys.path.insert(0, str(site))
    try:
        yield importlib.import_module("pc_consumer")
    finally:
        sys.path.remove(str(site))


def test_the_c_api_ships_with_the_package():
    capi = pathlib.Path(perceptron_c.__file__).parent / "capi"
    for name in CAPI:
        assert (capi / f"{name}.pxd").is_file(), name
    assert sorted(p.stem for p in capi.glob("*.pxd")) == sorted(CAPI)
    assert (pathlib.Path(perceptron_c.get_include()) / "_popcount.h").is_file()


def test_the_guide_shows_the_consumer_as_tested():
    """The guide's consumer project is the one this file builds, file for file."""
    guide = (pathlib.Path(__file__).parents[1] / "docs" / "guide.md").read_text(encoding="utf-8")
    for name in ("pyproject.toml", "setup.py"):
        assert (CONSUMER / name).read_text(encoding="utf-8").strip() in guide, name
    assert "python " + " ".join(GUIDE_COMMAND) in guide


@build
def test_viterbi(consumer, rng):
    P = _module("python", "_sequence")
    for T, K in ((1, 1), (5, 3), (9, 6), (4, 9)):
        E = rng.integers(-3, 4, size=(T, K)).astype(np.float64)
        trans = rng.integers(-2, 3, size=(K + 2, K)).astype(np.float64)
        path, expected = np.empty(T, np.int64), np.empty(T, np.int64)
        assert consumer.viterbi(E, trans, np.empty(2 * K), np.empty(T * K), path) == 0
        P.viterbi(E, trans, np.array([0, T], np.int64), expected)
        assert np.array_equal(path, expected)


@build
def test_linear_epoch_and_decision(consumer, rng):
    P = _module("python", "_linear")
    X = rng.integers(-3, 4, size=(60, 7)).astype(np.float64)
    y = np.where(rng.random(60) < 0.5, -1.0, 1.0)
    order = rng.permutation(60).astype(np.int64)
    for normalize in (False, True):
        w1, b1, w2, b2 = np.zeros(7), np.zeros(1), np.zeros(7), np.zeros(1)
        m1 = consumer.linear_epoch(X, y, order, w1, b1, True, normalize)
        m2 = P.perceptron_epoch_dense(X, y, order, w2, b2, True, normalize)
        assert m1 == m2 and np.array_equal(w1, w2) and np.array_equal(b1, b2)
    W, b = rng.normal(size=(3, 7)), rng.normal(size=3)
    out1, out2 = np.empty((60, 3)), np.empty((60, 3))
    consumer.linear_decision(X, W, b, out1)
    P.decision_dense(X, W, b, out2)
    assert np.array_equal(out1, out2)


@build
def test_dual_and_conjunction_epochs(consumer, rng):
    D, C = _module("python", "_dual"), _module("python", "_conjunction")
    X = rng.integers(-2, 3, size=(40, 4)).astype(np.float64)
    G = X @ X.T
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    order = rng.permutation(40).astype(np.int64)
    args = [(np.zeros(40), np.zeros(1), np.zeros(40)) for _ in range(2)]
    m1 = consumer.dual_cached(G, y, order, *args[0], True)
    m2 = D.dual_epoch_cached(G, y, order, *args[1], True)
    assert m1 == m2 and all(np.array_equal(a, b) for a, b in zip(*args))
    E = rng.integers(0, 200, size=(40, 40)).astype(np.int32)
    a1, b1, a2, b2 = (np.zeros(40, np.int64), np.zeros(1, np.int64),
                      np.zeros(40, np.int64), np.zeros(1, np.int64))
    m1 = consumer.conjunction_rows(E, order, y, a1, b1, True)
    m2 = C.conjunction_epoch_rows(E, order, y, a2, b2, True)
    assert m1 == m2 and np.array_equal(a1, a2) and np.array_equal(b1, b2)


@build
def test_exact_sums(consumer):
    buckets = np.zeros(70, dtype=np.int64)
    buckets[0], buckets[60], buckets[61] = 1, 1, -1     # 1 + 2^60 - 2^61 < 0
    assert consumer.sign_of(buckets, 60, 61) == -1 and not buckets.any()
    assert consumer.limbs_signed_sum([1500, 0], [1500], 30) == 1
    assert consumer.limbs_signed_sum([3], [3, 0], 2) == -1


@build
def test_vote_and_popcount_gram(consumer, rng):
    V, G = _module("python", "_voted"), _module("python", "_gram")
    Kx = rng.integers(-5, 6, size=(9, 6)).astype(np.float64)
    index = rng.integers(0, 6, size=5).astype(np.int64)
    sign = np.where(rng.random(5) < 0.5, -1.0, 1.0)
    survival = rng.integers(0, 4, size=6).astype(np.float64)
    out1, out2 = np.empty(9), np.empty(9)
    consumer.vote(Kx, index, sign, survival, 1.0, out1)
    V.vote(Kx, index, sign, survival, 1.0, out2)
    assert np.array_equal(out1, out2)
    A = rng.integers(0, 2**63, size=(13, 17), dtype=np.uint64)
    B = rng.integers(0, 2**63, size=(11, 17), dtype=np.uint64)
    o1, o2 = np.empty((13, 11), np.int64), np.empty((13, 11), np.int64)
    consumer.popcount_gram(A, B, o1)
    G.gram_conjunction_log2(A, B, o2)
    assert np.array_equal(o1, o2)


def test_the_wheel_ships_what_the_c_api_needs_and_no_more():
    """pyproject.toml's package data for ``perceptron_c._core`` is what capi reaches: a file
    left out breaks a consumer's build, one too many only weighs on the wheel."""
    pyproject = (pathlib.Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r'^"perceptron_c\._core" = \[(.*?)\]', pyproject, re.M | re.S).group(1)
    assert set(re.findall(r'"([\w.]+)"', listed)) == c_api_files()
