"""What the models share below them: canonical row containers and checks of their state.

Rows are canonical (``_validation``): a float 2-D ndarray, a `CSR`, or `PackedBits`; the
kernel models train on a *pool* (the support vectors kept from earlier calls, then the new
rows: `pool_of`). Kernel values of rows live in ``kernels._rows``. Inputs here were gated
once; nothing is checked again.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._validation import CSR, PackedBits

__all__ = ["take_rows", "stack_rows", "dense_rows", "csr_rows", "pool_of",
           "check_finite_state", "check_finite_decisions", "all_finite"]


def take_rows(X: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of canonical X (dense, CSR or PackedBits), still canonical."""
    if isinstance(X, CSR):
        starts, stops = X.indptr[idx], X.indptr[idx + 1]
        lens = stops - starts
        indptr = np.zeros(idx.shape[0] + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        pos = np.repeat(starts - indptr[:-1], lens) + np.arange(indptr[-1])
        return CSR(np.ascontiguousarray(X.data[pos]), np.ascontiguousarray(X.indices[pos]),
                   indptr, (idx.shape[0], X.shape[1]))
    if isinstance(X, PackedBits):
        return PackedBits(np.ascontiguousarray(X.words[idx]), X.n_bits)
    return np.ascontiguousarray(X[idx])


def dense_rows(X: Any) -> np.ndarray:
    """Canonical rows as a C-contiguous float64 array."""
    if not isinstance(X, CSR):
        return np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros(X.shape)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    out[rows, X.indices] = X.data
    return out


def csr_rows(X: Any) -> CSR:
    """Canonical rows as a float64 `CSR`."""
    if isinstance(X, CSR):
        return CSR(X.data.astype(np.float64), X.indices, X.indptr, X.shape)
    rows, cols = np.nonzero(X)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return CSR(np.ascontiguousarray(X[rows, cols], dtype=np.float64), cols.astype(np.int32),
               indptr, X.shape)


def stack_rows(old: Any, new: Any) -> Any:
    """Rows of ``old`` then of ``new``, in the container of ``old`` (float64 for floats)."""
    if isinstance(old, PackedBits):
        return PackedBits(np.ascontiguousarray(np.vstack([old.words, new.words])), old.n_bits)
    if isinstance(old, CSR):
        new = csr_rows(new)
        return CSR(np.concatenate([old.data, new.data]),
                   np.concatenate([old.indices, new.indices]),
                   np.concatenate([old.indptr, old.indptr[-1] + new.indptr[1:]]),
                   (old.shape[0] + new.shape[0], old.shape[1]))
    return np.ascontiguousarray(np.vstack([old, dense_rows(new)]), dtype=np.float64)


def pool_of(old: Any, Xc: Any, kind: str) -> Any:
    """The training pool: old support vectors followed by the new rows."""
    if kind == "precomputed":
        return Xc
    return stack_rows(old, Xc)


def all_finite(out: np.ndarray) -> bool:
    """Whether every value of the float array ``out`` is finite (a few values: one Python
    test each, cheaper than numpy's call)."""
    if out.size <= 16:
        return all(map(math.isfinite, out.flat))
    return bool(np.isfinite(out).all())


def check_finite_decisions(out: np.ndarray, estimator: object) -> np.ndarray:
    """``out`` if every decision value is finite, else a ValueError: an overflowed value has
    no sign, and predict must never turn it into a class."""
    if not np.isfinite(out).all():
        rows = np.flatnonzero(~np.isfinite(out).all(axis=-1) if out.ndim > 1
                              else ~np.isfinite(out))
        raise ValueError(f"{type(estimator).__name__}: the decision values of row(s) "
                         f"{rows[:5].tolist()} overflow float64 (the input is too large for "
                         "the model's weights). Scaling the input data might help.")
    return out


def check_finite_state(*arrays: np.ndarray) -> None:
    """FloatingPointError when a float array of a model's state left float64's range."""
    for a in arrays:
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise FloatingPointError("the model's weights overflow float64")
