"""Model files: fitted estimators as versioned ``.npz`` archives, read without pickle.

Data files (svmlight, CSV, npz) are read by `perceptron_c.datasets`.

Model files
-----------
``save_model(estimator, path)`` writes one ``.npz`` archive (``np.savez``, never pickle) with

- ``__format__``  the string ``"perceptron_c-model"``;
- ``__version__`` the integer format version (``FORMAT_VERSION``, currently 1);
- ``__class__``   the estimator's class name, a key of ``MODEL_CLASSES``;
- ``__params__``  ``get_params()`` as a JSON string;
- ``state/<name>`` one entry per array of the estimator's ``_state_arrays()``.

``load_model(path)`` reads it back without pickle and rebuilds the estimator through
``<class>._from_state(params, arrays)``. The archive is read member by member: every member
must be a ``.npy`` array, stored or deflated (no encryption), whose header declares exactly
the bytes the member holds, and a deflated member may expand at most 64-fold; then the
model's state is checked (shapes, dtypes, ranges, the preconditions of the C routines), and
finally the model is written out again in memory: the file must hold exactly what
``save_model`` would write for it, no more (no unknown member) and nothing different.
Anything wrong raises `FileFormatError` (a ``ValueError``) naming the file and the problem;
no other exception escapes, no pickle is ever executed.

Labels: numeric, bool, str and bytes ``classes_`` are stored as they are; labels held in an
object array (Python ints of any size, str, bool) are stored as text with their type and
come back as the same objects. Any other label type is refused by ``save_model`` before
anything is written, and so are labels that would not come back equal: NaT (which the
estimators refuse as they refuse NaN) and str labels ending in NUL held in an object array.

File names: like ``np.savez``, ``save_model`` appends ``.npz`` when the name does not already
end with it, and returns the name it wrote. ``load_model`` accepts the same name with or
without the suffix: when ``path`` does not exist but ``path + ".npz"`` does, it reads that.
Only a regular file is read: a named pipe, a device or a directory raises `FileFormatError`
before it is opened (opening a named pipe would wait for a writer, forever if none comes).
"""
from __future__ import annotations

import importlib
import os
import warnings
from typing import Any

import numpy as np

from ._utils._docs import fill
from ._utils._npzfile import MAX_EXPANSION as MAX_EXPANSION  # re-exported: public here first
from ._utils._npzfile import _write_npz, read_npz, replace_file
from ._utils._npzfile import check_regular_file as check_regular_file
from .exceptions import FileFormatError

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MODEL_CLASSES",
    "FileFormatError",
    "all_estimators",
    "register_model_class",
    "save_model",
    "load_model",
    "read_npz",
]

FORMAT_NAME = "perceptron_c-model"
FORMAT_VERSION = 1
_STATE_PREFIX = "state/"
_META_KEYS = ("__format__", "__version__", "__class__", "__params__")
MAX_KERNEL_DEPTH = 32  # sums and products of kernels nested deeper than this are refused

# docstring fragments of every save and load of a model file (the estimators', the tagger's,
# perceptron_c.load): one text for what one function does
FRAGMENTS = {
    "save_path": """
        path : str or path-like
            Where to write; ``.npz`` is appended if it does not end with it.

        Returns
        -------
        str
            The path written.
        """,
    "load_sections": """
        Parameters
        ----------
        path : str or path-like
            The model file; when it does not exist but ``path + ".npz"`` does, that is read.

        Returns
        -------
        object
            The estimator (or tagger), of the class the file names, as it was saved.

        Raises
        ------
        FileFormatError
            If the file is not a valid model file: another format, an unknown class or
            version, a damaged or crafted archive, or a state the class refuses.
        FileNotFoundError
            If neither ``path`` nor ``path + ".npz"`` exists.
        """,
}



# Class name stored in the file -> "module:attribute" (imported only when needed, so reading
# this module never imports the models) or the class itself.
MODEL_CLASSES: dict[str, type | str] = {
    "Perceptron": "perceptron_c.perceptron:Perceptron",
    "KernelPerceptron": "perceptron_c.kernel_perceptron:KernelPerceptron",
    "BudgetKernelPerceptron": "perceptron_c.budget_perceptron:BudgetKernelPerceptron",
    "VotedPerceptron": "perceptron_c.voted_perceptron:VotedPerceptron",
    "PassiveAggressiveClassifier":
        "perceptron_c.passive_aggressive:PassiveAggressiveClassifier",
    "PassiveAggressiveRegressor": "perceptron_c.passive_aggressive:PassiveAggressiveRegressor",
    "KernelPassiveAggressiveClassifier":
        "perceptron_c.kernel_passive_aggressive:KernelPassiveAggressiveClassifier",
    "StructuredPerceptron": "perceptron_c.sequence:StructuredPerceptron",
    "PerceptronTagger": "perceptron_c.tagging:PerceptronTagger",
}



