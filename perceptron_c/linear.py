"""`Perceptron`: the primal perceptron family as a scikit-learn-style estimator.

Plain (CIML ch. 4, Alg. 5), averaged (Alg. 7, lazy), normalized (CS269 lecture, section 2),
binary, K-class argmax (Ohio slides) and one-vs-rest. All training state (weights, averaging
sums, example counter, seed, epoch counter) is plain numpy arrays and numbers on the model,
so it pickles, saves to ``.npz`` and resumes with ``partial_fit`` or ``warm_start``.
"""
import time

import numpy as np

from . import _backend
from ._estimator import (BaseEstimator, ClassifierMixin, PerceptronMixin, draw_seed,
                         epoch_order, report_epoch, state_array)
from ._validation import (CSR, check_classes, check_feature_names, check_X, check_n_features,
                          check_y, encode_labels, take_rows)

__all__ = ["Perceptron"]

_MULTICLASS = ("argmax", "ovr")


def _check_params(est):
    est._check_flags("fit_intercept", "shuffle", "average", "normalize", "early_stopping",
                     "warm_start")
    est._check_ints(max_iter=1, n_iter_no_change=1, verbose=0)
    if est.multiclass not in _MULTICLASS:
        raise ValueError(f"multiclass must be one of {_MULTICLASS}, got {est.multiclass!r}")
    vf = est.validation_fraction
    if isinstance(vf, bool) or not isinstance(vf, (float, int, np.floating)) or not 0 < vf < 1:
        raise ValueError(f"validation_fraction must be a float in (0, 1), got {vf!r}")


def _run_epoch(lin, X, y_signs, y_idx, order, st, joint, fit_intercept, normalize):
    """One epoch over canonical X for every weight row; returns the mistakes."""
    sparse = isinstance(X, CSR)
    head = (X.data, X.indices, X.indptr) if sparse else (X,)
    flags = (fit_intercept, normalize)
    averaged = "u" in st
    if joint:  # K-class argmax: all rows at once
        if averaged:
            fn = lin.multiclass_averaged_epoch_csr if sparse else lin.multiclass_averaged_epoch_dense
            return fn(*head, y_idx, order, st["w"], st["b"], st["u"], st["beta"], st["count"],
                      *flags)
        fn = lin.multiclass_epoch_csr if sparse else lin.multiclass_epoch_dense
        return fn(*head, y_idx, order, st["w"], st["b"], *flags)
    total = 0
    for k in range(st["w"].shape[0]):  # binary (one row) or one-vs-rest (a row per class)
        w, b = st["w"][k], st["b"][k:k + 1]
        if averaged:
            fn = lin.averaged_epoch_csr if sparse else lin.averaged_epoch_dense
            total += fn(*head, y_signs[k], order, w, b, st["u"][k], st["beta"][k:k + 1],
                        st["count"][k:k + 1], *flags)
        else:
            fn = lin.perceptron_epoch_csr if sparse else lin.perceptron_epoch_dense
            total += fn(*head, y_signs[k], order, w, b, *flags)
    return total


def _decision(lin, X, W, b):
    out = np.empty((X.shape[0], W.shape[0]), dtype=np.float64)
    if isinstance(X, CSR):
        lin.decision_csr(X.data, X.indices, X.indptr, W, b, out)
    else:
        lin.decision_dense(X, W, b, out)
    return out


