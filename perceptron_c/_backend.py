"""The one dispatcher: picks the C twins or the Python twins of every routine module.

``PERCEPTRON_C_NO_EXTENSIONS`` set to a non-empty value forces the Python twins. Without it
the compiled modules must import: a missing extension is an error, not a silent slowdown.
"""
import importlib
import os

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))
BACKEND = "python" if NO_EXTENSIONS else "c"


def _load(name):
    if NO_EXTENSIONS:
        return importlib.import_module(f"perceptron_c.{name}_py")
    try:
        return importlib.import_module(f"perceptron_c.{name}_c")
    except ImportError as exc:  # pragma: no cover - only on a broken install
        raise ImportError(
            f"perceptron_c: the compiled module {name}_c is missing ({exc}). Reinstall with a "
            "C compiler, or set PERCEPTRON_C_NO_EXTENSIONS=1 to use the pure-Python twins."
        ) from exc


linear = _load("_linear")
