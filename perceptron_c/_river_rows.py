"""What the River adapters share: feature names to columns, rows as CSR, weights that grow.

A stream names its features (dict keys, frame columns) and may add new ones at any time. Each
name gets the next column the first time a model *learns* from it, and keeps it for good; the
weight arrays grow (by doubling) to hold it, the new weights zero. A name seen only by a
prediction gets no column: its weight is zero, so it adds nothing to a score.

A row reaches a routine as CSR with its entries in column order, whatever order the dict's
keys or the frame's columns came in, so that the arithmetic (the routines' 4-lane sums by
position in the row) is the same for ``learn_one``, ``learn_many`` and any order of the keys.
NaN marks a missing value, as pandas marks a key absent from some dicts of a frame: the entry is
left out. Infinity is an error.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _backend

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["START_COLUMNS", "Columns", "Linear", "Rows", "grow_columns", "grow_rows", "visit",
           "signs"]

START_COLUMNS = 8  # never 0: the routines take the address of the first weight

class Rows:
    """CSR rows in column order: ``data`` (float64), ``indices`` (int32), ``indptr`` (int64)."""

    __slots__ = ("data", "indices", "indptr")

    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray) -> None:
        self.data, self.indices, self.indptr = data, indices, indptr

    @property
    def n_rows(self) -> int:
        """The number of rows."""
        return int(self.indptr.shape[0] - 1)


def _finite_values(values: Iterable[Any], n: int, what: str) -> np.ndarray:
    try:
        data = np.fromiter(values, dtype=np.float64, count=n)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what} must map feature names to real numbers ({e})") from None
    if np.isinf(data).any():
        raise ValueError(f"{what} holds an infinite value; only finite numbers and NaN "
                         "(a missing value) are accepted")
    return data


class Columns:
    """Feature name -> column, in order of first learning; builds the rows of dicts and
    frames. A plain dict inside: pickles, clones and compares as River expects."""

    __slots__ = ("index",)

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self.index)

    def __getstate__(self) -> dict[Hashable, int]:
        return self.index

    def __setstate__(self, state: dict[Hashable, int]) -> None:
        self.index = state

    def _add(self, names: Iterable[Hashable]) -> None:
        index = self.index
        for name in names:
            if name not in index:
                index[name] = len(index)

    def row(self, x: Mapping[Hashable, Any], learn: bool) -> Rows:
        """One dict as a one-row CSR; ``learn`` gives its new names columns, else they are
        left out."""
        if not isinstance(x, Mapping):
            raise TypeError(f"x must be a dict of feature name -> number, got "
                            f"{type(x).__name__}")
        index = self.index
        try:
            cols = [index[k] for k in x]
            values: Iterable[Any] = x.values()
        except KeyError:
            if learn:
                self._add(x)
                cols = [index[k] for k in x]
                values = x.values()
            else:
                known = [(index[k], v) for k, v in x.items() if k in index]
                cols = [c for c, _ in known]
                values = [v for _, v in known]
        n = len(cols)
        data = _finite_values(values, n, "x")
        indices = np.array(cols, dtype=np.int32)
        if n > 1:
            by_column = np.argsort(indices, kind="stable")
            indices, data = indices[by_column], data[by_column]
        present = data == data  # NaN: a missing value, left out
        if not present.all():
            indices, data = indices[present], data[present]
            n = int(indices.shape[0])
        return Rows(data, indices, np.array([0, n], dtype=np.int64))

    def frame(self, X: Any, learn: bool) -> Rows:
        """A pandas DataFrame as CSR rows; ``learn`` gives its new columns' names columns."""
        names = list(getattr(X, "columns", ()))
        if not hasattr(X, "to_numpy") or not hasattr(X, "columns"):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if len(set(names)) != len(names):
            raise ValueError("X must not repeat a column name")
        if learn:
            self._add(names)
        index = self.index
        kept = [(index[c], j) for j, c in enumerate(names) if c in index]
        kept.sort()
        n_rows = len(X)
        try:
            values = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as e:
            raise TypeError(f"X must hold real numbers ({e})") from None
        values = values.reshape(n_rows, len(names))[:, [j for _, j in kept]]
        present = ~np.isnan(values)
        data = values[present]
        if np.isinf(data).any():
            raise ValueError("X holds an infinite value; only finite numbers and NaN (a "
                             "missing value) are accepted")
        cols = np.array([c for c, _ in kept], dtype=np.int32)
        indices = np.ascontiguousarray(np.broadcast_to(cols, values.shape)[present])
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(present.sum(axis=1), out=indptr[1:])
        return Rows(data, indices, indptr)


def grow_columns(a: np.ndarray, n_features: int) -> np.ndarray:
    """``a`` (rows, capacity) with room for ``n_features`` columns (capacity doubled), new
    entries zero; ``a`` itself when it has the room."""
    cap = a.shape[1]
    if n_features <= cap:
        return a
    grown = np.zeros((a.shape[0], max(n_features, 2 * cap, 8)), dtype=a.dtype)
    grown[:, :cap] = a
    return grown


def grow_rows(a: np.ndarray, n_rows: int) -> np.ndarray:
    """``a`` with ``n_rows`` rows (along axis 0), the new ones zero."""
    if a.shape[0] >= n_rows:
        return a
    extra = np.zeros((n_rows - a.shape[0], *a.shape[1:]), dtype=a.dtype)
    return np.concatenate([a, extra])


def visit(start: int, stop: int) -> np.ndarray:
    """The visiting order of rows start, ..., stop - 1."""
    return np.arange(start, stop, dtype=np.int64)


def signs(y: Any) -> np.ndarray:
    """River's binary targets as +1/-1: a truthy label is the positive class."""
    return np.fromiter((1.0 if v else -1.0 for v in y), dtype=np.float64, count=len(y))


class Linear:
    """Weights as rows of a (rows, capacity) array over the columns of ``_columns``; the
    subclasses name their arrays in ``_WIDE`` and run the routines."""

    _WIDE: tuple[str, ...] = ()
    _columns: Columns

    def _grow(self) -> None:
        for name in self._WIDE:
            setattr(self, name, grow_columns(getattr(self, name), len(self._columns)))

    def _learn_row(self, x: dict[Hashable, Any]) -> Rows:
        rows = self._columns.row(x, learn=True)
        self._grow()
        return rows

    def _learn_frame(self, X: pd.DataFrame) -> Rows:
        rows = self._columns.frame(X, learn=True)
        self._grow()
        return rows

    def _model(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _scores(self, rows: Rows) -> np.ndarray:
        """(n_rows, n_rows_of_W) scores W . x + b of the model's prediction weights."""
        W, b = self._model()
        out = np.empty((rows.n_rows, W.shape[0]))
        _backend.linear.decision_csr(rows.data, rows.indices, rows.indptr, W, b, out)
        return out

    def _named(self, w: np.ndarray) -> dict[Hashable, float]:
        return {name: float(w[j]) for name, j in self._columns.index.items()}
