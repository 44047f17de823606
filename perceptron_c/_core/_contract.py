"""The arithmetic contract of the routines, written once for every Python twin.

Each routine module exists twice, ``_x_c.pyx`` (the compiled core) and ``_x_py.py`` (its
specification), and the two agree bit for bit on any data because both do exactly the
operations stated here, in this order; every twin cites the pseudo-code it mirrors and adds
what is its own. The C side of this module is ``_lanes.pxd`` (the lane sums), ``_checks.pxd``
(the checks) and ``_dot.h`` (the lane sums of whole Gram matrices).

- Every float sum over features or over a pool of examples is a *4-lane sum*: term k goes
  to partial sum (lane) k % 4, each lane adds its terms in the order of k, and the result is
  (s0 + s1) + (s2 + s3). Each product is formed in double precision (float32 data is widened
  first) and rounded before it is added: never fused (the C build passes -ffp-contract=off).
  Three forms: dense (`dot4`, term k = a[k] b[k]), indexed rows such as CSR
  (`dot4_indexed`, term k = x[k] w[idx[k]], in lane k % 4 by its *position* in the row),
  and columns of a pool (`dot4_cols`, term c = a[cols[c]] k[c], in lane cols[c] % 4 by its
  *column*, so that leaving out zero terms does not move the others). Squared norms are
  4-lane sums too (`sqnorm4`).
- Every other sum, and every update, runs in index order: an update adds ``step * x[j]`` to
  each weight (``scores[j] += step * G[i, j]`` to each cached score), with ``step`` computed
  once per mistake; ``sample_weight`` scales the step, never the data.
- Averaging is [Daume2017] Alg. 7 (lazy sums): on a mistake
  u += step c and beta += step c where w and b move; the counter c (``count``, 1 before the
  first example) grows by one after every visited example, mistake or not; the averaged
  model is w - u / c, b - beta / c. `State` holds an epoch's coefficients, biases and sums
  as lists; `move` is the K-class update (the true class gains, the predicted one loses),
  after `first_max` (the argmax: ties go to the lowest class index).
- An activation that is not finite (the weights or the data overflow float64) is neither a
  mistake nor a success: the epoch stops there, the state is written back as it is (what
  ``steps`` holds is then unspecified) and `non_finite` names the position in the visiting
  order.
- Exact integer sums (the conjunction kernel 2^popcount(a AND b)): `exact` forms them with
  Python integers (the C twins in base-2 buckets), and `check_headroom` refuses a call whose
  sums could reach 2^61, before it starts.
- Arguments are checked before any work, by the same tests with the same messages in both
  twins (`need` raises the ValueError; ``_checks.pxd`` has the C twins' copies).
- What a call runs once around its work and is not arithmetic (the Gram routines' checks,
  thread count and blocks of rows; the decoder's blocks of sentences) is written once, at
  the end of this module, and both twins call it: glue, never a loop of the work itself.
"""
from __future__ import annotations

import bisect
import math
import numbers
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from .._utils._threads import default_threads, run_shared

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias

    import numpy.typing as npt

    # the array types of the twins' signatures, named once for all of them
    _F: TypeAlias = npt.NDArray[np.float32] | npt.NDArray[np.float64]
    _D: TypeAlias = npt.NDArray[np.float64]
    _I32: TypeAlias = npt.NDArray[np.int32]
    _I64: TypeAlias = npt.NDArray[np.int64]
    _U8: TypeAlias = npt.NDArray[np.uint8] | npt.NDArray[np.bool_]  # masks
    _IE: TypeAlias = npt.NDArray[np.int16] | npt.NDArray[np.int32]  # popcount exponents
    # row i as (values, column indices); columns None for a dense row
    Rows: TypeAlias = Callable[[int], tuple[list[float], list[int] | None]]

# Every exact (bucket) sum of the C twins stays below 2^62 if each row of coefficients, with
# its bias, sums to less than 2^61 in absolute value (then so does the difference of two rows).
LIMIT = 2**61


