"""The supervised models on the training skeleton: classifiers (classes, labels, ``predict``,
``fit`` / ``partial_fit``, classes that arrive late) and regressors (``score`` as R^2).

`EpochClassifier` and `EpochRegressor` add to `_base.EpochModel` what a classifier or a
regressor needs; the estimators derive from them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._docs import ESTIMATOR, fill
from .._utils._guard import reads
from .._utils._labels import (
    check_classes,
    check_same_classes,
    check_two_classes,
    encode_labels,
    unknown_labels,
)
from .._utils._validation import check_sample_weight, check_targets, check_y
from ._base import EpochModel
from ._run import Run
from ._training import set_feature_names, start

__all__ = ["EpochClassifier", "EpochRegressor", "first_classes", "fit_labels", "labels_of",
           "r2_score"]


def labels_of(scores: np.ndarray) -> np.ndarray:
    """Class indices from decision scores (n, 1) or (n, K): two classes, 1 where the score is
    > 0; more, the index of the highest score, ties to the lowest."""
    if scores.shape[1] == 1:
        return (scores.reshape(-1) > 0).astype(np.int64)
    return scores.argmax(axis=1)  # (np.argmax's own call costs more than a row's argmax)


def fit_labels(est: Any, y: Any, n: int, fresh: bool) -> np.ndarray:
    """The class index of each of the ``n`` labels of a ``fit`` call; ``classes_`` set from
    them for a ``fresh`` model (at least two), checked against the model's when it goes on
    (``warm_start``)."""
    classes, y_idx = encode_labels(check_y(y, n))
    check_two_classes(classes)
    if fresh:
        est.classes_ = classes
        return y_idx
    check_same_classes(classes, est.classes_)
    return encode_labels(classes, est.classes_)[1][y_idx]  # classes_ may be unsorted


def next_batch(est: Any, Xc: Any, yc: np.ndarray, classes: Any, spec: Any,
               names: np.ndarray | None, first: bool) -> np.ndarray:
    """``partial_fit``'s state and labels: on the first call, the declared ``classes`` and a
    fresh state; after it, the state checked to go on and the batch's labels met
    (``_meet_classes``). Returns the batch's class indices."""
    if first:
        est.classes_ = first_classes(classes)
        start(est, Xc.shape[1], est._draw_seed())
        est._init_state(Xc, spec)
        set_feature_names(est, names)
    else:
        est._check_continuation(Xc, spec)
        est._meet_classes(yc, classes)
    return encode_labels(yc, est.classes_)[1]


def first_classes(classes: Any) -> np.ndarray:
    """The classes of a first ``partial_fit`` call, which must declare them (two at least)."""
    if classes is None:
        raise ValueError("classes must be passed on the first call to partial_fit")
    classes = check_classes(classes)
    check_two_classes(classes)
    return classes


class EpochClassifier(EpochModel):
    """The skeleton for classifiers: labels of any type become class indices, ``classes_``
    is fixed by the first training call, ``score`` is the (weighted) accuracy."""

    _classifier = True

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

    def _is_fitted(self) -> bool:
        return hasattr(self, "classes_")

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

class EpochRegressor(EpochModel):
    """The skeleton for regressors: real-valued targets, ``score`` is R^2."""

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