# --------------------------------------------------------------------------- model registry

def register_model_class(cls: type | str, name: str | None = None) -> type | str:
    """Make ``cls`` saveable and loadable under ``name`` (default: its class name).

    The class must provide ``get_params()``, ``_state_arrays()`` and the classmethod
    ``_from_state(params, arrays)``. A name already registered is replaced.

    Parameters
    ----------
    cls : type or str
        The class, or a lazy ``"module:attribute"`` string, imported when a file of it is
        first read.
    name : str, optional
        The name stored in the file's ``__class__``; None means ``cls.__name__`` (the part
        after ":" for a string).

    Returns
    -------
    type or str
        ``cls``, unchanged (so it can decorate a class).
    """
    if name is None:
        if isinstance(cls, str):
            name = cls.rpartition(":")[2]
        else:
            name = cls.__name__
    MODEL_CLASSES[name] = cls
    return cls


def all_estimators(type_filter: str | None = None) -> list[tuple[str, type]]:
    """The package's estimators, from the model registry (`MODEL_CLASSES`): the one list
    the tests, the docs and the command line derive theirs from.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "tagger"}, optional
        Only the estimators of that type (scikit-learn's ``estimator_type``; ``"tagger"``:
        `perceptron_c.tagging.PerceptronTagger`, trained on tagged sentences); all when None.

    Returns
    -------
    list of (str, type)
        (class name, class), sorted by name, as ``sklearn.utils.all_estimators`` gives them.
        Classes registered by other packages (`register_model_class`) are left out.

    Raises
    ------
    ValueError
        An unknown ``type_filter``.
    """
    if type_filter not in (None, "classifier", "regressor", "tagger"):
        raise ValueError("type_filter must be None, 'classifier', 'regressor' or 'tagger'; "
                         f"got {type_filter!r}")
    out = []
    for name, target in sorted(MODEL_CLASSES.items()):
        module = target if isinstance(target, str) else target.__module__
        if not module.startswith("perceptron_c."):
            continue
        cls = _resolve_class(name)
        kind = getattr(cls, "_estimator_type", None) or "tagger"
        if type_filter is None or kind == type_filter:
            out.append((name, cls))
    return out


def _resolve_class(name: str) -> Any:
    target = MODEL_CLASSES[name]
    if isinstance(target, str):
        module_name, _, attribute = target.partition(":")
        target = getattr(importlib.import_module(module_name), attribute)
    return target


# --------------------------------------------------------------------------- model files

def _model_path(path: str | os.PathLike[str]) -> str:
    path = os.fspath(path)
    return path if path.endswith(".npz") else path + ".npz"


def _is_kernel_object(value: object) -> bool:
    from .kernels import Kernel

    return isinstance(value, Kernel)


def _spec_depth(spec: Any, depth: int = 0) -> int:
    if depth > MAX_KERNEL_DEPTH:
        raise ValueError(f"kernel description nested deeper than {MAX_KERNEL_DEPTH} levels")
    if isinstance(spec, list):
        return max([depth] + [_spec_depth(item, depth + 1) for item in spec])
    return depth


def restore_params(params: dict[str, Any]) -> dict[str, Any]:
    """Rebuild the values `jsonable_params` wrote as tagged objects (kernels, dicts,
    infinities)."""
    from .kernels import kernel_from_spec

    restored = {}
    for key, value in params.items():
        if isinstance(value, dict) and set(value) == {"__kernel__"}:
            _spec_depth(value["__kernel__"])
            value = kernel_from_spec(value["__kernel__"])
        elif isinstance(value, dict) and set(value) == {"__dict__"}:
            value = _dict_from_pairs(key, value["__dict__"])
        elif isinstance(value, dict) and set(value) == {"__float__"}:
            if value["__float__"] not in ("inf", "-inf"):
                raise ValueError(f"parameter {key}: expected 'inf' or '-inf'")
            value = float(value["__float__"])
        restored[key] = value
    return restored


_SCALARS = (bool, int, float, str)


def _dict_from_pairs(key: str, pairs: Any) -> dict:
    """A dict parameter (class_weight) stored as [[key, value], ...] of JSON scalars."""
    if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], _SCALARS)
            and isinstance(p[1], _SCALARS) for p in pairs):
        raise ValueError(f"parameter {key}: expected [[key, value], ...] pairs")
    return {k: v for k, v in pairs}


