"""Training and prediction on dask clusters (``pip install "perceptron-c[dask]"``).

`fit` trains a `Perceptron` (plain, averaged, normalized; binary, K-class argmax or
one-vs-rest) on a dask array or dask DataFrame by iterative parameter mixing (McDonald, Hall
& Mann, "Distributed Training Strategies for the Structured Perceptron", NAACL 2010). What
was checked in the stored copies of that paper and of notes on it: the abstract gives
convergence bounds for "iterative parameter mixing (or averaging)"; each epoch runs one
perceptron epoch on every shard from the current mixed weights, averages the shards' weights
and hands the average back to every shard; mixing only once, after training each shard to
the end, is the strategy the paper finds wanting for the perceptron. The mistake-weighted
mixture (each shard weighted by its share of the epoch's mistakes, the weights of the
paper's convergence theorem) is implemented as the issue describes it; its exact wording in
the paper could not be read in the stored copies.

One epoch of the distributed fit:

1. every block of rows (a shard) runs one ordinary epoch of the estimator's own training
   routine (the same C routine, or Python twin, as a serial epoch) on the worker that holds
   it, starting from a copy of the mixed state. Shard ``s`` visits its rows in the order
   ``epoch_order(seed_s, epoch, n_s, shuffle)`` with ``seed_0`` the model's own seed, so a
   one-shard fit is the serial fit, bit for bit;
2. the shard states are mixed on the workers, in a tree: ``x = sum_s mu_s x_s`` for every
   state array, with ``mu_s = 1 / S`` (``mixing="uniform"``, over the S non-empty shards)
   or ``mu_s = k_s / k`` (``mixing="mistakes"``: k_s mistakes of shard s, k their sum;
   uniform when k = 0);
3. the client receives the mixed state and the shards' mistake counts, nothing else, and
   only then replaces the model's state: an epoch that did not finish leaves no trace.

Averaging (``average=True``) keeps the lazy sums of CIML Alg. 7: the average after c
examples is ``w - u / c``. The mixed clock is ``c' = c + round(sum_s mu_s (c_s - c))`` (shard
s advanced it to c_s by the rows it visited: n_s, less its rows of weight 0) and the sums
are mixed as
``u' = sum_s mu_s (c' / c_s) u_s``, so the mixed average is ``sum_s mu_s avg_s``: the mix of
the averages each shard's serial run would define from the mixed state. With uniform mixing
over equal shards every epoch weighs as much in the average as in a serial run.

An estimator plugs in when its class sets ``_mixable_state = True`` (`Perceptron` is
accepted as is): its training state is ``_state``, a dict of float64 arrays that mix
linearly, plus optionally the averaging triple ``u``, ``beta``, ``count`` above; an epoch is
``_start(X, y, weights, spec)`` and ``_epoch(run, order)``, as in the serial loop; ``finish``
has nothing to do. The passive-aggressive estimators can join that way.

`predict`, `decision_function` (any fitted estimator of the package) and `gram` (any kernel)
return lazy dask arrays computed block by block. dask is imported only when one of these
runs, never by ``import perceptron_c``.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import kernels as _kernels
from ._base import EpochClassifier, _Stopping, epoch_order, report_epoch
from ._rows import take_rows
from ._validation import (
    check_choice,
    check_classes,
    check_n_features,
    check_same_classes,
    check_sample_weight,
    check_two_classes,
    check_y,
    encode_labels,
    feature_names,
)
from .perceptron import Perceptron

if TYPE_CHECKING:
    from dask.array import Array
    from dask.delayed import Delayed

__all__ = ["fit", "predict", "decision_function", "gram", "MIXING"]

MIXING = ("uniform", "mistakes")
_AVERAGE_SUMS = ("u", "beta")  # lazy-averaging sums: scaled by the clock ratio when mixed
_FAN_IN = 8  # shard states mixed per task, at each level of the tree


def _dask() -> Any:
    try:
        import dask
        import dask.array
    except ImportError as exc:
        raise ImportError("perceptron_c.dask needs dask: pip install \"perceptron-c[dask]\" "
                          f"({exc})") from None
    return dask


# ---------------------------------------------------------------------------- the shards

class _Job(NamedTuple):
    """What every task of one fit needs, besides its shard and the state."""

    cls: type
    params: dict
    classes: np.ndarray
    seed: int
    n_features: int
    validating: bool


class _Shard(NamedTuple):
    """One block of rows, gated: canonical X, class indices, sample weights (or None), and
    the held-out (X, y, weights) when early stopping."""

    X: Any
    y: np.ndarray
    w: np.ndarray | None
    val: tuple[Any, np.ndarray, np.ndarray | None] | None


def _shard_seed(seed: int, shard: int) -> int:
    """Shard 0 draws its orders from the model's own seed (one shard = the serial fit)."""
    if shard == 0:
        return seed
    return int(np.random.default_rng([seed, shard, 0x6D6978]).integers(2**63))


