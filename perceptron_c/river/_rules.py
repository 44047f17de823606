"""River's rules that the adapters of ``perceptron_c.river`` follow: its sample weight ``w``
(a step multiplied by w, a weight of 0 learning nothing) and its probabilities (the sigmoid of
a binary score, the softmax of K-class scores), with the numpydoc blocks of ``w``."""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["RULE_DOCS", "sample_weight", "sigmoid", "softmax", "weighted"]

RULE_DOCS = {
    "w": """
        w : float, default=1.0
            River's sample weight, a finite number >= 0: the step of the update is
            multiplied by it (River's linear models multiply the loss gradient by ``w``), and
            a weight of 0 learns nothing (the example is left out). ValueError or TypeError
            otherwise.
        """,
    "w_many": """
        w : float or pandas.Series, default=1.0
            River's sample weight: one for every row, or one per row (finite, >= 0); each
            row's step is multiplied by its weight, and a row of weight 0 is left out.
        """,
}


def sample_weight(w: Any) -> float:
    """River's ``w`` for one example, checked: a real number (not a bool), finite, >= 0."""
    if isinstance(w, (bool, np.bool_)) or not isinstance(w, numbers.Real):
        raise TypeError(f"w must be a real number (River's sample weight), got a "
                        f"{type(w).__name__} ({w!r})")
    value = float(w)
    if not 0.0 <= value < math.inf:
        raise ValueError(f"w must be a finite number >= 0 (River's sample weight), got {w!r}")
    return value


def weighted(X: Any, y: Any, w: Any) -> tuple[Any, Any, np.ndarray | None]:
    """``learn_many``'s (X, y, sample weights) for River's ``w``, a number or one per row
    (checked as `sample_weight`): the rows of weight 0 left out, and None for weights all 1
    (the routines' unweighted arithmetic, the same bits)."""
    if not hasattr(w, "__len__"):
        sw = sample_weight(w)
        if sw == 1.0:
            return X, y, None
        a = np.full(len(X), sw)
    else:
        a = np.asarray(w.to_numpy() if hasattr(w, "to_numpy") else w)
        if a.shape != (len(X),) or a.dtype.kind not in "iuf":
            raise TypeError(f"w must be a number or hold one real number per row of X "
                            f"({len(X)}), got {a.dtype} of shape {a.shape}")
        a = a.astype(np.float64)
        if not (np.isfinite(a) & (a >= 0.0)).all():
            raise ValueError("w must hold finite numbers >= 0 (River's sample weights)")
    keep = a > 0.0
    if not keep.all():
        import pandas as pd  # only where River's adapters run: pandas is there

        X, y, a = X.iloc[keep], pd.Series(y).iloc[keep], a[keep]
        X = X if len(X) else X.iloc[:, :0]  # (no row left: no name learned either)
    return X, y, np.ascontiguousarray(a)


def sigmoid(s: float) -> float:
    """River's ``utils.math.sigmoid``, the probability its ``Perceptron`` and
    ``PAClassifier`` give: 0 below -30, 1 above 30, else ``1 / (1 + exp(-s))``."""
    if s < -30.0:
        return 0.0
    if s > 30.0:
        return 1.0
    return 1.0 / (1.0 + math.exp(-s))


def softmax(scores: list[float]) -> list[float]:
    """River's ``utils.math.softmax`` (its multiclass linear models' probabilities):
    ``exp(s_k - max)`` over their sum, summed in order as River sums them."""
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    total = 0.0
    for v in e:
        total += v
    return [v / total for v in e]
