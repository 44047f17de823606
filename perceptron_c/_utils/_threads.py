"""``n_jobs``: scikit-learn's meaning, and a pool of threads over independent blocks.

The compiled routines release the GIL while they loop, so Python threads each calling one
routine on its own block run on separate cores. Every block writes its own output and the
blocks are cut the same way for any ``n_jobs``, so the result does not depend on it. (Threads
rather than OpenMP: the wheels then need no OpenMP runtime, which macOS lacks and Windows and
musllinux ship differently, and the Python twins run the same schedule.)

One estimator, several threads (the guard: `trains`, `reads`): what is safe, and a clear
error for what is not. Prediction from many threads at once on a fitted model is safe
(nothing is written). A training call updates the model's arrays in place, epoch by epoch,
so a prediction that overlaps it would read a half-trained model, or arrays of two different
shapes. Such an overlap raises `ConcurrentUseError` instead: a prediction (or ``score``,
``save``) that starts while another thread trains the same estimator, or during which a
training call starts or ends, raises it rather than return what it read; a training call
that starts while another thread trains the same estimator raises it before touching
anything. The same thread may predict inside its own training call (early stopping's
validation score does). scikit-learn makes no promise here either; to train and serve at
once, train a copy (``sklearn.base.clone`` or ``copy.deepcopy``) and swap the fitted copy in
when it is done.
"""
from __future__ import annotations

import contextvars
import functools
import itertools
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..exceptions import ConcurrentUseError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["OWNER_KEYS", "THREAD_LIMIT_VARIABLES", "check_n_jobs", "default_threads",
           "effective_n_jobs", "reads", "run_parallel",
           "run_shared", "row_blocks", "stop_point", "trains", "training"]

T = TypeVar("T")


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# What limits the threads of a product called with n_jobs=None: this package's own variable,
# then the one OpenMP runtimes and BLAS libraries read (a job that sets OMP_NUM_THREADS=1 to
# keep every library on one core keeps this one too).
THREAD_LIMIT_VARIABLES = ("PERCEPTRON_C_NUM_THREADS", "OMP_NUM_THREADS")


def default_threads() -> int:
    """The threads of a Gram product called with ``n_jobs=None``: every core this process
    may run on, as BLAS uses them, unless a variable of `THREAD_LIMIT_VARIABLES` (the first
    set to a positive integer; OMP_NUM_THREADS's list form gives its first) asks for fewer.
    Read at each call that has blocks to share (about 2.5 microseconds: a call of one block
    never asks, `_contract.check_jobs`), so a limit set at run time holds."""
    cores = _cpu_count()
    for var in THREAD_LIMIT_VARIABLES:
        value = os.environ.get(var, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return min(cores, int(value))
    return cores


def check_n_jobs(n_jobs: Any, name: str = "n_jobs") -> None:
    """None, or a nonzero int (negative: counted back from the number of cores)."""
    if n_jobs is None:
        return
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"{name} must be None or a nonzero integer, got {n_jobs!r}")


def effective_n_jobs(n_jobs: Any) -> int:
    """Threads to use: None is 1, -1 every core, -2 every core but one, and so on."""
    check_n_jobs(n_jobs)
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, _cpu_count() + 1 + n_jobs)
    return int(n_jobs)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
# per thread: .worker (a thread of the shared pool) and .abort (the Event of the call whose
# blocks this thread is running, if any)
_local = threading.local()


class _Cancelled(KeyboardInterrupt):
    """Raised in a thread whose call has been stopped by an error in another of its threads
    (Ctrl-C in the calling thread included). It never leaves the call: the call raises the
    error that stopped it. A KeyboardInterrupt, so that whatever undoes an interrupted epoch
    undoes a cancelled one the same way."""


def stop_point() -> None:
    """Raise `_Cancelled` when the call this thread runs a block of has been stopped.

    Only the main thread receives Ctrl-C; the compiled loops of the other threads call this
    between their chunks of a few milliseconds (where the main thread looks for signals), so a
    call on ``n_jobs`` threads stops within one chunk of each thread, not after each thread's
    share. A no-op outside `run_shared` / `run_parallel` (about 0.1 microseconds)."""
    abort = getattr(_local, "abort", None)
    if abort is not None and abort.is_set():
        raise _Cancelled


