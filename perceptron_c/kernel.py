"""`KernelPerceptron`: the dual perceptron with any kernel of `perceptron_c.kernels`.

Training is the primal perceptron run in the kernel's feature space, kept in dual form: one
coefficient per training example, alpha_i = the signed count of mistakes on example i, and
f(x) = sum_i alpha_i K(x_i, x) + b (Ohio slides, "Kernel Perceptron: Two Classes"; Columbia
notes, section 2.3). With ``kernel="linear"`` it makes exactly the mistakes of `Perceptron`
on the same data and seed.

Two modes with the same mistakes: when the Gram of the training pool fits in
``max_gram_bytes`` it is computed once and every example's score is cached and updated in
O(n) per mistake; otherwise each block of visited examples gets its kernel rows computed
afresh (streaming, memory O(block * n)). The conjunction kernel 2^popcount(a AND b) is
trained and evaluated on exact integer sums, so its decisions have the right sign at any bit
count; its ``decision_function`` is clipped to the largest finite float64 beyond float64's
range (never inf or NaN).
"""
import time

import numpy as np

from . import _backend
from ._estimator import (HAVE_SKLEARN, BaseEstimator, ClassifierMixin, PerceptronMixin,
                         available_if, draw_seed, epoch_order, report_epoch, state_array)
from ._validation import (check_classes, check_n_features, check_X, check_y, encode_labels,
                          is_sparse)
from .kernels import Conjunction, Kernel, PackedBits, _check_packed, get_kernel, pack_bits

__all__ = ["KernelPerceptron"]

_NAMES_WITH = {"poly": ("degree", "gamma", "coef0"), "polynomial": ("degree", "gamma", "coef0"),
               "rbf": ("gamma",), "linear": (), "conjunction": (), "precomputed": ()}


def resolve_kernel(k, degree=None, gamma=None, coef0=None):
    """("precomputed" | "conjunction" | "float", kernel object or None) for an estimator's
    kernel parameters, checked: the one place the kernel estimators read them."""
    given = {n: v for n, v in (("degree", degree), ("gamma", gamma), ("coef0", coef0))
             if v is not None}
    if isinstance(k, str):
        if k not in _NAMES_WITH:
            raise ValueError(f"kernel must be one of {sorted(_NAMES_WITH)}, a kernel object "
                             f"or a callable, got {k!r}")
        unused = sorted(set(given) - set(_NAMES_WITH[k]))
        if unused:
            raise ValueError(f"kernel={k!r} takes no {', '.join(unused)}; leave "
                             f"{'it' if len(unused) == 1 else 'them'} None")
        if k == "precomputed":
            return "precomputed", None
        if "degree" in given:
            d = given["degree"]
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
                raise ValueError(f"degree must be an integer >= 1, got {d!r}")
        for name in ("gamma", "coef0"):
            v = given.get(name)
            if v is not None and (isinstance(v, bool) or not isinstance(
                    v, (int, float, np.number)) or not np.isfinite(v)):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if given.get("gamma") is not None and given["gamma"] <= 0:
            raise ValueError(f"gamma must be > 0, got {given['gamma']!r}")
        kern = get_kernel(k, **given)
    else:
        if given:
            raise ValueError(f"degree, gamma and coef0 apply to kernel names only; set "
                             f"them on the kernel object (got {sorted(given)})")
        if not (isinstance(k, Kernel) or callable(k)):
            raise ValueError(f"kernel must be a name, a kernel object or a callable, got "
                             f"{k!r}")
        kern = get_kernel(k)
    return ("conjunction" if isinstance(kern, Conjunction) else "float"), kern


def gate_rows(X, kind, n_features, estimator_name):
    """Canonical rows for a kernel of this kind: PackedBits for the conjunction kernel, else
    float64 2-D (sparse input densified); for "precomputed" at fit, a square Gram.
    ``n_features`` (at predict) is the width the model was fitted on."""
    if kind == "conjunction":
        P = X if isinstance(X, PackedBits) else pack_bits(X.toarray() if is_sparse(X) else X)
        P = _check_packed(P, "X")
        if n_features is not None:
            check_n_features(P, n_features, estimator_name)
        return P
    Xc = np.ascontiguousarray(check_X(X.toarray() if is_sparse(X) else X), dtype=np.float64)
    if kind == "precomputed" and n_features is None and Xc.shape[0] != Xc.shape[1]:
        raise ValueError(f"X: with kernel='precomputed', fit needs the square (n, n) training "
                         f"Gram matrix, got shape {Xc.shape}")
    if n_features is not None:
        check_n_features(Xc, n_features, estimator_name)
    return Xc


