"""What the River adapters share: feature names to columns, one call per example, rows as CSR,
weights that grow.

A stream names its features (dict keys, frame columns) and may add new ones at any time. Each
name gets the next column the first time a model *learns* a number for it (see `Columns`), and
keeps it for good; the weight arrays grow (by doubling) to hold it, the new weights zero. A
name seen only by a prediction gets no column: its weight is zero, so it adds nothing to a
score.

``learn_one`` and ``predict_one`` are one compiled call each: an object of
``_backend.dicts`` (`PerCall`), built over the model's arrays and its index of names, reads
the dict, checks its values, and scores or learns the example in place. A dict that brings a
name without a column learns nothing at first; the model then numbers its new names, grows its
arrays and calls again. A frame reaches the routines as CSR rows (`Columns.frame`). Either way
a row's entries come in column order, whatever the order of the dict's keys or the frame's
columns, so that the arithmetic (the routines' 4-lane sums by position in the row) is the same
for ``learn_one``, ``learn_many`` and any order of the keys. NaN marks a missing value, as
pandas marks a key absent from some dicts of a frame: the entry is left out. Infinity is an
error.

`Linear` is the linear adapters' base: their weights. `Binary` holds the binary classifiers'
predictions, `Sigmoid` their probabilities (River's rule), and `DOCS` the numpydoc blocks
their methods share; River's rules for ``w`` and probabilities are `river._rules`'.
"""
from __future__ import annotations

import contextlib
import numbers
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _backend
from .._backend import active as _twin
from .._utils._docs import fill
from ..exceptions import ConcurrentUseError
from ._rules import RULE_DOCS, sigmoid, weighted

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DOCS", "START_COLUMNS", "Binary", "Columns", "Linear", "PerCall", "Predictions",
           "Rows", "Sigmoid", "Undo", "binary_label", "check_rows", "grow_columns", "grow_rows",
           "sign", "signs", "visit"]

