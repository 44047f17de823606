"""The steps of a training call, as functions that an estimator's ``fit`` and ``partial_fit``
call in order, in plain sight (`perceptron.Perceptron.fit` reads as the list below), and that
dask's mixed fit calls too:

0. `model_kept` around them all: an error or Ctrl-C before an epoch ends leaves the model as
   it was;
1. ``est._spec()``: the parameters checked against their rules (`_params.Parameters._spec`),
   then what the call needs from them;
2. `gate`: the rows checked and made canonical, with their feature names;
3. the labels: `fit_labels` (``classes_`` from them), or `next_batch` for ``partial_fit``
   (the first call's declared ``classes`` and a fresh state, later calls' continuation);
4. `start_or_continue`: `start` a fresh model (seed, counters, feature names), or continue
   one (the estimator's own check that its state fits the rows);
5. `hold_out`: the validation split of ``early_stopping``;
6. the estimator's `Run`: one training call's epoch function over the state arrays;
7. `train` (`run_epochs`): the loop, each epoch all or nothing (`epoch`), then the model
   published;
8. `warn_if_not_converged`.

Below the steps, what they drive: the `Run` protocol of one training call, which
`run_epochs` drives, the visiting order of every epoch (reproducible from the seed and the
epoch number alone), the stopping rules (`_Stopping`: the textbook's and scikit-learn's) and
the progress line.

The state a run works on, declared once. The models whose state is a dict of arrays
(``est._state``: the perceptron, the passive-aggressive estimators, the structured
perceptron) declare each array once, as a `StateArray`: its name, dtype, shape rule and how
dask's parameter mixing combines it. From the declaration follow the fresh state of a first
fit (`new_state`), the model file's entries (``state_<name>``, `state_entries`) and their
checks on reading (`restore_state`), and the mixing roles (`mixing_roles`); an epoch's
checkpoint and rollback copy the same arrays (`Run.arrays`).

The kernel models declare their saved state the same way (`kernels._model`), with shapes
over the support set's size ``"n_sv"``, which grows: the model file's entries (named without
the prefix) and their checks follow from it; their arrays stay attributes (``_alpha``...).
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from .. import _backend
from .._utils._rows import take_rows
from .._utils._threads import OWNER_KEYS
from .._utils._validation import (
    check_classes,
    check_feature_names,
    check_same_classes,
    check_state_array,
    check_two_classes,
    check_y,
    encode_labels,
)
from ..exceptions import ConvergenceWarning, sklearn_flavoured

if TYPE_CHECKING:  # _base imports this module
    from ._base import EpochModel

__all__ = ["model_kept", "gate", "fit_labels", "next_batch", "first_classes", "start",
           "start_or_continue", "set_feature_names", "hold_out", "epoch", "run_epochs", "train",
           "validation_split", "Run", "draw_seed", "epoch_order", "report_epoch",
           "warn_if_not_converged", "fixed_epochs", "TEXTBOOK_WARNING", "StateArray", "new_state",
           "state_entries", "entry_names", "restore_state", "mixing_roles"]


# --------------------------------------------------------------------------- the steps

class model_kept:
    """The block of a training call that puts back the model it started from if it fails or
    is interrupted (Ctrl-C) before it finishes an epoch: the attributes it replaced, and the
    state arrays a warm start changes in place. Once an epoch has finished, the epochs
    finished are kept (`_training.run_epochs`): the model of that shorter call."""

    def __init__(self, est: Any) -> None:
        self.est = est
        before = {k: v for k, v in est.__dict__.items() if k not in OWNER_KEYS}
        state = before.get("_state")
        if isinstance(state, dict) and getattr(est, "warm_start", False):
            before["_state"] = {k: v.copy() if isinstance(v, np.ndarray) else v
                                for k, v in state.items()}
        self.before = before

    def __enter__(self) -> model_kept:
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        attributes = self.est.__dict__
        if kind is not None and not attributes.get("_epochs_done"):
            for key in [k for k in attributes if k not in OWNER_KEYS]:
                del attributes[key]
            attributes.update(self.before)
        attributes.pop("_epochs_done", None)


def gate(est: Any, X: Any, gate_X: Callable[[Any], Any], first: bool) -> tuple[Any, Any]:
    """(canonical rows, feature names) of a training call: the names checked against the
    model's (``first``: they replace them), then the rows through ``gate_X``."""
    names = check_feature_names(X, getattr(est, "feature_names_in_", None),
                                type(est).__name__, reset=first)
    return gate_X(X), names