# ------------------------------------------------------------------------------ lane sums

def dot4(a: Sequence[float], b: Sequence[float]) -> float:
    """4-lane sum of a[k] * b[k] over the entries of a."""
    s = [0.0, 0.0, 0.0, 0.0]
    for k, v in enumerate(a):
        s[k & 3] += v * b[k]
    return (s[0] + s[1]) + (s[2] + s[3])


def dot4_indexed(values: Sequence[float], columns: Sequence[int] | None,
                 w: Sequence[float]) -> float:
    """4-lane sum of values[k] * w[columns[k]], lane k % 4 (columns None: `dot4`)."""
    if columns is None:
        return dot4(values, w)
    s = [0.0, 0.0, 0.0, 0.0]
    for k, v in enumerate(values):
        s[k & 3] += v * w[columns[k]]
    return (s[0] + s[1]) + (s[2] + s[3])


def dot4_cols(a: Sequence[float], k: Sequence[float], cols: Sequence[int] | None) -> float:
    """4-lane sum of a[cols[c]] * k[c] in lane cols[c] % 4, in the order of cols (cols None:
    every column, `dot4`)."""
    if cols is None:
        return dot4(a, k)
    s = [0.0, 0.0, 0.0, 0.0]
    for c, j in enumerate(cols):
        s[j & 3] += a[j] * k[c]
    return (s[0] + s[1]) + (s[2] + s[3])


def sqnorm4(values: Sequence[float]) -> float:
    """4-lane sum of values[k] * values[k]."""
    s = [0.0, 0.0, 0.0, 0.0]
    for k, v in enumerate(values):
        s[k & 3] += v * v
    return (s[0] + s[1]) + (s[2] + s[3])


def exact(coefs: Sequence[int], exps: Sequence[int], bias: int,
          cols: Sequence[int] | None = None) -> int:
    """sum_j coefs[j] * 2^exps[j] + bias as a Python integer (exact for any exponent); with
    cols, sum_c coefs[cols[c]] * 2^exps[c]."""
    total = bias
    if cols is None:
        for a, e in zip(coefs, exps):
            if a:
                total += a << e
    else:
        for j, e in zip(cols, exps):
            if coefs[j]:
                total += coefs[j] << e
    return total


# ------------------------------------------------------------------------------- updates

def first_max(scores: Sequence[Any]) -> int:
    """The first k of the largest scores[k]: ties go to the lowest class index."""
    pred, best = 0, scores[0]
    for k in range(1, len(scores)):
        if scores[k] > best:
            pred, best = k, scores[k]
    return pred


def first_max_finite(scores: Sequence[float]) -> int | None:
    """`first_max`, or None when a score is not finite (the epoch stops there)."""
    return first_max(scores) if all(map(math.isfinite, scores)) else None


def move(a: list[list[Any]], b: list[Any] | None, i: int, gain: int, lose: int,
         step: Any) -> None:
    """A K-class update of coefficient i: a[gain][i] += step and a[lose][i] -= step, then
    b[gain] += step and b[lose] -= step (b None: no intercept); lose -1: no losing class."""
    a[gain][i] += step
    if lose >= 0:
        a[lose][i] -= step
    if b is not None:
        b[gain] += step
        if lose >= 0:
            b[lose] -= step


