"""What the models share below them: canonical row containers and kernel rows.

Rows are canonical (``_validation``): a float 2-D ndarray, a `CSR`, or `PackedBits`. The
kernel perceptron and the voted perceptron both train on a *pool* (the support vectors kept
from earlier calls, then the new rows) and read kernel values through one `KernelRows`
source: the whole pool Gram when it fits the memory budget, else rows computed block by
block. Prediction reads K(X, support vectors) through `kernel_block`. Inputs here were gated
once; nothing is checked again per block.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from ._validation import CSR, PackedBits

__all__ = ["take_rows", "stack_rows", "dense_rows", "csr_rows", "pool_of", "KernelRows",
           "kernel_block", "exponent_rows", "check_finite_state", "check_finite_decisions",
           "EXACT_LIMIT",
           "check_exact_headroom"]

# The exact conjunction sums keep every bucket below 2^62 (``_bigint.pxd``); with a factor 2
# of room for the difference of two classes' coefficients, every sum of |coefficients| of a
# model stays below this.
EXACT_LIMIT = 2.0 ** 60


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


def exponent_rows(A: PackedBits, B: PackedBits) -> np.ndarray:
    """int32 popcount(a AND b) for every pair of rows (the conjunction kernel's exponents)."""
    out = np.empty((A.words.shape[0], B.words.shape[0]), dtype=np.int64)
    _backend.gram.gram_conjunction_log2(A.words, B.words, out)
    return out.astype(np.int32)


class KernelRows:
    """Kernel rows K(pool[rows], pool) for a training run, within ``max_bytes``.

    ``cached`` is True when the whole pool Gram fits (float64, or int32 exponents for the
    conjunction kernel); it is then computed once (``full``). Otherwise ``rows`` computes the
    requested rows afresh each time, and ``block`` says how many rows fit at once.
    """

    def __init__(self, kern: Any, kind: str, pool: Any, n_visit: int, max_bytes: int) -> None:
        self.kern, self.kind, self.pool = kern, kind, pool
        n = pool.shape[0]
        item = 4 if kind == "conjunction" else 8
        self.cached = n * n * item <= max_bytes
        self.block = max(1, min(n_visit, max_bytes // max(1, n * item)))
        self.full: np.ndarray | None = None
        if self.cached:
            if kind == "conjunction":
                self.full = exponent_rows(pool, pool)
            elif kind == "precomputed":
                self.full = np.ascontiguousarray(pool, dtype=np.float64)
            else:  # k(pool) rather than k(pool, pool): the symmetric product is half the work
                self.full = np.ascontiguousarray(kern(pool), dtype=np.float64)

    def rows(self, idx: np.ndarray) -> np.ndarray:
        if self.full is not None:
            return np.ascontiguousarray(self.full[idx])
        if self.kind == "conjunction":
            return exponent_rows(take_rows(self.pool, idx), self.pool)
        if self.kind == "precomputed":
            return np.ascontiguousarray(self.pool[idx], dtype=np.float64)
        return np.ascontiguousarray(self.kern(self.pool[idx], self.pool), dtype=np.float64)


def kernel_block(kern: Any, kind: str, X: Any, sv: Any, max_bytes: int = 2**27) -> np.ndarray:
    """K(X, sv): float64, or int32 exponents for the conjunction kernel; for "precomputed", X
    holds the kernel columns and ``sv`` the indices of the support columns. ``max_bytes``
    bounds the temporary dense rows of the primal (linear) case."""
    if sv.shape[0] == 0:
        return np.zeros((X.shape[0], 0), dtype=np.int32 if kind == "conjunction" else None)
    if kind == "conjunction":
        return exponent_rows(X, sv)
    if kind == "precomputed":
        return np.ascontiguousarray(X[:, sv], dtype=np.float64)
    if kind == "primal":
        return _linear_block(X, sv, max_bytes)
    return np.ascontiguousarray(kern(X, sv), dtype=np.float64)


def _linear_block(X: Any, sv: Any, max_bytes: int) -> np.ndarray:
    """x . sv_j for every row and stored example, on the linear routines (dense or CSR)."""
    lin = _backend.linear
    n_sv, m = sv.shape[0], X.shape[0]
    K = np.empty((m, n_sv))
    if isinstance(sv, CSR):  # sv_j . x with a few rows of X at a time as (dense) weights
        step = max(1, max_bytes // (8 * X.shape[1]))
        for s in range(0, m, step):
            rows = dense_rows(take_rows(X, np.arange(s, min(m, s + step))))
            KT = np.empty((n_sv, rows.shape[0]))
            lin.decision_csr(sv.data, sv.indices, sv.indptr, rows, np.zeros(rows.shape[0]), KT)
            K[s:s + rows.shape[0]] = KT.T
        return K
    if isinstance(X, CSR):
        lin.decision_csr(X.data, X.indices, X.indptr, sv, np.zeros(n_sv), K)
    else:
        lin.decision_dense(X, sv, np.zeros(n_sv), K)
    return K


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


def check_exact_headroom(alpha: np.ndarray, b: np.ndarray, u: np.ndarray | None,
                         beta: np.ndarray | None, count: np.ndarray | None,
                         n_visit: int) -> None:
    """OverflowError unless the exact conjunction sums of a model stay below EXACT_LIMIT
    after ``n_visit`` more examples, even if every one of them is a mistake: the plain
    coefficients (alpha, b), and for averaged models u, beta and the decision-time
    coefficients c alpha - u (``_exact_coefs``). Estimated in float64 with room to spare."""
    grow = 2.0 * n_visit
    plain = np.abs(alpha.astype(np.float64)).sum(axis=1) + np.abs(b.astype(np.float64)) + grow
    worst = float(plain.max())
    if u is not None and beta is not None and count is not None:
        c = float(count[0]) + n_visit
        sums = np.abs(u.astype(np.float64)).sum(axis=1) + np.abs(beta.astype(np.float64))
        worst = max(worst, float((sums + grow * c).max()), float((c * plain + sums).max()),
                    c)
    if not worst < EXACT_LIMIT:
        raise OverflowError("the exact integer sums of the conjunction kernel would exceed "
                            f"2^60 (the model's coefficients sum to about {worst:.3g})")
