"""`BudgetKernelPerceptron`: the kernel perceptron with at most ``budget`` support vectors.

The kernel perceptron (`KernelPerceptron`) stores every example it ever made a mistake on. On
a long or noisy stream that support set grows without end, and so do the memory and the cost
of every prediction. This model keeps at most ``budget`` of them; ``strategy`` says what a
mistake does once they are all taken (the routines' docstrings in ``_budget_py`` cite the
papers' pseudo-code):

- "random": the Randomized Budget Perceptron [Cavallanti2007]: the
  new example replaces a support vector drawn uniformly at random (from the model's seed and
  the epoch, like the visiting order);
- "oldest": it replaces the oldest support vector;
- "forgetron": the self-tuned Forgetron [Dekel2008]: every
  coefficient shrinks by the paper's schedule, then the oldest support vector goes;
- "stoptron": no more updates once the budget is full (the baseline of Orabona et al.);
- "projectron", "projectron++" [Orabona2009]: an example whose image lies
  within ``eta`` of the span of the support set is projected onto it instead of added;
  "projectron++" also updates on margin errors. The Projectron is not a budget algorithm by
  itself: here, once ``budget`` vectors are stored, every update is projected.

Training streams: each block of visited examples gets its kernel rows against the support
set and the block itself, never against the examples seen before, so an epoch over n
examples costs O(n budget) kernel evaluations and the memory stays O(budget) (O(budget^2)
for the Projectron's inverse Gram) however long the stream. Below the budget it follows the
support set: the slots grow with it (`_BudgetRun`), so a budget of 10^6 costs nothing until
vectors fill it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from ._estimator._training import Run, StateArray
from ._utils._params import Constraint, Flag, Integer, Options, declared
from ._utils._rows import check_finite_state, take_rows
from ._utils._validation import PackedBits
from .kernels import KernelSpec, resolve_kernel
from .kernels._model import (
    KernelClassifier,
    averaging_state,
    coefficient_state,
    empty_support,
    support_vector_state,
)
from .kernels._rows import KERNEL_PARAMS, check_exact_headroom, exponents, record_fit_params

__all__ = ["BudgetKernelPerceptron", "STRATEGIES"]

STRATEGIES = ("random", "stoptron", "oldest", "forgetron", "projectron", "projectron++")
_POLICY = {"stoptron": 0, "random": 1, "oldest": 2, "forgetron": 2}
_BLOCK = 256  # at most this many visited examples share one kernel block
# saved besides the kernel model's state: each vector's insertion stamp, the counters (the
# support size, the next stamp, evictions, projections, all mistakes), the forgetron's q and
# the projectron's inverse Gram of the support set
_BUDGET = (StateArray("stamp", ("n_sv",), np.int64, "none"),
           StateArray("counts", (5,), np.int64, "none"))
_FORGETRON = (StateArray("q", (1,), np.float64, "none"),)
_PROJECTRON = (StateArray("kinv", ("n_sv", "n_sv"), np.float64, "none"),)
_RANDOM_STREAM = 0x62756467  # the eviction draws' stream, apart from the visiting orders'


def _grown(a: np.ndarray, shape: tuple[int, ...], fill: int) -> np.ndarray:
    """``a`` in the corner of a new array of ``shape``, the rest ``fill``."""
    out = np.full(shape, fill, dtype=a.dtype)
    out[tuple(slice(0, k) for k in a.shape)] = a
    return out


def _stack(a: Any, b: Any) -> Any:
    if isinstance(a, PackedBits):
        return PackedBits(np.ascontiguousarray(np.vstack([a.words, b.words])), a.n_bits)
    return np.ascontiguousarray(np.vstack([a, b]))


class _BudgetRun(Run["BudgetKernelPerceptron"]):
    """One training call: the support set in slots, the routine's state, and the map from
    this call's examples to the slots holding them.

    The slots grow with the support set, never to the budget ahead of it: before each block
    they double (or grow to what the block may add) up to ``most``, the budget or the vectors
    held plus this call's examples, whichever is smaller (an example holds one slot at most).
    A routine call whose slots are fewer than the budget has room for every row it may add,
    so it never finds them full and runs exactly as with all ``budget`` slots (``_budget_py``)."""

    def __init__(self, est: BudgetKernelPerceptron, Xc: Any, y_idx: np.ndarray, kind: str,
                 kern: Any) -> None:
        self.est, self.kind, self.kern, self.X = est, kind, kern, Xc
        self.y = np.ascontiguousarray(y_idx, dtype=np.int64)
        self.strategy, self.exact, self.average = est.strategy, est._exact, bool(est.average)
        n = est._alpha.shape[1]
        self.most = min(est.budget, n + self.y.shape[0])
        self.alpha = est._alpha.copy()
        self.b = est._b.copy()
        self.sv = (est._sv.words if kind == "conjunction" else est._sv).copy()
        self.slots = np.full((4, n), -1, dtype=np.int64)
        self.slots[2] = est._stamp
        self.where = np.full(self.y.shape[0], -1, dtype=np.int64)
        self.counts = est._counts.copy()
        self.names = ["alpha", "b", "sv", "slots", "where", "counts"]
        if self.strategy == "forgetron":
            self.q = est._q.copy()
            self.names.append("q")
        if self.strategy.startswith("projectron"):
            self.kinv = est._kinv.copy()
            self.names.append("kinv")
        if self.average:
            self.u, self.beta, self.count = est._u.copy(), est._beta.copy(), est._count.copy()
            self.names += ["u", "beta", "count"]

    @property
    def avg(self) -> tuple:
        """The averaging arguments of the routines (none without ``average``)."""
        return (self.u, self.beta, self.count) if self.average else ()

    @property
    def state(self) -> list[np.ndarray]:
        return [getattr(self, name) for name in self.names]

    def _reserve(self, need: int) -> None:
        """At least ``need`` slots (need <= most): the slotted arrays double, or grow to
        ``need``, capped by ``most``; the new slots are empty, as the routines expect."""
        cap = self.alpha.shape[1]
        if need <= cap:
            return
        cap = min(self.most, max(need, 2 * cap))
        self.alpha = _grown(self.alpha, (self.alpha.shape[0], cap), 0)
        self.sv = _grown(self.sv, (cap, self.sv.shape[1]), 0)
        self.slots = _grown(self.slots, (4, cap), -1)
        if self.strategy.startswith("projectron"):
            self.kinv = _grown(self.kinv, (cap, cap), 0)
        if self.average:
            self.u = _grown(self.u, (self.u.shape[0], cap), 0)

    def checkpoint(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name).copy() for name in self.names}

    def rollback(self, saved: dict[str, np.ndarray]) -> None:
        for name, a in saved.items():  # the slots may have grown since: the arrays go back
            setattr(self, name, a)

    def _rows(self, data: Any) -> Any:
        return PackedBits(data, self.X.n_bits) if self.kind == "conjunction" else data

    def _kernel(self, query: Any, universe: Any) -> np.ndarray:
        """K(query, universe): float64, or int32 exponents for the exact routine. A value
        beyond float64 is left to the routine, which stops on the activation it spoils."""
        if self.kind != "conjunction":
            with np.errstate(over="ignore", invalid="ignore"):
                return np.ascontiguousarray(self.kern(query, universe), dtype=np.float64)
        E = exponents(query, universe, dtype=np.int32)
        if self.exact:
            return E
        if E.size and E.max() > 1023:
            raise OverflowError("the conjunction kernel 2^popcount(a AND b) exceeds float64 "
                                "(1024 common bits or more); the Forgetron and the Projectron "
                                "compute in float64 (the other strategies are exact)")
        return np.ldexp(1.0, E)

    def _block_size(self, n_visit: int) -> int:
        B, item = self.most, 4 if self.exact else 8  # most: the K block's widest universe
        m = max(1, min(n_visit, max(32, min(B, _BLOCK))))
        extra = self.strategy == "forgetron"
        while m > 1 and (m + extra * m) * (B + m) * item > self.est.max_gram_bytes:
            m //= 2
        return m

    def _block(self, rows: np.ndarray, rand: np.ndarray | None) -> int:
        """One routine call over the examples ``rows``; then the slots that took one of them
        copy its row."""
        m, n0, fi = rows.shape[0], int(self.counts[0]), self.est.fit_intercept
        self._reserve(min(self.most, n0 + m))
        if rand is not None and self.alpha.shape[1] < self.est.budget:
            rand = np.zeros(m, dtype=np.int64)  # used only on full slots, which these cannot be
        block = take_rows(self.X, rows)
        old = np.zeros(0, dtype=np.int64)
        if self.strategy == "forgetron":  # the slots that a removal may reach, oldest first
            old = np.argsort(self.slots[2, :n0], kind="stable")[:min(m, n0)]
        query = _stack(block, self._rows(self.sv[old])) if old.size else block
        K = self._kernel(query, _stack(self._rows(self.sv[:n0]), block))
        self.slots[0, :n0] = np.arange(n0)
        self.slots[1, :] = -1
        self.slots[1, old] = m + np.arange(old.shape[0])
        args = (K, rows, self.y, self.alpha, self.b, self.slots, self.where, self.counts)
        budget = _backend.budget
        if self.exact:
            mistakes = budget.budget_epoch_exact(*args, fi, _POLICY[self.strategy], rand,
                                                 *self.avg)
        elif self.strategy.startswith("projectron"):
            mistakes = budget.projectron_epoch(*args, self.kinv, float(self.est.eta),
                                               self.strategy == "projectron++", fi, *self.avg)
        else:
            shrink = self.q if self.strategy == "forgetron" else None
            mistakes = budget.budget_epoch(*args, fi, _POLICY[self.strategy], rand, shrink,
                                           *self.avg)
        n = int(self.counts[0])
        new = np.flatnonzero(self.slots[0, :n] >= n0)
        data = block.words if self.kind == "conjunction" else block
        self.sv[new] = data[self.slots[0, new] - n0]
        return int(mistakes)

    def epoch(self, order: np.ndarray | None) -> int:
        assert order is not None  # the skeleton's visiting order (the run has no own order)
        est, n = self.est, order.shape[0]
        if self.exact:  # never start an epoch the exact sums cannot hold
            u, beta, count = self.avg if self.avg else (None, None, None)
            check_exact_headroom(self.alpha, self.b, u, beta, count, n)
        rand: np.ndarray | None = None
        if self.strategy == "random":
            rng = np.random.default_rng([est._seed, est._epochs_seen, _RANDOM_STREAM])
            rand = np.asarray(rng.integers(0, est.budget, size=n, dtype=np.int64))
        mistakes, step = 0, self._block_size(n)
        for start in range(0, n, step):
            rows = np.ascontiguousarray(order[start:start + step])
            mistakes += self._block(rows, None if rand is None else rand[start:start + step])
        check_finite_state(*self.state)
        return mistakes

    def predict_idx(self, X: Any) -> np.ndarray:  # pragma: no cover - no early stopping here
        raise NotImplementedError

    def finish(self, credit_epochs: int) -> None:
        est, n = self.est, int(self.counts[0])
        est._alpha = np.ascontiguousarray(self.alpha[:, :n])
        est._b = self.b
        words = np.ascontiguousarray(self.sv[:n])
        est._sv = PackedBits(words, self.X.n_bits) if self.kind == "conjunction" else words
        est._stamp = self.slots[2, :n].copy()
        est._counts = self.counts
        est.support_ = self.slots[3, :n].copy()
        if self.strategy == "forgetron":
            est._q = self.q
        if self.strategy.startswith("projectron"):
            est._kinv = np.ascontiguousarray(self.kinv[:n, :n])
        if self.avg:
            est._u = np.ascontiguousarray(self.avg[0][:, :n])
            est._beta, est._count = self.avg[1], self.avg[2]


class _Eta(Constraint):
    """A finite number >= 0."""

    bad = (-1.0, float("inf"), "1")

    def check(self, value: Any, name: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or \
                not np.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


class BudgetKernelPerceptron(KernelClassifier):
    """The kernel perceptron on a budget, plain or averaged, binary or K-class (argmax).

    A fitted model predicts with the ``kernel``, ``degree``, ``gamma``, ``coef0`` and
    ``average`` it was trained with (they are saved with it, with ``fit_intercept``,
    ``strategy`` and ``budget``); ``set_params`` changes the next ``fit``. ``partial_fit``
    and a warm-started ``fit`` continue the state only with the kernel parameters,
    ``fit_intercept``, ``strategy`` and ``average`` unchanged (a ValueError names the one
    that changed); ``budget`` may grow (not below the support vectors held), and ``eta``
    takes effect on the call that follows.

    Parameters
    ----------
    budget : int, default=100
        The most support vectors the model stores. Memory follows the vectors stored, not
        the budget: a budget far above them costs nothing.
    strategy : {"random", "stoptron", "oldest", "forgetron", "projectron", "projectron++"}, \