class State:
    """A model's coefficients (or weights) a and biases b while an epoch runs, as Python lists
    (b has one entry for a binary model), with the lazy-averaging sums of [Daume2017] Alg. 7
    when u is given (``on``): u (shaped as a), beta (as b) and the counter c. `store` writes
    them all back in place."""

    def __init__(self, a: npt.NDArray[Any], b: npt.NDArray[Any], u: npt.NDArray[Any] | None,
                 beta: npt.NDArray[Any] | None, count: _I64 | None) -> None:
        self.arrays = a, b, u, beta, count
        self.a: list[Any] = a.tolist()
        self.b: list[Any] = b.tolist()
        self.on = u is not None
        self.u: list[Any] = [] if u is None else u.tolist()
        self.beta: list[Any] = [] if beta is None else beta.tolist()
        self.c = 0 if count is None else int(count[0])

    def add(self, i: int, step: Any, fit_intercept: bool) -> None:
        """A binary mistake on example i: a[i] += step (b += step), u[i] += step c (beta += step
        c)."""
        self.a[i] += step
        if fit_intercept:
            self.b[0] += step
        if self.on:
            cstep = step * self.c
            self.u[i] += cstep
            if fit_intercept:
                self.beta[0] += cstep

    def move(self, i: int, gain: int, lose: int, step: Any, fit_intercept: bool) -> None:
        """A K-class mistake on example i: `move` on a and b by step, on u and beta by step c."""
        move(self.a, self.b if fit_intercept else None, i, gain, lose, step)
        if self.on:
            move(self.u, self.beta if fit_intercept else None, i, gain, lose, step * self.c)

    def store(self) -> None:
        a, b, u, beta, count = self.arrays
        a[:] = self.a
        b[:] = self.b
        if self.on:
            assert u is not None and beta is not None and count is not None
            u[:] = self.u
            beta[:] = self.beta
            count[0] = self.c


def result(mistakes: int, error: Exception | None) -> int:
    """The epoch's mistakes, or the error that stopped it (raised once the state is stored)."""
    if error is not None:
        raise error
    return mistakes


# ---------------------------------------------------------------------------------- rows

def dense_rows(X: _F) -> Rows:
    """Row i of a dense X as (values, None)."""
    rows = X.tolist()
    return lambda i: (rows[i], None)


def csr_rows(data: _F, indices: _I32, indptr: _I64) -> Rows:
    """Row i of a CSR matrix as (values, columns)."""
    d, ix, p = data.tolist(), indices.tolist(), indptr.tolist()
    return lambda i: (d[p[i]:p[i + 1]], ix[p[i]:p[i + 1]])


# -------------------------------------------------------------------------------- checks

def need(ok: bool, what: str) -> None:
    """The ValueError of a failed check (the C twins' ``_checks.need``)."""
    if not ok:
        raise ValueError(what)


def non_finite(t: int, i: int) -> FloatingPointError:
    """The error of an epoch that meets an activation outside float64's range."""
    return FloatingPointError(f"non-finite activation at position {t} of the visiting order "
                              f"(row {i}): the weights or the data overflow float64")


def non_finite_sentence(s: int, t: int | None = None) -> FloatingPointError:
    """The error of a sentence whose Viterbi score leaves float64's range (at position t of
    an epoch's visiting order)."""
    where = f"sentence {s}" if t is None else \
        f"position {t} of the visiting order (sentence {s})"
    return FloatingPointError(f"non-finite Viterbi score at {where}: the emissions, the "
                              f"weights or the data are not finite or overflow float64")


def check_csr(indptr: _I64, nnz: int, n_idx: int) -> None:
    p = indptr.tolist()
    ok = len(p) >= 1 and n_idx == nnz and p[0] == 0 and p[-1] == nnz
    need(ok and all(p[t] <= p[t + 1] for t in range(len(p) - 1)),
         "indptr must be monotone from 0 to len(data), len(indices) == len(data)")


def check_steps(steps: _I64 | None, m: int) -> None:
    need(steps is None or steps.shape[0] >= m,
         "steps must have room for one entry per visited example")


def store_steps(steps: _I64 | None, recorded: list[int]) -> None:
    """Positions t (in order/rows) of this call's mistakes, for the voted perceptron."""
    if steps is not None and recorded:
        steps[:len(recorded)] = recorded


