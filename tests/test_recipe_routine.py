"""CONTRIBUTING.md's recipe for a new routine module, followed step by step on a copy of the
package: a toy pair of twins (``_toy_py.py``, then ``_toy_c.pyx`` and its ``.pxd``), its
entry in ``_core/registry.py`` and its accessor in ``_backend.py``. The dispatcher then
reaches each twin, both give the same bits, and their signatures match as
``tests/test_twins.py`` compares them. When the recipe and the package drift apart (a list
the recipe does not name, a step that no longer works), this test fails first.

The C twin is compiled with Cython's ``cythonize -i`` (Cython, setuptools and a C compiler;
marked ``build``, skipped without Cython or without the C core).
"""
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import HAVE_C
from test_backend import _copy_package, _run

CONTRIBUTING = pathlib.Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"

# step 1: the Python twin, with its docstring citing what it computes, and its __all__
TOY_PY = '''\
"""A toy routine module, written by CONTRIBUTING.md's recipe."""
import numpy as np

__all__ = ["affine"]


def affine(x: np.ndarray, b: float, out: np.ndarray) -> None:
    """out[i] = 2 x[i] + b, each a float64 product then a sum."""
    if x.shape != out.shape:
        raise ValueError("x and out must have the same shape")
    out[...] = 2.0 * x + b
'''

# step 2: the C twin, the same signature: the checks in the def function, then one nogil call
# of a cdef function on pointers and sizes, declared in the .pxd
TOY_PXD = '''\
cdef void affine_ptr(const double *x, double b, double *out, Py_ssize_t n) noexcept nogil
'''
TOY_C = '''\
# cython: language_level=3, boundscheck=False, wraparound=False
__all__ = ["affine"]


cdef void affine_ptr(const double *x, double b, double *out, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = 2.0 * x[i] + b


def affine(const double[::1] x, double b, double[::1] out):
    if x.shape[0] != out.shape[0]:
        raise ValueError("x and out must have the same shape")
    if x.shape[0]:
        with nogil:
            affine_ptr(&x[0], b, &out[0], x.shape[0])
'''

# what the copy then runs: each twin through the dispatcher, the same bits, the same signature
CHECK = textwrap.dedent('''\
    import inspect
    import numpy as np
    from perceptron_c import _backend
    from perceptron_c._core.registry import ROUTINES
    assert "toy" in ROUTINES and "toy" in _backend.__all__
    x = np.random.default_rng(0).normal(size=1001)
    outs = []
    for twin in ("c", "python") if _backend.BACKEND == "c" else ("python",):
        with _backend.using(twin):
            out = np.empty_like(x)
            _backend.toy.affine(x, 0.1, out)
            outs.append(out)
            print(twin, _backend.toy.affine.__module__)
            try:
                _backend.toy.affine(x, 0.1, out[:-1])
            except ValueError as e:
                print("refused:", e)
    assert all(np.array_equal(o, outs[0]) for o in outs)
    if _backend.BACKEND == "c":
        from perceptron_c._core import _toy_c, _toy_py
        sig = [[(p.name, p.kind, p.default)
                for p in inspect.signature(m.affine).parameters.values()]
               for m in (_toy_c, _toy_py)]
        assert sig[0] == sig[1], sig
        assert _toy_c.__all__ == _toy_py.__all__
    ''')


def _follow_the_recipe(root: pathlib.Path) -> pathlib.Path:
    """Steps 1 and 2 on the package copied under ``root``; returns its _core folder."""
    core = root / "perceptron_c" / "_core"
    (core / "_toy_py.py").write_text(TOY_PY, encoding="utf-8")
    (core / "_toy_c.pyx").write_text(TOY_C, encoding="utf-8")
    (core / "_toy_c.pxd").write_text(TOY_PXD, encoding="utf-8")
    registry = core / "registry.py"
    text = registry.read_text(encoding="utf-8")
    entry = 'ROUTINES: dict[str, str] = {\n'
    assert entry in text, "registry.py: ROUTINES is no longer a dict literal"
    registry.write_text(text.replace(entry, entry + '    "toy": "a toy pair of twins",\n'),
                        encoding="utf-8")
    backend = root / "perceptron_c" / "_backend.py"
    text = backend.read_text(encoding="utf-8")
    typed, runtime = "if TYPE_CHECKING:\n", "else:\n    budget = _Twins(\"budget\")\n"
    assert typed in text and runtime in text, "_backend.py: the accessors moved"
    text = text.replace(typed, typed + "    from ._core import _toy_py as toy\n", 1)
    text = text.replace(runtime, runtime + '    toy = _Twins("toy")\n', 1)
    backend.write_text(text, encoding="utf-8")
    return core


def test_the_recipe_names_each_place_the_toy_was_written():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    recipe = text[text.index("## Adding a routine"):]
    recipe = recipe[:recipe.index("\n## ", 5)]
    for piece in ("_core/registry.py", "_backend.py", "__all__", "_x_py.py", ".pxd",
                  "with nogil:", "noexcept nogil", "tests/test_twins.py"):
        assert re.search(re.escape(piece), recipe), f"the routine recipe does not name {piece}"


def test_the_python_twin_is_reached_through_the_dispatcher(tmp_path):
    root = _copy_package(tmp_path, with_compiled=False, pure_marker=True)
    _follow_the_recipe(root)
    result = _run(CHECK, {"PERCEPTRON_C_NO_EXTENSIONS": "1"}, path=root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "python perceptron_c._core._toy_py",
        "refused: x and out must have the same shape"]


@pytest.mark.build
@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
def test_both_twins_give_the_same_bits_through_the_dispatcher(tmp_path):
    pytest.importorskip("Cython")
    pytest.importorskip("setuptools")
    root = _copy_package(tmp_path, with_compiled=True, pure_marker=False)
    core = _follow_the_recipe(root)
    built = subprocess.run([sys.executable, "-m", "Cython.Build.Cythonize", "-i", "-q",
                            str(core / "_toy_c.pyx")], cwd=root, capture_output=True,
                           text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    result = _run(CHECK, path=root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "c perceptron_c._core._toy_c", "refused: x and out must have the same shape",
        "python perceptron_c._core._toy_py", "refused: x and out must have the same shape"]