class Perceptron(PerceptronMixin, ClassifierMixin, BaseEstimator):
    """The perceptron, plain, averaged or normalized, for two or more classes.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn a bias b (updated by b += y on a mistake, i.e. a constant feature 1).
    max_iter : int, default=1000
        Maximum number of epochs. Training stops earlier after an epoch with no mistake.
    shuffle : bool, default=True
        Visit the rows in a fresh random order every epoch (drawn from ``random_state``).
    random_state : None, int, numpy Generator or RandomState
        Seed of the per-epoch permutations.
    average : bool, default=False
        Return the average of all weight vectors held during training (CIML Alg. 7).
    normalize : bool, default=False
        Update by y x / ||x|| (||(x, 1)|| with an intercept) instead of y x.
    multiclass : {"argmax", "ovr"}, default="argmax"
        More than two classes: one joint argmax perceptron, or one binary perceptron per
        class against the rest. With two classes both train the binary perceptron.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data (stratified) and stop when validation
        accuracy has not improved for ``n_iter_no_change`` epochs.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=5
    warm_start : bool, default=False
        ``fit`` continues from the current weights (and averaging state) instead of zero.
    verbose : int, default=0
        Print one progress line per epoch to stderr.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of the labels seen; binary problems map ``classes_[1]`` to +1
    n_features_in_ : int
    feature_names_in_ : ndarray of str, only when fitted on a DataFrame-like X
    n_iter_ : int, epochs run by the last ``fit`` (or since the first ``partial_fit``)
    mistakes_ : ndarray of int64, mistakes in each of those epochs (summed over the
        one-vs-rest perceptrons)
    converged_ : bool, True when the last epoch made no mistake
    """

    def __init__(self, fit_intercept=True, max_iter=1000, shuffle=True, random_state=None,
                 average=False, normalize=False, multiclass="argmax", early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=5, warm_start=False, verbose=0):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.normalize = normalize
        self.multiclass = multiclass
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.verbose = verbose

    def _is_fitted(self):
        return hasattr(self, "classes_")

    # ------------------------------------------------------------------ training
    def fit(self, X, y):
        """Train for up to ``max_iter`` epochs; stop after an epoch with no mistake."""
        _check_params(self)
        Xc, yc, names = self._gate_fit(X, y)
        classes, y_idx = encode_labels(yc)
        self._check_two_classes(classes)
        if not (self.warm_start and self._is_fitted()):
            self._init_state(classes, Xc.shape[1], draw_seed(self.random_state))
        else:
            check_n_features(Xc, self.n_features_in_, type(self).__name__)
            self._check_same_classes(classes)
        self._set_names(names)
        val = None
        if self.early_stopping:
            tr, va = self._validation_split(y_idx, len(classes))
            val = (take_rows(Xc, va), y_idx[va])
            Xc, y_idx = take_rows(Xc, tr), y_idx[tr]
        self._train(Xc, y_idx, self.max_iter, val, reset_history=True)
        return self

    def partial_fit(self, X, y, classes=None):
        """One epoch over this batch, continuing the weights and the averaging state.

        ``classes`` (every label the model will ever see) is required on the first call.
        """
        _check_params(self)
        Xc, yc, names = self._gate_fit(X, y, reset=not self._is_fitted())
        if not self._is_fitted():
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            classes = check_classes(classes)
            self._check_two_classes(classes)
            self._init_state(classes, Xc.shape[1], draw_seed(self.random_state))
            self._set_names(names)
        else:
            check_n_features(Xc, self.n_features_in_, type(self).__name__)
            if classes is not None and not np.array_equal(check_classes(classes), self.classes_):
                raise ValueError("classes must not change between calls to partial_fit")
        _, y_idx = encode_labels(yc, self.classes_)
        self._train(Xc, y_idx, 1, None, reset_history=False)
        return self

    def _gate_fit(self, X, y, reset=True):
        names = check_feature_names(X, getattr(self, "feature_names_in_", None),
                                    type(self).__name__, reset=reset)
        Xc = check_X(X)
        yc = check_y(y, Xc.shape[0])
        return Xc, yc, names

    def _set_names(self, names):
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _joint(self, n_classes):
        return n_classes > 2 and self.multiclass == "argmax"

    def _init_state(self, classes, n_features, seed):
        k = len(classes)
        rows = 1 if k == 2 else k
        st = {"w": np.zeros((rows, n_features)), "b": np.zeros(rows)}
        if self.average:
            st["u"] = np.zeros((rows, n_features))
            st["beta"] = np.zeros(rows)
            st["count"] = np.ones(1 if self._joint(k) else rows, dtype=np.int64)
        self._state = st
        self._seed = seed
        self._epochs_seen = 0
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.mistakes_ = np.zeros(0, dtype=np.int64)
        self.n_iter_ = 0
        self.converged_ = False
        self._publish()

    def _validation_split(self, y_idx, n_classes):
        """Hold out round(validation_fraction * n) rows (at least 1) at random, never the
        first row of a class, so every class stays in the training part."""
        n = y_idx.shape[0]
        keep = np.zeros(n, dtype=bool)
        keep[np.unique(y_idx, return_index=True)[1]] = True
        candidates = np.flatnonzero(~keep)
        n_val = min(max(1, int(round(self.validation_fraction * n))), candidates.shape[0])
        if n_val == 0:
            raise ValueError("early_stopping: too few samples to hold out a validation set")
        rng = np.random.default_rng([self._seed, 2**32 - 1])
        va = np.sort(rng.permutation(candidates)[:n_val])
        tr = np.setdiff1d(np.arange(n), va)
        return tr, va

    def _train(self, X, y_idx, epochs, val, reset_history):
        lin = _backend.linear
        st = self._state
        n_classes = len(self.classes_)
        joint = self._joint(n_classes)
        if joint:
            y_signs = None
        elif n_classes == 2:
            y_signs = [np.where(y_idx == 1, 1.0, -1.0)]
        else:
            y_signs = [np.where(y_idx == k, 1.0, -1.0) for k in range(n_classes)]
        history = [] if reset_history else list(self.mistakes_)
        best, stall = -np.inf, 0
        n = X.shape[0]
        for _ in range(epochs):
            tic = time.perf_counter()
            order = epoch_order(self._seed, self._epochs_seen, n, self.shuffle)
            mistakes = _run_epoch(lin, X, y_signs, y_idx, order, st, joint,
                                  self.fit_intercept, self.normalize)
            self._epochs_seen += 1
            history.append(mistakes)
            extra = ""
            stop = mistakes == 0
            if val is not None and not stop:
                self._publish()
                acc = float(np.mean(self._predict_idx(val[0]) == val[1]))
                extra = f", validation accuracy {acc:.4f}"
                if acc > best:
                    best, stall = acc, 0
                else:
                    stall += 1
                    stop = stall >= self.n_iter_no_change
            if self.verbose:
                report_epoch(type(self).__name__, len(history), mistakes, n,
                             time.perf_counter() - tic, extra)
            if stop:
                break
        self.mistakes_ = np.asarray(history, dtype=np.int64)
        self.n_iter_ = len(history)
        self.converged_ = bool(history) and history[-1] == 0
        self._publish()

    def _publish(self):
        """coef_ / intercept_ from the training state (the average when averaging)."""
        st = self._state
        if "u" in st:
            # one counter per weight row (binary, one-vs-rest) or one shared (argmax)
            c = np.broadcast_to(st["count"].astype(np.float64), st["b"].shape)
            self.coef_ = st["w"] - st["u"] / c[:, None]
            self.intercept_ = st["b"] - st["beta"] / c
        else:
            self.coef_ = st["w"].copy()
            self.intercept_ = st["b"].copy()

    # ------------------------------------------------------------------ prediction
    def _gate_predict(self, X):
        self._check_fitted()
        check_feature_names(X, getattr(self, "feature_names_in_", None), type(self).__name__,
                            reset=False)
        Xc = check_X(X)
        check_n_features(Xc, self.n_features_in_, type(self).__name__)
        return Xc

    def _scores(self, Xc):
        return _decision(_backend.linear, Xc, np.ascontiguousarray(self.coef_),
                         np.ascontiguousarray(self.intercept_))

    def _predict_idx(self, Xc):
        s = self._scores(Xc)
        if s.shape[1] == 1:
            return (s[:, 0] > 0).astype(np.int64)
        return np.argmax(s, axis=1)  # first maximum: ties go to the lowest class index

    def decision_function(self, X):
        """w.x + b for each row: shape (n,) for two classes, (n, n_classes) otherwise."""
        s = self._scores(self._gate_predict(X))
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        """The label of each row (binary: ``classes_[1]`` where w.x + b > 0)."""
        idx = self._predict_idx(self._gate_predict(X))
        return self.classes_[idx]

    def top_features(self, k=10):
        """The k most positive and k most negative weights, with feature names.

        Two classes: ``{"positive": [(name, weight), ...], "negative": [...]}`` (positive
        weights speak for ``classes_[1]``). More classes: a dict of those per class label.
        """
        self._check_fitted()
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = np.array([f"x{j}" for j in range(self.n_features_in_)], dtype=object)

        def one(row):
            order = np.argsort(row, kind="stable")
            pos = [(str(names[j]), float(row[j])) for j in order[::-1][:k] if row[j] > 0]
            neg = [(str(names[j]), float(row[j])) for j in order[:k] if row[j] < 0]
            return {"positive": pos, "negative": neg}

        if self.coef_.shape[0] == 1:
            return one(self.coef_[0])
        return {label.item() if hasattr(label, "item") else label: one(row)
                for label, row in zip(self.classes_, self.coef_)}

    # ------------------------------------------------------------------ persistence
    def _state_arrays(self):
        arrays = self._common_state()
        arrays.update({f"state_{key}": value for key, value in self._state.items()})
        if hasattr(self, "feature_names_in_"):
            arrays["feature_names_in_"] = self.feature_names_in_.astype(str)
        return arrays

    @classmethod
    def _from_state(cls, params, arrays):
        est = cls(**params)
        _check_params(est)
        need = {"state_w", "state_b"}
        if est.average:
            need |= {"state_u", "state_beta", "state_count"}
        k, d = est._restore_common_state(arrays, need)
        rows = 1 if k == 2 else k
        shapes = {"w": (rows, d), "b": (rows,), "u": (rows, d), "beta": (rows,),
                  "count": (1 if est._joint(k) else rows,)}
        st = {}
        for key, shape in shapes.items():
            if f"state_{key}" not in arrays:
                continue
            a = state_array(arrays, f"state_{key}", shape,
                            np.int64 if key == "count" else np.float64)
            if key == "count" and np.any(a < 1):
                raise ValueError("model file: state_count must be >= 1")
            st[key] = a
        est._state = st
        if "feature_names_in_" in arrays:
            names = np.asarray(arrays["feature_names_in_"]).astype(object)
            if names.shape != (d,):
                raise ValueError("model file: feature_names_in_ has the wrong length")
            est.feature_names_in_ = names
        est._publish()
        return est