def check_rows(rows: _I64, n_pool: int, n_krows: int, n_kcols: int,
               cols: _I64 | None = None) -> None:
    """Kernel rows Krows (n_krows, n_kcols): one row per entry of rows, one column per pool
    example (per entry of cols, when given); rows in [0, n_pool)."""
    need(n_krows == len(rows), "Krows must have one row per entry of rows")
    if cols is None:
        need(n_kcols == n_pool, "Krows must have one column per pool example")
    else:
        need(n_kcols == len(cols), "Krows must have one column per entry of cols")
    need(all(0 <= i < n_pool for i in rows.tolist()), f"rows must lie in [0, {n_pool})")


def check_rows_epoch(Krows: npt.NDArray[Any], rows: _I64, y: npt.NDArray[Any],
                     alpha: npt.NDArray[Any], b: npt.NDArray[Any], cols: _I64 | None,
                     u: npt.NDArray[Any] | None, beta: npt.NDArray[Any] | None,
                     count: _I64 | None) -> None:
    """The checks of a rows-mode epoch (``_dual_py``, ``_conjunction_py``), in their order:
    `check_rows`, y and b against alpha (1-D: binary, one bias; (K, n): class indices y, one
    bias per class), `check_cols`, `check_avg`."""
    n = alpha.shape[-1]
    check_rows(rows, n, Krows.shape[0], Krows.shape[1], cols)
    if alpha.ndim == 1:
        need(y.shape == (n,) and b.shape == (1,), "y must have shape (n,) and b (1,)")
    else:
        k_classes = alpha.shape[0]
        need(y.shape == (n,) and b.shape == (k_classes,), "y must have shape (n,) and b (K,)")
        need(all(0 <= v < k_classes for v in y.tolist()), f"y must lie in [0, {k_classes})")
    check_cols(cols, rows, alpha)
    check_avg(u, beta, count, alpha.shape, b.shape[0])


def check_cols(cols: _I64 | None, rows: _I64, alpha: npt.NDArray[Any]) -> None:
    """cols: strictly increasing pool indices holding every visited row and every column of
    alpha (1-D, or one row per class) with a nonzero coefficient."""
    if cols is None:
        return
    n = alpha.shape[-1]
    cl = cols.tolist()
    need(all(0 <= j < n for j in cl) and all(a < b for a, b in zip(cl, cl[1:])),
         f"cols must be strictly increasing indices in [0, {n})")
    inside = set(cl)
    need(all(i in inside for i in rows.tolist()), "cols must hold every entry of rows")
    lines = [alpha.tolist()] if alpha.ndim == 1 else alpha.tolist()
    need(all(v == 0 or j in inside for line in lines for j, v in enumerate(line)),
         "cols must hold every example with a nonzero coefficient")


def check_avg(u: npt.NDArray[Any] | None, beta: npt.NDArray[Any] | None,
              count: _I64 | None, shape_alpha: tuple[int, ...], n_b: int) -> bool:
    """Averaging is on when u is given; then beta and count must be too, of the right
    shapes (the C twins' ``_checks.check_avg``)."""
    if u is None:
        need(beta is None and count is None, "u, beta and count go together")
        return False
    if beta is None or count is None:  # as the C twin's check_avg (not an AttributeError)
        raise ValueError("u, beta and count go together")
    need(u.shape == shape_alpha, "u must have the shape of alpha")
    need(beta.shape == (n_b,), "beta must have the shape of b")
    need(count.shape == (1,) and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return True


def check_headroom(a: Any, extra: int, what: str) -> None:
    """OverflowError unless sum |a| + extra < 2^61 (the same test as the C twins')."""
    total = extra
    ok = total < LIMIT
    for v in a.tolist() if ok else ():
        if not -LIMIT <= v <= LIMIT:
            ok = False
            break
        total += abs(v)
        if total >= LIMIT:
            ok = False
            break
    if not ok:
        raise OverflowError(f"{what}: the exact sums would reach 2^61 (|coefficients| + |bias| "
                            "per class, with room for this call's updates)")


# ------------------------------------------------------------------------ around the work
# What both twins run once per call around their work (_gram's: the checks of its arguments,
# the threads n_jobs asks for, the blocks of rows of a product; _sequence's blocks of
# sentences): glue, not arithmetic.

# int16 exponents hold popcounts of rows of up to this many bits
INT16_MAX_BITS = 32767
# Multiply-adds per block of rows of a product: a few milliseconds in C, so that Ctrl-C is
# seen between blocks and n_jobs threads share them. Every entry is its own dot4, so neither
# the blocks nor the threads change a value.
PRODUCT_WORK = 1 << 23


def effective_jobs(n_jobs: object) -> int:
    """Threads of a Gram for ``n_jobs``: None, the default, every core as BLAS uses them
    (`_threads.default_threads`: fewer when PERCEPTRON_C_NUM_THREADS or OMP_NUM_THREADS says
    so); an integer with scikit-learn's meaning (-1: every core, -2: all but one, ...), any
    integer type but bool; anything else is a ValueError."""
    if n_jobs is None:
        return default_threads()
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral) \
            or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a nonzero integer, got {n_jobs!r}")
    jobs = int(n_jobs)
    if jobs > 0:
        return jobs
    try:  # the cores this process may run on (as _threads.effective_n_jobs counts them)
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores + 1 + jobs)


