"""What the kernel models (`KernelPerceptron`, `KernelPassiveAggressiveClassifier`,
`BudgetKernelPerceptron`, `VotedPerceptron`) share above their kernel rows: the kernel input
gate, continuing a fitted model only with the parameters it was trained with,
``decision_function`` from each model's scores, the empty and the restored support set; and,
for the two that take sample weights and a precomputed kernel, ``partial_fit``."""
from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from ._base import EpochClassifier, available_if, labels_of
from ._docs import BATCH, DECISION, fill
from ._kernel_rows import check_fit_params, record_fit_params
from ._params import check_class_weight
from ._validation import PackedBits, check_kernel_input, check_state_array

__all__ = ["KernelClassifier", "WeightedKernelClassifier", "empty_support",
           "restore_support_index"]

_Weighted = TypeVar("_Weighted", bound="WeightedKernelClassifier")


def _precomputed(est: Any) -> bool:
    return isinstance(est.kernel, str) and est.kernel == "precomputed"


def empty_support(kind: str, Xc: Any) -> Any:
    """A support set of no vector, in the form of the training rows Xc: `PackedBits` for the
    conjunction kernel, column indices for "precomputed", float64 rows otherwise."""
    if kind == "conjunction":
        return PackedBits(np.zeros((0, Xc.words.shape[1]), np.uint64), Xc.n_bits)
    if kind == "precomputed":
        return np.zeros(0, dtype=np.int64)
    return np.zeros((0, Xc.shape[1]))


def restore_support_index(arrays: dict, n_sv: int) -> np.ndarray:
    """``support_`` of a model file: n_sv int64 indices >= -1."""
    support = check_state_array(arrays, "support_", (n_sv,), np.int64)
    if n_sv and support.min() < -1:
        raise ValueError("model file: support_ indices must be >= -1")
    return support


class KernelClassifier(EpochClassifier):
    """A kernel model: it predicts with the kernel parameters it was trained with
    (``_fit_param_names``, recorded at every training call) and continues only with those of
    ``_fixed_params`` unchanged; ``_scores`` (n_samples, n_rows) are its decision values."""

    kernel: Any
    n_features_in_: int
    _fit_param_names: tuple[str, ...]
    _fixed_params: tuple[str, ...] = ()  # those a continuing call keeps (): all of them

    def _gate_X(self, X: Any, spec: tuple, fitting: bool) -> Any:
        return check_kernel_input(X, spec[0], None if fitting else self.n_features_in_,
                                  type(self).__name__)

    def _check_continuation(self, Xc: Any, spec: tuple) -> None:
        if spec[0] == "precomputed":
            raise ValueError("warm_start is not available with kernel='precomputed' (the "
                             "Gram between old support vectors and new rows is unknown)")
        check_fit_params(self, self._fixed_params or self._fit_param_names)
        super()._check_continuation(Xc, spec)
        record_fit_params(self)

    def _scores(self, X: Any) -> np.ndarray:
        """The decision values (n_samples, 1 or n_classes) of the rows of X (gated here)."""
        raise NotImplementedError

    def _predict_labels(self, X: Any) -> np.ndarray:
        return labels_of(self._scores(X))

    @fill(DECISION)
    def decision_function(self, X: Any) -> np.ndarray:
        """The decision values of each row.

        f(x) = sum_i alpha_i K(x_i, x) + b over the support vectors; for `VotedPerceptron`,
        the vote margin divided by the total vote, in [-1, 1] (one-vs-rest for more classes).
        With the conjunction kernel the exact models give the float64 nearest to the exact
        value, clipped to the largest finite float64 beyond float64's range.

        Parameters
        ----------
        {X_kernel}

        {returns_decision}

        {raises_predict}
        """
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s


class WeightedKernelClassifier(KernelClassifier):
    """A kernel model with sample and class weights and the "precomputed" kernel."""

    class_weight: Any

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = _precomputed(self)
        return tags

    @available_if(lambda est: not _precomputed(est))
    @fill(BATCH)
    def partial_fit(self: _Weighted, X: Any, y: Any, classes: Any = None,
                    sample_weight: Any = None) -> _Weighted:
        """One epoch over this batch, keeping the support vectors of earlier calls.

        Not available with ``kernel="precomputed"`` (the Gram between old support vectors and
        new rows is unknown).

        Parameters
        ----------
        {X_batch_kernel}
        {y_classes}
        {sample_weight}

        {returns_batch}

        {raises_batch_kernel}
        """
        check_class_weight(self.class_weight, partial=True)
        self._partial_fit(X, y, classes, sample_weight)
        return self
