"""What the kernel models (`KernelPerceptron`, `KernelPassiveAggressiveClassifier`,
`BudgetKernelPerceptron`, `VotedPerceptron`) share above their kernel rows: the kernel input
gate, continuing a fitted model only with the parameters it was trained with, the support set
and its coefficients (empty, published, saved and restored), the dual perceptron's decision
values and ``decision_function``; and their ``fit`` and ``partial_fit``, written out once
(`fit_kernel_model`, `partial_fit_kernel_model`), which each model's own ``fit`` calls with
its sample weights or none."""
from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from .. import _backend
from .._estimator._base import EpochModel, available_if, labels_of
from .._estimator._training import (
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
from .._utils._docs import BATCH, DECISION, FIT, fill
from .._utils._params import Integer, NJobs, check_class_weight, declared
from .._utils._rows import all_finite, check_finite_decisions
from .._utils._threads import reads, trains
from .._utils._validation import (
    PackedBits,
    check_kernel_input,
    check_sample_weight,
    check_y,
    plain_rows,
)
from . import RBF, KernelSpec
from ._rows import (
    KERNEL_RULES,
    check_fit_params,
    fit_params,
    fit_params_from_state,
    fit_params_state,
    fitted_kernel,
    record_fit_params,
    row_blocks_run,
)

__all__ = ["KernelClassifier", "WeightedKernelClassifier", "PredictTables", "empty_support",
           "coefficient_state", "support_vector_state", "averaging_state", "fit_kernel_model",
           "partial_fit_kernel_model"]

_Kernel = TypeVar("_Kernel", bound="KernelClassifier")
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


# The saved state of a kernel model, declared (`_state.StateArray`) over the sizes "rows"
# (coefficient rows: 1 for two classes), "n_sv" (support vectors: grows as it trains), "d"
# (features) and "words" (a conjunction model's 64-bit words per vector). The declared
# order is the model file's order.

def coefficient_state(dtype: Any) -> tuple[StateArray, ...]:
    """``support_`` (the training rows of the support vectors, -1 for those of an earlier
    call), ``alpha`` (one coefficient per vector and row) and ``b``: int64 for the exact
    conjunction sums, float64 otherwise."""
    return (StateArray("support_", ("n_sv",), np.int64, "none"),
            StateArray("alpha", ("rows", "n_sv"), dtype),
            StateArray("b", ("rows",), dtype))


def support_vector_state(kind: str) -> StateArray:
    """The stored support vectors: packed bits (``sv_words``), precomputed column indices
    or float rows (``sv``)."""
    if kind == "conjunction":
        return StateArray("sv_words", ("n_sv", "words"), np.uint64, "none")
    if kind == "precomputed":
        return StateArray("sv", ("n_sv",), np.int64, "none")
    return StateArray("sv", ("n_sv", "d"), np.float64, "none")


def averaging_state(dtype: Any, average: bool) -> tuple[StateArray, ...]:
    """With ``average``, [Daume2017] Alg. 7's sums ``u``, ``beta`` and their clock ``count``
    (1 at the start)."""
    if not average:
        return ()
    return (StateArray("u", ("rows", "n_sv"), dtype, "sum"),
            StateArray("beta", ("rows",), dtype, "sum"),
            StateArray("count", (1,), np.int64, "clock", initial=1))


class PredictTables:
    """What prediction reads of a fitted kernel model, prepared when the model is published
    (trained, loaded, changed), never per call: the kernel it was trained with, the support
    vectors with their squared norms (the RBF kernel's), and the coefficients as the
    routines take them; ``extra``, what else a model's prediction reads (`VotedPerceptron`'s
    votes). ``sources`` are the objects they were built from: a model whose arrays or
    record of fit parameters have been replaced since builds them again (`follows`)."""

    __slots__ = ("sources", "kind", "kern", "sv", "sv_norms", "coef", "bias", "divisor",
                 "extra")

    def __init__(self, sources: tuple, kind: str, kern: Any, sv: Any) -> None:
        self.sources, self.kind, self.kern, self.sv = sources, kind, kern, sv
        rbf = kind == "float" and isinstance(kern, RBF) and sv.shape[0] > 0
        self.sv_norms = _backend.gram.row_sqnorms(sv) if rbf else None
        self.coef: Any = None
        self.bias: Any = None
        self.divisor = 1
        self.extra: Any = None

    def follows(self, sources: tuple) -> bool:
        """Whether the tables were built from exactly these objects."""
        return len(sources) == len(self.sources) and \
            all(a is b for a, b in zip(sources, self.sources))


def float_rows(est: Any, X: Any, kind: str, kern: Any) -> Any:
    """Canonical rows to predict: `plain_rows` of finite values as they are (float64;
    float32 converted, as the gate converts it), anything else through the model's gate,
    which raises what this lets through."""
    if kind == "float" or kind == "precomputed":
        rows = plain_rows(X, est.n_features_in_)
        if rows is not None and all_finite(rows):
            return rows if rows.dtype == np.float64 else rows.astype(np.float64)
    return est._gate_X(X, KernelSpec(kind, kern), fitting=False)


def fit_kernel_model(est: _Kernel, X: Any, y: Any, sample_weight: Any) -> _Kernel:
    """A kernel model's ``fit``, step by step as `Perceptron.fit`: its rows through its own
    kernel gate (``_gate_X``, which knows "precomputed" and packed bits)."""
    with model_kept(est):  # an error or Ctrl-C before an epoch ends: the model before
        spec = est._spec()
        X, names = gate(est, X, lambda rows: est._gate_X(rows, spec, fitting=True), first=True)
        fresh = not (est.warm_start and est._is_fitted())
        y_idx = fit_labels(est, y, X.shape[0], fresh)
        w = check_sample_weight(sample_weight, X.shape[0])
        start_or_continue(est, X, spec, fresh, names)
        X, y_idx, w, val = hold_out(est, X, y_idx, w)
        train(est, est._start(X, y_idx, w, spec), X.shape[0], est.max_iter, val, fitting=True)
    warn_if_not_converged(est)
    return est


def partial_fit_kernel_model(est: _Kernel, X: Any, y: Any, classes: Any,
                             sample_weight: Any) -> _Kernel:
    """A kernel model's ``partial_fit``: one epoch over the batch, as `Perceptron.partial_fit`."""
    with model_kept(est):
        first = not est._is_fitted()
        spec = est._spec()
        X, names = gate(est, X, lambda rows: est._gate_X(rows, spec, fitting=True), first)
        yc = check_y(y, X.shape[0])
        w = check_sample_weight(sample_weight, X.shape[0])
        y_idx = next_batch(est, X, yc, classes, spec, names, first)
        train(est, est._start(X, y_idx, w, spec), X.shape[0], 1, None, fitting=False)
    return est


def _attribute(name: str) -> str:
    """The model's attribute holding a declared array (the support vectors: ``_sv``)."""
    if name.startswith("sv"):
        return "_sv"
    return name if name.endswith("_") else f"_{name}"


class KernelClassifier(EpochModel):
    """A kernel model: it predicts with the kernel parameters it was trained with
    (``_fit_param_names``, recorded at every training call) and continues only with those of
    ``_fixed_params`` unchanged; ``_scores`` (n_samples, n_rows) are its decision values,
    by default the dual perceptron's: sum_i alpha_i K(x_i, x) + b over the support set
    ``_sv``, averaged when trained with ``average``, exact with `_is_exact`."""

    _parameter_constraints = declared(EpochModel, max_gram_bytes=Integer(1),
                                      n_jobs=NJobs(), **KERNEL_RULES)
    _fixed_classes = ("a kernel model's coefficients, cached training scores and saved "
                      "state are laid out for the classes of its first call: declare every "
                      "class on the first call")

    kernel: Any
    degree: Any
    gamma: Any
    coef0: Any
    average: bool  # the models that average (declared, not assigned: see _base)
    max_gram_bytes: int
    n_jobs: Any
    n_features_in_: int
    _fit_param_names: tuple[str, ...]
    _fit_params: dict[str, Any]
    _fixed_params: tuple[str, ...] = ()  # those a continuing call keeps (): all of them
    # the support set (rows, PackedBits or column indices) and its coefficients: int64 for
    # the exact conjunction sums, float64 otherwise; the averaging sums with ``average``
    _kind: str
    _sv: Any
    _alpha: np.ndarray
    _b: np.ndarray
    _u: Any
    _beta: Any
    _count: Any
    support_: np.ndarray

    @fill(FIT)
    @trains
    def fit(self: _Kernel, X: Any, y: Any) -> _Kernel:
        """Train for up to ``max_iter`` epochs; stop after an epoch with no mistake.

        Starts from scratch unless ``warm_start`` is set and the model is fitted, in
        which case training continues from the current state (the classes must match).

        Parameters
        ----------
        X : array-like, sparse matrix or PackedBits of shape (n_samples, n_features)
            Training samples (0/1 rows or `PackedBits` for the conjunction kernel).
        {y_labels}

        {fit_ends}
        """
        return fit_kernel_model(self, X, y, None)

    @fill(BATCH)
    @trains
    def partial_fit(self: _Kernel, X: Any, y: Any, classes: Any = None) -> _Kernel:
        """One epoch over this batch, continuing the model's state.

        Parameters
        ----------
        {X_batch_kernel}
        {y_classes}

        {returns_batch}

        {raises_batch_kernel}
        """
        return partial_fit_kernel_model(self, X, y, classes, None)

    def _averaged(self) -> bool:
        """Whether the model was trained with ``average`` (its state holds the sums)."""
        return bool(fit_params(self).get("average", False))

    def _is_exact(self) -> bool:
        """Whether the decisions are exact integer sums (the conjunction kernel's)."""
        return False

    def _empty_coefficients(self, rows: int, dtype: Any) -> None:
        """No support vector yet: ``rows`` coefficient rows, the averaging sums with
        ``average`` (and none left from an earlier fit without it)."""
        for name in ("_u", "_beta", "_count"):  # a refit may change average
            self.__dict__.pop(name, None)
        declared = (*coefficient_state(dtype), *averaging_state(dtype, self.average))
        for name, value in new_state(declared, {"rows": rows, "n_sv": 0}).items():
            setattr(self, _attribute(name), value)

    def _declared_state(self, kind: str, dtype: Any, average: bool) -> tuple[StateArray, ...]:
        """The state a model file holds besides the common part, in its order: the support
        set's indices and coefficients, the vectors, the averaging sums."""
        return (*coefficient_state(dtype), support_vector_state(kind),
                *averaging_state(dtype, average))

    def _publish(self) -> None:
        """dual_coef_, intercept_ (averaged with ``average``) and the support vectors."""
        if self._averaged():
            c = float(self._count[0])
            self.dual_coef_ = self._alpha - self._u / c
            self.intercept_ = self._b - self._beta / c
        else:
            self.dual_coef_ = self._alpha.astype(np.float64)
            self.intercept_ = self._b.astype(np.float64)
        self.n_support_ = int(self._alpha.shape[1])
        self.support_vectors_ = None if self._kind == "precomputed" else self._sv
        self._prepare_tables()

    def _table_sources(self) -> tuple:
        """The objects the prediction tables are built from (`PredictTables.follows`)."""
        d = self.__dict__
        if self._is_exact():
            return (d.get("_fit_params"), self._sv, self._alpha, self._b, d.get("_u"),
                    d.get("_beta"), d.get("_count"))
        return (d.get("_fit_params"), self._sv, self.dual_coef_, self.intercept_)

    def _prepare_tables(self) -> PredictTables:
        """Build the prediction tables of the model as it is, and publish them whole."""
        kind, kern = fitted_kernel(self)
        tables = PredictTables(self._table_sources(), kind, kern, self._sv)
        if self._is_exact():
            coef, bias, tables.divisor = self._exact_coefs()
            tables.coef, tables.bias = np.ascontiguousarray(coef), np.ascontiguousarray(bias)
            _backend.conjunction.conjunction_decision  # noqa: B018 (loaded now, not at a call)
        else:
            tables.coef = np.ascontiguousarray(self.dual_coef_, dtype=np.float64)
            tables.bias = np.ascontiguousarray(self.intercept_, dtype=np.float64)
            _backend.linear.decision_dense  # noqa: B018 (loaded now, not at a call)
        self._predict_tables = tables
        return tables

    def _tables(self) -> PredictTables:
        """The prediction tables, built again if the model changed since (or was pickled
        without them, or before its fit parameters were recorded: then at every call)."""
        tables = self.__dict__.get("_predict_tables")
        if tables is None or tables.sources[0] is None or \
                not tables.follows(self._table_sources()):
            tables = self._prepare_tables()
        return tables

    def _gate_X(self, X: Any, spec: KernelSpec, fitting: bool) -> Any:
        return check_kernel_input(X, spec.kind, None if fitting else self.n_features_in_,
                                  type(self).__name__)

    def _check_continuation(self, Xc: Any, spec: KernelSpec) -> None:
        if spec.kind == "precomputed":
            raise ValueError("warm_start is not available with kernel='precomputed' (the "
                             "Gram between old support vectors and new rows is unknown)")
        check_fit_params(self, self._fixed_params or self._fit_param_names)
        self._check_growth()
        super()._check_continuation(Xc, spec)
        record_fit_params(self)

    def _check_growth(self) -> None:
        """Before a continuing call, once the kept parameters are: what else the state needs
        of the parameters that may change."""

    def _exact_coefs(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Integer coefficients and bias whose sums have the decision's sign, and the divisor."""
        if self._averaged():
            c = int(self._count[0])
            return c * self._alpha - self._u, c * self._b - self._beta, c
        return self._alpha, self._b, 1

    def _scores(self, X: Any) -> np.ndarray:
        """The decision values (n_samples, 1 or n_classes) of the rows of X (gated here)."""
        return self._dual_scores(X)

    def _dual_scores(self, X: Any, argmax: bool = False) -> np.ndarray:
        """The dual perceptron's decision values of the rows of X, or with ``argmax`` the
        class indices of a K-class exact model; the rows in blocks on n_jobs threads
        (`kernels._rows.row_blocks_run`), with the tables prepared at publication."""
        self._check_fitted()
        self._validate_params("max_gram_bytes", "n_jobs")
        t = self._tables()  # the kernel it was trained with, never the parameters set since
        kind, kern = t.kind, t.kern
        Xc = float_rows(self, X, kind, kern)
        m, rows_k = Xc.shape[0], self._alpha.shape[0]
        out = np.zeros((m, rows_k)) if not argmax else np.zeros(m, dtype=np.int64)
        if self.n_support_ == 0:
            out[:] = int(np.argmax(self.intercept_)) if argmax else self.intercept_
            return out
        coef, bias = t.coef, t.bias
        if self._is_exact():
            conj = _backend.conjunction
            fn = conj.conjunction_argmax if argmax else conj.conjunction_decision

            def exact(s: int, e: int, E: np.ndarray) -> None:
                fn(E, coef, bias, out[s:e])
            row_blocks_run(kern, kind, Xc, t.sv, self.max_gram_bytes, self.n_jobs, exact)
            return out if argmax else out / t.divisor
        lin = _backend.linear  # the decision as Perceptron's: 4-lane sums, no BLAS

        def decide(s: int, e: int, K: np.ndarray) -> None:
            if kind == "conjunction":  # exponents, float coefficients: 2^e may overflow
                with np.errstate(over="ignore"):  # checked just below
                    K = np.ldexp(1.0, K)
            lin.decision_dense(K, coef, bias, out[s:e])
        columns = None if kind != "precomputed" else \
            (lambda rows, sv: np.ascontiguousarray(rows[:, sv], dtype=np.float64))
        row_blocks_run(kern, kind, Xc, t.sv, self.max_gram_bytes, self.n_jobs, decide,
                       columns, t.sv_norms)
        if not all_finite(out):
            check_finite_decisions(out, self)
        return out.argmax(axis=1) if argmax else out

    def _predict_labels(self, X: Any) -> np.ndarray:
        self._check_fitted()
        if self._is_exact() and self._alpha.shape[0] > 1:
            return self._dual_scores(X, argmax=True)
        return labels_of(self._scores(X))

    @fill(DECISION)
    @reads
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


    def _state_arrays(self) -> dict:
        """The saved state: the common part, the declared arrays (`_declared_state`) and the
        parameters the model was trained with."""
        arrays = self._common_state()
        average = getattr(self, "_u", None) is not None  # trained with average
        arrays.update(self._saved(self._declared_state(self._kind, self._alpha.dtype, average)))
        arrays.update(fit_params_state(self))
        return arrays

    def _pool_state(self, n_new: int) -> dict[str, np.ndarray]:
        """A training call's working copy of the declared coefficients and averaging sums
        (`_declared_state` but the support set), each array over the support set padded
        with zeros for the ``n_new`` rows that may join it: what an epoch changes, so what
        its checkpoint copies."""
        dtype, average = self._alpha.dtype, getattr(self, "_u", None) is not None
        work = {}
        for a in (*coefficient_state(dtype), *averaging_state(dtype, average)):
            if a.name == "support_":
                continue
            value = getattr(self, _attribute(a.name))
            work[a.name] = np.ascontiguousarray(np.pad(value, ((0, 0), (0, n_new)))) \
                if "n_sv" in a.shape else value.copy()
        return work

    def _saved(self, declared: tuple[StateArray, ...]) -> dict[str, np.ndarray]:
        """The declared arrays, as the model file holds them."""
        arrays = {}
        for a in declared:
            value = getattr(self, _attribute(a.name))
            arrays[a.name] = value.words if a.name == "sv_words" else value
        return arrays

    def _restore_declared(self, arrays: dict, declared: Any,
                          sizes: dict[str, int]) -> dict[str, np.ndarray]:
        """The declared arrays of a model file, in the order given, each checked for its
        dtype and shape, set on the model (the support vectors as read: words, not yet
        `PackedBits`) and returned."""
        restored = restore_state(arrays, declared, sizes, prefix="")
        for name, value in restored.items():
            setattr(self, _attribute(name), value)
        return restored

    @classmethod
    def _restoring(cls: type[_Kernel], params: dict, arrays: dict) -> tuple[_Kernel, str]:
        """A model of ``params`` that knows the parameters of the model file's training, and
        the kind of its kernel (those parameters checked as any)."""
        est = cls(**params)
        est._fit_params = fit_params_from_state(est, arrays)
        kind, _ = cls(**{**params, **est._fit_params})._spec()
        return est, kind

    def _restore_support_set(self, arrays: dict, kind: str, dtype: Any) -> int:
        """The common state and the declared arrays (`_declared_state`, trained with
        ``average`` or not) from a model file, each checked for its dtype and shape, then
        the rules between values; the coefficients' rows."""
        declared = self._declared_state(kind, dtype, self._averaged())
        k, d = self._restore_common_state(arrays, entry_names(declared, prefix=""))
        rows = 1 if k == 2 else k
        alpha = np.asarray(arrays["alpha"])  # its shape says how many support vectors
        n_sv = alpha.shape[1] if alpha.ndim == 2 else -1
        first = sorted(declared, key=lambda a: a.name != "alpha")  # a bad alpha named first
        restored = self._restore_declared(arrays, first, {"rows": rows, "n_sv": n_sv, "d": d,
                                                          "words": (d + 63) // 64})
        self._kind = kind
        if kind == "conjunction":  # the words as the gate checks them
            self._sv = PackedBits(self._sv, d)
            if n_sv:
                self._sv = check_kernel_input(self._sv, kind, d, type(self).__name__)
        elif kind == "precomputed" and n_sv and (self._sv.min() < 0 or self._sv.max() >= d):
            raise ValueError("model file: support indices out of range")
        if "count" in restored and not 1 <= self._count[0] <= 2**62:
            raise ValueError("model file: count must lie in [1, 2^62]")
        if n_sv and self.support_.min() < -1:
            raise ValueError("model file: support_ indices must be >= -1")
        return rows


class WeightedKernelClassifier(KernelClassifier):
    """A kernel model with sample and class weights and the "precomputed" kernel."""

    class_weight: Any

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = _precomputed(self)
        return tags

    @available_if(lambda est: not _precomputed(est))
    @fill(BATCH)
    @trains
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
        return partial_fit_kernel_model(self, X, y, classes, sample_weight)
