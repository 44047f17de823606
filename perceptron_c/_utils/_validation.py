"""The gate: every array, label and parameter from a user goes through here, once.

Routines compile with bounds checking off, so everything they index is checked here first:

- dense X becomes a C-contiguous float32/float64 2-D array of finite values;
- sparse X (scipy, recognised by duck typing: scipy is not a run-time dependency) and the
  package's own `CSR` triple become a checked `CSR`: monotone indptr from 0, in-range column
  indices, finite data, duplicates summed. A `CSR` the package handed out is checked again
  when it comes back, like any other input;
- 0/1 rows for the conjunction kernel become `PackedBits` (uint64 words, zero padding bits);
- labels become class indices plus ``classes_``;
- estimator parameters are checked by type and range;
- the low-level API's in/out arrays are checked for dtype, shape and contiguity, never copied.

Errors are ``ValueError`` / ``TypeError`` naming the argument and what was expected.
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np

from .. import _backend
from ..exceptions import DataConversionWarning, NotFittedError, sklearn_flavoured
from ._labels import check_label_values
from ._params import check_choice, check_flag, check_fraction, check_int  # noqa: F401

_INT32_MAX = int(np.iinfo(np.int32).max)


# ------------------------------------------------------------------------------- exceptions

def not_fitted(estimator: object) -> Exception:
    name = type(estimator).__name__
    return sklearn_flavoured(NotFittedError)(
        f"This {name} instance is not fitted yet. Call 'fit' with appropriate arguments before "
        "using this estimator.")


def warn_data_conversion(message: str) -> None:
    warnings.warn(message, sklearn_flavoured(DataConversionWarning),
                  stacklevel=4)


# ------------------------------------------------------------------------- canonical forms

class CSR(NamedTuple):
    """Canonical sparse rows: data float32/float64, indices int32, indptr int64."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype


class PackedBits(NamedTuple):
    """0/1 rows packed 64 to a word: bit i of a row is word i // 64, bit position i % 64.

    Make one with `perceptron_c.kernels.pack_bits`; the conjunction kernel's estimators take it
    as ``X``.

    Parameters
    ----------
    words : ndarray of uint64 of shape (n_samples, ceil(n_bits / 64))
        The packed rows; bits beyond ``n_bits`` are 0.
    n_bits : int
        The number of 0/1 features of a row.
    """

    words: np.ndarray
    n_bits: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_samples, n_bits)``, as the unpacked 0/1 matrix's shape."""
        return (self.words.shape[0], self.n_bits)


def n_words(n_bits: int) -> int:
    return (n_bits + 63) // 64


def is_sparse(X: Any) -> bool:
    """True for scipy.sparse matrices and arrays (without importing scipy)."""
    return type(X).__module__.startswith("scipy.sparse") and hasattr(X, "tocsr")


# ------------------------------------------------------------------------------ feature rows

def _float_dtype(dtype: np.dtype, name: str) -> np.dtype | None:
    if dtype == np.float32 or dtype == np.float64:
        return dtype
    if dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported (got dtype {dtype})")
    if dtype.kind in "biuf":
        return np.dtype(np.float64)
    return None


def check_finite(values: np.ndarray, name: str) -> None:
    if values.size and not np.isfinite(values).all():
        kind = "NaN" if np.isnan(values).any() else "infinity"
        raise ValueError(f"{name}: input contains {kind}; every value must be finite "
                         "(input contains NaN or inf)")


def feature_names(X: Any) -> np.ndarray | None:
    """Column names of a DataFrame-like X when they are all strings, else None."""
    cols = getattr(X, "columns", None)
    if cols is None or is_sparse(X):
        return None
    names = np.asarray(list(cols), dtype=object)
    if names.size and all(isinstance(c, str) for c in names):
        return names
    return None


# numpy < 1.24 makes an object array of rows of different lengths, with a
# VisibleDeprecationWarning; later versions raise ValueError. Both give the ValueError.
_RAGGED_WARNING = getattr(np, "VisibleDeprecationWarning", Warning)
_RAGGED_WARNS = tuple(int(p) for p in np.__version__.split(".")[:2]) < (1, 24)


