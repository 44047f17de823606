"""The numpy-only low-level API: the epoch routines, checked, on the active backend.

For libraries that want the perceptron loops without the estimator. Every function has the
name and signature of the routine it runs (see ``perceptron_c._core._linear_py`` for the exact
semantics, which both twins share), works in place on the weight arrays, returns the number of
mistakes, and validates all of its arguments first, so no input can crash the interpreter:

- X: 2-D float32/float64 (other real dtypes are converted, a copy; so is a non-contiguous X);
- ``sample_weight`` (keyword): one finite weight per row, multiplying its update;
  CSR rows as (data, indices, indptr) with any integer index dtypes, or a scipy csr_matrix or
  csr_array in their place (its arrays used as they are where their dtypes already fit).
- y: +1/-1 floats (binary) or class indices (K-class); order: row indices (an int array).
- w, b, u, beta, W, U, out: float64, C-contiguous, writeable, of the right shape; count: an
  int64 array of shape (1,). These are never copied, since the routine writes into them.

Validation costs one pass over the inputs (``check_finite=False`` skips the NaN/inf scan, the
costliest part). Models call the unchecked twins after their own single gate pass.

Errors, besides ``ValueError`` for an argument that fails validation:

- ``FloatingPointError`` when the epoch overflows float64: an activation that is not finite
  stops the epoch at that example (its message names the position in ``order`` and the row),
  and a state that ends non-finite (weights, bias, averaging sums) is reported too. The
  arrays are left as the epoch left them, partly updated; the estimators undo such an epoch,
  here copy ``w``, ``b`` (and ``u``, ``beta``, ``count``) first if you need to. Scaling the
  data (StandardScaler, MaxAbsScaler) avoids it.
- ``KeyboardInterrupt`` (Ctrl-C) within milliseconds, the arrays likewise partly updated.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from . import _backend
from ._utils._docs import fill
from ._utils._validation import CSR, check_csr, check_finite, is_sparse

__all__ = [
    "perceptron_epoch_dense", "perceptron_epoch_csr", "averaged_epoch_dense",
    "averaged_epoch_csr", "multiclass_epoch_dense", "multiclass_epoch_csr",
    "multiclass_averaged_epoch_dense", "multiclass_averaged_epoch_csr", "decision_dense",
    "decision_csr",
]

if TYPE_CHECKING:
    import numpy.typing as npt

# The numpydoc blocks the routines share, each written once (``_docs.fill`` places them).
_DOCS = {
    "X": """
        X : array-like of shape (n_samples, n_features)
            The samples, float32 or float64 (other real dtypes, or a non-contiguous X, are
            converted into a copy).
        """,
    "csr": """
        data, indices, indptr : array-like
            The samples as CSR rows: the stored values, their column indices and the row
            pointers (n_samples + 1 of them), with any integer index dtypes; checked (monotone
            ``indptr``, indices in range). Or, in their place, one scipy ``csr_matrix`` or
            ``csr_array`` of n_features columns (``routine(X, y, ...)``), its arrays used as
            they are where their dtypes are the routine's (float32/float64 data, int32
            indices, int64 indptr), copied otherwise.
        """,
    "binary": """
        y : array-like of shape (n_samples,)
            The labels, each +1.0 or -1.0.
        {order}
        w : ndarray of float64 of shape (n_features,)
            The weights, updated in place.
        b : ndarray of float64 of shape (1,)
            The bias, updated in place.
        """,
    "multiclass": """
        y : array-like of int of shape (n_samples,)
            The class index of each sample, in ``[0, n_classes)``.
        {order}
        W : ndarray of float64 of shape (n_classes, n_features)
            One weight row per class, updated in place.
        b : ndarray of float64 of shape (n_classes,)
            One bias per class, updated in place.
        """,
    "order": """
        order : array-like of int
            The row indices to visit, in order (an epoch's permutation, or any subset).
        """,
    "binary_averaged": """
        {binary}
        u : ndarray of float64 of shape (n_features,)
            The lazy-averaging sums of the weights, updated in place (zeros to start).
        {averaging}
        """,
    "multiclass_averaged": """
        {multiclass}
        U : ndarray of float64 of shape (n_classes, n_features)
            The lazy-averaging sums of the weight rows, updated in place (zeros to start).
        {averaging}
        """,
    "averaging": """
        beta : ndarray of float64, shaped as ``b``
            The lazy-averaging sums of the bias, updated in place (zeros to start).
        count : ndarray of int64 of shape (1,)
            The example counter of the averaging, 1 before the first example; updated in place.
        """,
    "check_finite": """
        check_finite : bool, default=True
            Scan the inputs for NaN and infinity; False skips the scan, the costliest check.
        """,
    # the epochs' last parameters, what they return and raise
    "epoch": """
        fit_intercept : bool, default=True
            Whether the bias is updated.
        normalize : bool, default=False
            Update by ``y x / ||x||`` (the normalized perceptron) instead of ``y x``.
        {check_finite}
        sample_weight : array-like of shape (n_samples,), optional
            One finite weight per row, multiplying its update.

        Returns
        -------
        int
            The number of mistakes in the epoch.

        Raises
        ------
        ValueError
            If an argument fails validation (the message names it).
        FloatingPointError
            If the epoch overflows float64; the arrays are left partly updated.
        """,
    # the decisions' parameters after the samples, what they return and raise
    "decision": """
        W : array-like of shape (n_classes, n_features)
            One weight row per class.
        b : array-like of shape (n_classes,)
            One bias per class.
        out : ndarray of float64 of shape (n_samples, n_classes), optional
            Where to write; allocated when None.
        {check_finite}

        Returns
        -------
        out : ndarray of float64 of shape (n_samples, n_classes)
            ``out[i, k] = W_k . x_i + b_k``.

        Raises
        ------
        ValueError
            If an argument fails validation or the shapes do not match.
        """,
}


_F = TypeVar("_F", bound=Callable[..., Any])


# ---------------------------------------------------------------------------------- the gate

def _check_order(order: Any, n: int) -> np.ndarray:
    """Row indices for the low-level API: integers only (floats would be truncated and a
    boolean mask read as indices 0 and 1, both silently), 1-D, each in [0, n)."""
    order = np.asarray(order)
    if order.dtype.kind not in "iu" and not (order.size == 0 and order.dtype.kind == "f"):
        raise TypeError(f"order must hold integer row indices, got dtype {order.dtype}")
    order = np.ascontiguousarray(order, dtype=np.int64)
    if order.ndim != 1 or (order.size and (order.min() < 0 or order.max() >= n)):
        raise ValueError(f"order must be a 1-D array of row indices in [0, {n})")
    return order


def _check_rows_arg(X: Any, check_values: bool) -> np.ndarray:
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


def _check_csr_args(data: Any, indices: Any, indptr: Any, n_features: int,
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


def _csr_matrix_parts(X: Any, n_features: int) -> tuple[Any, Any, Any]:
    """A scipy CSR matrix or array as the low-level API's (data, indices, indptr): views of
    its own arrays (`_check_csr_args` then copies only what is not float32/float64, int32
    indices or int64 indptr)."""
    if getattr(X, "format", None) != "csr":
        raise TypeError(f"X: the CSR routines take a scipy csr_matrix or csr_array, got format "
                        f"{getattr(X, 'format', type(X).__name__)!r}; convert with X.tocsr()")
    if len(X.shape) != 2 or X.shape[1] != n_features:
        raise ValueError(f"X must have {n_features} columns (one per weight), got shape "
                         f"{X.shape}")
    nnz = int(X.indptr[-1]) if X.indptr.shape[0] else 0
    return X.data[:nnz], X.indices[:nnz], X.indptr


def _check_inout(a: Any, name: str, shape: tuple, dtype: Any = np.float64) -> np.ndarray:
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


# ------------------------------------------------------------------------------ the wrappers

def _csr_matrix(weights_at: int, axis: int) -> Callable[[_F], _F]:
    """A CSR routine that also takes a scipy CSR matrix in place of (data, indices, indptr):
    its arrays, through the gate, spliced in; n_features from the weights at ``weights_at``
    (counted after the splice), axis ``axis``."""
    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def routine(*args: Any, **kwargs: Any) -> Any:
            if args and is_sparse(args[0]):
                rest = args[1:]
                w = rest[weights_at - 3] if len(rest) > weights_at - 3 else \
                    kwargs.get("W", kwargs.get("w"))
                if w is None:
                    raise TypeError(f"{fn.__name__}: the weights are missing")
                args = (*_csr_matrix_parts(args[0], np.shape(w)[axis]), *rest)
            return fn(*args, **kwargs)
        return routine  # type: ignore[return-value]
    return wrap


def _rows(rows: tuple[npt.ArrayLike, ...], weights: np.ndarray, axis: int,
          check: bool) -> tuple[tuple[np.ndarray, ...], int, int]:
    """The samples as the routine takes them, ``(X,)`` or ``(data, indices, indptr)``,
    checked, with n_samples and n_features (CSR rows have as many as the weights' ``axis``)."""
    if len(rows) == 1:
        X = _check_rows_arg(rows[0], check)
        return (X,), X.shape[0], X.shape[1]
    data, indices, indptr = rows
    d = np.shape(weights)[axis]
    P = _check_csr_args(data, indices, indptr, d, check)
    return (P.data, P.indices, P.indptr), P.indptr.shape[0] - 1, d


def _finite(a: np.ndarray, name: str, check: bool) -> None:
    if check:
        check_finite(a, name)


def _columns(W: np.ndarray, d: int) -> None:
    if W.shape[1] != d:
        raise ValueError(f"W must have {d} columns (one per feature)")


def _binary_args(n: int, d: int, y: npt.ArrayLike, order: npt.ArrayLike, w: np.ndarray,
                 b: np.ndarray, check: bool) -> tuple[np.ndarray, np.ndarray]:
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (n,) or not np.all(np.abs(y) == 1.0):
        raise ValueError(f"y must be {n} labels, each +1.0 or -1.0")
    _check_inout(w, "w", (d,))
    _check_inout(b, "b", (1,))
    _finite(w, "w", check)
    return y, _check_order(order, n)


def _multi_args(n: int, d: int, y: npt.ArrayLike, order: npt.ArrayLike, W: np.ndarray,
                b: np.ndarray, check: bool) -> tuple[np.ndarray, np.ndarray]:
    k = W.shape[0]  # W is a 2-D array of float64 (_epoch checked it)
    _check_inout(b, "b", (k,))
    _finite(W, "W", check)
    y = np.asarray(y)
    if y.shape != (n,) or y.dtype.kind not in "iu" or (n and (y.min() < 0 or y.max() >= k)):
        raise ValueError(f"y must be {n} class indices in [0, {k})")
    y, order = np.ascontiguousarray(y, dtype=np.int64), _check_order(order, n)
    _columns(W, d)
    return y, order


def _avg_args(shape_w: tuple[int, ...], shape_b: tuple[int, ...], u: np.ndarray,
              beta: np.ndarray, count: np.ndarray) -> None:
    _check_inout(u, "u", shape_w)
    _check_inout(beta, "beta", shape_b)
    _check_inout(count, "count", (1,), np.int64)
    if count[0] < 1:
        raise ValueError("count must be >= 1 (it starts at 1)")


def _weights(sample_weight: npt.ArrayLike | None, n: int) -> np.ndarray | None:
    if sample_weight is None:
        return None
    w = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},), got {w.shape}")
    check_finite(w, "sample_weight")
    return w


