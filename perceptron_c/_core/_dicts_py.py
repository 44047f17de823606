"""Pure-Python twin of ``_dicts_c``: one example given as a dict of feature name -> number,
read, scored and learned in one call (River's ``predict_one(x)`` and ``learn_one(x, y)``).

Reading a dict (`dict_row`). ``index`` (a dict) maps each name that has a column to it (an
int). Each value of ``x`` must be a real number: a float (its float value: np.float64 is
one), an int or a bool (its value), or any other ``numbers.Real`` or a numpy bool
(``float(v)``); anything else (str, bytes, None, complex, datetime, ...) is a TypeError that
names the feature. NaN is a missing value: the entry is left out. An infinite value, or an
int beyond float64's range, is a ValueError that names the feature. The values are checked
in the order of the keys, all of them before anything changes, so a call that raises leaves
the model as it was. A ``Mapping`` that is not a dict is read as ``dict(x)``.

The entries whose name has a column form the row, in column order whatever the order of the
keys, and the arithmetic is that of the routines on that one-row CSR (``_linear_py``,
``_sgd_py``, ``_budget_py``): the same model for any order of the keys, one dict at a time or
a batch of them. A name without a column adds nothing to a score (its weight would be 0); a
learning call that meets one with a number learns nothing and returns `NEW_NAMES`: the caller
numbers the new names (`dict_row` lists them), grows its arrays, builds its object anew and
calls again.

The objects hold the arrays of one model and read and write them in place at each call, so
that a call costs what its example costs, never anything proportional to the model's size:

- `LinearDicts`: the perceptrons ([Daume2017] Alg. 5 and 7, [Bunescu-CS4900] K-class).
  Scores use the averaged weights when averaging, each computed where the row needs it:
  ``W[k, j] - U[k, j] / c`` for the row's columns j and ``b[k] - beta[k] / c`` (c the
  counter as a float), then the 4-lane sum in column order, as ``_linear_py.decision_csr``
  computes it on the published ``(W - U / c, b - beta / c)``: the same bits.
- `SGDDicts`: the passive-aggressive models ([Crammer2006]) on ``_sgd_py``'s epoch, one row,
  sample weight 1, no averaging and no penalty (the weight scale stays 1); its scores are
  the 4-lane sums of the stored weights plus the intercept.
- `BudgetDicts`: the budget kernel perceptron ([Cavallanti2007], [Dekel2008],
  [Orabona2009]) on sparse rows: each support vector holds the entries it was stored with
  (columns and values), so memory and the cost of a call follow the entries of the example
  and of the support vectors, never the number of names seen. A kernel value of two sparse
  rows is ``_gram_py``'s on their dense rows over the `lane_layout` of the columns either
  has, which is its value on the dense rows over every column (each lane adds the same
  products in the same order; the other columns add +0). So: the kernel values against the
  support vectors and the example itself (and, for the Forgetron once the slots are full,
  the oldest vector's row), then one call of ``_budget_py``'s routine, exactly as
  ``perceptron_c.river`` runs a block of one row. Its score is the 4-lane sum over the slots
  (slot s in lane s % 4) of the (averaged) coefficients times the kernel values, plus the
  bias: ``kernels._rows.cached_scores``' sum, which leaves zero coefficients out to the same
  bits (every kernel value is finite, and a lane that starts at +0 is unchanged by adding
  +-0). The C twin reads the two rows' entries only, in lanes by column (``_lanes.pxd``'s
  dot4_merge and sqnorm4_halfdiff): the same bits.
"""
from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ConcurrentUseError
from ._budget_py import budget_epoch, projectron_epoch
from ._contract import dot4, need
from ._gram_py import gram_linear, gram_poly, gram_rbf
from ._linear_py import (
    averaged_epoch_csr,
    multiclass_averaged_epoch_csr,
    multiclass_epoch_csr,
    perceptron_epoch_csr,
)
from ._sgd_py import (
    AVERAGE_B,
    ETA0,
    INTERCEPT,
    N_PARAMS,
    N_STATE,
    OBJECTIVE,
    RATE_PA2,
    SQ_NORM,
    SUMLOSS,
    WSCALE,
    sgd_epoch_csr,
)

