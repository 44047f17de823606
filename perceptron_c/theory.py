"""Margins and mistake bounds of a given separator: what the convergence theorems promise.

Two functions, both numpy only, both taking the same arguments:

- ``margin(X, y, coef, intercept=None)``: the geometric margin of the hyperplane (w, b) on the
  data, [Daume2017] eq. 4.8 divided by ||w||: ``min_i y_i (w . x_i + b) / ||w||`` when (w, b)
  separates the data, ``-inf`` otherwise.
- ``mistake_bound(X, y, coef, intercept=None)``: the Block/Novikoff bound ``(R / gamma)^2``
  ([Block1962], [Novikoff1962]) on the total number of mistakes of the perceptron over all
  epochs, in any order ([Vaughan-CS269], Theorem 1), ``inf`` when (w, b) does not separate
  the data.

"Separates" is strict, as in the perceptron's own mistake test ([Daume2017] Alg. 5 updates
when ``y * a <= 0``): every ``y_i (w . x_i + b)`` must be > 0; a point on the hyperplane
counts as not separated.

Arguments (shared by both functions)
------------------------------------
X : array-like of shape (n_samples, n_features), or a scipy.sparse matrix
    Finite real values. X and y pass through the package's gate (``_validation``), so they
    are read exactly as the estimators read them; sparse input is recognised without
    importing scipy. All arithmetic here is float64.
y : array-like of shape (n_samples,)
    Exactly two classes. Labels become signs by the estimator's convention: if the unique
    values are exactly {-1, +1} (any numeric dtype) they are the signs; otherwise the two
    labels are sorted as ``np.unique`` sorts them (``classes_``) and ``classes_[1]`` maps to
    +1, ``classes_[0]`` to -1. So {0, 1} gives 1 -> +1, {"ham", "spam"} gives "spam" -> +1,
    {False, True} gives True -> +1.
coef : array-like of shape (n_features,) or (1, n_features)
    The weight vector w (``Perceptron.coef_`` has shape (1, n_features)).
intercept : None, a real number, or an array-like of shape (1,)
    The bias b (``Perceptron.intercept_`` has shape (1,)). ``None`` means "no bias at all":
    b = 0 and, for the mistake bound, no constant feature. A number, even 0.0, means the
    perceptron learns a bias, absorbed as a constant feature 1 ([Weinberger-CS4780]), which
    changes R and gamma of the bound.

Bad input raises ``ValueError`` or ``TypeError`` naming the argument.
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _backend
from ._utils import _validation
from ._utils._docs import fill

if TYPE_CHECKING:
    from typing import TypeAlias

    _Rows: TypeAlias = "np.ndarray | _validation.CSR"  # canonical rows from the gate

__all__ = ["margin", "mistake_bound"]

# the arguments both functions take, and their errors (the module docstring has the details)
_DOC = {
    "separator": """
        See the module docstring for the accepted forms of X, y, coef and intercept.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Finite real values.
        y : array-like of shape (n_samples,)
            Exactly two classes; ``classes_[1]`` (in ``np.unique`` order) is +1, unless the
            labels are already {-1, +1}.
        coef : array-like of shape (n_features,) or (1, n_features)
            The weight vector w (``Perceptron.coef_``).
        """,
    "bad_input": """
        Raises
        ------
        ValueError, TypeError
            Naming the argument, for bad input: y without exactly two classes, a coef of the
            wrong shape or not finite, values that are not finite real numbers.
        """,
}


@fill(_DOC)
def margin(X: Any, y: Any, coef: Any, intercept: Any = None) -> float:
    """Geometric margin of the hyperplane (coef, intercept) on (X, y), -inf if it does not separate.

    [Daume2017] eq. 4.8 gives the functional margin ``min_i y_i (w . x_i + b)`` when (w, b)
    separates the data and ``-inf`` otherwise; dividing by ||w|| turns it into the distance
    from the hyperplane to the closest point, which is what this returns (so it does not
    change when (w, b) is rescaled). ``intercept=None`` means b = 0.

    {separator}
    intercept : None, float or array-like of shape (1,), default=None
        The bias b; None means b = 0.

    Returns
    -------
    float
        The margin (> 0), or ``-inf`` when some ``y_i (w . x_i + b) <= 0``.

    {bad_input}

    Examples
    --------
    >>> margin([[0.0], [1.0], [3.0], [4.0]], [-1, -1, 1, 1], [1.0], -2.0)
    1.0
    """
    rows, w, b, functional = _functional_margin(X, y, coef, intercept)
    if not functional > 0.0:
        return -math.inf
    return float(functional / _norm(w))


@fill(_DOC)
def mistake_bound(X: Any, y: Any, coef: Any, intercept: Any = None) -> float:
    """Block/Novikoff bound (R / gamma)^2 on the perceptron's total number of mistakes.

    [Vaughan-CS269], Theorem 1: if ``y_i (u . x_i) >= gamma`` for a unit vector u and
    ``||x_i|| <= R`` for every i, the perceptron started at w = 0 makes at most
    ``(R / gamma)^2`` mistakes in total, over any number of passes in any order. Here u is
    coef/||coef||, gamma the smallest ``y_i (u . x_i)`` and R the largest ``||x_i||``.

    With a number as ``intercept``, the bias is absorbed as a constant feature
    ([Weinberger-CS4780]): x becomes (x, 1) and w becomes (w, b), so R = max ||(x_i, 1)|| and
    gamma = min y_i (w . x_i + b) / ||(w, b)||. This is the bound for training with an
    intercept whose update is ``b += y`` (the constant feature is exactly 1), as
    ``Perceptron(fit_intercept=True)`` does. ``intercept=None`` gives the origin-centred
    bound, for ``fit_intercept=False``.

    {separator}
    intercept : None, float or array-like of shape (1,), default=None
        The bias b. None: no bias, and no constant feature; a number, even 0.0: the bias
        is absorbed as a constant feature 1, which changes R and gamma.

    Returns
    -------
    float
        The bound, or ``inf`` when (coef, intercept) does not separate the data.

    {bad_input}

    Examples
    --------
    >>> mistake_bound([[3.0, 4.0], [-3.0, -4.0]], [1, -1], [3.0, 4.0])
    1.0
    """
    rows, w, b, functional = _functional_margin(X, y, coef, intercept)
    if not functional > 0.0:
        return math.inf
    max_sq_row_norm, scale = _max_sq_row_norm(rows)
    radius = scale * math.sqrt(max_sq_row_norm)
    if intercept is None:
        gamma = functional / _norm(w)
    else:
        radius = math.hypot(radius, 1.0)  # ||(x, 1)||: the absorbed bias feature is 1
        gamma = functional / _norm(np.append(w, b))
    ratio = radius / gamma
    return float(ratio * ratio)  # a float product overflows to inf; ** would raise


# ---------------------------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------------------------

def _functional_margin(X: Any, y: Any, coef: Any,
                       intercept: Any) -> tuple[_Rows, np.ndarray, float, float]:
    """The checked rows, (w, b) rescaled (see `_rescale`) and min_i y_i (w . x_i + b)."""
    rows, signs, w, b = _check_inputs(X, y, coef, intercept)
    w, b = _rescale(w, b)
    functional = _signed_activations(rows, signs, w, b).min()
    return rows, w, b, functional


def _check_inputs(X: Any, y: Any, coef: Any,
                  intercept: Any) -> tuple[_Rows, np.ndarray, np.ndarray, float]:
    rows = _validation.check_X(X, name="X")
    if isinstance(rows, _validation.CSR):
        rows = rows._replace(data=rows.data.astype(np.float64, copy=False))
    else:
        rows = rows.astype(np.float64, copy=False)
    n_samples, n_features = rows.shape
    signs = _signs(_validation.check_y(y, n_samples, name="y"))
    w = _check_coef(coef, n_features)
    b = _check_intercept(intercept)
    return rows, signs, w, b


def _signs(labels: np.ndarray) -> np.ndarray:
    """+1/-1 per sample: classes_[1] -> +1 in np.unique order, as the estimator encodes."""
    try:
        classes, index = _validation.encode_labels(labels, name="y")
    except TypeError as exc:  # e.g. an object array mixing str and int
        raise TypeError(f"y: labels must be mutually comparable to be sorted: {exc}") from exc
    if classes.shape[0] != 2:
        shown = ", ".join(repr(c) for c in classes[:5].tolist())
        more = ", ..." if classes.shape[0] > 5 else ""
        raise ValueError(
            f"y must have exactly two classes, got {classes.shape[0]}: [{shown}{more}]")
    # {-1, +1} sorts as [-1, +1], so this also keeps labels that are already signs
    return np.where(index == 1, 1.0, -1.0)


def _as_real_float64(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got complex dtype {arr.dtype}")
    if arr.dtype.kind not in "biuf":
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}: {exc}") from exc
    return arr.astype(np.float64, copy=False)


def _check_coef(coef: Any, n_features: int) -> np.ndarray:
    if coef is None:
        raise TypeError("coef must be an array-like of shape (n_features,), got None")
    w = _as_real_float64(np.asarray(coef), "coef")
    if w.ndim == 2 and w.shape[0] == 1:
        w = w[0]
    if w.ndim != 1:
        raise ValueError(
            f"coef must have shape (n_features,) or (1, n_features), got shape {w.shape}")
    if w.shape[0] != n_features:
        raise ValueError(
            f"coef has {w.shape[0]} entries but X has {n_features} features")
    if not np.isfinite(w).all():
        raise ValueError("coef contains NaN or infinity")
    return w


def _check_intercept(intercept: Any) -> float:
    if intercept is None:
        return 0.0
    if isinstance(intercept, (str, bytes)):
        raise TypeError(f"intercept must be None, a real number or a shape-(1,) array, "
                        f"got {intercept!r}")
    if isinstance(intercept, numbers.Real):
        b = float(intercept)
    else:
        arr = _as_real_float64(np.asarray(intercept), "intercept")
        if arr.size != 1 or arr.ndim > 1:
            raise ValueError(
                f"intercept must be None, a real number or a shape-(1,) array, got shape "
                f"{arr.shape}")
        b = float(arr.reshape(()))
    if not math.isfinite(b):
        raise ValueError(f"intercept must be finite, got {b}")
    return b


# ---------------------------------------------------------------------------------------------
# Arithmetic (float64 throughout)
# ---------------------------------------------------------------------------------------------

def _power_of_two_near(value: float) -> float:
    """2^e with value / 2^e in [0.5, 1): dividing by it is exact, unlike dividing by value."""
    return math.ldexp(1.0, math.frexp(value)[1])


def _rescale(w: np.ndarray, b: float) -> tuple[np.ndarray, float]:
    """(w, b) scaled so its largest |entry| is in [0.5, 1): same hyperplane, safe norms."""
    largest = max(float(np.abs(w).max()), abs(b))
    if largest == 0.0:
        return w, b
    scale = _power_of_two_near(largest)
    return w / scale, b / scale


def _norm(v: np.ndarray) -> float:
    """Euclidean norm of a vector whose largest |entry| is in [0.5, 1) (see `_rescale`)."""
    return math.sqrt(float(_sq_norms(np.asarray(v, dtype=np.float64)[None, :])[0]))


def _sq_norms(rows: np.ndarray) -> np.ndarray:
    """||x_i||^2 of every dense row: the package's 4-lane sums (not BLAS's, nor einsum's,
    which change with the machine)."""
    return _backend.gram.row_sqnorms(np.ascontiguousarray(rows, dtype=np.float64))


def _signed_activations(rows: _Rows, signs: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """y_i (w . x_i + b) for every row."""
    dots: np.ndarray
    if isinstance(rows, _validation.CSR):
        n_samples = rows.shape[0]
        row_of_entry = np.repeat(np.arange(n_samples), np.diff(rows.indptr))
        dots = np.bincount(row_of_entry, weights=rows.data * w[rows.indices],
                           minlength=n_samples)
    else:
        out = np.empty((rows.shape[0], 1))
        _backend.linear.decision_dense(rows, np.ascontiguousarray(w, dtype=np.float64)[None, :],
                                         np.zeros(1), out)
        dots = out[:, 0]
    return signs * (dots + b)


def _max_sq_row_norm(rows: _Rows) -> tuple[float, float]:
    """(max_i ||x_i / s||^2, s), s a power of two near max |entry|, so squares cannot overflow."""
    values = rows.data if isinstance(rows, _validation.CSR) else rows
    largest = float(np.abs(values).max()) if values.size else 0.0
    if largest == 0.0:
        return 0.0, 1.0
    scale = _power_of_two_near(largest)
    if isinstance(rows, _validation.CSR):
        n_samples = rows.shape[0]
        row_of_entry = np.repeat(np.arange(n_samples), np.diff(rows.indptr))
        scaled = rows.data / scale
        sq_norms = np.bincount(row_of_entry, weights=scaled * scaled, minlength=n_samples)
    else:
        scaled = rows / scale
        sq_norms = _sq_norms(scaled)
    return float(sq_norms.max()), scale
