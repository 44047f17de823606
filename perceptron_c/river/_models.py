"""The perceptrons of ``perceptron_c.river``: binary and K-class, averaged or not."""
from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np
import pandas as pd
from river import base

from .. import _backend
from .._backend import active as _twin
from .._utils._docs import fill
from ._rows import (
    DOCS,
    START_COLUMNS,
    BinaryLinear,
    Columns,
    Linear,
    Predictions,
    Rows,
    Sigmoid,
    check_rows,
    grow_rows,
    sign,
    visit,
)
from ._rules import sample_weight, softmax, weighted

__all__ = ["MulticlassPerceptron", "Perceptron"]

# both perceptrons' parameters, the same three with the same meaning
_PARAMS = {"params_perceptron": """
    Parameters
    ----------
    average : bool, default=True
        Predict with the average of the weights held after each example learned.
    fit_intercept : bool, default=True
        Whether the intercept (one bias per weight row) is learned.
    normalize : bool, default=False
        Divide each update by ``||x||`` (the normalized perceptron).
    """}

# the K-class model's y, where the binary models take a bool
_Y_CLASS = """
    y : hashable
        The label; a new one becomes a class, with zero weights.
    """
_Y_CLASSES = """
    y : pandas.Series
        The labels.
    """


class _AveragedState(Linear):
    """The perceptrons' state: W, b and, averaged, the lazy sums U, beta and the counter."""

    _WIDE = ("_W", "_U")
    _SMALL = ("_b", "_beta", "_count")
    _ARRAYS = _WIDE + _SMALL

    def __init__(self, average: bool, fit_intercept: bool, normalize: bool, n_rows: int) -> None:
        self.average = average
        self.fit_intercept = fit_intercept
        self.normalize = normalize
        self._columns = Columns()
        self._W = np.zeros((n_rows, START_COLUMNS))
        self._U = np.zeros((n_rows, START_COLUMNS))
        self._b = np.zeros(n_rows)
        self._beta = np.zeros(n_rows)
        self._count = np.ones(1, dtype=np.int64)  # [Daume2017] Alg. 7's c, 1 before any example
        self._reset_calls()

    def _build_calls(self) -> Any:
        on = bool(self.average)
        return _backend.dicts.LinearDicts(self._columns.index, self._W, self._b,
                                          self._U if on else None, self._beta if on else None,
                                          self._count if on else None,
                                          bool(self.fit_intercept), bool(self.normalize),
                                          self._busy)

    def _model(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.average:
            return self._W, self._b
        # the average of the weights held after each example, as Perceptron publishes it
        c = float(self._count[0])
        return self._W - self._U / c, self._b - self._beta / c


@fill(_PARAMS)
class Perceptron(_AveragedState, BinaryLinear, Sigmoid, base.MiniBatchClassifier):
    """The binary perceptron for River, averaged by default, on the compiled routines.

    [Daume2017] Alg. 5 (plain) and Alg. 7 (averaged, lazily): on a mistake (``y (w . x + b)
    <= 0``) the weights gain ``y x``. True (or 1) is the positive class and False (or 0)
    the negative, as River's binary classifiers take them; ``predict_one`` answers True when
    the score is positive. River's ``linear_model.Perceptron`` is the plain (not averaged)
    variant of this arithmetic. ``learn_one(x, y, w)`` multiplies the step by River's sample
    weight ``w``. ``predict_proba_one`` gives River's ``Perceptron``'s probability, the
    sigmoid of the score (of the averaged weights, when averaging): a monotone map of the
    score for River's wrappers, not a calibrated probability.

    {params_perceptron}
    """

    def __init__(self, average: bool = True, fit_intercept: bool = True,
                 normalize: bool = False) -> None:
        super().__init__(average, fit_intercept, normalize, 1)

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"average": False}
        yield {"normalize": True, "fit_intercept": False}

    def _run(self, rows: Rows, y: np.ndarray, order: np.ndarray,
             sw: np.ndarray | None) -> None:
        lin, fi, nz = _backend.linear, bool(self.fit_intercept), bool(self.normalize)
        w, b = self._W[0], self._b
        if self.average:
            lin.averaged_epoch_csr(rows.data, rows.indices, rows.indptr, y, order, w, b,
                                   self._U[0], self._beta, self._count, fi, nz, sw)
        else:
            lin.perceptron_epoch_csr(rows.data, rows.indices, rows.indptr, y, order, w, b,
                                     fi, nz, sample_weight=sw)

    @fill(DOCS, y=DOCS["y_bool"], raises_learn=DOCS["raises_learn_score_binary"])
    def learn_one(self, x: dict[Hashable, Any], y: Any, w: float = 1.0) -> None:
        """Learn one example: an update (times ``w``) when the model gets it wrong.

        {learn_one}
        """
        label = 1.0 if y is True else -1.0 if y is False else sign(y)
        if w.__class__ is not float or w != 1.0:
            w = sample_weight(w)
            if w == 0.0:
                self._check_only(x)
                return
        if (self._calls.get(_twin()) or self._calls_now()).learn_binary(x, label, w) < 0:
            self._learn_new_names(x, lambda calls: calls.learn_binary(x, label, w))

    @property
    def weights(self) -> dict[Hashable, float]:
        """Feature name -> weight of the model that predicts (the average, when averaging)."""
        return self._named(self._model()[0][0])

    @property
    def intercept(self) -> float:
        """The bias of the model that predicts (the average, when averaging)."""
        return float(self._model()[1][0])


