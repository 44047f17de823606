"""Reading and writing: fitted models as versioned ``.npz`` files, and data sets.

Model files
-----------
``save_model(estimator, path)`` writes one ``.npz`` archive (``np.savez``, never pickle) with

- ``__format__``  the string ``"perceptron_c-model"``;
- ``__version__`` the integer format version (``FORMAT_VERSION``, currently 1);
- ``__class__``   the estimator's class name, a key of ``MODEL_CLASSES``;
- ``__params__``  ``get_params()`` as a JSON string;
- ``state/<name>`` one entry per array of the estimator's ``_state_arrays()``.

``load_model(path)`` reads it back with ``allow_pickle=False`` and rebuilds the estimator
through ``<class>._from_state(params, arrays)``. Anything wrong with the file (not an npz, a
missing or unknown key, another format, a newer version, an unknown class, an object array,
state the class rejects) raises ``ValueError`` naming the file.

File names: like ``np.savez``, ``save_model`` appends ``.npz`` when the name does not already
end with it, and returns the name it wrote. ``load_model`` accepts the same name with or
without the suffix: when ``path`` does not exist but ``path + ".npz"`` does, it reads that.

Data files
----------
``load_data(path)`` returns ``(X, y)`` and picks the reader by extension:

- ``.svm``, ``.svmlight``, ``.libsvm``, ``.txt``: svmlight / libsvm text, one sample a line,
  ``label idx:val idx:val ...`` with 1-based indices; ``#`` starts a comment, ``qid:`` pairs
  are ignored, blank lines are skipped. X is a scipy CSR matrix when scipy is installed, else
  a dense float64 array.
- ``.csv``: comma-separated, the last column is the label; a first row whose feature cells
  are not all numbers is a header and is skipped.
- ``.npz``: arrays ``X`` and ``y``, or ``data``, ``indices``, ``indptr``, ``shape`` and ``y``
  for a CSR matrix (the layout ``scipy.sparse.save_npz`` writes, plus ``y``).

Labels come back as int64 when all are integral numbers, float64 when all are numbers, else
as strings. ``dump_svmlight(X, y, path)`` writes the svmlight text format, for round trips.
"""
import csv
import importlib
import json
import math
import os
import secrets
import warnings
import zipfile

import numpy as np

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MODEL_CLASSES",
    "register_model_class",
    "save_model",
    "load_model",
    "load_data",
    "dump_svmlight",
]

FORMAT_NAME = "perceptron_c-model"
FORMAT_VERSION = 1
_STATE_PREFIX = "state/"
_META_KEYS = ("__format__", "__version__", "__class__", "__params__")

# Class name stored in the file -> "module:attribute" (imported only when needed, so reading
# this module never imports the models) or the class itself.
MODEL_CLASSES = {
    "Perceptron": "perceptron_c.linear:Perceptron",
    "KernelPerceptron": "perceptron_c.kernel:KernelPerceptron",
    "VotedPerceptron": "perceptron_c.voted:VotedPerceptron",
}

SVMLIGHT_EXTENSIONS = (".svm", ".svmlight", ".libsvm", ".txt")
DATA_EXTENSIONS = SVMLIGHT_EXTENSIONS + (".csv", ".npz")


# --------------------------------------------------------------------------- model registry

def register_model_class(cls, name=None):
    """Make ``cls`` saveable and loadable under ``name`` (default: its class name).

    ``cls`` is a class or a lazy ``"module:attribute"`` string. The class must provide
    ``get_params()``, ``_state_arrays()`` and the classmethod ``_from_state(params, arrays)``.
    """
    if name is None:
        if isinstance(cls, str):
            name = cls.rpartition(":")[2]
        else:
            name = cls.__name__
    MODEL_CLASSES[name] = cls
    return cls


def _resolve_class(name):
    target = MODEL_CLASSES[name]
    if isinstance(target, str):
        module_name, _, attribute = target.partition(":")
        target = getattr(importlib.import_module(module_name), attribute)
    return target


# --------------------------------------------------------------------------- model files

def _model_path(path):
    path = os.fspath(path)
    return path if path.endswith(".npz") else path + ".npz"


