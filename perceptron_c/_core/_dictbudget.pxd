# The budget model's one-example calls (_dicts_c.BudgetDicts), in parts: the support vectors
# as sparse rows (Support: each slot's entries, columns increasing, and squared norm), the
# kernel value of two sparse rows from their entries alone, as _gram_py computes it on their
# dense rows over every column (sparse_kernel: x . sv and the RBF distance from the
# differences, in lanes by column: _lanes.pxd's dot4_merge and sqnorm4_halfdiff, the dense
# rows' zeros add nothing to a lane), an example's kernel row, its store in a slot, and the
# slots of one call of the budget routines.
from libc.math cimport fabs, isfinite, ldexp, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy, memset

from perceptron_c._core._lanes cimport dot4_merge, sqnorm4_halfdiff

cdef extern from *:  # _rbf.h's other functions serve _gram_c
    """
    #if defined(__GNUC__)
    #pragma GCC diagnostic ignored "-Wunused-function"
    #endif
    """

cdef extern from "_rbf.h":
    double pc_exp1(double x) noexcept nogil
    double pc_rbf_arg(double dot, double nrm, double tiny, double ng, int* flagged) noexcept nogil

cdef enum:
    RBF = 0  # Kern.kind
    POLY = 1

cdef struct Kern:
    int kind  # RBF, POLY, or linear
    double gamma
    int degree
    double coef0


cdef struct Sparse:  # a sparse row: n entries, columns increasing, and its squared norm
    const double* v
    const int32_t* c
    Py_ssize_t n
    double sq


cdef inline double _halfdiff_top(const Sparse* a, const Sparse* b) noexcept nogil:
    """The largest |a * 0.5 - b * 0.5| over the union of the columns (a missing entry 0)."""
    cdef double top = 0.0, h
    cdef Py_ssize_t i = 0, k = 0
    while i < a.n or k < b.n:
        if k == b.n or (i < a.n and a.c[i] < b.c[k]):
            h = a.v[i] * 0.5 - 0.0 * 0.5
            i += 1
        elif i == a.n or a.c[i] > b.c[k]:
            h = 0.0 * 0.5 - b.v[k] * 0.5
            k += 1
        else:
            h = a.v[i] * 0.5 - b.v[k] * 0.5
            i += 1
            k += 1
        if fabs(h) > top:
            top = fabs(h)
    return top


cdef inline double _direct(const Sparse* a, const Sparse* b, double gamma) noexcept nogil:
    """gamma ||a - b||^2 from the differences (_gram_py._direct_sq_distances), over the
    columns either row has: the other columns' differences are 0, and add +0 to a lane."""
    cdef double top = _halfdiff_top(a, b)
    cdef double scale = top if top > 0.0 else 1.0
    cdef double t = (sqrt(gamma) * 2.0) * (top * sqrt(sqnorm4_halfdiff(a.v, a.c, a.n, b.v,
                                                                       b.c, b.n, scale)))
    return t * t


cdef inline double _from_dot(const Kern* k, double dot, double aa, double bb,
                             bint* flagged) noexcept nogil:
    """k(a, b) from a . b as _gram_py computes it (aa, bb: the rows' squared norms, dot4);
    flagged: the RBF distance must be computed from the differences (`_direct`) instead."""
    cdef double base, out = 1.0
    cdef int f, deg = k.degree
    cdef bint first = True
    flagged[0] = False
    if k.kind == RBF:
        dot = pc_rbf_arg(dot, aa + bb, ldexp(1.0, -30), -k.gamma, &f)  # (gram_rbf's test)
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


cdef inline double sparse_kernel(const Kern* k, const Sparse* a,
                                 const Sparse* b) noexcept nogil:
    """k(a, b) of two sparse rows: _gram_py's value on their dense rows, from their entries."""
    cdef bint flagged
    cdef double v = _from_dot(k, dot4_merge(a.v, a.c, a.n, b.v, b.c, b.n), a.sq, b.sq,
                              &flagged)
    return pc_exp1(-_direct(a, b, k.gamma)) if flagged else v


cdef struct Support:  # slot s: m[s] entries v, columns c (increasing), at s * L; sq[s] its norm
    double* v
    int32_t* c
    int64_t* m
    double* sq
    Py_ssize_t cap, L
    Kern kern


cdef inline Sparse support_row(const Support* S, Py_ssize_t s) noexcept:
    return Sparse(S.v + s * S.L, S.c + s * S.L, S.m[s], S.sq[s])


cdef inline int overflow(int kind) except -1:
    raise OverflowError(f"the {'polynomial' if kind == POLY else 'linear'} Gram matrix does not "
                        "fit in float64 (a value overflowed to inf); rescale the data or the "
                        "kernel parameters")


cdef inline int kernel_row(const Support* S, const Sparse* x, Py_ssize_t n,
                           double* out) except -1:
    """out[s] = k(x, sv_s), s < n. OverflowError if a value is not finite."""
    cdef Py_ssize_t s
    cdef Sparse v
    cdef bint finite = True
    for s in range(n):
        v = support_row(S, s)
        out[s] = sparse_kernel(&S.kern, x, &v)
        finite = finite and isfinite(out[s])
    if not finite:
        overflow(S.kern.kind)
    return 0


cdef inline void store(Support* S, Py_ssize_t s, const Sparse* x) noexcept:
    """Slot s takes x: its entries, then zeros to L."""
    memcpy(S.v + s * S.L, x.v, x.n * sizeof(double))
    memcpy(S.c + s * S.L, x.c, x.n * sizeof(int32_t))
    memset(S.v + s * S.L + x.n, 0, (S.L - x.n) * sizeof(double))
    memset(S.c + s * S.L + x.n, 0, (S.L - x.n) * sizeof(int32_t))
    S.m[s], S.sq[s] = x.n, x.sq


cdef inline Py_ssize_t oldest(const int64_t* stamp, Py_ssize_t n) noexcept:
    """The slot of the oldest stamp (the first of equal ones), of n > 0."""
    cdef Py_ssize_t s, old = 0
    for s in range(1, n):
        if stamp[s] < stamp[old]:
            old = s
    return old


cdef inline void start_slots(int64_t* slots, Py_ssize_t cap, Py_ssize_t n0, Py_ssize_t old,
                             const int64_t* stamp) noexcept:
    """The four rows of slots of one routine call (_budget_c.pxd's Sup): the n0 slots held,
    the krow of slot old (its row of K, 1; -1 for none), their stamps, no example."""
    cdef Py_ssize_t s
    for s in range(cap):
        slots[s] = s if s < n0 else -1
        slots[cap + s] = 1 if s == old else -1
        slots[2 * cap + s] = stamp[s] if s < n0 else -1
        slots[3 * cap + s] = -1