def fit_labels(est: Any, y: Any, n: int, fresh: bool) -> np.ndarray:
    """The class index of each of the ``n`` labels of a ``fit`` call; ``classes_`` set from
    them for a ``fresh`` model (at least two), checked against the model's when it goes on
    (``warm_start``)."""
    classes, y_idx = encode_labels(check_y(y, n))
    check_two_classes(classes)
    if fresh:
        est.classes_ = classes
        return y_idx
    check_same_classes(classes, est.classes_)
    return encode_labels(classes, est.classes_)[1][y_idx]  # classes_ may be unsorted


def next_batch(est: Any, Xc: Any, yc: np.ndarray, classes: Any, spec: Any,
               names: np.ndarray | None, first: bool) -> np.ndarray:
    """``partial_fit``'s state and labels: on the first call, the declared ``classes`` and a
    fresh state; after it, the state checked to go on and the batch's labels met
    (``_meet_classes``). Returns the batch's class indices."""
    if first:
        est.classes_ = first_classes(classes)
        start_or_continue(est, Xc, spec, True, names)  # a fresh state
    else:
        est._check_continuation(Xc, spec)
        est._meet_classes(yc, classes)
    return encode_labels(yc, est.classes_)[1]


def first_classes(classes: Any) -> np.ndarray:
    """The classes of a first ``partial_fit`` call, which must declare them (two at least)."""
    if classes is None:
        raise ValueError("classes must be passed on the first call to partial_fit")
    classes = check_classes(classes)
    check_two_classes(classes)
    return classes


def start(est: Any, n_features: int, seed: int) -> None:
    """A fresh model's common state: its seed (epoch orders, validation split), no epoch yet."""
    est._seed = seed
    est._epochs_seen = 0
    est.n_features_in_ = int(n_features)
    est.mistakes_ = np.zeros(0, dtype=np.int64)
    est.n_iter_ = 0
    est.converged_ = False


def start_or_continue(est: Any, Xc: Any, spec: Any, fresh: bool, names: np.ndarray | None,
                      init: tuple | None = None) -> None:
    """``fit``'s state: a fresh one (`start`, the estimator's own ``_init_state``, then the
    starting (coef, intercept) ``init`` when given), or the one there, checked to go on with
    these rows (``_check_continuation``, then ``_warm_restart``); then the rows' feature
    ``names`` (`set_feature_names`)."""
    if fresh:
        start(est, Xc.shape[1], est._draw_seed())
        est._init_state(Xc, spec)
        if init is not None:
            est._set_initial(*init)
    else:
        est._check_continuation(Xc, spec)
        est._warm_restart()
    set_feature_names(est, names)


def set_feature_names(est: Any, names: np.ndarray | None) -> None:
    """``feature_names_in_`` from a training call's rows (none: the attribute goes)."""
    if names is not None:
        est.feature_names_in_ = names
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_


