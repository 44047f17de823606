"""The one dispatcher: which twin (C or Python) of each routine module runs.

Each routine module of ``_core/registry.py`` has one accessor here, named after it:
``_backend.linear.perceptron_epoch_dense(...)`` runs the C twin ``_core._linear_c`` or its
specification ``_core._linear_py``. To a type checker the accessor *is* the Python twin (it is
imported under that name when ``TYPE_CHECKING``), so every call a model makes is checked
against the specification's signature. At run time it is a small object that picks the twin
at each attribute lookup and imports it on first use, so ``import perceptron_c`` loads no
compiled module it does not need.

Which twin:

- ``PERCEPTRON_C_NO_EXTENSIONS`` set to a non-empty value: the Python twins, silently.
- Otherwise the compiled twins, which must import: a compiled file that is there but fails
  to load is an error (at its first use), not a silent slowdown.
- A pure install (built with the variable set: a file ``PURE_BUILD`` sits in the package and
  no compiled file does) runs the Python twins and warns once, at import, that the C core is
  absent. A source checkout that was never built is an error that says how to build it.

``using("python")`` runs the calling thread (more exactly, its context) on the other twin for
the duration of a ``with`` block: tests and the demo use it to run one model on both twins.
It is safe with threads: it never changes what any other thread runs. Resolve an accessor's
attribute inside the context that should run it (the package's worker threads run in a copy
of the caller's context).
"""
from __future__ import annotations

import contextlib
import contextvars
import importlib
import importlib.machinery
import os
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._core.registry import ROUTINES, twins
from .exceptions import PureBuildWarning

__all__ = ["BACKEND", "NO_EXTENSIONS", "PureBuildWarning", "active", "using", *ROUTINES]

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))
_HERE = os.path.dirname(os.path.abspath(__file__))
_CORE = os.path.join(_HERE, "_core")


def _has_compiled_files() -> bool:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return any(f.startswith("_") and f.endswith(suffixes) for f in os.listdir(_CORE))


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

# True while the current context runs on the Python twins although the C ones are loaded.
_python_forced: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "perceptron_c_python_forced", default=False)


def active() -> str:
    """The twin the current thread runs on: "c" or "python"."""
    return "python" if BACKEND == "python" or _python_forced.get() else "c"


def _c() -> bool:
    return BACKEND == "c" and not _python_forced.get()


def _load(module: str) -> ModuleType:
    try:
        return importlib.import_module(f"perceptron_c._core.{module}")
    except ImportError as exc:
        if not module.endswith("_c"):
            raise
        raise ImportError(
            f"perceptron_c: a compiled module is present but does not load ({exc}). "
            "Reinstall with a C compiler, or set PERCEPTRON_C_NO_EXTENSIONS=1 to use the "
            "pure-Python twins.") from exc


class _Twins:
    """A routine module whose twin is chosen at each attribute lookup (see the module's
    docstring); each twin is imported on its first use."""

    __slots__ = ("_names", "_loaded")

    def __init__(self, name: str) -> None:
        self._names = twins(name)
        self._loaded: list[ModuleType | None] = [None, None]

    def _module(self) -> ModuleType:
        which = 0 if _c() else 1
        module = self._loaded[which]
        if module is None:
            module = self._loaded[which] = _load(self._names[which])
        return module

    # A routine is looked up on the twin at once, on every routine call: the default lookup
    # would fail on the instance first, then call __getattr__ (0.7 us a lookup; this: 0.3).
    def __getattribute__(self, attr: str) -> Any:
        if attr in _OWN or attr[:2] == "__":
            return object.__getattribute__(self, attr)
        module = _loaded_of(self)[0 if BACKEND == "c" and not _python_forced.get() else 1]
        return getattr(module if module is not None else _Twins._module(self), attr)

    def __getattr__(self, attr: str) -> Any:  # the twin's own dunder names (__all__...)
        return getattr(self._module(), attr)

    # Setting an attribute sets it on the twin in use, as on a module (tests patch routines).
    def __setattr__(self, attr: str, value: Any) -> None:
        if attr in _Twins.__slots__:
            object.__setattr__(self, attr, value)
        else:
            setattr(self._module(), attr, value)

    def __delattr__(self, attr: str) -> None:
        delattr(self._module(), attr)

    def __repr__(self) -> str:
        return f"<perceptron_c routines {self._names[1][1:-3]!r}>"


_OWN = frozenset(("_names", "_loaded", "_module"))
_loaded_of = _Twins.__dict__["_loaded"].__get__  # (the slot's own reader: no lookup)

# One accessor per entry of ROUTINES (tests/test_backend.py checks that they match).
if TYPE_CHECKING:
    from ._core import _budget_py as budget
    from ._core import _conjunction_py as conjunction
    from ._core import _crfsuite_py as crfsuite
    from ._core import _crftag_py as crftag
    from ._core import _dicts_py as dicts
    from ._core import _dual_py as dual
    from ._core import _features_py as features
    from ._core import _gram_py as gram
    from ._core import _kpa_py as kpa
    from ._core import _linear_py as linear
    from ._core import _order_py as order
    from ._core import _sequence_py as sequence
    from ._core import _sgd_py as sgd
    from ._core import _tagging_py as tagging
    from ._core import _tokens_py as tokens
    from ._core import _voted_py as voted
else:
    budget = _Twins("budget")
    conjunction = _Twins("conjunction")
    crfsuite = _Twins("crfsuite")
    crftag = _Twins("crftag")
    dicts = _Twins("dicts")
    dual = _Twins("dual")
    features = _Twins("features")
    gram = _Twins("gram")
    kpa = _Twins("kpa")
    linear = _Twins("linear")
    order = _Twins("order")
    sequence = _Twins("sequence")
    sgd = _Twins("sgd")
    tagging = _Twins("tagging")
    tokens = _Twins("tokens")
    voted = _Twins("voted")


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
