"""`perceptron_c.dask`'s lazy side: `predict`, `decision_function` and `gram` as dask arrays
computed block by block (public as ``perceptron_c.dask.<name>``), and `need_dask`, the one
import of dask with the install hint, which training uses too.
"""
from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import kernels as _kernels
from .._utils._docs import fill

if TYPE_CHECKING:
    from dask.array import Array

__all__ = ["need_dask", "predict", "decision_function", "gram"]


def need_dask() -> Any:
    """The dask module (and dask.array imported), else ImportError saying how to install it."""
    try:
        import dask
        import dask.array
    except ImportError as exc:
        raise ImportError("perceptron_c.dask needs dask: pip install \"perceptron-c[dask]\" "
                          f"({exc})") from None
    return dask


# ----------------------------------------------------------------------- lazy prediction

def _block_decision(est: Any, X: Any) -> np.ndarray:
    return np.asarray(est.decision_function(X), dtype=np.float64)


def _block_predict(est: Any, X: Any) -> np.ndarray:
    return np.asarray(est.predict(X))


def _on_block(block: Any, est: Any, fn: Any) -> np.ndarray:
    return fn(est, block)


def _block_sentences(est: Any, X: Any, lengths: np.ndarray) -> np.ndarray:
    if X.shape[0] == 0:  # (a block of no rows holds no sentence)
        return est.classes_[:0]
    return np.asarray(est.predict(X, lengths))


def _sentences(estimator: Any, X: Any, lengths: Any) -> Array:
    """A sentence model's tags of every block of whole sentences of the dask array X: each
    block decoded with its own sentences' lengths, lazily."""
    from ._sequence import shard_lengths

    dask = need_dask()
    import dask.array as da

    per_block = shard_lengths(X, lengths, "predict")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    est_d = dask.delayed(estimator, name=f"perceptron-model-{uuid.uuid4().hex}",
                         traverse=False)
    dtype = estimator.classes_.dtype
    parts = [da.from_delayed(dask.delayed(_block_sentences)(est_d, block, n), shape=(rows,),
                             dtype=dtype, meta=np.empty((0,), dtype=dtype))
             for block, n, rows in zip(X.to_delayed()[:, 0], per_block, X.chunks[0])]
    return da.concatenate(parts)


def _blockwise_rows(estimator: Any, X: Any, fn: Any, dtype: np.dtype, width: int) -> Array:
    """fn(estimator, block) on every block of rows of X, lazily; width 0 means 1-D."""
    dask = need_dask()
    import dask.array as da

    est_d = dask.delayed(estimator, name=f"perceptron-model-{uuid.uuid4().hex}",
                         traverse=False)
    shape_meta = (0, width) if width else (0,)
    meta = np.empty(shape_meta, dtype=dtype)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D dask array, got {X.ndim} dimension(s)")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        if width:
            return X.map_blocks(_on_block, est_d, fn=fn, dtype=dtype, meta=meta,
                                chunks=(X.chunks[0], (width,)))
        return X.map_blocks(_on_block, est_d, fn=fn, dtype=dtype, meta=meta, drop_axis=1)
    if hasattr(X, "to_delayed") and hasattr(X, "npartitions"):
        shape = (np.nan, width) if width else (np.nan,)
        parts = [da.from_delayed(dask.delayed(fn)(est_d, part), shape=shape, dtype=dtype,
                                 meta=meta) for part in X.to_delayed()]
        return da.concatenate(parts)
    raise TypeError(f"X: expected a dask array or a dask DataFrame, got {type(X).__name__}")


def _fitted(estimator: Any) -> None:
    check = getattr(estimator, "_check_fitted", None)
    if check is None:
        raise TypeError(f"estimator: expected a perceptron_c estimator, got "
                        f"{type(estimator).__name__}")
    check()


# what the lazy predictions take
_LAZY = {
    "lazy_rows": """
        Parameters
        ----------
        estimator : fitted estimator
            Any fitted estimator of the package; it is sent to the workers.
        X : dask array or dask DataFrame
            Samples; blocks along columns are merged first.
        """,
}


@fill(_LAZY)
def decision_function(estimator: Any, X: Any) -> Array:
    """``estimator.decision_function`` of every block of rows of X, as a lazy dask array.

    {lazy_rows}

    Returns
    -------
    dask.array.Array of float64
        Shape (n,) for two classes, (n, n_classes) otherwise; nothing runs until computed.

    Raises
    ------
    NotFittedError
        If the estimator has not been fitted.
    TypeError
        If ``estimator`` is not an estimator of the package or has no
        ``decision_function``.
    """
    _fitted(estimator)
    if not hasattr(estimator, "decision_function"):
        raise TypeError(f"{type(estimator).__name__} has no decision_function")
    k = len(getattr(estimator, "classes_", ()))
    return _blockwise_rows(estimator, X, _block_decision, np.dtype(np.float64),
                           k if k > 2 else 0)


