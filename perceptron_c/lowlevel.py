"""The numpy-only low-level API: the epoch routines, checked, on the active backend.

For libraries that want the perceptron loops without the estimator. Every function has the
name and signature of the routine it runs (see ``perceptron_c._linear_py`` for the exact
semantics, which both twins share), works in place on the weight arrays, returns the number of
mistakes, and validates all of its arguments first, so no input can crash the interpreter:

- X: 2-D float32/float64 (other real dtypes are converted, a copy; so is a non-contiguous X);
  CSR rows as (data, indices, indptr) with any integer index dtypes.
- y: +1/-1 floats (binary) or class indices (K-class); order: row indices (an int array).
- w, b, u, beta, W, U, out: float64, C-contiguous, writeable, of the right shape; count: an
  int64 array of shape (1,). These are never copied, since the routine writes into them.

Validation costs one pass over the inputs (``check_finite=False`` skips the NaN/inf scan, the
costliest part). Models call the unchecked twins after their own single gate pass.
"""
import numpy as np

from . import _backend
from ._validation import check_order

__all__ = [
    "perceptron_epoch_dense", "perceptron_epoch_csr", "averaged_epoch_dense",
    "averaged_epoch_csr", "multiclass_epoch_dense", "multiclass_epoch_csr",
    "multiclass_averaged_epoch_dense", "multiclass_averaged_epoch_csr", "decision_dense",
    "decision_csr",
]


def _finite(a, name, check_finite):
    if check_finite and a.size and not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or inf")


def _dense(X, check_finite):
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        if X.dtype.kind not in "biuf":
            raise TypeError(f"X must hold real numbers, got dtype {X.dtype}")
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    _finite(X, "X", check_finite)
    return X


def _csr(data, indices, indptr, n_features, check_finite):
    data, indices, indptr = np.asarray(data), np.asarray(indices), np.asarray(indptr)
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or indptr.shape[0] < 1:
        raise ValueError("data, indices and indptr must be 1-D (indptr at least 1 long)")
    if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
        raise TypeError("indices and indptr must be integer arrays")
    if data.dtype not in (np.float32, np.float64):
        if data.dtype.kind not in "biuf":
            raise TypeError(f"data must hold real numbers, got dtype {data.dtype}")
        data = data.astype(np.float64)
    if indices.shape[0] != data.shape[0]:
        raise ValueError("indices and data must have the same length")
    if indptr[0] != 0 or indptr[-1] != data.shape[0] or np.any(np.diff(indptr) < 0):
        raise ValueError("indptr must rise monotonically from 0 to len(data)")
    if indices.size and (indices.min() < 0 or indices.max() >= n_features):
        raise ValueError(f"indices must lie in [0, {n_features}) (the number of weights)")
    _finite(data, "data", check_finite)
    return (np.ascontiguousarray(data), np.ascontiguousarray(indices, dtype=np.int32),
            np.ascontiguousarray(indptr, dtype=np.int64))


def _inout(a, name, shape, dtype=np.float64):
    if not isinstance(a, np.ndarray) or a.dtype != dtype:
        raise TypeError(f"{name} must be a numpy array of dtype {np.dtype(dtype)} (it is "
                        "updated in place, so it is never converted)")
    if not a.flags.c_contiguous or not a.flags.writeable:
        raise ValueError(f"{name} must be C-contiguous and writeable")
    if a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    return a


def _binary_args(n, d, y, order, w, b, check_finite):
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (n,) or not np.all(np.abs(y) == 1.0):
        raise ValueError(f"y must be {n} labels, each +1.0 or -1.0")
    _inout(w, "w", (d,))
    _inout(b, "b", (1,))
    _finite(w, "w", check_finite)
    return y, check_order(order, n)


def _multi_args(n, y, order, W, b, check_finite):
    if not isinstance(W, np.ndarray) or W.ndim != 2:
        raise ValueError("W must be a 2-D array (n_classes, n_features)")
    k, d = W.shape
    _inout(W, "W", (k, d))
    _inout(b, "b", (k,))
    _finite(W, "W", check_finite)
    y = np.asarray(y)
    if y.shape != (n,) or y.dtype.kind not in "iu" or (n and (y.min() < 0 or y.max() >= k)):
        raise ValueError(f"y must be {n} class indices in [0, {k})")
    return np.ascontiguousarray(y, dtype=np.int64), check_order(order, n)


def _avg_args(shape_w, shape_b, u, beta, count):
    _inout(u, "u", shape_w)
    _inout(beta, "beta", shape_b)
    _inout(count, "count", (1,), np.int64)
    if count[0] < 1:
        raise ValueError("count must be >= 1 (it starts at 1)")


def perceptron_epoch_dense(X, y, order, w, b, fit_intercept=True, normalize=False, *,
                           check_finite=True):
    X = _dense(X, check_finite)
    y, order = _binary_args(X.shape[0], X.shape[1], y, order, w, b, check_finite)
    return _backend.linear.perceptron_epoch_dense(X, y, order, w, b, bool(fit_intercept),
                                                  bool(normalize))


