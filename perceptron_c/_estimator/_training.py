"""The steps of a training call, as functions that an estimator's ``fit`` and ``partial_fit``
call in order, in plain sight (`perceptron.Perceptron.fit` reads as the list below), and that
dask's mixed fit calls too:

1. ``est._spec()``: the parameters checked against their rules (`_params.Parameters._spec`),
   then what the call needs from them;
2. `gate`: the rows checked and made canonical, with their feature names;
3. `start` a fresh model (seed, counters, feature names), or continue one (the estimator's
   own check that its state fits the rows);
4. `hold_out`: the validation split of ``early_stopping``;
5. the estimator's `_run.Run`: one training call's epoch function over the state arrays;
6. `run_epochs`: the loop, each epoch all or nothing (`epoch`), then the model published;
7. `_run.warn_if_not_converged`.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .._utils._rows import take_rows
from .._utils._validation import check_feature_names
from ._run import Run, report_epoch

__all__ = ["epoch", "gate", "hold_out", "run_epochs", "set_feature_names", "start",
           "start_or_continue", "train", "validation_split"]


def gate(est: Any, X: Any, gate_X: Callable[[Any], Any], first: bool) -> tuple[Any, Any]:
    """(canonical rows, feature names) of a training call: the names checked against the
    model's (``first``: they replace them), then the rows through ``gate_X``."""
    names = check_feature_names(X, getattr(est, "feature_names_in_", None),
                                type(est).__name__, reset=first)
    return gate_X(X), names


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
        est.__dict__["_epochs_done"] = done  # (read by _base.model_kept, then dropped)
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