def as_array(X: Any, name: str = "X") -> np.ndarray:
    """``np.asarray(X)``, where rows of different lengths raise ValueError on every numpy."""
    if not _RAGGED_WARNS or not isinstance(X, (list, tuple)):
        return np.asarray(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", _RAGGED_WARNING)
        try:
            return np.asarray(X)
        except _RAGGED_WARNING:
            raise ValueError(f"{name}: setting an array element with a sequence. The rows "
                             "have different lengths (an inhomogeneous shape)") from None


def column_names(est: Any, given: Any = None) -> np.ndarray:
    """The names of a fitted estimator's ``n_features_in_`` columns, as object strings:
    ``given`` (names, or a fitted transformer's ``get_feature_names_out()``), else
    ``feature_names_in_``, else ``x0``, ``x1``, ..."""
    d = est.n_features_in_
    if given is None:
        given = getattr(est, "feature_names_in_", None)
        if given is None:
            return np.array([f"x{j}" for j in range(d)], dtype=object)
    elif hasattr(given, "get_feature_names_out"):
        given = given.get_feature_names_out()
    if isinstance(given, (str, bytes)):
        raise TypeError("feature_names: expected a sequence of names, got a string")
    names = np.asarray(given, dtype=object)
    if names.shape != (d,):
        raise ValueError(f"feature_names: expected {d} names (one per feature), got shape "
                         f"{names.shape}")
    return np.array([str(v) for v in names], dtype=object)


def check_X(X: Any, name: str = "X", min_rows: int = 1, finite: bool = True
            ) -> np.ndarray | CSR:
    """Canonical form of a feature matrix: a 2-D finite float ndarray or a checked `CSR`
    (``finite=False``: a dense X is not scanned; the caller checks what it computes)."""
    if X is None:
        raise ValueError(f"{name}: expected a 2-D array or sparse matrix, got None")
    if isinstance(X, CSR):
        return check_csr(X.data, X.indices, X.indptr, X.shape, name, min_rows)
    if is_sparse(X):
        return _check_sparse(X, name, min_rows)
    if isinstance(X, (str, bytes, PackedBits)):
        raise TypeError(f"{name}: expected a 2-D array of numbers, got {type(X).__name__}")
    arr = as_array(X, name)
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
    if finite:
        check_finite(arr, name)
    return arr


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def plain_rows(X: Any, n_features: int) -> np.ndarray | None:
    """X as it is when it is already what `check_X` (``finite=False``) makes of it, with
    ``n_features`` columns: a C-contiguous float32/float64 ndarray of at least one row (a
    list of rows is read as an array first); else None, and the caller takes the general
    route, which raises what this one lets through. Prediction's short route: a few
    attribute tests, no conversion."""
    if type(X) is list:
        X = as_array(X)
    if type(X) is not np.ndarray or X.ndim != 2 or X.shape[1] != n_features or \
            X.shape[0] < 1 or not X.flags.c_contiguous:
        return None
    dtype = X.dtype
    return X if dtype is _F64 or dtype is _F32 else None


def is_float64(a: Any, ndim: int) -> bool:
    """Whether ``a`` is a C-contiguous float64 ndarray of ``ndim`` dimensions (what the
    routines take as it is)."""
    return type(a) is np.ndarray and a.dtype is _F64 and a.ndim == ndim and \
        a.flags.c_contiguous


def _check_shape(shape: tuple, name: str, min_rows: int) -> None:
    if shape[0] < min_rows:
        raise ValueError(f"{name}: found array with {shape[0]} sample(s) (shape={shape}) "
                         f"while a minimum of {min_rows} is required.")
    if shape[1] < 1:
        raise ValueError(f"{name}: found array with 0 feature(s) (shape={shape}) while a "
                         "minimum of 1 is required.")


def _check_sparse(X: Any, name: str, min_rows: int) -> CSR:
    if len(X.shape) != 2:
        raise ValueError(f"{name}: expected a 2-D sparse matrix, got shape {X.shape}")
    if X.format != "csr":
        X = X.tocsr()
    P = check_csr(X.data, X.indices, X.indptr, X.shape, name, min_rows)
    if not getattr(X, "has_canonical_format", False) and _has_duplicates(P):
        # Duplicates mean "sum them" in scipy; squared norms would differ, so sum them here.
        X = X.copy()
        X.sum_duplicates()
        return _check_sparse(X, name, min_rows)
    return P


def check_csr(data: Any, indices: Any, indptr: Any, shape: Any, name: str = "X",
              min_rows: int = 0, check_values: bool = True) -> CSR:
    """A checked `CSR` from its arrays and shape (entries past indptr[-1] dropped), for scipy
    input and raw triples alike; ``check_values=False`` skips only the NaN and inf scan."""
    try:
        shape = (int(shape[0]), int(shape[1]))
    except (TypeError, ValueError, IndexError):
        raise ValueError(f"{name}: a CSR shape must be two integers, got {shape!r}") from None
    if shape[0] < 0 or shape[1] < 0:
        raise ValueError(f"{name}: negative CSR shape {shape}")
    _check_shape(shape, name, min_rows)
    if shape[1] > _INT32_MAX:
        raise ValueError(f"{name}: at most {_INT32_MAX} features are supported, got {shape[1]}")
    data, indices, indptr = np.asarray(data), np.asarray(indices), np.asarray(indptr)
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:
        raise ValueError(f"{name}: malformed CSR, data, indices and indptr must be 1-D")
    if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise TypeError(f"{name}: malformed CSR, indices and indptr must be integer arrays")
    if indptr.shape[0] != shape[0] + 1:
        raise ValueError(f"{name}: malformed CSR, indptr must have n_rows + 1 = {shape[0] + 1} "
                         f"entries, got {indptr.shape[0]}")
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
    if check_values:
        check_finite(data, name)
    return CSR(data, np.ascontiguousarray(indices, dtype=np.int32),
               np.ascontiguousarray(indptr, dtype=np.int64), shape)


def _has_duplicates(P: CSR) -> bool:
    # none if columns rise along every row; else sorted (row, column) keys (np.unique: 3 s)
    n, starts = P.indices.shape[0], P.indptr[1:-1]
    rising = np.diff(P.indices) > 0
    rising[starts[(starts > 0) & (starts < n)] - 1] = True  # a row's first column: any
    if rising.all():
        return False
    key = np.sort(np.repeat(np.arange(P.shape[0], dtype=np.int64), np.diff(P.indptr))
                  * P.shape[1] + P.indices)
    return bool((key[1:] == key[:-1]).any())


def check_n_features(X: Any, expected: int, estimator_name: str) -> None:
    if X.shape[1] != expected:
        raise ValueError(f"X has {X.shape[1]} features, but {estimator_name} is expecting "
                         f"{expected} features as input.")


def check_feature_names(X: Any, fitted_names: np.ndarray | None, estimator_name: str,
                        reset: bool) -> np.ndarray | None:
    """Remember column names at fit; at predict, they must match those seen at fit."""
    names = feature_names(X)
    if reset:
        return names
    if fitted_names is None and names is not None:
        warnings.warn(f"X has feature names, but {estimator_name} was fitted without feature "
                      "names", UserWarning, stacklevel=4)
    elif fitted_names is not None and names is None:
        warnings.warn(f"X does not have valid feature names, but {estimator_name} was fitted "
                      "with feature names", UserWarning, stacklevel=4)
    elif names is not None and fitted_names is not None and (
            len(names) != len(fitted_names) or np.any(names != fitted_names)):
        raise ValueError("The feature names should match those that were passed during fit.")
    return fitted_names


# ------------------------------------------------------------------------- bits and kernels

def check_packed(P: Any, name: str) -> PackedBits:
    """A `PackedBits` whose words are 2-D uint64 of the right width with zero padding bits."""
    words, n_bits = P
    if isinstance(n_bits, bool) or not isinstance(n_bits, numbers.Integral) or n_bits < 1:
        raise ValueError(f"{name}: PackedBits.n_bits must be a positive integer, got {n_bits!r}")
    n_bits = int(n_bits)
    words = np.asarray(words)
    if words.dtype != np.uint64 or words.ndim != 2:
        raise TypeError(f"{name}: PackedBits.words must be a 2-D uint64 array, got "
                        f"{words.dtype} of shape {words.shape}")
    if words.shape[1] != n_words(n_bits):
        raise ValueError(f"{name}: {n_bits} bits need {n_words(n_bits)} words per row, got "
                         f"{words.shape[1]}")
    if words.shape[0] < 1:
        raise ValueError(f"{name}: found 0 rows while a minimum of 1 is required.")
    if n_bits % 64 and np.any(words[:, -1] >> np.uint64(n_bits % 64)):
        raise ValueError(f"{name}: PackedBits has bits set beyond n_bits = {n_bits}; the "
                         "padding bits of the last word must be 0")
    return PackedBits(np.ascontiguousarray(words), n_bits)


def check_01(X: Any, name: str) -> np.ndarray:
    """A 2-D array of 0/1 values (bool, int or float; sparse is densified) as C uint8."""
    if X is None:
        raise ValueError(f"{name}: expected a 2-D array of 0/1 values, got None")
    if is_sparse(X):
        X = X.toarray()
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name}: expected a 2-D array of 0/1 values, got a string")
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected a 2-D array of 0/1 values, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array of 0/1 values, got {arr.ndim} "
                         f"dimension(s) (shape {arr.shape})")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name}: expected at least one row and one column, got shape "
                         f"{arr.shape}")
    if arr.dtype.kind != "b":
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise ValueError(f"{name}: input contains NaN; the conjunction kernel needs 0/1 "
                             "values")
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            raise ValueError(f"{name}: the conjunction kernel needs 0/1 values, found "
                             f"{arr[bad].flat[0]!r}")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def as_packed(X: Any, name: str) -> PackedBits:
    """`PackedBits` for 0/1 rows given packed or not (checked either way)."""
    if isinstance(X, PackedBits):
        return check_packed(X, name)
    X01 = check_01(X, name)
    words = np.empty((X01.shape[0], n_words(X01.shape[1])), dtype=np.uint64)
    _backend.gram.pack_rows(X01, words)
    return PackedBits(words, X01.shape[1])


