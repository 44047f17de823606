"""The Cython-consumer persona: a small extension that cimports perceptron_c's C API, built as
the guide says (``python -m pip install --no-build-isolation .``) in a temporary folder, then
imported; its epoch and decisions equal the Python API's (perceptron_c.lowlevel).

Needs: Cython, setuptools
"""
import importlib
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np

import perceptron_c
from perceptron_c import lowlevel

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77", "Cython>=3.1", "perceptron-c>=0.1"]
build-backend = "setuptools.build_meta"

[project]
name = "pc-persona"
version = "0.1"
requires-python = ">=3.10"
dependencies = ["perceptron-c>=0.1"]
"""
SETUP = """\
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

import perceptron_c

site = os.path.dirname(os.path.dirname(perceptron_c.__file__))
ext = Extension("pc_persona", ["persona.pyx"], include_dirs=[perceptron_c.get_include()])
setup(ext_modules=cythonize([ext], include_path=[site],
                            compiler_directives={"language_level": 3}))
"""
PYX = """\
# cython: language_level=3
from libc.stdint cimport int64_t
from perceptron_c.capi.linear cimport binary_epoch, decision

def epoch(double[:, ::1] X, double[::1] y, int64_t[::1] order, double[::1] w, double[::1] b):
    cdef Py_ssize_t mistakes
    with nogil:
        mistakes = binary_epoch(&X[0, 0], NULL, NULL, X.shape[1], &y[0], &order[0],
                                order.shape[0], &w[0], &b[0], NULL, NULL, NULL,
                                True, False, NULL, NULL)
    return mistakes

def scores(double[:, ::1] X, double[:, ::1] W, double[::1] b, double[:, ::1] out):
    with nogil:
        decision(&X[0, 0], NULL, NULL, X.shape[1], X.shape[0], W.shape[0], &W[0, 0], &b[0],
                 &out[0, 0])
"""


def build(folder: Path) -> Path:
    """The project written and installed into a venv of its own that sees this environment's
    packages (perceptron-c, Cython, setuptools, pip); that venv's site-packages."""
    project = folder / "project"
    project.mkdir()
    for name, text in (("pyproject.toml", PYPROJECT), ("setup.py", SETUP),
                       ("persona.pyx", PYX)):
        (project / name).write_text(text, encoding="utf-8")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    parents = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (site / "_parent_env.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in parents), encoding="utf-8")
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-build-isolation", "."],
                   cwd=project, check=True)
    return site


def main() -> None:
    if perceptron_c.BACKEND != "c":
        print("the C core is not in use (PERCEPTRON_C_NO_EXTENSIONS): nothing to build")
        return
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, str(build(Path(tmp))))
        ext = importlib.import_module("pc_persona")
        rng = np.random.default_rng(0)
        X = rng.integers(-3, 4, size=(200, 5)).astype(np.float64)
        y = np.where(X[:, 0] - X[:, 1] > 0, 1.0, -1.0)
        order = rng.permutation(200).astype(np.int64)
        w1, b1, w2, b2 = np.zeros(5), np.zeros(1), np.zeros(5), np.zeros(1)
        m1 = ext.epoch(X, y, order, w1, b1)
        m2 = lowlevel.perceptron_epoch_dense(X, y, order, w2, b2)
        assert m1 == m2 and np.array_equal(w1, w2) and np.array_equal(b1, b2)
        out = np.empty((200, 1))
        ext.scores(X, w1[None, :].copy(), b1, out)
        assert np.array_equal(out, lowlevel.decision_dense(X, w2[None, :], b2))
        print(f"consumer built and imported: {m1} mistakes, weights {w1.tolist()}, "
              "equal to perceptron_c.lowlevel's")


if __name__ == "__main__":
    main()