def _dict_to_pairs(key: str, value: dict) -> dict:
    pairs = []
    for k, v in value.items():
        k = k.item() if isinstance(k, np.generic) else k
        v = v.item() if isinstance(v, np.generic) else v
        if not isinstance(k, _SCALARS) or not isinstance(v, _SCALARS):
            raise TypeError(f"save_model: parameter {key} has the entry {k!r}: {v!r}, which "
                            "cannot be stored (keys and values must be bool, int, float or str)")
        pairs.append([k, v])
    return {"__dict__": pairs}


def _jsonable_params(estimator: Any) -> dict[str, Any]:
    """get_params() made JSON-safe; a random generator object is stored as None."""
    return jsonable_params(estimator.get_params())


def jsonable_params(values: dict[str, Any]) -> dict[str, Any]:
    """Parameter values made JSON-safe (read back by `restore_params`); a random generator
    object is stored as None."""
    params: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, (np.random.Generator, np.random.RandomState)):
            warnings.warn(
                f"save_model: {key} is a {type(value).__name__} object, which cannot be saved; "
                f"the file stores {key}=None (the fitted weights are saved exactly; only "
                "further shuffling after loading differs)",
                UserWarning,
                stacklevel=4,
            )
            value = None
        elif isinstance(value, np.generic):
            value = value.item()
        elif isinstance(value, dict):
            params[key] = _dict_to_pairs(key, value)
            continue
        if isinstance(value, float) and np.isinf(value):  # JSON has no infinity (C=inf)
            params[key] = {"__float__": "inf" if value > 0 else "-inf"}
            continue
        elif _is_kernel_object(value):
            from .kernels import kernel_to_spec

            value = {"__kernel__": kernel_to_spec(value)}  # raises for Python callables
            params[key] = value
            continue
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise TypeError(
                f"save_model: parameter {key}={value!r} of type {type(value).__name__} cannot "
                "be stored (only None, bool, int, float and str parameters can)"
            )
        params[key] = value
    return params


def _checked_state(estimator: Any) -> dict[str, np.ndarray]:
    state = estimator._state_arrays()
    arrays = {}
    for name, array in state.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"save_model: state array names must be non-empty str, got {name!r}")
        array = np.asarray(array)
        # the dtypes np.load reads back without pickle
        if array.dtype.kind not in "biufUSMm":
            raise TypeError(
                f"save_model: state array {name!r} has dtype {array.dtype}; only bool, number, "
                "text and time arrays can be saved (no object arrays, no pickle)")
        arrays[_STATE_PREFIX + name] = array
    return arrays


def _file_arrays(estimator: Any) -> dict[str, np.ndarray]:
    """Every array of the model file of ``estimator``, exactly as `save_model` writes it."""
    import json

    cls = type(estimator)
    name = cls.__name__
    if name not in MODEL_CLASSES or _resolve_class(name) is not cls:
        raise TypeError(
            f"save_model: {cls.__module__}.{cls.__qualname__} is not a registered model class; "
            "register it with perceptron_c.io.register_model_class")
    arrays = _checked_state(estimator)
    arrays["__format__"] = np.array(FORMAT_NAME)
    arrays["__version__"] = np.array(FORMAT_VERSION, dtype=np.int64)
    arrays["__class__"] = np.array(name)
    arrays["__params__"] = np.array(json.dumps(_jsonable_params(estimator), sort_keys=True,
                                               allow_nan=False))
    return arrays


@fill(FRAGMENTS)
def save_model(estimator: Any, path: str | os.PathLike[str]) -> str:
    """Write a fitted ``estimator`` to ``path`` (``.npz`` appended if missing); return the path.

    Everything is checked before the file is opened (labels that could not come back the
    same, parameters that JSON cannot hold, a state that left float64's range). The file is
    written by `replace_file`: to a new file beside ``path``, flushed to disk, then renamed,
    so a failed or interrupted save never leaves a half-written model under ``path`` (nor
    anything else); an ``OSError`` names ``path``.

    Parameters
    ----------
    estimator : object
        A fitted estimator of a class in ``MODEL_CLASSES``.
    {save_path}

    Raises
    ------
    TypeError
        If the estimator's class is not registered, its labels would not come back the same,
        a parameter cannot be stored (only None, bool, int, float, str, the built-in kernels,
        and dicts of bool, int, float or str can), or a state array has a dtype a file cannot
        hold without pickle.
    ValueError
        If a state array holds a value that is not finite or NaT.
    OSError
        If the file cannot be written (naming ``path``); ``IsADirectoryError`` if ``path`` is
        a folder.

    Warns
    -----
    UserWarning
        If a parameter is a random generator object, which is stored as None.
    """
    arrays = _file_arrays(estimator)
    for key, array in arrays.items():
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise ValueError(f"save_model: {key} is not finite; the model is not usable")
        if array.dtype.kind in "Mm" and np.isnat(array).any():  # NaT != NaT: load refuses it
            raise ValueError(f"save_model: {key} holds NaT, which no file check can match")
    path = _model_path(path)
    replace_file(path, lambda handle: _write_npz(handle, arrays))
    return path


