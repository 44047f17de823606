"""Training in scikit-learn's arithmetic: the `Run` of `Perceptron` with ``tol`` or ``penalty``
set, and of the passive-aggressive estimators.

One run holds one binary machine (two classes, or a regressor) or one per class (one-vs-rest),
each trained as scikit-learn's ``fit_binary`` / ``_fit_regressor`` trains it: its own seed
drawn from ``random_state`` in scikit-learn's order, its own visiting order (scikit-learn's
Fisher-Yates shuffle with its xorshift generator, applied again to the previous order every
epoch), its own stopping rule (``tol`` on the epoch's mean objective or on the validation
score, ``n_iter_no_change``), stopped machines sitting out the epochs the others still run.
The epochs are the `_sgd_py` / `_sgd_c` routines.

The linear models' state (``est._state``), the textbook's `Perceptron`'s included, is
declared and published here (`sgd_state`, `publish_sgd`), and started from ``coef_init`` /
``intercept_init`` (`initial_weights`, `set_initial`): "w" and "b" the plain weights and
intercepts, "aw" and "ab" the averaged ones when averaging, "t" scikit-learn's ``t_`` (one
float). Between the epochs of one call the weights are kept as scikit-learn keeps them
(scaled by a factor per machine); `finish` folds the scale in, as the end of ``_plain_sgd``
does.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .. import _backend
from .._utils._rows import check_finite_state
from .._utils._threads import run_parallel
from .._utils._validation import CSR
from ._base import Run, _Stopping, r2_score
from ._linear_model import decision
from ._training import StateArray, draw_seed, new_state, restore_state

__all__ = ["SGDSpec", "SGDRun", "machines_after_epoch", "sgd_seed", "sklearn_seeds", "sgd_state",
           "check_sgd_counter", "init_sgd_state", "publish_sgd", "classifier_run",
           "regressor_run", "restore_sgd_state",
           "warm_restart", "initial_weights", "set_initial"]


MAX_INT = 2**31 - 1


@dataclass(frozen=True)
class SGDSpec:
    """What the routines need besides the data: the constants of `_sgd_py`."""

    loss: int
    learning_rate: int
    penalty: int
    alpha: float
    l1_ratio: float
    eta0: float
    epsilon_or_threshold: float
    average_start: int  # 0: no averaging
    classifier: bool = True


def sgd_seed(est: Any) -> int:
    """The model's seed (epoch orders, validation split) when its runs may be scikit-learn's:
    in scikit-learn's arithmetic a RandomState is left to the runs, which draw from it exactly
    as scikit-learn does (`sklearn_seeds`), and the seed is then 0; otherwise drawn from
    ``random_state`` as every model draws it."""
    if est._sklearn_stopping() and isinstance(est.random_state, np.random.RandomState):
        return 0
    return draw_seed(est.random_state)


def sklearn_seeds(random_state: Any, machines: int, classifier: bool) -> list[int]:
    """The shuffle seed of each machine, drawn from ``random_state`` as scikit-learn 1.9 draws
    them: an int seeds a fresh RandomState on every training call; a RandomState is advanced;
    None uses numpy's global RandomState. (A numpy Generator, which scikit-learn does not
    accept, seeds a RandomState with one draw.)"""
    if random_state is None:
        rs = np.random.mtrand._rand
    elif isinstance(random_state, np.random.RandomState):
        rs = random_state
    elif isinstance(random_state, np.random.Generator):
        rs = np.random.RandomState(int(random_state.integers(2**32)))
    else:
        rs = np.random.RandomState(int(random_state))
    if not classifier:  # _fit_regressor: the shuffle seed, then make_dataset's
        seed = int(rs.randint(0, MAX_INT))
        rs.randint(1, MAX_INT)
        return [seed]
    if machines == 1:  # fit_binary: make_dataset draws first
        rs.randint(1, MAX_INT)
        return [int(rs.randint(MAX_INT))]
    seeds = []
    for s in rs.randint(MAX_INT, size=machines).tolist():
        own = np.random.RandomState(s)
        own.randint(1, MAX_INT)
        seeds.append(int(own.randint(MAX_INT)))
    return seeds


def sgd_state(average: bool) -> tuple[StateArray, ...]:
    """The state of scikit-learn's arithmetic: the weights, intercepts and example counter
    t_ of each machine, and scikit-learn's averages (all mixed as weighted means)."""
    plain = (StateArray("w", ("rows", "d")), StateArray("b", ("rows",)),
             StateArray("t", (1,), initial=1.0))
    return plain + (StateArray("aw", ("rows", "d")), StateArray("ab", ("rows",))) \
        if average else plain