def _local(job: _Job, state: dict[str, np.ndarray] | None, shard: int, epoch: int) -> Any:
    """A throwaway estimator with the fit's parameters and a copy of ``state``."""
    est = job.cls(**job.params)
    est.classes_ = job.classes
    est._init_common(job.n_features, _shard_seed(job.seed, shard))
    est._epochs_seen = epoch
    if state is not None:
        est._state = {key: np.array(value, copy=True) for key, value in state.items()}
    return est


def _prepare(X: Any, y: Any, weights: Any, job: _Job, shard: int) -> _Shard | None:
    """Gate one block on its worker (None for an empty block), as the serial fit gates X."""
    if X.shape[0] == 0:
        return None
    est = _local(job, None, shard, 0)
    spec = est._spec()
    Xc = est._gate_X(X, spec, fitting=True)
    check_n_features(Xc, job.n_features, type(est).__name__)
    _, y_idx = encode_labels(check_y(y, Xc.shape[0]), job.classes)
    w = check_sample_weight(weights, Xc.shape[0])
    if not job.validating:
        return _Shard(Xc, y_idx, w, None)
    tr, va = est._validation_split(y_idx, w)  # the serial split, with the shard's seed
    return _Shard(take_rows(Xc, tr), y_idx[tr], None if w is None else w[tr],
                  (take_rows(Xc, va), y_idx[va], None if w is None else w[va]))


def _shard_epoch(state: dict[str, np.ndarray], shard: _Shard | None, job: _Job, index: int,
                 epoch: int) -> dict[str, Any]:
    """One ordinary epoch of the estimator on one shard, from the mixed state."""
    if shard is None:
        return {"state": state, "mistakes": 0, "n": 0}
    est = _local(job, state, index, epoch)
    run = est._start(shard.X, shard.y, shard.w, est._spec())
    order = epoch_order(est._seed, epoch, shard.X.shape[0], est.shuffle)
    mistakes = est._epoch(run, order)
    return {"state": est._state, "mistakes": int(mistakes), "n": int(shard.X.shape[0])}


def _shard_stats(out: dict[str, Any]) -> tuple[int, int, np.ndarray | None]:
    """(mistakes, rows, averaging clock after the epoch): all the mixing plan needs."""
    return out["mistakes"], out["n"], out["state"].get("count")


def _shard_score(state: dict[str, np.ndarray], shard: _Shard | None,
                 job: _Job) -> tuple[float, float]:
    """(weight of the correct rows, weight of all rows) held out by the shard, under the
    mixed state (each row weighs 1 without sample weights)."""
    if shard is None or shard.val is None:
        return 0.0, 0.0
    est = _local(job, state, 0, 0)
    est._publish()
    X, y, w = shard.val
    correct = (est._predict_idx(X) == y).astype(np.float64)
    if w is None:
        return float(correct.sum()), float(y.shape[0])
    return float(np.multiply(correct, w).sum()), float(w.sum())


def _block_classes(y: Any) -> np.ndarray:
    arr = check_y(y, len(y))
    return np.unique(arr) if arr.shape[0] else arr


# -------------------------------------------------------------------------------- mixing

@dataclass(frozen=True)
class _Plan:
    """The mixing weights of one epoch and the mixed averaging clock (None: no averaging)."""

    mu: tuple[float, ...]
    count: np.ndarray | None


def _mix_plan(stats: list[tuple[int, int, Any]], mixing: str,
              count: np.ndarray | None) -> _Plan:
    live = [i for i, (_, n, _) in enumerate(stats) if n > 0]
    if not live:
        raise ValueError("X: every block is empty; there is nothing to train on")
    total = sum(stats[i][0] for i in live)
    if mixing == "mistakes" and total > 0:
        mu = tuple(k / total if n > 0 else 0.0 for k, n, _ in stats)
    else:
        mu = tuple(1.0 / len(live) if n > 0 else 0.0 for _, n, _ in stats)
    if count is None:
        return _Plan(mu, None)
    # each shard's clock advanced by the rows it visited (rows of weight 0 are skipped)
    advance = sum(m * (c - count).astype(np.float64) for m, (_, _, c) in zip(mu, stats)
                  if m != 0.0)
    return _Plan(mu, count + np.rint(advance).astype(np.int64))