if TYPE_CHECKING:
    from ._contract import _D, _I32, _I64

__all__ = ["BudgetDicts", "LinearDicts", "SGDDicts", "dict_row", "lane_layout"]

NEW_NAMES = -1  # a learning call met a name without a column: nothing learned
NO_ROOM = -2  # BudgetDicts.learn: every slot is taken, below the budget: nothing learned
BATCH = 2  # busy[0] while a batch is learned: reading calls stop too (`_Busy`)
BUSY_LEARN = ("another thread is learning in this model (learn_many, or learn_one of new names "
               "or classes): learn from one thread at a time")
BUSY_READ = ("another thread's learn_many is writing this model: predict between batches, or "
              "on a copy")
KERNELS = ("rbf", "poly", "linear")
STRATEGIES = ("stoptron", "random", "oldest", "forgetron", "projectron", "projectron++")
_POLICY = {"stoptron": 0, "random": 1, "oldest": 2, "forgetron": 2}  # budget_epoch's policy

_ONE = np.zeros(1, dtype=np.int64)  # the visiting order of a one-row call


def _as_dict(x: Any) -> dict[Any, Any]:
    if isinstance(x, dict):
        return x
    if isinstance(x, Mapping):
        return dict(x)
    raise TypeError(f"x must be a dict of feature name -> number, got {type(x).__name__}")


def _real(name: Any, v: Any) -> float:
    """The value of feature ``name``, checked (the module docstring)."""
    try:
        if isinstance(v, float):
            value = float.__float__(v)
        elif isinstance(v, int):
            value = int.__float__(v)
        elif isinstance(v, (numbers.Real, np.bool_)):
            value = float(v)
        else:
            raise TypeError(f"x must map feature names to real numbers: x[{name!r}] is a "
                            f"{type(v).__name__}")
    except OverflowError:
        raise ValueError(f"x holds a number beyond float64's range at {name!r}") from None
    if math.isinf(value):
        raise ValueError(f"x holds an infinite value at {name!r}; only finite numbers and NaN "
                         "(a missing value) are accepted")
    return value


def _entries(x: Any, index: dict[Any, int], width: int,
             reading: bool = False) -> tuple[list[float], list[int], list[Any]]:
    """(values, columns) of x's entries that have a column, in column order, and the names
    without a column that have a number, in the order of the keys. A reading call (one that
    only reads the model) takes a column beyond ``width`` as none: a name another thread's
    learning call is giving a column, whose weight is not in these arrays yet."""
    pairs, new = [], []
    for name, v in _as_dict(x).items():
        value, col = _real(name, v), index.get(name)
        if reading and col is not None and col >= width:
            col = None
        need(col is None or 0 <= col < width,
             f"index maps {name!r} to {col}, beyond the {width} columns")
        if value != value:  # NaN: a missing value
            continue
        if col is None:
            new.append(name)
        else:
            pairs.append((col, value))
    pairs.sort()
    return [v for _, v in pairs], [c for c, _ in pairs], new


def dict_row(x: Mapping[Any, Any], index: dict[Any, int],
             width: int) -> tuple[_D, _I32, list[Any]]:
    """``x`` as a one-row CSR in column order, (data float64, indices int32), and the names
    without a column that have a number (not NaN), in the order of the keys: the reading of
    the module docstring (TypeError or ValueError naming a bad value), ``index`` mapping
    names to columns below ``width``."""
    values, cols, new = _entries(x, index, width)
    return np.array(values, dtype=np.float64), np.array(cols, dtype=np.int32), new


