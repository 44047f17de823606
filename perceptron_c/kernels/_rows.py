"""Kernel values for the kernel models, computed only where they are needed, on n_jobs threads.

Training (`KernelSource`): when the Gram of the training pool fits ``max_gram_bytes`` it is
computed once (float64, or the conjunction kernel's exponents in the narrowest integer type
that holds them: int16 up to 32767 bits, int32 beyond, written directly by the popcount
kernels). Otherwise the visited rows go through in blocks (`stream`), each block's kernel rows
computed against the columns the epoch needs only: the support set (every example whose
coefficient is not 0) and the block's own rows, which may join it. The coefficients of every
other column are 0, so the activations are the same sums as over the whole pool (the routines
check that ``cols`` covers them); a block costs rows x (support + rows) kernel values, never
the whole Gram again.

Threads (``n_jobs``, scikit-learn's meaning; None, as for the Grams, every core unless
PERCEPTRON_C_NUM_THREADS or OMP_NUM_THREADS says fewer: `_threads.default_threads`): the
popcount kernels share the rows of a block among threads themselves; a float kernel's block
is cut into tasks of a fixed number of rows (whatever n_jobs is) that run on n_jobs threads,
and a training epoch computes the next block's rows while the routine runs this one. The
built-in kernels compute every value on its own, by the same IEEE operations on any thread
(their products are the package's 4-lane dots, not BLAS), so the result does not depend on
n_jobs. A kernel with user code in it (a callable, or a Kernel subclass of one's own) is
called as it is, one task after another in the calling thread: it need not be thread-safe,
and whatever it does with BLAS's threads is its own. Prediction (`row_blocks_run`) cuts the
rows to predict into blocks the same way and runs each block (kernel rows, then the
decision) as one task.

Fitted parameters (`record_fit_params` and the functions after it): a fitted kernel model
predicts with the parameters it was trained with, not with what ``set_params`` put there
since (scikit-learn's rule: parameters are read by ``fit``; a later ``set_params`` only
changes the next ``fit``). Each model records, at every training call, the parameters its
prediction and its state depend on (the kernel and its parameters, and whichever of
``fit_intercept``, ``average``, ``strategy`` ... shape its state); a continuing training call
(``partial_fit``, ``warm_start``) refuses a changed one, as the linear models refuse an
``average`` that changed. A model file holds the record as the state entry ``fit_params``
(JSON, kernels as in ``__params__``) only when it differs from the parameters, so the files
of models whose parameters did not change since they were trained are as before.
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import numpy as np

from .. import _backend
from .._utils._params import Free
from .._utils._rows import dense_rows, take_rows
from .._utils._threads import default_threads, effective_n_jobs, run_parallel
from .._utils._validation import CSR, PackedBits
from . import (
    RBF,
    Kernel,
    KernelSpec,
    Linear,
    Polynomial,
    apply_kernel,
    is_builtin,
    kernel_from_spec,
    kernel_to_spec,
    resolve_kernel,
)

__all__ = ["exponent_dtype", "exponents", "cached_scores", "kernel_rows", "KernelSource",
           "stream", "run_tasks", "row_blocks_run", "check_weighted_headroom",
           "check_exact_headroom", "kernel_block",
           "EXACT_LIMIT", "KERNEL_PARAMS", "KERNEL_RULES", "FIT_PARAMS_ENTRY",
           "record_fit_params",
           "fit_params", "fitted_kernel", "check_fit_params", "fit_params_state",
           "fit_params_from_state"]

T = TypeVar("T")

# int16 exponents hold popcounts of rows of up to this many bits
INT16_MAX_BITS = 32767
# Kernel values per block of a training epoch (float64 values; int16/int32 exponents), and
# per task (float kernels): a block is a few milliseconds of work, a task about a millisecond
# (enough rows for an efficient matrix product).
BLOCK_ENTRIES = {"float": 1 << 21, "conjunction": 1 << 23}
TASK_ENTRIES = 1 << 19
# Kernel values per block of rows to predict (one task: kernel rows, then the decision).
PREDICT_ENTRIES = 1 << 20
# Rows per block at least (while the memory budget allows), so that the kernel rows of a block
# make an efficient matrix product; and when the whole exponent Gram is cached (its rows are
# copied block by block).
MIN_BLOCK_ROWS = 128
CACHED_BLOCK_ROWS = 64
# The exact conjunction sums keep every bucket below 2^62 (``_bigint.pxd``); with a factor 2
# of room for the difference of two classes' coefficients, every sum of |coefficients| of a
# model stays below this.
EXACT_LIMIT = 2.0 ** 60


def exponent_dtype(n_bits: int) -> type:
    """The narrowest type that holds every popcount of rows of n_bits bits."""
    return np.int16 if n_bits <= INT16_MAX_BITS else np.int32


# ------------------------------------------------------------------------------- threads

def run_tasks(tasks: Sequence[Callable[[], T]], n_jobs: Any) -> list[T]:
    """`_threads.run_parallel`, each task in a copy of the caller's context (numpy's error
    state, the `_backend.using` switch)."""
    if effective_n_jobs(n_jobs) <= 1 or len(tasks) <= 1:
        return [task() for task in tasks]
    return run_parallel([partial(contextvars.copy_context().run, task) for task in tasks],
                        n_jobs)


def _task_jobs(kern: Any, kind: str, n_jobs: Any) -> Any:
    """Threads for tasks of this kernel: n_jobs, but one (None) for a kernel with user code
    in it, which is called as it is, from the calling thread."""
    plain = type(kern) in _PLAIN_FLOAT or is_builtin(kern)  # (the common kernels first)
    return n_jobs if kind != "float" or plain else None


_PLAIN_FLOAT = (RBF, Linear, Polynomial)


# ------------------------------------------------------------------------- kernel values

def exponents(A: PackedBits, B: PackedBits, n_jobs: Any = None, dtype: Any = None) -> np.ndarray:
    """popcount(a AND b) for every pair of rows, in ``dtype`` (default `exponent_dtype`),
    written directly."""
    out: np.ndarray = np.empty((A.words.shape[0], B.words.shape[0]),
                               dtype=exponent_dtype(A.n_bits) if dtype is None else dtype)
    _backend.gram.gram_conjunction_log2(A.words, B.words, out, n_jobs=n_jobs)
    return out


def sqnorms(kern: Any, X: np.ndarray) -> np.ndarray | None:
    """The squared norms of the rows, for the RBF kernel (None for the others)."""
    return _backend.gram.row_sqnorms(X) if isinstance(kern, RBF) else None


def _float_rows(kern: Any, A: np.ndarray, B: np.ndarray, n_jobs: Any,
                norms: tuple | None = None) -> np.ndarray:
    """K(A, B) float64, by tasks of a fixed number of rows of A; norms: (A's, B's) squared
    norms for the RBF kernel (computed when None)."""
    m, n = A.shape[0], B.shape[0]
    K = np.empty((m, n))
    step = max(1, TASK_ENTRIES // max(1, n))
    jobs = _task_jobs(kern, "float", n_jobs)
    inner = n_jobs if jobs is None else 1  # the tasks' own threads
    if norms is None and isinstance(kern, RBF):
        norms = (sqnorms(kern, A), sqnorms(kern, B))
    if m <= step:  # one task: run_tasks would call it here
        kern._rows_into(A, B, K, inner, norms)
        return K

    def task(a: int, z: int) -> None:
        part = None if norms is None else (norms[0][a:z], norms[1])
        kern._rows_into(A[a:z], B, K[a:z], inner, part)
    run_tasks([partial(task, a, min(m, a + step)) for a in range(0, m, step)],
              jobs)
    return K


def cached_scores(alpha: np.ndarray, G: np.ndarray) -> np.ndarray:
    """alpha @ G, alpha of shape (n_classes, n_pool) and G with n_pool rows: the activations
    a continuing fit starts from on a cached Gram, or a model's scores on kernel columns.
    Column j sums alpha[c, i] * G[i, j] over the pool's rows i with 4-lane sums (row i to
    lane i % 4, the rows in order; zero coefficients add nothing), not BLAS's, whose sums
    change with the machine and its thread count."""
    lanes = np.zeros((4, alpha.shape[0], G.shape[1]))
    with np.errstate(over="ignore", invalid="ignore"):  # the epochs check their activations
        for i in np.flatnonzero(np.any(alpha != 0, axis=0)).tolist():
            lanes[i % 4] += alpha[:, i, None] * G[i][None, :]
        return np.ascontiguousarray((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))


def kernel_rows(kern: Any, kind: str, A: Any, B: Any, n_jobs: Any,
                norms: tuple | None = None) -> np.ndarray:
    """K(A, B): float64, or the exponents for the conjunction kernel. "precomputed": A holds
    the kernel rows, B the indices of the columns wanted."""
    if kind == "conjunction":
        return exponents(A, B, n_jobs)
    if kind == "precomputed":
        return np.ascontiguousarray(A[:, B], dtype=np.float64)
    return _float_rows(kern, A, B, n_jobs, norms)


def kernel_block(kern: Any, kind: str, X: Any, sv: Any, max_bytes: int = 2**27) -> np.ndarray:
    """K(X, sv) in one piece: float64, or int32 exponents for the conjunction kernel; for
    "precomputed", X holds the kernel columns and ``sv`` the indices of the support columns.
    ``max_bytes`` bounds the temporary dense rows of the primal (linear) case."""
    if sv.shape[0] == 0:
        return np.zeros((X.shape[0], 0), dtype=np.int32 if kind == "conjunction" else None)
    if kind == "conjunction":
        return exponents(X, sv, dtype=np.int32)
    if kind == "precomputed":
        return np.ascontiguousarray(X[:, sv], dtype=np.float64)
    if kind == "primal":
        return _linear_block(X, sv, max_bytes)
    return np.ascontiguousarray(kern(X, sv), dtype=np.float64)


def _linear_block(X: Any, sv: Any, max_bytes: int) -> np.ndarray:
    """x . sv_j for every row and stored example, on the linear routines (dense or CSR)."""
    lin = _backend.linear
    n_sv, m = sv.shape[0], X.shape[0]
    K = np.empty((m, n_sv))
    if isinstance(sv, CSR):  # sv_j . x with a few rows of X at a time as (dense) weights
        step = max(1, max_bytes // (8 * X.shape[1]))
        for s in range(0, m, step):
            rows = dense_rows(take_rows(X, np.arange(s, min(m, s + step))))
            KT = np.empty((n_sv, rows.shape[0]))
            lin.decision_csr(sv.data, sv.indices, sv.indptr, rows, np.zeros(rows.shape[0]), KT)
            K[s:s + rows.shape[0]] = KT.T
        return K
    if isinstance(X, CSR):
        lin.decision_csr(X.data, X.indices, X.indptr, sv, np.zeros(n_sv), K)
    else:
        lin.decision_dense(X, sv, np.zeros(n_sv), K)
    return K


# ------------------------------------------------------------------------------ training

class KernelSource:
    """The kernel values of one training run over a pool of n examples.

    ``full`` is the whole pool Gram when it fits ``max_bytes`` (float64: the cached-scores
    routines use it; exponents: read a block of rows at a time, the copies counted in the
    budget); otherwise None, and `rows` computes what a block needs.
    """

    def __init__(self, kern: Any, kind: str, pool: Any, max_bytes: int, n_jobs: Any,
                 exponent_type: Any = None) -> None:
        self.kern, self.kind, self.pool, self.n_jobs = kern, kind, pool, n_jobs
        self.max_bytes = max_bytes
        n = self.n = pool.shape[0]
        exact = kind == "conjunction"
        self.dtype = (exponent_type or exponent_dtype(pool.n_bits)) if exact else np.float64
        self.item = np.dtype(self.dtype).itemsize
        block_copy = min(n, CACHED_BLOCK_ROWS) if exact else 0
        self.full: np.ndarray | None = None
        if (n + block_copy) * n * self.item <= max_bytes:
            if exact:
                self.full = exponents(pool, pool, n_jobs, self.dtype)
            elif kind == "precomputed":
                self.full = np.ascontiguousarray(pool, dtype=np.float64)
            else:  # k(pool) rather than k(pool, pool): the symmetric product is half the work
                self.full = np.ascontiguousarray(apply_kernel(kern, pool, None, n_jobs),
                                                 dtype=np.float64)
        self.norms = None if self.full is not None or kind != "float" else sqnorms(kern, pool)

    @property
    def cached(self) -> bool:
        return self.full is not None

    def block_rows(self, n_support: int, remaining: int) -> int:
        """Rows for the next block, given the support size: rows x (support + rows) values
        within BLOCK_ENTRIES and half the memory budget, at least one row."""
        if self.full is not None:
            return max(1, min(remaining, CACHED_BLOCK_ROWS))
        entries = BLOCK_ENTRIES["conjunction" if self.kind == "conjunction" else "float"]
        # two blocks live at once (one computed while the routine reads the other)
        budget = max(1, min(entries, self.max_bytes // (2 * self.item)))
        s = n_support
        m = int((-s + np.sqrt(float(s) * s + 4.0 * budget)) / 2.0)  # m (s + m) <= budget
        # the rows against themselves are mostly wasted (few join the support set): at most
        # half the useful work, but enough rows for an efficient product
        m = min(m, max(MIN_BLOCK_ROWS, s // 2))
        return max(1, min(remaining, m))

    def rows(self, rows: np.ndarray, cols: np.ndarray | None, n_jobs: Any) -> np.ndarray:
        """K(pool[rows], pool[cols]) (cols None: every column), C-contiguous."""
        if self.full is not None:
            block = self.full[rows]
            return block if cols is None else np.ascontiguousarray(block[:, cols])
        if self.kind == "precomputed":
            picked = self.pool[rows] if cols is None else self.pool[np.ix_(rows, cols)]
            return np.ascontiguousarray(picked, dtype=np.float64)
        A = take_rows(self.pool, rows)
        B = self.pool if cols is None else take_rows(self.pool, cols)
        if self.kind == "conjunction":
            return exponents(A, B, n_jobs, self.dtype)
        norms = None if self.norms is None else \
            (self.norms[rows], self.norms if cols is None else self.norms[cols])
        return kernel_rows(self.kern, self.kind, A, B, n_jobs, norms)


def stream(source: KernelSource, order: np.ndarray, support: np.ndarray,
           routine: Callable[[np.ndarray, np.ndarray, np.ndarray | None], int],
           nonzero: Callable[[np.ndarray], np.ndarray]) -> int:
    """One epoch in blocks: visit the pool indices ``order``; each block's kernel rows against
    its columns (every column when the Gram is cached); ``routine(rows, K, cols)`` returns the
    block's mistakes; ``nonzero(rows)`` says which rows now carry a coefficient; ``support``
    (a boolean mask of the pool) is kept up to date.

    The columns of block k are the support set as it was when block k - 1 began, plus the
    rows of blocks k - 1 and k (all that can have joined it since), and its size follows from
    that set's size: so block k + 1 is known, and its kernel rows computed on a thread of
    their own, while the routine runs block k. The blocks are the same whether that happens
    (n_jobs >= 2) or not, so the result never depends on n_jobs.
    """
    from concurrent.futures import ThreadPoolExecutor  # (and logging): on first use

    total, start, m_total = 0, 0, order.shape[0]
    n = source.n
    # a model's training rows are products: without n_jobs, on every core, as its Grams are
    threads = default_threads() if source.n_jobs is None else effective_n_jobs(source.n_jobs)
    mark = np.zeros(n, dtype=bool)
    plan: list[tuple[np.ndarray, np.ndarray | None]] = []  # (rows, cols) of the next block

    def next_block(begun: np.ndarray, prev: np.ndarray) -> None:
        """Plan the block at `start` from the support set `begun` and the rows `prev`."""
        m = source.block_rows(int(np.count_nonzero(begun)) + prev.shape[0], m_total - start)
        rows = np.ascontiguousarray(order[start:start + m])
        cols = None
        if source.full is None:
            mark[prev] = True
            mark[rows] = True
            cols = np.flatnonzero(begun | mark).astype(np.int64)
            mark[prev] = False
            mark[rows] = False
        plan.append((rows, cols))

    with contextlib.ExitStack() as stack:
        ahead = threads >= 2 and source.full is None and \
            _task_jobs(source.kern, source.kind, 2) is not None
        pool = stack.enter_context(ThreadPoolExecutor(1)) if ahead else None
        helpers = threads  # the routine's thread waits for them most of the time

        def compute(rows: np.ndarray, cols: np.ndarray | None) -> np.ndarray:
            return source.rows(rows, cols, helpers if ahead else threads)

        next_block(support.copy(), order[:0])
        rows, cols = plan.pop()
        pending = None if pool is None else \
            pool.submit(contextvars.copy_context().run, partial(compute, rows, cols))
        K = None if pool is not None else compute(rows, cols)
        while True:
            if pending is not None:
                K = pending.result()
            begun = support.copy()
            start += rows.shape[0]
            if start < m_total:  # the next block, from what is known as this one begins
                next_block(begun, rows)
                if pool is not None:
                    pending = pool.submit(contextvars.copy_context().run,
                                          partial(compute, *plan[-1]))
            assert K is not None
            total += routine(rows, K, cols)
            support[rows[nonzero(rows)]] = True
            if not plan:
                break
            rows, cols = plan.pop()
            if pool is None:
                K = None  # (never two blocks at once)
                K = compute(rows, cols)
    return total


def check_exact_headroom(alpha: np.ndarray, b: np.ndarray, u: np.ndarray | None,
                         beta: np.ndarray | None, count: np.ndarray | None,
                         n_visit: int) -> None:
    """OverflowError unless the exact conjunction sums of a model stay below EXACT_LIMIT
    after ``n_visit`` more examples, even if every one of them is a mistake (a step of 1
    each): the plain coefficients (alpha, b), and for averaged models u, beta and the
    decision-time coefficients c alpha - u. Estimated in float64 with room to spare."""
    check_weighted_headroom(alpha, b, u, beta, count, n_visit, float(n_visit))


def check_weighted_headroom(alpha: np.ndarray, b: np.ndarray, u: np.ndarray | None,
                            beta: np.ndarray | None, count: np.ndarray | None,
                            n_visit: int, weight_total: float) -> None:
    """`check_exact_headroom` for updates of any whole-number size: OverflowError unless
    the exact conjunction sums stay below EXACT_LIMIT after ``n_visit`` more examples whose
    |weights| sum to ``weight_total``, even if every one of them is a mistake."""
    grow = 2.0 * weight_total
    plain = np.abs(alpha.astype(np.float64)).sum(axis=1) + np.abs(b.astype(np.float64)) + grow
    worst = float(plain.max())
    if u is not None and beta is not None and count is not None:
        c = float(count[0]) + n_visit
        sums = np.abs(u.astype(np.float64)).sum(axis=1) + np.abs(beta.astype(np.float64))
        worst = max(worst, float((sums + grow * c).max()), float((c * plain + sums).max()),
                    c)
    if not worst < EXACT_LIMIT:
        raise OverflowError("the exact integer sums of the conjunction kernel would exceed "
                            f"2^60 (the model's coefficients sum to about {worst:.3g})")


# ---------------------------------------------------------------------------- prediction

def row_blocks_run(kern: Any, kind: str, X: Any, sv: Any, max_bytes: int, n_jobs: Any,
                   block_fn: Callable[[int, int, np.ndarray], None],
                   kernel_fn: Callable[[Any, Any], np.ndarray] | None = None,
                   sv_norms: np.ndarray | None = None) -> None:
    """For blocks [s, e) of the rows of X: K = K(X[s:e], sv) (or ``kernel_fn(rows, sv)``),
    then ``block_fn(s, e, K)``; each block one task, n_jobs of them at a time (as many as
    ``max_bytes`` holds). Blocks are cut by the sizes alone, never by n_jobs. ``sv_norms``:
    the squared norms of ``sv`` for the RBF kernel, as the model prepared them (computed here
    when None). One block runs in the calling thread, as run_tasks would run it."""
    m, n_sv = X.shape[0], max(1, sv.shape[0])
    item = np.dtype(exponent_dtype(sv.n_bits)).itemsize if kind == "conjunction" else 8
    step = max(1, min(PREDICT_ENTRIES, max_bytes // item) // n_sv)
    if sv_norms is None and kernel_fn is None and kind == "float":
        sv_norms = sqnorms(kern, sv)

    def task(s: int, e: int) -> None:
        if e - s == m:
            rows = X
        else:
            rows = X[s:e] if not isinstance(X, (CSR, PackedBits)) else \
                take_rows(X, np.arange(s, e))
        if kernel_fn is not None:
            K = kernel_fn(rows, sv)
        elif kind == "conjunction":
            K = exponents(rows, sv, 1)
        else:
            norms = None if sv_norms is None else (sqnorms(kern, rows), sv_norms)
            K = _float_rows(kern, rows, sv, 1 if jobs is not None else n_jobs, norms)
        block_fn(s, e, K)

    jobs = n_jobs if kernel_fn is not None else _task_jobs(kern, kind, n_jobs)
    threads = effective_n_jobs(jobs)
    if m <= step:  # one block (and so one task): here, as run_tasks would run it
        task(0, m)
        return
    threads = min(threads, max(1, max_bytes // (step * n_sv * item)))
    run_tasks([partial(task, s, min(m, s + step)) for s in range(0, m, step)], threads)


# ------------------------------------------------------------------------ fitted parameters

KERNEL_PARAMS = ("kernel", "degree", "gamma", "coef0")
# their rules: checked together, by kernels.resolve_kernel
KERNEL_RULES = {name: Free("kernels.resolve_kernel, with the other kernel parameters")
                for name in KERNEL_PARAMS}
FIT_PARAMS_ENTRY = "fit_params"  # the model file's state entry of the record


def _same(a: Any, b: Any) -> bool:
    """The same parameter value (kernel objects compare by value, callables by identity)."""
    try:
        return a is b or bool(a == b)
    except (TypeError, ValueError):
        return False


def _kept(value: Any) -> Any:
    """A copy of a built-in kernel object (changing the original in place later changes no
    fitted model); any other value as it is."""
    if isinstance(value, Kernel):
        try:
            return kernel_from_spec(kernel_to_spec(value))
        except TypeError:  # a callable inside: no description to copy it by
            return value
    return value


def record_fit_params(est: Any) -> None:
    """Record the parameters ``type(est)._fit_param_names`` as they are now (at a training
    call)."""
    est._fit_params = {name: _kept(getattr(est, name)) for name in est._fit_param_names}


def fit_params(est: Any) -> dict[str, Any]:
    """The parameters the model was trained with (for a model pickled before they were
    recorded: its current parameters, as it then predicted)."""
    record = getattr(est, "_fit_params", None)
    if record is None:
        return {name: getattr(est, name) for name in est._fit_param_names}
    return record


def fitted_kernel(est: Any) -> KernelSpec:
    """`resolve_kernel` of the kernel parameters the model was trained with."""
    p = fit_params(est)
    return resolve_kernel(p["kernel"], p["degree"], p["gamma"], p["coef0"])


def check_fit_params(est: Any, fixed: Sequence[str]) -> None:
    """Before a continuing training call (``partial_fit``, ``warm_start``): ValueError naming
    the first parameter of ``fixed`` that changed since the first fit (the state was trained
    with it and cannot continue with another). The caller records the call's parameters
    (`record_fit_params`) once all its checks passed."""
    record = fit_params(est)
    for name in fixed:
        now, then = getattr(est, name), record[name]
        if not _same(now, then):
            raise ValueError(
                f"{type(est).__name__}: {name} changed since the first fit (the model was "
                f"trained with {name}={then!r}, now {name}={now!r}): its state cannot "
                f"continue with another {name}; set it back, or fit again without "
                "warm_start")


def fit_params_state(est: Any) -> dict[str, np.ndarray]:
    """The model file's record: nothing while the parameters are those the model was
    trained with, else ``{FIT_PARAMS_ENTRY: JSON text}`` (values as in ``__params__``)."""
    import json

    from ..io import jsonable_params

    record = fit_params(est)
    if all(_same(getattr(est, name), value) for name, value in record.items()):
        return {}
    try:
        data = jsonable_params(record)
    except TypeError as exc:  # a Python callable: set_params changed it since
        raise TypeError(f"save_model: the model was trained with parameters that cannot be "
                        f"stored ({exc}); a model file holds those, not the current ones") \
            from None
    text = json.dumps(data, sort_keys=True, allow_nan=False)
    return {FIT_PARAMS_ENTRY: np.array(text)}


def fit_params_from_state(est: Any, arrays: dict) -> dict[str, Any]:
    """The record a model file holds (its ``fit_params`` entry), or, when it has none (the
    parameters had not changed, or the file predates the record), ``est``'s parameters."""
    import json

    names = list(est._fit_param_names)
    if FIT_PARAMS_ENTRY not in arrays:
        return {name: getattr(est, name) for name in names}
    raw = np.asarray(arrays[FIT_PARAMS_ENTRY])
    if raw.shape != () or raw.dtype.kind != "U":
        raise ValueError("model file: fit_params must be one JSON text")
    from ..io import reject_constant, restore_params

    try:
        record = json.loads(str(raw), parse_constant=reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"model file: fit_params is not JSON ({exc})") from None
    if not isinstance(record, dict) or sorted(record) != sorted(names):
        raise ValueError(f"model file: fit_params must give exactly {names}")
    record = restore_params(record)
    for name, value in record.items():
        if value is not None and not isinstance(value, (bool, int, float, str, Kernel)):
            raise ValueError(f"model file: fit_params: {name} is not a parameter value")
    return {name: record[name] for name in names}