def _epoch(name: str, rows: tuple[npt.ArrayLike, ...], y: npt.ArrayLike, order: npt.ArrayLike,
           state: tuple, flags: tuple, check: bool, sample_weight: npt.ArrayLike | None) -> int:
    """Check an epoch's arguments, then call the routine of the active twin;
    FloatingPointError if the state it leaves (weights, bias, averaging sums) is not finite.

    ``state`` is ``(w, b)`` or ``(w, b, u, beta, count)``, ``w`` 2-D for the K-class ones.
    """
    w, b = state[:2]
    multiclass = name.startswith("multiclass")
    weights, ndim, shape = ("W", 2, "(n_classes, n_features)") if multiclass else \
        ("w", 1, "(n_features,)")
    _check_inout(w, weights, np.shape(w))  # an ndarray of float64 of the right rank, before
    if w.ndim != ndim:                    # the CSR rows read n_features from it
        raise ValueError(f"{weights} must be a {ndim}-D array {shape}")
    head, n, d = _rows(rows, w, -1 if multiclass else 0, check)
    y, order = (_multi_args if multiclass else _binary_args)(n, d, y, order, w, b, check)
    if len(state) == 5:
        _avg_args(w.shape, b.shape, *state[2:])
    fn = getattr(_backend.linear, name)
    mistakes = fn(*head, y, order, *state, bool(flags[0]), bool(flags[1]),
                  sample_weight=_weights(sample_weight, n))
    for array in state:
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise FloatingPointError(f"{name}: the weights overflow float64")
    return int(mistakes)


