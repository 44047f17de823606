"""Training and prediction on dask clusters (``pip install "perceptron-c[dask]"``).

`fit` trains a `Perceptron` (plain, averaged, normalized; binary, K-class argmax or
one-vs-rest; in the textbook's arithmetic or, with ``tol`` or ``penalty``, in scikit-learn's),
a `PassiveAggressiveClassifier` or a `PassiveAggressiveRegressor` on a dask array or dask
DataFrame by iterative parameter mixing ([McDonald2010]): every epoch runs one perceptron
epoch on every shard from the current mixed weights, mixes the shards' weights, and hands the
mix back to every shard. The result is a fitted estimator of the usual class, which predicts,
saves and loads like one trained serially; a fit on one shard is the serial fit, bit for bit.

Use::

    import dask.array as da
    from perceptron_c import Perceptron, dask as pdask

    X = da.from_array(X_numpy, chunks=(10_000, -1))
    y = da.from_array(y_numpy, chunks=10_000)
    model = pdask.fit(Perceptron(average=True), X, y)
    labels = pdask.predict(model, X).compute()

docs/dask.md has the guarantees in full.

One epoch of the distributed fit:

1. every block of rows (a shard) runs one ordinary epoch of the estimator's own training
   routine (the same C routine, or Python twin, as a serial epoch) on the worker that holds
   it, starting from a copy of the mixed state, in the order a serial fit would visit it
   (shard 0 with the model's own seeds, so a one-shard fit is the serial fit, bit for bit);
2. the shard states are mixed on the workers, in a tree: ``x = sum_s mu_s x_s``, with
   ``mu_s = 1 / S`` (``mixing="uniform"``, over the S non-empty shards) or ``mu_s = k_s / k``
   (``mixing="mistakes"``: k_s mistakes of shard s, k their sum; uniform when k = 0);
3. the client receives the mixed state, the shards' mistake counts (and, in scikit-learn's
   arithmetic, their objective sums), nothing else.

A fit is all or nothing. Before any training, the rows of X, y and the sample weights must
agree, in total and block by block (blocks of unknown size, a DataFrame's or a dask array's
with nan chunks, are counted in one pass). Training runs on a copy of the estimator, which
replaces it only when the fit succeeds: after an error (bad values in a block, an overflow,
a task that keeps failing) or Ctrl-C the estimator is exactly as it was before the call,
fitted or not. (A serial fit keeps the epochs it finished before an overflow or Ctrl-C.)

What the state is and how each part mixes (the averaging sums, scikit-learn's weight scale,
the clocks) is in `perceptron_c.dask._mixing`, which runs on the workers; in short, the mixed
average is the mix of the averages each shard's serial run would define from the mixed
state, and with uniform mixing over equal shards every epoch weighs as much in the average
as in a serial run. Stopping is the estimator's own rule on the sums over the shards: an
error-free epoch, ``max_iter``, early stopping on the held-out rows of every shard, or
scikit-learn's ``tol`` rule per machine.

An estimator of the textbook kind plugs in when its class sets ``_mixable_state = True``:
its training state is ``_state``, a dict of arrays declared by ``_declared_state(spec)``
(`perceptron_c._estimator._training.StateArray`: float64 arrays that mix linearly, and
optionally the averaging sums and their clock ``count``); an epoch is ``epoch(order)`` of the
`Run` that ``_start(X, y, weights, spec)`` returns, as in the serial loop.

`predict`, `decision_function` (any fitted estimator of the package; a `StructuredPerceptron`
predicts with ``lengths``, blocks of whole sentences) and `gram` (any kernel) return lazy dask
arrays computed block by block. dask is imported only when one of these
runs, never by ``import perceptron_c``.
"""
from __future__ import annotations

import copy
import uuid
from typing import TYPE_CHECKING, Any

import numpy as np