START_COLUMNS = 8  # never 0: the routines take the address of the first weight
BATCH = 2  # _busy[0] while a learn_many runs (dicts.BATCH): reading calls stop too

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
            The label: True (or 1) is the positive class, False (or 0) the negative, as
            River's binary classifiers take it; anything else raises.
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
    # the binary models' learn_one: the label is checked too
    "raises_x_label": """
        Raises
        ------
        TypeError
            If a value of ``x`` is not a real number, or ``y`` is neither a bool nor a number.
        ValueError
            If a value of ``x`` is infinite, or ``y`` is a number other than 0 and 1.
        """,
    # the perceptrons' routines check the score, the SGD routine the weights
    "raises_learn_score": """
        {raises_x_learn}
        FloatingPointError
            If a score overflows float64.
        """,
    "raises_learn_score_binary": """
        {raises_x_label}
        FloatingPointError
            If a score overflows float64.
        """,
    "raises_learn_weight": """
        {raises_x_learn}
        FloatingPointError
            If a weight overflows float64.
        """,
    "raises_learn_weight_binary": """
        {raises_x_label}
        FloatingPointError
            If a weight overflows float64.
        """,
    "X_learn": """
        X : pandas.DataFrame
            One row per example, one column per feature (NaN: a missing value).
        """,
    "y_many_bool": """
        y : pandas.Series
            The labels: True (or 1) for the positive class, False (or 0) for the negative.
        """,
    "raises_frame": """
        Raises
        ------
        TypeError
            If ``X`` is not a DataFrame of real numbers (a column of str, bytes, dates,
            complex numbers, ...; the message names it).
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
    "raises_learn_many_binary": """
        Raises
        ------
        TypeError
            If ``X`` is not a DataFrame of real numbers (a column of str, bytes, dates,
            complex numbers, ...; the message names it), or a label is neither a bool nor a
            number.
        ValueError
            If ``X`` holds an infinite value or repeats a column name, if ``y`` has not one
            label per row, or if a label is a number other than 0 and 1.
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
        {w}

        {raises_learn}
        """,
    "learn_many": """
        Parameters
        ----------
        {X_learn}
        {y}
        {w_many}

        {raises_learn_many}
        """,
    "proba_one": """
        {params_x_predict}

        Returns
        -------
        dict
            Label -> probability, summing to 1.

        {raises_x}
        """,
    "proba_many": """
        {params_X_predict}

        Returns
        -------
        pandas.DataFrame
            One column per label, indexed as ``X``.

        {raises_frame}
        """,
    **RULE_DOCS,
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


def _sorted(names: list[Hashable]) -> list[Hashable]:
    """Names in a canonical order: sorted, or by (type name, repr) where they do not compare."""
    try:
        return sorted(names)  # type: ignore[type-var]
    except TypeError:
        return sorted(names, key=lambda k: (type(k).__name__, repr(k)))


def _check_column(X: Any, name: Hashable, dtype: Any) -> None:
    """A column must hold real numbers, as a dict's values must (``learn_one``): of a dtype of
    booleans, integers or floats (numpy's, or pandas' nullable ones, whose NA is a missing
    value as NaN is), categories of those, or objects each of which is a real number (NaN:
    missing). Text, bytes, dates, durations and complex numbers are not numbers, whatever
    pandas could convert them to."""
    kind = getattr(dtype, "kind", "O")
    categories = getattr(dtype, "categories", None)
    if categories is not None:  # pandas' CategoricalDtype: what its categories are
        kind = getattr(categories.dtype, "kind", "O")
        if kind == "O":
            for v in categories.tolist():
                _check_object(name, v)
            return
    if kind in "biuf":
        return
    if kind != "O" or not isinstance(dtype, np.dtype):
        raise TypeError(f"X must hold real numbers: column {name!r} is of dtype {dtype}")
    for v in X[name].tolist():
        _check_object(name, v)


def _check_object(name: Hashable, v: Any) -> None:
    if not isinstance(v, (float, int, numbers.Real, np.bool_)):
        raise TypeError(f"X must hold real numbers: column {name!r} holds a "
                        f"{type(v).__name__}")


class Columns:
    """Feature name -> column; builds the rows of frames. A name gets the next
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

    def add(self, names: list[Hashable]) -> None:
        """Columns for ``names`` (none of which has one), numbered in sorted order."""
        index = self.index
        for name in _sorted(names):
            index[name] = len(index)

    def truncate(self, n: int) -> None:
        """Forget the names numbered from ``n`` on (the last added)."""
        index = self.index
        while len(index) > n:
            index.popitem()

    @staticmethod
    def values(X: Any) -> tuple[np.ndarray, list[Hashable], np.ndarray | None]:
        """A pandas DataFrame's numbers, checked: (values (n_rows, n_columns) float64,
        C-contiguous, NaN missing; its column names; where values are missing, None if
        nowhere)."""
        if not hasattr(X, "to_numpy") or not hasattr(X, "columns"):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        names = X.columns.tolist()
        if len(set(names)) != len(names):
            raise ValueError("X must not repeat a column name")
        for name, dtype in X.dtypes.items():
            _check_column(X, name, dtype)
        try:
            values = X.to_numpy(dtype=np.float64, na_value=np.nan).reshape(len(X), len(names))
        except OverflowError:
            raise ValueError("X holds a number beyond float64's range") from None
        except (TypeError, ValueError) as e:
            raise TypeError(f"X must hold real numbers ({e})") from None
        values = np.ascontiguousarray(values)  # a frame's block is often column-major
        missing = None if np.isfinite(values).all() else np.isnan(values)
        if missing is not None and np.isinf(values[~missing]).any():
            raise ValueError("X holds an infinite value; only finite numbers and NaN (a "
                             "missing value) are accepted")
        return values, names, missing

    def frame(self, X: Any, learn: bool, grown: Callable[[int], None] | None = None) -> Rows:
        """A pandas DataFrame as CSR rows; ``learn`` numbers its new columns' names as
        ``learn_one`` would, row after row, calling ``grown(t)`` after row t brings names (so
        that the model's room for them grows as ``learn_one`` makes it)."""
        values, names, missing = self.values(X)
        n_rows, index = len(X), self.index
        if learn:
            new = [j for j, c in enumerate(names) if c not in index]
            first = [0] * len(new)
            if new and missing is not None:
                new = [j for j in new if not missing[:, j].all()]
                first = (~missing[:, new]).argmax(axis=0).tolist() if new else []
            for t in sorted(set(first)):  # the row that introduces them, as learn_one would
                self.add([names[j] for j, f in zip(new, first) if f == t])
                if grown is not None:
                    grown(t)
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


