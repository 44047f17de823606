"""What the linear models (`Perceptron`, the passive-aggressive estimators) share: their base
`LinearModel`, which predicts (the input gate, w.x + b on row blocks over ``n_jobs`` threads,
``densify`` / ``sparsify``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend
from .._utils._docs import DECISION, ESTIMATOR, fill
from .._utils._rows import all_finite, check_finite_decisions
from .._utils._threads import check_n_jobs, reads, run_shared, stop_point, trains
from .._utils._validation import (
    CSR,
    check_feature_names,
    check_finite,
    check_n_features,
    check_X,
    is_float64,
    plain_rows,
)
from ._base import EpochModel, available_if, labels_of

__all__ = ["decision", "LinearModel"]


# Multiply-adds per block of rows to predict: a few milliseconds, so that Ctrl-C (between
# blocks) and a stopped call (`_threads.stop_point`, between a thread's blocks) act within
# milliseconds whatever the size of the input, on any number of threads.
DECISION_WORK = 1 << 22


def decision_blocks(n: int, n_classes: int, row_len: int) -> list[tuple[int, int]]:
    """[start, stop) blocks of the n rows, about `DECISION_WORK` multiply-adds each."""
    rows = max(1, DECISION_WORK // (max(1, n_classes) * max(1, row_len)))
    return [(a, min(n, a + rows)) for a in range(0, n, rows)]


def decision(X: Any, W: np.ndarray, b: np.ndarray, n_jobs: Any = None) -> np.ndarray:
    """w.x + b of every row of canonical X against every row of W, shape (n, len(W)); the rows
    are cut into blocks of a few milliseconds that ``n_jobs`` threads share (each row's sums
    are the same whatever the blocks and threads)."""
    lin = _backend.linear
    n = X.shape[0]
    out = np.empty((n, W.shape[0]), dtype=np.float64)
    sparse = isinstance(X, CSR)
    row_len = X.indptr[-1] // max(1, n) if sparse else X.shape[1]
    if not sparse and n * max(1, W.shape[0]) * max(1, row_len) <= DECISION_WORK:
        # one block (decision_blocks would make it): run_shared's checks, then the call
        check_n_jobs(n_jobs)
        stop_point()
        lin.decision_dense(X, W, b, out)
        return out
    blocks = decision_blocks(n, W.shape[0], int(row_len))

    def block(i: int) -> None:
        start, stop = blocks[i]
        if sparse:
            p = X.indptr[start:stop + 1]
            lin.decision_csr(X.data[p[0]:p[-1]], X.indices[p[0]:p[-1]], p - p[0], W, b,
                             out[start:stop])
        else:
            lin.decision_dense(X[start:stop], W, b, out[start:stop])

    run_shared(block, len(blocks), n_jobs)
    return out


class LinearModel(EpochModel):
    """coef_ / intercept_ models: the prediction gate, the decision values, scikit-learn's
    ``densify`` / ``sparsify`` (a scipy.sparse ``coef_`` predicts the same) and, for a
    classifier, ``decision_function`` and its labels: binary by the sign of one row,
    otherwise the argmax over the classes (ties to the lowest class index)."""

    coef_: Any
    intercept_: np.ndarray
    n_features_in_: int
    n_jobs: Any
    class_weight: Any

    def _gate_predict(self, X: Any) -> Any:
        self._check_fitted()
        check_feature_names(X, getattr(self, "feature_names_in_", None), type(self).__name__,
                            reset=False)
        # not scanned for NaN / inf: a non-finite entry makes its row's decision non-finite,
        # which _scores catches (one pass over X instead of two)
        Xc = check_X(X, finite=False)
        check_n_features(Xc, self.n_features_in_, type(self).__name__)
        return Xc

    def _gated_scores(self, X: Any) -> np.ndarray:
        """The decision values (n, 1 or n_classes) of X, gated here: rows that are already
        canonical (`plain_rows`, on a model fitted without feature names) skip the
        conversions of `_gate_predict`, which the others take; the checks and errors are the
        same either way."""
        self._check_fitted()
        rows = None if getattr(self, "feature_names_in_", None) is not None else \
            plain_rows(X, self.n_features_in_)
        return self._scores(self._gate_predict(X) if rows is None else rows)

    def _dense_coef(self) -> np.ndarray:
        coef = self.coef_
        if is_float64(coef, 2):  # as trained: the weights as they are (no copy)
            return coef
        if hasattr(coef, "toarray"):
            coef = coef.toarray()
        return np.ascontiguousarray(np.atleast_2d(coef), dtype=np.float64)

    def _scores(self, Xc: Any) -> np.ndarray:
        b = self.intercept_
        out = decision(Xc, self._dense_coef(),
                       b if is_float64(b, 1) else np.ascontiguousarray(b, dtype=np.float64),
                       getattr(self, "n_jobs", None))
        if all_finite(out):
            return out
        if isinstance(Xc, np.ndarray):
            check_finite(Xc, "X")  # NaN or inf in X: say so, rather than "overflow"
        return check_finite_decisions(out, self)

    @fill(ESTIMATOR)
    @trains
    def densify(self) -> Any:
        """Make ``coef_`` a numpy array again (after `sparsify`).

        {returns_self}

        {raises_unfitted}
        """
        self._check_fitted()
        if hasattr(self.coef_, "toarray"):
            self.coef_ = self.coef_.toarray()
        return self

    @fill(ESTIMATOR)
    @trains
    def sparsify(self) -> Any:
        """Store ``coef_`` as a scipy.sparse CSR matrix.

        Worth it when most weights are 0, as after an L1 penalty; predictions are unchanged.
        Needs scipy. Training again makes ``coef_`` dense.

        {returns_self}

        {raises_unfitted}
        ImportError
            If scipy is not installed.
        """
        self._check_fitted()
        import scipy.sparse

        self.coef_ = scipy.sparse.csr_matrix(self._dense_coef())
        return self

    def _predict_idx(self, Xc: Any) -> np.ndarray:
        return labels_of(self._scores(Xc))

    @available_if(lambda est: est._classifier, classwide=True)  # a regressor's: predict
    @fill(DECISION)
    @reads
    def decision_function(self, X: Any) -> np.ndarray:
        """The decision values ``w . x + b`` of each row.

        Parameters
        ----------
        {X_linear}

        {returns_decision}

        {raises_predict_linear}
        """
        s = self._gated_scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def _predict_labels(self, X: Any) -> np.ndarray:
        return labels_of(self._gated_scores(X))
