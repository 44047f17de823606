"""The one dispatcher: which twin (C or Python) of each routine module runs.

Both twins are imported here by name, so a reader, an editor or a type checker can follow a
call from a model (``_backend.linear().perceptron_epoch_dense``) to the loop that runs it.

Which twin:

- ``PERCEPTRON_C_NO_EXTENSIONS`` set to a non-empty value: the Python twins, silently.
- Otherwise the compiled twins, which must import: a compiled file that is there but fails
  to load is an error, not a silent slowdown.
- A pure install (built with the variable set: a file ``PURE_BUILD`` sits in the package and
  no compiled file does) runs the Python twins and warns once, at import, that the C core is
  absent. A source checkout that was never built is an error that says how to build it.

``using("python")`` runs the calling thread (more exactly, its context) on the other twin for
the duration of a ``with`` block: tests and the demo use it to run one model on both twins.
It is safe with threads: it never changes what any other thread runs.
"""
from __future__ import annotations

import contextlib
import contextvars
import importlib.machinery
import os
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

from . import (
    _budget_py,
    _conjunction_py,
    _dual_py,
    _features_py,
    _gram_py,
    _kpa_py,
    _linear_py,
    _order_py,
    _sequence_py,
    _sgd_py,
    _tagging_py,
    _voted_py,
)

__all__ = ["BACKEND", "NO_EXTENSIONS", "PureBuildWarning", "linear", "gram", "dual",
           "conjunction", "voted", "sgd", "budget", "kpa", "order", "sequence",
           "tagging", "features", "active", "using"]

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))
_HERE = os.path.dirname(os.path.abspath(__file__))


class PureBuildWarning(RuntimeWarning):
    """This install has no C core: every routine runs on its (much slower) Python twin."""


def _has_compiled_files() -> bool:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return any(f.startswith("_") and f.endswith(suffixes) for f in os.listdir(_HERE))


def _choose() -> str:
    if NO_EXTENSIONS:
        return "python"
    if _has_compiled_files():
        return "c"
    if os.path.exists(os.path.join(_HERE, "PURE_BUILD")):
        warnings.warn("perceptron_c was installed without its C core (a pure build); every "
                      "routine runs on its Python twin, about 100x slower. Install a binary "
                      "wheel, or build from the source distribution with a C compiler. Set "
                      "PERCEPTRON_C_NO_EXTENSIONS=1 to choose the Python twins silently.",
                      PureBuildWarning, stacklevel=3)
        return "python"
    raise ImportError("perceptron_c: the C core is not built. Install the package (python -m "
                      "pip install .), build it in place (python -m pip install -e .), or set "
                      "PERCEPTRON_C_NO_EXTENSIONS=1 to run the pure-Python twins.")


BACKEND = _choose()

if TYPE_CHECKING or BACKEND == "c":
    try:
        from . import (
            _budget_c,
            _conjunction_c,
            _dual_c,
            _features_c,
            _gram_c,
            _kpa_c,
            _linear_c,
            _order_c,
            _sequence_c,
            _sgd_c,
            _tagging_c,
            _voted_c,
        )
    except ImportError as exc:
        raise ImportError(
            f"perceptron_c: a compiled module is present but does not load ({exc}). "
            "Reinstall with a C compiler, or set PERCEPTRON_C_NO_EXTENSIONS=1 to use the "
            "pure-Python twins.") from exc

# True while the current context runs on the Python twins although the C ones are loaded.
_python_forced: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "perceptron_c_python_forced", default=False)


def active() -> str:
    """The twin the current thread runs on: "c" or "python"."""
    return "python" if BACKEND == "python" or _python_forced.get() else "c"


def _c() -> bool:
    return BACKEND == "c" and not _python_forced.get()


def linear() -> ModuleType:
    """The linear epoch routines: `_linear_c` or its spec `_linear_py`."""
    return _linear_c if _c() else _linear_py


def gram() -> ModuleType:
    """Bit packing and Gram matrices: `_gram_c` or its spec `_gram_py`."""
    return _gram_c if _c() else _gram_py


def dual() -> ModuleType:
    """The float dual (kernel) perceptron epochs: `_dual_c` or its spec `_dual_py`."""
    return _dual_c if _c() else _dual_py


def conjunction() -> ModuleType:
    """The exact conjunction-kernel epochs: `_conjunction_c` or its spec `_conjunction_py`."""
    return _conjunction_c if _c() else _conjunction_py


def voted() -> ModuleType:
    """The voted perceptron's vote: `_voted_c` or its spec `_voted_py`."""
    return _voted_c if _c() else _voted_py


def sgd() -> ModuleType:
    """scikit-learn's SGD epoch (Perceptron, PA): `_sgd_c` or its spec `_sgd_py`."""
    return _sgd_c if _c() else _sgd_py


def budget() -> ModuleType:
    """The budget kernel perceptron epochs: `_budget_c` or its spec `_budget_py`."""
    return _budget_c if _c() else _budget_py


def kpa() -> ModuleType:
    """The kernel passive-aggressive epochs: `_kpa_c` or its spec `_kpa_py`."""
    return _kpa_c if _c() else _kpa_py


def order() -> ModuleType:
    """The visiting orders: `_order_c` or its spec `_order_py`."""
    return _order_c if _c() else _order_py


def sequence() -> ModuleType:
    """The structured perceptron (Viterbi, epochs): `_sequence_c` or its spec `_sequence_py`."""
    return _sequence_c if _c() else _sequence_py


def tagging() -> ModuleType:
    """The greedy tagger (NLTK's): epochs, tagging: `_tagging_c` or its spec `_tagging_py`."""
    return _tagging_c if _c() else _tagging_py


def features() -> ModuleType:
    """Token features (keys, interning, hashing): `_features_c` or its spec `_features_py`."""
    return _features_c if _c() else _features_py


@contextlib.contextmanager
def using(backend: str) -> Iterator[None]:
    """Run the current thread's models on the "c" or the "python" twins inside the block."""
    if backend not in ("c", "python"):
        raise ValueError(f"backend must be 'c' or 'python', got {backend!r}")
    if backend == "c" and BACKEND != "c":
        raise RuntimeError("the C twins are not available (PERCEPTRON_C_NO_EXTENSIONS is set "
                           "or this is a pure build)")
    token = _python_forced.set(backend == "python")
    try:
        yield
    finally:
        _python_forced.reset(token)
