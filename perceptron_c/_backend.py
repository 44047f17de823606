"""The one dispatcher: picks the C twins or the Python twins of every routine module.

``PERCEPTRON_C_NO_EXTENSIONS`` set to a non-empty value forces the Python twins. Without it
the compiled modules must import: a compiled file that is there but fails to load is an
error, not a silent slowdown. A pure install (the ``py3-none-any`` wheel, built with the
variable set, e.g. what PyPy gets) has no compiled file at all and runs the twins.
Models look routines up here at call time (``_backend.linear.<name>``), so ``using("python")``
can run one model on the other twin, for tests and for the demo's timing column.
"""
import contextlib
import importlib
import importlib.machinery
import os

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))


def _compiled_files():
    here = os.path.dirname(os.path.abspath(__file__))
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return [f for f in os.listdir(here) if f.startswith("_") and f.endswith(suffixes)]


BACKEND = "python" if NO_EXTENSIONS or not _compiled_files() else "c"
_MODULES = ("_linear", "_kernels", "_dual", "_voted")


def _load(name, backend):
    if backend == "python":
        return importlib.import_module(f"perceptron_c.{name}_py")
    try:
        return importlib.import_module(f"perceptron_c.{name}_c")
    except ImportError as exc:
        raise ImportError(
            f"perceptron_c: the compiled module {name}_c is missing ({exc}). Reinstall with a "
            "C compiler, or set PERCEPTRON_C_NO_EXTENSIONS=1 to use the pure-Python twins."
        ) from exc


linear = _load("_linear", BACKEND)
kernels = _load("_kernels", BACKEND)
dual = _load("_dual", BACKEND)
voted = _load("_voted", BACKEND)


@contextlib.contextmanager
def using(backend):
    """Temporarily route every model through the "c" or the "python" twins."""
    if backend not in ("c", "python"):
        raise ValueError(f"backend must be 'c' or 'python', got {backend!r}")
    g = globals()
    saved = {name.lstrip("_"): g[name.lstrip("_")] for name in _MODULES}
    try:
        for name in _MODULES:
            g[name.lstrip("_")] = _load(name, backend)
        yield
    finally:
        g.update(saved)