from .._estimator._base import EpochModel, Run
from .._estimator._training import run_epochs, set_feature_names, start, warn_if_not_converged
from .._utils._threads import OWNER_KEYS, training
from .._utils._validation import (
    check_choice,
    check_classes,
    check_same_classes,
    check_two_classes,
    feature_names,
)
from ..passive_aggressive import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from ..perceptron import Perceptron
from . import _mixing, _sequence
from ._predict import decision_function, gram, need_dask, predict

if TYPE_CHECKING:
    from dask.delayed import Delayed

__all__ = ["fit", "predict", "decision_function", "gram", "MIXING"]

MIXING = ("uniform", "mistakes")
_FAN_IN = 8  # shard states mixed per task, at each level of the tree
_MIXABLE = (Perceptron, PassiveAggressiveClassifier, PassiveAggressiveRegressor)


# ----------------------------------------------------------------------------- the inputs

def _known(chunks: tuple) -> list[int | None]:
    """Block sizes, None where dask does not know them (nan)."""
    return [None if np.isnan(c) else int(c) for c in chunks]


def _delayed_blocks(v: Any) -> list:
    return list(np.asarray(v.to_delayed(optimize_graph=False), dtype=object).ravel())


def _x_blocks(X: Any) -> tuple[list, list[int | None], int, np.ndarray | None]:
    """X's blocks of rows (Delayed), their sizes where known, the number of features and the
    feature names."""
    import dask.array as da

    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X: expected a 2-D dask array, got {X.ndim} dimension(s)")
        X = X.rechunk({1: -1}) if X.numblocks[1] > 1 else X  # shards are whole rows
        return _delayed_blocks(X), _known(X.chunks[0]), int(X.shape[1]), None
    if hasattr(X, "to_delayed") and hasattr(X, "columns") and hasattr(X, "npartitions"):
        return _delayed_blocks(X), [None] * X.npartitions, len(X.columns), feature_names(X)
    raise TypeError(f"X: expected a dask array or a dask DataFrame, got "
                    f"{type(X).__name__} (for data in memory, call the estimator's fit)")


def _all_known(rows: list[int | None]) -> list[int] | None:
    return None if None in rows else [r for r in rows if r is not None]


def _check_total(name: str, n: int, m: Any) -> None:
    if n != m:
        raise ValueError(f"X and {name} have inconsistent numbers of samples: {n} != {m}")


class _Column:
    """y or the sample weights, by X's blocks of rows: ``blocks`` (Delayed or arrays in
    memory, one per block of X) and their sizes ``rows``, None where only computing tells;
    or, with ``rows`` None, the one value for every row (no weights, or one weight). A dask
    array of known sizes waits in ``array`` until X's sizes are known, then takes them
    (``line_up``)."""

    def __init__(self, v: Any, name: str, x_rows: list[int | None]) -> None:
        import dask.array as da

        self.name, self.array, self.memory = name, None, False
        self.blocks: list = []
        self.rows: list[int | None] | None = None
        if v is None and name == "y":
            raise ValueError("this estimator requires y to be passed, but the target y is None")
        if v is None or (name == "sample_weight" and not hasattr(v, "to_delayed")
                         and np.ndim(v) == 0):
            self.blocks = [v] * len(x_rows)
        elif isinstance(v, da.Array) and v.ndim == 0:
            raise ValueError(f"{name}: expected one value per row of X, got a dask scalar")
        elif isinstance(v, da.Array) and None not in _known(v.chunks[0]):
            self.array, self.rows = v, _known(v.chunks[0])
        elif hasattr(v, "to_delayed"):  # blocks of unknown sizes: they must be X's blocks
            self.blocks = _delayed_blocks(v)
            if len(self.blocks) != len(x_rows):
                raise ValueError(f"{name} has {len(self.blocks)} blocks of rows but X has "
                                 f"{len(x_rows)}; give both the same partitions")
            self.rows = _known(v.chunks[0]) if isinstance(v, da.Array) else \
                [None] * len(x_rows)
        else:
            sizes = _all_known(x_rows)
            if sizes is None:
                raise TypeError(f"{name}: expected a dask array or Series, got "
                                f"{type(v).__name__}")
            arr = np.asarray(v)
            _check_total(name, sum(sizes), arr.shape[0] if arr.ndim else "a scalar")
            ends = np.cumsum(sizes)
            self.blocks = [arr[end - size:end] for end, size in zip(ends, sizes)]
            self.rows, self.memory = list(sizes), True

    def line_up(self, x_sizes: list[int]) -> None:
        """The dask array of known sizes, rechunked to X's blocks if it has others."""
        if self.array is None:
            return
        sizes = [int(c) for c in self.array.chunks[0]]
        if sizes != x_sizes:
            _check_total(self.name, sum(x_sizes), sum(sizes))
            self.array = self.array.rechunk({0: tuple(x_sizes)})
        self.blocks, self.rows, self.array = _delayed_blocks(self.array), list(x_sizes), None

    def check(self, x_sizes: list[int], sizes: list[int]) -> None:
        """The rows are X's, in total and then block by block."""
        _check_total(self.name, sum(x_sizes), sum(sizes))
        for s, (a, b) in enumerate(zip(x_sizes, sizes)):
            if a != b:
                raise ValueError(f"X and {self.name} have inconsistent numbers of samples in "
                                 f"block {s} of rows: {a} != {b} (both have {sum(x_sizes)} "
                                 "rows in all); give both the same partitions")


