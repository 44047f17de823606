# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_dicts_py``: the same calls, in C from the dict to the update.

The Python twin is the specification (read its module docstring). A dict is read as
``_dictrows.pxd`` reads it: PyDict_Next, each value checked where it lies, each name's column
from the model's index (or from the schema of the keys last learned, which also spares the
sort), the row in column order on the stack; then the score, or the update by the C twins' own
cores (``_linear_c``, ``_sgd_c``, ``_budget_c``, cimported: the code ``learn_many`` runs) on
that one-row CSR. An object takes pointers to the model's arrays once, when it is built; a
call costs its example. The GIL is held throughout (a call lasts microseconds), so a
prediction never sees a learning call half done.
"""
from cpython.dict cimport PyDict_Check
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy, memset

import numbers
from collections.abc import Mapping as _Mapping

import numpy as np

from perceptron_c._core._budget_c cimport Sup, budget_rows, projectron_rows
from perceptron_c._core._checks cimport need, non_finite
from perceptron_c._core._dictrows cimport (POLY, SMALL, Kern, Row, Schema, Sparse, free_row,
                                           read_row, sparse_kernel, update_schema)
from perceptron_c._core._lanes cimport dot4, dot4_averaged, dot4_indexed, sqnorm4_cols
from perceptron_c._core._linear_c cimport binary_epoch, multiclass_epoch
from perceptron_c._core._sgd_c cimport (SGD_AVERAGE_B, SGD_ETA0, SGD_INTERCEPT, SGD_N_PARAMS,
                                        SGD_N_STATE, SGD_OBJECTIVE, SGD_PENALTY_NONE,
                                        SGD_RATE_PA2, SGD_SQ_NORM, SGD_SUMLOSS, SGD_WSCALE,
                                        sgd_epoch, sgd_options)

from perceptron_c._core._dicts_py import KERNELS, STRATEGIES
from perceptron_c._core._dicts_py import __all__  # no-cython-lint: listed once (test_twins)

NEW_NAMES = -1
NO_ROOM = -2

cdef tuple _REAL = (numbers.Real, np.bool_)  # the real numbers besides float and int


cdef object _dict(object x):
    if PyDict_Check(x):
        return x
    if isinstance(x, _Mapping):
        return dict(x)
    raise TypeError(f"x must be a dict of feature name -> number, got {type(x).__name__}")


cdef class _DictCalls:
    """What the calls share: the model's index of names, the schema of the keys last
    learned (_dictrows.pxd), the arrays they point into (kept alive)."""
    cdef dict index
    cdef object arrays
    cdef Py_ssize_t width
    cdef Schema schema
    cdef tuple keys

    def __cinit__(self):
        self.schema.n = self.schema.hits = self.schema.misses = 0
        self.schema.cols = self.schema.perm = NULL
        self.keys = ()

    def __dealloc__(self):
        PyMem_Free(self.schema.cols)

    cdef int _read(self, object x, Row* row) except -1:
        row.heap = NULL
        return read_row(_dict(x), self.index, self.width, row, &self.schema, self.keys, _REAL)

    cdef int _learned(self, object x, const Row* row) except -1:
        """After a learning call: the schema learns the order of x's keys."""
        if update_schema(&self.schema, row):
            self.keys = tuple(x)
        return 0


def dict_row(x, dict index, Py_ssize_t width):
    cdef Row row
    cdef Schema none
    cdef Py_ssize_t c
    none.n = 0
    row.heap = NULL
    try:
        x = _dict(x)
        read_row(x, index, width, &row, &none, (), _REAL)
        data = np.empty(row.m)
        indices = np.empty(row.m, dtype=np.int32)
        for c in range(row.m):
            data[c] = row.values[c]
            indices[c] = row.cols[c]
        new = [name for c, name in enumerate(x) if row.entries[c].col < 0 and
               row.entries[c].value == row.entries[c].value]
    finally:
        free_row(&row)
    return data, indices, new