def binary_label(y: Any) -> bool:
    """A binary model's label as River's binary classifiers take it: True or False, or a
    number equal to 1 or 0 (River's binary losses compute ``2 y - 1``: a str raises there,
    and -1 or 2 would be a step of -3 or 3). Anything else raises, rather than count as
    whatever its truth value is (``"no"`` was the positive class)."""
    if y is True or y is False:
        return y
    if isinstance(y, (numbers.Real, np.bool_)):
        if y == 1:
            return True
        if y == 0:
            return False
        raise ValueError(f"y must be True or False (or 1 or 0) for a binary model, got {y!r}; "
                         "MulticlassPerceptron learns labels of any kind")
    raise TypeError(f"y must be a bool (True or False, or 1 or 0) for a binary model, got a "
                    f"{type(y).__name__} ({y!r}); MulticlassPerceptron learns labels of any "
                    "kind")


def sign(y: Any) -> float:
    """+1.0 or -1.0 for a binary label (`binary_label`)."""
    return 1.0 if binary_label(y) else -1.0


def signs(y: Any) -> np.ndarray:
    """A frame's binary labels (`binary_label`, each) as +1/-1."""
    a = np.asarray(y)
    if a.dtype.kind in "iuf":
        positive = a == 1
        bad = ~(positive | (a == 0))
        if bad.any():
            binary_label(a[bad][0])  # raises, naming the first
    elif a.dtype.kind == "b":
        positive = a
    elif a.dtype.kind == "O":  # each checked
        positive = np.array([binary_label(v) for v in a.reshape(-1).tolist()], dtype=bool)
    else:  # str, bytes, dates, complex numbers
        raise TypeError(f"y must hold bools (True or False, or 1 or 0) for a binary model, "
                        f"got dtype {a.dtype}; MulticlassPerceptron learns labels of any kind")
    return np.where(positive, 1.0, -1.0)


class Undo:
    """What a learning call writes in place in a model's arrays, saved before it writes:
    whole arrays, or the columns (last axis) that a call's rows reach. `restore` puts it
    back."""

    __slots__ = ("saved",)

    def __init__(self) -> None:
        self.saved: list[tuple[np.ndarray, np.ndarray | None, np.ndarray]] = []

    def keep(self, a: np.ndarray, columns: np.ndarray | None = None) -> None:
        """Save ``a``, or its entries at ``columns`` of the last axis."""
        self.saved.append((a, columns, a.copy() if columns is None else a[..., columns]))

    def restore(self) -> None:
        """Put every saved entry back, the last saved first."""
        for a, columns, values in reversed(self.saved):
            if columns is None:
                a[...] = values
            else:
                a[..., columns] = values