@fill(_DOCS)
def perceptron_epoch_dense(X: npt.ArrayLike, y: npt.ArrayLike, order: npt.ArrayLike,
                           w: np.ndarray, b: np.ndarray, fit_intercept: bool = True,
                           normalize: bool = False, *, check_finite: bool = True,
                           sample_weight: npt.ArrayLike | None = None) -> int:
    """One epoch of the binary perceptron on dense rows, in place.

    For each row in ``order``: if ``y (w . x + b) <= 0``, then ``w += y x`` and ``b += y``
    ([Daume2017], Alg. 5).

    Parameters
    ----------
    {X}
    {binary}
    {epoch}
    """
    return _epoch("perceptron_epoch_dense", (X,), y, order, (w, b),
                  (fit_intercept, normalize), check_finite, sample_weight)


@_csr_matrix(5, 0)
@fill(_DOCS)
def perceptron_epoch_csr(data: npt.ArrayLike, indices: npt.ArrayLike, indptr: npt.ArrayLike,
                         y: npt.ArrayLike, order: npt.ArrayLike, w: np.ndarray, b: np.ndarray,
                         fit_intercept: bool = True, normalize: bool = False, *,
                         check_finite: bool = True,
                         sample_weight: npt.ArrayLike | None = None) -> int:
    """`perceptron_epoch_dense` on CSR rows.

    Parameters
    ----------
    {csr}
    {binary}
    {epoch}
    """
    return _epoch("perceptron_epoch_csr", (data, indices, indptr), y, order, (w, b),
                  (fit_intercept, normalize), check_finite, sample_weight)