def _is_kernel_object(value):
    from .kernels import Kernel

    return isinstance(value, Kernel)


def _restore_params(params):
    """Rebuild the kernel objects that _jsonable_params wrote as specs."""
    from .kernels import kernel_from_spec

    return {key: kernel_from_spec(value["__kernel__"])
            if isinstance(value, dict) and set(value) == {"__kernel__"} else value
            for key, value in params.items()}


def _jsonable_params(estimator):
    """get_params() made JSON-safe; a random generator object is stored as None."""
    params = {}
    for key, value in estimator.get_params().items():
        if isinstance(value, (np.random.Generator, np.random.RandomState)):
            warnings.warn(
                f"save_model: {key} is a {type(value).__name__} object, which cannot be saved; "
                f"the file stores {key}=None (the fitted weights are saved exactly; only "
                "further shuffling after loading differs)",
                UserWarning,
                stacklevel=3,
            )
            value = None
        elif isinstance(value, np.generic):
            value = value.item()
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


def _checked_state(estimator):
    state = estimator._state_arrays()
    arrays = {}
    for name, array in state.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"save_model: state array names must be non-empty str, got {name!r}")
        array = np.asarray(array)
        # b, i, u, f, U: the dtypes np.load reads back without pickle.
        if array.dtype.kind not in "biufU":
            raise TypeError(
                f"save_model: state array {name!r} has dtype {array.dtype}; only bool, integer, "
                "float and unicode arrays can be saved (no object arrays, no pickle)"
            )
        arrays[_STATE_PREFIX + name] = array
    return arrays


def save_model(estimator, path):
    """Write a fitted ``estimator`` to ``path`` (``.npz`` appended if missing); return the path.

    The file is written to a temporary name first and then renamed, so an interrupted save
    never leaves a half-written model under ``path``.
    """
    cls = type(estimator)
    name = cls.__name__
    known = name in MODEL_CLASSES and _resolve_class(name) is cls
    if not known:
        raise TypeError(
            f"save_model: {cls.__module__}.{cls.__qualname__} is not a registered model class; "
            "register it with perceptron_c.io.register_model_class"
        )
    arrays = _checked_state(estimator)
    arrays["__format__"] = np.array(FORMAT_NAME)
    arrays["__version__"] = np.array(FORMAT_VERSION, dtype=np.int64)
    arrays["__class__"] = np.array(name)
    arrays["__params__"] = np.array(json.dumps(_jsonable_params(estimator), sort_keys=True))

    path = _model_path(path)
    # open(..., "x") rather than mkstemp: the file gets the usual umask permissions, not 0600
    tmp_path = f"{path}.{secrets.token_hex(6)}.tmp"
    try:
        with open(tmp_path, "xb") as handle:
            np.savez(handle, **arrays)
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.unlink(tmp_path)
        raise
    return path


