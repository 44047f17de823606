"""The gate: every array and label from a user goes through here, once.

Routines compile with bounds checking off, so everything they index is checked here first:

- dense X becomes a C-contiguous float32/float64 2-D array of finite values;
- sparse X (scipy, recognised by duck typing: scipy is not a run-time dependency) and the
  package's own `CSR` triple become a checked `CSR`: monotone indptr from 0, in-range column
  indices, finite data, duplicates summed. A `CSR` the package handed out is checked again
  when it comes back, like any other input;
- 0/1 rows for the conjunction kernel become `PackedBits` (uint64 words, zero padding bits);
- labels become class indices plus ``classes_``: labels of any type (ints, floats, bools,
  str, bytes, dates; Python objects of one type); ``classes_`` is sorted, or in order of
  arrival for a model that appends classes (``Perceptron(new_classes="append")``), and a model
  file holds it as arrays np.load reads back without pickle;
- regression targets and sample weights become finite float64;
- a model file's state arrays are checked for shape, dtype and finiteness.

The estimators' parameters are checked in `_params`, the low-level API's arguments in
`perceptron_c.lowlevel` (its in/out arrays for dtype, shape and contiguity, never copied).
Errors are ``ValueError`` / ``TypeError`` naming the argument and what was expected.
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np

from .. import _backend
from ..exceptions import DataConversionWarning, NotFittedError, sklearn_flavoured
from ._params import check_choice, check_flag, check_fraction, check_int  # noqa: F401

_INT32_MAX = int(np.iinfo(np.int32).max)


# -------------------------------------------------------------------------------- exceptions

def not_fitted(estimator: object) -> Exception:
    name = type(estimator).__name__
    return sklearn_flavoured(NotFittedError)(
        f"This {name} instance is not fitted yet. Call 'fit' with appropriate arguments before "
        "using this estimator.")


def warn_data_conversion(message: str) -> None:
    warnings.warn(message, sklearn_flavoured(DataConversionWarning),
                  stacklevel=4)


# --------------------------------------------------------------------------- canonical forms

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


# -------------------------------------------------------------------------- bits and kernels

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


# ------------------------------------------------------------------------ labels and targets

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


# ----------------------------------------------------------------------------------- classes

def check_label_values(arr: np.ndarray, name: str) -> None:
    """Labels every class can be matched to: no NaN, infinity or NaT (NaT != NaT, so no
    label would ever equal it), no continuous floats, no mix of types in an object array."""
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name}: input contains NaN or infinity")
        if np.any(arr != np.round(arr)):
            raise ValueError(f"Unknown label type: 'continuous' ({name} holds non-integer "
                             "floats; a classifier needs discrete labels)")
    if arr.dtype.kind in "Mm" and np.isnat(arr).any():
        raise ValueError(f"{name}: input contains NaT (a missing time); every label must be "
                         "a time, as every number label must be finite")
    if arr.dtype.kind == "O":
        kinds = {type(v) for v in arr}
        if any(k is float for k in kinds) or len(kinds) > 1 and not all(
                issubclass(k, (int, np.integer)) for k in kinds):
            raise ValueError(f"Unknown label type: {name} mixes label types "
                             f"{sorted(map(str, kinds))}")


def encode_labels(y: np.ndarray, classes: np.ndarray | None = None,
                  name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """(classes_, class indices int64). With ``classes`` given (sorted, or in the order of
    arrival of a model that appends classes), every label must be in it."""
    if classes is None:
        classes, idx = np.unique(y, return_inverse=True)
        return classes, idx.astype(np.int64).ravel()
    classes = np.asarray(classes)
    order, pos, bad = _locate(y, classes)
    if np.any(bad):
        unknown = np.unique(np.asarray(y)[bad])[:5]
        raise ValueError(f"{name} contains labels not in classes: {unknown.tolist()}")
    return classes, order[pos].astype(np.int64)


def unknown_labels(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The distinct labels of ``y`` that ``classes`` lacks, sorted."""
    _, _, bad = _locate(y, np.asarray(classes))
    return np.unique(np.asarray(y)[bad])


