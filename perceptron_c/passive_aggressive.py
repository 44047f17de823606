"""The passive-aggressive family (Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online
Passive-Aggressive Algorithms", JMLR 7, 2006): `PassiveAggressiveClassifier` and
`PassiveAggressiveRegressor`, with scikit-learn 1.9's parameters, meaning and arithmetic.

On an example with loss l > 0 (hinge max(0, 1 - y w.x) for classes, epsilon-insensitive
max(0, |y - w.x| - epsilon) for targets) the weights move by tau y x (regression: tau sign(y -
w.x) x), where tau = l / ||x||^2 (PA, ``C=inf``), min(C, l / ||x||^2) (PA-I,
``loss="hinge"`` / ``"epsilon_insensitive"``) or l / (||x||^2 + 1 / (2C)) (PA-II,
``loss="squared_hinge"`` / ``"squared_epsilon_insensitive"``): the paper's Fig. 1, as
scikit-learn implements it (the intercept moves by tau y too, as a weight on a feature that
does not enter ||x||^2). The epochs are `_sgd_py` / `_sgd_c`, the run `_sgd_run.SGDRun`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import _backend
from ._estimator._base import OVR_FIXED_CLASSES, STOPPING, EpochModel, EpochRegressor
from ._estimator._linear_model import LinearModel
from ._estimator._sgd_run import (
    SGDRun,
    SGDSpec,
    classifier_run,
    init_sgd_state,
    initial_weights,
    publish_sgd,
    regressor_run,
    restore_sgd_state,
    set_initial,
    sgd_seed,
    sgd_state,
    warm_restart,
)
from ._estimator._training import (
    StateArray,
    entry_names,
    fit_labels,
    gate,
    hold_out,
    model_kept,
    next_batch,
    start_or_continue,
    train,
    warn_if_not_converged,
)
from ._utils._docs import BATCH, DECISION, FIT, fill
from ._utils._params import (
    ClassWeight,
    Constraint,
    NJobs,
    Options,
    Real,
    check_class_weight,
    declared,
    expand_class_weight,
)
from ._utils._threads import reads, trains
from ._utils._validation import check_sample_weight, check_targets, check_X, check_y

__all__ = ["PassiveAggressiveClassifier", "PassiveAggressiveRegressor"]


def _average_start(average: Any) -> int:
    """scikit-learn's ``average``: False (0), True (average from the first example) or an
    int n >= 1 (average once n examples have been seen)."""
    if isinstance(average, (bool, np.bool_)):
        return int(average)
    if isinstance(average, (int, np.integer)) and average >= 1:
        return int(average)
    raise ValueError(f"average must be a bool or an int >= 1, got {average!r}")


class _Average(Constraint):
    """scikit-learn's ``average`` (`_average_start`)."""

    bad = ("yes", 0, -1)

    def check(self, value: Any, name: str) -> None:
        _average_start(value)


# the rules both estimators share (``loss`` is each one's own)
_RULES = {**STOPPING, "C": Real(0.0, low_open=True), "average": _Average()}


