"""`VotedPerceptron`: every weight vector the perceptron passed through gets a vote.

Training is the plain perceptron (primal, or dual with any kernel of `perceptron_c.kernels`);
the routines report where each mistake happened, which is all the voted perceptron stores:
the mistaken examples (``support_vectors_``), the label of each mistake, and the survival
count c_k of every weight vector w_0 = 0, w_1, ..., w_K (CIML ch. 4, section 4.6, eq. 4.17;
Freund & Schapire 1999, who count the example that created a vector towards it, so the
counts add up to the examples seen). Prediction rebuilds the activations w_k . x + b_k as
prefix sums over the mistakes, one kernel evaluation per stored example
(`perceptron_c._voted_py.vote`).

More than two classes: one-vs-rest, one voted perceptron per class against the rest, all
trained on the same visiting orders; ``decision_function`` gives each its vote margin
divided by its total vote, in [-1, 1], so the classes' scores are comparable, and ``predict``
takes the largest (ties to the lowest class index).
"""
import time

import numpy as np

from . import _backend
from ._estimator import (BaseEstimator, ClassifierMixin, PerceptronMixin, draw_seed,
                         epoch_order, report_epoch, state_array)
from ._validation import (CSR, check_classes, check_n_features, check_X, check_y,
                          encode_labels, take_rows)
from .kernel import gate_rows, resolve_kernel
from .kernels import PackedBits

__all__ = ["VotedPerceptron"]