class PerCall:
    """A River model's one-example calls: ``_calls`` holds the object of ``_backend.dicts``
    built over the model's arrays (`_build_calls`), one per twin in use, so that each
    ``learn_one`` and ``predict_one`` is one compiled call. It is built when the model is
    made, whenever an array is replaced (`_reset_calls`), and when the model is unpickled:
    never during a call of the twin it was built for, and never pickled."""

    _TRANSIENT = ("_calls", "_busy", "_owner")
    _ARRAYS: tuple[str, ...] = ()  # every array of the model's state
    _columns: Columns
    _calls: dict[str, Any]
    _busy: np.ndarray
    _owner: dict[str, int]

    def _build_calls(self) -> Any:
        raise NotImplementedError

    def _reset_calls(self) -> None:
        """New calls over the model's arrays. A reader in another thread may still hold the
        calls replaced: every array is replaced too (copied), so that the arrays it reads stay
        those of one model, never written again, whichever of them the change replaced."""
        if "_busy" not in self.__dict__:  # (made once, before the first calls; transient)
            self._busy, self._owner = np.zeros(3, dtype=np.uint64), {}
        else:
            for name in self._ARRAYS:
                a = getattr(self, name)
                setattr(self, name, a if a is None else a.copy())
        self._calls = {_twin(): self._build_calls()}

    @contextlib.contextmanager
    def _learning(self, batch: bool) -> Iterator[None]:
        """One learning call at a time, and readers told while a batch is learned: the model's
        ``_busy`` flags, which its one-example calls check (``dicts``' _Busy), set while a
        learning call of this thread is under way (nested calls pass through). Another thread's
        learning call meanwhile raises ConcurrentUseError, and so does its reading call during
        a batch. The owner is taken (a dict's setdefault: one step) inside the ``try``, so
        that Ctrl-C anywhere here never leaves the model owned."""
        me, owner, nested = threading.get_ident(), self._owner, True
        try:
            nested = owner.get("thread") == me
            if not nested:
                if owner.setdefault("thread", me) != me:
                    raise ConcurrentUseError(f"{type(self).__name__}: another thread is "
                                             "learning in this model: learn from one thread "
                                             "at a time")
                self._busy[1] = me
                self._busy[0] = BATCH if batch else 1
            yield
        finally:
            if not nested and owner.get("thread") == me:
                self._busy[0] = 0
                del owner["thread"]

    def _calls_now(self) -> Any:
        """The object of the twin in use (built here for the other twin only)."""
        twin = _twin()
        calls = self._calls.get(twin)
        if calls is None:
            calls = self._calls[twin] = self._build_calls()
        return calls

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in self._TRANSIENT:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset_calls()

    @contextlib.contextmanager
    def _all_or_nothing(self) -> Iterator[Undo]:
        """A learning call that raises (Ctrl-C included) leaves the model as it was: its
        attributes, names and classes (the lists and dicts of its state copied), its draws,
        and what the call wrote in place in its arrays (saved in the `Undo` this yields
        before the writing)."""
        before = {k: v.copy() if isinstance(v, (list, dict)) else v
                  for k, v in self.__dict__.items()}
        n_names = len(self._columns)
        rng: Any = self.__dict__.get("_rng")  # the budget model's draws
        draws = None if rng is None else rng.bit_generator.state
        undo = Undo()
        try:
            yield undo
        except BaseException:
            if self._busy[0]:  # readers stop while the arrays are put back
                self._busy[0] = BATCH
            undo.restore()
            self._columns.truncate(n_names)
            self._busy[2] += 1  # (names changed: a reader mid-way reads again)
            if rng is not None:
                rng.bit_generator.state = draws
            # one update, never an empty model, for a reader in another thread
            self.__dict__.update(before)
            for name in [k for k in self.__dict__ if k not in before]:
                del self.__dict__[name]
            self._reset_calls()  # new objects: no schema remembers a name just forgotten
            raise

    def _keep(self, undo: Undo, columns: np.ndarray) -> None:
        """Save in ``undo`` what learning rows of ``columns`` writes in place."""
        raise NotImplementedError

    def _add_names(self, names: list[Hashable]) -> None:
        """Columns for names (`Columns.add`), told to readers in other threads: one that read
        a dict or a frame's names meanwhile reads them again (``dicts``' _Busy)."""
        self._columns.add(names)
        self._busy[2] += 1

    def _check_only(self, x: Mapping[Hashable, Any]) -> None:
        """Read ``x`` as a learning call reads it (its values checked), learning nothing."""
        _backend.dicts.dict_row(x, self._columns.index, max(1, len(self._columns)))

    def _learn_new_names(self, x: Mapping[Hashable, Any], learn: Callable[[Any], int]) -> None:
        """``learn(calls)`` once ``x``'s names without a column have theirs (numbered in sorted
        order) and the arrays have grown; `_all_or_nothing`."""
        with self._learning(False), self._all_or_nothing() as undo:
            index, dict_row = self._columns.index, _backend.dicts.dict_row
            self._add_names(dict_row(x, index, max(1, len(index)))[2])
            self._grow()
            self._keep(undo, dict_row(x, index, max(1, len(index)))[1])
            if learn(self._calls_now()) < 0:
                raise RuntimeError("learn_one: a name still has no column")

    def _grow(self) -> None:
        raise NotImplementedError