@fill(_LAZY)
def predict(estimator: Any, X: Any, *, lengths: Any = None) -> Array:
    """``estimator.predict`` of every block of rows of X, as a lazy dask array.

    {lazy_rows}
    lengths : numpy or dask array, required for a `StructuredPerceptron` (only then)
        The number of tokens of each sentence, in order, summing to X's rows (read on the
        client). X must be a dask array whose blocks hold whole sentences: each block is
        decoded with its own sentences; a block boundary inside a sentence is a ValueError,
        not rechunked.

    Returns
    -------
    dask.array.Array of shape (n,)
        The labels, of the dtype of ``classes_`` (float64 for a regressor); nothing runs until
        computed.

    Raises
    ------
    NotFittedError
        If the estimator has not been fitted.
    TypeError
        If ``estimator`` is not an estimator of the package.
    ValueError
        If a `StructuredPerceptron` comes without ``lengths``, or they do not add up to X's
        rows or cut a sentence at a block boundary; or another estimator with ``lengths``.
    """
    _fitted(estimator)
    if getattr(type(estimator), "_sentences", False):
        return _sentences(estimator, X, lengths)
    if lengths is not None:
        raise ValueError(f"lengths: {type(estimator).__name__} predicts rows, not sentences")
    classes = getattr(estimator, "classes_", None)
    dtype = np.dtype(np.float64) if classes is None else classes.dtype
    return _blockwise_rows(estimator, X, _block_predict, dtype, 0)


# ---------------------------------------------------------------------------------- gram

def _gram_block(A: Any, B: Any, kernel: Any, log2: bool) -> np.ndarray:
    return _kernels.gram(A, B, kernel=kernel, log2=log2)


def _as_rows(A: Any, name: str) -> Array:
    import dask.array as da

    if not isinstance(A, da.Array):
        if hasattr(A, "to_dask_array"):
            A = A.to_dask_array()
        else:
            arr = np.asarray(A) if not hasattr(A, "tocsr") else A
            A = da.from_array(arr, chunks=arr.shape, asarray=False)
    if A.ndim != 2:
        raise ValueError(f"{name}: expected 2-D rows, got {A.ndim} dimension(s)")
    return A.rechunk({1: -1}) if A.numblocks[1] > 1 else A


def gram(A: Any, B: Any = None, kernel: Any = "linear", log2: bool = False,
         **params: Any) -> Array:
    """The Gram matrix K[i, j] = k(a_i, b_j) of dask rows, as a lazy dask array.

    Block (i, j) is `perceptron_c.kernels.gram` of A's block i and B's block j.

    Parameters
    ----------
    A : dask array or dask DataFrame
        The rows a_i (dense or sparse blocks).
    B : dask array, dask DataFrame or array-like, optional
        The rows b_j, possibly in memory; None means A.
    kernel : str or Kernel, default="linear"
        As in `perceptron_c.kernels.gram`.
    log2 : bool, default=False
        Return the exponents popcount(a AND b) instead (conjunction kernel only).
    **params
        ``degree``, ``gamma``, ``coef0`` of the kernel.

    Returns
    -------
    dask.array.Array of shape (n_A, n_B)
        float64 values, or int64 exponents with ``log2``.

    Raises
    ------
    TypeError
        If ``params`` holds another name.
    ValueError
        If ``log2`` is set for another kernel, or A and B differ in their number of
        features.
    """
    need_dask()
    unknown = sorted(set(params) - {"degree", "gamma", "coef0"})
    if unknown:
        raise TypeError(f"gram() got unexpected keyword argument(s) {unknown}")
    k = _kernels.get_kernel(kernel, **params)
    if log2 and not isinstance(k, _kernels.Conjunction):
        raise ValueError(f"log2=True applies only to the conjunction kernel, got {k!r}")
    A = _as_rows(A, "A")
    B = A if B is None else _as_rows(B, "B")
    if not np.isnan(A.shape[1]) and not np.isnan(B.shape[1]) and A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same number of features, got {A.shape[1]} "
                         f"and {B.shape[1]}")
    import dask.array as da

    dtype = np.dtype(np.int64 if log2 else np.float64)
    return da.blockwise(_gram_block, "ij", A, "ik", B, "jk", dtype=dtype, concatenate=True,
                        meta=np.empty((0, 0), dtype=dtype), kernel=k, log2=log2)
