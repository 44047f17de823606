"""`VotedPerceptron`: every weight vector the perceptron passed through gets a vote.

Training is the plain perceptron (primal, or dual with any kernel of `perceptron_c.kernels`);
the routines report where each mistake happened, which is all the voted perceptron stores:
the mistaken examples (``support_vectors_``), the label of each mistake, and the survival
count c_k of every weight vector w_0 = 0, w_1, ..., w_K ([Daume2017] section 4.6, eq. 4.17;
[FreundSchapire1999], who count the example that created a vector towards it, so the
counts add up to the examples seen). Prediction rebuilds the activations w_k . x + b_k as
prefix sums over the mistakes, one kernel evaluation per stored example
(`perceptron_c._core._voted_py.vote`).

More than two classes: one-vs-rest, one voted perceptron per class against the rest, all
trained on the same visiting orders; ``decision_function`` gives each its vote margin
divided by its total vote, in [-1, 1], so the classes' scores are comparable, and ``predict``
takes the largest (ties to the lowest class index).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _backend
from ._estimator._base import OVR_FIXED_CLASSES
from ._estimator._training import Run, StateArray, entry_names, new_state
from ._utils._rows import check_finite_state, pool_of, stack_rows, take_rows
from ._utils._validation import (
    CSR,
    PackedBits,
    check_csr,
    check_kernel_input,
    check_n_features,
    check_state_array,
    check_X,
)
from .kernels import KernelSpec, resolve_kernel
from .kernels._model import KernelClassifier, PredictTables, float_rows, support_vector_state
from .kernels._rows import (
    KERNEL_PARAMS,
    KernelSource,
    cached_scores,
    check_exact_headroom,
    fit_params,
    fit_params_from_state,
    fit_params_state,
    kernel_block,
    record_fit_params,
    row_blocks_run,
    stream,
)

__all__ = ["VotedPerceptron"]


# The saved state, declared (`_state.StateArray`) over the sizes "machines" (1 for two
# classes), "ptr" (machines + 1), "total" (mistakes of all machines, m_ptr[-1]: a value of
# the state, read first), "votes" (total + machines), "n_sv", "d" and "words". Mistakes of
# machine m: m_index/m_sign[m_ptr[m]:m_ptr[m + 1]]; its survival counts (one more than
# mistakes, the last still open): survival[m_ptr[m] + m : ...]. Not declared: sparse support
# vectors, whose three CSR arrays have sizes that are values (checked as a CSR).

def _votes(dtype: Any) -> tuple[StateArray, ...]:
    """The intercepts (int64 for the exact conjunction sums), the machines' mistakes and the
    survival counts of their vectors (whole numbers in float64)."""
    return (StateArray("b", ("machines",), dtype, "none"),
            StateArray("m_ptr", ("ptr",), np.int64, "none"),
            StateArray("m_index", ("total",), np.int64, "none"),
            StateArray("m_sign", ("total",), np.float64, "none"),
            StateArray("survival", ("votes",), np.float64, "none"),
            StateArray("credit", ("machines",), np.float64, "none"))


def _coefficients(kind: str, dtype: Any) -> StateArray:
    """The primal weights, or one coefficient per support vector of each machine."""
    if kind == "primal":
        return StateArray("w", ("machines", "d"), np.float64, "none")
    return StateArray("alpha", ("machines", "n_sv"), dtype, "none")


class _VotedRun(Run["VotedPerceptron"]):
    """One training call: per machine, the mistakes (pool index, sign) and the survival
    counts of its weight vectors, the last one still open."""

    def __init__(self, est: VotedPerceptron, Xc: Any, y_idx: np.ndarray, kind: str,
                 kern: Any) -> None:
        self.est, self.kind, self.Xc = est, kind, Xc
        machines = est._b.shape[0]
        self.n, self.n_old = Xc.shape[0], est._sv.shape[0]
        self.signs = [np.where(y_idx == (1 if machines == 1 else k), 1.0, -1.0)
                      for k in range(machines)]
        self.index, self.sign, self.survival = [], [], []
        for m in range(machines):
            idx, sg, surv = est._machine(m)
            self.index.append(list(idx))
            self.sign.append(list(sg))
            self.survival.append(list(surv))
        self.steps = np.empty((machines, self.n), dtype=np.int64)
        if kind != "primal":
            self._prepare_dual(kern)

    def _prepare_dual(self, kern: Any) -> None:
        est, Xc = self.est, self.Xc
        self.pool = pool_of(est._sv, Xc, self.kind)
        self.alpha = np.ascontiguousarray(np.pad(est._alpha, ((0, 0), (0, Xc.shape[0]))))
        self.y_pool = [np.concatenate([np.zeros(self.n_old), s]) for s in self.signs]
        self.source = KernelSource(kern, self.kind, self.pool, est.max_gram_bytes, est.n_jobs)
        self.cached = self.source.cached and self.kind != "conjunction"
        self.support = np.any(self.alpha != 0, axis=0)  # every machine's
        if self.cached:
            G = self.source.full
            assert G is not None  # cached: KernelSource computed the whole pool Gram
            self.scores = (cached_scores(self.alpha, G) if self.n_old
                           else np.zeros(self.alpha.shape))

    def _machine_epoch(self, m: int, order: np.ndarray) -> int:
        """One epoch of machine m, primal or on the cached Gram; the positions of its mistakes
        go to ``self.steps[m]``."""
        est, fi, steps = self.est, self.est.fit_intercept, self.steps[m]
        if self.kind == "primal":
            lin, X, w, b = _backend.linear, self.Xc, est._w[m], est._b[m:m + 1]
            if isinstance(X, CSR):
                return lin.perceptron_epoch_csr(X.data, X.indices, X.indptr, self.signs[m],
                                                order, w, b, fi, False, steps)
            return lin.perceptron_epoch_dense(X, self.signs[m], order, w, b, fi, False, steps)
        G = self.source.full
        assert G is not None  # not primal: _machine_epoch runs on the cached Gram only
        return _backend.dual.dual_epoch_cached(
            G, self.y_pool[m], self.n_old + order, self.alpha[m], est._b[m:m + 1],
            self.scores[m], fi, steps=steps)

    def _streamed_epoch(self, order: np.ndarray) -> list[int]:
        """One epoch of every machine on the same blocks of kernel rows (the machines are
        independent: each makes the mistakes it makes alone); their mistakes' positions go
        to ``self.steps``."""
        est, fi, machines = self.est, self.est.fit_intercept, len(self.signs)
        conjunction = self.kind == "conjunction"
        counts, done = [0] * machines, [0]

        def block(rows: np.ndarray, K: np.ndarray, cols: np.ndarray | None) -> int:
            total = 0
            for m in range(machines):
                part = self.steps[m, counts[m]:]
                y, alpha, b = self.y_pool[m], self.alpha[m], est._b[m:m + 1]
                if conjunction:
                    k = _backend.conjunction.conjunction_epoch_rows(
                        K, rows, y, alpha, b, fi, steps=part, cols=cols)
                else:
                    k = _backend.dual.dual_epoch_rows(K, rows, y, alpha, b, fi, steps=part,
                                                      cols=cols)
                part[:k] += done[0]  # positions within the whole epoch
                counts[m] += k
                total += k
            done[0] += rows.shape[0]
            return total

        stream(self.source, self.n_old + order, self.support, block,
               lambda rows: np.any(self.alpha[:, rows] != 0, axis=0))
        return counts

    def _arrays(self) -> list[np.ndarray]:
        est = self.est
        arrays = [est._b, est._w] if self.kind == "primal" else [est._b, self.alpha]
        if getattr(self, "cached", False):
            arrays.append(self.scores)
        return arrays

    def checkpoint(self) -> tuple:
        lengths = [len(lst) for lst in self.index]
        last = [surv[-1] for surv in self.survival]
        return lengths, last, [a.copy() for a in self._arrays()]

    def rollback(self, saved: tuple) -> None:
        lengths, last, arrays = saved
        for m, n_m in enumerate(lengths):
            del self.index[m][n_m:], self.sign[m][n_m:], self.survival[m][n_m + 1:]
            self.survival[m][-1] = last[m]
        for a, s in zip(self._arrays(), arrays):
            a[...] = s

    def epoch(self, order: np.ndarray) -> int:
        if self.kind == "conjunction":  # never start an epoch the exact sums cannot hold
            check_exact_headroom(self.alpha, self.est._b, None, None, None, order.shape[0])
        total = self._epoch(order)
        check_finite_state(*self._arrays())
        return total

    def _epoch(self, order: np.ndarray) -> int:
        total, streamed = 0, self.kind != "primal" and not self.cached
        counts = self._streamed_epoch(order) if streamed else None
        for m in range(len(self.signs)):
            k = counts[m] if counts is not None else self._machine_epoch(m, order)
            total += k
            pos = self.steps[m, :k]
            rows = order[pos]
            self.index[m].extend((self.n_old + rows).tolist())
            self.sign[m].extend(self.signs[m][rows].tolist())
            # each example credits one vector: the current one if right, else the new one
            if k:
                self.survival[m][-1] += float(pos[0])
                self.survival[m].extend(np.diff(pos).astype(float).tolist())
                self.survival[m].append(float(self.n - pos[-1]))
            else:
                self.survival[m][-1] += float(self.n)
        return total

    def predict_idx(self, X: Any) -> np.ndarray:  # pragma: no cover - no early stopping here
        raise NotImplementedError

    def finish(self, credit_epochs: int) -> None:
        """Keep only the examples some mistake refers to; renumber the mistakes."""
        est, machines = self.est, len(self.index)
        flat = np.asarray([i for lst in self.index for i in lst], dtype=np.int64)
        keep = np.unique(flat)
        remap = np.full(self.n_old + self.n, -1, dtype=np.int64)
        remap[keep] = np.arange(keep.shape[0])
        if self.kind == "primal":
            old = take_rows(est._sv, keep[keep < self.n_old])
            est._sv = stack_rows(old, take_rows(self.Xc, keep[keep >= self.n_old] - self.n_old))
        else:
            est._sv = take_rows(self.pool, keep)
            est._alpha = np.ascontiguousarray(self.alpha[:, keep])
        est._m_ptr = np.zeros(machines + 1, dtype=np.int64)
        np.cumsum([len(lst) for lst in self.index], out=est._m_ptr[1:])
        est._m_index = remap[flat] if flat.size else np.zeros(0, dtype=np.int64)
        est._m_sign = np.asarray([s for lst in self.sign for s in lst], dtype=np.float64)
        est._survival = np.asarray([c for lst in self.survival for c in lst], dtype=np.float64)
        est._credit = np.full(machines, float(credit_epochs * self.n))


class VotedPerceptron(KernelClassifier):
    """The voted perceptron, primal (``kernel=None``) or with a kernel.

    A fitted model votes with the ``kernel``, ``degree``, ``gamma``, ``coef0`` and
    ``fit_intercept`` it was trained with (they are saved with it); ``set_params`` changes
    the next ``fit``. ``partial_fit`` and a warm-started ``fit`` continue the stored
    mistakes only with those parameters unchanged (a ValueError names the one that changed:
    the vote rebuilds every weight vector, bias included, with one kernel and one rule).

    Parameters
    ----------
    kernel : None, str, Kernel or callable, default=None
        None trains the primal perceptron (dense or sparse X); otherwise "linear", "poly",
        "rbf", "conjunction", a `perceptron_c.kernels` object or a callable ``k(X, Y)``.
    degree, gamma, coef0 : as in `KernelPerceptron`: the parameters of the kernel names "poly"
        and "rbf".
    fit_intercept : bool, default=True
    max_iter : int, default=10
        Epochs. Training stops after an epoch with no mistake; the final vector is then
        credited with the examples of the skipped epochs (it would have survived them).
    shuffle, random_state, warm_start, verbose : as in `KernelPerceptron`.
    max_gram_bytes : int, default=512 MiB
        Memory for kernel matrices (kernel training and prediction are done in blocks).
    n_jobs : int or None, default=None
        Threads for the kernel values of training and for the votes of
        ``decision_function`` / ``predict`` / ``score``: None is 1, -1 every core. The
        results are the same for any value.

    Attributes
    ----------
    classes_, n_features_in_, n_iter_, converged_
    mistakes_ : int64 array, mistakes in each epoch (summed over the one-vs-rest machines)
    n_mistakes_ : int64 array (n_machines,), mistakes stored per machine (1 for two classes)
    support_vectors_ : the distinct examples of the stored mistakes (float64 rows, a `CSR`
        for sparse primal input, or `PackedBits` for the conjunction kernel)
    """

    _fixed_classes = OVR_FIXED_CLASSES
    # the stored examples: float64 rows, a CSR (sparse primal) or PackedBits (conjunction)
    _sv: Any
    # the dual coefficients and the intercepts: int64 for the conjunction kernel (exact
    # sums), float64 otherwise
    _alpha: np.ndarray
    _b: np.ndarray
    # what the vote and the state depend on: recorded at every training call
    _fit_param_names = (*KERNEL_PARAMS, "fit_intercept")
    _fit_params: dict[str, Any]  # their values at the last training call
    # the primal weights instead of _alpha (kernel=None), and the votes (see _votes)
    _w: np.ndarray
    _m_ptr: np.ndarray
    _m_index: np.ndarray
    _m_sign: np.ndarray
    _survival: np.ndarray
    _credit: np.ndarray
    # its parameters' rules: KernelClassifier's (kernel, max_gram_bytes, n_jobs, the loop's)

    def __init__(self, kernel: Any = None, degree: Any = None, gamma: Any = None,
                 coef0: Any = None, fit_intercept: bool = True, max_iter: int = 10,
                 shuffle: bool = True, random_state: Any = None, warm_start: bool = False,
                 verbose: int = 0, max_gram_bytes: int = 512 * 2**20,
                 n_jobs: Any = None) -> None:
        self._keep_params(locals())

    # ------------------------------------------------------------------ skeleton hooks
    def _checked_spec(self) -> KernelSpec:
        if self.kernel is None:
            if any(getattr(self, n) is not None for n in ("degree", "gamma", "coef0")):
                raise ValueError("degree, gamma and coef0 need a kernel (kernel=None is the "
                                 "primal perceptron)")
            return KernelSpec("primal", None)
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            raise ValueError("kernel='precomputed' is not supported by VotedPerceptron; pass "
                             "the kernel itself")
        return resolve_kernel(self.kernel, self.degree, self.gamma, self.coef0)

    def _fitted_spec(self) -> KernelSpec:
        """(kind, kernel) of the parameters the model was trained with."""
        p = fit_params(self)
        if p["kernel"] is None:
            return KernelSpec("primal", None)
        return resolve_kernel(p["kernel"], p["degree"], p["gamma"], p["coef0"])

    def _gate_X(self, X: Any, spec: KernelSpec, fitting: bool) -> Any:
        n_features = None if fitting else self.n_features_in_
        if spec.kind == "primal":
            Xc = check_X(X)
            if n_features is not None:
                check_n_features(Xc, n_features, type(self).__name__)
            return Xc
        return check_kernel_input(X, spec.kind, n_features, type(self).__name__)

    def _init_state(self, Xc: Any, spec: KernelSpec) -> None:
        kind = spec.kind
        machines = 1 if len(self.classes_) == 2 else len(self.classes_)
        exact = kind == "conjunction"
        self._kind = kind
        record_fit_params(self)
        if exact:
            self._sv = PackedBits(np.zeros((0, Xc.words.shape[1]), np.uint64), Xc.n_bits)
        elif isinstance(Xc, CSR):  # wide sparse data: keep the stored examples sparse too
            self._sv = CSR(np.zeros(0), np.zeros(0, np.int32), np.zeros(1, np.int64),
                           (0, Xc.shape[1]))
        else:
            self._sv = np.zeros((0, Xc.shape[1]))
        dtype = np.int64 if exact else np.float64
        fresh = new_state((*_votes(dtype), _coefficients(kind, dtype)), {
            "machines": machines, "ptr": machines + 1, "total": 0, "votes": machines,
            "n_sv": 0, "d": Xc.shape[1]})
        for name, value in fresh.items():
            setattr(self, f"_{name}", value)
        self._publish()

    def _start(self, Xc: Any, y_idx: np.ndarray, sample_weight: np.ndarray | None,
               spec: KernelSpec) -> _VotedRun:
        return _VotedRun(self, Xc, y_idx, *spec)

    def _machine(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a, b = self._m_ptr[m], self._m_ptr[m + 1]
        return (self._m_index[a:b], self._m_sign[a:b], self._survival[a + m:b + m + 1])

    def _publish(self) -> None:
        self.n_mistakes_ = np.diff(self._m_ptr)
        self.support_vectors_ = self._sv
        self._prepare_tables()

    def _table_sources(self) -> tuple:
        d = self.__dict__
        return (d.get("_fit_params"), self._sv, d.get("_alpha"), d.get("_w"), self._b,
                self._m_ptr, self._m_index, self._m_sign, self._survival, self._credit)

    def _prepare_tables(self) -> PredictTables:
        """The tables of `KernelClassifier` (kernel, support vectors and their norms), with
        each machine's votes ``extra``: its mistakes, signs and survival counts (the last
        one with the credit of the epochs it was spared), and its total vote."""
        kind, kern = self._fitted_spec()
        tables = PredictTables(self._table_sources(), kind, kern, self._sv)
        votes, totals = [], []
        for m in range(self._b.shape[0]):
            idx, sg, surv = self._machine(m)
            surv = surv.copy()
            surv[-1] += self._credit[m]
            votes.append((idx, sg, surv))
            totals.append(self._machine(m)[2].sum() + self._credit[m])
        tables.extra = (votes, totals)
        _backend.voted.vote  # noqa: B018 (loaded now, not at a call)
        if kind != "conjunction":
            _backend.linear.decision_dense  # noqa: B018 (the primal kernel rows)
        self._predict_tables = tables
        return tables

    # ------------------------------------------------------------------ prediction
    def _scores(self, X: Any) -> np.ndarray:
        """(n, n_machines) vote margins divided by the total votes, in [-1, 1]."""
        self._check_fitted()
        self._validate_params("max_gram_bytes", "n_jobs")
        t = self._tables()  # the kernel it was trained with, never the parameters set since
        kind, kern = t.kind, t.kern
        votes, totals = t.extra
        fit_intercept = bool(fit_params(self)["fit_intercept"])
        Xc = float_rows(self, X, kind, kern)
        m_rows, machines = Xc.shape[0], self._b.shape[0]
        out = np.zeros((m_rows, machines))
        voted = _backend.voted
        bias_step = 1.0 if fit_intercept else 0.0

        def vote(s: int, e: int, K: np.ndarray) -> None:
            col = np.empty(e - s)
            for m, (idx, sg, surv) in enumerate(votes):
                if kind == "conjunction":
                    voted.vote_conjunction(K, idx, sg, surv, fit_intercept, col)
                else:
                    voted.vote(K, idx, sg, surv, bias_step, col)
                out[s:e, m] = col
        primal = None if kind != "primal" else \
            (lambda rows, sv: kernel_block(kern, kind, rows, sv, self.max_gram_bytes))
        try:
            row_blocks_run(kern, kind, Xc, t.sv, self.max_gram_bytes, self.n_jobs, vote,
                           primal, t.sv_norms)
        except FloatingPointError as exc:
            raise ValueError(f"{type(self).__name__}: {exc}. Scaling the input data might "
                             "help.") from None
        for m, total in enumerate(totals):
            if total > 0:
                out[:, m] /= total
        return out

    # ------------------------------------------------------------------ persistence
    def _state_arrays(self) -> dict:
        """The saved state: the common part, the votes (`_declared_votes`), the support set
        (sparse rows as their three CSR arrays), the coefficients, the training parameters."""
        arrays = self._common_state()
        dtype = self._b.dtype
        arrays.update(self._saved(_votes(dtype)))
        if isinstance(self._sv, CSR):
            arrays.update(sv_data=self._sv.data, sv_indices=self._sv.indices,
                          sv_indptr=self._sv.indptr)
        else:
            arrays.update(self._saved((support_vector_state(self._kind),)))
        arrays.update(self._saved((_coefficients(self._kind, dtype),)))
        arrays.update(fit_params_state(self))
        return arrays

    @classmethod
    def _from_state(cls, params: dict, arrays: dict) -> VotedPerceptron:
        est = cls(**params)
        est._fit_params = fit_params_from_state(est, arrays)
        # checked as the parameters the model was trained with
        kind, _ = cls(**{**params, **est._fit_params})._spec()
        sparse = kind == "primal" and "sv_data" in arrays
        exact = kind == "conjunction"
        dtype = np.int64 if exact else np.float64
        sv_state = None if sparse else support_vector_state(kind)
        declared = (*_votes(dtype), *((sv_state,) if sv_state else ()),
                    _coefficients(kind, dtype))
        k, d = est._restore_common_state(arrays, entry_names(declared, prefix="") | (
            {"sv_data"} if sparse else set()))
        machines = 1 if k == 2 else k
        ptr = check_state_array(arrays, "m_ptr", (machines + 1,), np.int64)  # sizes the rest
        if ptr[0] != 0 or np.any(np.diff(ptr) < 0):
            raise ValueError("model file: m_ptr must rise from 0")
        total = int(ptr[-1])
        if sparse:
            indptr = np.asarray(arrays["sv_indptr"])
            n_sv = indptr.shape[0] - 1 if indptr.ndim == 1 else -1
        else:
            sv = np.asarray(arrays["sv_words" if exact else "sv"])
            n_sv = sv.shape[0] if sv.ndim == 2 else -1
        est._restore_declared(arrays, declared, {
            "machines": machines, "ptr": machines + 1, "total": total,
            "votes": total + machines, "n_sv": n_sv, "d": d, "words": (d + 63) // 64})
        for name, counts in (("survival", est._survival), ("credit", est._credit)):
            if np.any(counts < 0) or np.any(counts > 2**53) or np.any(counts != np.round(counts)):
                raise ValueError(f"model file: {name} must hold whole counts in [0, 2^53]")
        if exact:
            est._sv = PackedBits(est._sv, d)
            if n_sv:
                est._sv = check_kernel_input(est._sv, kind, d, cls.__name__)
        elif sparse:  # a CSR's sizes are values, not shapes: checked as a CSR
            if set(arrays) & {"sv"} or indptr.dtype != np.int64 or \
                    np.asarray(arrays["sv_indices"]).dtype != np.int32 or \
                    np.asarray(arrays["sv_data"]).dtype != np.float64:
                raise ValueError("model file: malformed sparse support vectors")
            est._sv = check_csr(arrays["sv_data"], arrays["sv_indices"], indptr, (n_sv, d),
                                "model file: sv")
        if total and (est._m_index.min() < 0 or est._m_index.max() >= n_sv):
            raise ValueError("model file: m_index out of range")
        if np.any(np.abs(est._m_sign) != 1.0) or np.any(est._survival < 0):
            raise ValueError("model file: m_sign must be +-1 and survival counts >= 0")
        est._kind = kind
        est._publish()
        return est