class Linear(PerCall):
    """Weights as rows of a (rows, capacity) array over the columns of ``_columns``; the
    subclasses name their arrays in ``_WIDE``, set them up, build their one-example calls and
    run the routines on frames (``_run``)."""

    _WIDE: tuple[str, ...] = ()
    _SMALL: tuple[str, ...] = ()  # the arrays a call writes whole: biases, counters, state
    _W: np.ndarray

    def _run(self, rows: Rows, y: np.ndarray, order: np.ndarray,
             sw: np.ndarray | None) -> None:
        raise NotImplementedError

    def _model(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _grow(self) -> None:
        grown = False
        for name in self._WIDE:
            a = getattr(self, name)
            b = grow_columns(a, len(self._columns))
            grown = grown or b is not a
            setattr(self, name, b)
        if grown:
            self._reset_calls()

    def _keep(self, undo: Undo, columns: np.ndarray) -> None:
        for name in self._WIDE:  # the routines write a weight only at a column of a row
            undo.keep(getattr(self, name), columns)
        for name in self._SMALL:
            undo.keep(getattr(self, name))

    def _learn_rows(self, rows: Rows, y: np.ndarray, order: np.ndarray,
                    sw: np.ndarray | None = None) -> None:
        self._run(rows, y, order, sw)

    def _learn_frame(self, X: pd.DataFrame) -> Rows:
        return self._columns.frame(X, learn=True, grown=lambda t: self._grow())

    def _scores(self, X: pd.DataFrame) -> np.ndarray:
        """(n_rows, n_rows_of_W) scores W . x + b of the model that predicts: one compiled
        call, from the names of X to the scores, which sees one state of the model."""
        values, names, _ = Columns.values(X)
        return self._calls_now().scores(values, names)

    def _named(self, w: np.ndarray) -> dict[Hashable, float]:
        return {name: float(w[j]) for name, j in self._columns.index.items()}

    def _decision(self, x: Mapping[Hashable, Any]) -> float:
        return float(self._calls_now().decision(x))

    def _decisions(self, X: pd.DataFrame) -> np.ndarray:
        return self._scores(X)[:, 0]


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
    """The binary classifiers' predictions: True when the score is positive. The one-example
    calls (`PerCall`) and the hook ``_decisions`` (a frame's rows) give the scores."""

    # declared, not assigned: the model class's (PerCall's) attributes and methods answer
    _calls: dict[str, Any]
    _calls_now: Callable[[], Any]
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
        return (self._calls.get(_twin()) or self._calls_now()).decision(x) > 0.0

    def _predict_rows(self, X: pd.DataFrame) -> np.ndarray:
        return self._decisions(X) > 0.0


class BinaryLinear(Binary, Linear):
    """The linear binary classifiers: +1/-1 labels, a batch learned in one call."""

    @fill(DOCS, y=DOCS["y_many_bool"], raises_learn_many=DOCS["raises_learn_many_binary"])
    def learn_many(self, X: pd.DataFrame, y: pd.Series, w: Any = 1.0) -> None:
        """Learn a batch, row by row in order, in one compiled call: the same model as
        ``learn_one`` on each row.

        {learn_many}
        """
        check_rows(X, y)
        X, y, sw = weighted(X, y, w)
        labels = signs(y)
        with self._learning(True), self._all_or_nothing() as undo:
            rows = self._learn_frame(X)
            self._keep(undo, np.unique(rows.indices))
            self._learn_rows(rows, labels, visit(0, rows.n_rows), sw)


class Sigmoid:
    """The binary classifiers' probabilities, River's rule for its ``Perceptron`` and
    ``PAClassifier``: p = `sigmoid` of the score for True, 1 - p for False. Not a calibrated
    probability: a monotone map of the score, 0.5 on the boundary, so the likelier label is
    ``predict_one``'s (True above 0.5), which River's wrappers need."""

    # declared, not assigned: the model class's (PerCall's) attributes and methods answer
    _calls: dict[str, Any]
    _calls_now: Callable[[], Any]
    _decisions: Callable[[pd.DataFrame], np.ndarray]

    @fill(DOCS)
    def predict_proba_one(self, x: dict[Hashable, Any], **kwargs: Any) -> dict[Any, float]:
        """``{False: 1 - p, True: p}``, p = sigmoid(score), River's rule.

        {proba_one}
        """
        p = sigmoid((self._calls.get(_twin()) or self._calls_now()).decision(x))
        return {False: 1.0 - p, True: p}

    @fill(DOCS)
    def predict_proba_many(self, X: pd.DataFrame) -> pd.DataFrame:
        """``predict_proba_one`` on each row (the same bits), the rows scored in one compiled
        call.

        {proba_many}
        """
        import pandas as pd  # only where River's adapters run: pandas is there

        p = np.array([sigmoid(s) for s in self._decisions(X).tolist()], dtype=np.float64)
        return pd.DataFrame({False: 1.0 - p, True: p}, index=X.index)
