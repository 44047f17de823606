"""The base of every estimator, and the scikit-learn protocol without importing scikit-learn.

`EpochModel` gives every estimator ``get_params`` / ``set_params`` / ``repr`` (from
`_params.Parameters`), ``__sklearn_tags__`` and ``score`` with scikit-learn's meaning;
scikit-learn itself is imported only when scikit-learn calls in (``__sklearn_tags__``), so
``import perceptron_c`` stays as light as numpy. It is a classifier (labels of any type
become class indices, ``classes_`` is fixed by the first training call) unless it is an
`EpochRegressor` (real targets, ``score`` as R^2). It also holds what every perceptron's
``fit`` reads and keeps: the parameter checks, ``warm_start``, ``n_iter_`` / ``mistakes_`` /
``converged_``, and the common part of the saved state.

The estimators write their own ``fit`` and ``partial_fit`` from the steps of `_training`
(the label steps, `fit_labels` and `next_batch`, among them); each supplies its parameters,
its input gate, its state and a `_training.Run`: one training call's epoch function.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._docs import ESTIMATOR, fill
from .._utils._params import Flag, Fraction, Free, Integer, NoneOr, Parameters, Real
from .._utils._threads import reads
from .._utils._validation import (
    check_classes,
    check_n_features,
    check_sample_weight,
    check_targets,
    decode_label_state,
    encode_label_state,
    not_fitted,
    unknown_labels,
)
from ._training import (
    Run,
    _Stopping,
    draw_seed,
    epoch_order,
    report_epoch,
    state_entries,
)

__all__ = ["EARLY_STOPPING", "OVR_FIXED_CLASSES", "STOPPING", "EpochModel", "EpochRegressor",
           "available_if", "labels_of", "r2_score",
           # _run's, re-exported: _mixing, _sgd_run, dask and the tests import them from here
           "Run", "_Stopping", "draw_seed", "epoch_order", "report_epoch"]


# the rules of the early-stopping parameters, for the estimators that have them
EARLY_STOPPING = {"early_stopping": Flag(), "n_iter_no_change": Integer(1),
                  "validation_fraction": Fraction()}
# ... and scikit-learn's ``tol`` (None: the textbook's rule), for those that have both
STOPPING = {**EARLY_STOPPING, "tol": NoneOr(Real(0.0))}


# why a one-vs-rest model keeps the classes of its first call (EpochModel._add_classes)
OVR_FIXED_CLASSES = (
    "one-vs-rest trains each class against a rest fixed at the first call: a perceptron added "
    "later for a new class would never have seen the earlier examples as negatives, unlike "
    "one declared up front, so it cannot be added consistently; declare every class on the "
    "first call")


# ------------------------------------------------------------------- labels from scores


def labels_of(scores: np.ndarray) -> np.ndarray:
    """Class indices from decision scores (n, 1) or (n, K): two classes, 1 where the score is
    > 0; more, the index of the highest score, ties to the lowest."""
    if scores.shape[1] == 1:
        return (scores.reshape(-1) > 0).astype(np.int64)
    return scores.argmax(axis=1)  # (np.argmax's own call costs more than a row's argmax)


# ----------------------------------------------------------------------- scikit-learn protocol


class available_if:
    """Method decorator: the method exists on an instance only while ``check(instance)`` is
    true (``hasattr`` is False otherwise), so duck-typing callers such as scikit-learn see
    exactly the methods that work for the estimator's current parameters. With
    ``classwide``, ``check`` reads only the class (a regressor has no ``decision_function``),
    and the class itself lacks the method where it fails."""

    def __init__(self, check: Any, classwide: bool = False) -> None:
        self.check, self.classwide = check, classwide

    def __call__(self, fn: Any) -> available_if:
        self.fn = fn
        self.__doc__ = fn.__doc__
        return self

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None and not (self.classwide and not self.check(owner)):
            return self.fn
        if not self.check(owner if obj is None else obj):
            why = "" if self.classwide else " with the current parameters"
            raise AttributeError(f"{owner.__name__}.{self.fn.__name__} is not available{why}")
        return self.fn.__get__(obj, owner)


class EpochModel(Parameters):
    """What every estimator trained by epochs has: its parameters, its fitted state and model
    file, and, unless it is an `EpochRegressor`, what a classifier has (``classes_``,
    ``predict`` as labels, ``score`` as accuracy, the labels a later ``partial_fit`` meets).

    Subclasses define ``_checked_spec`` (the rules between parameters, and what the gate and
    the run need), ``_init_state``, ``_start`` (a `Run`), ``_publish``, ``_predict_labels``
    and the state arrays for model files; they may extend ``_check_continuation``.

    Two stopping rules: the textbook's (after an epoch without a mistake, or when the
    validation accuracy of ``early_stopping`` stalls for ``n_iter_no_change`` epochs) and,
    when ``_sklearn_stopping()`` is true, scikit-learn's SGD rule (``tol`` against the
    epoch's mean objective, or against the validation score with ``early_stopping``).
    """

    _classifier = True  # classes and labels (an EpochRegressor: real targets)

    _has_early_stopping = False

    # The common constructor parameters: each subclass's __init__ sets the ones it takes (the
    # last three only with _has_early_stopping). Declared, not assigned: get_params and
    # hasattr see exactly what __init__ set.
    fit_intercept: bool
    max_iter: int
    shuffle: bool
    random_state: Any
    warm_start: bool
    verbose: int
    early_stopping: bool
    validation_fraction: float
    n_iter_no_change: int

    _parameter_constraints = {
        "fit_intercept": Flag(), "max_iter": Integer(1), "shuffle": Flag(),
        "warm_start": Flag(), "verbose": Integer(0),
        "random_state": Free("check_random_state, when a training call draws its seed"),
    }

    # ---- scikit-learn's protocol: get_params / set_params / repr (`_params.Parameters`),
    # tags and score

    _estimator_type = "classifier"

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    transformer_tags=None, regressor_tags=None,
                    classifier_tags=ClassifierTags(), input_tags=InputTags(sparse=True))

    @reads
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y``.

        Parameters
        ----------
        X : array-like or sparse matrix
            Samples, in the input form the estimator was fitted on.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each sample in the mean; equal weights when None.

        Returns
        -------
        float
            The (weighted) fraction of samples whose predicted label equals ``y``.
        """
        correct = np.asarray(self.predict(X) == np.asarray(y), dtype=np.float64)
        return float(np.average(correct, weights=sample_weight))

    @fill(ESTIMATOR)
    @reads
    def predict(self, X: Any) -> np.ndarray:
        """The label of each row.

        Two classes: ``classes_[1]`` where the decision value is > 0, else ``classes_[0]``;
        more: the class of the highest score, ties to the lowest class index. Comparisons are
        exact for the exact (conjunction kernel) models.

        Parameters
        ----------
        X : array-like, sparse matrix or PackedBits
            Samples, in the form and with the features the model was fitted on; with
            ``kernel="precomputed"``, the kernel values between these rows and the training
            rows, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels, from ``classes_``.

        {raises_unfitted}
        ValueError
            If ``X`` is malformed or does not match the training data (its number of
            features, its feature names), or a decision value is not finite.
        """
        idx = self._predict_labels(X)  # (first: it raises NotFittedError on an unfitted model)
        return self.classes_[idx]

    def _predict_labels(self, X: Any) -> np.ndarray:
        """The class index of each row of X (gated here)."""
        raise NotImplementedError

    # why classes_ cannot grow after the first call (a model that can grow says how instead)
    _fixed_classes = "this model's classes are fixed by its first training call"

    def _meet_classes(self, y: np.ndarray, classes: Any) -> None:
        """A later partial_fit call's labels (``y``, and ``classes`` when given) against
        ``classes_``: the labels new to the model go to `_add_classes`, sorted; ``classes``
        may not leave out a label of the model."""
        new = unknown_labels(y, self.classes_)
        if classes is not None:
            given = check_classes(classes)
            if unknown_labels(self.classes_, given).shape[0]:
                raise ValueError("classes must not change between calls to partial_fit: it "
                                 f"leaves out labels of the model ({self._fixed_classes})")
            declared = unknown_labels(given, self.classes_)
            if declared.shape[0]:
                new = np.union1d(new, declared)
        if new.shape[0]:
            self._add_classes(new)

    def _add_classes(self, new: np.ndarray) -> None:
        """Take labels new to the model (sorted) after the first training call: here, refuse
        them, naming why."""
        self._refuse_classes(new, self._fixed_classes)

    def _refuse_classes(self, new: np.ndarray, reason: str) -> None:
        raise ValueError("classes must not change between calls to partial_fit: labels not "
                         f"in classes_ {new[:5].tolist()} ({reason})")

    # ---- hooks (and Parameters._checked_spec)
    def _gate_X(self, X: Any, spec: Any, fitting: bool) -> Any:
        raise NotImplementedError

    def _init_state(self, Xc: Any, spec: Any) -> None:
        raise NotImplementedError

    def _start(self, Xc: Any, y: np.ndarray, sample_weight: np.ndarray | None,
               spec: Any) -> Run:
        raise NotImplementedError

    def _publish(self) -> None:
        raise NotImplementedError

    def _check_continuation(self, Xc: Any, spec: Any) -> None:
        check_n_features(Xc, self.n_features_in_, type(self).__name__)

    def _warm_restart(self) -> None:
        """``fit`` with ``warm_start`` on a fitted model, before its epochs (default: continue
        the state as it is)."""

    def _set_initial(self, coef_init: Any, intercept_init: Any) -> None:
        raise TypeError(f"{type(self).__name__}.fit takes no coef_init / intercept_init")

    def _sklearn_stopping(self) -> bool:
        return False

    def _draw_seed(self) -> int:
        """The model's seed (epoch orders, validation split), drawn from ``random_state``
        (the linear models in scikit-learn's arithmetic: `_sgd_run.sgd_seed`)."""
        return draw_seed(self.random_state)

    def _validation_score(self, run: Run, X: Any, y: np.ndarray,
                          w: np.ndarray | None) -> float:
        return float(np.average(run.predict_idx(X) == y, weights=w))

    # ---- common parameters
    def _is_fitted(self) -> bool:
        return hasattr(self, "classes_" if self._classifier else "n_features_in_")

    def _check_fitted(self) -> None:
        if not self._is_fitted():
            raise not_fitted(self)

    def __sklearn_is_fitted__(self) -> bool:
        return self._is_fitted()

    # ---- model files
    @fill(ESTIMATOR)
    @reads
    def save(self, path: Any) -> str:
        """Write the fitted model to a versioned ``.npz`` (no pickle).

        Read it back with `perceptron_c.load`. The file is written beside ``path`` and
        renamed into place, so a failed save never leaves a half-written model.

        Parameters
        ----------
        path : str or os.PathLike
            Where to write; ``.npz`` is appended when missing.

        Returns
        -------
        str
            The path written.

        {raises_unfitted}
        ValueError
            If the state cannot be saved faithfully (a non-finite array, labels or
            parameters a model file cannot hold).
        OSError
            If the file cannot be written; the message names ``path``.
        """
        from ..io import save_model

        self._check_fitted()
        return save_model(self, path)

    def _common_state(self) -> dict[str, np.ndarray]:
        """The state every estimator saves: per-epoch mistakes, seed and counters (and the
        labels of a classifier)."""
        self._check_fitted()
        arrays = encode_label_state(self.classes_) if hasattr(self, "classes_") else {}
        arrays.update({"mistakes_": self.mistakes_,
                       "scalars": np.array([self._seed, self._epochs_seen, self.n_features_in_,
                                            int(self.converged_)], dtype=np.uint64)})
        if hasattr(self, "feature_names_in_"):
            arrays["feature_names_in_"] = self.feature_names_in_.astype(str)
        return arrays

    def _state_arrays(self) -> dict:
        """What a model file holds: the common state and the declared state ``_state``
        (`_state.state_entries`); a model without a declared state says what it saves."""
        arrays = self._common_state()
        arrays.update(state_entries(self._state))  # type: ignore[attr-defined]
        return arrays

    def _restore_common_state(self, arrays: dict, need: set) -> tuple[int, int]:
        """Check that ``need`` (plus the common keys) are present, set the common attributes
        and return (number of classes, or 0 for a regressor; n_features)."""
        classifier = self._classifier
        missing = (set(need) | {"mistakes_", "scalars"} | ({"classes_"} if classifier
                                                            else set())) - set(arrays)
        if missing:
            raise ValueError(f"model file is missing {sorted(missing)}")
        scalars = np.asarray(arrays["scalars"])
        if scalars.shape != (4,) or scalars.dtype != np.uint64:
            raise ValueError("model file: scalars must be 4 uint64 values")
        seed, epochs_seen, d, converged = (int(v) for v in scalars)
        mistakes = np.asarray(arrays["mistakes_"])
        if mistakes.ndim != 1 or mistakes.dtype != np.int64 or (mistakes < 0).any():
            raise ValueError("model file: mistakes_ must be 1-D int64 counts >= 0")
        if not (converged in (0, 1) and 1 <= d < 2**31 and seed < 2**63
                and mistakes.shape[0] <= epochs_seen < 2**62):
            raise ValueError(f"model file: scalars out of range ({scalars.tolist()})")
        k = 0
        if classifier:
            self.classes_ = decode_label_state(arrays)
            k = self.classes_.shape[0]
        self._seed, self._epochs_seen = seed, epochs_seen
        self.n_features_in_ = d
        self.mistakes_ = np.array(mistakes)
        self.n_iter_ = int(mistakes.shape[0])
        self.converged_ = bool(converged)
        if "feature_names_in_" in arrays:
            names = np.asarray(arrays["feature_names_in_"])
            if names.shape != (d,) or names.dtype.kind != "U":
                raise ValueError("model file: feature_names_in_ must be d strings")
            self.feature_names_in_ = names.astype(object)
        return k, d


