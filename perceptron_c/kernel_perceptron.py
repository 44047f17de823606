"""`KernelPerceptron`: the dual perceptron with any kernel of `perceptron_c.kernels`.

Training is the primal perceptron run in the kernel's feature space, kept in dual form: one
coefficient per training example, alpha_i = the signed count of mistakes on example i, and
f(x) = sum_i alpha_i K(x_i, x) + b ([Bunescu-CS4900], "Kernel Perceptron: Two Classes";
[Columbia-COMS4252], section 2.3). With ``kernel="linear"`` it makes exactly the mistakes
of `Perceptron` on the same data and seed.

Two modes with the same mistakes: when the Gram of the training pool fits in
``max_gram_bytes`` it is computed once and every example's score is cached and updated in
O(n) per mistake; otherwise each block of visited examples gets its kernel rows against the
support set and the block only (`kernels._rows.stream`: O(support) kernel values per example,
never the whole Gram again). The conjunction kernel 2^popcount(a AND b) is trained and
evaluated on exact integer sums (exponents in int16 up to 32767 bits), so its decisions have
the right sign at any bit count; its ``decision_function`` is clipped to the largest finite
float64 beyond float64's range (never inf or NaN).

Weights (``sample_weight`` in `fit` / `partial_fit`, ``class_weight``) scale a mistake's
update: alpha_i moves by y_i w_i; a row of weight 0 is never visited. ``n_jobs`` threads
compute the kernel values (training and prediction); the models do not depend on it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from ._estimator._training import Run
from ._utils._docs import FIT, fill
from ._utils._params import ClassWeight, Flag, declared, expand_class_weight
from ._utils._rows import check_finite_state, pool_of, take_rows
from ._utils._threads import trains
from .kernels import KernelSpec, resolve_kernel
from .kernels._model import WeightedKernelClassifier, empty_support, fit_kernel_model
from .kernels._rows import (
    KERNEL_PARAMS,
    KernelSource,
    cached_scores,
    check_exact_headroom,
    check_weighted_headroom,
    fit_params,
    record_fit_params,
    stream,
)

__all__ = ["KernelPerceptron"]


def _row_weights(est: KernelPerceptron, y_idx: np.ndarray, sample_weight: np.ndarray | None,
                 kind: str, n_old: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(the weight of each pool example, or None when every one is 1; the rows to visit, or
    None for all): class weight of the row's label times its sample weight; int64 for the
    exact conjunction kernel, which needs whole numbers."""
    cw = expand_class_weight(est.class_weight, est.classes_, y_idx)
    w = cw[y_idx] if sample_weight is None else cw[y_idx] * sample_weight
    keep = None if np.all(w != 0) else w != 0  # a row of weight 0 is a row removed
    if np.all(w == 1.0):
        return None, keep
    if kind == "conjunction":
        bad = np.flatnonzero((w != np.round(w)) | (np.abs(w) > 2.0 ** 53))
        if bad.size:
            raise ValueError(
                "KernelPerceptron(kernel='conjunction') keeps exact integer coefficients: "
                "sample_weight times class_weight must be whole numbers (at most 2^53), got "
                f"{float(w[bad[0]])!r} for row {int(bad[0])}")
        return np.concatenate([np.zeros(n_old, np.int64), w.astype(np.int64)]), keep
    return np.concatenate([np.zeros(n_old), w]), keep  # old support vectors: never visited