def init_sgd_state(rows: int, d: int, average: bool) -> dict[str, np.ndarray]:
    return new_state(sgd_state(average), {"rows": rows, "d": d})


def publish_sgd(st: dict[str, np.ndarray], average_start: int) -> tuple[np.ndarray,
                                                                        np.ndarray]:
    """(coef, intercept) as scikit-learn exposes them: the averaged weights once ``t_ - 1``
    has reached the averaging start, the plain ones before."""
    if average_start and "aw" in st and average_start <= st["t"][0] - 1:
        return st["aw"].copy(), st["ab"].copy()
    return st["w"].copy(), st["b"].copy()


def machines_after_epoch(stoppers: list[_Stopping], active: list[bool], mistakes: Any,
                         objective: Any, score: Any) -> tuple[bool, str]:
    """scikit-learn's stopping rule for each machine still training (``active``, updated in
    place), given functions of the machine k: its mistakes, the epoch's objective per row and
    the validation score (or None); True once every one stopped. A serial run's and dask's."""
    extra = ""
    for k, stopper in enumerate(stoppers):
        if active[k]:
            stop, extra = stopper.after_epoch(mistakes(k), objective(k), score(k))
            active[k] = not stop
    return not any(active), extra if len(active) == 1 else ""


class SGDRun(Run[Any]):
    """One training call in scikit-learn's arithmetic (see the module docstring)."""


    def __init__(self, est: Any, X: Any, targets: list[np.ndarray],
                 sample_weight: np.ndarray | None, class_weights: list[tuple[float, float]],
                 spec: SGDSpec, seeds: list[int]) -> None:
        self.est, self.X, self.targets, self.spec = est, X, targets, spec
        n = X.shape[0]
        self.sw = np.ones(n) if sample_weight is None else sample_weight
        self.seeds = seeds
        self.index = [np.arange(n, dtype=np.int64) for _ in targets]
        sgd, st = _backend.sgd, est._state
        d = st["w"].shape[1]
        self.states, self.qs, self.params = [], [], []
        l1 = spec.penalty in (sgd.PENALTY_L1, sgd.PENALTY_ELASTICNET)
        self.compute_objective = bool(getattr(est, "tol", None) is not None or est.verbose)
        for k, (pos, neg) in enumerate(class_weights):
            state, q = np.zeros(sgd.N_STATE), np.zeros(d if l1 else 0)
            sgd.sgd_start(st["w"][k], q, state, float(st["b"][k]),
                          float(st["ab"][k]) if "ab" in st else 0.0, float(st["t"][0]))
            params = np.zeros(sgd.N_PARAMS)
            params[[sgd.ALPHA, sgd.L1_RATIO, sgd.ETA0, sgd.INTERCEPT_DECAY, sgd.WEIGHT_POS,
                    sgd.WEIGHT_NEG, sgd.EPSILON_OR_THRESHOLD, sgd.AVERAGE_START]] = [
                spec.alpha, spec.l1_ratio, spec.eta0, 0.01 if isinstance(X, CSR) else 1.0,
                pos, neg, spec.epsilon_or_threshold, spec.average_start]
            self.states.append(state)
            self.qs.append(q)
            self.params.append(params)
        self.active = [True] * len(targets)
        self.stoppers = [_Stopping(est, False) for _ in targets]
        self.last = [0] * len(targets)

    def _aw(self, k: int) -> np.ndarray:
        st = self.est._state
        return st["aw"][k] if "aw" in st else np.zeros(0)

    def order(self) -> None:
        """None: each machine shuffles its own index, as scikit-learn's does."""
        return None

    def epoch(self, order: Any = None) -> int:
        """One epoch of every machine still training (machines on ``n_jobs`` threads: each
        has its own rows of the state, so the result does not depend on the threads)."""
        sgd, X, st = _backend.sgd, self.X, self.est._state
        spec, fi, objective = self.spec, self.est.fit_intercept, self.compute_objective

        def machine(k: int) -> int:
            if self.est.shuffle:
                sgd.sklearn_shuffle(self.index[k], self.seeds[k])
            y, index, w, aw = self.targets[k], self.index[k], st["w"][k], self._aw(k)
            q, state, params = self.qs[k], self.states[k], self.params[k]
            if isinstance(X, CSR):
                return int(sgd.sgd_epoch_csr(X.data, X.indices, X.indptr, y, self.sw, index, w,
                                             aw, q, state, params, spec.loss,
                                             spec.learning_rate, spec.penalty, fi, objective))
            return int(sgd.sgd_epoch_dense(X, y, self.sw, index, w, aw, q, state, params,
                                           spec.loss, spec.learning_rate, spec.penalty, fi,
                                           objective))

        todo = [k for k in range(len(self.targets)) if self.active[k]]
        done = run_parallel([partial(machine, k) for k in todo],
                            getattr(self.est, "n_jobs", None))
        self.last = [0] * len(self.targets)
        for k, mistakes in zip(todo, done):
            self.last[k] = mistakes
        # what scikit-learn checks after each epoch: the weights and the intercepts (its
        # tracked norms and objective may overflow first; training goes on, as there)
        check_finite_state(st["w"], np.array([s[sgd.INTERCEPT] for s in self.states]))
        st["t"] += X.shape[0]  # scikit-learn: t_ grows by n_samples per epoch of the run
        return sum(done)

    def after_epoch(self, mistakes: int, val: tuple | None) -> tuple[bool, str]:
        """scikit-learn's stopping rule, machine by machine: True once every one stopped."""
        sgd, n = _backend.sgd, self.X.shape[0]
        return machines_after_epoch(
            self.stoppers, self.active, lambda k: self.last[k],
            lambda k: self.states[k][sgd.OBJECTIVE] / n,
            lambda k: None if val is None else self._machine_score(k, *val))

    def _true_weights(self, k: int) -> tuple[np.ndarray, float]:
        sgd = _backend.sgd
        state = self.states[k]
        return self.est._state["w"][k] * state[sgd.WSCALE], float(state[sgd.INTERCEPT])

    def _machine_score(self, k: int, X: Any, y: np.ndarray, w: np.ndarray | None) -> float:
        """The validation score of machine k: accuracy on its +1/-1 problem, or R^2."""
        coef, b = self._true_weights(k)
        p = decision(X, coef[None, :], np.array([b]))[:, 0]
        if self.spec.classifier and len(self.targets) > 1:
            return float(np.average(np.where(p > 0, 1.0, -1.0) == np.where(y == k, 1.0, -1.0),
                                    weights=w))
        if self.spec.classifier:
            return float(np.average((p > 0) == (y == 1), weights=w))
        return r2_score(y, p, w)

    def arrays(self) -> list[np.ndarray]:
        return [*self.est._state.values(), *self.states, *self.qs, *self.index]

    def predict_idx(self, X: Any) -> np.ndarray:
        """Class indices (regressor: predictions) of the current plain weights."""
        cols = [self._true_weights(k) for k in range(len(self.targets))]
        scores = decision(X, np.array([c for c, _ in cols]), np.array([b for _, b in cols]))
        if not self.spec.classifier:
            return scores[:, 0]
        if scores.shape[1] == 1:
            return (scores[:, 0] > 0).astype(np.int64)
        return np.argmax(scores, axis=1)

    def finish(self, credit_epochs: int) -> None:
        sgd, st = _backend.sgd, self.est._state
        for k, state in enumerate(self.states):
            sgd.sgd_finish(st["w"][k], self._aw(k), state)
            st["b"][k] = state[sgd.INTERCEPT]
            if "ab" in st:
                st["ab"][k] = state[sgd.AVERAGE_INTERCEPT]


