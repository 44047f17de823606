"""The passive-aggressive models of ``perceptron_c.river``: River's PAClassifier and
PARegressor, on the compiled SGD routine."""
from __future__ import annotations

import math
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
    sign,
    visit,
)
from ._rules import sample_weight, weighted

__all__ = ["PAClassifier", "PARegressor"]

# the regressor's y, where the classifier takes a bool
_Y_TARGET = """
    y : float
        The target.
    """
_Y_TARGETS = """
    y : pandas.Series
        The targets.
    """


class _PA(Linear):
    """[Crammer2006] Fig. 1: tau = loss / ||x||^2 (mode 0, PA), min(C, loss / ||x||^2)
    (mode 1, PA-I), loss / (||x||^2 + 1 / (2 C)) (mode 2, PA-II); w += tau y x. PA and PA-I
    skip a row of norm 0; PA-II moves only the intercept on it. The routine is
    ``_backend.sgd``'s epoch with the PA rates, no penalty, no averaging, an intercept step
    of 1 (River's), the weight scale staying 1."""

    _WIDE = ("_W",)
    _SMALL = ("_state",)
    _ARRAYS = _WIDE + _SMALL
    _LOSS = ""

    def __init__(self, C: float = 1.0, mode: int = 1, learn_intercept: bool = True) -> None:
        if not (isinstance(C, (int, float)) and math.isfinite(C) and C > 0):
            raise ValueError(f"C must be a positive finite number, got {C!r}")
        if mode not in (0, 1, 2) or isinstance(mode, bool):
            raise ValueError(f"mode must be 0 (PA), 1 (PA-I) or 2 (PA-II), got {mode!r}")
        self.C = C
        self.mode = mode
        self.learn_intercept = learn_intercept
        sgd = _backend.sgd
        self._columns = Columns()
        self._W = np.zeros((1, START_COLUMNS))
        self._state = np.zeros(sgd.N_STATE)
        sgd.sgd_start(self._W[0], np.zeros(0), self._state, 0.0, 0.0, 1.0)
        self._reset_calls()

    @classmethod
    def _unit_test_params(cls) -> Iterator[dict[str, Any]]:
        yield {}
        yield {"mode": 0}
        yield {"mode": 2, "C": 0.1}

    def _margin(self) -> float:
        raise NotImplementedError

    def _params(self) -> np.ndarray:
        sgd = _backend.sgd
        params = np.zeros(sgd.N_PARAMS)
        params[sgd.ETA0] = float(self.C)
        params[sgd.INTERCEPT_DECAY] = 1.0
        params[sgd.WEIGHT_POS] = params[sgd.WEIGHT_NEG] = 1.0
        params[sgd.EPSILON_OR_THRESHOLD] = self._margin()
        return params

    def _codes(self) -> tuple[int, int]:
        """The SGD routine's loss and learning-rate codes."""
        sgd = _backend.sgd
        loss = sgd.LOSS_HINGE if self._LOSS == "hinge" else sgd.LOSS_EPSILON_INSENSITIVE
        return loss, (sgd.RATE_PA, sgd.RATE_PA1, sgd.RATE_PA2)[self.mode]

    def _build_calls(self) -> Any:
        return _backend.dicts.SGDDicts(self._columns.index, self._W, self._state, self._params(),
                                       *self._codes(), bool(self.learn_intercept), self._busy)

    def _run(self, rows: Rows, y: np.ndarray, order: np.ndarray,
             sw: np.ndarray | None) -> None:
        sgd, empty = _backend.sgd, np.zeros(0)
        sw = np.ones(rows.n_rows) if sw is None else sw
        sgd.sgd_epoch_csr(rows.data, rows.indices, rows.indptr, y, sw, order, self._W[0],
                          empty, empty, self._state, self._params(), *self._codes(),
                          sgd.PENALTY_NONE, bool(self.learn_intercept), False)

    def _learn_target(self, x: dict[Hashable, Any], y: float, w: Any) -> None:
        if w.__class__ is not float or w != 1.0:
            w = sample_weight(w)
            if w == 0.0:
                return self._check_only(x)
        if (self._calls.get(_twin()) or self._calls_now()).learn(x, y, w) < 0:
            self._learn_new_names(x, lambda calls: calls.learn(x, y, w))
        return None

    def _model(self) -> tuple[np.ndarray, np.ndarray]:
        return self._W, self._state[_backend.sgd.INTERCEPT:_backend.sgd.INTERCEPT + 1]

    @property
    def weights(self) -> dict[Hashable, float]:
        """Feature name -> weight."""
        return self._named(self._W[0])

    @property
    def intercept(self) -> float:
        """The intercept."""
        return float(self._state[_backend.sgd.INTERCEPT])