class _PassiveAggressive:
    """What both estimators share: parameters, state, warm start, model files."""

    _has_early_stopping = True
    _classifier: bool  # (EpochModel's)
    _state: dict[str, np.ndarray]
    _losses: tuple[str, str]  # (PA-I, PA-II) names of ``loss``
    C: float
    loss: str
    average: Any
    tol: float | None
    coef_: Any
    intercept_: np.ndarray

    if TYPE_CHECKING:  # provided by the estimators
        def _publish(self) -> None: ...

    def _sklearn_stopping(self) -> bool:
        return True

    def _draw_seed(self) -> int:
        return sgd_seed(self)

    def _pa_spec(self, loss_kind: int, margin: float) -> SGDSpec:
        sgd = _backend.sgd
        c = float(self.C)
        if c == np.inf:
            rate = sgd.RATE_PA  # the plain PA: min(inf, l / ||x||^2), and 1 / (2 inf) = 0
        else:
            rate = sgd.RATE_PA1 if self.loss == self._losses[0] else sgd.RATE_PA2
        return SGDSpec(loss=loss_kind, learning_rate=rate, penalty=sgd.PENALTY_NONE,
                       alpha=1.0, l1_ratio=0.0, eta0=c, epsilon_or_threshold=margin,
                       average_start=_average_start(self.average),
                       classifier=self._classifier)

    def _gate_X(self, X: Any, spec: Any, fitting: bool) -> Any:
        return check_X(X)

    def _check_continuation(self, Xc: Any, spec: SGDSpec) -> None:
        super()._check_continuation(Xc, spec)  # type: ignore[misc]
        if ("aw" in self._state) != bool(spec.average_start):
            raise ValueError("the model was trained with another average parameter: its "
                             "state cannot continue with this one (fit again without "
                             "warm_start)")

    def _warm_restart(self) -> None:
        warm_restart(self._state, self.coef_, self._intercept_rows())

    def _set_initial(self, coef_init: Any, intercept_init: Any) -> None:
        set_initial(self._state, coef_init, intercept_init)
        self._publish()

    def _intercept_rows(self) -> np.ndarray:
        return np.atleast_1d(self.intercept_)

    def _declared_state(self, spec: SGDSpec) -> tuple[StateArray, ...]:
        return sgd_state(bool(spec.average_start))

    @classmethod
    def _restore(cls, params: dict, arrays: dict) -> Any:
        est = cls(**params)
        spec = est._spec()  # type: ignore[attr-defined]
        need = entry_names(est._declared_state(spec))
        k, d = est._restore_common_state(arrays, need)  # type: ignore[attr-defined]
        est._state = restore_sgd_state(arrays, 1 if k <= 2 else k, d,
                                       bool(spec.average_start))
        est._publish()
        return est