# ------------------------------------------------------------ the estimators' side of a run

def classifier_run(est: Any, Xc: Any, y_idx: np.ndarray,
                   sample_weight: np.ndarray | None, spec: SGDSpec,
                   class_weight: np.ndarray) -> SGDRun:
    """The run of a classifier: two classes, one machine (``classes_[1]`` is +1, class
    weights (cw[1], cw[0])); more, one machine per class against the rest (cw[k], 1.0)."""
    k = len(est.classes_)
    if k == 2:
        targets = [np.where(y_idx == 1, 1.0, -1.0)]
        weights = [(float(class_weight[1]), float(class_weight[0]))]
    else:
        targets = [np.where(y_idx == c, 1.0, -1.0) for c in range(k)]
        weights = [(float(class_weight[c]), 1.0) for c in range(k)]
    seeds = sklearn_seeds(est.random_state, len(targets), True)
    return SGDRun(est, Xc, targets, sample_weight, weights, spec, seeds)


def regressor_run(est: Any, Xc: Any, y: np.ndarray, sample_weight: np.ndarray | None,
                  spec: SGDSpec) -> SGDRun:
    seeds = sklearn_seeds(est.random_state, 1, False)
    return SGDRun(est, Xc, [np.ascontiguousarray(y, dtype=np.float64)], sample_weight,
                  [(1.0, 1.0)], spec, seeds)