# ------------------------------------------------------------------------------ scores
cdef inline double _score(const double* x, const int32_t* cols, Py_ssize_t m, const double* w,
                          const double* u, double c) noexcept nogil:
    """The 4-lane sum of x[k] * w[j] (u NULL) or x[k] * (w[j] - u[j] / c), j = cols[k]."""
    return dot4_indexed(x, cols, w, m) if u == NULL else dot4_averaged(x, cols, w, u, c, m)


cdef double* _ptr2(object a, Py_ssize_t r, Py_ssize_t d, str what) except NULL:
    cdef double[:, ::1] v = a
    need(v.shape[0] == r and v.shape[1] == d and d >= 1, f"{what} must be ({r}, {d})")
    return &v[0, 0] if r else <double*>1  # never read when r == 0


cdef double* _ptr1(object a, Py_ssize_t n, str what) except NULL:
    cdef double[::1] v = a
    need(v.shape[0] == n, f"{what} must have length {n}")
    return &v[0] if n else <double*>1


cdef class LinearDicts(_DictCalls):
    """The perceptrons' calls on dicts (_dicts_py.LinearDicts)."""
    cdef double* W
    cdef double* b
    cdef double* U
    cdef double* beta
    cdef int64_t* count
    cdef Py_ssize_t R
    cdef bint fit_intercept, normalize

    def __init__(self, dict index, W, b, U, beta, count, fit_intercept, normalize):
        cdef int64_t[::1] cv
        need((U is None) == (beta is None) == (count is None), "U, beta and count go together")
        self.index, self.arrays = index, (W, b, U, beta, count)
        self.R, self.width = W.shape[0], W.shape[1]
        self.W = _ptr2(W, self.R, self.width, "W")
        self.b = _ptr1(b, self.R, "b")
        self.U = self.beta = NULL
        self.count = NULL
        if U is not None:
            self.U = _ptr2(U, self.R, self.width, "U")
            self.beta = _ptr1(beta, self.R, "beta")
            cv = count
            need(cv.shape[0] == 1 and cv[0] >= 1, "count must have shape (1,) and be >= 1")
            self.count = &cv[0]
        self.fit_intercept, self.normalize = fit_intercept, normalize

    cdef double _row_score(self, const Row* row, Py_ssize_t k) noexcept:
        cdef double c = <double>self.count[0] if self.count != NULL else 1.0
        cdef double s = _score(row.values, row.cols, row.m, self.W + k * self.width,
                               self.U + k * self.width if self.U != NULL else NULL, c)
        if self.U == NULL:
            return s + self.b[k]
        return s + (self.b[k] - self.beta[k] / c)

    def decision(self, x):
        cdef Row row
        need(self.R >= 1, "W must have a row")
        try:
            self._read(x, &row)
            return self._row_score(&row, 0)
        finally:
            free_row(&row)

    def argmax(self, x):
        cdef Row row
        cdef Py_ssize_t k, best = 0
        cdef double s, top = 0.0
        need(self.R >= 1, "W must have a row")
        try:
            self._read(x, &row)
            for k in range(self.R):  # numpy.argmax: the first highest, the first NaN
                s = self._row_score(&row, k)
                if s != s:
                    return k
                if k == 0 or s > top:
                    best, top = k, s
            return best
        finally:
            free_row(&row)

    def scores(self, const double[::1] data, const int32_t[::1] indices,
               const int64_t[::1] indptr, double[:, ::1] out):
        cdef Row row
        cdef Py_ssize_t i, k, n = out.shape[0]
        need(out.shape[0] == indptr.shape[0] - 1 and out.shape[1] == self.R,
             "out must have shape (n_rows, R)")
        for k in range(indices.shape[0]):
            if not 0 <= indices[k] < self.width:
                raise ValueError(f"indices must lie in [0, {self.width})")
        for i in range(n):
            row.m = indptr[i + 1] - indptr[i]
            row.values = <double*>&data[indptr[i]] if row.m else NULL
            row.cols = <int32_t*>&indices[indptr[i]] if row.m else NULL
            for k in range(self.R):
                out[i, k] = self._row_score(&row, k)

    def learn_binary(self, x, double y):
        cdef Row row
        cdef int64_t indptr[2]
        cdef int64_t order = 0
        cdef Py_ssize_t r
        need(self.R == 1, "W must have one row")
        try:
            self._read(x, &row)
            if row.new:
                return NEW_NAMES
            indptr[0], indptr[1] = 0, row.m
            r = binary_epoch(row.values, row.cols, indptr, self.width, &y, &order, 1, self.W,
                             self.b, self.U, self.beta, self.count, self.fit_intercept,
                             self.normalize, NULL, NULL)
            self._learned(x, &row)
        finally:
            free_row(&row)
        if r < 0:
            non_finite(0, 0)
        return r

    def learn_class(self, x, int64_t y):
        cdef Row row
        cdef int64_t indptr[2]
        cdef int64_t order = 0
        cdef Py_ssize_t r
        try:
            self._read(x, &row)
            if not 0 <= y < self.R:
                raise ValueError(f"y must be a class index in [0, {self.R})")
            if row.new:
                return NEW_NAMES
            indptr[0], indptr[1] = 0, row.m
            r = multiclass_epoch(row.values, row.cols, indptr, self.width, &y, &order, 1,
                                 self.R, self.W, self.b, self.U, self.beta, self.count,
                                 self.fit_intercept, self.normalize, NULL)
            self._learned(x, &row)
        finally:
            free_row(&row)
        if r < 0:
            non_finite(0, 0)
        return r