def _inputs(X: Any, y: Any, w: Any, want_classes: bool, scheduler: Any
            ) -> tuple[list, list, list, int, np.ndarray | None, np.ndarray | None]:
    """Blocks of rows of X, y and the sample weights, lined up (Delayed, or arrays in
    memory), the number of features, the feature names and (want_classes) y's labels.

    Nothing trains before the rows of X, y and the weights are known to agree, in total and
    block by block. Blocks of unknown size (a DataFrame's, a dask array's with nan chunks)
    are counted in one pass, which also finds the labels (only their distinct values come
    back); the labels are used only once every one is known to have its row. The graphs are
    taken as they are: optimizing each alone would fuse what they share (a task making both
    X and y) into each, and compute it twice per epoch."""
    dask = need_dask()
    xs, x_rows, d, names = _x_blocks(X)
    ys, ws = _Column(y, "y", x_rows), _Column(w, "sample_weight", x_rows)
    x_sizes = _all_known(x_rows)
    if x_sizes is not None:  # a y of other length fails here, before anything is computed
        ys.line_up(x_sizes)
        ws.line_up(x_sizes)

    def count(blocks: list, rows: list[int | None] | None) -> list:
        return [] if rows is None else [
            dask.delayed(_mixing.block_rows)(blocks[s]) if r is None else r
            for s, r in enumerate(rows)]

    label_blocks = []
    if want_classes and not ys.memory:
        label_blocks = ys.blocks if ys.array is None else _delayed_blocks(ys.array)
    tasks = (count(xs, x_rows), count(ys.blocks, ys.rows), count(ws.blocks, ws.rows),
             [dask.delayed(_mixing.block_classes)(b) for b in label_blocks])
    if any(dask.is_dask_collection(t) for group in tasks for t in group):
        tasks = dask.compute(*tasks, scheduler=scheduler)
    x_sizes = [int(r) for r in tasks[0]]
    for column, counted in zip((ys, ws), tasks[1:3]):
        if column.array is not None:
            column.line_up(x_sizes)  # checks the total, then takes X's blocks
        elif column.rows is not None:
            column.check(x_sizes, [int(r) for r in counted])
    labels = None
    if want_classes:  # every label has its row: the rows' labels, no others
        parts = [_mixing.block_classes(b) for b in ys.blocks] if ys.memory else tasks[3]
        parts = [p for p in parts if p.shape[0]]
        if not parts:
            raise ValueError("y: found no labels (every block is empty)")
        labels = np.unique(np.concatenate(parts))
    return xs, ys.blocks, ws.blocks, d, names, labels


# ---------------------------------------------------------------------------------- fit