def warm_restart(st: dict[str, np.ndarray], coef: Any, intercept: np.ndarray) -> None:
    """``fit`` with ``warm_start`` as scikit-learn does it: start from the published weights
    (the averaged ones when averaging), averaging and ``t_`` from scratch."""
    if hasattr(coef, "toarray"):
        coef = coef.toarray()
    st["w"][...] = coef
    st["b"][...] = intercept
    st["t"][...] = 1.0
    if "aw" in st:
        st["aw"][...] = 0.0
        st["ab"][...] = 0.0


def initial_weights(coef_init: Any, intercept_init: Any) -> tuple | None:
    """fit's starting (coef, intercept), or None to start from zero (or warm)."""
    if coef_init is None and intercept_init is None:
        return None
    return coef_init, intercept_init


def set_initial(st: dict[str, np.ndarray], coef_init: Any, intercept_init: Any) -> None:
    """``fit(coef_init=..., intercept_init=...)``: the starting weights, checked. One weight
    row (two classes, a regressor): coef_init of shape (n_features,) or (1, n_features) and
    one intercept; K rows: (K, n_features) and K intercepts."""
    rows, d = st["w"].shape
    for key, value, shape in (("w", coef_init, (rows, d)), ("b", intercept_init, (rows,))):
        if value is None:
            continue
        a = np.asarray(value, dtype=np.float64)
        if rows == 1 and a.size == shape[-1] and a.ndim <= len(shape):
            a = a.reshape(shape)
        name = "coef_init" if key == "w" else "intercept_init"
        if a.shape != shape:
            raise ValueError(f"{name}: expected shape {shape}, got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be finite")
        st[key][...] = a


def restore_sgd_state(arrays: dict, rows: int, d: int, average: bool) -> dict[str, np.ndarray]:
    return check_sgd_counter(restore_state(arrays, sgd_state(average), {"rows": rows, "d": d}))


def check_sgd_counter(st: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``st``, once its example counter t_ is checked to be a count of a model file."""
    if not 1.0 <= st["t"][0] < 2.0**62:
        raise ValueError("model file: state_t must lie in [1, 2^62)")
    return st