class PassiveAggressiveClassifier(_PassiveAggressive, LinearModel):
    """Passive-aggressive classifier: binary, or one-vs-rest for more classes.

    Parameters are keyword-only, scikit-learn 1.9's with the same defaults and meaning.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the largest step (PA-I) or the slack's weight (PA-II). ``C=inf`` is
        the plain PA of the paper (tau = l / ||x||^2), which scikit-learn does not offer.
    fit_intercept : bool, default=True
    max_iter : int, default=1000
    tol : float or None, default=1e-3
        Stop when the epoch's mean hinge loss has not improved by tol for
        ``n_iter_no_change`` epochs; None runs ``max_iter`` epochs.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows; stop on the validation accuracy.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=5
    shuffle : bool, default=True
    verbose : int, default=0
    loss : {"hinge", "squared_hinge"}, default="hinge"
        PA-I or PA-II.
    n_jobs : int or None, default=None
        Threads: the one-vs-rest classifiers train in parallel, prediction by row blocks.
    random_state : None, int or RandomState, default=None
        As in scikit-learn: an int gives scikit-learn's shuffles exactly.
    warm_start : bool, default=False
    class_weight : dict, "balanced" or None, default=None
    average : bool or int, default=False
        Return the average of the weights, from the first example (True) or from the
        ``average``-th one.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of the labels seen
    n_features_in_ : int
    n_iter_ : int
    t_ : float, 1 + the examples visited
    mistakes_ : ndarray of int64, the examples with a nonzero loss in each epoch
    converged_ : bool
    """

    _losses = ("hinge", "squared_hinge")
    _parameter_constraints = declared(EpochModel, **_RULES, loss=Options(_losses),
                                      n_jobs=NJobs(), class_weight=ClassWeight())
    _fixed_classes = OVR_FIXED_CLASSES

    def __init__(self, *, C: float = 1.0, fit_intercept: bool = True, max_iter: int = 1000,
                 tol: float | None = 1e-3, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 shuffle: bool = True, verbose: int = 0, loss: str = "hinge",
                 n_jobs: int | None = None, random_state: Any = None,
                 warm_start: bool = False, class_weight: Any = None,
                 average: bool | int = False) -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ training
    @fill(FIT)
    @trains
    def fit(self, X: Any, y: Any, coef_init: Any = None, intercept_init: Any = None,
            sample_weight: Any = None) -> PassiveAggressiveClassifier:
        """Train for up to ``max_iter`` epochs.

        From ``coef_init`` / ``intercept_init`` when given; from the current weights with
        ``warm_start``; else from zero. Each example's step is multiplied by its class weight
        and its ``sample_weight``.

        Parameters
        ----------
        {X_fit}
        {y_labels}
        {init}
        {sample_weight}

        {fit_ends}
        """
        init = initial_weights(coef_init, intercept_init)
        with model_kept(self):  # an error or Ctrl-C before an epoch ends: the model before
            spec = self._spec()
            X, names = gate(self, X, check_X, first=True)
            fresh = init is not None or not (self.warm_start and self._is_fitted())
            y_idx = fit_labels(self, y, X.shape[0], fresh)
            w = check_sample_weight(sample_weight, X.shape[0])
            start_or_continue(self, X, spec, fresh, names, init)
            X, y_idx, w, val = hold_out(self, X, y_idx, w)
            run = self._start(X, y_idx, w, spec)
            train(self, run, X.shape[0], self.max_iter, val, fitting=True)
        warn_if_not_converged(self)
        return self

    @fill(BATCH)
    @trains
    def partial_fit(self, X: Any, y: Any, classes: Any = None,
                    sample_weight: Any = None) -> PassiveAggressiveClassifier:
        """One epoch over this batch, continuing the model's state.

        Parameters
        ----------
        {X_batch}
        {y_classes}
        {sample_weight}

        {returns_batch}

        {raises_batch}
        """
        check_class_weight(self.class_weight, partial=True)
        with model_kept(self):
            first = not self._is_fitted()
            spec = self._spec()
            X, names = gate(self, X, check_X, first)
            yc = check_y(y, X.shape[0])
            w = check_sample_weight(sample_weight, X.shape[0])
            y_idx = next_batch(self, X, yc, classes, spec, names, first)
            train(self, self._start(X, y_idx, w, spec), X.shape[0], 1, None, fitting=False)
        return self

    # ------------------------------------------------------------------ its steps
    def _checked_spec(self) -> SGDSpec:
        return self._pa_spec(_backend.sgd.LOSS_HINGE, 1.0)

    def _init_state(self, Xc: Any, spec: SGDSpec) -> None:
        k = len(self.classes_)
        self._state = init_sgd_state(1 if k == 2 else k, Xc.shape[1],
                                     bool(spec.average_start))
        self._publish()

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: SGDSpec) -> SGDRun:
        cw = expand_class_weight(self.class_weight, self.classes_, y_idx)
        return classifier_run(self, Xc, y_idx, sample_weight, spec, cw)

    def _publish(self) -> None:
        self.t_ = float(self._state["t"][0])
        self.coef_, self.intercept_ = publish_sgd(self._state, _average_start(self.average))

    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> PassiveAggressiveClassifier:
        return cls._restore(params, arrays)