def _check_estimator(est: Any) -> None:
    if not (isinstance(est, _MIXABLE) or getattr(type(est), "_mixable_state", False)):
        raise TypeError(f"estimator: parameter mixing trains a Perceptron, a "
                        f"PassiveAggressiveClassifier or a PassiveAggressiveRegressor (or an "
                        f"estimator with _mixable_state), got {type(est).__name__}; predict "
                        "and decision_function work with every estimator")
    if not isinstance(est, EpochModel):
        raise TypeError(f"estimator: {type(est).__name__} is not a perceptron_c estimator")
    est._spec()
    if isinstance(getattr(est, "class_weight", None), str):
        raise ValueError("estimator: class_weight='balanced' would weigh each shard by its "
                         "own class counts; pass a dict of weights instead")


def fit(estimator: Any, X: Any, y: Any, *, sample_weight: Any = None, client: Any = None,
        mixing: str = "uniform", classes: Any = None, persist: bool = False,
        lengths: Any = None) -> Any:
    """Train ``estimator`` on dask data by iterative parameter mixing.

    Parameters
    ----------
    estimator : estimator of the package
        A Perceptron, PassiveAggressiveClassifier, PassiveAggressiveRegressor or
        StructuredPerceptron (with ``lengths``). Trained in place, with its own parameters
        (``max_iter``, ``average``, ``tol``, ``penalty``, ``early_stopping``, ``warm_start``,
        ``verbose``...), and returned: an ordinary fitted estimator (numpy predict, ``save``,
        ``partial_fit``).
    X : dask array (dense or scipy.sparse blocks, float32/float64) or dask DataFrame
        Each block of rows is a shard; blocks along columns are merged first.
    y : dask array or Series with the same row blocks (or a numpy array when X's block sizes
        are known): labels of any type, or a regressor's real targets
    sample_weight : like y, optional
        Each example's update is multiplied by its weight, as in the estimator's own fit.
    client : distributed.Client, a scheduler name ("threads", "synchronous", "processes"),
        or None for dask's default (the current Client if there is one)
    mixing : {"uniform", "mistakes"}
        Weights of the shards in the mix: equal, or each shard's share of the mistakes (a
        regressor's "mistakes" are its examples with a nonzero loss).
    classes : array-like, optional
        Every label (classifiers); saves the pass over y that finds them (blocks of unknown
        size are still counted).
    persist : bool, default False
        Keep the gated shards in the workers' memory for all epochs. Otherwise every epoch
        reads X's blocks from their graph again (persist X yourself to keep it in memory).
    lengths : numpy or dask array, required for a `StructuredPerceptron` (only then)
        The number of tokens of each sentence, in order, summing to X's rows (read on the
        client). X must be a dask array with blocks of whole sentences: a block boundary
        inside a sentence is a ValueError, not rechunked.

    Returns
    -------
    estimator
        The same object, fitted.

    Raises
    ------
    ValueError
        Before training: X, y and sample_weight with other numbers of rows (in total or in
        a block), a `StructuredPerceptron` without ``lengths`` or with a block boundary
        inside a sentence; during it, bad values in a block (as the estimator's fit) or an
        overflow.
    Any error of a task, or KeyboardInterrupt
        In every case the estimator is left exactly as it was before the call (fitted or
        not), and nothing is drawn from its ``random_state``.
    """
    _check_estimator(estimator)
    check_choice(mixing, "mixing", MIXING)
    classifier = estimator._classifier
    sentences = getattr(type(estimator), "_sentences", False)
    if sentences:  # whole sentences per block, their lengths in sample_weight's place
        if sample_weight is not None:
            raise ValueError("sample_weight: the structured perceptron takes none")
        per_block = _sequence.shard_lengths(X, lengths, "fit")
    elif lengths is not None:
        raise ValueError(f"lengths: {type(estimator).__name__} trains on rows, not sentences")
    xs, ys, ws, d, names, labels = _inputs(X, y, sample_weight,
                                           classifier and classes is None, client)
    if sentences:
        ws = per_block
    cls = None
    if classifier:  # the labels found in y, or (none looked for) the classes given
        cls = check_classes(classes) if labels is None else labels
        check_two_classes(cls)
    with training(estimator):  # (another thread's predict meanwhile: ConcurrentUseError)
        drawn = _generator_state(estimator.random_state)
        est = _working_copy(estimator)
        try:
            _fit_copy(est, xs, ys, ws, d, names, cls, client, mixing, persist)
        except BaseException:
            _restore_generator(estimator.random_state, drawn)
            raise
        owner = {key: vars(estimator)[key] for key in OWNER_KEYS}
        vars(estimator).clear()  # the swap: the estimator becomes the trained copy
        vars(estimator).update(vars(est), **owner)
    warn_if_not_converged(estimator)
    return estimator


