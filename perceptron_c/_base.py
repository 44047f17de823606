"""The one training skeleton, and the scikit-learn protocol without importing scikit-learn.

`BaseEstimator` gives every estimator ``get_params`` / ``set_params`` / ``repr`` /
``__sklearn_tags__`` / ``score`` with scikit-learn's meaning; scikit-learn itself is imported
only when scikit-learn calls in (``__sklearn_tags__``), so ``import perceptron_c`` stays as
light as numpy.

`EpochClassifier` is the loop every perceptron shares: parameter checks, classes and labels,
``fit`` / ``partial_fit`` / ``warm_start``, early stopping on a validation split, per-epoch
progress, ``n_iter_`` / ``mistakes_`` / ``converged_``, and the common part of the saved
state. An estimator supplies its parameters, its input gate, its state, and a `_run.Run`:
one training call's epoch function (`_run` holds the visiting orders and stopping rules).
"""
from __future__ import annotations

import time
from typing import Any, TypeVar

import numpy as np

from ._docs import BATCH, ESTIMATOR, FIT, fill
from ._guard import GuardedModel
from ._labels import (
    check_classes,
    check_same_classes,
    check_two_classes,
    decode_label_state,
    encode_label_state,
    encode_labels,
    unknown_labels,
)
from ._params import Flag, Fraction, Free, Integer, NoneOr, Parameters, Real
from ._rows import take_rows
from ._run import Run, _Stopping, draw_seed, epoch_order, report_epoch
from ._state import state_entries
from ._validation import (
    check_feature_names,
    check_n_features,
    check_sample_weight,
    check_targets,
    check_y,
    not_fitted,
)

__all__ = ["BaseEstimator", "EARLY_STOPPING", "OVR_FIXED_CLASSES", "STOPPING", "EpochModel",
           "EpochClassifier", "EpochRegressor", "available_if", "labels_of", "r2_score",
           # _run's, re-exported: _mixing, _sgd_run, dask and the tests import them from here
           "Run", "_Stopping", "draw_seed", "epoch_order", "report_epoch"]

# fit / partial_fit / set_params return the estimator itself, typed as its own class
_Estimator = TypeVar("_Estimator", bound="BaseEstimator")
_Classifier = TypeVar("_Classifier", bound="EpochClassifier")


# the rules of the early-stopping parameters, for the estimators that have them
EARLY_STOPPING = {"early_stopping": Flag(), "n_iter_no_change": Integer(1),
                  "validation_fraction": Fraction()}
# ... and scikit-learn's ``tol`` (None: the textbook's rule), for those that have both
STOPPING = {**EARLY_STOPPING, "tol": NoneOr(Real(0.0))}


# why a one-vs-rest model keeps the classes of its first call (EpochClassifier._add_classes)
OVR_FIXED_CLASSES = (
    "one-vs-rest trains each class against a rest fixed at the first call: a perceptron added "
    "later for a new class would never have seen the earlier examples as negatives, unlike "
    "one declared up front, so it cannot be added consistently; declare every class on the "
    "first call")


# ----------------------------------------------------------------------- scikit-learn protocol

class BaseEstimator(Parameters):
    """get_params / set_params / repr (`_params.Parameters`), tags and score, following
    scikit-learn's conventions."""

    _estimator_type = "classifier"

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    transformer_tags=None, regressor_tags=None,
                    classifier_tags=ClassifierTags(), input_tags=InputTags(sparse=True))

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
        correct = np.asarray(self.predict(X) == np.asarray(y), dtype=np.float64)  # type: ignore[attr-defined]
        return float(np.average(correct, weights=sample_weight))


class available_if:
    """Method decorator: the method exists on an instance only while ``check(instance)`` is
    true (``hasattr`` is False otherwise), so duck-typing callers such as scikit-learn see
    exactly the methods that work for the estimator's current parameters."""

    def __init__(self, check: Any) -> None:
        self.check = check

    def __call__(self, fn: Any) -> available_if:
        self.fn = fn
        self.__doc__ = fn.__doc__
        return self

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self.fn
        if not self.check(obj):
            raise AttributeError(f"{type(obj).__name__}.{self.fn.__name__} is not available "
                                 "with the current parameters")
        return self.fn.__get__(obj, owner)