# both models' first parameters, River's
_PARAMS = {"params_C_mode": """
    Parameters
    ----------
    C : float, default=1.0
        The aggressiveness: the step bound of PA-I, the slack weight of PA-II.
    mode : {0, 1, 2}, default=1
        0: PA, 1: PA-I, 2: PA-II.
    """}


@fill(_PARAMS)
class PAClassifier(_PA, BinaryLinear, Sigmoid, base.MiniBatchClassifier):
    """Binary passive-aggressive classification for River: River's ``PAClassifier``, compiled.

    The hinge loss ``max(0, 1 - y (w . x + b))`` with y = +1 for True (or 1), -1 for False
    (or 0), and the step of ``mode`` ([Crammer2006] Fig. 1). The probability of True is
    River's: the sigmoid of the score (0 below -30, 1 above 30); ``predict_one`` answers True
    when the score is positive. River's ``PAClassifier`` takes no sample weight; here
    ``learn_one(x, y, w)`` multiplies the step tau by ``w``, as scikit-learn's SGD routine
    does for its ``"pa1"`` and ``"pa2"`` rates.

    {params_C_mode}
    learn_intercept : bool, default=True
        Whether the intercept is learned.

    Raises
    ------
    ValueError
        If ``C`` is not positive and finite, or ``mode`` is not 0, 1 or 2.
    """

    _LOSS = "hinge"

    def _margin(self) -> float:
        return 1.0

    @fill(DOCS, y=DOCS["y_bool"], raises_learn=DOCS["raises_learn_weight_binary"])
    def learn_one(self, x: dict[Hashable, Any], y: Any, w: float = 1.0) -> None:
        """Learn one example (the step times ``w``).

        {learn_one}
        """
        self._learn_target(x, 1.0 if y is True else -1.0 if y is False else sign(y), w)


@fill(_PARAMS)
class PARegressor(_PA, Predictions, base.MiniBatchRegressor):
    """Passive-aggressive regression for River: River's ``PARegressor``, compiled.

    The epsilon-insensitive loss ``max(0, |y - (w . x + b)| - eps)`` and the step of ``mode``
    ([Crammer2006] Fig. 1), towards y.

    {params_C_mode}
    eps : float, default=0.1
        The width of the insensitive band.
    learn_intercept : bool, default=True
        Whether the intercept is learned.

    Raises
    ------
    ValueError
        If ``C`` is not positive and finite, ``mode`` is not 0, 1 or 2, or ``eps`` is
        negative.
    """

    _LOSS = "epsilon_insensitive"

    def __init__(self, C: float = 1.0, mode: int = 1, eps: float = 0.1,
                 learn_intercept: bool = True) -> None:
        if not (isinstance(eps, (int, float)) and 0 <= eps < math.inf):
            raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
        self.eps = eps  # before the calls are built: they read the margin
        super().__init__(C=C, mode=mode, learn_intercept=learn_intercept)

    def _margin(self) -> float:
        return float(self.eps)

    @fill(DOCS, y=_Y_TARGET, raises_learn=DOCS["raises_learn_weight"])
    def learn_one(self, x: dict[Hashable, Any], y: float, w: float = 1.0) -> None:
        """Learn one example (the step times ``w``).

        {learn_one}
        """
        self._learn_target(x, float(y), w)

    @fill(DOCS, y=_Y_TARGETS, raises_learn_many=DOCS["raises_learn_many_targets"])
    def learn_many(self, X: pd.DataFrame, y: pd.Series, w: Any = 1.0) -> None:
        """Learn a batch, row by row in order, in one compiled call: the same model as
        ``learn_one`` on each row.

        {learn_many}
        """
        check_rows(X, y, "target")
        X, y, sw = weighted(X, y, w)
        targets = np.array(y, dtype=np.float64)
        with self._learning(True), self._all_or_nothing() as undo:
            rows = self._learn_frame(X)
            self._keep(undo, np.unique(rows.indices))
            self._learn_rows(rows, targets, visit(0, rows.n_rows), sw)

    @fill(DOCS)
    def predict_one(self, x: dict[Hashable, Any], **kwargs: Any) -> float:
        """The prediction ``w . x + b``.

        {params_x_predict}

        Returns
        -------
        float
            The prediction.

        {raises_x}
        """
        return (self._calls.get(_twin()) or self._calls_now()).decision(x)

    def _predict_rows(self, X: pd.DataFrame) -> np.ndarray:
        return self._decisions(X)