def as_float_rows(X: Any, name: str) -> np.ndarray:
    """Canonical float64 rows for a float kernel (PackedBits unpacked, sparse densified)."""
    if isinstance(X, PackedBits):
        P = check_packed(X, name)
        as_bytes = P.words.astype("<u8", copy=False).view(np.uint8)
        X = np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :P.n_bits]
    elif is_sparse(X):
        X = X.toarray()
    return np.ascontiguousarray(check_X(X, name), dtype=np.float64)


def check_kernel_input(X: Any, kind: str, n_features: int | None,
                       estimator_name: str) -> np.ndarray | PackedBits:
    """Rows for a kernel estimator: `PackedBits` for the conjunction kernel, float64 2-D
    otherwise; with ``kind="precomputed"`` at fit (``n_features`` None) a square Gram.
    ``n_features`` (at predict) is the width the model was fitted on."""
    P: np.ndarray | PackedBits
    if kind == "conjunction":
        P = as_packed(X, "X")
    else:
        P = as_float_rows(X, "X")
        if kind == "precomputed" and n_features is None and P.shape[0] != P.shape[1]:
            raise ValueError(f"X: with kernel='precomputed', fit needs the square (n, n) "
                             f"training Gram matrix, got shape {P.shape}")
    if n_features is not None:
        check_n_features(P, n_features, estimator_name)
    return P


