"""Iterative parameter mixing without dask: what one shard's epoch computes from the mixed
state, and how the shards' states mix into the next one. `perceptron_c.dask` runs these
functions as tasks on the workers and keeps only the loop on the client.

Two mixers, one per arithmetic of the estimators:

- `Textbook` (`Perceptron` with ``tol=None`` and ``penalty=None``, or any estimator with
  ``_mixable_state``): the state is ``est._state`` as the estimator declares it
  (``_declared_state``, `_state.StateArray`): float64 arrays that mix linearly, the
  averaging sums of [Daume2017] Alg. 7 and their clock ``count``. Shard ``s`` visits its rows
  in ``epoch_order(seed_s, epoch, n_s, shuffle)``. The mixed clock is ``c' = c +
  round(sum_s mu_s (c_s - c))`` and the sums mix as ``u' = sum_s mu_s (c' / c_s) u_s``, so the
  mixed average is ``sum_s mu_s avg_s``.
- `SGD` (scikit-learn's arithmetic: `Perceptron` with ``tol`` or ``penalty``, the
  passive-aggressive classifier and regressor): the state is what scikit-learn's
  ``_plain_sgd`` keeps from one epoch to the next, per binary machine: the weights stored
  unscaled with their scale, the lazy averaging coefficients (A, B), the intercepts, the
  clock t, the L1 record (u and q). Shard ``s`` runs the same routine as a serial epoch, in
  the order scikit-learn's shuffle would give it at that epoch of the fit (its seeds drawn
  from ``random_state`` for shard 0, derived for the others). Mixing, per machine: when every
  shard in the mix has the same scale and averaging coefficients (always so without a
  penalty and with equal shards) the stored arrays mix as they are; otherwise each is first
  folded into true weights (scikit-learn's reset of the scale). The intercepts, the averaged
  intercept, u and q mix linearly; the clock as the textbook's; the tracked norms, which only
  enter the objective of the ``tol`` rule, are those of the mixed weights. The stopping rule
  is scikit-learn's per machine, on the objective summed over the shards divided by the rows.

Both: ``mu_s = 1 / S`` over the S non-empty shards (``"uniform"``) or ``k_s / k``
(``"mistakes"``, uniform when k = 0). With one shard every mixed value is the shard's own
(multiplied by 1.0), so one shard is the serial fit bit for bit.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _backend
from .._estimator._base import _Stopping, epoch_order
from .._estimator._linear_model import decision
from .._estimator._sgd_run import machines_after_epoch, sklearn_seeds
from .._estimator._training import mixing_roles, start, validation_split
from .._utils._rows import take_rows
from .._utils._validation import (
    check_n_features,
    check_sample_weight,
    check_targets,
    check_y,
    encode_labels,
)

__all__ = ["Job", "Shard", "When", "Textbook", "SGD", "SGDLoop", "mixer_of",
           "prepare", "shard_seed", "sgd_seeds", "block_classes", "block_rows", "mix_sum",
           "sklearn_order"]

# lazy-averaging sums (the linear models', the structured perceptron's): scaled by the clock
# ratio when mixed


def averaging_sums(est: Any) -> tuple[str, ...]:
    """The arrays of the estimator's declared state (``_declared_state``) that are averaging
    sums: mixed at the mixed clock, not as plain means."""
    roles = mixing_roles(est._declared_state(est._spec()))
    return tuple(name for name, how in roles.items() if how == "sum")


class Job(NamedTuple):
    """What every task of one fit needs, besides its shard and the state."""

    cls: type
    params: dict
    classes: np.ndarray | None  # None: a regressor
    seed: int
    n_features: int
    validating: bool
    sgd_seeds: tuple[int, ...] = ()  # scikit-learn's shuffle seeds, one per machine


class Shard(NamedTuple):
    """One block of rows, gated: canonical X, targets (class indices or floats), sample
    weights (or None), and the held-out (X, y, weights) when early stopping."""

    X: Any
    y: np.ndarray
    w: np.ndarray | None
    val: tuple[Any, np.ndarray, np.ndarray | None] | None


class When(NamedTuple):
    """Where an epoch stands: the model's epoch count (the textbook orders), the epoch of
    this fit (scikit-learn's orders), and which machines still train (scikit-learn's rule)."""

    epochs_seen: int
    in_fit: int
    active: tuple[bool, ...]


def shard_seed(seed: int, shard: int) -> int:
    """Shard 0 draws its orders from the model's own seed (one shard = the serial fit)."""
    if shard == 0:
        return seed
    return int(np.random.default_rng([seed, shard, 0x6D6978]).integers(2**63))