@fill(_PARAMS)
class MulticlassPerceptron(_AveragedState, Predictions, base.MiniBatchClassifier):
    """The K-class (argmax) perceptron for River, averaged by default; classes may appear at
    any point of the stream.

    [Bunescu-CS4900], "K-class perceptron": one weight row per class, the prediction the class
    of highest score ``W_k . x + b_k`` (ties to the class seen first); on a mistake the true
    row gains ``x`` and the predicted row loses it. Averaging as [Daume2017] Alg. 7, every row.
    A label first seen joins the argmax from that example on with zero weights: since every
    update adds to one row what it takes from another, the rows sum to zero, so a class of
    zero weights never outscores every seen class, and the model is the one that had every
    class from the start, numbered by first appearance (exactly so where the scores' sums are
    exact). ``learn_one(x, y, w)`` multiplies the step by River's sample weight ``w``.
    ``predict_proba_one`` is the softmax of the classes' scores, the rule of River's
    multiclass linear model (``SoftmaxRegression``): a monotone map of the scores for River's
    wrappers, not a calibrated probability; its likeliest class is ``predict_one``'s.

    {params_perceptron}
    """

    def __init__(self, average: bool = True, fit_intercept: bool = True,
                 normalize: bool = False) -> None:
        super().__init__(average, fit_intercept, normalize, 0)
        self._classes: list[Any] = []
        self._class_index: dict[Any, int] = {}

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"average": False}
        yield {"normalize": True}

    @property
    def _multiclass(self) -> bool:
        return True

    def _add_classes(self, n_classes: int) -> None:
        if n_classes > self._W.shape[0]:
            self._W, self._U = grow_rows(self._W, n_classes), grow_rows(self._U, n_classes)
            self._b, self._beta = grow_rows(self._b, n_classes), grow_rows(self._beta, n_classes)
            self._reset_calls()

    def _code(self, label: Any) -> int:
        k = self._class_index.get(label)
        if k is None:
            k = self._class_index[label] = len(self._classes)
            self._classes.append(label)
        return k

    def _run(self, rows: Rows, y: np.ndarray, order: np.ndarray,
             sw: np.ndarray | None) -> None:
        lin, fi, nz = _backend.linear, bool(self.fit_intercept), bool(self.normalize)
        if self.average:
            lin.multiclass_averaged_epoch_csr(rows.data, rows.indices, rows.indptr, y, order,
                                              self._W, self._b, self._U, self._beta,
                                              self._count, fi, nz, sw)
        else:
            lin.multiclass_epoch_csr(rows.data, rows.indices, rows.indptr, y, order, self._W,
                                     self._b, fi, nz, sw)

    @fill(DOCS, y=_Y_CLASS, raises_learn=DOCS["raises_learn_score"])
    def learn_one(self, x: dict[Hashable, Any], y: Any, w: float = 1.0) -> None:
        """Learn one example: an update (times ``w``) when the model gets it wrong.

        {learn_one}
        """
        if w.__class__ is not float or w != 1.0:
            w = sample_weight(w)
            if w == 0.0:  # no class joins either
                self._check_only(x)
                return
        k = self._class_index.get(y)
        if k is not None:
            self._learn_class(x, k, w)
            return
        with self._learning(False), self._all_or_nothing() as undo:  # a class joins
            k = self._code(y)
            self._add_classes(len(self._classes))
            self._keep(undo, _backend.dicts.dict_row(x, self._columns.index,
                                                     max(1, len(self._columns)))[1])
            self._learn_class(x, k, w)

    def _learn_class(self, x: dict[Hashable, Any], k: int, w: float) -> None:
        if (self._calls.get(_twin()) or self._calls_now()).learn_class(x, k, w) < 0:
            self._learn_new_names(x, lambda calls: calls.learn_class(x, k, w))

    @fill(DOCS, y=_Y_CLASSES)
    def learn_many(self, X: pd.DataFrame, y: pd.Series, w: Any = 1.0) -> None:
        """Learn a batch, row by row in order: the same model as ``learn_one`` on each row, in
        one compiled call per run of rows between the first examples of new classes.

        {learn_many}
        """
        check_rows(X, y)
        X, y, sw = weighted(X, y, w)
        with self._learning(True), self._all_or_nothing() as undo:
            rows = self._learn_frame(X)
            self._keep(undo, np.unique(rows.indices))
            self._learn_classes(rows, y, sw)

    def _learn_classes(self, rows: Rows, y: pd.Series, sw: np.ndarray | None) -> None:
        local, uniques = pd.factorize(pd.Series(y), use_na_sentinel=False)
        before = len(self._classes)
        to_global = np.array([self._code(u) for u in uniques], dtype=np.int64)
        codes = np.ascontiguousarray(to_global[local]) if len(local) else local.astype(np.int64)
        # a class joins at its first example: one call per run of rows between new classes
        firsts = np.unique(local, return_index=True)[1] if len(local) else np.zeros(0, int)
        starts = sorted(int(firsts[j]) for j in range(len(uniques)) if to_global[j] >= before)
        bounds = sorted({0, *starts, rows.n_rows})
        for s, e in zip(bounds[:-1], bounds[1:]):
            n_classes = before + sum(1 for p in starts if p <= s)
            self._add_classes(n_classes)
            # the routine checks every label, visited or not: later classes' rows get 0
            y_now = codes if e == rows.n_rows else np.where(codes < n_classes, codes, 0)
            if n_classes:
                self._learn_rows(rows, y_now, visit(s, e), sw)

    @fill(DOCS)
    def predict_one(self, x: dict[Hashable, Any], **kwargs: Any) -> Any:
        """The class of highest score (ties to the class seen first); None before any.

        {params_x_predict}

        Returns
        -------
        hashable or None
            The predicted label.

        {raises_x}
        """
        classes = self._classes  # (first: a new class joins it before the weights' rows)
        k = (self._calls.get(_twin()) or self._calls_now()).argmax(x)
        return classes[k] if k >= 0 else None

    @fill(DOCS)
    def predict_proba_one(self, x: dict[Hashable, Any], **kwargs: Any) -> dict[Any, float]:
        """The softmax of the classes' scores (River's multiclass rule); ``{}`` before any
        class.

        {proba_one}
        """
        classes = self._classes  # (first: a new class joins it before the weights' rows)
        scores = (self._calls.get(_twin()) or self._calls_now()).class_scores(x)[:len(classes)]
        return dict(zip(classes, softmax(scores))) if scores else {}

    @fill(DOCS)
    def predict_proba_many(self, X: pd.DataFrame) -> pd.DataFrame:
        """``predict_proba_one`` on each row (the same bits), the rows scored in one compiled
        call.

        {proba_many}
        """
        classes = self._classes
        scores = self._scores(X)[:, :len(classes)]
        probas = [softmax(row) for row in scores.tolist()] if scores.shape[1] else \
            np.zeros((len(X), 0))
        return pd.DataFrame(probas, index=X.index, columns=pd.Index(classes, dtype=object))

    def _predict_rows(self, X: pd.DataFrame) -> Any:
        classes = self._classes  # (first: a new class joins it before the weights' rows)
        scores = self._scores(X)
        if not scores.shape[1]:
            return np.full(len(X), None, dtype=object)
        return [classes[k] for k in np.argmax(scores, axis=1).tolist()]

    @property
    def classes(self) -> list[Any]:
        """The labels seen, in order of first appearance (the weight rows' order)."""
        return list(self._classes)

    @property
    def weights(self) -> dict[Any, dict[Hashable, float]]:
        """Class -> feature name -> weight of the model that predicts."""
        W = self._model()[0]
        return {c: self._named(W[k]) for k, c in enumerate(self._classes)}

    @property
    def intercept(self) -> dict[Any, float]:
        """Class -> bias of the model that predicts."""
        b = self._model()[1]
        return {c: float(b[k]) for k, c in enumerate(self._classes)}