def _scaled(value: np.ndarray, factor: Any) -> np.ndarray:
    """value * factor, factor a number or one number per weight row."""
    if np.ndim(factor) == 0:
        return value * factor
    f = np.asarray(factor)
    if f.shape[0] == 1:
        return value * float(f[0])
    return value * (f[:, None] if value.ndim == 2 else f)


def _mix_part(plan: _Plan, outs: list[dict[str, Any]], first: int) -> dict | None:
    """sum over a group of shards of mu_s x_s (the averaging sums times c' / c_s)."""
    acc: dict[str, np.ndarray] | None = None
    for j, out in enumerate(outs):
        mu = plan.mu[first + j]
        if mu == 0.0:
            continue
        state = out["state"]
        ratio = None if plan.count is None else plan.count / state["count"]
        terms = {}
        for key, value in state.items():
            if key == "count":
                continue
            if value.dtype != np.float64:
                raise TypeError(f"state array {key!r} is {value.dtype}, not float64: the "
                                "estimator's state cannot be mixed")
            factor = mu * ratio if key in _AVERAGE_SUMS and ratio is not None else mu
            terms[key] = _scaled(value, factor)
        if acc is None:
            acc = terms
        else:
            for key, term in terms.items():
                acc[key] += term
    return acc


def _mix_sum(parts: list[dict | None]) -> dict | None:
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


def _mix_finish(total: dict[str, np.ndarray], plan: _Plan) -> dict[str, np.ndarray]:
    mixed = dict(total)
    if plan.count is not None:
        mixed["count"] = np.array(plan.count, dtype=np.int64)
    return mixed


# ----------------------------------------------------------------------------- the inputs

def _inputs(X: Any, y: Any, w: Any) -> tuple[list, list, list, int, np.ndarray | None]:
    """Blocks of rows of X, y and the sample weights (Delayed, or arrays in memory), the
    number of features and the feature names. The graphs are taken as they are: optimizing
    each alone would fuse what they share (a task making both X and y) into each, and
    compute it twice per epoch."""
    _dask()
    import dask.array as da

    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D dask array, got {X.ndim} dimension(s)")
        X = X.rechunk({1: -1}) if X.numblocks[1] > 1 else X  # shards are whole rows
        chunks, d, names = X.chunks[0], int(X.shape[1]), None
    elif hasattr(X, "to_delayed") and hasattr(X, "columns") and hasattr(X, "npartitions"):
        chunks, d, names = None, len(X.columns), feature_names(X)
    else:
        raise TypeError(f"X: expected a dask array or a dask DataFrame, got "
                        f"{type(X).__name__} (for data in memory, call the estimator's fit)")
    y, w = _aligned(y, chunks, "y"), _aligned(w, chunks, "sample_weight")
    xs = list(np.asarray(X.to_delayed(optimize_graph=False), dtype=object).ravel())
    return xs, _split(y, chunks, len(xs), "y"), _split(w, chunks, len(xs), "sample_weight"), \
        d, names


def _aligned(v: Any, chunks: Any, name: str) -> Any:
    """``v`` (labels or weights) as a collection with X's row blocks, or checked in memory."""
    import dask.array as da

    if isinstance(v, da.Array) and chunks is not None and v.chunks[0] != chunks:
        if any(np.isnan(c) for c in chunks + v.chunks[0]):
            raise ValueError(f"{name}: its row blocks must match those of X (sizes unknown)")
        return v.rechunk({0: chunks})
    if v is None or hasattr(v, "to_delayed"):
        return v
    if chunks is None or any(np.isnan(c) for c in chunks):
        raise TypeError(f"{name}: expected a dask array or Series, got {type(v).__name__}")
    arr = np.asarray(v)
    if not (arr.ndim == 0 and name == "sample_weight") and (
            arr.ndim == 0 or arr.shape[0] != sum(chunks)):
        raise ValueError(f"X and {name} have inconsistent numbers of samples: {sum(chunks)} "
                         f"!= {arr.shape[0] if arr.ndim else 'a scalar'}")
    return arr


def _split(v: Any, chunks: Any, n_blocks: int, name: str) -> list:
    if v is None or np.ndim(v) == 0:  # no weights, or one weight for every row
        return [v] * n_blocks
    if not hasattr(v, "to_delayed"):
        ends = np.cumsum(chunks)
        return [v[end - size:end] for end, size in zip(ends, chunks)]
    blocks = list(np.asarray(v.to_delayed(optimize_graph=False), dtype=object).ravel())
    if len(blocks) != n_blocks:
        raise ValueError(f"{name} has {len(blocks)} blocks of rows but X has {n_blocks}; give "
                         "both the same partitions")
    return blocks