def _local(job: Job, state: dict[str, np.ndarray] | None, shard: int, epoch: int) -> Any:
    """A throwaway estimator with the fit's parameters and a copy of ``state``."""
    est = job.cls(**job.params)
    if job.classes is not None:
        est.classes_ = job.classes
    start(est, job.n_features, shard_seed(job.seed, shard))
    est._epochs_seen = epoch
    if state is not None:
        est._state = {key: np.array(value, copy=True) for key, value in state.items()}
    return est


def gate_block(X: Any, columns: tuple[tuple[str, Any], ...], job: Job,
               shard: int) -> tuple[Any, Any] | None:
    """What preparing any shard starts with: the block's columns (name, value) checked
    against its rows, then its throwaway estimator and X gated as the serial fit gates it;
    None for an empty block."""
    for name, v in columns:  # checked before the fit, and here
        if v is not None and np.ndim(v) and block_rows(v) != X.shape[0]:
            raise ValueError(f"X and {name} have inconsistent numbers of samples in block "
                             f"{shard} of rows: {X.shape[0]} != {block_rows(v)}")
    if X.shape[0] == 0:
        return None
    est = _local(job, None, shard, 0)
    Xc = est._gate_X(X, est._spec(), fitting=True)
    check_n_features(Xc, job.n_features, type(est).__name__)
    return est, Xc


def prepare(X: Any, y: Any, weights: Any, job: Job, shard: int) -> Shard | None:
    """Gate one block on its worker (None for an empty block), as the serial fit gates X."""
    gated = gate_block(X, (("y", y), ("sample_weight", weights)), job, shard)
    if gated is None:
        return None
    est, Xc = gated
    if job.classes is None:
        y_enc = check_targets(y, Xc.shape[0])
    else:
        _, y_enc = encode_labels(check_y(y, Xc.shape[0]), job.classes)
    w = check_sample_weight(weights, Xc.shape[0])
    if not job.validating:
        return Shard(Xc, y_enc, w, None)
    tr, va = validation_split(est, y_enc, w)  # the serial split, with the shard's seed
    return Shard(take_rows(Xc, tr), y_enc[tr], None if w is None else w[tr],
                 (take_rows(Xc, va), y_enc[va], None if w is None else w[va]))


def block_classes(y: Any) -> np.ndarray:
    arr = check_y(y, len(y))
    return np.unique(arr) if arr.shape[0] else arr


def block_rows(block: Any) -> int:
    """The number of rows of one block of X, y or the weights (array, sparse or pandas)."""
    return int(block.shape[0]) if hasattr(block, "shape") else len(block)


def _shard_epoch(est: Any, run: Any, order: np.ndarray | None, shard: int) -> int:
    """One epoch of one shard. No checkpoint: this estimator is a throwaway, and the client
    keeps the fitted one as it was until the whole fit has succeeded."""
    try:
        return int(run.epoch(order))
    except (FloatingPointError, OverflowError) as exc:
        raise ValueError(
            f"{type(est).__name__}: overflow in epoch {est._epochs_seen + 1} in block {shard} "
            f"of rows ({exc}); the estimator is left as it was before the fit. Scaling the "
            "input data (e.g. StandardScaler or MaxAbsScaler) might help.") from None


def _weights_of(stats: list[tuple[int, int]], mixing: str) -> tuple[float, ...]:
    """mu_s from each shard's (mistakes, rows): empty shards weigh 0."""
    live = [i for i, (_, n) in enumerate(stats) if n > 0]
    if not live:
        raise ValueError("X: every block is empty; there is nothing to train on")
    total = sum(stats[i][0] for i in live)
    if mixing == "mistakes" and total > 0:
        return tuple(k / total if n > 0 else 0.0 for k, n in stats)
    return tuple(1.0 / len(live) if n > 0 else 0.0 for _, n in stats)


def _clock(mu: tuple[float, ...], start: np.ndarray, ends: list[np.ndarray]) -> np.ndarray:
    """start + round(sum_s mu_s (end_s - start)): each shard advanced its own clock."""
    advance = sum(m * (end - start).astype(np.float64) for m, end in zip(mu, ends) if m != 0.0)
    return start + np.rint(advance).astype(start.dtype)