@fill(_DOCS)
def averaged_epoch_dense(X: npt.ArrayLike, y: npt.ArrayLike, order: npt.ArrayLike,
                         w: np.ndarray, b: np.ndarray, u: np.ndarray, beta: np.ndarray,
                         count: np.ndarray, fit_intercept: bool = True,
                         normalize: bool = False, *, check_finite: bool = True,
                         sample_weight: npt.ArrayLike | None = None) -> int:
    """One epoch of the averaged perceptron on dense rows, in place.

    The perceptron's update with lazy averaging ([Daume2017] Alg. 7).
    The averaged model after any number of epochs is ``(w - u / count, b - beta / count)``.

    Parameters
    ----------
    {X}
    {binary_averaged}
    {epoch}
    """
    return _epoch("averaged_epoch_dense", (X,), y, order, (w, b, u, beta, count),
                  (fit_intercept, normalize), check_finite, sample_weight)


@_csr_matrix(5, 0)
@fill(_DOCS)
def averaged_epoch_csr(data: npt.ArrayLike, indices: npt.ArrayLike, indptr: npt.ArrayLike,
                       y: npt.ArrayLike, order: npt.ArrayLike, w: np.ndarray, b: np.ndarray,
                       u: np.ndarray, beta: np.ndarray, count: np.ndarray,
                       fit_intercept: bool = True, normalize: bool = False, *,
                       check_finite: bool = True,
                       sample_weight: npt.ArrayLike | None = None) -> int:
    """`averaged_epoch_dense` on CSR rows.

    Parameters
    ----------
    {csr}
    {binary_averaged}
    {epoch}
    """
    return _epoch("averaged_epoch_csr", (data, indices, indptr), y, order,
                  (w, b, u, beta, count), (fit_intercept, normalize), check_finite,
                  sample_weight)


@fill(_DOCS)
def multiclass_epoch_dense(X: npt.ArrayLike, y: npt.ArrayLike, order: npt.ArrayLike,
                           W: np.ndarray, b: np.ndarray, fit_intercept: bool = True,
                           normalize: bool = False, *, check_finite: bool = True,
                           sample_weight: npt.ArrayLike | None = None) -> int:
    """One epoch of the K-class (argmax) perceptron on dense rows, in place.

    For each row in ``order``: if the highest score ``W_k . x + b_k`` (lowest k on ties) is
    not the true class's, the true row gains ``x`` and the predicted row loses it
    ([Bunescu-CS4900], K-class perceptron).

    Parameters
    ----------
    {X}
    {multiclass}
    {epoch}
    """
    return _epoch("multiclass_epoch_dense", (X,), y, order, (W, b),
                  (fit_intercept, normalize), check_finite, sample_weight)


