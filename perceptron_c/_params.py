"""Estimator parameter checks: flags, integers, fractions, choices, real numbers in a range,
and class weights (``class_weight`` checked and expanded to one weight per class, with
scikit-learn's meaning: None, "balanced", or a dict from label to weight)."""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_flag", "check_int", "check_fraction", "check_choice", "check_real",
           "check_class_weight", "expand_class_weight"]


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_fraction(value: Any, name: str) -> float:
    """A float strictly between 0 and 1."""
    ok = not isinstance(value, bool) and isinstance(value, (float, int, np.floating))
    if not (ok and 0 < value < 1):
        raise ValueError(f"{name} must be a float in (0, 1), got {value!r}")
    return float(value)


def check_choice(value: Any, name: str, choices: tuple) -> Any:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_real(value: Any, name: str, low: float, high: float, low_open: bool = False) -> float:
    """A real number (not a bool) in [low, high] ((low, high] with ``low_open``); high may
    be inf, and the value may be inf only then."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float,
                                                                         np.integer,
                                                                         np.floating))
    if ok:
        v = float(value)
        ok = not np.isnan(v) and (v > low if low_open else v >= low) and v <= high
    if not ok:
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be a number in {bracket}{low}, {high}], got {value!r}")
    return float(value)


def check_class_weight(class_weight: Any, partial: bool = False) -> None:
    """The parameter alone: None, "balanced" (not in ``partial_fit``, whose batches do not
    tell the class frequencies), or a dict of finite non-negative weights."""
    if class_weight is None:
        return
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be None, 'balanced' or a dict; got "
                             f"{class_weight!r}")
        if partial:
            raise ValueError("class_weight='balanced' is not supported in partial_fit: the "
                             "class frequencies of one batch are not those of the data. "
                             "Compute the weights on the whole data once and pass them as a "
                             "dict.")
        return
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict; got "
                         f"{type(class_weight).__name__}")
    for label, value in class_weight.items():
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float,
                                                                         np.number)):
            raise ValueError(f"class_weight[{label!r}] must be a number, got {value!r}")
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"class_weight[{label!r}] must be finite and >= 0, got {value!r}")


def _same_label(key: Any, label: Any) -> bool:
    try:
        return bool(key == label)
    except (TypeError, ValueError):
        return False


def expand_class_weight(class_weight: Any, classes: np.ndarray,
                        y_idx: np.ndarray | None) -> np.ndarray:
    """One float64 weight per class (in ``classes`` order).

    "balanced": n / (n_classes * count of the class in y), as scikit-learn computes it (a
    class absent from y is an error). A dict: the classes it names get its weight, the others
    1.0; keys that are not labels are an error when some class is left out (scikit-learn's
    rule), and ignored when every class is named.
    """
    k = classes.shape[0]
    if class_weight is None:
        return np.ones(k)
    if isinstance(class_weight, str):  # "balanced", checked by check_class_weight
        assert y_idx is not None
        counts = np.bincount(y_idx, minlength=k).astype(np.float64)
        if np.any(counts == 0):
            missing = classes[counts == 0].tolist()
            raise ValueError(f"class_weight='balanced': the classes {missing} do not occur "
                             "in y")
        return y_idx.shape[0] / (k * counts)
    out = np.ones(k)
    named = 0
    for i, label in enumerate(classes.tolist()):
        hits = [key for key in class_weight if _same_label(key, label)]
        if hits:
            out[i] = float(class_weight[hits[0]])
            named += 1
    if named < k and named != len(class_weight):
        unknown = [key for key in class_weight
                   if not any(_same_label(key, label) for label in classes.tolist())]
        raise ValueError(f"class_weight: the keys {unknown!r} are not among the classes "
                         f"{classes.tolist()!r}")
    return out