def _classes_of(ys: list, classes: Any, scheduler: Any) -> np.ndarray:
    """classes_ from one pass over y (only the labels' unique values come back)."""
    if classes is not None:
        return check_classes(classes)
    dask = _dask()
    parts = dask.compute([dask.delayed(_block_classes)(yb) for yb in ys],
                         scheduler=scheduler)[0]
    parts = [p for p in parts if p.shape[0]]
    if not parts:
        raise ValueError("y: found no labels (every block is empty)")
    return np.unique(np.concatenate(parts))


# ---------------------------------------------------------------------------------- fit

def _check_estimator(est: Any) -> None:
    if not (isinstance(est, Perceptron) or getattr(type(est), "_mixable_state", False)):
        raise TypeError(f"estimator: parameter mixing trains a Perceptron (or an estimator "
                        f"with _mixable_state), got {type(est).__name__}; predict and "
                        "decision_function work with every estimator")
    if not isinstance(est, EpochClassifier):
        raise TypeError(f"estimator: {type(est).__name__} is not a classifier")
    est._spec()
    if est._sklearn_stopping():
        raise ValueError("estimator: parameter mixing implements the textbook stopping rule "
                         "(an error-free epoch, max_iter, early_stopping), not scikit-learn's")
    if isinstance(getattr(est, "class_weight", None), str):
        raise ValueError("estimator: class_weight='balanced' would weigh each shard by its "
                         "own class counts; pass a dict of weights instead")


def fit(estimator: Any, X: Any, y: Any, *, sample_weight: Any = None, client: Any = None,
        mixing: str = "uniform", classes: Any = None, persist: bool = False) -> Any:
    """Train ``estimator`` (a `Perceptron`) on dask data by iterative parameter mixing.

    Parameters
    ----------
    estimator : Perceptron
        Trained in place, with its own parameters (``max_iter``, ``average``,
        ``early_stopping``, ``warm_start``, ``verbose``...), and returned: an ordinary
        fitted estimator (numpy predict, ``save``, ``partial_fit``).
    X : dask array (dense or scipy.sparse blocks, float32/float64) or dask DataFrame
        Each block of rows is a shard; blocks along columns are merged first.
    y : dask array or Series with the same row blocks (or a numpy array when X's block sizes
        are known)
    sample_weight : like y, optional
        Each example's update is multiplied by its weight, as in the estimator's own fit.
    client : distributed.Client, a scheduler name ("threads", "synchronous", "processes"),
        or None for dask's default (the current Client if there is one)
    mixing : {"uniform", "mistakes"}
        Weights of the shards in the mix: equal, or each shard's share of the mistakes.
    classes : array-like, optional
        Every label; saves the pass over y that finds them.
    persist : bool, default False
        Keep the gated shards in the workers' memory for all epochs. Otherwise every epoch
        reads X's blocks from their graph again (persist X yourself to keep it in memory).
    """
    dask = _dask()
    _check_estimator(estimator)
    check_choice(mixing, "mixing", MIXING)
    xs, ys, ws, d, names = _inputs(X, y, sample_weight)
    cls = _classes_of(ys, classes, client)
    check_two_classes(cls)
    est = estimator
    if est.warm_start and est._is_fitted():
        check_same_classes(cls, est.classes_)
        est._check_continuation(np.empty((0, d)), est._spec())
        est._warm_restart()
    else:
        est.classes_ = cls
        est._init_common(d, est._draw_seed())
        est._init_state(np.zeros((1, d)), est._spec())
    est._set_feature_names(names)
    params = dict(est.get_params(), verbose=0, warm_start=False)
    validating = bool(getattr(est, "early_stopping", False))
    job = _Job(type(est), params, est.classes_, est._seed, d, validating)
    job_d = dask.delayed(job, name=f"perceptron-job-{uuid.uuid4().hex}", traverse=False)
    shards = [dask.delayed(_prepare)(xb, yb, wb, job_d, s)
              for s, (xb, yb, wb) in enumerate(zip(xs, ys, ws))]
    if persist:
        shards = list(dask.persist(*shards, scheduler=client))
    _train(est, shards, job_d, validating, mixing, client)
    return est