class _Busy:
    """The model's flags, ``busy`` (3,) uint64: busy[0] 0, 1 (a learn_one that gives names
    columns or a class rows) or BATCH (a learn_many) while a learning call of thread busy[1]
    (``threading.get_ident``) is under way; busy[2] counts the changes of the index of names.
    A learning call of another thread meanwhile raises ConcurrentUseError (it would write
    arrays the call replaces, or between the rows of a batch), and so does a reading call
    during a batch (it would read half a batch); checked after x is read, where no Python code
    runs until the call ends. A reading call reads x again if names got columns while it read
    (Python code may run there: a key's __hash__, a value's type check), so that its row and
    the weights it scores are of one model. None: no checks."""

    _busy: Any = None
    index: dict[Any, int]

    def _guard(self, busy: Any) -> None:
        need(busy is None or busy.shape == (3,), "busy must have shape (3,)")
        self._busy = busy

    def _check(self, learning: bool) -> None:
        b = self._busy
        if b is None or not b[0] or (not learning and b[0] != BATCH) or (
                learning and int(b[1]) == threading.get_ident()):
            return
        raise ConcurrentUseError(BUSY_LEARN if learning else BUSY_READ)

    def _names(self) -> int:
        return 0 if self._busy is None else int(self._busy[2])

    def _read(self, x: Any, width: int) -> tuple[list[float], list[int]]:
        """A reading call's entries of x (`_entries`), of one state of the index."""
        while True:
            names = self._names()
            values, cols, _ = _entries(x, self.index, width, reading=True)
            self._check(False)
            if self._names() == names:
                return values, cols

    def _frame_rows(self, values: _D, names: list[Any],
                    width: int) -> list[tuple[list[float], list[int]]]:
        """The rows of a frame's values (NaN: missing), each in column order: the columns of
        its names (those below width), of one state of the index."""
        need(values.ndim == 2 and len(names) == values.shape[1],
             "names must name the columns of values")
        while True:
            version = self._names()
            cols = [self.index.get(name) for name in names]
            layout = sorted((c, j) for j, c in enumerate(cols) if c is not None and c < width)
            need(all(c >= 0 for c, _ in layout), "index maps a name to a negative column")
            self._check(False)
            if self._names() == version:
                break
        rows = []
        for row in values.tolist():
            vals = [(row[j], c) for c, j in layout if row[j] == row[j]]
            need(not any(math.isinf(v) for v, _ in vals), "values must be finite or NaN")
            rows.append(([v for v, _ in vals], [c for _, c in vals]))
        return rows


def _csr(values: list[float], cols: list[int]) -> tuple[_D, _I32, _I64]:
    return (np.array(values, dtype=np.float64), np.array(cols, dtype=np.int32),
            np.array([0, len(cols)], dtype=np.int64))


def _check_rows(W: _D, b: _D, what: str) -> None:
    need(W.ndim == 2 and W.shape[1] >= 1 and b.shape == (W.shape[0],),
         f"{what} must be (R, d) with d >= 1 and b (R,)")


