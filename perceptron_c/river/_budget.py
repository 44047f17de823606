"""The budget kernel perceptron of ``perceptron_c.river``: at most ``budget`` support vectors,
on the compiled budget routines (every strategy of `BudgetKernelPerceptron`)."""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np
import pandas as pd
from river import base

from .. import _backend
from .. import kernels as _kernels
from .._backend import active as _twin
from .._utils._docs import fill
from ._rows import (
    DOCS,
    START_COLUMNS,
    Binary,
    Columns,
    PerCall,
    Rows,
    Sigmoid,
    Undo,
    binary_label,
    check_rows,
    signs,
)

__all__ = ["BudgetKernelPerceptron"]

STRATEGIES = ("random", "stoptron", "oldest", "forgetron", "projectron", "projectron++")
_POLICY = {"stoptron": 0, "random": 1, "oldest": 2, "forgetron": 2}
# a support vector stores the columns it had: a new name is a new column, not a weight
_X_LEARN = """
    x : dict
        Feature name -> number; a new name gets a column from now on, NaN is a missing
        value.
    """
_BLOCK = 256  # rows of one routine call: K is (2 * 256) x (budget + 256) at most
# the arrays a learning call writes in place
_WRITTEN = ("_sv", "_sv_indices", "_sv_nnz", "_alpha", "_b", "_stamp", "_counts", "_q", "_kinv",
            "_u", "_beta", "_count")