def check_jobs(n_jobs: object) -> int | None:
    """``n_jobs`` checked as `effective_jobs` checks it, and its thread count, except for None:
    that count (every core unless a variable limits it) is looked up by `thread_count` only
    where a call has blocks to share, so a call of one block (a row's kernel values) never
    reads the environment (2.5 microseconds a call)."""
    return None if n_jobs is None else effective_jobs(n_jobs)


def thread_count(jobs: int | None) -> int:
    """The threads of `check_jobs`'s result: None is `_threads.default_threads`."""
    return default_threads() if jobs is None else jobs


def check_words(A: Any, B: Any, out: Any, n_jobs: object,
                max_row_popcount: Callable[[Any], int]) -> int | None:
    """The checks of a popcount Gram's arguments, in this order and these words (the twin's
    ``max_row_popcount`` counts the ones of the densest row); returns `check_jobs`'s
    thread count (None: the default, looked up where there are blocks to share)."""
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(f"A_words and B_words must be 2-D with the same number of words, got "
                         f"shapes {A.shape} and {B.shape}")
    dtype = getattr(out, "dtype", None)
    if dtype not in (np.int16, np.int32, np.int64):
        raise ValueError(f"out must be an int16, int32 or int64 array, got {dtype}")
    if out.shape != (A.shape[0], B.shape[0]):
        raise ValueError(f"out must have shape {(A.shape[0], B.shape[0])}, got {out.shape}")
    if dtype == np.int32 and A.shape[1] >= 1 << 25:  # popcounts are at most 64 * nw < 2^31
        raise ValueError(f"int32 out holds popcounts of fewer than {1 << 25} words a row, got "
                         f"{A.shape[1]} words: use int64 out")
    if dtype == np.int16 and 64 * A.shape[1] > INT16_MAX_BITS:
        # no popcount(a AND b) exceeds the ones of the sparser side's densest row
        top = min(max_row_popcount(A), max_row_popcount(B))
        if top > INT16_MAX_BITS:
            raise ValueError(f"int16 out holds popcounts up to {INT16_MAX_BITS}, but rows have "
                             f"up to {top} ones in common: use int32 out")
    return check_jobs(n_jobs)


def check_float(X: Any, Y: Any, out: Any) -> None:
    """The checks of a float Gram's arguments."""
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must be 2-D with the same number of columns, got shapes "
                         f"{X.shape} and {Y.shape}")
    if out.shape != (X.shape[0], Y.shape[0]) or out.dtype != np.float64:
        raise ValueError(f"out must be float64 of shape {(X.shape[0], Y.shape[0])}, got "
                         f"{out.dtype} {out.shape}")