def _shared_pool() -> ThreadPoolExecutor:
    """One pool for the process, created on first use (a pool per call costs more than a
    small block of work), as many threads as cores."""
    from concurrent.futures import ThreadPoolExecutor  # (and logging): on first use

    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_cpu_count(),
                                       thread_name_prefix="perceptron_c",
                                       initializer=_mark_worker)
        return _pool


def _mark_worker() -> None:
    _local.worker = True


def _forget_pool_after_fork() -> None:
    """A forked child has none of the parent's threads: a pool inherited from the parent
    would take tasks that no thread runs, and the first call with n_jobs > 1 would wait
    forever. The child starts its own pool on first use."""
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def run_parallel(tasks: Sequence[Callable[[], T]], n_jobs: Any) -> list[T]:
    """Call every task, on up to ``n_jobs`` threads; results in task order (`run_shared`'s
    schedule: each thread takes the next task as it finishes one, and on an error, Ctrl-C
    included, no task starts and the running ones stop at their next `stop_point`). The
    first error is raised here once nothing runs any more."""
    results: list[Any] = [None] * len(tasks)

    def one(i: int) -> None:
        results[i] = tasks[i]()

    run_shared(one, len(tasks), n_jobs)
    return results


def run_shared(fn: Callable[[int], None], n_blocks: int, n_jobs: Any) -> None:
    """fn(0), ..., fn(n_blocks - 1), each exactly once, on the calling thread and up to
    ``n_jobs - 1`` threads of the shared pool, which take the next block from one counter
    as each finishes one (uneven blocks or a late thread leave no thread idle while blocks
    remain). The helpers run in copies of the caller's context. The calling thread could do
    every block alone: once none is left, helpers that have not started are cancelled, so a
    pool busy elsewhere never holds the call up, and a call from inside a pool task runs
    serially (it cannot wait on itself). On an error (Ctrl-C included) no new block starts
    and the blocks under way stop at their next `stop_point`; every started helper has
    ended before this returns or raises, and the error is raised."""
    threads = min(effective_n_jobs(n_jobs), n_blocks)
    if threads <= 1 or getattr(_local, "worker", False):
        for b in range(n_blocks):
            stop_point()  # (a serial call inside a pool task: its own call may stop)
            fn(b)
        return
    counter = itertools.count()
    lock = threading.Lock()  # (the GIL alone would do; a free-threaded build has none)
    done = threading.Event()  # no block left to start, or an error: take no more
    abort = threading.Event()  # an error: the blocks under way stop too

    def take() -> None:
        outer = getattr(_local, "abort", None)
        _local.abort = abort
        try:
            while not done.is_set():
                with lock:
                    b = next(counter)
                if b >= n_blocks:
                    return
                fn(b)
        except BaseException:
            abort.set()
            done.set()
            raise
        finally:
            _local.abort = outer

    pool = _shared_pool()
    futures = [pool.submit(contextvars.copy_context().run, take) for _ in range(threads - 1)]
    errors: list[BaseException] = []
    try:
        take()
    except BaseException as exc:
        errors.append(exc)
    finally:
        done.set()  # (it was done, or it failed: nothing new starts either way)
        # a cancelled future counts as done only once a pool thread has dequeued it: wait
        # for the helpers that had started, and only for them
        _join([f for f in futures if not f.cancel()], errors, abort)


def _join(futures: Sequence[Any], errors: list[BaseException],
          abort: threading.Event) -> None:
    """Wait until every future has ended, even through a second Ctrl-C meanwhile (which
    stops the helpers' blocks); then raise the first error that is not a `_Cancelled`: the
    caller's own, a Ctrl-C here, or a helper's."""
    from concurrent.futures import wait

    while True:
        try:
            wait(futures)
            break
        except KeyboardInterrupt as exc:
            abort.set()
            errors.insert(0, exc)
    errors += [e for e in (f.exception() for f in futures) if e is not None]
    real = [e for e in errors if not isinstance(e, _Cancelled)]
    if real or errors:
        raise (real or errors)[0]


def row_blocks(n: int, n_jobs: Any, min_rows: int = 4096) -> list[tuple[int, int]]:
    """[start, stop) blocks covering n rows: one per thread, none smaller than ``min_rows``
    (below that a thread costs more than it saves)."""
    threads = effective_n_jobs(n_jobs)
    count = max(1, min(threads, n // max(1, min_rows)))
    bounds = [n * i // count for i in range(count + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(count)]


# ----------------------------------------------------------------------- the guard

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
