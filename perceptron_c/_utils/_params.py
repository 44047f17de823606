"""Estimator parameters: the scikit-learn protocol (`Parameters`), the rules a parameter
obeys on its own, declared once per class (``_parameter_constraints``, as scikit-learn
declares them, without importing it), and the checks behind the rules: flags, integers,
fractions, choices, real numbers in a range, ``n_jobs``, and class weights (``class_weight``
checked and expanded to one weight per class, with scikit-learn's meaning: None, "balanced",
or a dict from label to weight). Rules between parameters stay in the estimator.
"""
from __future__ import annotations

import html
import inspect
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from ._docs import ESTIMATOR, fill
from ._threads import check_n_jobs

__all__ = ["check_flag", "check_int", "check_fraction", "check_choice", "check_real",
           "check_class_weight", "expand_class_weight", "Constraint", "Flag", "Integer",
           "Real", "Fraction", "Options", "NoneOr", "NJobs", "ClassWeight", "Free",
           "Parameters", "declared"]

_P = TypeVar("_P", bound="Parameters")


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
                        y_idx: np.ndarray | None, later: bool = False) -> np.ndarray:
    """One float64 weight per class (in ``classes`` order).

    "balanced": n / (n_classes * count of the class in y), as scikit-learn computes it (a
    class absent from y is an error). A dict: the classes it names get its weight, the others
    1.0; keys that are not labels are an error when some class is left out (scikit-learn's
    rule), and ignored when every class is named. With ``later`` (a model that appends
    classes) they are kept for the labels still to come.
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
    if later:
        class_weight = {key: value for key, value in class_weight.items()
                        if any(_same_label(key, label) for label in classes.tolist())}
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


# ------------------------------------------------------------------------------- the rules

class Constraint:
    """The rule of one parameter: `check` raises ValueError naming the parameter, and `bad`
    holds values the rule refuses (tests/test_parameters.py tries each on every estimator)."""

    bad: ClassVar[tuple[Any, ...]] = ()

    def check(self, value: Any, name: str) -> None:
        raise NotImplementedError

    def refused(self) -> tuple[Any, ...]:
        return self.bad


@dataclass(frozen=True)
class Flag(Constraint):
    """True or False."""

    bad: ClassVar[tuple[Any, ...]] = ("yes", 2)

    def check(self, value: Any, name: str) -> None:
        check_flag(value, name)


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer (not a bool) >= low, and <= high when given."""

    low: int
    high: int | None = None

    def check(self, value: Any, name: str) -> None:
        check_int(value, name, self.low)
        if self.high is not None and value > self.high:
            raise ValueError(f"{name} must be an integer in [{self.low}, {self.high}], "
                             f"got {value!r}")

    def refused(self) -> tuple[Any, ...]:
        return (self.low - 1, 1.5, True) + (() if self.high is None else (self.high + 1,))


@dataclass(frozen=True)
class Real(Constraint):
    """A real number in [low, high] ((low, high] with ``low_open``)."""

    low: float
    high: float = np.inf
    low_open: bool = False

    def check(self, value: Any, name: str) -> None:
        check_real(value, name, self.low, self.high, self.low_open)

    def refused(self) -> tuple[Any, ...]:
        return (self.low if self.low_open else self.low - 1, float("nan"), "1")


@dataclass(frozen=True)
class Fraction(Constraint):
    """A float strictly between 0 and 1."""

    bad: ClassVar[tuple[Any, ...]] = (0.0, 1.0, "0.5")

    def check(self, value: Any, name: str) -> None:
        check_fraction(value, name)


@dataclass(frozen=True)
class Options(Constraint):
    """One of the given strings."""

    choices: tuple[str, ...]

    def check(self, value: Any, name: str) -> None:
        check_choice(value, name, self.choices)

    def refused(self) -> tuple[Any, ...]:
        return ("no such option", 1)


@dataclass(frozen=True)
class NoneOr(Constraint):
    """None, or a value the inner rule accepts."""

    rule: Constraint

    def check(self, value: Any, name: str) -> None:
        if value is not None:
            self.rule.check(value, name)

    def refused(self) -> tuple[Any, ...]:
        return self.rule.refused()


@dataclass(frozen=True)
class NJobs(Constraint):
    """None or a nonzero integer (scikit-learn's meaning)."""

    bad: ClassVar[tuple[Any, ...]] = (0, 1.5)

    def check(self, value: Any, name: str) -> None:
        check_n_jobs(value, name)


@dataclass(frozen=True)
class ClassWeight(Constraint):
    """None, "balanced" or a dict of finite non-negative weights."""

    bad: ClassVar[tuple[Any, ...]] = ("unbalanced", 3)

    def check(self, value: Any, name: str) -> None:
        check_class_weight(value)


@dataclass(frozen=True)
class Free(Constraint):
    """Checked where it is used, with the parameters it depends on (``where`` says where)."""

    where: str

    def check(self, value: Any, name: str) -> None:
        pass