def validation_split(est: Any, y: np.ndarray, w: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Hold out round(validation_fraction * n) rows (at least 1) at random; for a
    classifier never the first row of a class, so every class stays in training; never a
    row of weight 0 (as scikit-learn), so the validation score has weight."""
    n = y.shape[0]
    keep = np.zeros(n, dtype=bool) if w is None else w == 0
    if est._classifier:
        keep[np.unique(y, return_index=True)[1]] = True
    candidates = np.flatnonzero(~keep)
    n_val = min(max(1, int(round(est.validation_fraction * n))), candidates.shape[0])
    if n_val == 0 or n_val >= n:
        raise ValueError(f"early_stopping: too few samples (n_samples = {n}) to hold out "
                         "a validation set")
    rng = np.random.default_rng([est._seed, 2**32 - 1])
    va = np.sort(rng.permutation(candidates)[:n_val])
    return np.setdiff1d(np.arange(n), va), va


def hold_out(est: Any, Xc: Any, y: np.ndarray, w: np.ndarray | None
             ) -> tuple[Any, np.ndarray, np.ndarray | None, tuple | None]:
    """(training rows, targets, weights, validation (X, y, w) or None): the split of
    ``early_stopping`` when the estimator has it and it is on."""
    if not (est._has_early_stopping and est.early_stopping):
        return Xc, y, w, None
    tr, va = validation_split(est, y, w)
    val = (take_rows(Xc, va), y[va], None if w is None else w[va])
    return take_rows(Xc, tr), y[tr], None if w is None else w[tr], val


def epoch(run: Run) -> int:
    """One epoch, all or nothing: on Ctrl-C or a float64 overflow the state goes back to
    what it was before the epoch, then the error propagates (an overflow as the run's
    `Run.overflow` error)."""
    saved = run.checkpoint()
    try:
        return int(run.epoch(run.order()))
    except (FloatingPointError, OverflowError) as exc:
        run.rollback(saved)
        error = run.overflow(exc)
        if error is exc:
            raise
        raise error from None
    except BaseException:
        run.rollback(saved)
        raise


def train(est: Any, run: Run, n_rows: int, epochs: int, val: tuple | None,
          fitting: bool) -> None:
    """`run_epochs` over ``n_rows`` training rows (what the default order permutes, unless
    the run orders its own rows)."""
    if not hasattr(run, "n_rows"):
        run.n_rows = n_rows
    run.n_shown = n_rows
    run_epochs(est, run, epochs, val, fitting)


def run_epochs(est: Any, run: Run, epochs: int, val: Any, fitting: bool) -> None:
    """The epoch loop, of a serial run or of dask's mixing rounds: up to ``epochs`` epochs,
    each `epoch`, until the run's stopping rule says so; then the history (``mistakes_``,
    ``n_iter_``, ``converged_``: a ``fit`` starts it, a ``partial_fit`` extends it) and the
    model published. On an error or Ctrl-C, the epochs finished so far are kept (the one
    under way is undone), then the error propagates."""
    done = 0
    before = 0 if fitting else est.mistakes_.shape[0]
    history: list[int] = []
    try:
        for _ in range(epochs):
            tic = time.perf_counter()
            mistakes = epoch(run)
            est._epochs_seen += 1
            done += 1
            history.append(mistakes)
            stop, extra = run.after_epoch(mistakes, val)
            if est.verbose:
                name, n = run.progress()
                report_epoch(name, before + len(history), mistakes, n,
                             time.perf_counter() - tic, extra)
            if stop:
                break
    finally:
        est.__dict__["_epochs_done"] = done  # (read by model_kept, then dropped)
        if history or fitting:
            last = history[-1] if history else None
        else:
            last = int(est.mistakes_[-1]) if before else None
        converged = last == 0
        run.finish(epochs - done if fitting and converged else 0)
        if fitting:
            est.mistakes_ = np.asarray(history, dtype=np.int64)
        elif history:
            est.mistakes_ = _extended(est, history)
        est.n_iter_ = before + len(history)
        est.converged_ = converged
        est._publish()


def _extended(est: Any, new: list[int]) -> np.ndarray:
    """``est.mistakes_`` followed by ``new``, written into the room after it when the
    model's own buffer has some, else into a new buffer twice as long: a stream of
    ``partial_fit`` calls of one row then costs O(1) a call, not a copy of its whole
    history. A shallow copy of the model (another ``id``) or a history set from elsewhere
    (a model file, dask) is never written into: it gets a buffer of its own."""
    old = est.mistakes_
    n, k = old.shape[0], len(new)
    buf = old.base
    if not (est.__dict__.get("_history_of") == id(est) and isinstance(buf, np.ndarray)
            and buf.dtype == np.int64 and buf.ndim == 1 and buf.shape[0] >= n + k
            and old.ctypes.data == buf.ctypes.data):
        buf = np.empty(max(16, 2 * (n + k)), dtype=np.int64)
        buf[:n] = old
        est.__dict__["_history_of"] = id(est)
    buf[n:n + k] = new
    return buf[:n + k]


# ----------------------------------------------------------------------- the Run protocol

_Model = TypeVar("_Model", bound="EpochModel")


def draw_seed(random_state: Any) -> int:
    """One integer seed from ``random_state`` (None, int, Generator or RandomState)."""
    if random_state is None:
        return int(np.random.default_rng().integers(2**63))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
        return int(np.random.default_rng(int(random_state)).integers(2**63))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise ValueError(f"random_state must be None, an int, a numpy Generator or RandomState; "
                     f"got {random_state!r}")


def epoch_order(seed: int, epoch: int, n: int, shuffle: bool) -> np.ndarray:
    """Visiting order of one epoch: reproducible from (seed, epoch) alone, so a saved model
    resumes with exactly the permutations it would have drawn without stopping. Drawn by the
    `draw_permutation` routine (both twins draw the same one, the C one in a fraction of the
    time of a shuffled epoch)."""
    order = np.arange(n, dtype=np.int64)
    if shuffle:
        _backend.order.draw_permutation(order, seed, epoch)
    return order


def report_epoch(name: str, epoch: int, mistakes: int, n: int, seconds: float,
                 extra: str = "") -> None:
    rate = 100.0 * mistakes / max(n, 1)
    print(f"[{name}] epoch {epoch}: {mistakes} mistakes / {n} ({rate:.2f}%), "
          f"{seconds:.3f} s{extra}", file=sys.stderr, flush=True)


class Run(Generic[_Model]):
    """One training call of one estimator: the data is fixed, the epochs come one by one,
    each driven by `_training.run_epochs` (the one loop, serial or dask's): ``order()``,
    then ``epoch(order)`` between a ``checkpoint()`` and, if it fails, a ``rollback``, then
    ``after_epoch``.

    A run defines `epoch`, and the arrays an epoch changes in place (`arrays`), from which
    checkpoint and rollback follow; it overrides `order` and `after_epoch` where it orders
    its rows or stops by a rule of its own, and `predict_idx` and `finish` where it has them.
    """

    est: _Model
    n_rows: int  # what the default order permutes
    n_shown: int  # the rows an epoch visits, on the progress line
    _saved: list[np.ndarray] | None = None
    _stopping: _Stopping | None = None

    def order(self) -> Any:
        """The rows to visit this epoch: the estimator's permutation for (seed, epoch)."""
        est = self.est
        return epoch_order(est._seed, est._epochs_seen, self.n_rows, est.shuffle)

    def epoch(self, order: Any) -> int:
        """Visit the rows in ``order`` once, updating the model's state; return the mistakes.
        Raises FloatingPointError when an activation or the state leaves float64's range."""
        raise NotImplementedError

    def after_epoch(self, mistakes: int, val: tuple | None) -> tuple[bool, str]:
        """(stop?, text for the progress line): the textbook's rule, or scikit-learn's when
        the estimator asks for it (`_Stopping`), on the validation score when there is one."""
        if self._stopping is None:
            self._stopping = _Stopping(self.est, val is not None)
        score = None
        if val is not None and mistakes != 0:
            score = self.validation_score(val)
        return self._stopping.after_epoch(mistakes, None, score)

    def validation_score(self, val: Any) -> float:
        """The score of the held-out rows ``val`` ((X, y, weights)) under the current state."""
        return self.est._validation_score(self, *val)

    def arrays(self) -> list[np.ndarray]:
        """The arrays an epoch changes in place (all of them: checkpoint copies these)."""
        raise NotImplementedError

    def checkpoint(self) -> Any:
        """A copy of the state an epoch changes, taken before every epoch (into one buffer
        for the whole call: copying into pages already mapped is about twice as fast)."""
        arrays = self.arrays()
        saved = self._saved
        if saved is None or [s.shape for s in saved] != [a.shape for a in arrays]:
            saved = self._saved = [a.copy() for a in arrays]
        else:
            for s, a in zip(saved, arrays):
                np.copyto(s, a)
        return saved

    def rollback(self, saved: Any) -> None:
        """Put back the state of ``checkpoint``: an epoch that did not finish left no trace."""
        for a, s in zip(self.arrays(), saved):
            a[...] = s

    def overflow(self, exc: Exception) -> Exception:
        """What an epoch that left float64's range raises (ValueError naming the epoch, as
        scikit-learn's SGD does), once its state is rolled back."""
        est = self.est
        return ValueError(
            f"{type(est).__name__}: overflow in epoch {est._epochs_seen + 1} ({exc}); the "
            "model keeps the state of the epochs before it. Scaling the input data (e.g. "
            "StandardScaler or MaxAbsScaler) might help.")

    def progress(self) -> tuple[str, int]:
        """(name, rows of the epoch) on the progress line of a verbose estimator."""
        return type(self.est).__name__, self.n_shown

    def predict_idx(self, X: Any) -> np.ndarray:
        """Class indices for canonical rows X under the current state (early stopping)."""
        raise NotImplementedError

    def finish(self, credit_epochs: int) -> None:
        """Move the run's state into the model. ``credit_epochs``: epochs that ``fit`` skipped
        after an error-free one (the voted perceptron credits its last vector with them)."""


# the textbook's warning, as a filter matches it (tests, fixed_epochs)
TEXTBOOK_WARNING = ".* epochs ran without an error-free epoch"


def warn_if_not_converged(est: EpochModel) -> None:
    """After ``fit``: a ConvergenceWarning when all ``max_iter`` epochs ran and the stopping
    rule was not met. scikit-learn's rule as scikit-learn warns (``tol`` set and n_iter_ ==
    max_iter); the textbook's when the last epoch still made mistakes (no error-free epoch:
    the data may not be separable, and every epoch ran)."""
    if est.n_iter_ != est.max_iter:
        return
    name, tol = type(est).__name__, getattr(est, "tol", None)
    if est._sklearn_stopping():
        if tol is None:
            return
        text = (f"{name}: max_iter={est.max_iter} epochs ran before the tol={tol} rule "
                "stopped training; consider increasing max_iter.")
    elif est.converged_:
        return
    else:
        text = (f"{name}: max_iter={est.max_iter} {TEXTBOOK_WARNING[3:]} (the "
                "textbook's stopping rule, tol=None): the data may not be separable. "
                "scikit-learn's rule, which stops when the loss stalls, is tol=1e-3; to train "
                "a fixed number of epochs, ignore this warning.")
    warnings.warn(text, sklearn_flavoured(ConvergenceWarning), stacklevel=_caller_level())


@contextlib.contextmanager
def fixed_epochs() -> Iterator[None]:
    """A block that trains a fixed number of epochs on purpose (the demo, the experiments):
    the textbook's ConvergenceWarning is not shown there."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", TEXTBOOK_WARNING, ConvergenceWarning)
        yield


def _caller_level() -> int:
    """The stacklevel of warnings.warn, called here, that names the first frame outside the
    package: the user's call of fit, whatever wrappers (the guard, dask's fit) lie between."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # perceptron_c/


