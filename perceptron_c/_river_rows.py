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

`Linear` is the linear adapters' base: their weights, and the rows ``learn_one`` keeps waiting
for one compiled call. `Binary` holds the binary classifiers' predictions, `NoProbability` the
perceptrons' ``predict_proba_one``, and `DOCS` the numpydoc blocks their methods share.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _backend
from ._docs import fill

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DOCS", "START_COLUMNS", "Binary", "Columns", "Linear", "NoProbability", "Predictions",
           "Rows", "Schema", "check_rows", "grow_columns", "grow_rows", "signs", "visit"]

START_COLUMNS = 8  # never 0: the routines take the address of the first weight
_PENDING_VALUES = 1 << 14  # values learn_one keeps waiting for one call (<= 0.5 MB)
_FIRST_ROW = np.zeros(1, dtype=np.int64)  # the order of a one-row call (read only)
_FIRST_ROW.flags.writeable = False

# The numpydoc blocks the adapters' methods share, each written once (``_docs.fill`` places
# them); where the adapters differ for a reason (what overflows, labels or targets) each
# wording has its own block.
DOCS = {
    "x_learn": """
        x : dict
            Feature name -> number; a new name gets a weight (zero) from now on, NaN is a
            missing value.
        """,
    "y_bool": """
        y : bool
            The label; a truthy value is the positive class.
        """,
    "raises_x": """
        Raises
        ------
        TypeError
            If a value of ``x`` is not a real number.
        """,
    "raises_x_learn": """
        {raises_x}
        ValueError
            If a value of ``x`` is infinite.
        """,
    # the perceptrons' routines check the score, the SGD routine the weights
    "raises_learn_score": """
        {raises_x_learn}
        FloatingPointError
            If a score overflows float64.
        """,
    "raises_learn_weight": """
        {raises_x_learn}
        FloatingPointError
            If a weight overflows float64.
        """,
    "X_learn": """
        X : pandas.DataFrame
            One row per example, one column per feature (NaN: a missing value).
        """,
    "y_many_bool": """
        y : pandas.Series
            The labels; a truthy value is the positive class.
        """,
    "raises_frame": """
        Raises
        ------
        TypeError
            If ``X`` is not a DataFrame of real numbers.
        """,
    "raises_frame_learn": """
        {raises_frame}
        ValueError
            If ``X`` holds an infinite value or repeats a column name, or if ``y`` has not
        """,
    "raises_learn_many": """
        {raises_frame_learn}
            one label per row.
        """,
    "raises_learn_many_targets": """
        {raises_frame_learn}
            one target per row.
        """,
    "x_predict": """
        x : dict
            Feature name -> number; names never learned are ignored.
        **kwargs
            Ignored: River's signature.
        """,
    "params_x_predict": """
        Parameters
        ----------
        {x_predict}
        """,
    "params_X_predict": """
        Parameters
        ----------
        X : pandas.DataFrame
            One row per example.
        """,
    # a learn_one's or learn_many's sections but what the method names: its y (and, for
    # learn_one, what overflows; a regressor's learn_many names raises_learn_many_targets)
    "learn_one": """
        Parameters
        ----------
        {x_learn}
        {y}

        {raises_learn}
        """,
    "learn_many": """
        Parameters
        ----------
        {X_learn}
        {y}

        {raises_learn_many}
        """,
}


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