# -------------------------------------------------------------------- scikit-learn protocol

class Parameters:
    """get_params / set_params / repr, and the check of ``_parameter_constraints``, following
    scikit-learn's conventions: the constructor's arguments are the parameters."""

    # every constructor parameter's rule (tests/test_parameters.py checks that none is missing)
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}

    @classmethod
    def _get_param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def _keep_params(self, given: dict[str, Any]) -> None:
        """The whole body of an estimator's ``__init__`` (``self._keep_params(locals())``):
        every parameter of that ``__init__`` becomes the attribute of its name, stored as
        given. scikit-learn's rule: no logic in ``__init__``, the checks at the training
        call. The attributes are declared on the class, for mypy. ``given`` is read, not
        the signature of ``type(self)``: a user's subclass may add parameters of its own and
        pass ours on to ``super().__init__``."""
        for name, value in given.items():
            if name not in ("self", "__class__"):  # __class__: where the body calls super()
                setattr(self, name, value)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters and their current values.

        Parameters
        ----------
        deep : bool, default=True
            Accepted for scikit-learn's protocol; no parameter holds an estimator, so it
            changes nothing.

        Returns
        -------
        dict of str to object
            Each ``__init__`` parameter's name and the value the estimator holds now.
        """
        return {name: getattr(self, name) for name in self._get_param_names()}

    @fill(ESTIMATOR)
    def set_params(self: _P, **params: Any) -> _P:
        """Set constructor parameters; unknown names are an error.

        The values are stored as given and checked by the next training call.

        Parameters
        ----------
        **params : object
            New values, by ``__init__`` parameter name.

        {returns_self}

        Raises
        ------
        ValueError
            If a name is not a parameter of this estimator.
        """
        valid = self._get_param_names()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"Invalid parameter {key!r} for estimator {self!r}. "
                                 f"Valid parameters are: {valid!r}.")
            setattr(self, key, value)
        return self

    def _validate_params(self, *names: str) -> None:
        """Each parameter (or only those named: a prediction checks the ones it reads, which
        may have been set since fit) against its declared rule (the rules between parameters
        are the estimator's own)."""
        for name in names or self._parameter_constraints:
            self._parameter_constraints[name].check(getattr(self, name), name)

    def _spec(self) -> Any:
        """The parameters checked against their rules (at every training call: set_params
        may have changed them since), then what the call needs from them (`_checked_spec`)."""
        self._validate_params()
        return self._checked_spec()

    def _checked_spec(self) -> Any:
        """What a training call needs from the checked parameters: the estimator's rules
        between parameters, and the values its routines take."""
        raise NotImplementedError

    def _changed_params(self) -> dict[str, bool]:
        """Each parameter's name: whether its value differs from the ``__init__`` default."""
        defaults = {p.name: p.default
                    for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = {}
        for k, v in self.get_params().items():
            d = defaults.get(k)
            same = v is d or (type(v) is type(d) and not isinstance(v, np.ndarray) and v == d)
            changed[k] = not same
        return changed

    def __repr__(self) -> str:
        params = self.get_params()
        shown = [f"{k}={params[k]!r}" for k, changed in self._changed_params().items() if changed]
        return f"{type(self).__name__}({', '.join(shown)})"

    def _repr_html_(self) -> str:
        """Jupyter's view: the repr, whether the model is fitted (and what it learned: its
        classes, features, epochs), then every parameter, those set away from their default
        in bold. Plain HTML, escaped, without scripts or styles from outside."""
        esc = html.escape
        params = self.get_params()
        rows = "".join(
            f"<tr><td>{'<b>' + esc(k) + '</b>' if changed else esc(k)}</td>"
            f"<td><code>{esc(_short_repr(params[k]))}</code></td></tr>"
            for k, changed in self._changed_params().items())
        fitted = getattr(self, "__sklearn_is_fitted__", lambda: False)()
        facts = [f"{name}={_short_repr(getattr(self, name))}"
                 for name in ("classes_", "n_features_in_", "n_iter_", "converged_")
                 if fitted and hasattr(self, name)]
        state = "fitted" + (": " + ", ".join(facts) if facts else "") if fitted else \
            "not fitted"
        text = repr(self)
        text = text if len(text) <= 400 else text[:397] + "..."
        return (f'<div class="perceptron-c-estimator"><pre>{esc(text)}</pre>'
                f"<p><i>{esc(state)}</i></p><details><summary>parameters</summary>"
                f"<table>{rows}</table></details></div>")


def _short_repr(value: Any, limit: int = 80) -> str:
    text = np.array2string(value, threshold=8) if isinstance(value, np.ndarray) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def declared(base: type[Parameters], **rules: Constraint) -> dict[str, Constraint]:
    """``base``'s rules extended (or overridden) by ``rules``."""
    return {**base._parameter_constraints, **rules}

