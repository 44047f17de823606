"""What the River adapters share: feature names to columns, rows as CSR, weights that grow.

A stream names its features (dict keys, frame columns) and may add new ones at any time. Each
name gets the next column the first time a model *learns* a number for it (see `Columns`), and
keeps it for good; the weight arrays grow (by doubling) to hold it, the new weights zero. A
name seen only by a prediction gets no column: its weight is zero, so it adds nothing to a
score.

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


def _sorted(names: list[Hashable]) -> list[Hashable]:
    """Names in a canonical order: sorted, or by (type name, repr) where they do not compare."""
    try:
        return sorted(names)  # type: ignore[type-var]
    except TypeError:
        return sorted(names, key=lambda k: (type(k).__name__, repr(k)))


class Columns:
    """Feature name -> column; builds the rows of dicts and frames. A name gets the next
    column at the first example learned that gives it a number (NaN is none); the names that
    one example introduces are numbered in sorted order. So the numbering, and with it the
    arithmetic, depends neither on the order of a dict's keys nor on how the stream is cut
    into ``learn_one`` calls and batches. A plain dict inside: pickles and clones as River
    expects."""

    __slots__ = ("index",)

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self.index)

    def __getstate__(self) -> dict[Hashable, int]:
        return self.index

    def __setstate__(self, state: dict[Hashable, int]) -> None:
        self.index = state

    def _add(self, names: list[Hashable]) -> None:
        index = self.index
        for name in _sorted(names):
            index[name] = len(index)

    def row(self, x: Mapping[Hashable, Any], learn: bool) -> Rows:
        """One dict as a one-row CSR; ``learn`` gives its new names columns, else they are
        left out (their weight is zero)."""
        if not isinstance(x, Mapping):
            raise TypeError(f"x must be a dict of feature name -> number, got "
                            f"{type(x).__name__}")
        index = self.index
        data = _finite_values(x.values(), len(x), "x")
        cols = [index.get(k, -1) for k in x]
        if learn and -1 in cols:
            self._add([k for k, c, v in zip(x, cols, data.tolist()) if c < 0 and v == v])
            cols = [index.get(k, -1) for k in x]
        indices = np.array(cols, dtype=np.int32)
        present = (indices >= 0) & (data == data)  # NaN: a missing value, left out
        if not present.all():
            indices, data = indices[present], data[present]
        if indices.shape[0] > 1:
            by_column = np.argsort(indices, kind="stable")
            indices, data = indices[by_column], data[by_column]
        return Rows(data, indices, np.array([0, indices.shape[0]], dtype=np.int64))

    def frame(self, X: Any, learn: bool) -> Rows:
        """A pandas DataFrame as CSR rows; ``learn`` numbers its new columns' names as
        ``row`` would, row after row."""
        if not hasattr(X, "to_numpy") or not hasattr(X, "columns"):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        names = list(X.columns)
        if len(set(names)) != len(names):
            raise ValueError("X must not repeat a column name")
        n_rows = len(X)
        try:
            values = X.to_numpy(dtype=np.float64, na_value=np.nan).reshape(n_rows, len(names))
        except (TypeError, ValueError) as e:
            raise TypeError(f"X must hold real numbers ({e})") from None
        present = ~np.isnan(values)
        index = self.index
        if learn:
            new = [j for j, c in enumerate(names) if c not in index and present[:, j].any()]
            first = present[:, new].argmax(axis=0).tolist() if new else []
            for t in sorted(set(first)):  # the row that introduces them, as learn_one would
                self._add([names[j] for j, f in zip(new, first) if f == t])
        kept = sorted((index[c], j) for j, c in enumerate(names) if c in index)
        take = [j for _, j in kept]
        values, present = values[:, take], present[:, take]
        if present.all():  # dense: every entry, row after row
            data = values.reshape(-1)
            indices = np.tile(np.array([c for c, _ in kept], dtype=np.int32), n_rows)
            indptr = np.arange(0, n_rows * len(kept) + 1, max(len(kept), 1), dtype=np.int64)
            if not kept:
                indptr = np.zeros(n_rows + 1, dtype=np.int64)
        else:
            data = values[present]
            cols = np.array([c for c, _ in kept], dtype=np.int32)
            indices = np.ascontiguousarray(np.broadcast_to(cols, values.shape)[present])
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            np.cumsum(present.sum(axis=1), out=indptr[1:])
        if np.isinf(data).any():
            raise ValueError("X holds an infinite value; only finite numbers and NaN (a "
                             "missing value) are accepted")
        return Rows(np.ascontiguousarray(data), indices, indptr)


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