class EpochModel(GuardedModel, BaseEstimator):
    """fit / partial_fit / warm_start and the epoch loop, shared by every estimator.

    Subclasses define ``_spec`` (check the parameters, return what the gate and the run
    need), ``_gate_X``, ``_init_state``, ``_start`` (a `Run`), ``_publish`` and the state
    arrays for model files; they may extend ``_check_continuation``. `EpochClassifier` and
    `EpochRegressor` add what their targets need.

    Two stopping rules: the textbook's (after an epoch without a mistake, or when the
    validation accuracy of ``early_stopping`` stalls for ``n_iter_no_change`` epochs) and,
    when ``_sklearn_stopping()`` is true, scikit-learn's SGD rule (``tol`` against the
    epoch's mean objective, or against the validation score with ``early_stopping``).
    """

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

    # ---- hooks
    def _spec(self) -> Any:
        raise NotImplementedError

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
        """The model's seed (epoch orders, validation split), drawn from ``random_state``.
        In scikit-learn's arithmetic a RandomState is left to the runs, which draw from it
        exactly as scikit-learn does; the seed is then 0."""
        if self._sklearn_stopping() and isinstance(self.random_state, np.random.RandomState):
            return 0
        return draw_seed(self.random_state)

    def _validation_score(self, run: Run, X: Any, y: np.ndarray,
                          w: np.ndarray | None) -> float:
        return float(np.average(run.predict_idx(X) == y, weights=w))

    # ---- common parameters
    def _is_fitted(self) -> bool:
        return hasattr(self, "n_features_in_")

    def _check_fitted(self) -> None:
        if not self._is_fitted():
            raise not_fitted(self)

    def __sklearn_is_fitted__(self) -> bool:
        return self._is_fitted()

    # ---- training
    def _begin(self, X: Any, first: bool, **call: Any) -> tuple[Any, Any, np.ndarray | None]:
        """(spec, canonical X, feature names) of a training call; ``call``: the arguments of
        the call that only the model takes (`_call_spec`)."""
        spec = self._spec()
        names = check_feature_names(X, getattr(self, "feature_names_in_", None),
                                    type(self).__name__, reset=first)
        Xc = self._gate_X(X, spec, fitting=True)
        return self._call_spec(spec, Xc, **call), Xc, names

    def _call_spec(self, spec: Any, Xc: Any, **call: Any) -> Any:
        """The spec of one training call on the rows Xc, given the arguments of the call that
        only the model takes (StructuredPerceptron's ``lengths``): by default ``spec``."""
        return spec

    def _fit_encoded(self, Xc: Any, y: np.ndarray, w: np.ndarray | None, spec: Any,
                     names: np.ndarray | None, fresh: bool, init: tuple | None = None) -> None:
        """fit, once the targets are encoded: a fresh state (from ``init``, the starting
        (coef, intercept), when given) or a warm one, the validation split, then up to
        max_iter epochs."""
        if fresh:
            self._init_common(Xc.shape[1], self._draw_seed())
            self._init_state(Xc, spec)
            if init is not None:
                self._set_initial(*init)
        else:
            self._check_continuation(Xc, spec)
            self._warm_restart()
        self._set_feature_names(names)
        val = None
        if self._has_early_stopping and self.early_stopping:
            tr, va = self._validation_split(y, w)
            val = (take_rows(Xc, va), y[va], None if w is None else w[va])
            Xc, y, w = take_rows(Xc, tr), y[tr], None if w is None else w[tr]
        self._train(Xc, y, w, spec, self.max_iter, val, fitting=True)

    def _init_common(self, n_features: int, seed: int) -> None:
        self._seed = seed
        self._epochs_seen = 0
        self.n_features_in_ = int(n_features)
        self.mistakes_ = np.zeros(0, dtype=np.int64)
        self.n_iter_ = 0
        self.converged_ = False

    def _set_feature_names(self, names: np.ndarray | None) -> None:
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _validation_split(self, y: np.ndarray, w: np.ndarray | None = None
                          ) -> tuple[np.ndarray, np.ndarray]:
        """Hold out round(validation_fraction * n) rows (at least 1) at random; for a
        classifier never the first row of a class, so every class stays in training; never a
        row of weight 0 (as scikit-learn), so the validation score has weight."""
        n = y.shape[0]
        keep = np.zeros(n, dtype=bool) if w is None else w == 0
        if isinstance(self, EpochClassifier):
            keep[np.unique(y, return_index=True)[1]] = True
        candidates = np.flatnonzero(~keep)
        n_val = min(max(1, int(round(self.validation_fraction * n))), candidates.shape[0])
        if n_val == 0 or n_val >= n:
            raise ValueError(f"early_stopping: too few samples (n_samples = {n}) to hold out "
                             "a validation set")
        rng = np.random.default_rng([self._seed, 2**32 - 1])
        va = np.sort(rng.permutation(candidates)[:n_val])
        return np.setdiff1d(np.arange(n), va), va

    def _epoch(self, run: Run) -> int:
        """One epoch, all or nothing: on Ctrl-C or a float64 overflow the state goes back to
        what it was before the epoch, then the error propagates (an overflow as the run's
        `Run.overflow` error)."""
        saved = run.checkpoint()
        try:
            return int(run.epoch(run.order()))
        except (FloatingPointError, OverflowError) as exc:
            run.rollback(saved)
            error = run.overflow(exc)
            if error is exc:
                raise
            raise error from None
        except BaseException:
            run.rollback(saved)
            raise

    def _train(self, Xc: Any, y: np.ndarray, w: np.ndarray | None, spec: Any, epochs: int,
               val: tuple | None, fitting: bool) -> None:
        """Train on the rows Xc for up to ``epochs`` epochs (`_run_epochs`)."""
        run = self._start(Xc, y, w, spec)
        if not hasattr(run, "n_rows"):  # the default order permutes the training rows
            run.n_rows = Xc.shape[0]
        run.n_shown = Xc.shape[0]
        self._run_epochs(run, epochs, val, fitting)

    def _run_epochs(self, run: Run, epochs: int, val: Any, fitting: bool) -> None:
        """The epoch loop, of a serial run or of dask's mixing rounds. On an error or Ctrl-C,
        the epochs finished so far are kept (the one under way is undone), then the error
        propagates."""
        done = 0
        history = [] if fitting else [int(v) for v in self.mistakes_]
        try:
            for _ in range(epochs):
                tic = time.perf_counter()
                mistakes = self._epoch(run)
                self._epochs_seen += 1
                done += 1
                history.append(mistakes)
                stop, extra = run.after_epoch(mistakes, val)
                if self.verbose:
                    name, n = run.progress()
                    report_epoch(name, len(history), mistakes, n, time.perf_counter() - tic,
                                 extra)
                if stop:
                    break
        finally:
            converged = bool(history) and history[-1] == 0
            run.finish(epochs - done if fitting and converged else 0)
            self.mistakes_ = np.asarray(history, dtype=np.int64)
            self.n_iter_ = len(history)
            self.converged_ = converged
            self._publish()

    # ---- model files
    @fill(ESTIMATOR)
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
        from .io import save_model

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
        classifier = isinstance(self, EpochClassifier)
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


