# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_dicts_py`` (the specification): the same calls, in C from the dict to the
update. A dict is read as ``_dictrows.pxd`` reads it, into a row in column order on the stack;
then the score, or the update by the C twins' own cores (``_linear_c``, ``_sgd_c``,
``_budget_c``: the code ``learn_many`` runs) on that one-row CSR. An object takes pointers to
the model's arrays when it is built; a call costs its example, and holds the GIL throughout,
so a prediction never sees a learning call half done.
"""
from cpython.bytes cimport PyBytes_AS_STRING
from cpython.dict cimport PyDict_Check
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.pythread cimport PyThread_get_thread_ident
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

import numbers
from collections.abc import Mapping as _Mapping

import numpy as np

from perceptron_c._core._budget_c cimport Sup, budget_rows, projectron_rows
from perceptron_c._core._checks cimport need, non_finite
from perceptron_c._core._dictbudget cimport (Kern, Sparse, Support, kernel_row, oldest,
                                             overflow, sparse_kernel, start_slots,
                                             store, support_row)
from perceptron_c._core._dictrows cimport (SMALL, Entry, Row, Schema, between, frame_layout,
                                           frame_row, free_row, ptr1, ptr2, read_row, row_keys,
                                           row_score, schema_block)
from perceptron_c._core._lanes cimport dot4, sqnorm4_cols
from perceptron_c._core._linear_c cimport binary_epoch, multiclass_epoch
from perceptron_c._core._sgd_c cimport (SGD_AVERAGE_B, SGD_ETA0, SGD_INTERCEPT, SGD_N_PARAMS,
                                        SGD_N_STATE, SGD_OBJECTIVE, SGD_PENALTY_NONE,
                                        SGD_RATE_PA2, SGD_SQ_NORM, SGD_SUMLOSS, SGD_WSCALE,
                                        sgd_epoch, sgd_options)

from perceptron_c._core._dicts_py import (BATCH, BUSY_LEARN, BUSY_READ, KERNELS, NEW_NAMES,
                                          NO_ROOM, STRATEGIES)
from perceptron_c.exceptions import ConcurrentUseError
from perceptron_c._core._dicts_py import __all__  # no-cython-lint: listed once (test_twins)

cdef tuple _REAL = (numbers.Real, np.bool_)  # the real numbers besides float and int


cdef object _dict(object x):
    if PyDict_Check(x):
        return x
    if isinstance(x, _Mapping):
        return dict(x)
    raise TypeError(f"x must be a dict of feature name -> number, got {type(x).__name__}")


cdef class _Schema:
    """The schema of the keys last learned, immutable: its keys, s pointing into block."""
    cdef tuple keys
    cdef bytes block
    cdef Schema s


cdef _Schema _schema(tuple keys, bytes block):
    cdef _Schema made = _Schema.__new__(_Schema)
    made.keys, made.block = keys, block
    made.s.n = len(keys)
    made.s.cols = <const int32_t*>PyBytes_AS_STRING(block)
    made.s.perm = made.s.cols + made.s.n
    return made


cdef _Schema _NO_SCHEMA = _schema((), b"")


cdef class _DictCalls:
    """What the calls share: the model's index of names, the schema of the keys last
    learned (_dictrows.pxd: one block, (keys, columns and permutation), swapped whole), the
    arrays they point into (kept alive), and the model's flags (_dicts_py._Busy)."""
    cdef dict index
    cdef object arrays, busy_array
    cdef Py_ssize_t width, hits, misses, n_out, n_work  # (scores: out's columns, work doubles)
    cdef _Schema schema
    cdef const uint64_t* busy

    def __cinit__(self):
        self.schema = _NO_SCHEMA
        self.hits = self.misses = self.n_work = 0
        self.n_out = 1
        self.busy = NULL

    cdef int _guard(self, busy) except -1:
        cdef const uint64_t[::1] v
        if busy is not None:
            v = busy
            need(v.shape[0] == 3, "busy must have shape (3,)")
            self.busy_array, self.busy = busy, &v[0]
        return 0

    cdef int _check(self, bint learning) except -1:
        """_dicts_py._Busy._check: another thread's learning call or batch under way."""
        if self.busy == NULL or not self.busy[0] or (
                not learning and self.busy[0] != BATCH) or (
                learning and self.busy[1] == <uint64_t>PyThread_get_thread_ident()):
            return 0
        raise ConcurrentUseError(BUSY_LEARN if learning else BUSY_READ)

    cdef inline uint64_t _names(self) noexcept:
        return self.busy[2] if self.busy != NULL else 0

    cdef dict _read(self, object x, Row* row, bint learning):
        """x into row (a reading call: again if names got columns meanwhile); x as a dict."""
        cdef _Schema schema = self.schema  # (held: another thread may swap it meanwhile)
        cdef uint64_t names
        row.heap = NULL  # (first: the caller frees the row whatever happens)
        x = _dict(x)
        while True:
            names = self._names()
            read_row(x, self.index, self.width, row, &schema.s, schema.keys, _REAL,
                     not learning)
            self._check(learning)
            if learning or self._names() == names:
                return x
            free_row(row)

    cdef int _learned(self, dict x, const Row* row) except -1:
        """The schema counts a hit or a miss; remembers row's keys if none, hits, or 8 misses."""
        if row.same:
            self.hits += 1
            return 0
        self.misses += 1
        if self.schema.s.n and not self.hits and self.misses < 8:
            return 0
        self.schema = _schema(row_keys(x, row.n), schema_block(row))
        self.hits = self.misses = 0
        return 0

    cdef int _begin(self, double* work) except -1:
        return 0

    cdef int _score_row(self, const Row* row, double* out, double* work) except -1:
        raise NotImplementedError

    def scores(self, const double[:, ::1] values, list names):
        cdef Py_ssize_t i, m, n = values.shape[0], d = values.shape[1], work = 0, R = self.n_out
        cdef uint64_t version
        cdef Row row
        cdef double[:, ::1] o
        cdef Entry* e = <Entry*>PyMem_Malloc(d * (sizeof(Entry) + sizeof(double) +
                                                  sizeof(int32_t)) + self.n_work *
                                             sizeof(double) + 1)
        cdef double* w  # the work of _begin and _score_row
        if e == NULL:
            raise MemoryError()
        row.values = <double*>(e + d)
        w = row.values + d
        row.cols = <int32_t*>(w + self.n_work)
        try:
            need(len(names) == d, "names must name the columns of values")
            out = np.empty((n, R))
            o = out
            while True:  # the names' columns, again if names got columns meanwhile
                version = self._names()
                m = frame_layout(names, self.index, self.width, e)
                self._check(False)
                if self._names() == version:
                    break
            self._begin(w)  # (from here on only Ctrl-C runs Python code)
            for i in range(n):
                frame_row(&values[i, 0], e, m, &row)
                if R:
                    self._score_row(&row, &o[i, 0], w)
                work = between(work + (row.m + 1) * (R + self.n_work))
            return out
        finally:
            PyMem_Free(e)


