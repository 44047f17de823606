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
from libc.math cimport fabs, isfinite, ldexp, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy, memset

import numbers
from collections.abc import Mapping as _Mapping

import numpy as np

from perceptron_c._core._budget_c cimport Sup, budget_rows, projectron_rows
from perceptron_c._core._checks cimport need, non_finite
from perceptron_c._core._dictrows cimport SMALL, Row, Schema, free_row, read_row, update_schema
from perceptron_c._core._lanes cimport (dot4, dot4_averaged, dot4_cols, dot4_indexed, sqnorm4,
                                        sqnorm4_cols)
from perceptron_c._core._linear_c cimport binary_epoch, multiclass_epoch
from perceptron_c._core._sgd_c cimport (SGD_AVERAGE_B, SGD_ETA0, SGD_INTERCEPT, SGD_N_PARAMS,
                                        SGD_N_STATE, SGD_OBJECTIVE, SGD_PENALTY_NONE,
                                        SGD_RATE_PA2, SGD_SQ_NORM, SGD_SUMLOSS, SGD_WSCALE,
                                        sgd_epoch, sgd_options)

from perceptron_c._core._dicts_py import KERNELS, STRATEGIES
from perceptron_c._core._dicts_py import __all__  # no-cython-lint: listed once (test_twins)

cdef extern from *:  # _rbf.h's other functions serve _gram_c
    """
    #if defined(__GNUC__)
    #pragma GCC diagnostic ignored "-Wunused-function"
    #endif
    """

cdef extern from "_rbf.h":
    double pc_exp1(double x) noexcept nogil
    double pc_rbf_arg(double dot, double nrm, double tiny, double ng, int* flagged) noexcept nogil

NEW_NAMES = -1
NO_ROOM = -2

cdef enum:
    RBF = 0
    POLY = 1

cdef tuple _REAL = (numbers.Real, np.bool_)  # the real numbers besides float and int
cdef double TINY = ldexp(1.0, -30)  # _gram_py.gram_rbf's test of a cancelled distance


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
cdef struct Kern:
    int kind  # RBF, POLY, or linear
    double gamma
    int degree
    double coef0


cdef double _direct(const double* a, const double* b, Py_ssize_t n, double gamma,
                    double* h) noexcept nogil:
    """gamma ||a - b||^2 from the differences (_gram_py._direct_sq_distances); h: n doubles."""
    cdef double top = 0.0, scale, t
    cdef Py_ssize_t k
    for k in range(n):
        h[k] = a[k] * 0.5 - b[k] * 0.5
        if fabs(h[k]) > top:
            top = fabs(h[k])
    scale = top if top > 0.0 else 1.0
    for k in range(n):
        h[k] = h[k] / scale
    t = (sqrt(gamma) * 2.0) * (top * sqrt(sqnorm4(h, n)))
    return t * t


cdef double _from_dot(const Kern* k, double dot, double aa, double bb,
                      bint* flagged) noexcept nogil:
    """k(a, b) from a . b as _gram_py computes it (aa, bb: the rows' squared norms, dot4);
    flagged: the RBF distance must be computed from the differences (`_direct`) instead."""
    cdef double base, out = 1.0
    cdef int f, deg = k.degree
    cdef bint first = True
    flagged[0] = False
    if k.kind == RBF:
        dot = pc_rbf_arg(dot, aa + bb, TINY, -k.gamma, &f)
        flagged[0] = f
        return dot if f else pc_exp1(dot)
    if k.kind != POLY:
        return dot
    base = dot * k.gamma
    base = base + k.coef0
    while deg:  # _gram_py.int_power: by squaring, from the lowest bit
        if deg & 1:
            out = base if first else out * base
            first = False
        deg >>= 1
        if deg:
            base = base * base
    return out


cdef double _kernel(const Kern* k, const double* a, double aa, const double* b, double bb,
                    Py_ssize_t n, double* h) noexcept nogil:
    """k(a, b) of two dense rows of n; h: n doubles of scratch."""
    cdef bint flagged
    cdef double v = _from_dot(k, dot4(a, b, n), aa, bb, &flagged)
    return pc_exp1(-_direct(a, b, n, k.gamma, h)) if flagged else v