def _dense_pair(a: Rows, b: Rows) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``a`` and of ``b`` as dense blocks over the lane layout of the columns any
    of them has (``dicts.lane_layout``): the kernels' sums of the dense rows over every
    column, at the cost of the columns used."""
    union = np.union1d(a.indices, b.indices).astype(np.int32)
    pos = _backend.dicts.lane_layout(union)
    width = int(pos[-1]) + 1 if pos.size else 1
    blocks = []
    for rows in (a, b):
        out = np.zeros((rows.n_rows, width))
        counts = np.diff(rows.indptr)
        out[np.repeat(np.arange(rows.n_rows), counts),
            pos[np.searchsorted(union, rows.indices)]] = rows.data
        blocks.append(out)
    return blocks[0], blocks[1]


def _slice(rows: Rows, start: int, stop: int) -> Rows:
    p = rows.indptr
    s, e = int(p[start]), int(p[min(stop, rows.n_rows)])
    return Rows(rows.data[s:e], rows.indices[s:e], p[start:stop + 1] - s)


def _grown(a: np.ndarray, shape: tuple[int, ...], fill: float) -> np.ndarray:
    out = np.full(shape, fill, dtype=a.dtype)
    out[tuple(slice(0, s) for s in a.shape)] = a
    return out


class BudgetKernelPerceptron(Binary, PerCall, Sigmoid, base.MiniBatchClassifier):
    """The binary kernel perceptron on a budget for River: at most ``budget`` support vectors,
    whatever the length of the stream.

    The arithmetic of `perceptron_c.BudgetKernelPerceptron` (its routines, its strategies:
    "random" [Cavallanti2007], "oldest", "forgetron" [Dekel2008], "stoptron", "projectron"
    and "projectron++" [Orabona2009]) on River's ``learn_one``: each example (or each block of
    a frame) gets its kernel row against the support vectors. A support vector is stored
    sparse, as the entries it was learned with (a feature that appears later is 0 in it, as
    it was in the example), so memory is O(budget x the most entries of an example learned)
    (plus O(budget^2) for the Projectron's inverse Gram) however long the stream and however
    many feature names it brings, and a call costs what the entries of the example and of the
    support vectors cost. True (or 1) is the positive class, False (or 0) the negative;
    ``predict_one`` answers True when the score is positive. ``predict_proba_one`` is the
    sigmoid of the score (River's rule for its ``Perceptron``): a monotone map of the score
    for River's wrappers, not a calibrated probability. It takes no sample weight ``w``.

    Parameters
    ----------
    budget : int, default=100
        The most support vectors kept.
    strategy : str, default="random"
        What a mistake does once the budget is full: one of "random", "stoptron", "oldest",
        "forgetron", "projectron", "projectron++".
    kernel : {"rbf", "poly", "linear"}, default="rbf"
        ``exp(-gamma ||x - y||^2)``, ``(gamma x . y + coef0) ** degree`` or ``x . y``.
    gamma : float, default=1.0
        The RBF and polynomial kernels' scale (RBF: None is 1 / the room of the index of
        names, at least their number, doubled as names arrive: 8, 16, ...).
    degree : int, default=3
        The polynomial kernel's degree.
    coef0 : float, default=1.0
        The polynomial kernel's constant.
    eta : float, default=0.1
        The Projectron's threshold: an example within ``eta`` of the support set's span is
        projected onto it.
    fit_intercept : bool, default=False
        Learn a bias (the coefficient of a constant feature).
    average : bool, default=False
        Predict with the average of every coefficient vector held.
    seed : int or None, default=None
        The seed of the "random" strategy's draws.

    Raises
    ------
    ValueError
        If a parameter is out of its range (the message names it).
    """

    def __init__(self, budget: int = 100, strategy: str = "random", kernel: str = "rbf",
                 gamma: float | None = 1.0, degree: int = 3, coef0: float = 1.0,
                 eta: float = 0.1, fit_intercept: bool = False, average: bool = False,
                 seed: int | None = None) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"budget must be an integer >= 1, got {budget!r}")
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        if not (isinstance(eta, (int, float)) and 0 <= eta < math.inf):
            raise ValueError(f"eta must be a finite number >= 0, got {eta!r}")
        self.budget = budget
        self.strategy = strategy
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.average = average
        self.seed = seed
        self._kern = self._make_kernel()  # checks kernel, gamma, degree, coef0
        self._rng = np.random.default_rng(seed)
        self._columns = Columns()
        self._width = START_COLUMNS  # the room of the index of names (grow_columns' rule)
        self._sv = np.zeros((1, START_COLUMNS))  # support vector s: its entries, columns
        self._sv_indices = np.zeros((1, START_COLUMNS), dtype=np.int32)  # increasing, then 0s
        self._sv_nnz = np.zeros(1, dtype=np.int64)
        self._alpha = np.zeros((1, 1))
        self._b = np.zeros(1)
        self._stamp = np.zeros(1, dtype=np.int64)
        self._counts = np.zeros(5, dtype=np.int64)
        self._q = np.zeros(1)
        self._kinv = np.zeros((1, 1))
        self._u = np.zeros((1, 1))
        self._beta = np.zeros(1)
        self._count = np.ones(1, dtype=np.int64)
        self._reset_calls()

    _ARRAYS = _WRITTEN

    def _build_calls(self) -> Any:
        avg = (self._u, self._beta, self._count) if self.average else (None, None, None)
        arrays = (self._sv, self._sv_indices, self._sv_nnz, self._alpha, self._b, self._stamp,
                  self._counts, self._q, self._kinv, *avg)
        return _backend.dicts.BudgetDicts(self._columns.index, self._width, arrays,
                                          (self.kernel, self._gamma(), self.degree,
                                           self.coef0),
                                          self.strategy, self.budget, float(self.eta),
                                          bool(self.fit_intercept), self._rng, self._busy)

    def _keep(self, undo: Undo, columns: np.ndarray | None) -> None:
        """Every array a call writes in place, whole (O(budget) entries, O(budget^2) for the
        Projectron: what a call's kernel rows cost)."""
        for name in _WRITTEN:
            a = getattr(self, name)
            if a is not None and (name != "_kinv" or self.strategy.startswith("projectron")):
                undo.keep(a)

    def _gamma(self, width: int | None = None) -> float:
        if self.gamma is None:  # as it was when the rows were dense over the index's room
            return 1.0 / (self._width if width is None else width)
        return float(self.gamma)

    def _kernel_now(self, width: int) -> _kernels.Kernel:
        """The kernel of the frame paths while the index has room for ``width`` names."""
        if self.kernel == "rbf":
            return _kernels.RBF(gamma=self._gamma(width))
        return self._kern

    def _grow(self) -> None:
        """Room for the names of the index (grow_columns' rule, on no array)."""
        n, width = len(self._columns), self._width
        if n > width:
            self._width = max(n, 2 * width, START_COLUMNS)
            self._reset_calls()  # (the calls check columns against it; None's gamma)

    def _widen(self, entries: np.ndarray) -> None:
        """Room in a support vector's row for each of ``entries`` (numbers of entries of the
        examples learned, in order), as learn_one makes it: max(m, 2 L) at the first example
        of m > L entries."""
        L = width = self._sv.shape[1]
        over = np.flatnonzero(entries > L)
        while over.size:
            L = max(int(entries[over[0]]), 2 * L)
            over = over[entries[over] > L]
        if L > width:
            cap = self._sv.shape[0]
            self._sv = _grown(self._sv, (cap, L), 0.0)
            self._sv_indices = _grown(self._sv_indices, (cap, L), 0)

    def _make_kernel(self) -> _kernels.Kernel:
        if self.kernel == "rbf":
            return _kernels.RBF(gamma=self.gamma)
        if self.kernel == "poly":
            return _kernels.Polynomial(degree=self.degree, coef0=self.coef0,
                                       gamma=self.gamma)  # type: ignore[arg-type]  # (None: named)
        if self.kernel == "linear":
            return _kernels.Linear()
        raise ValueError(f"kernel must be 'rbf', 'poly' or 'linear', got {self.kernel!r}")

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        for strategy in STRATEGIES:
            yield {"budget": 20, "strategy": strategy, "gamma": 0.1, "seed": 1,
                   "fit_intercept": strategy == "oldest", "average": strategy == "forgetron"}

    @property
    def _is_stochastic(self) -> bool:
        return self.strategy == "random"

    # ------------------------------------------------------------------ learning
    def _reserve(self, need: int) -> None:
        """Room for ``need`` slots (at most the budget): the slotted arrays double."""
        cap = self._alpha.shape[1]
        if need <= cap:
            return
        cap = min(self.budget, max(need, 2 * cap))
        self._alpha = _grown(self._alpha, (1, cap), 0.0)
        if self.average:
            self._u = _grown(self._u, (1, cap), 0.0)
        self._stamp = _grown(self._stamp, (cap,), 0)
        if self.strategy.startswith("projectron"):  # the others never read it: O(budget)
            self._kinv = _grown(self._kinv, (cap, cap), 0.0)
        self._sv = _grown(self._sv, (cap, self._sv.shape[1]), 0.0)
        self._sv_indices = _grown(self._sv_indices, (cap, self._sv.shape[1]), 0)
        self._sv_nnz = _grown(self._sv_nnz, (cap,), 0)

    def _learn(self, rows: Rows, y: np.ndarray, widths: list[tuple[int, int]]) -> None:
        """Learn ``rows`` in blocks; gamma=None's 1 / width follows ``widths`` (row, width),
        row by row, as it does in ``learn_one``."""
        self._widen(np.diff(rows.indptr))
        if self.gamma is not None:
            widths = widths[:1]
        ends = [t for t, _ in widths[1:]] + [rows.n_rows]
        for (start, width), end in zip(widths, ends):
            kernel = self._kernel_now(width)
            for s in range(start, end, _BLOCK):
                self._block(_slice(rows, s, min(s + _BLOCK, end)), y[s:min(s + _BLOCK, end)],
                            kernel)
        self._reset_calls()  # the arrays may have been replaced

    def _support(self, slots: np.ndarray) -> Rows:
        """The support vectors of ``slots`` as CSR rows."""
        nnz = self._sv_nnz[slots]
        held = np.arange(self._sv.shape[1])[None, :] < nnz[:, None]
        indptr = np.zeros(slots.shape[0] + 1, dtype=np.int64)
        np.cumsum(nnz, out=indptr[1:])
        return Rows(self._sv[slots][held], self._sv_indices[slots][held], indptr)

    def _block(self, rows: Rows, y: np.ndarray, kernel: _kernels.Kernel) -> None:
        """One routine call over ``rows``, as `BudgetKernelPerceptron` runs one block of an
        epoch; then the slots that took a row get its entries."""
        m, n0, budget = rows.n_rows, int(self._counts[0]), _backend.budget
        self._reserve(min(self.budget, n0 + m))
        cap = self._alpha.shape[1]
        rand = None
        if self.strategy == "random":  # a draw for every example, as the estimator draws
            draws = np.asarray(self._rng.integers(0, self.budget, size=m, dtype=np.int64))
            rand = draws if cap == self.budget else np.zeros(m, dtype=np.int64)
        old = np.zeros(0, dtype=np.int64)
        if self.strategy == "forgetron":  # the slots that a removal may reach, oldest first
            old = np.argsort(self._stamp[:n0], kind="stable")[:min(m, n0)]
        block, sv = _dense_pair(rows, self._support(np.arange(n0)))
        query = np.vstack([block, sv[old]]) if old.size else block
        with np.errstate(over="ignore", invalid="ignore"):
            K = np.ascontiguousarray(kernel(query, np.vstack([sv, block])),
                                     dtype=np.float64)
        slots = np.full((4, cap), -1, dtype=np.int64)
        slots[0, :n0] = np.arange(n0)
        slots[1, old] = m + np.arange(old.shape[0])
        slots[2, :n0] = self._stamp[:n0]
        visit, where = np.arange(m, dtype=np.int64), np.full(m, -1, dtype=np.int64)
        labels = np.ascontiguousarray(y, dtype=np.int64)
        args = (K, visit, labels, self._alpha, self._b, slots, where, self._counts)
        avg = (self._u, self._beta, self._count) if self.average else ()
        fi = bool(self.fit_intercept)
        if self.strategy.startswith("projectron"):
            budget.projectron_epoch(*args, self._kinv, float(self.eta),
                                    self.strategy == "projectron++", fi, *avg)
        else:
            shrink = self._q if self.strategy == "forgetron" else None
            budget.budget_epoch(*args, fi, _POLICY[self.strategy], rand, shrink, *avg)
        n = int(self._counts[0])
        for s in np.flatnonzero(slots[0, :n] >= n0).tolist():  # its entries, then 0s
            r = int(slots[0, s]) - n0
            a, e = int(rows.indptr[r]), int(rows.indptr[r + 1])
            self._sv[s], self._sv_indices[s], self._sv_nnz[s] = 0.0, 0, e - a
            self._sv[s, :e - a], self._sv_indices[s, :e - a] = rows.data[a:e], rows.indices[a:e]
        self._stamp[:n] = slots[2, :n]

    @fill(DOCS, x_learn=_X_LEARN, y=DOCS["y_bool"],
          raises_learn=DOCS["raises_learn_score_binary"], w="")
    def learn_one(self, x: dict[Hashable, Any], y: Any) -> None:
        """Learn one example: on a mistake, a support vector (or a projection) by the
        strategy.

        {learn_one}
        """
        label = 1 if y is True else 0 if y is False else int(binary_label(y))
        status = (self._calls.get(_twin()) or self._calls_now()).learn(x, label)
        if status < 0:
            self._learn_grown(x, label, status)

    def _learn_grown(self, x: dict[Hashable, Any], label: int, status: int) -> None:
        """learn_one once x's new names have columns, a slot is free and its row has room for
        x's entries (`_all_or_nothing`)."""
        dicts = _backend.dicts
        with self._learning(False), self._all_or_nothing() as undo:
            self._keep(undo, None)
            while status < 0:
                index = self._columns.index
                if status == dicts.NEW_NAMES:  # (the calls read the index as it grows)
                    self._add_names(dicts.dict_row(x, index, self._width)[2])
                    self._grow()
                else:  # NO_ROOM: the slots double, up to the budget, or a row widens
                    self._reserve(min(self.budget, int(self._counts[0]) + 1))
                    self._widen(np.array([len(dicts.dict_row(x, index, self._width)[0])]))
                    self._reset_calls()
                status = self._calls_now().learn(x, label)

    @fill(DOCS, y=DOCS["y_many_bool"], raises_learn_many=DOCS["raises_learn_many_binary"],
          w_many="")
    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        """Learn a batch, row by row in order, in blocks of 256 rows per compiled call.

        {learn_many}
        """
        check_rows(X, y)
        labels = (signs(y) > 0).astype(np.int64)
        widths = [(0, self._width)]  # from which row on the room of the index is what

        def grown(t: int) -> None:
            self._grow()
            if self._width != widths[-1][1]:
                widths.append((t, self._width))

        with self._learning(True), self._all_or_nothing() as undo:
            rows = self._columns.frame(X, learn=True, grown=grown)
            self._keep(undo, None)
            self._learn(rows, labels, widths)

    # ------------------------------------------------------------------ prediction
    def _decisions(self, X: pd.DataFrame) -> np.ndarray:
        """The rows' scores: one compiled call, from the names of X to the scores, which sees
        one state of the model."""
        values, names, _ = Columns.values(X)
        return self._calls_now().scores(values, names)[:, 0]

    @property
    def n_support(self) -> int:
        """The number of support vectors held (at most ``budget``)."""
        return int(self._counts[0])