def _working_copy(est: Any) -> Any:
    """The estimator to train: the same parameters (``random_state`` is the very object the
    estimator draws from), copies of everything fitted, which a warm start changes in place."""
    work = copy.copy(est)
    params = set(est._get_param_names())
    for key, value in vars(est).items():
        if key not in params:
            setattr(work, key, copy.deepcopy(value))
    return work


def _generator_state(random_state: Any) -> Any:
    if isinstance(random_state, np.random.Generator):
        return random_state.bit_generator.state
    if isinstance(random_state, np.random.RandomState):
        return random_state.get_state()
    return None


def _restore_generator(random_state: Any, state: Any) -> None:
    """A failed fit draws nothing: the next fit draws the seeds this one drew."""
    if isinstance(random_state, np.random.Generator):
        random_state.bit_generator.state = state
    elif isinstance(random_state, np.random.RandomState):
        random_state.set_state(state)


def _fit_copy(est: Any, xs: list, ys: list, ws: list, d: int, names: np.ndarray | None,
              cls: np.ndarray | None, client: Any, mixing: str, persist: bool) -> Any:
    """Set up the working copy as a serial fit would, then train it; return the mixer."""
    dask = need_dask()
    if est.warm_start and est._is_fitted():
        if cls is not None:
            check_same_classes(cls, est.classes_)
        est._check_continuation(np.empty((0, d)), est._spec())
        est._warm_restart()
    else:
        if cls is not None:
            est.classes_ = cls
        start(est, d, est._draw_seed())
        est._init_state(np.zeros((1, d)), est._spec())
    set_feature_names(est, names)
    mixer = _sequence.Sentences if getattr(est, "_sentences", False) else \
        _mixing.mixer_of(est)
    # the workers' estimators: no warm start, seeds passed in (random_state is not drawn)
    params = dict(est.get_params(), warm_start=False, random_state=0)
    validating = bool(getattr(est, "early_stopping", False))
    seeds = _mixing.sgd_seeds(est) if mixer is _mixing.SGD else ()
    job = _mixing.Job(type(est), params, est.classes_ if cls is not None else None, est._seed,
                      d, validating, seeds)
    job_d = dask.delayed(job, name=f"perceptron-job-{uuid.uuid4().hex}", traverse=False)
    prepare = getattr(mixer, "prepare", _mixing.prepare)
    shards = [dask.delayed(prepare)(xb, yb, wb, job_d, s)
              for s, (xb, yb, wb) in enumerate(zip(xs, ys, ws))]
    if persist:
        shards = list(dask.persist(*shards, scheduler=client))
    _train(est, mixer, shards, job_d, validating, mixing, client)
    return mixer


def _delayed_value(value: Any, what: str) -> Delayed:
    return need_dask().delayed(value, name=f"perceptron-{what}-{uuid.uuid4().hex}",
                           traverse=False)