class Schema:
    """A dict's keys, all with columns: their columns sorted (int32), the permutation that
    sorts them (None when they are in order), how many such rows may wait."""

    __slots__ = ("keys", "by_column", "columns", "indptr", "rows", "_get")

    def __init__(self, keys: tuple[Hashable, ...], by_column: np.ndarray | None,
                 columns: np.ndarray) -> None:
        self.keys, self.by_column, self.columns = keys, by_column, columns
        self.indptr = np.array([0, len(keys)], dtype=np.int64)
        self.rows = max(1, min(256, _PENDING_VALUES // max(len(keys), 1)))
        # one C-level lookup per key; itemgetter of one key returns the value, not a tuple
        self._get: Callable[[Any], tuple[Any, ...]] = \
            operator.itemgetter(*keys) if len(keys) > 1 else lambda d: tuple(d[k] for k in keys)

    def values(self, x: Any) -> tuple[Any, ...] | None:
        """``x``'s values in the schema's key order, or None unless ``x`` has exactly the
        schema's keys (in any order)."""
        if len(x) != len(self.keys):
            return None
        try:
            return self._get(x)
        except (KeyError, TypeError, IndexError):
            return None


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

    def schema(self, x: Mapping[Hashable, Any]) -> Schema | None:
        """The schema of ``x``'s keys; None unless each has a column."""
        keys = tuple(x)
        cols = [self.index.get(k, -1) for k in keys]
        if -1 in cols:
            return None
        columns = np.array(cols, dtype=np.int32)
        by_column = np.argsort(columns, kind="stable")
        if (by_column == np.arange(len(cols))).all():
            return Schema(keys, None, columns)
        return Schema(keys, by_column, columns[by_column])

    def frame(self, X: Any, learn: bool) -> Rows:
        """A pandas DataFrame as CSR rows; ``learn`` numbers its new columns' names as
        ``row`` would, row after row."""
        if not hasattr(X, "to_numpy") or not hasattr(X, "columns"):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        names = X.columns.tolist()
        if len(set(names)) != len(names):
            raise ValueError("X must not repeat a column name")
        n_rows = len(X)
        try:
            values = X.to_numpy(dtype=np.float64, na_value=np.nan).reshape(n_rows, len(names))
        except (TypeError, ValueError) as e:
            raise TypeError(f"X must hold real numbers ({e})") from None
        values = np.ascontiguousarray(values)  # a frame's block is often column-major
        dense = bool(np.isfinite(values).all())
        missing = None if dense else np.isnan(values)
        if missing is not None and np.isinf(values[~missing]).any():
            raise ValueError("X holds an infinite value; only finite numbers and NaN (a "
                             "missing value) are accepted")
        index = self.index
        if learn:
            new = [j for j, c in enumerate(names) if c not in index]
            first = [0] * len(new)
            if new and missing is not None:
                new = [j for j in new if not missing[:, j].all()]
                first = (~missing[:, new]).argmax(axis=0).tolist() if new else []
            for t in sorted(set(first)):  # the row that introduces them, as learn_one would
                self._add([names[j] for j, f in zip(new, first) if f == t])
        kept = sorted((index[c], j) for j, c in enumerate(names) if c in index)
        take = [j for _, j in kept]
        if take != list(range(len(names))):
            values = values.take(take, axis=1)
            missing = None if missing is None else missing[:, take]
        cols = np.array([c for c, _ in kept], dtype=np.int32)
        if missing is None:  # every entry, row after row
            data = values.reshape(-1)
            indices = np.tile(cols, n_rows)
            indptr = np.arange(0, n_rows * len(kept) + 1, max(len(kept), 1), dtype=np.int64) \
                if kept else np.zeros(n_rows + 1, dtype=np.int64)
        else:
            present = ~missing
            data = values[present]
            indices = np.ascontiguousarray(np.broadcast_to(cols, values.shape)[present])
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            np.cumsum(present.sum(axis=1), out=indptr[1:])
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


def check_rows(X: Any, y: Any, what: str = "label") -> None:
    """``learn_many``'s check: one ``what`` per row of ``X``."""
    if len(y) != len(X):
        raise ValueError(f"y must have one {what} per row of X ({len(X)}), got {len(y)}")


def signs(y: Any) -> np.ndarray:
    """River's binary targets as +1/-1: a truthy label is the positive class."""
    return np.where(np.asarray(y).astype(bool), 1.0, -1.0)


class Linear:
    """Weights as rows of a (rows, capacity) array over the columns of ``_columns``; the
    subclasses name their arrays in ``_WIDE``, set them up, and run the routines (``_run``).

    ``learn_one`` on a dict with the keys (in any order) of the previous dict learned
    (every key with a column, every value a finite number) only copies the values: such rows
    wait, up to ``_PENDING_VALUES`` values, and go to the routine in one call, before anything
    reads the model (a prediction, ``weights``, ``learn_many``, pickling). The routine visits
    them in order, as it would one by one: the same model, at a fraction of the calls.
    """

    _WIDE: tuple[str, ...] = ()
    _Y_DTYPE: Any = np.float64
    _TRANSIENT = ("_schema", "_pending_x", "_pending_y", "_cache")
    _columns: Columns

    def _init_pending(self) -> None:
        self._schema: Schema | None = None
        self._pending_x: list[Any] = []
        self._pending_y: list[Any] = []
        self._cache: tuple[np.ndarray, np.ndarray] | None = None

    def __getstate__(self) -> dict[str, Any]:
        self._flush()
        state = self.__dict__.copy()
        for name in self._TRANSIENT:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_pending()

    def _run(self, rows: Rows, y: np.ndarray, order: np.ndarray) -> None:
        raise NotImplementedError

    def _model(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _grow(self) -> None:
        for name in self._WIDE:
            setattr(self, name, grow_columns(getattr(self, name), len(self._columns)))

    def _learn_rows(self, rows: Rows, y: np.ndarray, order: np.ndarray) -> None:
        self._cache = None
        self._run(rows, y, order)

    def _under_schema(self, x: Mapping[Hashable, Any]) -> tuple[Schema, tuple[Any, ...]] | None:
        """The schema of the last dict learned and ``x``'s values in its order, when ``x`` has
        its keys and every value is a finite number; else None (the general path then says
        what is wrong)."""
        schema = self._schema
        values = None if schema is None else schema.values(x)
        if values is None:
            return None
        assert schema is not None
        try:
            total = sum(values)
        except TypeError:
            return None
        if isinstance(total, (float, int)) and total - total == 0:  # all finite
            return schema, values
        return None

    def _learn_x(self, x: Mapping[Hashable, Any], y: Any) -> None:
        """``learn_one``'s part after the label: ``y`` is the routine's label value."""
        fast = self._under_schema(x)
        if fast is not None:
            schema, values = fast
            self._pending_x.extend(values)
            self._pending_y.append(y)
            if len(self._pending_y) >= schema.rows:
                self._flush()
            return
        self._flush()
        rows = self._columns.row(x, learn=True)
        self._grow()
        self._learn_rows(rows, np.array([y], dtype=self._Y_DTYPE), visit(0, 1))
        self._schema = self._columns.schema(x)

    def _learn_frame(self, X: pd.DataFrame) -> Rows:
        self._flush()
        rows = self._columns.frame(X, learn=True)
        self._grow()
        return rows

    def _flush(self) -> None:
        """Learn the waiting rows, in one call."""
        ys = self._pending_y
        if not ys:
            return
        assert self._schema is not None  # rows wait only under a schema
        schema, values = self._schema, self._pending_x
        self._pending_x, self._pending_y = [], []
        n, m = len(ys), len(schema.keys)
        if n == 1:  # predict_one after each learn_one: the schema's row, fewest calls
            data = np.fromiter(values, dtype=np.float64, count=m)
            if schema.by_column is not None:
                data = data[schema.by_column]
            y = np.array(ys, dtype=self._Y_DTYPE)
            self._learn_rows(Rows(data, schema.columns, schema.indptr), y, _FIRST_ROW)
            return
        X = np.fromiter(values, dtype=np.float64, count=n * m).reshape(n, m)
        if schema.by_column is not None:
            X = X[:, schema.by_column]
        indptr = np.arange(0, n * m + 1, m, dtype=np.int64) if m else \
            np.zeros(n + 1, dtype=np.int64)
        rows = Rows(X.reshape(-1), np.tile(schema.columns, n), indptr)
        self._learn_rows(rows, np.array(ys, dtype=self._Y_DTYPE), visit(0, n))

    def _prediction(self) -> tuple[np.ndarray, np.ndarray]:
        """(W, b) of the model that predicts, every waiting row learned."""
        self._flush()
        if self._cache is None:
            self._cache = self._model()
        return self._cache

    def _row(self, x: Mapping[Hashable, Any]) -> Rows:
        """A dict to predict on, as a one-row CSR (names never learned left out)."""
        fast = self._under_schema(x)
        if fast is not None:
            schema, values = fast
            data = np.fromiter(values, dtype=np.float64, count=len(schema.keys))
            if schema.by_column is not None:
                data = data[schema.by_column]
            return Rows(data, schema.columns, schema.indptr)
        return self._columns.row(x, learn=False)

    def _scores(self, rows: Rows) -> np.ndarray:
        """(n_rows, n_rows_of_W) scores W . x + b of the model that predicts."""
        W, b = self._prediction()
        out = np.empty((rows.n_rows, W.shape[0]))
        _backend.linear.decision_csr(rows.data, rows.indices, rows.indptr, W, b, out)
        return out

    def _named(self, w: np.ndarray) -> dict[Hashable, float]:
        return {name: float(w[j]) for name, j in self._columns.index.items()}

    def _decision(self, x: Mapping[Hashable, Any]) -> float:
        return float(self._scores(self._row(x))[0, 0])

    def _decisions(self, X: pd.DataFrame) -> np.ndarray:
        return self._scores(self._columns.frame(X, learn=False))[:, 0]


class Predictions:
    """``predict_many`` of every adapter: ``predict_one``'s answers for a frame's rows, which
    the hook ``_predict_rows`` gives."""

    # declared, not assigned: the model class's method answers
    _predict_rows: Callable[[pd.DataFrame], Any]

    @fill(DOCS)
    def predict_many(self, X: pd.DataFrame) -> pd.Series:
        """``predict_one`` on each row, the rows scored together.

        {params_X_predict}

        Returns
        -------
        pandas.Series
            ``predict_one``'s answer for each row, indexed as ``X``.

        {raises_frame}
        """
        import pandas as pd  # only where River's adapters run: pandas is there

        return pd.Series(self._predict_rows(X), index=X.index)


class Binary(Predictions):
    """The binary classifiers' predictions: True when the score is positive. The hooks
    ``_decision`` (one dict) and ``_decisions`` (a frame's rows) give the scores."""

    # declared, not assigned: the model class's methods answer
    _decision: Callable[[Mapping[Hashable, Any]], float]
    _decisions: Callable[[pd.DataFrame], np.ndarray]

    @fill(DOCS)
    def predict_one(self, x: dict[Hashable, Any], **kwargs: Any) -> bool:
        """The predicted label: True when the score is positive.

        {params_x_predict}

        Returns
        -------
        bool
            The predicted label.

        {raises_x}
        """
        return self._decision(x) > 0.0

    def _predict_rows(self, X: pd.DataFrame) -> np.ndarray:
        return self._decisions(X) > 0.0


class BinaryLinear(Binary, Linear):
    """The linear binary classifiers: +1/-1 labels, a batch learned in one call."""

    @fill(DOCS, y=DOCS["y_many_bool"])
    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        """Learn a batch, row by row in order, in one compiled call: the same model as
        ``learn_one`` on each row.

        {learn_many}
        """
        check_rows(X, y)
        rows = self._learn_frame(X)
        self._learn_rows(rows, signs(y), visit(0, rows.n_rows))


class NoProbability:
    """``predict_proba_one`` of the perceptrons, which define no probability."""

    def predict_proba_one(self, x: dict[Hashable, Any], **kwargs: Any) -> dict[Any, float]:
        """Not defined for the perceptron: raises NotImplementedError, as River expects of a
        classifier without probabilities.

        Parameters
        ----------
        x : dict
            Feature name -> number.
        **kwargs
            Ignored: River's signature.

        Returns
        -------
        dict
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("the perceptron defines no probability: use predict_one")