def append_labels(classes: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``classes`` followed by the labels ``new``, held in the dtype of ``classes`` (a str
    dtype may widen); a label that dtype cannot hold unchanged is an error, not a silent
    conversion of every label (ints turned to text beside a str label, say)."""
    numeric = "biuf"
    kind, new_kind = classes.dtype.kind, new.dtype.kind
    fits = new_kind == kind or (new_kind in numeric and kind in numeric)
    if kind == "O":  # labels held as Python objects: the new ones of the same Python types
        new = new.astype(object)
        fits = {type(v) for v in new.tolist()} <= {type(v) for v in classes.tolist()}
    elif fits and kind not in "US":
        cast = new.astype(classes.dtype)
        fits = bool(np.all(cast == new))
        new = cast
    if not fits:
        raise ValueError(f"y: the new labels {new[:5].tolist()} are not of the type of "
                         f"classes_ ({classes.dtype}): a model's labels have one type")
    return np.concatenate([classes, new])


def _locate(y: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the order sorting ``classes``, each label's position in that sorted order, where a
    label is not among them)."""
    order = np.argsort(classes, kind="stable")
    ranked = classes[order]
    y = np.asarray(y)
    kinds = {ranked.dtype.kind, y.dtype.kind}
    if len(kinds) > 1 and "O" not in kinds and not kinds <= set("biuf"):
        # numbers beside text (or dates): never equal, so every label is unknown (numpy 1
        # compares them to one scalar with a FutureWarning, numpy 2 raises)
        return order, np.zeros(y.shape, dtype=np.intp), np.ones(y.shape, dtype=bool)
    try:
        pos = np.clip(np.searchsorted(ranked, y), 0, classes.shape[0] - 1)
    except TypeError:
        raise TypeError(f"y: labels that do not compare with the classes {classes[:5].tolist()}"
                        " (labels of another type)") from None
    return order, pos, ranked[pos] != y


def check_classes(classes: Any, name: str = "classes") -> np.ndarray:
    """The sorted distinct labels of ``classes`` (repeats allowed, as scikit-learn's
    ``partial_fit`` allows them: ``classes=y`` is the same as ``classes=np.unique(y)``)."""
    classes = np.asarray(classes)
    if classes.ndim == 1:
        check_label_values(classes, name)
    uniq = np.unique(classes) if classes.ndim == 1 else classes
    if classes.ndim != 1 or uniq.shape[0] < 2:
        raise ValueError(f"{name}: expected a 1-D array of at least 2 distinct labels, got "
                         f"{classes.tolist()!r}")
    return uniq


def check_two_classes(classes: np.ndarray) -> None:
    if len(classes) < 2:
        raise ValueError(f"y contains only one class ({classes.tolist()!r}); a classifier "
                         "needs samples of at least 2 classes")


def check_same_classes(classes: np.ndarray, fitted: np.ndarray) -> None:
    """``classes`` (sorted) hold the labels of ``fitted``, which may be in order of arrival."""
    if not np.array_equal(classes, np.sort(fitted)):
        raise ValueError(f"y has classes {classes.tolist()} but the model was fitted on "
                         f"{fitted.tolist()}")


def encode_label_state(classes: np.ndarray) -> dict[str, np.ndarray]:
    """``classes_`` as arrays np.load reads back without pickle, with the type of labels held
    in an object array; TypeError for labels that cannot round-trip (save_model refuses NaT)."""
    if classes.dtype.kind in "biufUSMm":
        return {"classes_": classes}
    values = classes.tolist()
    if any(type(v) is str and v.endswith("\x00") for v in values):
        raise TypeError("str labels ending in NUL ('\\x00') cannot be saved (the file's "
                        "text array would give them back without it)")
    for name, kind in (("int", int), ("str", str), ("bool", bool)):
        if all(type(v) is kind for v in values):
            text = [str(int(v)) if kind is bool else str(v) for v in values]
            return {"classes_": np.array(text, dtype=str), "classes_type": np.array(name)}
    kinds = sorted({type(v).__name__ for v in values})
    raise TypeError(f"labels of type(s) {kinds} cannot be saved (they would not "
                    "come back the same); use int, float, bool, str or bytes labels")


def decode_label_state(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The inverse of `encode_label_state`, checked: 1-D, at least two distinct labels (sorted,
    or in order of arrival for a model that appends classes)."""
    classes = np.asarray(arrays["classes_"])
    if "classes_type" in arrays:
        kind = arrays["classes_type"]
        if kind.shape != () or kind.dtype.kind != "U" or str(kind) not in ("int", "str", "bool"):
            raise ValueError("model file: malformed classes_type")
        if classes.dtype.kind != "U" or classes.ndim != 1:
            raise ValueError("model file: classes_ of an object type must be text")
        texts = classes.tolist()
        if str(kind) == "bool" and not set(texts) <= {"0", "1"}:
            raise ValueError("model file: bool labels must be 0 or 1")
        values: list[Any] = ([int(t) for t in texts] if str(kind) == "int" else
                             [t == "1" for t in texts] if str(kind) == "bool" else texts)
        classes = np.empty(len(values), dtype=object)
        classes[:] = values
    elif classes.dtype.kind not in "biufUSMm":
        raise ValueError(f"model file: classes_ has dtype {classes.dtype}")
    if classes.ndim != 1 or classes.shape[0] < 2:
        raise ValueError("model file: classes_ must hold at least two labels")
    if classes.dtype.kind == "f" and not np.isfinite(classes).all():
        raise ValueError("model file: classes_ must be finite")
    # compared in numpy, not as tolist(), which gives dates past year 9999 as int, others as date
    ranked = np.sort(classes)
    if not np.all(ranked[:-1] < ranked[1:]):
        raise ValueError("model file: classes_ must be distinct")
    return classes


# ------------------------------------------------------------------------------ state arrays

def check_state_array(arrays: dict, name: str, shape: tuple, dtype: Any) -> np.ndarray:
    """A model-file array, copied, after checking its shape, dtype and finiteness."""
    a = np.asarray(arrays[name])
    if a.shape != tuple(shape) or a.dtype != dtype or (a.dtype.kind == "f"
                                                       and not np.isfinite(a).all()):
        raise ValueError(f"model file: {name} must be finite {np.dtype(dtype)} of shape "
                         f"{tuple(shape)}, got {a.dtype} {a.shape}")
    return np.array(a)