class PassiveAggressiveRegressor(_PassiveAggressive, LinearModel, EpochRegressor):
    """Passive-aggressive regressor.

    Parameters are keyword-only, scikit-learn 1.9's with the same defaults and meaning.

    Parameters
    ----------
    fit_intercept, max_iter, tol, early_stopping, validation_fraction, n_iter_no_change, \
shuffle, verbose, random_state, warm_start, average
        As for `PassiveAggressiveClassifier`; early stopping and ``score`` use R^2.
    C : float, default=1.0
        As for the classifier (``C=inf``: the plain PA).
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, default="epsilon_insensitive"
        PA-I or PA-II.
    epsilon : float, default=0.1
        Errors up to epsilon cost nothing.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    n_iter_ : int
    t_ : float
    mistakes_ : ndarray of int64, the examples off by more than epsilon in each epoch
    converged_ : bool
    """

    _losses = ("epsilon_insensitive", "squared_epsilon_insensitive")
    _parameter_constraints = declared(EpochModel, **_RULES, loss=Options(_losses),
                                      epsilon=Real(0.0))

    # parameters of this class only: stored by _keep_params, declared for mypy
    epsilon: float

    def __init__(self, *, C: float = 1.0, fit_intercept: bool = True, max_iter: int = 1000,
                 tol: float | None = 1e-3, early_stopping: bool = False,
                 validation_fraction: float = 0.1, n_iter_no_change: int = 5,
                 shuffle: bool = True, verbose: int = 0,
                 loss: str = "epsilon_insensitive", epsilon: float = 0.1,
                 random_state: Any = None, warm_start: bool = False,
                 average: bool | int = False) -> None:
        self._keep_params(locals())

    def _checked_spec(self) -> SGDSpec:
        return self._pa_spec(_backend.sgd.LOSS_EPSILON_INSENSITIVE, float(self.epsilon))

    def _init_state(self, Xc: Any, spec: SGDSpec) -> None:
        self._state = init_sgd_state(1, Xc.shape[1], bool(spec.average_start))
        self._publish()

    def _start(self, Xc: Any, y: np.ndarray, sample_weight: np.ndarray | None,
               spec: SGDSpec) -> SGDRun:
        return regressor_run(self, Xc, y, sample_weight, spec)

    def _publish(self) -> None:
        self.t_ = float(self._state["t"][0])
        coef, intercept = publish_sgd(self._state, _average_start(self.average))
        self.coef_, self.intercept_ = coef[0], intercept

    @fill(DECISION)
    @reads
    def predict(self, X: Any) -> np.ndarray:
        """The prediction ``w . x + b`` of each row.

        Parameters
        ----------
        {X_linear}

        Returns
        -------
        ndarray of float64 of shape (n_samples,)
            The predicted targets.

        {raises_predict_linear}
        """
        return self._gated_scores(X)[:, 0]

    @fill(FIT)
    @trains
    def fit(self, X: Any, y: Any, coef_init: Any = None, intercept_init: Any = None,
            sample_weight: Any = None) -> PassiveAggressiveRegressor:
        """Train for up to ``max_iter`` epochs.

        From ``coef_init`` / ``intercept_init`` when given; from the current weights with
        ``warm_start``; else from zero.

        Parameters
        ----------
        {X_fit}
        y : array-like of shape (n_samples,)
            Real targets.
        {init}
        {sample_weight}

        {returns_fitted}

        Raises
        ------
        ValueError
            If an input or parameter is malformed or out of range.
        TypeError
            If a parameter has the wrong type.

        {warns_fit}
        """
        init = initial_weights(coef_init, intercept_init)
        with model_kept(self):  # an error or Ctrl-C before an epoch ends: the model before
            spec = self._spec()
            X, names = gate(self, X, check_X, first=True)
            yc = check_targets(y, X.shape[0])
            w = check_sample_weight(sample_weight, X.shape[0])
            fresh = init is not None or not (self.warm_start and self._is_fitted())
            start_or_continue(self, X, spec, fresh, names, init)
            X, yc, w, val = hold_out(self, X, yc, w)
            train(self, self._start(X, yc, w, spec), X.shape[0], self.max_iter, val,
                  fitting=True)
        warn_if_not_converged(self)
        return self

    @fill(BATCH)
    @trains
    def partial_fit(self, X: Any, y: Any,
                    sample_weight: Any = None) -> PassiveAggressiveRegressor:
        """One epoch over this batch, continuing the model's state.

        Parameters
        ----------
        {X_batch}
        y : array-like of shape (n_samples,)
            The batch's real targets.
        {sample_weight}

        {returns_batch}

        Raises
        ------
        ValueError
            If an input is malformed or ``X`` does not match the fitted model.
        """
        with model_kept(self):
            first = not self._is_fitted()
            spec = self._spec()
            X, names = gate(self, X, check_X, first)
            yc = check_targets(y, X.shape[0])
            w = check_sample_weight(sample_weight, X.shape[0])
            if first:
                start_or_continue(self, X, spec, True, names)
            else:
                self._check_continuation(X, spec)
            train(self, self._start(X, yc, w, spec), X.shape[0], 1, None, fitting=False)
        return self

    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> PassiveAggressiveRegressor:
        return cls._restore(params, arrays)