class _Stopping:
    """When a training call stops, after each epoch: the textbook's rule, or scikit-learn's
    (``tol`` against the mean objective of the epoch, or against the validation score, with
    ``n_iter_no_change``; no stop on an error-free epoch, as in its SGD loop)."""

    def __init__(self, est: EpochModel, validating: bool) -> None:
        self.est, self.validating = est, validating
        self.sklearn = est._sklearn_stopping()
        tol = getattr(est, "tol", None)
        self.tol = -np.inf if tol is None else float(tol)
        self.best, self.stall = -np.inf, 0  # validation score (higher is better)
        self.best_objective = np.inf

    def after_epoch(self, mistakes: int, objective: float | None,
                    score: float | None) -> tuple[bool, str]:
        """(stop?, text for the progress line)."""
        if not self.sklearn:
            if mistakes == 0:
                return True, ""
            if score is None:
                return False, ""
            self.best, self.stall = (score, 0) if score > self.best else (self.best,
                                                                            self.stall + 1)
            return (self.stall >= self.est.n_iter_no_change,
                    f", validation score {score:.4f}")
        if score is not None:
            worse = self.tol > -np.inf and score < self.best + self.tol
            self.best = max(self.best, score)
            extra = f", validation score {score:.4f}"
        else:
            value = np.inf if objective is None else objective
            worse = self.tol > -np.inf and value > self.best_objective - self.tol
            self.best_objective = min(self.best_objective, value)
            extra = f", objective {value:.6g}"
        self.stall = self.stall + 1 if worse else 0
        return self.stall >= self.est.n_iter_no_change, extra