def perceptron_epoch_csr(data, indices, indptr, y, order, w, b, fit_intercept=True,
                         normalize=False, *, check_finite=True):
    head = _csr(data, indices, indptr, np.shape(w)[0], check_finite)
    y, order = _binary_args(head[2].shape[0] - 1, np.shape(w)[0], y, order, w, b, check_finite)
    return _backend.linear.perceptron_epoch_csr(*head, y, order, w, b, bool(fit_intercept),
                                                bool(normalize))


def averaged_epoch_dense(X, y, order, w, b, u, beta, count, fit_intercept=True,
                         normalize=False, *, check_finite=True):
    X = _dense(X, check_finite)
    y, order = _binary_args(X.shape[0], X.shape[1], y, order, w, b, check_finite)
    _avg_args(w.shape, b.shape, u, beta, count)
    return _backend.linear.averaged_epoch_dense(X, y, order, w, b, u, beta, count,
                                                bool(fit_intercept), bool(normalize))


def averaged_epoch_csr(data, indices, indptr, y, order, w, b, u, beta, count,
                       fit_intercept=True, normalize=False, *, check_finite=True):
    head = _csr(data, indices, indptr, np.shape(w)[0], check_finite)
    y, order = _binary_args(head[2].shape[0] - 1, np.shape(w)[0], y, order, w, b, check_finite)
    _avg_args(w.shape, b.shape, u, beta, count)
    return _backend.linear.averaged_epoch_csr(*head, y, order, w, b, u, beta, count,
                                              bool(fit_intercept), bool(normalize))


def multiclass_epoch_dense(X, y, order, W, b, fit_intercept=True, normalize=False, *,
                           check_finite=True):
    X = _dense(X, check_finite)
    y, order = _multi_args(X.shape[0], y, order, W, b, check_finite)
    if W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have {X.shape[1]} columns (one per feature)")
    return _backend.linear.multiclass_epoch_dense(X, y, order, W, b, bool(fit_intercept),
                                                  bool(normalize))


def multiclass_epoch_csr(data, indices, indptr, y, order, W, b, fit_intercept=True,
                         normalize=False, *, check_finite=True):
    head = _csr(data, indices, indptr, np.shape(W)[-1], check_finite)
    y, order = _multi_args(head[2].shape[0] - 1, y, order, W, b, check_finite)
    return _backend.linear.multiclass_epoch_csr(*head, y, order, W, b, bool(fit_intercept),
                                                bool(normalize))


def multiclass_averaged_epoch_dense(X, y, order, W, b, U, beta, count, fit_intercept=True,
                                    normalize=False, *, check_finite=True):
    X = _dense(X, check_finite)
    y, order = _multi_args(X.shape[0], y, order, W, b, check_finite)
    if W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have {X.shape[1]} columns (one per feature)")
    _avg_args(W.shape, b.shape, U, beta, count)
    return _backend.linear.multiclass_averaged_epoch_dense(X, y, order, W, b, U, beta, count,
                                                           bool(fit_intercept), bool(normalize))


def multiclass_averaged_epoch_csr(data, indices, indptr, y, order, W, b, U, beta, count,
                                  fit_intercept=True, normalize=False, *, check_finite=True):
    head = _csr(data, indices, indptr, np.shape(W)[-1], check_finite)
    y, order = _multi_args(head[2].shape[0] - 1, y, order, W, b, check_finite)
    _avg_args(W.shape, b.shape, U, beta, count)
    return _backend.linear.multiclass_averaged_epoch_csr(*head, y, order, W, b, U, beta, count,
                                                         bool(fit_intercept), bool(normalize))


def _decision_args(W, b, n, check_finite):
    W = np.ascontiguousarray(W, dtype=np.float64)
    if W.ndim != 2:
        raise ValueError("W must be 2-D (n_classes, n_features)")
    b = np.ascontiguousarray(b, dtype=np.float64)
    if b.shape != (W.shape[0],):
        raise ValueError(f"b must have shape ({W.shape[0]},)")
    _finite(W, "W", check_finite)
    return W, b


def decision_dense(X, W, b, out=None, *, check_finite=True):
    """out[i, k] = W_k . x_i + b_k; allocates ``out`` when not given; returns it."""
    X = _dense(X, check_finite)
    W, b = _decision_args(W, b, X.shape[0], check_finite)
    if W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have {X.shape[1]} columns (one per feature)")
    out = np.empty((X.shape[0], W.shape[0])) if out is None else _inout(
        out, "out", (X.shape[0], W.shape[0]))
    _backend.linear.decision_dense(X, W, b, out)
    return out


def decision_csr(data, indices, indptr, W, b, out=None, *, check_finite=True):
    """`decision_dense` on CSR rows."""
    W, b = _decision_args(W, b, None, check_finite)
    head = _csr(data, indices, indptr, W.shape[1], check_finite)
    n = head[2].shape[0] - 1
    out = np.empty((n, W.shape[0])) if out is None else _inout(out, "out", (n, W.shape[0]))
    _backend.linear.decision_csr(*head, W, b, out)
    return out