def _scalar(arrays: dict[str, np.ndarray], key: str, kind: str, path: str) -> Any:
    if key not in arrays:
        raise FileFormatError(f"{path}: not a perceptron_c model file (no {key} entry)")
    value = arrays[key]
    if value.shape != () or value.dtype.kind not in kind:
        raise FileFormatError(f"{path}: corrupt model file ({key} has dtype {value.dtype}, "
                              f"shape {value.shape})")
    return value.item()


def reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _header(arrays: dict[str, np.ndarray], path: str) -> tuple[str, dict[str, Any]]:
    """The class name and the parameters of a model file, checked."""
    import json

    file_format = _scalar(arrays, "__format__", "U", path)
    if file_format != FORMAT_NAME:
        raise FileFormatError(f"{path}: not a perceptron_c model file (format {file_format!r})")
    version = _scalar(arrays, "__version__", "iu", path)
    if version > FORMAT_VERSION:
        raise FileFormatError(
            f"{path}: model format version {version} was written by a newer perceptron_c; "
            f"this version reads version {FORMAT_VERSION}. Upgrade perceptron_c to load it.")
    if version != FORMAT_VERSION:
        raise FileFormatError(f"{path}: unsupported model format version {version} "
                              f"(this version reads version {FORMAT_VERSION})")
    class_name = _scalar(arrays, "__class__", "U", path)
    if class_name not in MODEL_CLASSES:
        raise FileFormatError(f"{path}: unknown model class {class_name!r} "
                              f"(known: {', '.join(sorted(MODEL_CLASSES))})")
    try:
        params = json.loads(_scalar(arrays, "__params__", "U", path),
                            parse_constant=reject_constant)
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"{path}: corrupt model file (__params__ is not JSON: {exc})") \
            from None
    if not isinstance(params, dict):
        raise FileFormatError(f"{path}: corrupt model file (__params__ is not a JSON object)")
    return class_name, params


def _same_file(loaded: dict[str, np.ndarray], again: dict[str, np.ndarray]) -> str | None:
    """What differs between a file's arrays and those the model it built would write."""
    if set(loaded) != set(again):
        extra = sorted(set(loaded) - set(again))
        missing = sorted(set(again) - set(loaded))
        return f"unexpected entries {extra}" if extra else f"missing entries {missing}"
    for key, a in loaded.items():
        b = again[key]
        if key == "__params__":
            continue  # compared as parsed JSON by the caller
        if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
            return f"{key} is not what the model holds (a value out of its checked range)"
    return None


@fill(FRAGMENTS)
def load_model(path: str | os.PathLike[str]) -> Any:
    """Read a model written by ``save_model``, without pickle.

    See the module docstring for everything that is checked.

    {load_sections}
    """
    import json

    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".npz"):
        path = path + ".npz"
    arrays = read_npz(path, "perceptron_c model")
    class_name, params = _header(arrays, path)
    state = {}
    for key, value in arrays.items():
        if key in _META_KEYS:
            continue
        if not key.startswith(_STATE_PREFIX) or key == _STATE_PREFIX:
            raise FileFormatError(f"{path}: corrupt model file (unexpected entry {key!r})")
        state[key[len(_STATE_PREFIX):]] = value
    try:
        model = _resolve_class(class_name)._from_state(restore_params(params), state)
        again = _file_arrays(model)
    except Exception as exc:  # every failure to rebuild a model is the file's fault
        detail = str(exc) or type(exc).__name__
        raise FileFormatError(f"{path}: invalid {class_name} model: {detail}") from None
    problem = _same_file(arrays, again)
    held = json.loads(str(again["__params__"]))
    # a file from before a parameter existed leaves it out: the model takes its default
    if problem is None and {key: held[key] for key in params if key in held} != params:
        problem = "__params__ is not what the model holds"
    if problem is not None:
        raise FileFormatError(f"{path}: invalid {class_name} model: {problem}")
    return model