cdef class SGDDicts(_DictCalls):
    """The passive-aggressive calls on dicts (_dicts_py.SGDDicts)."""
    cdef double* w
    cdef double* state
    cdef double* params
    cdef sgd_options opt

    def __init__(self, dict index, W, state, params, int loss, int learning_rate,
                 fit_intercept):
        self.index, self.arrays = index, (W, state, params)
        need(W.ndim == 2 and W.shape[0] == 1 and W.shape[1] >= 1, "W must be (1, d), d >= 1")
        self.width = W.shape[1]
        self.w = _ptr2(W, 1, self.width, "W")
        need(state.shape == (SGD_N_STATE,) and params.shape == (SGD_N_PARAMS,),
             f"state must have length {SGD_N_STATE} and params {SGD_N_PARAMS}")
        self.state = _ptr1(state, SGD_N_STATE, "state")
        self.params = _ptr1(params, SGD_N_PARAMS, "params")
        need(0 <= loss <= 3 and 0 <= learning_rate <= 3, "loss and learning_rate must be "
             "LOSS_* and RATE_* constants")
        need(self.state[SGD_WSCALE] == 1.0 and self.state[SGD_AVERAGE_B] > 0 and
             not self.state[SGD_SQ_NORM] < 0, "state must come from sgd_start, its weight "
             "scale 1")
        need(learning_rate != SGD_RATE_PA2 or 0 < self.params[SGD_ETA0] < float("inf"),
             "params[ETA0] (C) must be positive and finite with RATE_PA2")
        self.opt = sgd_options(loss, learning_rate, SGD_PENALTY_NONE, fit_intercept, False)

    def decision(self, x):
        cdef Row row
        try:
            self._read(x, &row)
            return _score(row.values, row.cols, row.m, self.w, NULL, 1.0) + \
                self.state[SGD_INTERCEPT]
        finally:
            free_row(&row)

    def learn(self, x, double y):
        cdef Row row
        cdef int64_t indptr[2]
        cdef int64_t order = 0
        cdef double one = 1.0
        cdef Py_ssize_t r
        try:
            self._read(x, &row)
            if row.new:
                return NEW_NAMES
            indptr[0], indptr[1] = 0, row.m
            self.state[SGD_SUMLOSS] = self.state[SGD_OBJECTIVE] = 0.0
            r = sgd_epoch(row.values, row.cols, indptr, self.width, &y, &one, &order, 1,
                          self.w, NULL, NULL, self.state, self.params, &self.opt)
            self._learned(x, &row)
        finally:
            free_row(&row)
        if r < 0:
            raise FloatingPointError("non-finite weights or intercept after position 0 of the "
                                     "visiting order (row 0): the weights overflow float64")
        return r