def labels_of(scores: np.ndarray) -> np.ndarray:
    """Class indices from decision scores (n, 1) or (n, K): two classes, 1 where the score is
    > 0; more, the index of the highest score, ties to the lowest."""
    if scores.shape[1] == 1:
        return (scores[:, 0] > 0).astype(np.int64)
    return np.argmax(scores, axis=1)


class EpochClassifier(EpochModel):
    """The skeleton for classifiers: labels of any type become class indices, ``classes_``
    is fixed by the first training call, ``score`` is the (weighted) accuracy."""

    @fill(ESTIMATOR)
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

    def _is_fitted(self) -> bool:
        return hasattr(self, "classes_")

    def _fit(self, X: Any, y: Any, sample_weight: Any = None, init: tuple | None = None,
             **call: Any) -> None:
        spec, Xc, names = self._begin(X, first=True, **call)
        classes, y_idx = encode_labels(check_y(y, Xc.shape[0]))
        check_two_classes(classes)
        w = check_sample_weight(sample_weight, Xc.shape[0])
        fresh = init is not None or not (self.warm_start and self._is_fitted())
        if fresh:
            self.classes_ = classes
        else:
            check_same_classes(classes, self.classes_)
            y_idx = encode_labels(classes, self.classes_)[1][y_idx]  # classes_ may be unsorted
        self._fit_encoded(Xc, y_idx, w, spec, names, fresh, init)

    def _partial_fit(self, X: Any, y: Any, classes: Any, sample_weight: Any = None,
                     **call: Any) -> None:
        first = not self._is_fitted()
        spec, Xc, names = self._begin(X, first, **call)
        yc = check_y(y, Xc.shape[0])
        w = check_sample_weight(sample_weight, Xc.shape[0])
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            classes = check_classes(classes)
            check_two_classes(classes)
            self.classes_ = classes
            self._init_common(Xc.shape[1], self._draw_seed())
            self._init_state(Xc, spec)
            self._set_feature_names(names)
        else:
            self._check_continuation(Xc, spec)
            self._meet_classes(yc, classes)
        _, y_idx = encode_labels(yc, self.classes_)
        self._train(Xc, y_idx, w, spec, 1, None, fitting=False)

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
            if unknown_labels(given, self.classes_).shape[0]:
                new = np.union1d(new, unknown_labels(given, self.classes_))
        if new.shape[0]:
            self._add_classes(new)

    def _add_classes(self, new: np.ndarray) -> None:
        """Take labels new to the model (sorted) after the first training call: here, refuse
        them, naming why."""
        self._refuse_classes(new, self._fixed_classes)

    def _refuse_classes(self, new: np.ndarray, reason: str) -> None:
        raise ValueError("classes must not change between calls to partial_fit: labels not "
                         f"in classes_ {new[:5].tolist()} ({reason})")

    @fill(FIT)
    def fit(self: _Classifier, X: Any, y: Any) -> _Classifier:
        """Train for up to ``max_iter`` epochs; stop after an epoch with no mistake.

        Starts from scratch unless ``warm_start`` is set and the model is fitted, in
        which case training continues from the current state (the classes must match).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training samples, in a form the estimator accepts.
        y : array-like of shape (n_samples,)
            Labels, of any type numpy can sort; at least two classes.

        {returns_fitted}

        Raises
        ------
        ValueError
            If ``X`` or ``y`` is malformed, ``y`` has fewer than two classes, a parameter
            is out of range, or (with ``warm_start``) the classes changed.
        TypeError
            If a parameter or an input has the wrong type.
        """
        self._fit(X, y)
        return self

    @fill(BATCH)
    def partial_fit(self: _Classifier, X: Any, y: Any, classes: Any = None) -> _Classifier:
        """One epoch over this batch, continuing the model's state.

        Parameters
        ----------
        {X_batch}
        {y_classes}

        {returns_batch}

        {raises_batch}
        """
        self._partial_fit(X, y, classes)
        return self