class LinearDicts(_Busy):
    """The perceptrons' calls on dicts: W (R, d) and b (R,), with U (R, d), beta (R,) and
    count (1,) when averaging (else None); one row for the binary model; ``busy``: `_Busy`."""

    def __init__(self, index: dict[Any, int], W: _D, b: _D, U: _D | None, beta: _D | None,
                 count: _I64 | None, fit_intercept: bool, normalize: bool,
                 busy: Any = None) -> None:
        need(isinstance(index, dict), "index must be a dict")
        self._guard(busy)
        _check_rows(W, b, "W")
        need((U is None) == (beta is None) == (count is None), "U, beta and count go together")
        if U is not None and beta is not None and count is not None:
            need(U.shape == W.shape and beta.shape == b.shape, "U and beta must match W and b")
            need(count.shape == (1,) and count[0] >= 1, "count must have shape (1,) and be >= 1")
        self.index, self.W, self.b, self.U, self.beta, self.count = index, W, b, U, beta, count
        self.fit_intercept, self.normalize = bool(fit_intercept), bool(normalize)

    def _weights(self, k: int, cols: list[int]) -> tuple[list[float], float]:
        """Row k's weights at cols, and its bias: averaged ones when averaging."""
        if self.U is None or self.beta is None or self.count is None:
            return [float(self.W[k, j]) for j in cols], float(self.b[k])
        c = float(self.count[0])
        w = [float(self.W[k, j]) - float(self.U[k, j]) / c for j in cols]
        return w, float(self.b[k]) - float(self.beta[k]) / c

    def _scores(self, values: list[float], cols: list[int]) -> list[float]:
        out = []
        for k in range(self.W.shape[0]):
            w, bias = self._weights(k, cols)
            out.append(dot4(values, w) + bias)  # dot4_indexed over the row's own weights
        return out

    def decision(self, x: Mapping[Any, Any]) -> float:
        """The score of row 0 of W (the binary model's) on ``x``."""
        values, cols = self._read(x, self.W.shape[1])
        return self._scores(values, cols)[0]

    def argmax(self, x: Mapping[Any, Any]) -> int:
        """The row of W of highest score on ``x``: the first, and the first NaN if any, as
        ``numpy.argmax``; -1 if W has no row (no class yet)."""
        values, cols = self._read(x, self.W.shape[1])
        scores = self._scores(values, cols)
        return int(np.argmax(np.array(scores))) if scores else -1

    def class_scores(self, x: Mapping[Any, Any]) -> list[float]:
        """The score of each row of W on ``x`` (a list of R floats; empty without rows)."""
        values, cols = self._read(x, self.W.shape[1])
        return self._scores(values, cols)

    def scores(self, values: _D, names: list[Any]) -> _D:
        """(n_rows, R): the score of row k of W on each row of a frame (`_frame_rows`)."""
        rows = self._frame_rows(values, names, self.W.shape[1])
        out = np.empty((len(rows), self.W.shape[0]))
        for i, (row, cols) in enumerate(rows):
            out[i] = self._scores(row, cols)
        return out

    def learn_binary(self, x: Mapping[Any, Any], y: float, w: float = 1.0) -> int:
        """One example of the binary perceptron (y = +1 or -1): ``averaged_epoch_csr`` or
        ``perceptron_epoch_csr`` on its row, sample weight ``w`` (the step times w); returns
        the mistakes (0 or 1), or NEW_NAMES."""
        need(self.W.shape[0] == 1, "W must have one row")
        values, cols, new = _entries(x, self.index, self.W.shape[1])
        self._check(True)
        if new:
            return NEW_NAMES
        row, yy, sw = _csr(values, cols), np.array([y], dtype=np.float64), np.array([w])
        if self.U is None or self.beta is None or self.count is None:
            return perceptron_epoch_csr(*row, yy, _ONE, self.W[0], self.b,
                                        self.fit_intercept, self.normalize, sample_weight=sw)
        return averaged_epoch_csr(*row, yy, _ONE, self.W[0], self.b, self.U[0], self.beta,
                                  self.count, self.fit_intercept, self.normalize, sw)

    def learn_class(self, x: Mapping[Any, Any], y: int, w: float = 1.0) -> int:
        """One example of the K-class perceptron (y a row of W): ``multiclass_epoch_csr`` or
        its averaged form on its row, sample weight ``w``; returns the mistakes (0 or 1), or
        NEW_NAMES."""
        values, cols, new = _entries(x, self.index, self.W.shape[1])
        self._check(True)
        need(0 <= y < self.W.shape[0], f"y must be a class index in [0, {self.W.shape[0]})")
        if new:
            return NEW_NAMES
        row, yy, sw = _csr(values, cols), np.array([y], dtype=np.int64), np.array([w])
        if self.U is None or self.beta is None or self.count is None:
            return multiclass_epoch_csr(*row, yy, _ONE, self.W, self.b, self.fit_intercept,
                                        self.normalize, sw)
        return multiclass_averaged_epoch_csr(*row, yy, _ONE, self.W, self.b, self.U, self.beta,
                                             self.count, self.fit_intercept, self.normalize,
                                             sw)