def mix_sum(parts: list[dict | None]) -> dict | None:
    """The sum of partial mixes (None: a group with no weight)."""
    acc: dict | None = None
    for part in parts:
        if part is None:
            continue
        if acc is None:  # a copy: a task never changes its inputs
            acc = {key: value.copy() for key, value in part.items()}
        else:
            for key, value in part.items():
                acc[key] += value
    return acc


def _weighted_sum(mu: tuple[float, ...], outs: list[dict[str, Any]], first: int,
                  terms: Any) -> dict | None:
    """The sum over a group of shards (the first is shard ``first``) of ``terms(state,
    mu_s)``, a dict of arrays each; shards of weight 0 left out (None: all were)."""
    acc: dict[str, np.ndarray] | None = None
    for j, out in enumerate(outs):
        m = mu[first + j]
        if m == 0.0:
            continue
        part = terms(out["state"], m)
        if acc is None:
            acc = part
        else:
            for key, term in part.items():
                acc[key] += term
    return acc


def _class_score(correct: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    """(weight of the correct rows, weight of all rows), each row weighing 1 without w."""
    c = correct.astype(np.float64)
    if w is None:
        return float(c.sum()), float(c.shape[0])
    return float(np.multiply(c, w).sum()), float(w.sum())


# ----------------------------------------------------------------------- the textbook's

class _TextbookPlan(NamedTuple):
    mu: tuple[float, ...]
    clock: np.ndarray | None  # the mixed averaging clock (None: no averaging)


def _scaled(value: np.ndarray, factor: Any) -> np.ndarray:
    """value * factor, factor a number or one number per weight row."""
    if np.ndim(factor) == 0:
        return value * factor
    f = np.asarray(factor)
    if f.shape[0] == 1:
        return value * float(f[0])
    return value * (f[:, None] if value.ndim == 2 else f)


class Textbook:
    """Mixing in the textbook's arithmetic (see the module docstring)."""

    @staticmethod
    def begin(est: Any) -> dict[str, np.ndarray]:
        return {key: value.copy() for key, value in est._state.items()}

    @classmethod
    def epoch(cls, state: dict[str, np.ndarray], shard: Shard | None, job: Job, index: int,
              when: When) -> dict[str, Any]:
        if shard is None:
            return {"state": state, "mistakes": 0, "n": 0}
        est = _local(job, state, index, when.epochs_seen)
        mistakes = cls.shard_mistakes(est, shard, when, index)
        return {"state": est._state, "mistakes": int(mistakes), "n": int(shard.X.shape[0]),
                "sums": averaging_sums(est)}

    @staticmethod
    def shard_mistakes(est: Any, shard: Shard, when: When, index: int) -> int:
        """One serial epoch of the shard's estimator, in the serial fit's order."""
        run = est._start(shard.X, shard.y, shard.w, est._spec())
        order = epoch_order(est._seed, when.epochs_seen, shard.X.shape[0], est.shuffle)
        return _shard_epoch(est, run, order, index)

    @staticmethod
    def stats(out: dict[str, Any]) -> tuple[int, int, np.ndarray | None]:
        """(mistakes, rows, averaging clock after the epoch): all the plan needs."""
        return out["mistakes"], out["n"], out["state"].get("count")

    @staticmethod
    def plan(stats: list[tuple], mixing: str, state: dict[str, np.ndarray]) -> _TextbookPlan:
        mu = _weights_of([(k, n) for k, n, _ in stats], mixing)
        count = state.get("count")
        if count is None:
            return _TextbookPlan(mu, None)
        return _TextbookPlan(mu, _clock(mu, count, [c for _, _, c in stats]))

    @staticmethod
    def part(plan: _TextbookPlan, outs: list[dict[str, Any]], first: int) -> dict | None:
        """sum over a group of shards of mu_s x_s (the averaging sums times c' / c_s)."""
        sums = {name for out in outs for name in out.get("sums", ())}

        def terms(state: dict[str, np.ndarray], mu: float) -> dict[str, np.ndarray]:
            ratio = None if plan.clock is None else plan.clock / state["count"]
            out = {}
            for key, value in state.items():
                if key == "count":
                    continue
                if value.dtype != np.float64:
                    raise TypeError(f"state array {key!r} is {value.dtype}, not float64: the "
                                    "estimator's state cannot be mixed")
                factor = mu * ratio if key in sums and ratio is not None else mu
                out[key] = _scaled(value, factor)
            return out
        return _weighted_sum(plan.mu, outs, first, terms)

    @staticmethod
    def finish(total: dict[str, np.ndarray], plan: _TextbookPlan,
               state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        mixed = dict(total)
        if plan.clock is not None:
            mixed["count"] = np.array(plan.clock, dtype=np.int64)
        return mixed

    @staticmethod
    def score(shard: Shard | None, state: dict[str, np.ndarray], job: Job) -> Any:
        """(weight of the correct rows, weight of all rows) held out by the shard."""
        if shard is None or shard.val is None:
            return 0.0, 0.0
        est = _local(job, state, 0, 0)
        est._publish()
        X, y, w = shard.val
        return _class_score(est._predict_idx(X) == y, w)

    @staticmethod
    def end(est: Any, state: dict[str, np.ndarray]) -> None:
        est._state = state

    @staticmethod
    def loop(est: Any, validating: bool, compute: Any) -> None:
        """None: the client stops by the serial rule (`_base.Run.after_epoch`), scored on
        the held-out rows of every shard (`score`)."""
        return None


# ------------------------------------------------------------- scikit-learn's arithmetic

def sklearn_order(n: int, seed: int, shuffles: int) -> np.ndarray:
    """The order scikit-learn's run holds after ``shuffles`` epochs of one fit: its shuffle
    applies the same permutation p (a function of the seed and n) to the previous order, so
    the order is p composed ``shuffles`` times, by repeated squaring."""
    order = np.arange(n, dtype=np.int64)
    if shuffles == 0:
        return order
    p = np.arange(n, dtype=np.int64)
    _backend.sgd.sklearn_shuffle(p, seed)
    while shuffles:
        if shuffles & 1:
            order = order[p]
        p = p[p]
        shuffles >>= 1
    return np.ascontiguousarray(order)


def _sgd_shard_seeds(seeds: tuple[int, ...], shard: int) -> list[int]:
    if shard == 0:
        return list(seeds)
    return [int(np.random.default_rng([seed, shard, 0x736764]).integers(2**31 - 1))
            for seed in seeds]


class _SGDPlan(NamedTuple):
    mu: tuple[float, ...]
    fold: tuple[bool, ...]  # per machine: fold into true weights before mixing
    machine: np.ndarray  # the mixed machine states but for the mixed sums (see finish)
    t: np.ndarray  # the mixed t_


_PER_EPOCH = ("w", "aw", "q")  # arrays that mix term by term; the rest is in "machine"


class SGD:
    """Mixing in scikit-learn's arithmetic (see the module docstring)."""

    @staticmethod
    def begin(est: Any) -> dict[str, np.ndarray]:
        """The state of a fresh run from the model's weights, as `SGDRun` sets it up."""
        sgd, st = _backend.sgd, est._state
        rows, d = st["w"].shape
        l1 = est._spec().penalty in (sgd.PENALTY_L1, sgd.PENALTY_ELASTICNET)
        machine, q = np.zeros((rows, sgd.N_STATE)), np.zeros((rows, d if l1 else 0))
        for k in range(rows):
            sgd.sgd_start(st["w"][k], q[k], machine[k], float(st["b"][k]),
                          float(st["ab"][k]) if "ab" in st else 0.0, float(st["t"][0]))
        state = {key: value.copy() for key, value in st.items()}
        state.update(machine=machine, q=q)
        return state

    @staticmethod
    def epoch(state: dict[str, np.ndarray], shard: Shard | None, job: Job, index: int,
              when: When) -> dict[str, Any]:
        rows = state["machine"].shape[0]
        if shard is None:
            return {"state": state, "mistakes": 0, "n": 0, "last": [0] * rows,
                    "objective": np.zeros(rows)}
        own = {key: value for key, value in state.items() if key not in ("machine", "q")}
        est = _local(job, own, index, when.epochs_seen)
        run = est._start(shard.X, shard.y, shard.w, est._spec())
        n, seeds = shard.X.shape[0], _sgd_shard_seeds(job.sgd_seeds, index)
        run.seeds = seeds
        for k in range(rows):
            run.states[k][:] = state["machine"][k]
            run.qs[k][:] = state["q"][k]
            run.index[k] = sklearn_order(n, seeds[k], when.in_fit) if est.shuffle \
                else np.arange(n, dtype=np.int64)
            run.active[k] = when.active[k]
        mistakes = _shard_epoch(est, run, None, index)
        out = dict(est._state, machine=np.array(run.states), q=np.array(run.qs).reshape(
            state["q"].shape))
        objective = out["machine"][:, _backend.sgd.OBJECTIVE].copy()
        return {"state": out, "mistakes": int(mistakes), "n": int(n), "last": list(run.last),
                "objective": objective}

    @staticmethod
    def stats(out: dict[str, Any]) -> tuple[int, int, np.ndarray, list[int], np.ndarray]:
        """(mistakes, rows, machine states, mistakes per machine, objective per machine)."""
        return out["mistakes"], out["n"], out["state"]["machine"], out["last"], \
            out["objective"]

    @staticmethod
    def plan(stats: list[tuple], mixing: str, state: dict[str, np.ndarray]) -> _SGDPlan:
        sgd = _backend.sgd
        mu = _weights_of([(s[0], s[1]) for s in stats], mixing)
        mixed = [s[2] for s, m in zip(stats, mu) if m != 0.0]
        scalars = [sgd.WSCALE, sgd.AVERAGE_A, sgd.AVERAGE_B]
        fold = tuple(bool(any(not np.array_equal(m[k, scalars], mixed[0][k, scalars])
                              for m in mixed)) for k in range(state["machine"].shape[0]))
        machine = mixed[0].copy()  # the scale, A, B (where not folded) and the norms
        if len(mixed) > 1:
            machine[:, [sgd.SQ_NORM, sgd.L1_NORM]] = np.nan  # from the mixed weights
        machine[:, sgd.T] = _clock(mu, state["machine"][:, sgd.T], [s[2][:, sgd.T]
                                                                     for s in stats])
        for k in np.flatnonzero(fold):
            machine[k, scalars] = (1.0, 0.0, 1.0)
        t = _clock(mu, state["t"], [state["t"] + s[1] for s in stats])
        return _SGDPlan(mu, fold, machine, t)

    @staticmethod
    def part(plan: _SGDPlan, outs: list[dict[str, Any]], first: int) -> dict | None:
        sgd = _backend.sgd
        linear = [sgd.INTERCEPT, sgd.AVERAGE_INTERCEPT, sgd.U]

        def terms(st: dict[str, np.ndarray], mu: float) -> dict[str, np.ndarray]:
            arrays = {key: st[key] for key in _PER_EPOCH if key in st}
            if any(plan.fold):  # true weights (on copies) for the machines that need them
                arrays = {key: value.copy() for key, value in arrays.items()}
                machine = st["machine"].copy()
                for k in np.flatnonzero(plan.fold):
                    aw = arrays["aw"][k] if "aw" in arrays else np.zeros(0)
                    sgd.sgd_finish(arrays["w"][k], aw, machine[k])
            out = {key: value * mu for key, value in arrays.items()}
            out["linear"] = st["machine"][:, linear] * mu
            return out
        return _weighted_sum(plan.mu, outs, first, terms)

    @staticmethod
    def finish(total: dict[str, np.ndarray], plan: _SGDPlan,
               state: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        sgd = _backend.sgd
        machine = plan.machine.copy()
        machine[:, [sgd.INTERCEPT, sgd.AVERAGE_INTERCEPT, sgd.U]] = total["linear"]
        for k in np.flatnonzero(np.isnan(machine[:, sgd.SQ_NORM])):
            sq = l1 = 0.0  # sequential sums, as sgd_start's (no BLAS: the same on any machine)
            for v in (total["w"][k] * machine[k, sgd.WSCALE]).tolist():
                sq += v * v
                l1 += abs(v)
            machine[k, sgd.SQ_NORM], machine[k, sgd.L1_NORM] = sq, l1
        mixed = {key: value for key, value in state.items() if key not in total}
        mixed.update({key: total[key] for key in _PER_EPOCH if key in total})
        mixed.update(machine=machine, t=plan.t)
        return mixed

    @staticmethod
    def score(shard: Shard | None, state: dict[str, np.ndarray], job: Job) -> Any:
        """Per machine: (weight of the correct rows, weight of all rows) of its +1/-1 problem,
        as `SGDRun` scores it; for a regressor, the weighted sum of squared residuals."""
        rows = state["machine"].shape[0]
        if shard is None or shard.val is None:
            return [0.0] if job.classes is None else [(0.0, 0.0)] * rows
        sgd = _backend.sgd
        X, y, w = shard.val
        p = decision(X, state["w"] * state["machine"][:, sgd.WSCALE][:, None],
                     np.ascontiguousarray(state["machine"][:, sgd.INTERCEPT]))
        if job.classes is None:
            weights = np.ones_like(y) if w is None else w
            return [float(np.sum(weights * (y - p[:, 0]) ** 2))]
        if rows == 1:
            return [_class_score((p[:, 0] > 0) == (y == 1), w)]
        return [_class_score(np.where(p[:, k] > 0, 1.0, -1.0) == np.where(y == k, 1.0, -1.0),
                             w) for k in range(rows)]

    @staticmethod
    def target_moments(shard: Shard | None) -> tuple[float, float]:
        """(sum w y, sum w) of the held-out targets: their weighted mean, for R^2."""
        if shard is None or shard.val is None:
            return 0.0, 0.0
        _, y, w = shard.val
        weights = np.ones_like(y) if w is None else w
        return float(np.multiply(y, weights).sum()), float(weights.sum())

    @staticmethod
    def target_spread(shard: Shard | None, mean: float) -> float:
        """sum w (y - mean)^2 of the held-out targets: R^2's denominator."""
        if shard is None or shard.val is None:
            return 0.0
        _, y, w = shard.val
        weights = np.ones_like(y) if w is None else w
        return float(np.sum(weights * (y - mean) ** 2))

    @staticmethod
    def end(est: Any, state: dict[str, np.ndarray]) -> None:
        """Fold the run into the model, as `SGDRun.finish` does."""
        sgd = _backend.sgd
        st = {key: state[key].copy() for key in est._state}
        machine = state["machine"].copy()
        for k in range(machine.shape[0]):
            sgd.sgd_finish(st["w"][k], st["aw"][k] if "aw" in st else np.zeros(0), machine[k])
            st["b"][k] = machine[k, sgd.INTERCEPT]
            if "ab" in st:
                st["ab"][k] = machine[k, sgd.AVERAGE_INTERCEPT]
        est._state = st

    @staticmethod
    def loop(est: Any, validating: bool, compute: Any) -> SGDLoop:
        return SGDLoop(est, validating, compute)


class SGDLoop:
    """The client's side of a fit in scikit-learn's arithmetic: its stopping rule for each
    machine (``tol`` on the epoch's objective summed over the shards divided by the rows, or
    on the validation score), stopped machines sitting out the epochs the others still run.

    ``compute(fn, *args)`` evaluates ``fn(shard, *args)`` on every shard and returns the list.
    """

    def __init__(self, est: Any, validating: bool, compute: Any) -> None:
        rows = est._state["w"].shape[0]
        self.stoppers = [_Stopping(est, False) for _ in range(rows)]
        self.active = (True,) * rows
        self.classifier = est._classifier
        self.spread = 0.0
        if validating and not self.classifier:  # R^2's denominator, once: the rows are fixed
            moments = compute(SGD.target_moments)
            mean = sum(m[0] for m in moments) / sum(m[1] for m in moments)
            self.spread = sum(compute(SGD.target_spread, mean))

    def _score(self, k: int, scores: list) -> float:
        if self.classifier:
            return sum(s[k][0] for s in scores) / sum(s[k][1] for s in scores)
        residual = sum(s[0] for s in scores)
        if self.spread == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return 1.0 - residual / self.spread

    def after_epoch(self, stats: list[tuple], scores: list | None) -> tuple[bool, str]:
        n = sum(s[1] for s in stats)
        active = list(self.active)
        stop = machines_after_epoch(
            self.stoppers, active, lambda k: sum(s[3][k] for s in stats),
            lambda k: sum(s[4][k] for s in stats) / n,
            lambda k: None if scores is None else self._score(k, scores))
        self.active = tuple(active)
        return stop


def sgd_seeds(est: Any) -> tuple[int, ...]:
    """The machines' shuffle seeds of one fit, drawn from ``random_state`` as a serial fit
    draws them (shard 0 uses these)."""
    rows = est._state["w"].shape[0]
    return tuple(sklearn_seeds(est.random_state, rows, est._classifier))


def mixer_of(est: Any) -> Any:
    return SGD if est._sklearn_stopping() else Textbook