def _epoch_graph(mixer: Any, state: dict[str, np.ndarray], shards: list, job_d: Delayed,
                 when: _mixing.When, mixing: str) -> tuple[Delayed, list]:
    """The mixed state and the shards' statistics of one epoch, as lazy values."""
    dask = need_dask()
    state_d = _delayed_value(state, "state")
    outs = [dask.delayed(mixer.epoch)(state_d, shard, job_d, s, when)
            for s, shard in enumerate(shards)]
    stats = [dask.delayed(mixer.stats)(out) for out in outs]
    plan = dask.delayed(mixer.plan)(stats, mixing, state_d)
    parts = [dask.delayed(mixer.part)(plan, outs[i:i + _FAN_IN], i)
             for i in range(0, len(outs), _FAN_IN)]
    while len(parts) > 1:
        parts = [dask.delayed(_mixing.mix_sum)(parts[i:i + _FAN_IN])
                 for i in range(0, len(parts), _FAN_IN)]
    return dask.delayed(mixer.finish)(parts[0], plan, state_d), stats


class _MixedRun(Run[Any]):
    """A dask fit as a `Run` of the one epoch loop (`_training.run_epochs`): an epoch is a
    mixing round over the shards (`_epoch_graph`); stopping is the serial rule on the shards'
    sums: `Run.after_epoch`'s in the textbook's arithmetic, `_mixing.SGDLoop`'s (machine by
    machine) in scikit-learn's."""

    def __init__(self, est: Any, mixer: Any, shards: list, job_d: Delayed, validating: bool,
                 mixing: str, client: Any) -> None:
        self.est, self.mixer, self.shards, self.job_d = est, mixer, shards, job_d
        self.validating, self.mixing, self.client = validating, mixing, client
        self.state = mixer.begin(est)
        self.loop = mixer.loop(est, validating, self.compute)
        self.stats: list = []
        self.rounds = 0

    def compute(self, fn: Any, *args: Any) -> list:
        """fn(shard, *args) on every shard."""
        dask = need_dask()
        return dask.compute([dask.delayed(fn)(shard, *args) for shard in self.shards],
                            scheduler=self.client)[0]

    def order(self) -> _mixing.When:
        """Not rows: where the round stands, from which each shard draws its own order."""
        active = () if self.loop is None else self.loop.active
        return _mixing.When(self.est._epochs_seen, self.rounds, active)

    def epoch(self, order: _mixing.When) -> int:
        mixed_d, stats_d = _epoch_graph(self.mixer, self.state, self.shards, self.job_d,
                                        order, self.mixing)
        mixed, self.stats = need_dask().compute(mixed_d, stats_d, scheduler=self.client)
        self.state = mixed  # only now: every shard of the round has answered
        self.rounds += 1
        return sum(s[0] for s in self.stats)

    def arrays(self) -> list[np.ndarray]:
        """None: a round that fails leaves ``state`` as it was, so there is nothing to undo."""
        return []

    def overflow(self, exc: Exception) -> Exception:
        """As it came: the workers name the epoch and the block (`_mixing._shard_epoch`)."""
        return exc

    def after_epoch(self, mistakes: int, val: Any) -> tuple[bool, str]:
        if self.loop is None:
            return super().after_epoch(mistakes, val)
        return self.loop.after_epoch(self.stats, self._scores() if self.validating else None)

    def validation_score(self, val: Any) -> float:
        """The share of the held-out rows of every shard (weighed) that the mix gets right."""
        scores = self._scores()
        return sum(c for c, _ in scores) / sum(t for _, t in scores)

    def _scores(self) -> list:
        return self.compute(self.mixer.score, _delayed_value(self.state, "state"), self.job_d)

    def progress(self) -> tuple[str, int]:
        return (f"{type(self.est).__name__} (dask, {len(self.shards)} shards)",
                sum(s[1] for s in self.stats))

    def finish(self, credit_epochs: int) -> None:
        self.mixer.end(self.est, self.state)


def _train(est: Any, mixer: Any, shards: list, job_d: Delayed, validating: bool,
           mixing: str, client: Any) -> None:
    """The serial epoch loop, one mixing round per epoch, on the working copy (an error
    leaves it half-trained: `fit` then drops it)."""
    run = _MixedRun(est, mixer, shards, job_d, validating, mixing, client)
    # the held-out rows (val) stay on their shards: the run scores them there
    run_epochs(est, run, est.max_iter, shards if validating else None, fitting=True)