# ------------------------------------------------------------------------- the budget model
cdef class BudgetDicts(_DictCalls):
    """The budget kernel perceptron's calls on dicts (_dicts_py.BudgetDicts). A support vector
    is a sparse row (its entries, columns increasing), and a kernel value reads the entries of
    its two rows only: x . sv and the differences in lanes by column (_lanes.pxd's dot4_merge
    and sqnorm4_halfdiff: the dense rows' zeros add nothing to a lane), the support vectors'
    squared norms kept beside them (svn). A call costs the entries of x and of the support
    vectors, whatever the number of names seen."""
    cdef object rng, scratch
    cdef double* sv
    cdef int32_t* svc
    cdef int64_t* svm  # the entries of each support vector
    cdef double* svn
    cdef double* alpha
    cdef double* b
    cdef int64_t* stamp
    cdef int64_t* counts
    cdef double* q
    cdef double* kinv
    cdef double* u
    cdef double* beta
    cdef int64_t* count
    cdef Py_ssize_t cap, budget, L
    cdef Kern kern
    cdef int policy  # _budget_py: 0 stop, 1 random, 2 oldest
    cdef bint forgetron, projectron, aggressive, fit_intercept
    cdef double eta
    cdef double* xv  # learn's scratch: x's entries (L), K (two rows), buffers
    cdef int32_t* xc
    cdef double* K
    cdef double* kbuf
    cdef double* dbuf
    cdef int64_t* slots

    def __init__(self, dict index, Py_ssize_t width, tuple arrays, tuple kernel, str strategy,
                 Py_ssize_t budget, double eta, fit_intercept, rng):
        cdef int64_t[::1] iv
        cdef int32_t[:, ::1] cv
        cdef int32_t[::1] xcv
        cdef double[::1] fv
        cdef Py_ssize_t s
        need(len(arrays) == 12 and len(kernel) == 4, "arrays must hold 12 arrays, kernel 4 "
             "values")
        need(kernel[0] in KERNELS and strategy in STRATEGIES, f"kernel must be one of "
             f"{KERNELS} and strategy one of {STRATEGIES}")
        need(isinstance(kernel[1], (int, float)), "kernel[1] (gamma) must be a number")
        sv, svc, svm, alpha, b, stamp, counts, q, kinv, u, beta, count = arrays
        self.index, self.arrays, self.rng, self.width = index, arrays, rng, width
        self.cap, self.L, self.budget = alpha.shape[1], sv.shape[1], budget
        need(1 <= self.cap <= budget and self.L >= 1 and width >= 1, "arrays must be (sv (cap, "
             "L), sv_indices (cap, L), sv_nnz (cap,), alpha (1, cap), ...) with 1 <= cap <= "
             "budget and L >= 1, and width >= 1")
        self.sv = _ptr2(sv, self.cap, self.L, "sv")
        cv = svc
        need(cv.shape[0] == self.cap and cv.shape[1] == self.L,
             f"sv_indices must be ({self.cap}, {self.L})")
        self.svc = &cv[0, 0]
        iv = svm
        need(iv.shape[0] == self.cap, f"sv_nnz must have length {self.cap}")
        self.svm = &iv[0]
        self.alpha = _ptr2(alpha, 1, self.cap, "alpha")
        self.b = _ptr1(b, 1, "b")
        self.q = _ptr1(q, 1, "q")
        iv = stamp
        need(iv.shape[0] == self.cap, f"stamp must have length {self.cap}")
        self.stamp = &iv[0]
        iv = counts
        need(iv.shape[0] == 5, "counts must have shape (5,)")
        self.counts = &iv[0]
        self.projectron = strategy.startswith("projectron")
        self.kinv = _ptr2(kinv, self.cap, self.cap, "Kinv") if self.projectron else NULL
        need((u is None) == (beta is None) == (count is None), "u, beta and count go together")
        self.u = self.beta = NULL
        self.count = NULL
        if u is not None:
            self.u = _ptr2(u, 1, self.cap, "u")
            self.beta = _ptr1(beta, 1, "beta")
            iv = count
            need(iv.shape[0] == 1 and iv[0] >= 1, "count must have shape (1,) and be >= 1")
            self.count = &iv[0]
        self.kern = Kern(KERNELS.index(kernel[0]), kernel[1], kernel[2], kernel[3])
        self.forgetron, self.aggressive = strategy == "forgetron", strategy == "projectron++"
        self.policy = {"stoptron": 0, "random": 1}.get(strategy, 2)
        self.eta, self.fit_intercept = eta, fit_intercept
        self.scratch = (np.zeros(self.L + 6 * self.cap + 2),
                        np.full(4 * self.cap, -1, dtype=np.int64),
                        np.zeros(self.L, dtype=np.int32))
        fv = self.scratch[0]
        self.xv, self.svn = &fv[0], &fv[self.L]
        self.K = self.svn + self.cap
        self.kbuf = self.K + 2 * (self.cap + 1)
        self.dbuf = self.kbuf + 2 * self.cap
        iv = self.scratch[1]
        self.slots = &iv[0]
        xcv = self.scratch[2]
        self.xc = &xcv[0]
        self._entries(self.cap)
        for s in range(self.cap):
            self.svn[s] = sqnorm4_cols(self.sv + s * self.L, self.svc + s * self.L, self.svm[s])

    cdef int _entries(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t s
        cdef bint ok = True
        for s in range(n):
            ok = ok and 0 <= self.svm[s] <= self.L
        need(ok, f"sv_nnz must lie in [0, {self.L}]")
        return 0

    cdef Py_ssize_t _held(self) except -1:
        cdef Py_ssize_t n = self.counts[0]
        need(0 <= n <= self.cap, "counts[0] must lie in [0, cap]")
        self._entries(n)
        return n

    cdef inline Sparse _sv(self, Py_ssize_t s) noexcept:
        return Sparse(self.sv + s * self.L, self.svc + s * self.L, self.svm[s], self.svn[s])

    cdef int _kernel_row(self, const Sparse* x, Py_ssize_t n, double* out) except -1:
        """out[s] = k(x, sv_s), s < n. OverflowError if a value is not finite."""
        cdef Py_ssize_t s
        cdef Sparse v
        cdef bint finite = True
        for s in range(n):
            v = self._sv(s)
            out[s] = sparse_kernel(&self.kern, x, &v)
            finite = finite and isfinite(out[s])
        if not finite:
            _overflow(self.kern.kind)
        return 0

    def decision(self, x):
        cdef Row row
        cdef Sparse xs
        cdef double small[2 * SMALL]
        cdef double* mem = small  # the kernel values, then the coefficients
        cdef Py_ssize_t k, n
        cdef double c, bias
        row.heap = NULL
        try:
            self._read(x, &row)
            # the model is read from here on, where no Python code runs: one state of it
            n = self._held()
            c = <double>self.count[0] if self.count != NULL else 1.0
            bias = self.b[0] if self.count == NULL else self.b[0] - self.beta[0] / c
            if n == 0:
                return bias
            if n > SMALL:
                mem = <double*>PyMem_Malloc(2 * n * sizeof(double))
                if mem == NULL:
                    raise MemoryError()
            xs = Sparse(row.values, row.cols, row.m, sqnorm4_cols(row.values, row.cols, row.m))
            self._kernel_row(&xs, n, mem)
            for k in range(n):
                mem[n + k] = self.alpha[k] if self.u == NULL else self.alpha[k] - self.u[k] / c
            # cached_scores leaves zero coefficients out: the same sum (every kernel value is
            # finite, and a lane that starts at +0 stays the same when +-0 is added)
            return dot4(mem + n, mem, n) + bias
        finally:
            free_row(&row)
            if mem != small:
                PyMem_Free(mem)

    def learn(self, x, int64_t y):
        cdef Row row
        cdef Sparse xs, a, v
        cdef Py_ssize_t s, n, r, m = 0, n0 = 0, old = -1, cap = self.cap, L = self.L
        cdef int64_t first = 0, where = -1, rand = 0
        cdef int64_t info[2]
        cdef double f
        cdef Sup S
        need(y == 0 or y == 1, "y must be 0 (negative) or 1 (positive)")
        try:
            self._read(x, &row)
            if row.new:
                return NEW_NAMES
            self._learned(x, &row)
            n0 = self._held()
            if n0 == cap < self.budget or row.m > L:
                return NO_ROOM
            m = row.m
            memcpy(self.xv, row.values, m * sizeof(double))
            memcpy(self.xc, row.cols, m * sizeof(int32_t))
        finally:
            free_row(&row)
        xs = Sparse(self.xv, self.xc, m, sqnorm4_cols(self.xv, self.xc, m))
        self._kernel_row(&xs, n0, self.K)
        self.K[n0] = sparse_kernel(&self.kern, &xs, &xs)
        if self.forgetron and n0 == cap:  # the row of the slot a removal empties: the oldest
            old = 0
            for s in range(1, n0):
                if self.stamp[s] < self.stamp[old]:
                    old = s
            a = self._sv(old)
            for s in range(n0):
                v = self._sv(s)
                self.K[n0 + 1 + s] = sparse_kernel(&self.kern, &a, &v)
            self.K[2 * n0 + 1] = self.K[old]  # k(sv_old, x) = k(x, sv_old)
        for s in range((n0 + 1) * (2 if old >= 0 else 1)):
            if not isfinite(self.K[s]):
                _overflow(self.kern.kind)
        if self.policy == 1:  # a draw for every example, as the estimator draws
            rand = self.rng.integers(0, self.budget, dtype=np.int64)
            rand = rand if cap == self.budget else 0
        for s in range(cap):
            self.slots[s] = s if s < n0 else -1
            self.slots[cap + s] = 1 if s == old else -1
            self.slots[2 * cap + s] = self.stamp[s] if s < n0 else -1
            self.slots[3 * cap + s] = -1
        S.R, S.B, S.fi, S.avg = 1, cap, self.fit_intercept, self.count != NULL
        S.col, S.krow, S.stamp = self.slots, self.slots + cap, self.slots + 2 * cap
        S.example, S.where, S.counts = self.slots + 3 * cap, &where, self.counts
        S.c = self.count[0] if S.avg else 0
        S.alpha, S.b, S.u, S.beta = self.alpha, self.b, self.u, self.beta
        S.ia = S.ib = S.iu = S.ibeta = NULL
        if self.projectron:
            r = projectron_rows(&S, self.K, n0 + 1, &first, 0, 1, n0, &y, self.kinv, self.eta,
                                self.aggressive, self.kbuf, self.dbuf, &f)
        else:
            r = budget_rows(&S, self.K, n0 + 1, &first, 0, 1, n0, &y, self.policy, &rand,
                            self.q if self.forgetron else NULL, self.kbuf, &f, info)
        if S.avg:
            self.count[0] = S.c
        if r < 0:
            non_finite(0, 0)
        n = self.counts[0]
        for s in range(n):
            if self.slots[s] >= n0:  # the slot that took the example: its entries, then 0s
                memcpy(self.sv + s * L, self.xv, m * sizeof(double))
                memcpy(self.svc + s * L, self.xc, m * sizeof(int32_t))
                memset(self.sv + s * L + m, 0, (L - m) * sizeof(double))
                memset(self.svc + s * L + m, 0, (L - m) * sizeof(int32_t))
                self.svm[s], self.svn[s] = m, xs.sq
            self.stamp[s] = self.slots[2 * cap + s]
        return r


def lane_layout(const int32_t[::1] columns):
    cdef Py_ssize_t i
    cdef int64_t prev = -1
    out = np.empty(columns.shape[0], dtype=np.int64)
    cdef int64_t[::1] pos = out
    for i in range(columns.shape[0]):
        need(columns[i] > (columns[i - 1] if i else -1), "columns must be increasing and >= 0")
        prev = prev + 1 + (columns[i] - prev - 1) % 4
        pos[i] = prev
    return out


cdef int _overflow(int kind) except -1:
    raise OverflowError(f"the {'polynomial' if kind == POLY else 'linear'} Gram matrix does not "
                        "fit in float64 (a value overflowed to inf); rescale the data or the "
                        "kernel parameters")