class VotedPerceptron(PerceptronMixin, ClassifierMixin, BaseEstimator):
    """The voted perceptron, primal (``kernel=None``) or with a kernel.

    Parameters
    ----------
    kernel : None, str, Kernel or callable, default=None
        None trains the primal perceptron (dense or sparse X); otherwise "linear", "poly",
        "rbf", "conjunction", a `perceptron_c.kernels` object or a callable ``k(X, Y)``.
    degree, gamma, coef0 : kernel parameters for the names "poly" and "rbf".
    fit_intercept : bool, default=True
    max_iter : int, default=10
        Epochs. Training stops after an epoch with no mistake; the final vector is then
        credited with the examples of the skipped epochs (it would have survived them).
    shuffle, random_state, warm_start, verbose : as in `Perceptron`.
    max_gram_bytes : int, default=512 MiB
        Memory for kernel matrices (kernel training and prediction are done in blocks).

    Attributes
    ----------
    classes_, n_features_in_, n_iter_, converged_
    mistakes_ : int64 array, mistakes in each epoch (summed over the one-vs-rest machines)
    n_mistakes_ : int64 array (n_machines,), mistakes stored per machine (1 for two classes)
    support_vectors_ : the distinct examples of the stored mistakes (float64 rows, or
        `PackedBits` for the conjunction kernel)
    """

    def __init__(self, kernel=None, degree=None, gamma=None, coef0=None, fit_intercept=True,
                 max_iter=10, shuffle=True, random_state=None, warm_start=False, verbose=0,
                 max_gram_bytes=512 * 2**20):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.max_gram_bytes = max_gram_bytes

    # ------------------------------------------------------------------ parameters and input
    def _check_params(self):
        self._check_flags("fit_intercept", "shuffle", "warm_start")
        self._check_ints(max_iter=1, verbose=0, max_gram_bytes=1)
        if self.kernel is None:
            if any(getattr(self, n) is not None for n in ("degree", "gamma", "coef0")):
                raise ValueError("degree, gamma and coef0 need a kernel (kernel=None is the "
                                 "primal perceptron)")
            return "primal", None
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            raise ValueError("kernel='precomputed' is not supported by VotedPerceptron; pass "
                             "the kernel itself")
        return resolve_kernel(self.kernel, self.degree, self.gamma, self.coef0)

    def _gate(self, X, kind, fitting):
        n_features = None if fitting else self.n_features_in_
        if kind == "primal":
            Xc = check_X(X)
            if n_features is not None:
                check_n_features(Xc, n_features, type(self).__name__)
            return Xc
        return gate_rows(X, kind, n_features, type(self).__name__)

    # ------------------------------------------------------------------ training
    def fit(self, X, y):
        """Train for up to ``max_iter`` epochs, recording every weight vector's survival."""
        kind, kern = self._check_params()
        Xc = self._gate(X, kind, fitting=True)
        classes, y_idx = encode_labels(check_y(y, Xc.shape[0]))
        self._check_two_classes(classes)
        if self.warm_start and hasattr(self, "classes_"):
            self._check_continuation(Xc, classes, kind)
        else:
            self._init_state(classes, kind, Xc, draw_seed(self.random_state))
        self._train(Xc, y_idx, kind, kern, self.max_iter, reset_history=True, credit=True)
        return self

    def partial_fit(self, X, y, classes=None):
        """One epoch over this batch, continuing the weight vectors and their votes."""
        kind, kern = self._check_params()
        Xc = self._gate(X, kind, fitting=True)
        yc = check_y(y, Xc.shape[0])
        if not hasattr(self, "classes_"):
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            classes = check_classes(classes)
            self._check_two_classes(classes)
            self._init_state(classes, kind, Xc, draw_seed(self.random_state))
        else:
            if classes is not None and not np.array_equal(check_classes(classes),
                                                          self.classes_):
                raise ValueError("classes must not change between calls to partial_fit")
            self._check_continuation(Xc, self.classes_, kind)
        _, y_idx = encode_labels(yc, self.classes_)
        self._train(Xc, y_idx, kind, kern, 1, reset_history=False, credit=False)
        return self

    def _check_continuation(self, Xc, classes, kind):
        if kind != self._kind:
            raise ValueError(f"the model was trained as {self._kind}, not {kind}")
        check_n_features(Xc, self.n_features_in_, type(self).__name__)
        self._check_same_classes(classes)

    def _init_state(self, classes, kind, Xc, seed):
        machines = 1 if len(classes) == 2 else len(classes)
        exact = kind == "conjunction"
        self._kind = kind
        self._seed = seed
        self._epochs_seen = 0
        self.classes_ = classes
        self.n_features_in_ = Xc.shape[1]
        if exact:
            self._sv = PackedBits(np.zeros((0, Xc.words.shape[1]), np.uint64), Xc.n_bits)
        elif isinstance(Xc, CSR):  # wide sparse data: keep the stored examples sparse too
            self._sv = CSR(np.zeros(0), np.zeros(0, np.int32), np.zeros(1, np.int64),
                           (0, Xc.shape[1]))
        else:
            self._sv = np.zeros((0, Xc.shape[1]))
        if kind == "primal":
            self._w = np.zeros((machines, Xc.shape[1]))
        else:
            self._alpha = np.zeros((machines, 0), dtype=np.int64 if exact else np.float64)
        self._b = np.zeros(machines, dtype=np.int64 if exact else np.float64)
        # mistakes of machine m: _m_index/_m_sign[_m_ptr[m]:_m_ptr[m + 1]]; its survival
        # counts (one more than mistakes, the last still open): _survival[_m_ptr[m] + m : ...]
        self._m_ptr = np.zeros(machines + 1, dtype=np.int64)
        self._m_index = np.zeros(0, dtype=np.int64)
        self._m_sign = np.zeros(0)
        self._survival = np.zeros(machines)
        self._credit = np.zeros(machines)
        self.mistakes_ = np.zeros(0, dtype=np.int64)
        self.n_iter_ = 0
        self.converged_ = False
        self._publish()

    def _machine(self, m):
        a, b = self._m_ptr[m], self._m_ptr[m + 1]
        return (self._m_index[a:b], self._m_sign[a:b], self._survival[a + m:b + m + 1])

    def _train(self, Xc, y_idx, kind, kern, epochs, reset_history, credit):
        machines = self._b.shape[0]
        n, n_old = Xc.shape[0], self._sv.shape[0]
        signs = [np.where(y_idx == 1, 1.0, -1.0)] if machines == 1 else \
            [np.where(y_idx == k, 1.0, -1.0) for k in range(machines)]
        # per machine: lists of (pool index, sign) and survival counts (the last one open)
        index, sign, survival = [], [], []
        for m in range(machines):
            idx, sg, surv = self._machine(m)
            index.append(list(idx))
            sign.append(list(sg))
            survival.append(list(surv))
        run = self._trainer(Xc, signs, kind, kern, n_old)
        history = [] if reset_history else list(self.mistakes_)
        steps = np.empty(n, dtype=np.int64)
        epochs_run = 0
        for _ in range(epochs):
            tic = time.perf_counter()
            order = epoch_order(self._seed, self._epochs_seen, n, self.shuffle)
            total = 0
            for m in range(machines):
                k = run(m, order, steps)
                total += k
                pos = steps[:k]
                rows = order[pos]
                index[m].extend((n_old + rows).tolist())
                sign[m].extend(signs[m][rows].tolist())
                # each example credits one vector: the current one if right, else the new one
                if k:
                    survival[m][-1] += float(pos[0])
                    survival[m].extend(np.diff(pos).astype(float).tolist())
                    survival[m].append(float(n - pos[-1]))
                else:
                    survival[m][-1] += float(n)
            self._epochs_seen += 1
            epochs_run += 1
            history.append(int(total))
            if self.verbose:
                report_epoch(type(self).__name__, len(history), total, n,
                             time.perf_counter() - tic)
            if total == 0:
                break
        self._finish(Xc, kind, run, index, sign, survival, n_old)
        self._credit = np.full(machines, float((epochs - epochs_run) * n)
                               if credit and history and history[-1] == 0 else 0.0)
        self.mistakes_ = np.asarray(history, dtype=np.int64)
        self.n_iter_ = len(history)
        self.converged_ = bool(history) and history[-1] == 0
        self._publish()

    def _trainer(self, Xc, signs, kind, kern, n_old):
        """A function (machine, order, steps) -> mistakes running one epoch of one machine,
        over the pool (old support vectors, then Xc) for kernels."""
        lin, dual = _backend.linear, _backend.dual
        fi = self.fit_intercept
        if kind == "primal":
            sparse = isinstance(Xc, CSR)
            head = (Xc.data, Xc.indices, Xc.indptr) if sparse else (Xc,)
            fn = lin.perceptron_epoch_csr if sparse else lin.perceptron_epoch_dense
            w, b = self._w, self._b

            def run(m, order, steps):
                return fn(*head, signs[m], order, w[m], b[m:m + 1], fi, False, steps)
            return run
        exact = kind == "conjunction"
        if exact:
            pool = PackedBits(np.ascontiguousarray(np.vstack([self._sv.words, Xc.words])),
                              Xc.n_bits)
        else:
            pool = np.ascontiguousarray(np.vstack([self._sv, Xc]))
        n_pool = n_old + Xc.shape[0]
        alpha = np.ascontiguousarray(np.pad(self._alpha, ((0, 0), (0, Xc.shape[0]))))
        b = self._b
        y_pool = [np.concatenate([np.zeros(n_old), s]) for s in signs]
        item = 4 if exact else 8
        fits = n_pool * n_pool * item <= self.max_gram_bytes
        if exact:
            E = kern.log2_gram(pool).astype(np.int32) if fits else None

            def rows_of(rows):
                if E is not None:
                    return np.ascontiguousarray(E[rows])
                sub = PackedBits(np.ascontiguousarray(pool.words[rows]), pool.n_bits)
                return kern.log2_gram(sub, pool).astype(np.int32)
            epoch_fn = dual.conjunction_epoch_rows
        elif fits:
            G = np.ascontiguousarray(kern(pool), dtype=np.float64)
            scores = np.ascontiguousarray(alpha @ G) if n_old else np.zeros(alpha.shape)

            def run(m, order, steps):
                return dual.dual_epoch_cached(G, y_pool[m], n_old + order, alpha[m], b[m:m + 1],
                                              scores[m], fi, steps=steps)
            run.pool, run.alpha = pool, alpha
            return run
        else:
            def rows_of(rows):
                return np.ascontiguousarray(kern(pool[rows], pool), dtype=np.float64)
            epoch_fn = dual.dual_epoch_rows
        block = max(1, min(Xc.shape[0], self.max_gram_bytes // max(1, n_pool * item)))

        def run(m, order, steps):
            total = 0
            for start in range(0, order.shape[0], block):
                rows = np.ascontiguousarray(n_old + order[start:start + block])
                part = steps[start:]
                k = epoch_fn(rows_of(rows), rows, y_pool[m], alpha[m], b[m:m + 1], fi,
                             steps=part)
                part[:k] += start  # positions within the whole epoch
                # move this block's steps next to the earlier ones
                steps[total:total + k] = part[:k]
                total += k
            return total
        run.pool, run.alpha = pool, alpha
        return run

    def _finish(self, Xc, kind, run, index, sign, survival, n_old):
        """Keep only the examples some mistake refers to; renumber the mistakes."""
        machines = len(index)
        flat = np.asarray([i for lst in index for i in lst], dtype=np.int64)
        keep = np.unique(flat)
        remap = np.full(n_old + Xc.shape[0], -1, dtype=np.int64)
        remap[keep] = np.arange(keep.shape[0])
        if kind == "primal":
            old = take_rows(self._sv, keep[keep < n_old])
            fresh = take_rows(Xc, keep[keep >= n_old] - n_old)
            self._sv = _stack_rows(old, fresh)
        elif kind == "conjunction":
            self._sv = PackedBits(np.ascontiguousarray(run.pool.words[keep]), run.pool.n_bits)
            self._alpha = np.ascontiguousarray(run.alpha[:, keep])
        else:
            self._sv = np.ascontiguousarray(run.pool[keep])
            self._alpha = np.ascontiguousarray(run.alpha[:, keep])
        self._m_ptr = np.zeros(machines + 1, dtype=np.int64)
        np.cumsum([len(lst) for lst in index], out=self._m_ptr[1:])
        self._m_index = remap[flat] if flat.size else np.zeros(0, dtype=np.int64)
        self._m_sign = np.asarray([s for lst in sign for s in lst], dtype=np.float64)
        self._survival = np.asarray([c for lst in survival for c in lst], dtype=np.float64)

    def _publish(self):
        self.n_mistakes_ = np.diff(self._m_ptr)
        self.support_vectors_ = self._sv

    # ------------------------------------------------------------------ prediction
    def _votes(self, X):
        """(n, n_machines) vote margins divided by the total votes, in [-1, 1]."""
        self._check_fitted()
        kind, kern = self._check_params()
        Xc = self._gate(X, kind, fitting=False)
        m_rows, machines = Xc.shape[0], self._b.shape[0]
        out = np.zeros((m_rows, machines))
        n_sv = self._sv.shape[0]
        step = max(1, self.max_gram_bytes // max(1, 8 * n_sv))
        voted = _backend.voted
        bias_step = 1.0 if self.fit_intercept else 0.0
        col = np.empty(0)
        for s in range(0, m_rows, step):
            e = min(m_rows, s + step)
            K = self._kernel_block(Xc, s, e, kind, kern)
            for m in range(machines):
                idx, sg, surv = self._machine(m)
                surv = surv.copy()
                surv[-1] += self._credit[m]
                col = np.empty(e - s)
                if kind == "conjunction":
                    voted.vote_conjunction(K, idx, sg, surv, self.fit_intercept, col)
                else:
                    voted.vote(K, idx, sg, surv, bias_step, col)
                out[s:e, m] = col
        for m in range(machines):
            total = self._machine(m)[2].sum() + self._credit[m]
            if total > 0:
                out[:, m] /= total
        return out

    def _kernel_block(self, Xc, s, e, kind, kern):
        n_sv = self._sv.shape[0]
        if kind == "conjunction":
            sub = PackedBits(np.ascontiguousarray(Xc.words[s:e]), Xc.n_bits)
            if n_sv == 0:
                return np.zeros((e - s, 0), dtype=np.int32)
            return kern.log2_gram(sub, self._sv).astype(np.int32)
        if kind == "primal":  # x . sv_j for every stored example, on the linear routines
            rows = take_rows(Xc, np.arange(s, e))
            lin = _backend.linear
            if n_sv == 0:
                return np.zeros((e - s, 0))
            if isinstance(self._sv, CSR):  # sv_j . x with the test rows as (dense) weights
                W = _dense(rows)
                KT = np.empty((n_sv, e - s))
                lin.decision_csr(self._sv.data, self._sv.indices, self._sv.indptr, W,
                                 np.zeros(e - s), KT)
                return np.ascontiguousarray(KT.T)
            K = np.empty((e - s, n_sv))
            if isinstance(rows, CSR):
                lin.decision_csr(rows.data, rows.indices, rows.indptr, self._sv,
                                 np.zeros(n_sv), K)
            else:
                lin.decision_dense(rows, self._sv, np.zeros(n_sv), K)
            return K
        if n_sv == 0:
            return np.zeros((e - s, 0))
        return np.ascontiguousarray(kern(Xc[s:e], self._sv), dtype=np.float64)

    def decision_function(self, X):
        """The vote margin divided by the total vote, in [-1, 1]: shape (n,) for two
        classes, (n, n_classes) (one-vs-rest) otherwise."""
        v = self._votes(X)
        return v[:, 0] if v.shape[1] == 1 else v

    def predict(self, X):
        """The label of the weighted majority vote (binary ties go to ``classes_[0]``)."""
        v = self._votes(X)
        idx = (v[:, 0] > 0).astype(np.int64) if v.shape[1] == 1 else np.argmax(v, axis=1)
        return self.classes_[idx]

    # ------------------------------------------------------------------ persistence
    def _state_arrays(self):
        arrays = self._common_state()
        arrays.update(b=self._b, m_ptr=self._m_ptr, m_index=self._m_index, m_sign=self._m_sign,
                      survival=self._survival, credit=self._credit)
        if self._kind == "conjunction":
            arrays["sv_words"] = self._sv.words
        else:
            arrays["sv"] = self._sv
        if self._kind == "primal":
            arrays["w"] = self._w
        else:
            arrays["alpha"] = self._alpha
        return arrays

    @classmethod
    def _from_state(cls, params, arrays):
        est = cls(**params)
        kind, _ = est._check_params()
        need = {"b", "m_ptr", "m_index", "m_sign", "survival", "credit",
                "sv_words" if kind == "conjunction" else "sv",
                "w" if kind == "primal" else "alpha"}
        k, d = est._restore_common_state(arrays, need)
        machines = 1 if k == 2 else k
        exact = kind == "conjunction"

        ptr = state_array(arrays, "m_ptr", (machines + 1,), np.int64)
        if ptr[0] != 0 or np.any(np.diff(ptr) < 0):
            raise ValueError("model file: m_ptr must rise from 0")
        total = int(ptr[-1])
        est._m_ptr = ptr
        est._m_sign = state_array(arrays, "m_sign", (total,), np.float64)
        est._survival = state_array(arrays, "survival", (total + machines,), np.float64)
        est._credit = state_array(arrays, "credit", (machines,), np.float64)
        est._b = state_array(arrays, "b", (machines,), np.int64 if exact else np.float64)
        if exact:
            words = np.asarray(arrays["sv_words"])
            n_sv = words.shape[0] if words.ndim == 2 else -1
            est._sv = PackedBits(state_array(arrays, "sv_words", (n_sv, (d + 63) // 64), np.uint64), d)
        else:
            sv = np.asarray(arrays["sv"])
            n_sv = sv.shape[0] if sv.ndim == 2 else -1
            est._sv = state_array(arrays, "sv", (n_sv, d), np.float64)
        est._m_index = state_array(arrays, "m_index", (total,), np.int64)
        if total and (est._m_index.min() < 0 or est._m_index.max() >= n_sv):
            raise ValueError("model file: m_index out of range")
        if np.any(np.abs(est._m_sign) != 1.0) or np.any(est._survival < 0):
            raise ValueError("model file: m_sign must be +-1 and survival counts >= 0")
        if kind == "primal":
            est._w = state_array(arrays, "w", (machines, d), np.float64)
        else:
            est._alpha = state_array(arrays, "alpha", (machines, n_sv), np.int64 if exact else np.float64)
        est._kind = kind
        est._publish()
        return est


def _dense(X):
    """Canonical rows as a C-contiguous float64 array."""
    if not isinstance(X, CSR):
        return np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros(X.shape)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    out[rows, X.indices] = X.data
    return out


def _as_csr(X):
    if isinstance(X, CSR):
        return CSR(X.data.astype(np.float64), X.indices, X.indptr, X.shape)
    rows, cols = np.nonzero(X)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return CSR(np.ascontiguousarray(X[rows, cols], dtype=np.float64), cols.astype(np.int32),
               indptr, X.shape)


def _stack_rows(old, new):
    """Rows of ``old`` then of ``new``, in the format of ``old`` (dense or CSR), float64."""
    if isinstance(old, CSR):
        new = _as_csr(new)
        return CSR(np.concatenate([old.data, new.data]),
                   np.concatenate([old.indices, new.indices]),
                   np.concatenate([old.indptr, old.indptr[-1] + new.indptr[1:]]),
                   (old.shape[0] + new.shape[0], old.shape[1]))
    return np.ascontiguousarray(np.vstack([old, _dense(new)]), dtype=np.float64)
