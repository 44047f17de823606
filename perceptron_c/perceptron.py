"""`Perceptron`: the primal perceptron family as a scikit-learn-style estimator.

Plain ([Daume2017] Alg. 5), averaged (Alg. 7, lazy), normalized ([Vaughan-CS269], section 2),
binary, K-class argmax ([Bunescu-CS4900]) and one-vs-rest. All training state (weights, averaging
sums, example counter, seed, epoch counter) is plain numpy arrays and numbers on the model,
so it pickles, saves to ``.npz`` and resumes with ``partial_fit`` or ``warm_start``.

`Perceptron.fit` and `Perceptron.partial_fit` are the whole training call, step by step
(`_training`'s functions): check the parameters, gate the rows, start or continue the
state, hold out a validation split, build the run (`_LinearRun` here, or scikit-learn's
arithmetic in `_sgd_run`), run the epochs. `_LinearRun.epoch` calls the linear routines.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from . import _backend
from ._estimator._base import OVR_FIXED_CLASSES, STOPPING, EpochModel
from ._estimator._linear_model import LinearModel
from ._estimator._sgd_run import (
    SGDRun,
    SGDSpec,
    check_sgd_counter,
    classifier_run,
    initial_weights,
    publish_sgd,
    set_initial,
    sgd_seed,
    sgd_state,
    warm_restart,
)
from ._estimator._training import (
    Run,
    StateArray,
    entry_names,
    fit_labels,
    gate,
    hold_out,
    model_kept,
    new_state,
    next_batch,
    restore_state,
    start_or_continue,
    train,
    warn_if_not_converged,
)
from ._utils._docs import BATCH, FIT, fill
from ._utils._params import (
    ClassWeight,
    Flag,
    NJobs,
    NoneOr,
    Options,
    Real,
    check_class_weight,
    declared,
    expand_class_weight,
)
from ._utils._rows import check_finite_state
from ._utils._threads import reads, run_parallel, trains
from ._utils._validation import (
    CSR,
    append_labels,
    check_int,
    check_sample_weight,
    check_X,
    check_y,
    column_names,
)

__all__ = ["Perceptron"]

_MULTICLASS = ("auto", "argmax", "ovr")
_PENALTIES = (None, "l2", "l1", "elasticnet")
_NEW_CLASSES = ("error", "append")


class _LinearRun(Run["Perceptron"]):
    """One training call in the textbook's arithmetic: every epoch runs the linear routines
    on the model's state arrays (the one-vs-rest perceptrons on ``n_jobs`` threads)."""

    def __init__(self, est: Perceptron, X: Any, y_idx: np.ndarray,
                 sample_weight: np.ndarray | None, class_weight: np.ndarray) -> None:
        self.est, self.X = est, X
        st = est._state
        n_classes = len(est.classes_)
        self.joint = est._joint(n_classes)
        rows = st["w"].shape[0]
        self.y_idx = y_idx
        self.signs = None if self.joint else [
            np.where(y_idx == (1 if rows == 1 else k), 1.0, -1.0) for k in range(rows)]
        # the step of row i: eta0 * (class weight * sample weight), scikit-learn's product
        sw = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        if self.joint or rows == 1:
            per_row = [class_weight[y_idx] * sw]
        else:  # machine k weighs its positives by class_weight[k], the rest by 1
            per_row = [np.where(y_idx == k, class_weight[k], 1.0) * sw for k in range(rows)]
        plain = sample_weight is None and est.eta0 == 1.0 and np.all(class_weight == 1.0)
        self.weights = None if plain else [est.eta0 * w for w in per_row]
        # a row of weight 0 is a row removed: never visited, so it neither updates, nor
        # counts as a mistake, nor enters the average
        self.keep = None if sample_weight is None or np.all(sample_weight != 0) \
            else sample_weight != 0

    def _weight(self, k: int) -> np.ndarray | None:
        return None if self.weights is None else self.weights[min(k, len(self.weights) - 1)]

    def epoch(self, order: np.ndarray) -> int:
        lin, st, X = _backend.linear, self.est._state, self.X
        if self.keep is not None:
            order = np.ascontiguousarray(order[self.keep[order]])
        fi, nz = self.est.fit_intercept, self.est.normalize
        averaged = "u" in st
        # one explicit call per (sparse, routine): a type checker checks each against its twin
        if self.joint:  # K-class argmax: all rows at once
            y, sw = self.y_idx, self._weight(0)
            W, b = st["w"], st["b"]
            if averaged:
                U, beta, count = st["u"], st["beta"], st["count"]
                if isinstance(X, CSR):
                    total = lin.multiclass_averaged_epoch_csr(
                        X.data, X.indices, X.indptr, y, order, W, b, U, beta, count, fi, nz,
                        sample_weight=sw)
                else:
                    total = lin.multiclass_averaged_epoch_dense(
                        X, y, order, W, b, U, beta, count, fi, nz, sample_weight=sw)
            elif isinstance(X, CSR):
                total = lin.multiclass_epoch_csr(X.data, X.indices, X.indptr, y, order, W, b,
                                                 fi, nz, sample_weight=sw)
            else:
                total = lin.multiclass_epoch_dense(X, y, order, W, b, fi, nz, sample_weight=sw)
            check_finite_state(*st.values())
            st["t"] += order.shape[0]
            return int(total)
        signs_per_row = self.signs
        assert signs_per_row is not None  # set whenever the model is not joint

        def machine(k: int) -> int:  # binary (one row) or one-vs-rest
            w, b, signs, sw = st["w"][k], st["b"][k:k + 1], signs_per_row[k], self._weight(k)
            if averaged:
                u, beta, count = st["u"][k], st["beta"][k:k + 1], st["count"][k:k + 1]
                if isinstance(X, CSR):
                    return int(lin.averaged_epoch_csr(X.data, X.indices, X.indptr, signs,
                                                      order, w, b, u, beta, count, fi, nz,
                                                      sample_weight=sw))
                return int(lin.averaged_epoch_dense(X, signs, order, w, b, u, beta, count, fi,
                                                    nz, sample_weight=sw))
            if isinstance(X, CSR):
                return int(lin.perceptron_epoch_csr(X.data, X.indices, X.indptr, signs, order,
                                                    w, b, fi, nz, sample_weight=sw))
            return int(lin.perceptron_epoch_dense(X, signs, order, w, b, fi, nz,
                                                  sample_weight=sw))

        total = sum(run_parallel([partial(machine, k) for k in range(len(signs_per_row))],
                                 self.est.n_jobs))
        check_finite_state(*st.values())
        st["t"] += order.shape[0]
        return total

    def arrays(self) -> list[np.ndarray]:
        return list(self.est._state.values())

    def predict_idx(self, X: Any) -> np.ndarray:
        self.est._publish()
        return self.est._predict_idx(X)

    def finish(self, credit_epochs: int) -> None:
        pass