cdef class BudgetDicts(_DictCalls):
    """The budget kernel perceptron's calls on dicts (_dicts_py.BudgetDicts). A score reads
    only x's entries: x . sv_s as the lanes by column of dot4_cols (the dense rows' zeros add
    nothing to dot4), the support vectors' squared norms kept beside them (svn)."""
    cdef object rng, scratch
    cdef double* sv
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
    cdef Py_ssize_t cap, budget
    cdef Kern kern
    cdef int policy  # _budget_py: 0 stop, 1 random, 2 oldest
    cdef bint forgetron, projectron, aggressive, fit_intercept
    cdef double eta
    cdef double* row  # learn's scratch: x dense, then width doubles, K (two rows), buffers
    cdef double* K
    cdef double* kbuf
    cdef double* dbuf
    cdef int64_t* slots
    cdef int64_t* cols

    def __init__(self, dict index, tuple arrays, tuple kernel, str strategy, Py_ssize_t budget,
                 double eta, fit_intercept, rng):
        cdef int64_t[::1] iv
        cdef double[::1] fv
        cdef Py_ssize_t s
        need(len(arrays) == 10 and len(kernel) == 4, "arrays must hold 10 arrays, kernel 4 "
             "values")
        need(kernel[0] in KERNELS and strategy in STRATEGIES, f"kernel must be one of "
             f"{KERNELS} and strategy one of {STRATEGIES}")
        sv, alpha, b, stamp, counts, q, kinv, u, beta, count = arrays
        self.index, self.arrays, self.rng = index, arrays, rng
        self.cap, self.width, self.budget = alpha.shape[1], sv.shape[1], budget
        need(1 <= self.cap <= budget and self.width >= 1, "arrays must be (sv (cap, width), "
             "alpha (1, cap), ...) with 1 <= cap <= budget")
        self.sv = _ptr2(sv, self.cap, self.width, "sv")
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
        gamma = kernel[1]
        self.kern = Kern(KERNELS.index(kernel[0]), 1.0 / self.width if gamma is None else gamma,
                         kernel[2], kernel[3])
        self.forgetron, self.aggressive = strategy == "forgetron", strategy == "projectron++"
        self.policy = {"stoptron": 0, "random": 1}.get(strategy, 2)
        self.eta, self.fit_intercept = eta, fit_intercept
        self.scratch = (np.zeros(2 * self.width + 6 * self.cap + 2),
                        np.full(4 * self.cap + self.width, -1, dtype=np.int64))
        fv = self.scratch[0]
        self.row, self.svn = &fv[0], &fv[2 * self.width]
        self.K = self.svn + self.cap
        self.kbuf = self.K + 2 * (self.cap + 1)
        self.dbuf = self.kbuf + 2 * self.cap
        iv = self.scratch[1]
        self.slots, self.cols = &iv[0], &iv[4 * self.cap]
        for s in range(self.cap):
            self.svn[s] = dot4(self.sv + s * self.width, self.sv + s * self.width, self.width)

    cdef Py_ssize_t _held(self) except -1:
        cdef Py_ssize_t n = self.counts[0]
        need(0 <= n <= self.cap, "counts[0] must lie in [0, cap]")
        return n

    cdef int _kernel_row(self, const Row* row, const int64_t* cols, double xx, Py_ssize_t n,
                         double* out, double** xd) except -1:
        """out[s] = k(x, sv_s), s < n, from x's entries; *xd: 2 width doubles, x dense then
        scratch, for an RBF distance recomputed from the differences (NULL: made here, once,
        if one is). OverflowError if a value is not finite."""
        cdef Py_ssize_t s, k, w = self.width
        cdef bint flagged, finite = True
        for s in range(n):
            out[s] = _from_dot(&self.kern, dot4_cols(self.sv + s * w, row.values, cols, row.m),
                               xx, self.svn[s], &flagged)
            if flagged:
                if xd[0] == NULL:
                    xd[0] = <double*>PyMem_Malloc(2 * w * sizeof(double))
                    if xd[0] == NULL:
                        raise MemoryError()
                    memset(xd[0], 0, w * sizeof(double))
                    for k in range(row.m):
                        xd[0][cols[k]] = row.values[k]
                out[s] = pc_exp1(-_direct(xd[0], self.sv + s * w, w, self.kern.gamma,
                                          xd[0] + w))
            finite = finite and isfinite(out[s])
        if not finite:
            _overflow(self.kern.kind)
        return 0

    def decision(self, x):
        cdef Row row
        cdef int64_t small_cols[SMALL]
        cdef double small[2 * SMALL]
        cdef int64_t* cols = small_cols
        cdef double* mem = small  # the kernel values, then the coefficients
        cdef double* xd = NULL
        cdef Py_ssize_t k, n = self._held()
        cdef double c = <double>self.count[0] if self.count != NULL else 1.0
        cdef double bias = self.b[0] if self.count == NULL else self.b[0] - self.beta[0] / c
        row.heap = NULL
        try:
            self._read(x, &row)
            if n == 0:
                return bias
            if row.m > SMALL or n > SMALL:
                cols = <int64_t*>PyMem_Malloc(row.m * sizeof(int64_t) + 1)
                mem = <double*>PyMem_Malloc(2 * n * sizeof(double))
                if cols == NULL or mem == NULL:
                    raise MemoryError()
            for k in range(row.m):
                cols[k] = row.cols[k]
            self._kernel_row(&row, cols, sqnorm4_cols(row.values, cols, row.m), n, mem, &xd)
            for k in range(n):
                mem[n + k] = self.alpha[k] if self.u == NULL else self.alpha[k] - self.u[k] / c
            # cached_scores leaves zero coefficients out: the same sum (every kernel value is
            # finite, and a lane that starts at +0 stays the same when +-0 is added)
            return dot4(mem + n, mem, n) + bias
        finally:
            free_row(&row)
            PyMem_Free(xd)
            if cols != small_cols:
                PyMem_Free(cols)
            if mem != small:
                PyMem_Free(mem)

    def learn(self, x, int64_t y):
        cdef Row row
        cdef Py_ssize_t s, n, r, n0 = self._held(), old = -1, cap = self.cap, w = self.width
        cdef int64_t first = 0, where = -1, rand = 0
        cdef int64_t info[2]
        cdef double f, xx
        cdef double* xd = self.row
        cdef Sup S
        need(y == 0 or y == 1, "y must be 0 (negative) or 1 (positive)")
        try:
            self._read(x, &row)
            if row.new:
                return NEW_NAMES
            self._learned(x, &row)
            if n0 == cap and cap < self.budget:
                return NO_ROOM
            memset(self.row, 0, w * sizeof(double))
            for s in range(row.m):
                self.cols[s] = row.cols[s]
                self.row[row.cols[s]] = row.values[s]
            xx = sqnorm4_cols(row.values, self.cols, row.m)
            self._kernel_row(&row, self.cols, xx, n0, self.K, &xd)
        finally:
            free_row(&row)
        self.K[n0] = _kernel(&self.kern, self.row, xx, self.row, xx, w, self.row + w)
        if self.forgetron and n0 == cap:  # the row of the slot a removal empties: the oldest
            old = 0
            for s in range(1, n0):
                if self.stamp[s] < self.stamp[old]:
                    old = s
            for s in range(n0):
                self.K[n0 + 1 + s] = _kernel(&self.kern, self.sv + old * w, self.svn[old],
                                             self.sv + s * w, self.svn[s], w, self.row + w)
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
            if self.slots[s] >= n0:  # the slot that took the example
                memcpy(self.sv + s * w, self.row, w * sizeof(double))
                self.svn[s] = xx
            self.stamp[s] = self.slots[2 * cap + s]
        return r


cdef int _overflow(int kind) except -1:
    raise OverflowError(f"the {'polynomial' if kind == POLY else 'linear'} Gram matrix does not "
                        "fit in float64 (a value overflowed to inf); rescale the data or the "
                        "kernel parameters")