class EpochRegressor(EpochModel):
    """The skeleton for regressors: real-valued targets, ``score`` is R^2."""

    _classifier = False
    _estimator_type = "regressor"  # what duck-typing callers read (scikit-learn < 1.6's)

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import InputTags, RegressorTags, Tags, TargetTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True),
                    transformer_tags=None, regressor_tags=RegressorTags(),
                    classifier_tags=None, input_tags=InputTags(sparse=True))

    def _validation_score(self, run: Run, X: Any, y: np.ndarray,
                          w: np.ndarray | None) -> float:
        return r2_score(y, run.predict_idx(X), w)

    @reads
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The coefficient of determination R^2 of ``predict(X)`` against ``y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,)
            True targets.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each sample; equal weights when None.

        Returns
        -------
        float
            ``1 - sum w (y - pred)^2 / sum w (y - mean_w(y))^2``, as scikit-learn defines
            it (1.0 for a constant ``y`` predicted exactly, 0.0 otherwise for one).
        """
        y = check_targets(y, np.shape(y)[0] if np.ndim(y) else 0)
        return r2_score(y, self.predict(X), check_sample_weight(sample_weight, y.shape[0]))


def r2_score(y: np.ndarray, pred: np.ndarray, w: np.ndarray | None) -> float:
    """1 - sum w (y - pred)^2 / sum w (y - mean_w(y))^2 (1.0 for a constant y predicted
    exactly, 0.0 for a constant y predicted otherwise), as scikit-learn defines it."""
    weights = np.ones_like(y, dtype=np.float64) if w is None else w
    residual = float(np.sum(weights * (y - pred) ** 2))
    total = float(np.sum(weights * (y - np.average(y, weights=weights)) ** 2))
    if total == 0.0:
        return 1.0 if residual == 0.0 else 0.0
    return 1.0 - residual / total