def _read_npz(path, what):
    """All arrays of an npz file as a dict, read without pickle; ValueError on any damage."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a readable {what} (.npz) file: {exc}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{path}: not a {what} file (a single .npy array, not an .npz archive)")
    try:
        with archive:
            return {key: archive[key] for key in archive.files}
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise ValueError(
                f"{path}: contains an object (pickled) array, which perceptron_c refuses to "
                "load (allow_pickle=False); its files hold plain numeric and string arrays only"
            ) from None
        raise ValueError(f"{path}: corrupt {what} file: {exc}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"{path}: corrupt {what} file: {exc}") from None


def _scalar(arrays, key, kind, path):
    if key not in arrays:
        raise ValueError(f"{path}: not a perceptron_c model file (no {key} entry)")
    value = arrays[key]
    if value.shape != () or value.dtype.kind not in kind:
        raise ValueError(f"{path}: corrupt model file ({key} has dtype {value.dtype}, "
                         f"shape {value.shape})")
    return value.item()


def load_model(path):
    """Read a model written by ``save_model``; ValueError if the file is not a valid one."""
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".npz"):
        path = path + ".npz"
    arrays = _read_npz(path, "perceptron_c model")

    file_format = _scalar(arrays, "__format__", "U", path)
    if file_format != FORMAT_NAME:
        raise ValueError(f"{path}: not a perceptron_c model file (format {file_format!r})")
    version = _scalar(arrays, "__version__", "iu", path)
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path}: model format version {version} was written by a newer perceptron_c; "
            f"this version reads version {FORMAT_VERSION}. Upgrade perceptron_c to load it."
        )
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: unsupported model format version {version} "
                         f"(this version reads version {FORMAT_VERSION})")
    class_name = _scalar(arrays, "__class__", "U", path)
    if class_name not in MODEL_CLASSES:
        raise ValueError(f"{path}: unknown model class {class_name!r} "
                         f"(known: {', '.join(sorted(MODEL_CLASSES))})")
    params_text = _scalar(arrays, "__params__", "U", path)
    try:
        params = json.loads(params_text)
    except ValueError as exc:
        raise ValueError(f"{path}: corrupt model file (__params__ is not JSON: {exc})") from None
    if not isinstance(params, dict):
        raise ValueError(f"{path}: corrupt model file (__params__ is not a JSON object)")

    state = {}
    for key, value in arrays.items():
        if key in _META_KEYS:
            continue
        if not key.startswith(_STATE_PREFIX) or key == _STATE_PREFIX:
            raise ValueError(f"{path}: corrupt model file (unexpected entry {key!r})")
        state[key[len(_STATE_PREFIX):]] = value

    cls = _resolve_class(class_name)
    try:
        return cls._from_state(_restore_params(params), state)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path}: invalid {class_name} model: {exc}") from None


# --------------------------------------------------------------------------- data files

def _scipy_sparse():
    """scipy.sparse, or None when scipy is not installed (a seam the tests patch)."""
    try:
        import scipy.sparse
    except ImportError:
        return None
    return scipy.sparse


def _is_sparse(X):
    sparse = _scipy_sparse()
    return sparse is not None and sparse.issparse(X)


def _labels_array(values):
    """int64 if every label is an integral number, float64 if all are numbers, else str."""
    try:
        integers = [int(value) for value in values]  # exact, even beyond 2**53
        if all(-2**63 <= value < 2**63 for value in integers):
            return np.array(integers, dtype=np.int64)
    except ValueError:
        pass
    parsed = []
    for value in values:
        try:
            number = float(value)
        except ValueError:
            return np.array([str(v).strip() for v in values])
        if not math.isfinite(number):
            return np.array([str(v).strip() for v in values])
        parsed.append(number)
    floats = np.array(parsed, dtype=np.float64)
    if np.all(floats == np.round(floats)) and np.all(np.abs(floats) < 2.0 ** 53):
        return floats.astype(np.int64)
    return floats


def _build_csr(data, indices, indptr, n_rows, n_cols):
    data = np.asarray(data, dtype=np.float64)
    indices = np.asarray(indices, dtype=np.int32 if n_cols < 2**31 else np.int64)
    indptr = np.asarray(indptr, dtype=np.int64)
    sparse = _scipy_sparse()
    if sparse is not None:
        return sparse.csr_matrix((data, indices, indptr), shape=(n_rows, n_cols))
    dense = np.zeros((n_rows, n_cols), dtype=np.float64)
    rows = np.repeat(np.arange(n_rows), np.diff(indptr))
    dense[rows, indices] = data
    return dense


def _load_svmlight(path, n_features, require_labels):
    data, indices, indptr, labels = [], [], [0], []
    unlabeled_rows = 0
    max_index = 0
    with open(path, encoding="utf-8-sig") as handle:
        for line_number, line in enumerate(handle, start=1):
            content = line.split("#", 1)[0].split()
            if not content:
                continue
            first = content[0]
            if ":" in first:
                if require_labels:
                    raise ValueError(f"{path}:{line_number}: missing label "
                                     f"(line starts with {first!r})")
                unlabeled_rows += 1
                pairs = content
            else:
                try:
                    label = float(first)
                except ValueError:
                    label = math.nan
                if not math.isfinite(label):
                    raise ValueError(f"{path}:{line_number}: label {first!r} is not a finite "
                                     "number")
                labels.append(first)
                pairs = content[1:]
            row = {}
            for token in pairs:
                key, sep, value = token.partition(":")
                if not sep:
                    raise ValueError(f"{path}:{line_number}: expected idx:value, got {token!r}")
                if key == "qid":
                    continue
                try:
                    index = int(key)
                    number = float(value)
                except ValueError:
                    raise ValueError(f"{path}:{line_number}: malformed pair {token!r} "
                                     "(expected integer index:number)") from None
                if index < 1:
                    raise ValueError(f"{path}:{line_number}: feature index {index} "
                                     "(indices are 1-based)")
                if index in row:
                    raise ValueError(f"{path}:{line_number}: feature index {index} repeated")
                if n_features is not None and index > n_features:
                    raise ValueError(f"{path}:{line_number}: feature index {index} exceeds "
                                     f"n_features={n_features}")
                row[index] = number
            for index in sorted(row):
                indices.append(index - 1)
                data.append(row[index])
            if row:
                max_index = max(max_index, max(row))
            indptr.append(len(data))

    n_rows = len(indptr) - 1
    if n_rows == 0:
        raise ValueError(f"{path}: no samples")
    if unlabeled_rows and labels:
        raise ValueError(f"{path}: some lines have a label and some do not")
    n_cols = max_index if n_features is None else n_features
    X = _build_csr(data, indices, indptr, n_rows, n_cols)
    y = _labels_array(labels) if labels else None
    return X, y


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _load_csv(path, n_features, require_labels):
    with open(path, newline="", encoding="utf-8-sig") as handle:  # -sig: drop an Excel BOM
        reader = csv.reader(handle)
        rows, line_numbers = [], []
        for fields in reader:
            if not fields or all(not field.strip() for field in fields):
                continue
            rows.append(fields)
            line_numbers.append(reader.line_num)
    if not rows:
        raise ValueError(f"{path}: no data rows")

    n_columns = len(rows[0])
    # Without labels the file has exactly n_features columns (all features).
    labeled = require_labels or n_features is None or n_columns != n_features
    n_feature_columns = n_columns - 1 if labeled else n_columns
    if labeled and n_columns < 2:
        raise ValueError(f"{path}: needs at least two columns (features..., label)")
    if not all(_is_number(field) for field in rows[0][:n_feature_columns]):
        rows, line_numbers = rows[1:], line_numbers[1:]
        if not rows:
            raise ValueError(f"{path}: a header row but no data rows")
    if n_features is not None and n_feature_columns != n_features:
        raise ValueError(f"{path}: {n_feature_columns} feature columns, expected {n_features}")

    X = np.empty((len(rows), n_feature_columns), dtype=np.float64)
    labels = []
    for i, (fields, line_number) in enumerate(zip(rows, line_numbers)):
        if len(fields) != n_columns:
            raise ValueError(f"{path}:{line_number}: {len(fields)} columns, expected {n_columns}")
        for j in range(n_feature_columns):
            try:
                X[i, j] = float(fields[j])
            except ValueError:
                raise ValueError(f"{path}:{line_number}: column {j + 1} value {fields[j]!r} "
                                 "is not a number") from None
        if labeled:
            labels.append(fields[-1].strip())
    return X, (_labels_array(labels) if labeled else None)


def _load_data_npz(path, n_features, require_labels):
    arrays = _read_npz(path, "data")
    y = arrays.get("y")
    if y is None and require_labels:
        raise ValueError(f"{path}: no 'y' array (labels)")
    if "X" in arrays:
        X = arrays["X"]
        if X.ndim != 2 or X.dtype.kind not in "biuf":
            raise ValueError(f"{path}: 'X' must be a 2-D numeric array, got shape {X.shape} "
                             f"dtype {X.dtype}")
        if n_features is not None and X.shape[1] != n_features:
            raise ValueError(f"{path}: X has {X.shape[1]} features, expected {n_features}")
    elif all(key in arrays for key in ("data", "indices", "indptr", "shape")):
        X = _csr_from_arrays(arrays, path, n_features)
    else:
        raise ValueError(f"{path}: needs an 'X' array, or 'data', 'indices', 'indptr' and "
                         f"'shape' arrays; found {sorted(arrays)}")
    if y is not None:
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"{path}: 'y' must be 1-D with {X.shape[0]} labels, "
                             f"got shape {y.shape}")
    return X, y


def _csr_from_arrays(arrays, path, n_features):
    fmt = arrays.get("format")
    if fmt is not None:
        fmt = fmt.item()
        fmt = fmt.decode("ascii", "replace") if isinstance(fmt, bytes) else str(fmt)
        if fmt != "csr":
            raise ValueError(f"{path}: sparse format {fmt!r}; only 'csr' is read")
    data, indices, indptr, shape = (arrays[k] for k in ("data", "indices", "indptr", "shape"))
    if shape.shape != (2,) or shape.dtype.kind not in "iu":
        raise ValueError(f"{path}: 'shape' must hold two integers")
    n_rows, n_cols = (int(v) for v in shape)
    if n_features is not None:
        if n_cols > n_features:
            raise ValueError(f"{path}: {n_cols} features, more than n_features={n_features}")
        n_cols = n_features
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or data.dtype.kind not in "biuf" \
            or indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise ValueError(f"{path}: 'data', 'indices' and 'indptr' must be 1-D numeric arrays")
    ok = (
        n_rows >= 0 and n_cols >= 0 and indptr.shape[0] == n_rows + 1
        and indptr[0] == 0 and indptr[-1] == data.shape[0] == indices.shape[0]
        and bool(np.all(np.diff(indptr) >= 0))
        and (indices.size == 0 or (indices.min() >= 0 and indices.max() < n_cols))
    )
    if not ok:
        raise ValueError(f"{path}: inconsistent CSR arrays (indptr/indices/shape)")
    return _build_csr(data, indices, indptr, n_rows, n_cols)


def load_data(path, n_features=None, *, require_labels=True):
    """Read a data set; return ``(X, y)``. See the module docstring for the formats.

    ``n_features``: None infers the width of sparse data from the largest index; an int pads
    sparse data (svmlight, sparse npz) with empty columns up to that width and must equal the
    width of dense data (csv, dense npz). A wider file is an error.

    ``require_labels=False`` lets the file lack labels (then ``y`` is None): svmlight lines
    may start directly with ``idx:val``, an npz may lack ``y``, and a CSV with exactly
    ``n_features`` columns is read as all features.
    """
    path = os.fspath(path)
    if n_features is not None:
        n_features = int(n_features)
        if n_features < 0:
            raise ValueError(f"n_features must be >= 0, got {n_features}")
    extension = os.path.splitext(path)[1].lower()
    if extension in SVMLIGHT_EXTENSIONS:
        reader = _load_svmlight
    elif extension == ".csv":
        reader = _load_csv
    elif extension == ".npz":
        reader = _load_data_npz
    else:
        raise ValueError(f"{path}: unknown data format {extension or '(no extension)'!r} "
                         f"(expected one of {', '.join(DATA_EXTENSIONS)})")
    try:
        return reader(path, n_features, require_labels)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a text file ({exc})") from None


def _format_number(value):
    if isinstance(value, (bool, int)):
        return str(int(value))
    value = float(value)
    if value.is_integer() and abs(value) < 2.0 ** 53:
        return str(int(value))
    return repr(value)


def dump_svmlight(X, y, path):
    """Write ``X`` (dense or scipy sparse) and numeric labels ``y`` as svmlight text.

    Indices are written 1-based, zeros are skipped, and values are written with the shortest
    repr that reads back to the same float64, so ``load_data`` returns exactly ``X``.
    """
    if _is_sparse(X):
        X = X.tocsr()
        X.sort_indices()
        n_rows = X.shape[0]
        row_items = (
            zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                X.data[X.indptr[i]:X.indptr[i + 1]].tolist())
            for i in range(n_rows)
        )
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        n_rows = X.shape[0]
        row_items = (enumerate(row) for row in X.tolist())
    y = np.asarray(y)
    if y.shape != (n_rows,):
        raise ValueError(f"y must have shape ({n_rows},), got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise ValueError(f"svmlight labels must be numbers, got dtype {y.dtype}")
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        for label, items in zip(y.tolist(), row_items):
            pairs = " ".join(f"{j + 1}:{_format_number(v)}" for j, v in items if v != 0)
            head = _format_number(label)
            handle.write(f"{head} {pairs}\n" if pairs else f"{head}\n")