class KernelPerceptron(PerceptronMixin, ClassifierMixin, BaseEstimator):
    """The kernel (dual) perceptron, plain or averaged, binary or K-class (argmax).

    Parameters
    ----------
    kernel : str, Kernel or callable, default="rbf"
        "linear", "poly", "rbf", "conjunction", "precomputed" (X is then the Gram matrix:
        (n, n) at fit, (m, n_train) at predict), a `perceptron_c.kernels` object (sums,
        products and scalings included) or a callable ``k(X, Y) -> Gram``.
    degree, gamma, coef0 : kernel parameters for the names "poly" ((gamma x.y + coef0)^degree,
        defaults 3, 1.0, 1.0) and "rbf" (exp(-gamma ||x - y||^2), gamma None = 1/n_features).
    fit_intercept : bool, default=True
        Learn b, updated by b += y on a mistake, as in the primal perceptron.
    max_iter : int, default=100
        Maximum number of epochs; training stops earlier after an epoch with no mistake.
    shuffle, random_state : as in `Perceptron` (the same seed gives the same orders).
    average : bool, default=False
        Survival-weighted average of the dual coefficients (CIML ch. 4, Alg. 7, lazily).
    warm_start : bool, default=False
        ``fit`` keeps the current support vectors and coefficients and continues.
    verbose : int, default=0
        One progress line per epoch on stderr.
    max_gram_bytes : int, default=512 MiB
        Memory for kernel matrices. A training Gram that fits is cached; otherwise kernel
        rows are computed block by block (same result, more kernel evaluations).

    Attributes
    ----------
    support_ : int64 array, index in the last training batch of each support vector (-1 for
        support vectors kept from an earlier ``partial_fit``/warm-started ``fit``)
    support_vectors_ : float64 array (n_support, n_features), or `PackedBits` for the
        conjunction kernel; None for "precomputed"
    dual_coef_ : (1, n_support) for two classes, (n_classes, n_support) otherwise: the signed
        mistake counts (averaged coefficients when ``average=True``)
    intercept_ : (1,) or (n_classes,)
    n_support_ : int, classes_, n_features_in_, n_iter_, mistakes_, converged_ as `Perceptron`
    """

    def __init__(self, kernel="rbf", degree=None, gamma=None, coef0=None, fit_intercept=True,
                 max_iter=100, shuffle=True, random_state=None, average=False,
                 warm_start=False, verbose=0, max_gram_bytes=512 * 2**20):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.warm_start = warm_start
        self.verbose = verbose
        self.max_gram_bytes = max_gram_bytes

    if HAVE_SKLEARN:
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.pairwise = self.kernel == "precomputed"
            return tags

    # ------------------------------------------------------------------ parameters
    def _resolve_kernel(self):
        return resolve_kernel(self.kernel, self.degree, self.gamma, self.coef0)

    def _check_params(self):
        self._check_flags("fit_intercept", "shuffle", "average", "warm_start")
        self._check_ints(max_iter=1, verbose=0, max_gram_bytes=1)
        return self._resolve_kernel()

    # ------------------------------------------------------------------ input
    def _gate_X(self, X, kind, fitting):
        return gate_rows(X, kind, None if fitting else self.n_features_in_, type(self).__name__)

    # ------------------------------------------------------------------ training
    def fit(self, X, y):
        """Train for up to ``max_iter`` epochs; stop after an epoch with no mistake."""
        kind, kern = self._check_params()
        Xc = self._gate_X(X, kind, fitting=True)
        yc = check_y(y, Xc.shape[0])
        classes, y_idx = encode_labels(yc)
        self._check_two_classes(classes)
        warm = self.warm_start and hasattr(self, "classes_")
        if warm:
            if kind == "precomputed":
                raise ValueError("warm_start is not available with kernel='precomputed' (the "
                                 "Gram between old support vectors and new rows is unknown)")
            self._check_continuation(Xc, classes, kind)
        else:
            self._init_state(classes, kind, Xc, draw_seed(self.random_state))
        self._train(Xc, y_idx, kind, kern, self.max_iter, reset_history=True)
        return self

    @available_if(lambda est: not (isinstance(est.kernel, str) and est.kernel == "precomputed"))
    def partial_fit(self, X, y, classes=None):
        """One epoch over this batch, keeping the support vectors of earlier calls.

        ``classes`` (every label the model will ever see) is required on the first call. Not
        available with ``kernel="precomputed"`` (the Gram between old support vectors and new
        rows is unknown).
        """
        kind, kern = self._check_params()
        Xc = self._gate_X(X, kind, fitting=True)
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
        self._train(Xc, y_idx, kind, kern, 1, reset_history=False)
        return self

    def _check_continuation(self, Xc, classes, kind):
        if kind != self._kind:
            raise ValueError(f"the model was trained with a {self._kind} kernel, not {kind}")
        check_n_features(Xc, self.n_features_in_, type(self).__name__)
        self._check_same_classes(classes)

    def _init_state(self, classes, kind, Xc, seed):
        rows = 1 if len(classes) == 2 else len(classes)
        exact = kind == "conjunction"
        dtype = np.int64 if exact else np.float64
        self._kind = kind
        self._seed = seed
        self._epochs_seen = 0
        self.classes_ = classes
        self.n_features_in_ = Xc.shape[1]
        if kind == "conjunction":
            self._sv = PackedBits(np.zeros((0, Xc.words.shape[1]), np.uint64), Xc.n_bits)
        elif kind == "precomputed":
            self._sv = np.zeros(0, dtype=np.int64)
        else:
            self._sv = np.zeros((0, Xc.shape[1]))
        self._alpha = np.zeros((rows, 0), dtype=dtype)
        self._b = np.zeros(rows, dtype=dtype)
        if self.average:
            self._u = np.zeros((rows, 0), dtype=dtype)
            self._beta = np.zeros(rows, dtype=dtype)
            self._count = np.ones(1, dtype=np.int64)
        self.support_ = np.zeros(0, dtype=np.int64)
        self.mistakes_ = np.zeros(0, dtype=np.int64)
        self.n_iter_ = 0
        self.converged_ = False
        self._publish()

    def _pool(self, Xc, kind):
        """Old support vectors followed by the new rows (the examples alpha is indexed by)."""
        if kind == "conjunction":
            return PackedBits(np.ascontiguousarray(np.vstack([self._sv.words, Xc.words])),
                              Xc.n_bits)
        if kind == "precomputed":
            return Xc
        return np.ascontiguousarray(np.vstack([self._sv, Xc]))

    def _kernel_rows(self, kern, kind, pool, rows):
        """K(pool[rows], pool): float64, or int32 exponents for the conjunction kernel."""
        if kind == "conjunction":
            sub = PackedBits(np.ascontiguousarray(pool.words[rows]), pool.n_bits)
            return kern.log2_gram(sub, pool).astype(np.int32)
        if kind == "precomputed":
            return np.ascontiguousarray(pool[rows])
        # every kernel object checks its own output (finite, right shape)
        return np.ascontiguousarray(kern(pool[rows], pool), dtype=np.float64)

    def _train(self, Xc, y_idx, kind, kern, epochs, reset_history):
        dual = _backend.dual
        n_old = self._alpha.shape[1]
        pool = self._pool(Xc, kind)
        n_pool = n_old + Xc.shape[0]
        rows_k = self._alpha.shape[0]
        joint = rows_k > 1
        pad = ((0, 0), (0, Xc.shape[0]))
        alpha = np.ascontiguousarray(np.pad(self._alpha, pad))
        b = self._b.copy()
        avg = self.average
        if avg:
            u = np.ascontiguousarray(np.pad(self._u, pad))
            beta, count = self._beta.copy(), self._count.copy()
        # labels over the whole pool; old support vectors are never visited again
        y_pool = np.concatenate([np.zeros(n_old, np.int64), y_idx])
        y_arg = y_pool if joint else np.where(y_pool == 1, 1.0, -1.0)
        exact = kind == "conjunction"
        item = 4 if exact else 8
        cached = not exact and n_pool * n_pool * item <= self.max_gram_bytes
        if cached:
            if kind == "precomputed":
                G = np.ascontiguousarray(pool, dtype=np.float64)
            else:  # k(pool) rather than k(pool, pool): the symmetric product is half the work
                G = np.ascontiguousarray(kern(pool), dtype=np.float64)
            scores = np.ascontiguousarray(alpha @ G) if n_old else np.zeros(alpha.shape)
        block = max(1, min(Xc.shape[0], self.max_gram_bytes // max(1, n_pool * item)))
        E_full = None
        if exact and n_pool * n_pool * item <= self.max_gram_bytes:
            E_full = self._kernel_rows(kern, kind, pool, np.arange(n_pool))
        history = [] if reset_history else list(self.mistakes_)
        extra = (u, beta, count) if avg else ()
        for _ in range(epochs):
            tic = time.perf_counter()
            order = n_old + epoch_order(self._seed, self._epochs_seen, Xc.shape[0],
                                        self.shuffle)
            if cached:
                fn = dual.multiclass_dual_epoch_cached if joint else dual.dual_epoch_cached
                a, s, ex = (alpha, scores, extra) if joint else (
                    alpha[0], scores[0], (u[0], beta, count) if avg else ())
                mistakes = fn(G, y_arg, order, a, b, s, self.fit_intercept, *ex)
            else:
                if exact:
                    fn = (dual.multiclass_conjunction_epoch_rows if joint
                          else dual.conjunction_epoch_rows)
                else:
                    fn = dual.multiclass_dual_epoch_rows if joint else dual.dual_epoch_rows
                a = alpha if joint else alpha[0]
                ex = extra if joint or not avg else (u[0], beta, count)
                mistakes = 0
                for start in range(0, order.shape[0], block):
                    rows = np.ascontiguousarray(order[start:start + block])
                    K = (np.ascontiguousarray(E_full[rows]) if E_full is not None
                         else self._kernel_rows(kern, kind, pool, rows))
                    mistakes += fn(K, rows, y_arg, a, b, self.fit_intercept, *ex)
            self._epochs_seen += 1
            history.append(int(mistakes))
            if self.verbose:
                report_epoch(type(self).__name__, len(history), mistakes, Xc.shape[0],
                             time.perf_counter() - tic)
            if mistakes == 0:
                break
        # keep the examples that carry weight: nonzero alpha, or nonzero averaging sum
        keep = np.any(alpha != 0, axis=0)
        if avg:
            keep |= np.any(u != 0, axis=0)
        idx = np.flatnonzero(keep)
        if kind == "conjunction":
            self._sv = PackedBits(np.ascontiguousarray(pool.words[idx]), pool.n_bits)
        elif kind == "precomputed":
            self._sv = idx.astype(np.int64)
        else:
            self._sv = np.ascontiguousarray(pool[idx])
        self._alpha = np.ascontiguousarray(alpha[:, idx])
        self._b = b
        if avg:
            self._u, self._beta, self._count = np.ascontiguousarray(u[:, idx]), beta, count
        self.support_ = np.where(idx < n_old, -1, idx - n_old).astype(np.int64)
        self.mistakes_ = np.asarray(history, dtype=np.int64)
        self.n_iter_ = len(history)
        self.converged_ = bool(history) and history[-1] == 0
        self._publish()

    def _publish(self):
        """dual_coef_, intercept_ and the support vector views from the state."""
        if self.average:
            c = float(self._count[0])
            self.dual_coef_ = self._alpha - self._u / c
            self.intercept_ = self._b - self._beta / c
        else:
            self.dual_coef_ = self._alpha.astype(np.float64)
            self.intercept_ = self._b.astype(np.float64)
        self.n_support_ = int(self._alpha.shape[1])
        self.support_vectors_ = None if self._kind == "precomputed" else self._sv

    # ------------------------------------------------------------------ prediction
    def _exact_coefs(self):
        """Integer coefficients and bias whose sums have the decision's sign, and the divisor."""
        if self.average:
            c = int(self._count[0])
            return c * self._alpha - self._u, c * self._b - self._beta, c
        return self._alpha, self._b, 1

    def _blocks(self, m):
        step = max(1, self.max_gram_bytes // max(1, 8 * max(1, self.n_support_)))
        return [(s, min(m, s + step)) for s in range(0, m, step)]

    def _scores(self, X, argmax=False):
        self._check_fitted()
        kind, kern = self._resolve_kernel()
        Xc = self._gate_X(X, kind, fitting=False)
        m, rows_k = Xc.shape[0], self._alpha.shape[0]
        out = np.zeros((m, rows_k)) if not argmax else np.zeros(m, dtype=np.int64)
        if self.n_support_ == 0:
            if argmax:
                out[:] = int(np.argmax(self.intercept_))
            else:
                out[:] = self.intercept_
            return out
        if kind == "conjunction":
            coef, bias, c = self._exact_coefs()
            coef, bias = np.ascontiguousarray(coef), np.ascontiguousarray(bias)
            for s, e in self._blocks(m):
                sub = PackedBits(np.ascontiguousarray(Xc.words[s:e]), Xc.n_bits)
                E = kern.log2_gram(sub, self._sv).astype(np.int32)
                if argmax:
                    _backend.dual.conjunction_argmax(E, coef, bias, out[s:e])
                else:
                    _backend.dual.conjunction_decision(E, coef, bias, out[s:e])
            return out if argmax else out / c
        coef = self.dual_coef_
        for s, e in self._blocks(m):
            K = Xc[s:e][:, self._sv] if kind == "precomputed" else kern(Xc[s:e], self._sv)
            out[s:e] = K @ coef.T + self.intercept_
        if argmax:
            return np.argmax(out, axis=1)
        return out

    def decision_function(self, X):
        """f(x) for each row: shape (n,) for two classes, (n, n_classes) otherwise."""
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        """The label of each row (binary: ``classes_[1]`` where f(x) > 0; K-class: argmax,
        ties to the lowest class; exact comparisons for the conjunction kernel)."""
        kind = self._resolve_kernel()[0] if hasattr(self, "classes_") else None
        if kind == "conjunction" and self._alpha.shape[0] > 1:
            idx = self._scores(X, argmax=True)
        else:
            s = self._scores(X)
            idx = (s[:, 0] > 0).astype(np.int64) if s.shape[1] == 1 else np.argmax(s, axis=1)
        return self.classes_[idx]

    # ------------------------------------------------------------------ persistence
    def _state_arrays(self):
        arrays = self._common_state()
        arrays.update(support_=self.support_, alpha=self._alpha, b=self._b)
        if self._kind == "conjunction":
            arrays["sv_words"] = self._sv.words
        else:
            arrays["sv"] = self._sv
        if self.average:
            arrays.update(u=self._u, beta=self._beta, count=self._count)
        return arrays

    @classmethod
    def _from_state(cls, params, arrays):
        est = cls(**params)
        kind, _ = est._check_params()
        need = {"support_", "alpha", "b"}
        need |= {"sv_words"} if kind == "conjunction" else {"sv"}
        if est.average:
            need |= {"u", "beta", "count"}
        k, d = est._restore_common_state(arrays, need)
        rows = 1 if k == 2 else k
        dtype = np.int64 if kind == "conjunction" else np.float64
        alpha = np.asarray(arrays["alpha"])
        n_sv = alpha.shape[1] if alpha.ndim == 2 else -1

        est._alpha = state_array(arrays, "alpha", (rows, n_sv), dtype)
        est._b = state_array(arrays, "b", (rows,), dtype)
        if kind == "conjunction":
            words = state_array(arrays, "sv_words", (n_sv, (d + 63) // 64), np.uint64)
            est._sv = _check_packed(PackedBits(words, d), "sv_words") if n_sv else \
                PackedBits(words, d)
        elif kind == "precomputed":
            est._sv = state_array(arrays, "sv", (n_sv,), np.int64)
            if n_sv and (est._sv.min() < 0 or est._sv.max() >= d):
                raise ValueError("model file: support indices out of range")
        else:
            est._sv = state_array(arrays, "sv", (n_sv, d), np.float64)
        if est.average:
            est._u = state_array(arrays, "u", (rows, n_sv), dtype)
            est._beta = state_array(arrays, "beta", (rows,), dtype)
            est._count = state_array(arrays, "count", (1,), np.int64)
            if est._count[0] < 1:
                raise ValueError("model file: count must be >= 1")
        est._kind = kind
        est.support_ = state_array(arrays, "support_", (n_sv,), np.int64)
        est._publish()
        return est