@_csr_matrix(5, -1)
@fill(_DOCS)
def multiclass_epoch_csr(data: npt.ArrayLike, indices: npt.ArrayLike, indptr: npt.ArrayLike,
                         y: npt.ArrayLike, order: npt.ArrayLike, W: np.ndarray, b: np.ndarray,
                         fit_intercept: bool = True, normalize: bool = False, *,
                         check_finite: bool = True,
                         sample_weight: npt.ArrayLike | None = None) -> int:
    """`multiclass_epoch_dense` on CSR rows.

    Parameters
    ----------
    {csr}
    {multiclass}
    {epoch}
    """
    return _epoch("multiclass_epoch_csr", (data, indices, indptr), y, order, (W, b),
                  (fit_intercept, normalize), check_finite, sample_weight)


@fill(_DOCS)
def multiclass_averaged_epoch_dense(X: npt.ArrayLike, y: npt.ArrayLike,
                                    order: npt.ArrayLike, W: np.ndarray, b: np.ndarray,
                                    U: np.ndarray, beta: np.ndarray, count: np.ndarray,
                                    fit_intercept: bool = True, normalize: bool = False, *,
                                    check_finite: bool = True,
                                    sample_weight: npt.ArrayLike | None = None) -> int:
    """One epoch of the averaged K-class perceptron on dense rows, in place.

    The K-class update with lazy averaging on every class row.
    The averaged model after any number of epochs is ``(W - U / count, b - beta / count)``.

    Parameters
    ----------
    {X}
    {multiclass_averaged}
    {epoch}
    """
    return _epoch("multiclass_averaged_epoch_dense", (X,), y, order, (W, b, U, beta, count),
                  (fit_intercept, normalize), check_finite, sample_weight)


@_csr_matrix(5, -1)
@fill(_DOCS)
def multiclass_averaged_epoch_csr(data: npt.ArrayLike, indices: npt.ArrayLike,
                                  indptr: npt.ArrayLike, y: npt.ArrayLike,
                                  order: npt.ArrayLike, W: np.ndarray, b: np.ndarray,
                                  U: np.ndarray, beta: np.ndarray, count: np.ndarray,
                                  fit_intercept: bool = True, normalize: bool = False, *,
                                  check_finite: bool = True,
                                  sample_weight: npt.ArrayLike | None = None) -> int:
    """`multiclass_averaged_epoch_dense` on CSR rows.

    Parameters
    ----------
    {csr}
    {multiclass_averaged}
    {epoch}
    """
    return _epoch("multiclass_averaged_epoch_csr", (data, indices, indptr), y, order,
                  (W, b, U, beta, count), (fit_intercept, normalize), check_finite,
                  sample_weight)


def _decision_args(W: npt.ArrayLike, b: npt.ArrayLike, d: int | None,
                   check_finite: bool) -> tuple[np.ndarray, np.ndarray]:
    W = np.ascontiguousarray(W, dtype=np.float64)
    if W.ndim != 2:
        raise ValueError("W must be 2-D (n_classes, n_features)")
    b = np.ascontiguousarray(b, dtype=np.float64)
    if b.shape != (W.shape[0],):
        raise ValueError(f"b must have shape ({W.shape[0]},)")
    _finite(W, "W", check_finite)
    if d is not None:
        _columns(W, d)
    return W, b


def _out(out: np.ndarray | None, n: int, k: int) -> np.ndarray:
    return np.empty((n, k)) if out is None else _check_inout(out, "out", (n, k))


@fill(_DOCS)
def decision_dense(X: npt.ArrayLike, W: npt.ArrayLike, b: npt.ArrayLike,
                   out: np.ndarray | None = None, *, check_finite: bool = True) -> np.ndarray:
    """The scores ``out[i, k] = W_k . x_i + b_k`` of dense rows.

    Parameters
    ----------
    {X}
    {decision}
    """
    X = _check_rows_arg(X, check_finite)
    W, b = _decision_args(W, b, X.shape[1], check_finite)
    out = _out(out, X.shape[0], W.shape[0])
    _backend.linear.decision_dense(X, W, b, out)
    return out


@_csr_matrix(3, -1)
@fill(_DOCS)
def decision_csr(data: npt.ArrayLike, indices: npt.ArrayLike, indptr: npt.ArrayLike,
                 W: npt.ArrayLike, b: npt.ArrayLike, out: np.ndarray | None = None, *,
                 check_finite: bool = True) -> np.ndarray:
    """`decision_dense` on CSR rows.

    Parameters
    ----------
    {csr}
    {decision}
    """
    W, b = _decision_args(W, b, None, check_finite)
    (data, indices, indptr), n, _ = _rows((data, indices, indptr), W, 1, check_finite)
    out = _out(out, n, W.shape[0])
    _backend.linear.decision_csr(data, indices, indptr, W, b, out)
    return out
