"""`KernelPassiveAggressiveClassifier`: the passive-aggressive classifier with any kernel.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online Passive-Aggressive Algorithms",
JMLR 7 (2006) 551-585, run in the dual form their algorithms allow: one coefficient per
training example and f(x) = sum_i alpha_i K(x_i, x) + b. On an example with hinge loss
l = max(0, 1 - y f(x)) > 0 the coefficient of that example grows by tau y (a repeated example
adds to its coefficient): tau = l / K(x, x) (PA, ``C=inf``), min(C, l / K(x, x)) (PA-I,
``loss="hinge"``) or l / (K(x, x) + 1 / (2C)) (PA-II, ``loss="squared_hinge"``), the paper's
Fig. 1 with the kernel in place of ||x||^2. With ``fit_intercept`` b is the coefficient of a
constant feature: the kernel is K + 1 (K(x, x) + 1 in tau, b = sum_i alpha_i). For K classes,
the paper's multiclass update: the wrong label r of the highest score competes, the loss is
max(0, 1 - (f_y(x) - f_r(x))), row y gains tau phi(x) and row r loses it, and K(x, x) counts
twice in tau (the update's squared norm). The epochs are ``_kpa_py`` / ``_kpa_c``.

Training visits the pool (the support vectors kept from earlier calls, then the new rows)
like `KernelPerceptron`: with the pool's Gram cached when it fits ``max_gram_bytes``, block
by block otherwise (the same steps, summed in another order: equal up to rounding). The
conjunction kernel 2^popcount(a AND b) is exact at any bit count: its coefficients are kept
as float64 times 2^-popcount(x_i) and every activation is an exact sum, so margins, decisions
and argmaxes are exact for the float64 coefficients the model holds (``_kpa_py`` says how).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from ._estimator._base import STOPPING, labels_of
from ._estimator._training import Run, _Stopping, epoch_order
from ._utils._docs import FIT, fill
from ._utils._params import ClassWeight, Flag, Options, Real, declared, expand_class_weight
from ._utils._rows import all_finite, check_finite_decisions, check_finite_state, pool_of, take_rows
from ._utils._threads import trains
from ._utils._validation import PackedBits
from .kernels import KernelSpec, resolve_kernel
from .kernels._model import (
    PredictTables,
    WeightedKernelClassifier,
    empty_support,
    fit_kernel_model,
    float_rows,
)
from .kernels._rows import (
    KERNEL_PARAMS,
    KernelSource,
    cached_scores,
    fit_params,
    fitted_kernel,
    record_fit_params,
    row_blocks_run,
)

__all__ = ["KernelPassiveAggressiveClassifier"]

_CONJ = "conjunction"


def _popcounts(P: PackedBits) -> np.ndarray:
    """popcount of every packed row, int32 (the conjunction kernel's K(x, x) = 2^popcount)."""
    if P.words.shape[0] == 0:
        return np.zeros(0, dtype=np.int32)
    as_bytes = np.ascontiguousarray(P.words).astype("<u8", copy=False).view(np.uint8)
    return np.unpackbits(as_bytes, axis=1).sum(axis=1, dtype=np.int64).astype(np.int32)


class _KPARun(Run["KernelPassiveAggressiveClassifier"]):
    """One training call: the pool, padded coefficients, the kernel rows, the step weights;
    the run draws its own visiting orders (the skeleton's) to report the epoch's loss."""


    def __init__(self, est: KernelPassiveAggressiveClassifier, Xc: Any, y_idx: np.ndarray,
                 sample_weight: np.ndarray | None, kind: str, kern: Any) -> None:
        self.est, self.kind = est, kind
        self.n_old = est._alpha.shape[1]
        self.n_new = Xc.shape[0]
        self.pool = pool_of(est._sv, Xc, kind)
        self.work = est._pool_state(self.n_new)  # what an epoch changes, but the cache
        self.alpha, self.b = self.work["alpha"], self.work["b"]
        self.avg: tuple = ()
        if est._u is not None:  # (u, beta, count)
            self.avg = tuple(self.work[k] for k in ("u", "beta", "count"))
        # labels over the whole pool; old support vectors are never visited again
        self.y = np.ascontiguousarray(np.concatenate([np.zeros(self.n_old, np.int64),
                                                      y_idx]), dtype=np.int64)
        cw = expand_class_weight(est.class_weight, est.classes_, y_idx)
        w = cw[y_idx] if sample_weight is None else cw[y_idx] * sample_weight
        self.weight = None if np.all(w == 1.0) else np.ascontiguousarray(
            np.concatenate([np.zeros(self.n_old), w]))
        # a row of weight 0 is a row removed: never visited (no step, no loss, no average)
        self.keep = None if sample_weight is None or np.all(sample_weight != 0) \
            else sample_weight != 0
        # int32 exponents: the kernel PA routines read no other type
        self.source = KernelSource(kern, kind, self.pool, est.max_gram_bytes, None, np.int32)
        self.cached = self.source.cached and kind != _CONJ
        if self.cached:
            G = self.source.full
            assert G is not None  # cached: KernelSource computed the whole pool Gram
            self.scores = cached_scores(self.alpha, G) if self.n_old \
                else np.zeros(self.alpha.shape)
        self.ediag = _popcounts(self.pool) if kind == _CONJ else np.zeros(0, np.int32)
        self.stopping = _Stopping(est, False)
        self.last = (0, 0.0, 0)  # the last epoch's steps, sum of losses, examples visited

    def arrays(self) -> list[np.ndarray]:
        return [*self.work.values(), *([self.scores] if self.cached else [])]

    def order(self) -> np.ndarray:
        """The new rows in the estimator's order for this epoch, less those of weight 0."""
        est = self.est
        order = epoch_order(est._seed, est._epochs_seen, self.n_new, est.shuffle)
        return order if self.keep is None else order[self.keep[order]]

    def epoch(self, order: np.ndarray) -> int:
        visit = np.ascontiguousarray(self.n_old + order, dtype=np.int64)
        loss = np.zeros(1)
        steps = self._run(visit, loss)
        check_finite_state(*self.arrays())
        self.last = (steps, float(loss[0]), visit.shape[0])
        return steps

    def _run(self, visit: np.ndarray, loss: np.ndarray) -> int:
        kpa, est = _backend.kpa, self.est
        C, squared, fi = est._step_params()
        u, beta, count = self.avg if self.avg else (None, None, None)
        if self.cached:
            G = self.source.full
            assert G is not None  # cached: KernelSource computed the whole pool Gram
            return int(kpa.kpa_epoch_cached(G, self.y, visit, self.weight,
                                            self.alpha, self.b, self.scores, C, squared, fi,
                                            u, beta, count, loss))
        steps, start, n = 0, 0, visit.shape[0]
        while start < n:  # blocks of rows against the whole pool
            block = self.source.block_rows(self.source.n, n - start)
            rows = np.ascontiguousarray(visit[start:start + block])
            start += block
            K = self.source.rows(rows, None, None)
            if self.kind == _CONJ:
                steps += kpa.kpa_conjunction_epoch_rows(K, rows, self.ediag, self.y,
                                                        self.weight, self.alpha, C, squared,
                                                        fi, u, count, loss)
            else:
                steps += kpa.kpa_epoch_rows(K, rows, self.y, self.weight, self.alpha, self.b,
                                            C, squared, fi, u, beta, count, loss)
        return int(steps)

    def after_epoch(self, mistakes: int, val: tuple | None) -> tuple[bool, str]:
        """Stop after an epoch without a step (nothing could change after it), else by the
        rule of ``tol`` (None: the textbook's, with early stopping on the validation score)."""
        steps, total, visited = self.last
        if steps == 0:
            return True, ""
        score = None if val is None else self.validation_score(val)
        return self.stopping.after_epoch(steps, total / max(visited, 1), score)

    def predict_idx(self, X: Any) -> np.ndarray:
        """Class indices of canonical rows under the current (plain) coefficients."""
        return self.est._decide(X, self.pool, self.alpha, self.b, self.ediag, labels=True)

    def finish(self, credit_epochs: int) -> None:
        """Keep the examples that carry weight: a nonzero coefficient or averaging sum."""
        est = self.est
        keep = np.any(self.alpha != 0, axis=0)
        if self.avg:
            keep |= np.any(self.avg[0] != 0, axis=0)
        idx = np.flatnonzero(keep)
        est._sv = idx.astype(np.int64) if self.kind == "precomputed" \
            else take_rows(self.pool, idx)
        est._alpha = np.ascontiguousarray(self.alpha[:, idx])
        est._b = self.b
        est._ediag = np.ascontiguousarray(self.ediag[idx]) if self.kind == _CONJ \
            else np.zeros(0, np.int32)
        if self.avg:
            est._u = np.ascontiguousarray(self.avg[0][:, idx])
            est._beta, est._count = self.avg[1], self.avg[2]
        est.support_ = np.where(idx < self.n_old, -1, idx - self.n_old).astype(np.int64)


class KernelPassiveAggressiveClassifier(WeightedKernelClassifier):
    """The passive-aggressive classifier in dual form, with any kernel; binary or K-class.

    Parameters are keyword-only; where `PassiveAggressiveClassifier` (scikit-learn's) has the
    same parameter, it has the same meaning.

    A fitted model predicts with the ``kernel``, ``degree``, ``gamma``, ``coef0``,
    ``fit_intercept`` and ``average`` it was trained with (they are saved with it);
    ``set_params`` changes the next ``fit``. ``partial_fit`` and a warm-started ``fit``
    continue the state only with those parameters unchanged (a ValueError names the one that
    changed); ``C``, ``loss``, ``class_weight`` and the stopping parameters take effect on
    the call that follows.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the largest step tau (PA-I) or the weight of the squared slack
        (PA-II). ``C=float("inf")`` is the plain PA of the paper (tau = l / K(x, x)), with
        either ``loss``.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        PA-I or PA-II (the hinge loss is the loss either way; "squared_hinge" names the
        squared slack of PA-II, as in scikit-learn).
    kernel : str, Kernel or callable, default="rbf"
        As in `KernelPerceptron`: "linear", "poly", "rbf", "conjunction" (exact, 0/1 rows,
        packed or not), "precomputed" ((n, n) Gram at fit, (m, n_train) at predict), a
        `perceptron_c.kernels` object (sums, products, scalings) or a callable.
    degree, gamma, coef0 : as in `KernelPerceptron`: the parameters of the kernel names "poly"
        and "rbf".
    fit_intercept : bool, default=True
        Learn b as the coefficient of a constant feature: the kernel is K + 1 (tau uses
        K(x, x) + 1) and b is the sum of the coefficients. scikit-learn's linear PA does not
        count the intercept in ||x||^2; with ``fit_intercept=False`` and the linear kernel this
        model's w = sum_i alpha_i x_i is that of `PassiveAggressiveClassifier` with
        ``fit_intercept=False`` (up to rounding).
    max_iter : int, default=1000
        The most epochs ``fit`` runs (a ``ConvergenceWarning`` when they all ran with ``tol``
        set, as scikit-learn's PA warns).
    tol : float or None, default=1e-3
        scikit-learn's PA rule and default: stop when the epoch's mean hinge loss (or, with
        ``early_stopping``, the validation accuracy) has not improved by ``tol`` for
        ``n_iter_no_change`` epochs. None: the textbook's rule, stop after an epoch in which
        no example suffered a loss (or on the validation accuracy with ``early_stopping``).
        Either way training stops after an epoch without a step: nothing could change after
        it. The loss of a PA decays geometrically but seldom reaches 0 exactly (every margin
        at least 1), even on separable data, so with ``tol=None`` ``max_iter`` usually
        decides: that is why the default is scikit-learn's.
    early_stopping, validation_fraction, n_iter_no_change : as in `Perceptron` (not with
        ``kernel="precomputed"``).
    shuffle, random_state, verbose : as in `KernelPerceptron`.
    warm_start : bool, default=False
        ``fit`` keeps the support vectors and coefficients and continues.
    class_weight : dict, "balanced" or None, default=None
        Steps on class c's examples are multiplied by class_weight[c].
    average : bool, default=False
        Return the average of the dual coefficients over every example visited ([Daume2017]
        Alg. 7, computed lazily).
    max_gram_bytes : int, default=512 MiB
        As in `KernelPerceptron`: a training Gram that fits is cached, otherwise kernel rows
        are computed block by block.
    n_jobs : int or None, default=None
        Threads for ``decision_function`` / ``predict`` / ``score`` and the validation
        score of early stopping (scikit-learn's meaning: None is 1, -1 every core); the
        epochs themselves are sequential. The result is the same for any ``n_jobs``.

    Attributes
    ----------
    support_vectors_, support_, n_support_ : as on `KernelPerceptron`.
    dual_coef_ : (1, n_support) for two classes, (n_classes, n_support) otherwise (averaged
        with ``average=True``). For the conjunction kernel the float64 nearest to each
        coefficient (they may lie below float64's range: the model keeps them exactly).
    intercept_ : (1,) or (n_classes,); the sum of the coefficients with ``fit_intercept``.
    classes_, n_features_in_, n_iter_, converged_ : as on `KernelPerceptron`.
    mistakes_ : int64, the steps taken in each epoch (the examples with a nonzero loss).
    """

    _has_early_stopping = True
    # what prediction and the state depend on: recorded at every training call
    _fit_param_names = (*KERNEL_PARAMS, "fit_intercept", "average")
    _fit_params: dict[str, Any]  # their values at the last training call
    _sv: Any
    _u: np.ndarray | None
    _beta: np.ndarray | None
    _count: np.ndarray | None

    _parameter_constraints = declared(
        WeightedKernelClassifier, **STOPPING, C=Real(0.0, low_open=True),
        loss=Options(("hinge", "squared_hinge")), average=Flag(), class_weight=ClassWeight())

    # parameters of this class only: stored by _keep_params, declared for mypy
    C: float
    loss: str
    tol: float | None

    def __init__(self, *, C: float = 1.0, loss: str = "hinge", kernel: Any = "rbf",
                 degree: Any = None, gamma: Any = None, coef0: Any = None,
                 fit_intercept: bool = True, max_iter: int = 1000, tol: float | None = 1e-3,
                 early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5, shuffle: bool = True, verbose: int = 0,
                 random_state: Any = None, warm_start: bool = False, class_weight: Any = None,
                 average: bool = False, max_gram_bytes: int = 512 * 2**20,
                 n_jobs: Any = None) -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ skeleton hooks
    def _checked_spec(self) -> KernelSpec:
        spec = resolve_kernel(self.kernel, self.degree, self.gamma, self.coef0)
        if spec.kind == "precomputed" and self.early_stopping:
            raise ValueError("early_stopping is not available with kernel='precomputed' (the "
                             "validation rows' kernel with the training rows is not given)")
        return spec

    def _step_params(self) -> tuple[float, bool, bool]:
        """(C, PA-II?, fit_intercept) for the routines; C=inf is the plain PA."""
        C = float(self.C)
        return C, self.loss == "squared_hinge" and C < np.inf, bool(self.fit_intercept)

    def _sklearn_stopping(self) -> bool:
        return self.tol is not None

    def _init_state(self, Xc: Any, spec: KernelSpec) -> None:
        kind = spec.kind
        rows = 1 if len(self.classes_) == 2 else len(self.classes_)
        self._kind = kind
        record_fit_params(self)
        self._sv = empty_support(kind, Xc)
        self._empty_coefficients(rows, np.float64)
        if not self.average:  # this model's runs test the sums for None
            self._u = self._beta = self._count = None
        self._ediag = np.zeros(0, dtype=np.int32)
        self._publish()

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: KernelSpec) -> _KPARun:
        return _KPARun(self, Xc, y_idx, sample_weight, *spec)

    def _coefs(self) -> tuple[np.ndarray, np.ndarray]:
        """The coefficients and intercepts that predict (averaged: alpha - u / c)."""
        if self._u is None:
            return self._alpha, self._b
        assert self._beta is not None and self._count is not None
        c = float(self._count[0])
        return np.ascontiguousarray(self._alpha - self._u / c), self._b - self._beta / c

    def _fitted_intercept(self) -> bool:
        """Whether the model was trained with ``fit_intercept``."""
        return bool(fit_params(self)["fit_intercept"])

    def _publish(self) -> None:
        coef, b = self._coefs()
        if self._kind == _CONJ:  # alpha = coef * 2^-popcount(sv); b = sum(alpha), exactly
            self.dual_coef_ = np.ldexp(coef, -self._ediag.astype(np.int64))
            out = np.zeros((1, coef.shape[0]))
            if self._fitted_intercept() and coef.shape[1]:
                _backend.kpa.kpa_conjunction_decision(
                    np.zeros((1, coef.shape[1]), np.int32), self._ediag, coef, False, out)
            self.intercept_ = out[0]
        else:
            self.dual_coef_, self.intercept_ = coef.copy(), b.copy()
        self.n_support_ = int(self._alpha.shape[1])
        self.support_vectors_ = None if self._kind == "precomputed" else self._sv
        self._prepare_tables()

    def _table_sources(self) -> tuple:
        d = self.__dict__
        return (d.get("_fit_params"), self._sv, self._alpha, self._b, d.get("_u"),
                d.get("_beta"), d.get("_count"), self._ediag)

    def _prepare_tables(self) -> PredictTables:
        """The tables of `KernelClassifier`, with the coefficients that predict (`_coefs`)."""
        kind, kern = fitted_kernel(self)
        tables = PredictTables(self._table_sources(), kind, kern, self._sv)
        coef, tables.bias = self._coefs()
        tables.coef = np.ascontiguousarray(coef)
        if kind == _CONJ:
            _backend.kpa.kpa_conjunction_decision  # noqa: B018 (loaded now, not at a call)
        else:
            _backend.linear.decision_dense  # noqa: B018 (loaded now, not at a call)
        self._predict_tables = tables
        return tables

    @fill(FIT)
    @trains
    def fit(self, X: Any, y: Any,
            sample_weight: Any = None) -> KernelPassiveAggressiveClassifier:
        """Train for up to ``max_iter`` epochs (from the current model with ``warm_start``).

        Each step is multiplied by the example's ``sample_weight`` and class weight.

        Parameters
        ----------
        {X_fit_kernel}
        {y_labels}
        {sample_weight}

        {fit_ends}
        """
        return fit_kernel_model(self, X, y, sample_weight)

    # ------------------------------------------------------------------ prediction
    def _decide(self, Xc: Any, sv: Any, coef: np.ndarray, b: np.ndarray, ediag: np.ndarray,
                labels: bool, tables: PredictTables | None = None) -> np.ndarray:
        """Scores (m, R), or class indices with ``labels``, of canonical rows Xc under the
        coefficients ``coef`` of the rows ``sv`` (exactly decided for the conjunction), with
        the kernel the model was trained with (the model's tables, when given: its own
        support vectors, with their norms)."""
        kind, kern = fitted_kernel(self) if tables is None else (tables.kind, tables.kern)
        sv_norms = None if tables is None else tables.sv_norms
        fit_intercept = self._fitted_intercept()
        m, R = Xc.shape[0], coef.shape[0]
        out = np.zeros((m, R))
        idx = np.zeros(m, dtype=np.int64)
        if kind == _CONJ:
            kpa = _backend.kpa
            fn = kpa.kpa_conjunction_predict if labels else kpa.kpa_conjunction_decision

            def exact(s: int, e: int, E: np.ndarray) -> None:
                fn(np.ascontiguousarray(E, dtype=np.int32), ediag, coef, fit_intercept,
                   idx[s:e] if labels else out[s:e])
            row_blocks_run(kern, kind, Xc, sv, self.max_gram_bytes, self.n_jobs, exact)
        else:
            lin = _backend.linear  # as KernelPerceptron's decision: 4-lane sums, no BLAS
            coef = np.ascontiguousarray(coef, dtype=np.float64)
            bias = np.ascontiguousarray(b, dtype=np.float64)

            def decide(s: int, e: int, K: np.ndarray) -> None:
                lin.decision_dense(K, coef, bias, out[s:e])
            columns = None if kind != "precomputed" else \
                (lambda rows, cols: np.ascontiguousarray(rows[:, cols], dtype=np.float64))
            row_blocks_run(kern, kind, Xc, sv, self.max_gram_bytes, self.n_jobs, decide,
                           columns, sv_norms)
        if kind == _CONJ:
            return idx if labels else out
        if not all_finite(out):
            check_finite_decisions(out, self)
        if not labels:
            return out
        return labels_of(out)

    def _predicted(self, X: Any, labels: bool) -> np.ndarray:
        self._check_fitted()
        self._validate_params("max_gram_bytes", "n_jobs")
        t = self._tables()  # the kernel it was trained with, never the parameters set since
        Xc = float_rows(self, X, t.kind, t.kern)
        return self._decide(Xc, t.sv, t.coef, t.bias, self._ediag, labels, t)

    def _scores(self, X: Any) -> np.ndarray:
        return self._predicted(X, labels=False)

    def _predict_labels(self, X: Any) -> np.ndarray:
        return self._predicted(X, labels=True)

    # ------------------------------------------------------------------ persistence
    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> KernelPassiveAggressiveClassifier:
        est, kind = cls._restoring(params, arrays)
        est._u = est._beta = est._count = None  # unless trained with average
        est._restore_support_set(arrays, kind, np.float64)
        est._ediag = _popcounts(est._sv) if kind == _CONJ else np.zeros(0, dtype=np.int32)
        if kind == _CONJ and np.any(est._b != 0):
            raise ValueError("model file: b must be 0 with the conjunction kernel")
        est._publish()
        return est