def given_norms(X: Any, Y: Any, norms: tuple) -> tuple[Any, Any]:
    """The squared norms an RBF Gram was given, as float64 arrays, checked against X, Y."""
    xx, yy = (np.ascontiguousarray(v, dtype=np.float64) for v in norms)
    if xx.shape != (X.shape[0],) or yy.shape != (Y.shape[0],):
        raise ValueError(f"norms must be two arrays of {X.shape[0]} and {Y.shape[0]} squared "
                         "norms")
    return xx, yy


def product_blocks(m: int, n: int, d: int, min_rows: int = 1,
                   multiple: int = 1) -> list[tuple[int, int]]:
    """[a, z) blocks of the rows of an m x n product of rows of d features: about
    `PRODUCT_WORK` multiply-adds each, at least ``min_rows`` rows, a multiple of ``multiple``
    (the C twin's packed products gain on strips of many rows, whole tiles of rows; it then
    cuts a block's columns into chunks of about `PRODUCT_WORK`, `product_chunk`)."""
    rows = max(1, min_rows, PRODUCT_WORK // max(1, n * max(1, d)))
    rows += -rows % multiple
    return [(a, min(m, a + rows)) for a in range(0, m, rows)]


def product_chunk(rows: int, d: int, min_cols: int) -> int:
    """The columns of a chunk of a block of ``rows`` rows: about `PRODUCT_WORK`
    multiply-adds, at least ``min_cols`` (a packed panel), a multiple of it."""
    cols = max(min_cols, PRODUCT_WORK // max(1, rows * max(1, d)))
    return cols - cols % min_cols


# Multiply-adds per block of sentences to decode: a few milliseconds (as _linear_model's
# DECISION_WORK), so that Ctrl-C and a stopped call act within milliseconds.
DECODE_WORK = 1 << 22


def sentence_blocks(offsets: Any, n_tags: int, row_len: int) -> list[tuple[int, int]]:
    """[first, stop) blocks of consecutive sentences (``offsets``: their boundaries), each
    starting at the first sentence that starts at or after a multiple of the tokens worth
    `DECODE_WORK` multiply-adds (a token costs K (row_len + K)): the same blocks for any
    number of threads."""
    per_token = max(1, n_tags) * (max(1, row_len) + max(1, n_tags))
    starts = np.asarray(offsets).tolist()
    n_sent, step = len(starts) - 1, max(1, DECODE_WORK // per_token)
    firsts: list[int] = []
    for t in range(0, starts[-1], step):
        s = bisect.bisect_left(starts, t, 0, n_sent)
        if s < n_sent and (not firsts or firsts[-1] != s):
            firsts.append(s)
    return list(zip(firsts, firsts[1:] + [n_sent]))


def decode_blocks(block: Callable[[int, int], int], offsets: Any, n_tags: int, row_len: int,
                  n_jobs: Any) -> None:
    """block(first, stop) for every block of `sentence_blocks`, on n_jobs threads
    (`run_shared`); each returns -1, or the sentence of its block whose Viterbi score is not
    finite, and the lowest of those raises `non_finite_sentence`, whatever the threads."""
    blocks = sentence_blocks(offsets, n_tags, row_len)
    bad: list[int] = []

    def one(k: int) -> None:
        s = block(*blocks[k])
        if s >= 0:
            bad.append(s)

    run_shared(one, len(blocks), n_jobs)
    if bad:
        raise non_finite_sentence(min(bad))


def run_blocks(fn: Callable[[int, int], None], blocks: Sequence[tuple[int, int]],
               n_threads: int | None) -> None:
    """fn(a, z) for every (a, z) of blocks, on up to n_threads threads (`check_jobs`'s
    result; `run_shared`: the shared pool, each thread taking the next block as it finishes
    one, in copies of the caller's context; serially, between bytecodes where Ctrl-C is seen,
    for one thread or one block); every call has ended before the first error raised by one
    is raised here."""
    threads = thread_count(n_threads) if len(blocks) > 1 else 1
    run_shared(lambda b: fn(*blocks[b]), len(blocks), threads)
