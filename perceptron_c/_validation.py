"""The gate: every array and label goes through here once, before any routine runs.

Routines compile with bounds checking off, so everything they index is checked here: dense X
becomes a C-contiguous float32/float64 2-D array, sparse X becomes a checked CSR triple,
labels become class indices plus ``classes_``. Errors name the argument and what was expected.
scipy is not a run-time dependency: sparse input is recognised by duck typing.
"""
import warnings
from typing import NamedTuple

import numpy as np

try:  # scikit-learn's classes where it is installed, so its checks recognise them
    from sklearn.exceptions import DataConversionWarning, NotFittedError
except ImportError:  # pragma: no cover - exercised in the numpy-only job

    class NotFittedError(ValueError, AttributeError):
        """Raised when a model is used before ``fit``."""

    class DataConversionWarning(UserWarning):
        """Raised when input data is converted in a way the user may not expect."""


_INT32_MAX = np.iinfo(np.int32).max


class CSR(NamedTuple):
    """Canonical sparse rows: data float32/float64, indices int32, indptr int64."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple

    @property
    def dtype(self):
        return self.data.dtype


def is_sparse(X):
    """True for scipy.sparse matrices and arrays (without importing scipy)."""
    return type(X).__module__.startswith("scipy.sparse") and hasattr(X, "tocsr")


def _float_dtype(dtype, name):
    if dtype == np.float32 or dtype == np.float64:
        return dtype
    if dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported (got dtype {dtype})")
    if dtype.kind in "biuf":
        return np.dtype(np.float64)
    return None


def _check_finite(values, name):
    if values.size and not np.isfinite(values).all():
        kind = "NaN" if np.isnan(values).any() else "infinity"
        raise ValueError(f"{name}: input contains {kind}; every value must be finite "
                         "(input contains NaN or inf)")


def feature_names(X):
    """Column names of a DataFrame-like X when they are all strings, else None."""
    cols = getattr(X, "columns", None)
    if cols is None or is_sparse(X):
        return None
    names = np.asarray(list(cols), dtype=object)
    if names.size and all(isinstance(c, str) for c in names):
        return names
    return None


def check_X(X, name="X", min_rows=1):
    """Canonical form of a feature matrix: a 2-D float ndarray or a `CSR`."""
    if X is None:
        raise ValueError(f"{name}: expected a 2-D array or sparse matrix, got None")
    if isinstance(X, CSR):
        return X
    if is_sparse(X):
        return _check_sparse(X, name, min_rows)
    if isinstance(X, str):
        raise TypeError(f"{name}: expected a 2-D array of numbers, got a string")
    arr = np.asarray(X)
    dtype = _float_dtype(arr.dtype, name)
    if dtype is None:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name}: expected numbers, got dtype {arr.dtype} "
                            f"(argument must be a string or a real number: {exc})") from None
        dtype = np.dtype(np.float64)
    if arr.ndim != 2:
        if arr.ndim == 1:
            raise ValueError(f"{name}: expected a 2-D array, got a 1-D array of shape "
                             f"{arr.shape}. Reshape your data with X.reshape(-1, 1) for one "
                             "feature or X.reshape(1, -1) for one sample.")
        raise ValueError(f"{name}: expected a 2-D array, got {arr.ndim} dimensions")
    _check_shape(arr.shape, name, min_rows)
    arr = np.ascontiguousarray(arr, dtype=dtype)
    _check_finite(arr, name)
    return arr


def _check_shape(shape, name, min_rows):
    if shape[0] < min_rows:
        raise ValueError(f"{name}: found array with {shape[0]} sample(s) (shape={shape}) "
                         f"while a minimum of {min_rows} is required.")
    if shape[1] < 1:
        raise ValueError(f"{name}: found array with 0 feature(s) (shape={shape}) while a "
                         "minimum of 1 is required.")


def _check_sparse(X, name, min_rows):
    if len(X.shape) != 2:
        raise ValueError(f"{name}: expected a 2-D sparse matrix, got shape {X.shape}")
    if X.format != "csr":
        X = X.tocsr()
    shape = (int(X.shape[0]), int(X.shape[1]))
    _check_shape(shape, name, min_rows)
    if shape[1] > _INT32_MAX:
        raise ValueError(f"{name}: at most {_INT32_MAX} features are supported, got {shape[1]}")
    indptr = np.asarray(X.indptr)
    indices = np.asarray(X.indices)
    data = np.asarray(X.data)
    if indptr.ndim != 1 or indptr.shape[0] != shape[0] + 1:
        raise ValueError(f"{name}: malformed CSR, indptr must have n_rows + 1 = {shape[0] + 1} "
                         f"entries, got {indptr.shape}")
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0):
        raise ValueError(f"{name}: malformed CSR, indptr must start at 0 and be non-decreasing")
    nnz = int(indptr[-1])
    if indices.shape[0] < nnz or data.shape[0] < nnz:
        raise ValueError(f"{name}: malformed CSR, indptr[-1] = {nnz} but there are only "
                         f"{min(indices.shape[0], data.shape[0])} stored entries")
    indices, data = indices[:nnz], data[:nnz]
    if nnz and (indices.min() < 0 or indices.max() >= shape[1]):
        raise ValueError(f"{name}: malformed CSR, column indices must lie in [0, {shape[1]})")
    dtype = _float_dtype(data.dtype, name)
    if dtype is None:
        raise TypeError(f"{name}: expected numbers, got sparse dtype {data.dtype}")
    data = np.ascontiguousarray(data, dtype=dtype)
    _check_finite(data, name)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    if not getattr(X, "has_canonical_format", False) and _has_duplicates(indices, indptr):
        # Duplicates mean "sum them" in scipy; squared norms would differ, so sum them here.
        X = X.copy()
        X.sum_duplicates()
        return _check_sparse(X, name, min_rows)
    return CSR(data, indices, indptr, shape)


def _has_duplicates(indices, indptr):
    if indices.shape[0] < 2:
        return False
    row_of = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    key = row_of.astype(np.int64) * (int(indices.max()) + 1) + indices
    return np.unique(key).shape[0] != key.shape[0]


def check_n_features(X, expected, estimator_name):
    if X.shape[1] != expected:
        raise ValueError(f"X has {X.shape[1]} features, but {estimator_name} is expecting "
                         f"{expected} features as input.")


def check_feature_names(X, fitted_names, estimator_name, reset):
    """Remember column names at fit; at predict, they must match those seen at fit."""
    names = feature_names(X)
    if reset:
        return names
    if fitted_names is None and names is not None:
        warnings.warn(f"X has feature names, but {estimator_name} was fitted without feature "
                      "names", UserWarning, stacklevel=3)
    elif fitted_names is not None and names is None:
        warnings.warn(f"X does not have valid feature names, but {estimator_name} was fitted "
                      "with feature names", UserWarning, stacklevel=3)
    elif names is not None and (len(names) != len(fitted_names)
                                or np.any(names != fitted_names)):
        raise ValueError("The feature names should match those that were passed during fit.")
    return fitted_names


def check_y(y, n, name="y"):
    """Labels as a 1-D array of length n (a column vector is accepted with a warning)."""
    if y is None:
        raise ValueError(f"this estimator requires y to be passed, but the target {name} is None")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(f"A column-vector {name} was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples,), for example using ravel().",
                      DataConversionWarning, stacklevel=3)
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} should be a 1d array, got an array of shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"X and {name} have inconsistent numbers of samples: {n} != "
                         f"{arr.shape[0]}")
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name}: input contains NaN or infinity")
        if np.any(arr != np.round(arr)):
            raise ValueError(f"Unknown label type: 'continuous' ({name} holds non-integer "
                             "floats; a classifier needs discrete labels)")
    if arr.dtype.kind == "O":
        kinds = {type(v) for v in arr}
        if any(k is float for k in kinds) or len(kinds) > 1 and not all(
                issubclass(k, (int, np.integer)) for k in kinds):
            raise ValueError(f"Unknown label type: {name} mixes label types {sorted(map(str, kinds))}")
    return arr


def encode_labels(y, classes=None, name="y"):
    """(classes_, class indices int64). With ``classes`` given, every label must be in it."""
    if classes is None:
        classes, idx = np.unique(y, return_inverse=True)
        return classes, idx.astype(np.int64).ravel()
    classes = np.asarray(classes)
    pos = np.searchsorted(classes, y)
    pos = np.clip(pos, 0, classes.shape[0] - 1)
    bad = classes[pos] != y
    if np.any(bad):
        unknown = np.unique(np.asarray(y)[bad])[:5]
        raise ValueError(f"{name} contains labels not in classes: {unknown.tolist()}")
    return classes, pos.astype(np.int64)


def check_classes(classes, name="classes"):
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.shape[0] < 2:
        raise ValueError(f"{name}: expected a 1-D array of at least 2 distinct labels, got "
                         f"{classes.tolist()!r}")
    uniq = np.unique(classes)
    if uniq.shape[0] != classes.shape[0]:
        raise ValueError(f"{name}: labels must be distinct")
    return uniq


def check_order(order, n):
    order = np.ascontiguousarray(order, dtype=np.int64)
    if order.ndim != 1 or (order.size and (order.min() < 0 or order.max() >= n)):
        raise ValueError(f"order must be a 1-D array of row indices in [0, {n})")
    return order


def take_rows(X, idx):
    """Rows ``idx`` of a canonical X (dense or CSR), still canonical."""
    if isinstance(X, CSR):
        starts, stops = X.indptr[idx], X.indptr[idx + 1]
        lens = stops - starts
        indptr = np.zeros(idx.shape[0] + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        pos = np.repeat(starts - indptr[:-1], lens) + np.arange(indptr[-1])
        return CSR(np.ascontiguousarray(X.data[pos]), np.ascontiguousarray(X.indices[pos]),
                   indptr, (idx.shape[0], X.shape[1]))
    return np.ascontiguousarray(X[idx])