def _epoch_graph(state: dict[str, np.ndarray], shards: list, job_d: Delayed, epoch: int,
                 mixing: str) -> tuple[Delayed, list]:
    """The mixed state and the shards' (mistakes, rows) of one epoch, as lazy values."""
    dask = _dask()
    state_d = dask.delayed(state, name=f"perceptron-state-{uuid.uuid4().hex}", traverse=False)
    outs = [dask.delayed(_shard_epoch)(state_d, shard, job_d, s, epoch)
            for s, shard in enumerate(shards)]
    stats = [dask.delayed(_shard_stats)(out) for out in outs]
    plan = dask.delayed(_mix_plan)(stats, mixing, state.get("count"))
    parts = [dask.delayed(_mix_part)(plan, outs[i:i + _FAN_IN], i)
             for i in range(0, len(outs), _FAN_IN)]
    while len(parts) > 1:
        parts = [dask.delayed(_mix_sum)(parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    return dask.delayed(_mix_finish)(parts[0], plan), stats


def _validation_score(state: dict[str, np.ndarray], shards: list, job_d: Delayed,
                      client: Any) -> float:
    dask = _dask()
    state_d = dask.delayed(state, name=f"perceptron-state-{uuid.uuid4().hex}", traverse=False)
    counts = dask.compute([dask.delayed(_shard_score)(state_d, shard, job_d)
                           for shard in shards], scheduler=client)[0]
    correct, total = (sum(c[i] for c in counts) for i in (0, 1))
    return correct / total


def _train(est: Any, shards: list, job_d: Delayed, validating: bool, mixing: str,
           client: Any) -> None:
    """The epoch loop of the serial skeleton, one mixed epoch at a time."""
    dask = _dask()
    history: list[int] = []
    stopping = _Stopping(est, validating)
    name = f"{type(est).__name__} (dask, {len(shards)} shards)"
    try:
        for _ in range(est.max_iter):
            tic = time.perf_counter()
            mixed_d, stats_d = _epoch_graph(est._state, shards, job_d, est._epochs_seen,
                                            mixing)
            mixed, stats = dask.compute(mixed_d, stats_d, scheduler=client)
            est._state = mixed  # only now: every shard of the epoch has answered
            est._epochs_seen += 1
            mistakes = sum(k for k, _, _ in stats)
            history.append(mistakes)
            score = None
            if validating and mistakes > 0:  # as serial: no score after an error-free epoch
                score = _validation_score(est._state, shards, job_d, client)
            stop, extra = stopping.after_epoch(mistakes, None, score)
            if est.verbose:
                report_epoch(name, len(history), mistakes, sum(n for _, n, _ in stats),
                             time.perf_counter() - tic, extra)
            if stop:
                break
    finally:
        est.mistakes_ = np.asarray(history, dtype=np.int64)
        est.n_iter_ = len(history)
        est.converged_ = bool(history) and history[-1] == 0
        est._publish()


# ----------------------------------------------------------------------- lazy prediction

def _block_decision(est: Any, X: Any) -> np.ndarray:
    return np.asarray(est.decision_function(X), dtype=np.float64)


def _block_predict(est: Any, X: Any) -> np.ndarray:
    return np.asarray(est.predict(X))


def _on_block(block: Any, est: Any, fn: Any) -> np.ndarray:
    return fn(est, block)


def _blockwise_rows(estimator: Any, X: Any, fn: Any, dtype: np.dtype, width: int) -> Array:
    """fn(estimator, block) on every block of rows of X, lazily; width 0 means 1-D."""
    dask = _dask()
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


def decision_function(estimator: Any, X: Any) -> Array:
    """``estimator.decision_function`` of every block of rows of X (dask array or
    DataFrame), as a lazy dask array: shape (n,) for two classes, (n, n_classes) else."""
    _fitted(estimator)
    if not hasattr(estimator, "decision_function"):
        raise TypeError(f"{type(estimator).__name__} has no decision_function")
    k = len(getattr(estimator, "classes_", ()))
    return _blockwise_rows(estimator, X, _block_decision, np.dtype(np.float64),
                           k if k > 2 else 0)


def predict(estimator: Any, X: Any) -> Array:
    """``estimator.predict`` of every block of rows of X, as a lazy 1-D dask array of
    labels (the dtype of ``classes_``)."""
    _fitted(estimator)
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
    """The Gram matrix K[i, j] = k(a_i, b_j) of dask rows, as a lazy dask array whose block
    (i, j) is `perceptron_c.kernels.gram` of A's block i and B's block j (B=None: A).

    A and B: dask arrays (dense or sparse blocks) or DataFrames; B may also be in memory.
    ``kernel``, ``log2`` and ``params`` as in `perceptron_c.kernels.gram`.
    """
    _dask()
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
