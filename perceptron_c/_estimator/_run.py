"""One training call of an estimator: the `Run` protocol `_training.run_epochs` drives,
the visiting order of every epoch (reproducible from the seed and the epoch number alone),
the stopping rules (`_Stopping`: the textbook's and scikit-learn's) and the progress line."""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from .. import _backend
from ..exceptions import ConvergenceWarning, sklearn_flavoured

if TYPE_CHECKING:  # _base imports this module
    from ._base import EpochModel

__all__ = ["Run", "draw_seed", "epoch_order", "report_epoch", "warn_if_not_converged",
           "fixed_epochs", "TEXTBOOK_WARNING"]

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
