"""Each C twin and its Python twin (the specification) define the same names with the same
signatures, for every routine module of the registry (``perceptron_c/_core/registry.py``).

The signatures are compared parameter by parameter (name, kind, default), twin against twin,
so a routine may grow a parameter as long as both twins grow it. The Python twin is also what
a type checker sees through the dispatcher (``_backend``), so these tests are what keeps the
type checker's view of the C twins true. Every test here needs the C core and skips without
it.
"""
import inspect

import pytest
from conftest import _module

from perceptron_c._core.registry import ROUTINES as REGISTRY

ROUTINE_MODULES = [f"_{name}" for name in REGISTRY]
ROUTINES = [(m, n) for m in ROUTINE_MODULES for n in _module("python", m).__all__]


def _exported(c):
    """The C twin's ``__all__``."""
    assert hasattr(c, "__all__"), f"{c.__name__} defines no __all__"
    return list(c.__all__)


def _parameters(fn):
    """What a caller relies on: (name, kind, default) of every parameter, in order. A class
    (a cdef class has no signature of its own) is its public methods and their parameters."""
    if inspect.isclass(fn):
        return [(name, [p.name for p in inspect.signature(getattr(fn, name)).parameters.values()
                        if p.name != "self"])
                for name in sorted(dir(fn)) if not name.startswith("_") or name == "__len__"]
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", ROUTINE_MODULES)
def test_same_all(name):
    c, py = _module("c", name), _module("python", name)
    assert _exported(c) == list(py.__all__)


@pytest.mark.parametrize("name", ROUTINE_MODULES)
def test_every_exported_name_exists_in_both_twins(name):
    c, py = _module("c", name), _module("python", name)
    exported = set(getattr(c, "__all__", ())) | set(py.__all__)
    for module in (c, py):
        missing = sorted(n for n in exported if not callable(getattr(module, n, None)))
        assert not missing, f"{module.__name__} lacks {missing}"


@pytest.mark.parametrize(("name", "routine"), ROUTINES, ids=[f"{m}.{n}" for m, n in ROUTINES])
def test_same_signature(name, routine):
    c, py = _module("c", name), _module("python", name)
    c_fn, py_fn = getattr(c, routine, None), getattr(py, routine, None)
    assert callable(c_fn) and callable(py_fn), f"{routine} is missing from a twin"
    c_params, py_params = _parameters(c_fn), _parameters(py_fn)
    for i, (a, b) in enumerate(zip(c_params, py_params)):
        assert a == b, f"{routine}: parameter {i} is {a} in the C twin, {b} in the Python twin"
    assert len(c_params) == len(py_params), \
        f"{routine}{inspect.signature(c_fn)} (C) != {routine}{inspect.signature(py_fn)} (Python)"