class SGDDicts(_Busy):
    """The passive-aggressive calls on dicts: weights W (1, d), ``_sgd_py``'s ``state`` and
    ``params``, its loss and learning-rate codes (no penalty); ``busy``: `_Busy`."""

    def __init__(self, index: dict[Any, int], W: _D, state: _D, params: _D, loss: int,
                 learning_rate: int, fit_intercept: bool, busy: Any = None) -> None:
        need(isinstance(index, dict), "index must be a dict")
        self._guard(busy)
        need(W.ndim == 2 and W.shape[0] == 1 and W.shape[1] >= 1, "W must be (1, d), d >= 1")
        need(state.shape == (N_STATE,) and params.shape == (N_PARAMS,),
             f"state must have length {N_STATE} and params {N_PARAMS}")
        need(0 <= loss <= 3 and 0 <= learning_rate <= 3, "loss and learning_rate must be "
             "LOSS_* and RATE_* constants")
        need(state[WSCALE] == 1.0 and state[AVERAGE_B] > 0 and not state[SQ_NORM] < 0,
             "state must come from sgd_start, its weight scale 1")
        need(learning_rate != RATE_PA2 or 0 < params[ETA0] < math.inf,
             "params[ETA0] (C) must be positive and finite with RATE_PA2")
        self.index, self.W, self.state, self.params = index, W, state, params
        self.loss, self.rate = int(loss), int(learning_rate)
        self.fit_intercept = bool(fit_intercept)

    def decision(self, x: Mapping[Any, Any]) -> float:
        """w . x + the intercept (the 4-lane sum in column order)."""
        values, cols = self._read(x, self.W.shape[1])
        return dot4(values, [float(self.W[0, j]) for j in cols]) + float(self.state[INTERCEPT])

    def scores(self, values: _D, names: list[Any]) -> _D:
        """(n_rows, 1): `decision` of each row of a frame (`_frame_rows`)."""
        rows = self._frame_rows(values, names, self.W.shape[1])
        out = np.empty((len(rows), 1))
        for i, (row, cols) in enumerate(rows):
            out[i, 0] = dot4(row, [float(self.W[0, j]) for j in cols]) + \
                float(self.state[INTERCEPT])
        return out

    def learn(self, x: Mapping[Any, Any], y: float, w: float = 1.0) -> int:
        """One example: ``sgd_epoch_csr`` on its row, sample weight ``w`` (the update times
        w); returns the nonzero updates (0 or 1), or NEW_NAMES."""
        values, cols, new = _entries(x, self.index, self.W.shape[1])
        self._check(True)
        if new:
            return NEW_NAMES
        self.state[SUMLOSS] = self.state[OBJECTIVE] = 0.0  # an epoch's sums start at 0
        return sgd_epoch_csr(*_csr(values, cols), np.array([y], dtype=np.float64),
                             np.array([float(w)]), _ONE, self.W[0], np.zeros(0), np.zeros(0),
                             self.state, self.params, self.loss, self.rate, 0,
                             self.fit_intercept, False)


def _gram(kernel: tuple[str, float, int, float], A: _D, B: _D) -> _D:
    """K(A, B) as ``perceptron_c.kernels`` computes it: an overflow of the polynomial or
    linear kernel is an OverflowError (the RBF kernel cannot overflow)."""
    name, gamma, degree, coef0 = kernel
    out = np.empty((A.shape[0], B.shape[0]))
    with np.errstate(over="ignore", invalid="ignore"):
        if name == "rbf":
            gram_rbf(A, B, gamma, out)
            return out
        if name == "poly":
            gram_poly(A, B, degree, gamma, coef0, out)
        else:
            gram_linear(A, B, out)
    if not np.isfinite(out).all():
        what = "polynomial" if name == "poly" else "linear"
        raise OverflowError(f"the {what} Gram matrix does not fit in float64 (a value "
                            "overflowed to inf); rescale the data or the kernel parameters")
    return out


def lane_layout(columns: _I32) -> _I64:
    """The positions of increasing ``columns`` (>= 0) in the shortest dense row that keeps
    each column in its lane: positions increasing, position p of column j with p % 4 ==
    j % 4. A dense row of these positions gives the 4-lane sums (``_contract.dot4``) of the
    row over every column: each lane adds the same products in the same order, and the
    columns left out add +0 to a lane."""
    need(all(j > i for i, j in zip([-1, *columns.tolist()], columns.tolist())),
         "columns must be increasing and >= 0")
    out, prev = np.empty(columns.shape[0], dtype=np.int64), -1
    for k, j in enumerate(columns.tolist()):
        prev = prev + 1 + (j - prev - 1) % 4
        out[k] = prev
    return out


