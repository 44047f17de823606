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

import copy
import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..exceptions import ConcurrentUseError

__all__ = ["GuardedModel", "OWNER_KEYS", "trains", "training"]

F = TypeVar("F", bound=Callable[..., Any])

# the methods that write the model, and those that read it (wrapped where a class defines
# them; a subclass's own definition is wrapped again, and the nested call passes through)
WRITERS = ("fit", "partial_fit", "densify", "sparsify")
READERS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "score",
           "save", "top_features")

_owner_lock = threading.Lock()
# the instance attributes that hold the guard's state while a training call runs
OWNER_KEYS = ("_training_thread", "_training_calls")


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
            owner = self.est._training_thread
            if owner is not None and owner != me:
                raise _busy(self.est, "a training call")
            self.nested = owner == me
            if not self.nested:
                self.est._training_calls += 1
                self.est._training_thread = me
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.nested:
            with _owner_lock:
                self.est._training_thread = None
                self.est._training_calls += 1


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
        owner, calls = self._training_thread, self._training_calls
        if owner is not None and owner != me:
            raise _busy(self, f"{fn.__name__}")
        try:
            result = fn(self, *args, **kwargs)
        except Exception as exc:
            if self._training_calls != calls:  # what failed read a model being trained
                raise _busy(self, f"{fn.__name__}") from exc
            raise
        if self._training_calls != calls:
            raise _busy(self, f"{fn.__name__}")
        return result
    return wrapped  # type: ignore[return-value]


class GuardedModel:
    """A base that wraps the `WRITERS` and `READERS` of every subclass (see the module)."""

    # class-level defaults: an estimator that never trained has no instance attributes
    _training_thread: int | None = None
    _training_calls: int = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in WRITERS + READERS:
            raw = inspect.getattr_static(cls, name, None)  # (inherited from a mixin too)
            guard = _writer if name in WRITERS else _reader
            if inspect.isfunction(raw) and not getattr(raw, "_guarded", False):
                setattr(cls, name, _mark(guard(raw)))
            elif inspect.isfunction(getattr(raw, "fn", None)) and not getattr(raw.fn, "_guarded",
                                                                              False):
                # a descriptor holding the method (scikit-learn's available_if): kept, with
                # the guarded method inside
                raw = copy.copy(raw)
                raw.fn = _mark(guard(raw.fn))
                setattr(cls, name, raw)


def trains(fn: F) -> F:
    """A training method (``fit``, ``partial_fit``): the call owns the estimator while it
    runs (`training`), as every writer a `GuardedModel` wraps by itself; written where the
    method is defined, so that a reader of ``fit`` sees it."""
    return _mark(_writer(fn))


def _mark(fn: F) -> F:
    fn._guarded = True  # type: ignore[attr-defined]
    return fn