class _DualRun(Run["KernelPerceptron"]):
    """One training call: the pool (old support vectors, then the new rows), padded
    coefficients, the row weights and the kernel values; ``finish`` keeps the examples that
    carry weight."""

    def __init__(self, est: KernelPerceptron, Xc: Any, y_idx: np.ndarray,
                 sample_weight: np.ndarray | None, kind: str, kern: Any) -> None:
        self.est, self.kind = est, kind
        self.n_old = est._alpha.shape[1]
        self.pool = pool_of(est._sv, Xc, kind)
        self.work = est._pool_state(Xc.shape[0])  # what an epoch changes, but the cache
        self.alpha, self.b = self.work["alpha"], self.work["b"]
        self.avg = bool(fit_params(est)["average"])
        if self.avg:
            self.u, self.beta, self.count = (self.work[k] for k in ("u", "beta", "count"))
        self.joint = self.alpha.shape[0] > 1
        # labels over the whole pool; old support vectors are never visited again
        y_pool = np.concatenate([np.zeros(self.n_old, np.int64), y_idx])
        self.y = y_pool if self.joint else np.where(y_pool == 1, 1.0, -1.0)
        self.weights, self.keep = _row_weights(est, y_idx, sample_weight, kind, self.n_old)
        self.source = KernelSource(kern, kind, self.pool, est.max_gram_bytes, est.n_jobs)
        self.cached = self.source.cached and kind != "conjunction"
        # the columns with a nonzero coefficient (a superset is harmless: its terms are 0)
        self.support = np.any(self.alpha != 0, axis=0)
        if self.cached:
            G = self.source.full
            assert G is not None  # cached: KernelSource computed the whole pool Gram
            self.scores = (cached_scores(self.alpha, G) if self.n_old
                           else np.zeros(self.alpha.shape))

    def arrays(self) -> list[np.ndarray]:
        return [*self.work.values(), *([self.scores] if self.cached else [])]

    def epoch(self, order: np.ndarray) -> int:
        if self.keep is not None:
            order = np.ascontiguousarray(order[self.keep[order]])
        order = self.n_old + order
        if self.kind == "conjunction":  # never start an epoch the exact sums cannot hold
            total = order.shape[0] if self.weights is None else \
                float(np.abs(self.weights[order]).sum(dtype=np.float64))
            check_weighted_headroom(self.alpha, self.b, getattr(self, "u", None),
                                    getattr(self, "beta", None), getattr(self, "count", None),
                                    order.shape[0], total)
        mistakes = self._epoch(order)
        check_finite_state(*self.arrays())
        return mistakes

    def _epoch(self, order: np.ndarray) -> int:
        # one explicit call per routine (K-class or binary; None is a routine's "off"), so a
        # type checker checks each against its twin
        fi, joint, y, alpha, b, sw = (self.est.fit_intercept, self.joint, self.y, self.alpha,
                                      self.b, self.weights)
        u, beta, count = (self.u, self.beta, self.count) if self.avg else (None, None, None)
        u0 = None if u is None else u[0]  # binary: the one row of the averaging sums
        if self.cached:
            G = self.source.full
            assert G is not None  # cached: KernelSource computed the whole pool Gram
            dual = _backend.dual
            if joint:
                return dual.multiclass_dual_epoch_cached(G, y, order, alpha, b, self.scores, fi,
                                                         u, beta, count, sample_weight=sw)
            return dual.dual_epoch_cached(G, y, order, alpha[0], b, self.scores[0], fi, u0,
                                          beta, count, sample_weight=sw)
        conjunction = self.kind == "conjunction"

        def block(rows: np.ndarray, K: np.ndarray, cols: np.ndarray | None) -> int:
            if conjunction:
                conj = _backend.conjunction
                if joint:
                    return int(conj.multiclass_conjunction_epoch_rows(
                        K, rows, y, alpha, b, fi, u, beta, count, cols=cols, sample_weight=sw))
                return int(conj.conjunction_epoch_rows(
                    K, rows, y, alpha[0], b, fi, u0, beta, count, cols=cols, sample_weight=sw))
            dual = _backend.dual
            if joint:
                return int(dual.multiclass_dual_epoch_rows(
                    K, rows, y, alpha, b, fi, u, beta, count, cols=cols, sample_weight=sw))
            return int(dual.dual_epoch_rows(K, rows, y, alpha[0], b, fi, u0, beta, count,
                                            cols=cols, sample_weight=sw))

        return stream(self.source, order, self.support, block,
                      lambda rows: np.any(self.alpha[:, rows] != 0, axis=0))

    def predict_idx(self, X: Any) -> np.ndarray:  # pragma: no cover - no early stopping here
        raise NotImplementedError

    def finish(self, credit_epochs: int) -> None:
        """Keep the examples that carry weight: nonzero alpha, or nonzero averaging sum."""
        est = self.est
        keep = np.any(self.alpha != 0, axis=0)
        if self.avg:
            keep |= np.any(self.u != 0, axis=0)
        idx = np.flatnonzero(keep)
        est._sv = idx.astype(np.int64) if self.kind == "precomputed" \
            else take_rows(self.pool, idx)
        est._alpha = np.ascontiguousarray(self.alpha[:, idx])
        est._b = self.b
        if self.avg:
            est._u = np.ascontiguousarray(self.u[:, idx])
            est._beta, est._count = self.beta, self.count
        est.support_ = np.where(idx < self.n_old, -1, idx - self.n_old).astype(np.int64)


