"""One estimator, several threads: what is safe, and a clear error for what is not.

Prediction from many threads at once on a fitted model is safe (nothing is written). A
training call updates the model's arrays in place, epoch by epoch, so a prediction that
overlaps it would read a half-trained model, or arrays of two different shapes. Such an
overlap raises `ConcurrentUseError` instead: a prediction (or ``score``, ``save``) that starts
while another thread trains the same estimator, or during which a training call starts or
ends, raises it rather than return what it read; a training call that starts while another
thread trains the same estimator raises it before touching anything. The same thread may
predict inside its own training call (early stopping's validation score does). scikit-learn
makes no promise here either; to train and serve at once, train a copy
(``sklearn.base.clone`` or ``copy.deepcopy``) and swap the fitted copy in when it is done.
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..exceptions import ConcurrentUseError

__all__ = ["OWNER_KEYS", "reads", "trains", "training"]

F = TypeVar("F", bound=Callable[..., Any])

# the public methods that write the model, and those that read it: each is decorated
# `trains` or `reads` where it is defined (tests/test_concurrent_use.py checks every one)
WRITERS = ("fit", "partial_fit", "densify", "sparsify", "train")
READERS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "score",
           "save", "top_features", "tag", "tag_sents", "evaluate", "accuracy", "confusion")

_owner_lock = threading.Lock()
# the instance attributes that hold the guard's state, set by the first training call (an
# estimator that never trained has no instance attributes but its parameters): the thread
# that trains, and the count of training calls started and ended
OWNER_KEYS = ("_training_thread", "_training_calls")


def _owner(est: Any) -> tuple[int | None, int]:
    return getattr(est, "_training_thread", None), getattr(est, "_training_calls", 0)


def _busy(est: Any, action: str) -> ConcurrentUseError:
    return ConcurrentUseError(
        f"{type(est).__name__}: {action} while another thread is training this estimator; "
        "train a copy (sklearn.base.clone) and swap it in when its fit has ended")


class training:
    """A context manager for one training call of ``est``: it owns the estimator meanwhile
    (another thread's training call raises `ConcurrentUseError`), and every prediction that
    overlaps it in another thread raises `ConcurrentUseError`. Nested in the same thread, it
    passes through."""

    def __init__(self, est: Any) -> None:
        self.est, self.nested = est, False

    def __enter__(self) -> training:
        me = threading.get_ident()
        with _owner_lock:
            owner, calls = _owner(self.est)
            if owner is not None and owner != me:
                raise _busy(self.est, "a training call")
            self.nested = owner == me
            if not self.nested:
                self.est._training_calls = calls + 1
                self.est._training_thread = me
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.nested:
            with _owner_lock:
                self.est._training_thread = None
                self.est._training_calls = _owner(self.est)[1] + 1


def _writer(fn: F) -> F:
    @functools.wraps(fn)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        with training(self):
            return fn(self, *args, **kwargs)
    return wrapped  # type: ignore[return-value]


def _reader(fn: F) -> F:
    @functools.wraps(fn)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        me = threading.get_ident()
        owner, calls = _owner(self)
        if owner is not None and owner != me:
            raise _busy(self, f"{fn.__name__}")
        try:
            result = fn(self, *args, **kwargs)
        except Exception as exc:
            if _owner(self)[1] != calls:  # what failed read a model being trained
                raise _busy(self, f"{fn.__name__}") from exc
            raise
        if _owner(self)[1] != calls:
            raise _busy(self, f"{fn.__name__}")
        return result
    return wrapped  # type: ignore[return-value]


def trains(fn: F) -> F:
    """A method that writes the model (``fit``, ``partial_fit``, ``densify``): the call owns
    the estimator while it runs (`training`); nested in the same thread, it passes through."""
    return _mark(_writer(fn))


def reads(fn: F) -> F:
    """A method that reads the model (``predict``, ``score``, ``save``): it raises
    `ConcurrentUseError` rather than return what it read while another thread trains."""
    return _mark(_reader(fn))


def _mark(fn: F) -> F:
    fn._guarded = True  # type: ignore[attr-defined]
    return fn
