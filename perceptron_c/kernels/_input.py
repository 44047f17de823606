"""The kernel models' input gate: rows for a kernel, checked once, in the form its routines
take (`PackedBits` for the conjunction kernel, float64 rows otherwise, a square Gram for
"precomputed"). The canonical forms themselves, and the checks every estimator shares, are
`_utils._validation`'s."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import _backend
from .._utils._validation import PackedBits, check_n_features, check_X, is_sparse, n_words

__all__ = ["check_packed", "check_01", "as_packed", "as_float_rows", "check_kernel_input"]


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