def dict_row(x, dict index, Py_ssize_t width):
    cdef Row row
    cdef Schema none
    cdef Py_ssize_t c
    none.n = 0
    row.heap = NULL
    try:
        x = _dict(x)
        read_row(x, index, width, &row, &none, (), _REAL, False)
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


cdef class LinearDicts(_DictCalls):
    """The perceptrons' calls on dicts (_dicts_py.LinearDicts)."""
    cdef double* W
    cdef double* b
    cdef double* U
    cdef double* beta
    cdef int64_t* count
    cdef Py_ssize_t R
    cdef bint fit_intercept, normalize

    def __init__(self, dict index, W, b, U, beta, count, fit_intercept, normalize,
                 busy=None):
        cdef int64_t[::1] cv
        self._guard(busy)
        need((U is None) == (beta is None) == (count is None), "U, beta and count go together")
        self.index, self.arrays = index, (W, b, U, beta, count)
        self.R, self.width = W.shape[0], W.shape[1]
        self.n_out = self.R
        self.W = ptr2(W, self.R, self.width, "W")
        self.b = ptr1(b, self.R, "b")
        self.U = self.beta = NULL
        self.count = NULL
        if U is not None:
            self.U = ptr2(U, self.R, self.width, "U")
            self.beta = ptr1(beta, self.R, "beta")
            cv = count
            need(cv.shape[0] == 1 and cv[0] >= 1, "count must have shape (1,) and be >= 1")
            self.count = &cv[0]
        self.fit_intercept, self.normalize = fit_intercept, normalize

    cdef double _row_score(self, const Row* row, Py_ssize_t k) noexcept:
        cdef double c = <double>self.count[0] if self.count != NULL else 1.0
        cdef double s = row_score(row.values, row.cols, row.m, self.W + k * self.width,
                                  self.U + k * self.width if self.U != NULL else NULL, c)
        if self.U == NULL:
            return s + self.b[k]
        return s + (self.b[k] - self.beta[k] / c)

    def decision(self, x):
        cdef Row row
        need(self.R >= 1, "W must have a row")
        try:
            self._read(x, &row, False)
            return self._row_score(&row, 0)
        finally:
            free_row(&row)

    def argmax(self, x):
        cdef Row row
        cdef Py_ssize_t k, best = -1  # (no row, no class yet)
        cdef double s, top = 0.0
        try:
            self._read(x, &row, False)
            for k in range(self.R):  # numpy.argmax: the first highest, the first NaN
                s = self._row_score(&row, k)
                if s != s:
                    return k
                if k == 0 or s > top:
                    best, top = k, s
            return best
        finally:
            free_row(&row)

    def class_scores(self, x):
        cdef Row row
        cdef Py_ssize_t k
        try:
            self._read(x, &row, False)
            return [self._row_score(&row, k) for k in range(self.R)]
        finally:
            free_row(&row)

    cdef int _score_row(self, const Row* row, double* out, double* work) except -1:
        cdef Py_ssize_t k
        for k in range(self.R):
            out[k] = self._row_score(row, k)
        return 0

    def learn_binary(self, x, double y, double w=1.0):
        cdef Row row
        cdef int64_t indptr[2]
        cdef int64_t order = 0
        cdef Py_ssize_t r
        need(self.R == 1, "W must have one row")
        try:
            x = self._read(x, &row, True)
            if row.new:
                return NEW_NAMES
            indptr[0], indptr[1] = 0, row.m
            r = binary_epoch(row.values, row.cols, indptr, self.width, &y, &order, 1, self.W,
                             self.b, self.U, self.beta, self.count, self.fit_intercept,
                             self.normalize, NULL, &w)
            self._learned(x, &row)
        finally:
            free_row(&row)
        if r < 0:
            non_finite(0, 0)
        return r

    def learn_class(self, x, int64_t y, double w=1.0):
        cdef Row row
        cdef int64_t indptr[2]
        cdef int64_t order = 0
        cdef Py_ssize_t r
        try:
            x = self._read(x, &row, True)
            if not 0 <= y < self.R:
                raise ValueError(f"y must be a class index in [0, {self.R})")
            if row.new:
                return NEW_NAMES
            indptr[0], indptr[1] = 0, row.m
            r = multiclass_epoch(row.values, row.cols, indptr, self.width, &y, &order, 1,
                                 self.R, self.W, self.b, self.U, self.beta, self.count,
                                 self.fit_intercept, self.normalize, &w)
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
                 fit_intercept, busy=None):
        self._guard(busy)
        self.index, self.arrays = index, (W, state, params)
        need(W.ndim == 2 and W.shape[0] == 1 and W.shape[1] >= 1, "W must be (1, d), d >= 1")
        self.width = W.shape[1]
        self.w = ptr2(W, 1, self.width, "W")
        need(state.shape == (SGD_N_STATE,) and params.shape == (SGD_N_PARAMS,),
             f"state must have length {SGD_N_STATE} and params {SGD_N_PARAMS}")
        self.state = ptr1(state, SGD_N_STATE, "state")
        self.params = ptr1(params, SGD_N_PARAMS, "params")
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
            self._read(x, &row, False)
            return row_score(row.values, row.cols, row.m, self.w, NULL, 1.0) + \
                self.state[SGD_INTERCEPT]
        finally:
            free_row(&row)

    cdef int _score_row(self, const Row* row, double* out, double* work) except -1:
        out[0] = row_score(row.values, row.cols, row.m, self.w, NULL, 1.0) + \
            self.state[SGD_INTERCEPT]
        return 0

    def learn(self, x, double y, double w=1.0):
        cdef Row row
        cdef int64_t indptr[2]
        cdef int64_t order = 0
        cdef Py_ssize_t r
        try:
            x = self._read(x, &row, True)
            if row.new:
                return NEW_NAMES
            indptr[0], indptr[1] = 0, row.m
            self.state[SGD_SUMLOSS] = self.state[SGD_OBJECTIVE] = 0.0
            r = sgd_epoch(row.values, row.cols, indptr, self.width, &y, &w, &order, 1,
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
    """The budget kernel perceptron's calls on dicts (_dicts_py.BudgetDicts), its support
    vectors sparse rows (_dictbudget.pxd): a call costs their entries, not the names seen."""
    cdef object rng, scratch
    cdef Support sup
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
                 Py_ssize_t budget, double eta, fit_intercept, rng, busy=None):
        cdef int64_t[::1] iv
        cdef int32_t[:, ::1] cv
        cdef int32_t[::1] xcv
        cdef double[::1] fv
        cdef Py_ssize_t s, L
        need(len(arrays) == 12 and len(kernel) == 4, "arrays must hold 12 arrays, kernel 4 "
             "values")
        need(kernel[0] in KERNELS and strategy in STRATEGIES, f"kernel must be one of "
             f"{KERNELS} and strategy one of {STRATEGIES}")
        need(isinstance(kernel[1], (int, float)), "kernel[1] (gamma) must be a number")
        sv, svc, svm, alpha, b, stamp, counts, q, kinv, u, beta, count = arrays
        self.index, self.arrays, self.rng, self.width = index, arrays, rng, width
        self._guard(busy)
        self.cap, L, self.budget = alpha.shape[1], sv.shape[1], budget
        self.n_work = 2 * self.cap + 2  # the bias, the support vectors held, coefficients, K
        need(1 <= self.cap <= budget and L >= 1 and width >= 1, "arrays must be (sv (cap, L), "
             "sv_indices (cap, L), sv_nnz (cap,), alpha (1, cap), ...) with 1 <= cap <= "
             "budget and L >= 1, and width >= 1")
        self.sup.cap, self.sup.L = self.cap, L
        self.sup.v = ptr2(sv, self.cap, L, "sv")
        cv = svc
        need(cv.shape[0] == self.cap and cv.shape[1] == L, f"sv_indices must be ({self.cap}, {L})")
        self.sup.c = &cv[0, 0]
        iv = svm
        need(iv.shape[0] == self.cap, f"sv_nnz must have length {self.cap}")
        self.sup.m = &iv[0]
        self.alpha = ptr2(alpha, 1, self.cap, "alpha")
        self.b = ptr1(b, 1, "b")
        self.q = ptr1(q, 1, "q")
        iv = stamp
        need(iv.shape[0] == self.cap, f"stamp must have length {self.cap}")
        self.stamp = &iv[0]
        iv = counts
        need(iv.shape[0] == 5, "counts must have shape (5,)")
        self.counts = &iv[0]
        self.projectron = strategy.startswith("projectron")
        self.kinv = ptr2(kinv, self.cap, self.cap, "Kinv") if self.projectron else NULL
        need((u is None) == (beta is None) == (count is None), "u, beta and count go together")
        self.u = self.beta = NULL
        self.count = NULL
        if u is not None:
            self.u = ptr2(u, 1, self.cap, "u")
            self.beta = ptr1(beta, 1, "beta")
            iv = count
            need(iv.shape[0] == 1 and iv[0] >= 1, "count must have shape (1,) and be >= 1")
            self.count = &iv[0]
        self.sup.kern = Kern(KERNELS.index(kernel[0]), kernel[1], kernel[2], kernel[3])
        self.forgetron, self.aggressive = strategy == "forgetron", strategy == "projectron++"
        self.policy = {"stoptron": 0, "random": 1}.get(strategy, 2)
        self.eta, self.fit_intercept = eta, fit_intercept
        self.scratch = (np.zeros(L + 6 * self.cap + 2), np.full(4 * self.cap, -1, dtype=np.int64),
                        np.zeros(L, dtype=np.int32))
        fv = self.scratch[0]
        self.xv, self.sup.sq = &fv[0], &fv[L]
        self.K = self.sup.sq + self.cap
        self.kbuf = self.K + 2 * (self.cap + 1)
        self.dbuf = self.kbuf + 2 * self.cap
        iv = self.scratch[1]
        self.slots = &iv[0]
        xcv = self.scratch[2]
        self.xc = &xcv[0]
        for s in range(self.cap):  # (after, only this object and a rebuild write them)
            need(0 <= self.sup.m[s] <= L, f"sv_nnz must lie in [0, {L}]")
            self.sup.sq[s] = sqnorm4_cols(self.sup.v + s * L, self.sup.c + s * L, self.sup.m[s])

    cdef Py_ssize_t _held(self) except -1:
        cdef Py_ssize_t n = self.counts[0]
        need(0 <= n <= self.cap, "counts[0] must lie in [0, cap]")
        return n

    cdef int _coefs(self, Py_ssize_t n, double* coef, double* bias) except -1:
        """The (averaged) coefficients of the n support vectors, and the bias."""
        cdef Py_ssize_t k
        cdef double c = <double>self.count[0] if self.count != NULL else 1.0
        bias[0] = self.b[0] if self.count == NULL else self.b[0] - self.beta[0] / c
        for k in range(n):
            coef[k] = self.alpha[k] if self.u == NULL else self.alpha[k] - self.u[k] / c
        return 0

    cdef double _row_score(self, const Row* row, Py_ssize_t n, const double* coef, double bias,
                           double* kvals) except? -1.0:
        """Row's kernel values against the n support vectors, 4-lane summed with coef
        (cached_scores' sum: it leaves zero coefficients out, and +-0 leaves a lane as it is)."""
        cdef Sparse xs = Sparse(row.values, row.cols, row.m,
                                sqnorm4_cols(row.values, row.cols, row.m))
        if n == 0:
            return bias
        kernel_row(&self.sup, &xs, n, kvals)
        return dot4(coef, kvals, n) + bias

    def decision(self, x):
        cdef Row row
        cdef double small[2 * SMALL]
        cdef double* mem = small  # the kernel values, then the coefficients
        cdef Py_ssize_t n
        cdef double bias
        row.heap = NULL
        try:
            self._read(x, &row, False)
            # the model is read from here on, where no Python code runs: one state of it
            n = self._held()
            if n > SMALL:
                mem = <double*>PyMem_Malloc(2 * n * sizeof(double))
                if mem == NULL:
                    raise MemoryError()
            self._coefs(n, mem + n, &bias)
            return self._row_score(&row, n, mem + n, bias, mem)
        finally:
            free_row(&row)
            if mem != small:
                PyMem_Free(mem)

    cdef int _begin(self, double* work) except -1:
        cdef Py_ssize_t n = self._held()
        work[1] = <double>n
        return self._coefs(n, work + 2, work)

    cdef int _score_row(self, const Row* row, double* out, double* work) except -1:
        cdef Py_ssize_t n = <Py_ssize_t>work[1]
        out[0] = self._row_score(row, n, work + 2, work[0], work + 2 + self.cap)
        return 0

    def learn(self, x, int64_t y):
        cdef Row row
        cdef Sparse xs, a
        cdef Py_ssize_t s, n, r, m = 0, n0 = 0, old = -1, cap = self.cap
        cdef int64_t first = 0, where = -1, rand = 0
        cdef int64_t info[2]
        cdef double f
        cdef Sup S
        need(y == 0 or y == 1, "y must be 0 (negative) or 1 (positive)")
        try:
            x = self._read(x, &row, True)
            if row.new:
                return NEW_NAMES
            self._learned(x, &row)
            n0 = self._held()
            if n0 == cap < self.budget or row.m > self.sup.L:
                return NO_ROOM
            m = row.m
            memcpy(self.xv, row.values, m * sizeof(double))
            memcpy(self.xc, row.cols, m * sizeof(int32_t))
        finally:
            free_row(&row)
        xs = Sparse(self.xv, self.xc, m, sqnorm4_cols(self.xv, self.xc, m))
        kernel_row(&self.sup, &xs, n0, self.K)
        self.K[n0] = sparse_kernel(&self.sup.kern, &xs, &xs)
        if self.forgetron and n0 == cap:  # the row of the slot a removal empties: the oldest
            old = oldest(self.stamp, n0)
            a = support_row(&self.sup, old)
            kernel_row(&self.sup, &a, n0, self.K + n0 + 1)
            self.K[2 * n0 + 1] = self.K[old]  # k(sv_old, x) = k(x, sv_old)
        if not isfinite(self.K[n0]):
            overflow(self.sup.kern.kind)
        if self.policy == 1:  # a draw for every example, as the estimator draws
            rand = self.rng.integers(0, self.budget, dtype=np.int64)
            rand = rand if cap == self.budget else 0
        start_slots(self.slots, cap, n0, old, self.stamp)
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
                store(&self.sup, s, &xs)
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