# ----------------------------------------------------------------------- the state, declared

# How parameter mixing combines the shards' copies of an array (perceptron_c.dask):
# "mean": the weighted mean (weights, intercepts, scikit-learn's counters and averages);
# "sum": an averaging sum of [Daume2017] Alg. 7, each shard's scaled to the mixed clock;
# "clock": the averaging clock itself, mixed from the others (_mixing._clock);
# "none": not mixed (the support set of a kernel model, which dask does not train).
MIXING = ("mean", "sum", "clock", "none")


@dataclass(frozen=True)
class StateArray:
    """One array of the state: ``shape`` names the model's sizes (given when the state is
    made or read: ``"rows"``, ``"d"``, ...) or holds numbers; ``initial`` fills a new one."""

    name: str
    shape: tuple[str | int, ...]
    dtype: Any = np.float64
    mixing: str = "mean"
    initial: float = 0.0

    def __post_init__(self) -> None:
        if self.mixing not in MIXING:
            raise ValueError(f"mixing must be one of {MIXING}, got {self.mixing!r}")
        if (self.mixing == "clock") != (self.name == "count"):
            raise ValueError("the averaging clock, and only it, is named 'count'")

    def shape_of(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(sizes[s] if isinstance(s, str) else s for s in self.shape)


def new_state(declared: Iterable[StateArray], sizes: Mapping[str, int]) -> dict[str, np.ndarray]:
    """The state of a first training call: every declared array at its initial value."""
    return {a.name: np.full(a.shape_of(sizes), a.initial, dtype=a.dtype) for a in declared}


def state_entries(state: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The model file's entries of the state (``state_<name>``)."""
    return {f"state_{name}": value for name, value in state.items()}


def entry_names(declared: Iterable[StateArray], prefix: str = "state_") -> set[str]:
    """The model file's entries the declared arrays need (the kernel models' entries are
    named without a prefix: they predate the declaration)."""
    return {f"{prefix}{a.name}" for a in declared}


def restore_state(arrays: dict, declared: Iterable[StateArray], sizes: Mapping[str, int],
                  prefix: str = "state_") -> dict[str, np.ndarray]:
    """The declared arrays read back from a model file, in the declared order, each checked
    for its dtype and shape (range rules between values stay with the estimator)."""
    return {a.name: check_state_array(arrays, f"{prefix}{a.name}", a.shape_of(sizes), a.dtype)
            for a in declared}


def mixing_roles(declared: Iterable[StateArray]) -> dict[str, str]:
    """Each array's mixing (see `MIXING`)."""
    return {a.name: a.mixing for a in declared}