class KernelPerceptron(WeightedKernelClassifier):
    """The kernel (dual) perceptron, plain or averaged, binary or K-class (argmax).

    A fitted model predicts with the ``kernel``, ``degree``, ``gamma``, ``coef0`` and
    ``average`` it was trained with (they are saved with it); ``set_params`` changes the next
    ``fit``. ``partial_fit`` and a warm-started ``fit`` continue the state only with those
    parameters unchanged (a ValueError names the one that changed); ``fit_intercept``,
    ``class_weight`` and the other training parameters take effect on the call that follows.

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        "linear", "poly", "rbf", "conjunction", "precomputed" (X is then the Gram matrix:
        (n, n) at fit, (m, n_train) at predict), a `perceptron_c.kernels` object (sums,
        products and scalings included) or a callable ``k(X, Y) -> Gram``.
    degree : int or None, default=None
        The degree of "poly", (gamma x.y + coef0)^degree; None is 3.
    gamma : float or None, default=None
        The scale of "poly" (None is 1.0) and of "rbf", exp(-gamma ||x - y||^2) (None is
        1/n_features).
    coef0 : float or None, default=None
        The constant of "poly"; None is 1.0.
    fit_intercept : bool, default=True
        Learn b, updated by b += y on a mistake, as in the primal perceptron.
    max_iter : int, default=100
        Maximum number of epochs; training stops earlier after an epoch with no mistake.
    shuffle : bool, default=True
        Visit the examples in a new random order every epoch.
    random_state : None, int, numpy Generator or RandomState, default=None
        The seed of those orders: an int gives the same orders at every ``fit``; a numpy
        Generator or RandomState gives the seed drawn from it; None a new seed at each ``fit``.
    average : bool, default=False
        Survival-weighted average of the dual coefficients ([Daume2017] Alg. 7, lazily).
    warm_start : bool, default=False
        ``fit`` keeps the current support vectors and coefficients and continues.
    verbose : int, default=0
        One progress line per epoch on stderr.
    max_gram_bytes : int, default=512 MiB
        Memory for kernel matrices. A training Gram that fits is cached; otherwise the kernel
        rows of each block of visited examples are computed against the support vectors and
        the block only, as the epoch needs them (same result). For the conjunction kernel the
        Gram holds exponents, int16 up to 32767 bits (2 bytes a pair), int32 beyond.
    class_weight : dict, "balanced" or None, default=None
        Multiply the updates of class c's examples by class_weight[c] (scikit-learn's
        meaning; "balanced": n / (n_classes * count of c), not in ``partial_fit``).
    n_jobs : int or None, default=None
        Threads for the kernel values (the Gram, the kernel rows of training, and of
        ``decision_function`` / ``predict`` / ``score``): None is 1, -1 every core. The
        results are the same for any value.

    Attributes
    ----------
    support_ : int64 array, index in the last training batch of each support vector (-1 for
        support vectors kept from an earlier ``partial_fit``/warm-started ``fit``)
    support_vectors_ : float64 array (n_support, n_features), or `PackedBits` for the
        conjunction kernel; None for "precomputed"
    dual_coef_ : (1, n_support) for two classes, (n_classes, n_support) otherwise: the signed
        mistake counts, each mistake weighted by its example's weight (averaged coefficients
        when ``average=True``)
    intercept_ : (1,) or (n_classes,)
    n_support_ : int
        The number of support vectors.
    classes_, n_features_in_, n_iter_, mistakes_, converged_
        As on `Perceptron`.
    """

    # float64 rows, PackedBits (conjunction) or int64 column indices (precomputed)
    _sv: Any
    # the coefficients and their averaging sums: int64 for the conjunction kernel (exact
    # sums), float64 otherwise
    _alpha: np.ndarray
    _b: np.ndarray
    _u: np.ndarray
    _beta: np.ndarray
    # what prediction and the state depend on: recorded at every training call
    _fit_param_names = (*KERNEL_PARAMS, "average")
    _fit_params: dict[str, Any]  # their values at the last training call

    _parameter_constraints = declared(WeightedKernelClassifier, average=Flag(),
                                      class_weight=ClassWeight())

    def __init__(self, kernel: Any = "rbf", degree: Any = None, gamma: Any = None,
                 coef0: Any = None, fit_intercept: bool = True, max_iter: int = 100,
                 shuffle: bool = True, random_state: Any = None, average: bool = False,
                 warm_start: bool = False, verbose: int = 0,
                 max_gram_bytes: int = 512 * 2**20, class_weight: Any = None,
                 n_jobs: Any = None) -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ skeleton hooks
    def _checked_spec(self) -> KernelSpec:
        return resolve_kernel(self.kernel, self.degree, self.gamma, self.coef0)

    @fill(FIT)
    @trains
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> KernelPerceptron:
        """Train for up to ``max_iter`` epochs; stop after an epoch with no mistake.

        A mistake on example i changes its dual coefficient by ``y_i w_i`` (and b by ``y_i w_i``)
        instead of ``y_i``, ``w_i`` its sample weight times its class's weight; a weight of 0
        removes the example.

        Parameters
        ----------
        {X_fit_kernel}
        {y_labels}
        {sample_weight}
            The conjunction kernel keeps exact integer coefficients and so needs whole-number
            weights.

        {returns_fitted}

        {raises_fit}
        """
        return fit_kernel_model(self, X, y, sample_weight)

    def _init_state(self, Xc: Any, spec: KernelSpec) -> None:
        kind = spec.kind
        rows = 1 if len(self.classes_) == 2 else len(self.classes_)
        dtype = np.int64 if kind == "conjunction" else np.float64
        self._kind = kind
        record_fit_params(self)
        self._sv = empty_support(kind, Xc)
        self._empty_coefficients(rows, dtype)
        self._publish()

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: KernelSpec) -> _DualRun:
        return _DualRun(self, Xc, y_idx, sample_weight, *spec)

    # ------------------------------------------------------------------ prediction, persistence
    def _is_exact(self) -> bool:
        return self._kind == "conjunction"

    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> KernelPerceptron:
        est, kind = cls._restoring(params, arrays)
        est._restore_support_set(arrays, kind, np.int64 if kind == "conjunction" else np.float64)
        if kind == "conjunction":  # the preconditions of the exact sums in C
            check_exact_headroom(est._alpha, est._b, getattr(est, "_u", None),
                                 getattr(est, "_beta", None), getattr(est, "_count", None), 0)
        est._publish()
        return est