def _dense(rows: list[tuple[list[int], list[float]]]) -> _D:
    """Sparse rows (columns, values) as a dense block over the `lane_layout` of the columns
    any of them has (one column of zeros when none has any)."""
    union = np.array(sorted({j for cols, _ in rows for j in cols}), dtype=np.int32)
    pos = lane_layout(union)
    out = np.zeros((len(rows), int(pos[-1]) + 1 if pos.size else 1))
    for i, (cols, values) in enumerate(rows):
        out[i, pos[np.searchsorted(union, cols)]] = values
    return out


class BudgetDicts(_Busy):
    """The binary budget kernel perceptron's calls on dicts. ``width``: the columns ``index``
    may map to. ``arrays``: (sv (cap, L), sv_indices (cap, L) int32, sv_nnz (cap,), alpha
    (1, cap), b (1,), stamp (cap,), counts (5,), q (1,), Kinv ((cap, cap) for the
    Projectron), u (1, cap), beta (1,), count (1,)), the last three None without averaging:
    support vector s is the sparse row of entries sv[s, :m] at columns sv_indices[s, :m]
    (increasing), m = sv_nnz[s] <= L, the rest of its rows 0. ``kernel``: (name, gamma,
    degree, coef0); ``rng``: the generator "random" draws a slot from,
    ``rng.integers(0, budget)`` per example learned. A kernel value of two sparse rows is the
    one of their dense rows over the `lane_layout` of the columns they have, which is the
    value over every column: the cost of a call follows the entries of x and of the support
    vectors, not the number of names. ``busy``: `_Busy`."""

    def __init__(self, index: dict[Any, int], width: int, arrays: tuple[Any, ...],
                 kernel: tuple[Any, ...], strategy: str, budget: int, eta: float,
                 fit_intercept: bool, rng: Any, busy: Any = None) -> None:
        need(isinstance(index, dict), "index must be a dict")
        self._guard(busy)
        need(len(arrays) == 12 and len(kernel) == 4, "arrays must hold 12 arrays, kernel 4 "
             "values")
        need(kernel[0] in KERNELS and strategy in STRATEGIES, f"kernel must be one of "
             f"{KERNELS} and strategy one of {STRATEGIES}")
        need(isinstance(kernel[1], (int, float)), "kernel[1] (gamma) must be a number")
        sv, svc, svm, alpha, b, stamp, counts, q, kinv, u, beta, count = arrays
        cap, L = alpha.shape[1], sv.shape[1]
        need(1 <= cap <= budget and L >= 1 and width >= 1 and sv.shape == (cap, L) and
             alpha.shape == (1, cap) and b.shape == (1,) and stamp.shape == (cap,) and
             counts.shape == (5,) and q.shape == (1,), "arrays must be (sv (cap, L), "
             "sv_indices (cap, L), sv_nnz (cap,), alpha (1, cap), ...) with 1 <= cap <= "
             "budget and L >= 1, and width >= 1")
        need(svc.shape == (cap, L), f"sv_indices must be ({cap}, {L})")
        need(svm.shape == (cap,), f"sv_nnz must have length {cap}")
        need(not strategy.startswith("projectron") or kinv.shape == (cap, cap),
             "Kinv must be (cap, cap) for the Projectron")
        need((u is None) == (beta is None) == (count is None), "u, beta and count go together")
        self.index, self.width, self.arrays, self.kernel = index, width, arrays, kernel
        self.strategy, self.budget, self.eta = strategy, budget, eta
        self.fit_intercept, self.rng = fit_intercept, rng
        self._support(cap)

    def _support(self, n: int) -> list[tuple[list[int], list[float]]]:
        """Support vectors 0 .. n - 1 as (columns, values)."""
        sv, svc, svm = self.arrays[:3]
        L = sv.shape[1]
        need(all(0 <= m <= L for m in svm[:n].tolist()), f"sv_nnz must lie in [0, {L}]")
        return [(svc[s, :m].tolist(), sv[s, :m].tolist())
                for s, m in enumerate(svm[:n].tolist())]

    def _held(self) -> int:
        n = int(self.arrays[6][0])
        need(0 <= n <= self.arrays[3].shape[1], "counts[0] must lie in [0, cap]")
        return n

    def _coefs(self, n: int) -> tuple[list[float], float]:
        """The (averaged) coefficients of the n support vectors, and the bias."""
        _, _, _, alpha, b, _, _, _, _, u, beta, count = self.arrays
        coefs, bias = alpha[0, :n].tolist(), float(b[0])
        if count is not None:
            c = float(count[0])
            coefs = [a - v / c for a, v in zip(coefs, u[0, :n].tolist())]
            bias = bias - float(beta[0]) / c
        return coefs, bias

    def _score(self, cols: list[int], values: list[float], n: int, coefs: list[float],
               bias: float) -> float:
        if n == 0:
            return bias
        D = _dense([(cols, values), *self._support(n)])
        return dot4(coefs, _gram(self.kernel, D[:1], D[1:])[0].tolist()) + bias

    def decision(self, x: Mapping[Any, Any]) -> float:
        """The score of ``x``: averaged coefficients when averaging."""
        values, cols = self._read(x, self.width)
        n = self._held()
        return self._score(cols, values, n, *self._coefs(n))

    def scores(self, values: _D, names: list[Any]) -> _D:
        """(n_rows, 1): `decision` of each row of a frame (`_frame_rows`)."""
        rows = self._frame_rows(values, names, self.width)
        n = self._held()
        coefs, bias = self._coefs(n)
        out = np.empty((len(rows), 1))
        for i, (row, cols) in enumerate(rows):
            out[i, 0] = self._score(cols, row, n, coefs, bias)
        return out

    def learn(self, x: Mapping[Any, Any], y: int) -> int:
        """One example (y: 1 positive, 0 negative): its kernel rows, then one call of
        ``budget_epoch`` or ``projectron_epoch`` over it; a slot that takes it gets its
        entries. Returns the mistakes (0 or 1), NEW_NAMES, or NO_ROOM (the slots are full below
        the budget, or x has more entries than a row holds, L: the caller makes room)."""
        sv, svc, svm, alpha, b, stamp, counts, q, kinv, u, beta, count = self.arrays
        need(y in (0, 1), "y must be 0 (negative) or 1 (positive)")
        values, cols, new = _entries(x, self.index, self.width)
        self._check(True)
        if new:
            return NEW_NAMES
        n0, cap, m = self._held(), alpha.shape[1], len(cols)
        if n0 == cap < self.budget or m > sv.shape[1]:
            return NO_ROOM
        old = [int(np.argmin(stamp[:n0]))] if self.strategy == "forgetron" and n0 == cap \
            else []
        D = _dense([(cols, values), *self._support(n0)])
        K = _gram(self.kernel, np.vstack([D[:1], D[1:][old]]), np.vstack([D[1:], D[:1]]))
        rand = None
        if self.strategy == "random":  # a draw for every example, as the estimator draws
            r = int(self.rng.integers(0, self.budget, dtype=np.int64))
            rand = np.array([r if cap == self.budget else 0], dtype=np.int64)
        slots = np.full((4, cap), -1, dtype=np.int64)
        slots[0, :n0] = np.arange(n0)
        slots[1, old] = 1
        slots[2, :n0] = stamp[:n0]
        args = (K, _ONE, np.array([y], dtype=np.int64), alpha, b, slots,
                np.full(1, -1, dtype=np.int64), counts)
        avg = () if count is None else (u, beta, count)
        if self.strategy.startswith("projectron"):
            mistakes = projectron_epoch(*args, kinv, float(self.eta),
                                        self.strategy == "projectron++", self.fit_intercept,
                                        *avg)
        else:
            mistakes = budget_epoch(*args, self.fit_intercept, _POLICY[self.strategy], rand,
                                    q if self.strategy == "forgetron" else None, *avg)
        n = int(counts[0])
        for s in np.flatnonzero(slots[0, :n] >= n0).tolist():  # its entries, then 0s
            sv[s], svc[s], svm[s] = 0.0, 0, m
            sv[s, :m], svc[s, :m] = values, cols
        stamp[:n] = slots[2, :n]
        return mistakes