default="random"
        What a mistake does once ``budget`` vectors are stored: "random" (replace one drawn
        uniformly), "oldest" (replace the oldest), "forgetron" (shrink every coefficient by
        the Forgetron's schedule, then replace the oldest), "stoptron" (no update),
        "projectron" or "projectron++" (project the update on the support set; before the
        budget is full, only examples within ``eta`` of its span are projected).
    eta : float, default=0.1
        The Projectron's threshold on the distance (in the kernel's feature space) between an
        example and the span of the support set; 0 projects only examples in the span (the
        rule is then the kernel perceptron's until the budget is full). Other strategies
        ignore it.
    kernel : str, Kernel or callable, default="rbf"
        As in `KernelPerceptron`, except "precomputed" (the kernel between stored vectors and
        new rows must be computable). "conjunction" is exact (integer sums at any bit count)
        with "random", "oldest" and "stoptron"; the Forgetron's and the Projectron's
        coefficients are floats, and so are their kernel values 2^popcount (an overflow error
        from 1024 common bits on).
    degree, gamma, coef0 : kernel parameters, as in `KernelPerceptron`.
    fit_intercept : bool, default=False
        Learn b as the coefficient of a constant feature, i.e. run every rule on the kernel
        K + 1 (`KernelPerceptron`'s b += y on a mistake is exactly that): b is the sum of the
        stored coefficients, so a removed vector takes its share of b with it and the
        Forgetron shrinks b too. Off by default, as in the papers: on long noisy streams a
        small budget does better without it (docs/budget.md).
    max_iter : int, default=100
        Maximum number of epochs; training stops earlier after an epoch with no mistake.
    shuffle, random_state : as in `KernelPerceptron`; the seed also draws the evictions of
        "random" (one draw per visited example, from the seed and the epoch).
    average : bool, default=False
        Averaged coefficients ([Daume2017] Alg. 7) of the stored support vectors:
        `KernelPerceptron`'s averaged model exactly as long as nothing was removed. A removed
        vector takes its share of the average with it, so with "random", "oldest" and
        "forgetron" each stored vector counts by how long it has been stored; averaging
        suits "stoptron" and the Projectron, which never remove.
    warm_start : bool, default=False
        ``fit`` keeps the support vectors and continues (same strategy, same kernel).
    verbose : int, default=0
        One progress line per epoch on stderr.
    max_gram_bytes : int, default=512 MiB
        Memory for one block of kernel rows (at most 256 visited examples a block).
    n_jobs : int or None, default=None
        Threads for ``decision_function`` / ``predict`` / ``score`` (scikit-learn's meaning:
        None is 1, -1 every core): the rows to predict go through in blocks, as many at once
        as ``max_gram_bytes`` holds. Training is one sequential stream. The result is the
        same for any ``n_jobs``.

    Attributes
    ----------
    support_vectors_ : float64 (n_support, n_features), or `PackedBits` (conjunction)
    support_ : int64, index in the last training batch of each support vector (-1 for one
        kept from an earlier call)
    dual_coef_ : (1, n_support) for two classes, (n_classes, n_support) otherwise
    intercept_ : (1,) or (n_classes,)
    n_support_ : int, at most ``budget``
    n_evicted_ : int, support vectors removed to make room (random, oldest, forgetron), or
        mistakes not stored because the budget was full (stoptron)
    n_projected_ : int, updates made by projection (projectron, projectron++)
    classes_, n_features_in_, n_iter_, mistakes_, converged_ : as on `KernelPerceptron`.
    """

    _sv: Any
    # what prediction and the state depend on: recorded at every training call
    _fit_param_names = (*KERNEL_PARAMS, "fit_intercept", "average", "strategy", "budget")
    _fit_params: dict[str, Any]  # their values at the last training call
    _fixed_params = _fit_param_names[:-1]  # a continuing call may raise the budget

    _parameter_constraints = declared(KernelClassifier, average=Flag(), budget=Integer(1),
                                      strategy=Options(STRATEGIES), eta=_Eta())

    # parameters of this class only: stored by _keep_params, declared for mypy
    budget: int
    strategy: str
    eta: float

    def __init__(self, budget: int = 100, strategy: str = "random", eta: float = 0.1,
                 kernel: Any = "rbf", degree: Any = None, gamma: Any = None, coef0: Any = None,
                 fit_intercept: bool = False, max_iter: int = 100, shuffle: bool = True,
                 random_state: Any = None, average: bool = False, warm_start: bool = False,
                 verbose: int = 0, max_gram_bytes: int = 512 * 2**20,
                 n_jobs: Any = None) -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ skeleton hooks
    def _checked_spec(self) -> KernelSpec:
        spec = resolve_kernel(self.kernel, self.degree, self.gamma, self.coef0)
        if spec.kind == "precomputed":
            raise ValueError("BudgetKernelPerceptron: kernel='precomputed' is not available "
                             "(the kernel between stored vectors and new rows is needed)")
        return spec

    def _check_growth(self) -> None:
        if self.budget < self._alpha.shape[1]:
            raise ValueError(f"budget={self.budget} is below the {self._alpha.shape[1]} "
                             "support vectors the model holds")

    def _init_state(self, Xc: Any, spec: KernelSpec) -> None:
        kind = spec.kind
        rows = 1 if len(self.classes_) == 2 else len(self.classes_)
        self._kind, self._strategy = kind, self.strategy
        record_fit_params(self)
        self._exact = kind == "conjunction" and self.strategy in ("random", "oldest", "stoptron")
        dtype = np.int64 if self._exact else np.float64
        self._sv = empty_support(kind, Xc)  # never "precomputed" (_checked_spec)
        self._empty_coefficients(rows, dtype)
        self._stamp = np.zeros(0, dtype=np.int64)
        self._counts = np.zeros(5, dtype=np.int64)
        self._q = np.zeros(1)
        self._kinv = np.zeros((0, 0))
        self._publish()

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: KernelSpec) -> _BudgetRun:
        return _BudgetRun(self, Xc, y_idx, *spec)

    def _publish(self) -> None:
        super()._publish()
        self.n_evicted_ = int(self._counts[2])
        self.n_projected_ = int(self._counts[3])

    # ------------------------------------------------------------------ prediction
    def _is_exact(self) -> bool:
        return self._exact

    # ------------------------------------------------------------------ persistence
    def _declared_state(self, kind: str, dtype: Any, average: bool) -> tuple[StateArray, ...]:
        """The kernel model's state with, after the coefficients, the vectors' insertion
        stamps and the counters, and after the vectors what the strategy keeps (forgetron:
        its q; projectron: the inverse Gram of the support set)."""
        strategy = self._strategy
        own = (*(_FORGETRON if strategy == "forgetron" else ()),
               *(_PROJECTRON if strategy.startswith("projectron") else ()))
        return (*coefficient_state(dtype), *_BUDGET, support_vector_state(kind), *own,
                *averaging_state(dtype, average))

    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> BudgetKernelPerceptron:
        est, kind = cls._restoring(params, arrays)
        strategy, budget = est._fit_params["strategy"], est._fit_params["budget"]
        est._strategy = strategy
        est._exact = kind == "conjunction" and strategy in ("random", "oldest", "stoptron")
        est._q, est._kinv = np.zeros(1), np.zeros((0, 0))  # unless the strategy keeps them
        est._restore_support_set(arrays, kind, np.int64 if est._exact else np.float64)
        n_sv = est._alpha.shape[1]
        if n_sv > budget:
            raise ValueError(f"model file: {n_sv} support vectors exceed budget={budget}")
        est._check_budget_state(n_sv)
        est._publish()
        return est

    def _check_budget_state(self, n_sv: int) -> None:
        """The rules between the values only this model saves."""
        if self._counts.min() < 0 or self._counts[0] != n_sv:
            raise ValueError("model file: counts must be >= 0, counts[0] the support size")
        if n_sv and (self._stamp.min() < 0 or self._stamp.max() >= self._counts[1]
                     or np.unique(self._stamp).shape[0] != n_sv):
            raise ValueError("model file: stamp must hold distinct values in [0, counts[1])")
        if self._exact:  # the preconditions of the exact sums in C
            check_exact_headroom(self._alpha, self._b, getattr(self, "_u", None),
                                 getattr(self, "_beta", None), getattr(self, "_count", None), 0)