# ---------------------------------------------------------------------------------- labels

def _target_column(y: Any, n: int, name: str) -> np.ndarray:
    """What labels and regression targets share: given, 1-D (a column vector is accepted
    with a warning) and of length n."""
    if y is None:
        raise ValueError(f"this estimator requires y to be passed, but the target {name} is None")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warn_data_conversion(f"A column-vector {name} was passed when a 1d array was expected. "
                             "Please change the shape of y to (n_samples,), for example using "
                             "ravel().")
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} should be a 1d array, got an array of shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"X and {name} have inconsistent numbers of samples: {n} != "
                         f"{arr.shape[0]}")
    return arr


def check_y(y: Any, n: int, name: str = "y") -> np.ndarray:
    """Labels as a 1-D array of length n (a column vector is accepted with a warning)."""
    arr = _target_column(y, n, name)
    check_label_values(arr, name)
    return arr


def check_targets(y: Any, n: int, name: str = "y") -> np.ndarray:
    """Regression targets: a 1-D array of n finite numbers, as float64."""
    arr = _target_column(y, n, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported")
    try:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected numbers, got dtype {arr.dtype}") from None
    check_finite(arr, name)
    return arr


def check_sample_weight(sample_weight: Any, n: int) -> np.ndarray | None:
    """None (every example weighs 1), or n finite float64 weights (a number is broadcast)."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, (str, bytes)):
        raise TypeError("sample_weight: expected numbers, got a string")
    try:
        arr = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("sample_weight: expected a number or an array of numbers") from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"sample_weight.shape == {arr.shape}, expected ({n},)")
    check_finite(arr, "sample_weight")
    if n and not np.any(arr):
        raise ValueError("sample_weight: every weight is zero, nothing to learn from")
    return np.ascontiguousarray(arr)


# ------------------------------------------------------------- low-level API and state arrays

def check_order(order: Any, n: int) -> np.ndarray:
    """Row indices for the low-level API: integers only (floats would be truncated and a
    boolean mask read as indices 0 and 1, both silently), 1-D, each in [0, n)."""
    order = np.asarray(order)
    if order.dtype.kind not in "iu" and not (order.size == 0 and order.dtype.kind == "f"):
        raise TypeError(f"order must hold integer row indices, got dtype {order.dtype}")
    order = np.ascontiguousarray(order, dtype=np.int64)
    if order.ndim != 1 or (order.size and (order.min() < 0 or order.max() >= n)):
        raise ValueError(f"order must be a 1-D array of row indices in [0, {n})")
    return order


def check_rows_arg(X: Any, check_values: bool) -> np.ndarray:
    """Dense rows for the low-level API: 2-D, real (converted to float64 unless float32)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        if X.dtype.kind not in "biuf":
            raise TypeError(f"X must hold real numbers, got dtype {X.dtype}")
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    if check_values:
        check_finite(X, "X")
    return X


def check_csr_args(data: Any, indices: Any, indptr: Any, n_features: int,
                   check_values: bool) -> CSR:
    """CSR rows for the low-level API, every stored entry used (indptr[-1] == len(data))."""
    data, indices, indptr = np.asarray(data), np.asarray(indices), np.asarray(indptr)
    if indptr.ndim != 1 or indptr.shape[0] < 1:
        raise ValueError("indptr must be 1-D with at least one entry")
    if data.ndim == 1 and indices.ndim == 1 and indices.shape[0] != data.shape[0]:
        raise ValueError("indices and data must have the same length")
    if indptr.dtype.kind in "iu" and indptr[-1] != data.shape[0]:
        raise ValueError("indptr must rise monotonically from 0 to len(data)")
    if data.dtype.kind not in "biuf":
        raise TypeError(f"data must hold real numbers, got dtype {data.dtype}")
    return check_csr(data, indices, indptr, (indptr.shape[0] - 1, n_features), "CSR rows",
                     check_values=check_values)


def csr_matrix_parts(X: Any, n_features: int) -> tuple[Any, Any, Any]:
    """A scipy CSR matrix or array as the low-level API's (data, indices, indptr): views of
    its own arrays (`check_csr_args` then copies only what is not float32/float64, int32
    indices or int64 indptr)."""
    if getattr(X, "format", None) != "csr":
        raise TypeError(f"X: the CSR routines take a scipy csr_matrix or csr_array, got format "
                        f"{getattr(X, 'format', type(X).__name__)!r}; convert with X.tocsr()")
    if len(X.shape) != 2 or X.shape[1] != n_features:
        raise ValueError(f"X must have {n_features} columns (one per weight), got shape "
                         f"{X.shape}")
    nnz = int(X.indptr[-1]) if X.indptr.shape[0] else 0
    return X.data[:nnz], X.indices[:nnz], X.indptr


def check_inout(a: Any, name: str, shape: tuple, dtype: Any = np.float64) -> np.ndarray:
    """An array the low-level API writes into: exact dtype and shape, C-contiguous, writeable
    (never converted, since the caller keeps the reference)."""
    if not isinstance(a, np.ndarray) or a.dtype != dtype:
        raise TypeError(f"{name} must be a numpy array of dtype {np.dtype(dtype)} (it is "
                        "updated in place, so it is never converted)")
    if not a.flags.c_contiguous or not a.flags.writeable:
        raise ValueError(f"{name} must be C-contiguous and writeable")
    if a.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {a.shape}")
    return a


def check_state_array(arrays: dict, name: str, shape: tuple, dtype: Any) -> np.ndarray:
    """A model-file array, copied, after checking its shape, dtype and finiteness."""
    a = np.asarray(arrays[name])
    if a.shape != tuple(shape) or a.dtype != dtype or (a.dtype.kind == "f"
                                                       and not np.isfinite(a).all()):
        raise ValueError(f"model file: {name} must be finite {np.dtype(dtype)} of shape "
                         f"{tuple(shape)}, got {a.dtype} {a.shape}")
    return np.array(a)