class Perceptron(LinearModel):
    """The perceptron, plain, averaged or normalized, for two or more classes.

    Every parameter of scikit-learn's ``Perceptron`` is here with its meaning, plus
    ``average``, ``normalize`` and ``multiclass``. Two arithmetics:

    - the textbook's (``tol=None`` and ``penalty=None``, the default): w += eta0 * y * x on a
      mistake, averaged ([Daume2017] Alg. 7) or normalized updates, K-class argmax, and training
      stops after an epoch without a mistake;
    - scikit-learn's SGD (``tol`` or ``penalty`` set): the same updates computed as
      scikit-learn 1.8 and 1.9 compute them (bit for bit on float64 data), with its penalty,
      its ``tol`` stopping rule, one-vs-rest for K classes, ASGD averaging and its shuffle for
      a given integer ``random_state``. ``normalize`` and ``multiclass="argmax"`` do not exist
      there. (scikit-learn 1.6 and 1.7 stop on the loss without the penalty: with ``tol`` and
      a penalty both set, they may stop after another epoch.)

    Parameters are keyword-only.

    Parameters
    ----------
    penalty : {None, "l2", "l1", "elasticnet"}, default=None
        Regularization, applied at every example as scikit-learn's SGD does (scaling of the
        weights for L2, cumulative truncation for L1). Selects scikit-learn's arithmetic.
    alpha : float, default=0.0001
        Strength of the penalty.
    l1_ratio : float in [0, 1], default=0.15
        The L1 share of the elastic-net penalty.
    fit_intercept : bool, default=True
        Learn a bias b (updated by b += eta0 * y on a mistake, i.e. a constant feature 1).
    max_iter : int, default=1000
        Maximum number of epochs.
    tol : float or None, default=None
        None: stop after an epoch with no mistake (the textbook). A number: scikit-learn's
        rule, stop when the epoch's mean loss has not improved by tol for
        ``n_iter_no_change`` epochs in a row (its default is 1e-3).
    shuffle : bool, default=True
        Visit the rows in a fresh random order every epoch (drawn from ``random_state``).
    verbose : int, default=0
        Print one progress line per epoch to stderr.
    eta0 : float, default=1.0
        The step: updates are multiplied by it.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest perceptrons and for prediction (None: 1, -1: every
        core). Results do not depend on it.
    random_state : None, int, numpy Generator or RandomState, default=0
        Seed of the per-epoch permutations and of the validation split.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data (stratified) and stop when validation
        accuracy has not improved (by ``tol``, in scikit-learn's arithmetic) for
        ``n_iter_no_change`` epochs.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=5
    class_weight : dict, "balanced" or None, default=None
        Multiply the updates of class c's examples by class_weight[c] ("balanced": n /
        (n_classes * count of c)). One-vs-rest: perceptron k weighs class k's examples.
    warm_start : bool, default=False
        ``fit`` continues from the current weights instead of zero.
    average : bool, default=False
        Return the average of all weight vectors held during training.
    normalize : bool, default=False
        Update by y x / ||x|| (||(x, 1)|| with an intercept) instead of y x (textbook only).
    multiclass : {"auto", "argmax", "ovr"}, default="auto"
        More than two classes: one joint argmax perceptron ("auto" in the textbook's
        arithmetic), or one binary perceptron per class against the rest ("auto" in
        scikit-learn's).
    new_classes : {"error", "append"}, default="error"
        What ``partial_fit`` does with labels the model has not got after its first call:
        refuse them (scikit-learn's rule), or, with "append", add each at the end of
        ``classes_`` (in sorted order within a call) with a zero weight row, the row the
        joint argmax perceptron trained on every class from the start would have held (see
        the guide's "Classes that arrive late"). A binary model's weight vector w becomes
        the rows (-w/2, w/2), which decide every example as w did. "append" needs the joint
        argmax perceptron (``multiclass`` "argmax" or "auto", ``tol=None``,
        ``penalty=None``); one-vs-rest cannot grow. ``fit`` and ``warm_start`` are
        unchanged: ``fit`` takes its classes from ``y``, and the number of features stays
        fixed.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of the labels seen; binary problems map ``classes_[1]`` to +1
        (sorted; with ``new_classes="append"``, later labels follow in order of arrival)
    n_features_in_ : int
    feature_names_in_ : ndarray of str, only when fitted on a DataFrame-like X
    n_iter_ : int, epochs run by the last ``fit`` (or since the first ``partial_fit``)
    t_ : float, 1 + the examples visited (scikit-learn's count of updates)
    mistakes_ : ndarray of int64, mistakes in each of those epochs (summed over the
        one-vs-rest perceptrons)
    converged_ : bool, True when the last epoch made no mistake
    """

    _has_early_stopping = True
    _parameter_constraints = declared(
        EpochModel, **STOPPING, average=Flag(), normalize=Flag(),
        multiclass=Options(_MULTICLASS), new_classes=Options(_NEW_CLASSES),
        penalty=NoneOr(Options(_PENALTIES[1:])), n_jobs=NJobs(), class_weight=ClassWeight(),
        eta0=Real(0.0, low_open=True), alpha=Real(0.0),
        l1_ratio=Real(0.0, 1.0))
    # w, b, t and, when averaging, u, beta, count (textbook) or aw, ab (scikit-learn's)
    _state: dict[str, np.ndarray]

    # parameters of this class only: stored by _keep_params, declared for mypy
    penalty: str | None
    alpha: float
    l1_ratio: float
    tol: float | None
    eta0: float
    average: bool
    normalize: bool
    multiclass: str
    new_classes: str

    def __init__(self, *, penalty: str | None = None, alpha: float = 0.0001,
                 l1_ratio: float = 0.15, fit_intercept: bool = True, max_iter: int = 1000,
                 tol: float | None = None, shuffle: bool = True, verbose: int = 0,
                 eta0: float = 1.0, n_jobs: int | None = None, random_state: Any = 0,
                 early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5, class_weight: Any = None,
                 warm_start: bool = False, average: bool = False, normalize: bool = False,
                 multiclass: str = "auto", new_classes: str = "error") -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ training
    @trains
    @fill(FIT)
    def fit(self, X: Any, y: Any, coef_init: Any = None, intercept_init: Any = None,
            sample_weight: Any = None) -> Perceptron:
        """Train for up to ``max_iter`` epochs.

        From ``coef_init`` / ``intercept_init`` when given; from the current weights with
        ``warm_start``; else from zero. Each example's update is multiplied by ``eta0``, its
        class weight and its ``sample_weight``.

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

    @trains
    @fill(BATCH)
    def partial_fit(self, X: Any, y: Any, classes: Any = None,
                    sample_weight: Any = None) -> Perceptron:
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
    def _sgd_mode(self) -> bool:
        """scikit-learn's arithmetic (``tol`` or ``penalty`` set) rather than the textbook's."""
        return self.tol is not None or self.penalty is not None

    def _sklearn_stopping(self) -> bool:
        return self._sgd_mode()

    def _draw_seed(self) -> int:
        return sgd_seed(self)

    def _checked_spec(self) -> SGDSpec | None:
        eta0, alpha, l1_ratio = float(self.eta0), float(self.alpha), float(self.l1_ratio)
        if self.new_classes == "append" and (self._sgd_mode() or self.multiclass == "ovr"):
            raise ValueError("new_classes='append' needs the joint K-class perceptron "
                             "(multiclass='argmax' or 'auto', tol=None, penalty=None): "
                             + OVR_FIXED_CLASSES)
        if not self._sgd_mode():
            return None
        if self.normalize:
            raise ValueError("normalize=True is the textbook's update: it needs tol=None and "
                             "penalty=None")
        if self.multiclass == "argmax":
            raise ValueError("multiclass='argmax' is the textbook's K-class perceptron: it "
                             "needs tol=None and penalty=None (scikit-learn's arithmetic "
                             "trains one-vs-rest)")
        sgd = _backend.sgd
        penalty = {None: sgd.PENALTY_NONE, "l2": sgd.PENALTY_L2, "l1": sgd.PENALTY_L1,
                   "elasticnet": sgd.PENALTY_ELASTICNET}[self.penalty]
        return SGDSpec(loss=sgd.LOSS_HINGE, learning_rate=sgd.RATE_CONSTANT, penalty=penalty,
                       alpha=alpha, l1_ratio=l1_ratio, eta0=eta0, epsilon_or_threshold=0.0,
                       average_start=1 if self.average else 0)

    def _gate_X(self, X: Any, spec: Any, fitting: bool) -> Any:
        return check_X(X)

    def _joint(self, n_classes: int) -> bool:
        return n_classes > 2 and self.multiclass in ("argmax", "auto") and not self._sgd_mode()

    _fixed_classes = "with new_classes='append', labels are added, never left out"

    def _add_classes(self, new: np.ndarray) -> None:
        """Append the labels ``new`` to ``classes_``, each with the zero rows of weights and
        averaging sums the joint perceptron declared with every class holds for a class it
        has not met (the averaging clock is shared: unchanged); a binary model's one row w
        first becomes (-w/2, w/2), exactly (halving and negation do not round)."""
        if self.new_classes != "append":
            self._refuse_classes(new, OVR_FIXED_CLASSES if self._sgd_mode() or
                                 self.multiclass == "ovr" else
                                 "pass new_classes='append' to add them")
        classes = append_labels(self.classes_, new)
        st = self._state
        rows = [a for a in self._declared_state(None) if a.shape[0] == "rows"]
        if len(self.classes_) == 2:  # the one row scores classes_[1] against classes_[0]
            for a in rows:
                st[a.name] = np.concatenate([-0.5 * st[a.name], 0.5 * st[a.name]])
        for a in rows:
            pad = np.full((new.shape[0],) + st[a.name].shape[1:], a.initial, dtype=a.dtype)
            st[a.name] = np.concatenate([st[a.name], pad])
        self.classes_ = classes
        self._publish()

    def _init_state(self, Xc: Any, spec: SGDSpec | None) -> None:
        sizes = self._state_sizes(len(self.classes_), Xc.shape[1])
        self._state = new_state(self._declared_state(spec), sizes)
        self._publish()

    def _check_continuation(self, Xc: Any, spec: SGDSpec | None) -> None:
        super()._check_continuation(Xc, spec)
        if ("aw" in self._state) != (spec is not None and bool(self.average)) or \
                ("u" in self._state) != (spec is None and bool(self.average)):
            raise ValueError("the model was trained with other tol / penalty / average "
                             "parameters: its state cannot continue with these (fit again "
                             "without warm_start)")

    def _warm_restart(self) -> None:
        if self._sgd_mode():
            warm_restart(self._state, self.coef_, self.intercept_)

    def _set_initial(self, coef_init: Any, intercept_init: Any) -> None:
        set_initial(self._state, coef_init, intercept_init)
        self._publish()

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: SGDSpec | None) -> _LinearRun | SGDRun:
        cw = expand_class_weight(self.class_weight, self.classes_, y_idx,
                                 later=self.new_classes == "append")
        if spec is not None:
            return classifier_run(self, Xc, y_idx, sample_weight, spec, cw)
        return _LinearRun(self, Xc, y_idx, sample_weight, cw)

    def _publish(self) -> None:
        """coef_ / intercept_ from the training state (the average when averaging)."""
        st = self._state
        self.t_ = float(st["t"][0])
        if "aw" in st or "u" not in st:
            self.coef_, self.intercept_ = publish_sgd(st, 1 if self.average else 0)
            return
        # one counter per weight row (binary, one-vs-rest) or one shared (argmax)
        c = np.broadcast_to(st["count"].astype(np.float64), st["b"].shape)
        self.coef_ = st["w"] - st["u"] / c[:, None]
        self.intercept_ = st["b"] - st["beta"] / c

    @reads
    def top_features(self, k: int = 10, feature_names: Any = None) -> dict:
        """The k most positive and k most negative weights, with feature names.

        Parameters
        ----------
        k : int, default=10
            How many of each sign (fewer when fewer weights have that sign).
        feature_names : array-like of str of shape (n_features,) or transformer, default=None
            The name of each column: a list or array (a vectorizer's
            ``get_feature_names_out()``), or the fitted transformer itself (its
            ``get_feature_names_out()`` is called). None: ``feature_names_in_`` when the
            model was fitted on a DataFrame, else ``x0``, ``x1``, ...

        Returns
        -------
        dict
            Two classes: ``{"positive": [(name, weight), ...], "negative": [...]}`` (positive
            weights speak for ``classes_[1]``), largest magnitude first. More classes: such a dict
            per class label.

        Raises
        ------
        NotFittedError
            If the estimator has not been fitted.
        ValueError
            If ``k`` is not an integer >= 1, or ``feature_names`` does not hold one name per
            feature.
        """
        self._check_fitted()
        check_int(k, "k", 1)
        names = column_names(self, feature_names)

        def one(row: np.ndarray) -> dict:
            order = np.argsort(row, kind="stable")
            pos = [(str(names[j]), float(row[j])) for j in order[::-1][:k] if row[j] > 0]
            neg = [(str(names[j]), float(row[j])) for j in order[:k] if row[j] < 0]
            return {"positive": pos, "negative": neg}

        coef = self._dense_coef()
        if coef.shape[0] == 1:
            return one(coef[0])
        return {label.item() if hasattr(label, "item") else label: one(row)
                for label, row in zip(self.classes_, coef)}

    # ------------------------------------------------------------------ persistence
    def _declared_state(self, spec: SGDSpec | None) -> tuple[StateArray, ...]:
        """The weights, intercepts and example counter; averaged, scikit-learn's averages
        (``spec``) or the sums and clock of [Daume2017] Alg. 7 (one clock for the joint
        K-class perceptron, one per machine of one-vs-rest)."""
        if spec is not None or not self.average:
            return sgd_state(spec is not None and bool(self.average))
        return sgd_state(False) + (StateArray("u", ("rows", "d"), mixing="sum"),
                                   StateArray("beta", ("rows",), mixing="sum"),
                                   StateArray("count", ("clocks",), np.int64, "clock", 1))

    def _state_sizes(self, k: int, d: int) -> dict[str, int]:
        rows = 1 if k == 2 else k
        return {"rows": rows, "d": d, "clocks": 1 if self._joint(k) else rows}

    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> Perceptron:
        est = cls(**params)
        declared = est._declared_state(est._spec())
        need = entry_names(declared)
        k, d = est._restore_common_state(arrays, need)
        st = check_sgd_counter(restore_state(arrays, declared, est._state_sizes(k, d)))
        if "count" in st and (np.any(st["count"] < 1) or np.any(st["count"] > 2**62)):
            raise ValueError("model file: state_count must lie in [1, 2^62]")
        est._state = st
        est._publish()
        return est