class EpochRegressor(EpochModel):
    """The skeleton for regressors: real-valued targets, ``score`` is R^2."""

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import InputTags, RegressorTags, Tags, TargetTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True),
                    transformer_tags=None, regressor_tags=RegressorTags(),
                    classifier_tags=None, input_tags=InputTags(sparse=True))

    def _fit(self, X: Any, y: Any, sample_weight: Any = None, init: tuple | None = None) -> None:
        spec, Xc, names = self._begin(X, first=True)
        yc = check_targets(y, Xc.shape[0])
        w = check_sample_weight(sample_weight, Xc.shape[0])
        fresh = init is not None or not (self.warm_start and self._is_fitted())
        self._fit_encoded(Xc, yc, w, spec, names, fresh, init)

    def _partial_fit(self, X: Any, y: Any, sample_weight: Any = None) -> None:
        first = not self._is_fitted()
        spec, Xc, names = self._begin(X, first)
        yc = check_targets(y, Xc.shape[0])
        w = check_sample_weight(sample_weight, Xc.shape[0])
        if first:
            self._init_common(Xc.shape[1], self._draw_seed())
            self._init_state(Xc, spec)
            self._set_feature_names(names)
        else:
            self._check_continuation(Xc, spec)
        self._train(Xc, yc, w, spec, 1, None, fitting=False)

    def _validation_score(self, run: Run, X: Any, y: np.ndarray,
                          w: np.ndarray | None) -> float:
        return r2_score(y, run.predict_idx(X), w)

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
        return r2_score(y, self.predict(X), check_sample_weight(sample_weight, y.shape[0]))  # type: ignore[attr-defined]


def r2_score(y: np.ndarray, pred: np.ndarray, w: np.ndarray | None) -> float:
    """1 - sum w (y - pred)^2 / sum w (y - mean_w(y))^2 (1.0 for a constant y predicted
    exactly, 0.0 for a constant y predicted otherwise), as scikit-learn defines it."""
    weights = np.ones_like(y, dtype=np.float64) if w is None else w
    residual = float(np.sum(weights * (y - pred) ** 2))
    total = float(np.sum(weights * (y - np.average(y, weights=weights)) ** 2))
    if total == 0.0:
        return 1.0 if residual == 0.0 else 0.0
    return 1.0 - residual / total
