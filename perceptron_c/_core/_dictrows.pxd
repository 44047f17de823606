# Reading a dict of feature name -> number into a row in column order, as _dicts_py reads it
# (its module docstring): every value checked where it lies (read_value), each name's column
# from the model's index, the entries sorted by column (distinct columns: any sort gives the
# same row). A Schema remembers the order of the keys last learned, their columns and the
# permutation that sorts them: a dict whose keys come in that order (the same objects, or
# names of the same columns) skips the index lookups of identical keys and the sort. And the
# kernel value of two such rows (Sparse: entries, columns increasing), from their entries
# alone, as _gram_py computes it on their dense rows over every column (sparse_kernel).
from cpython.dict cimport PyDict_GetItemWithError, PyDict_Next, PyDict_Size
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.long cimport PyLong_AsDouble, PyLong_AsSsize_t, PyLong_Check
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM
from libc.math cimport fabs, isinf, ldexp, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport qsort

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
    SMALL = 64  # keys of a dict read on the stack; more go to the heap
    RBF = 0  # Kern.kind
    POLY = 1

cdef struct Entry:
    double value
    int32_t col  # -1: the name has no column

cdef struct Row:
    Py_ssize_t n  # keys
    Py_ssize_t m  # entries with a column and a number, in column order
    bint new  # a name without a column has a number
    bint same  # the keys are the schema's
    double* values
    int32_t* cols
    Entry* entries  # every key's, in key order
    void* heap  # NULL, or the buffer of the three above
    double small_values[SMALL]
    int32_t small_cols[SMALL]
    Entry small_entries[2 * SMALL]  # every key's, then the row's

cdef struct Schema:
    Py_ssize_t n  # keys (0: none yet); the owner holds them in a tuple
    int32_t* cols  # their columns (-1: none then), in key order; the owner frees it
    int32_t* perm  # their positions, in column order (after cols, in its block)
    Py_ssize_t hits, misses  # of the learning calls since it was made


cdef inline double _other_value(object name, object v, tuple real_types) except? -1.0:
    try:
        if PyLong_Check(v):
            return PyLong_AsDouble(v)
        if isinstance(v, real_types):
            return float(v)
    except OverflowError:
        raise ValueError(f"x holds a number beyond float64's range at {name!r}") from None
    raise TypeError(f"x must map feature names to real numbers: x[{name!r}] is a "
                    f"{type(v).__name__}")


cdef inline int read_value(object name, object v, double* out, tuple real_types) except -1:
    """The value of feature ``name``, checked (_dicts_py._real); real_types: the types other
    than float and int that are real numbers (numbers.Real, numpy.bool_)."""
    out[0] = PyFloat_AS_DOUBLE(v) if PyFloat_Check(v) else _other_value(name, v, real_types)
    if isinf(out[0]):
        raise ValueError(f"x holds an infinite value at {name!r}; only finite numbers and NaN "
                         "(a missing value) are accepted")
    return 0


cdef inline int _by_column(const void* a, const void* b) noexcept nogil:
    return (<const Entry*>a).col - (<const Entry*>b).col


cdef inline void sort_entries(Entry* e, Py_ssize_t m) noexcept nogil:
    """e by column: nothing if in order, insertion for a few, else qsort."""
    cdef Py_ssize_t i, j
    cdef Entry t
    for i in range(1, m):
        if e[i].col < e[i - 1].col:
            break
    else:
        return
    if m > 16:
        qsort(e, m, sizeof(Entry), _by_column)
        return
    for i in range(1, m):
        t = e[i]
        j = i
        while j > 0 and e[j - 1].col > t.col:
            e[j] = e[j - 1]
            j -= 1
        e[j] = t


cdef inline int _column(object name, dict index, Py_ssize_t width) except -2:
    """The column of ``name``, -1 without one."""
    cdef PyObject* col = PyDict_GetItemWithError(index, name)
    cdef Py_ssize_t c
    if col == NULL:
        return -1
    c = PyLong_AsSsize_t(<object>col)
    if not 0 <= c < width:
        raise ValueError(f"index maps {name!r} to {c}, beyond the {width} columns")
    return <int>c


cdef inline int read_row(dict x, dict index, Py_ssize_t width, Row* row, const Schema* s,
                         tuple keys, tuple real_types) except -1:
    """x's entries that have a column and a number, in column order, into row (row.entries:
    every key's in key order, then the row's); s and keys: the schema and its keys (s.n = 0:
    none). row.heap is for free_row, after an error too."""
    cdef Py_ssize_t pos = 0, i = 0, m = 0, n = PyDict_Size(x)
    cdef PyObject* key
    cdef PyObject* val
    cdef Entry* e
    cdef Entry* f
    cdef int c
    row.heap, row.new, row.n, row.m, row.same = NULL, False, n, 0, n == s.n
    row.values, row.cols, row.entries = row.small_values, row.small_cols, row.small_entries
    if n > SMALL:
        row.heap = PyMem_Malloc(n * (2 * sizeof(Entry) + sizeof(double) + sizeof(int32_t)))
        if row.heap == NULL:
            raise MemoryError()
        row.entries = <Entry*>row.heap
        row.values = <double*>(row.entries + 2 * n)
        row.cols = <int32_t*>(row.values + n)
    e, f = row.entries, row.entries + n
    while PyDict_Next(x, &pos, &key, &val):
        if i == n:  # only code run by a key's __eq__ or a value's __float__ could do it
            raise RuntimeError("x changed size while it was read")
        read_value(<object>key, <object>val, &e[i].value, real_types)
        if row.same and key == PyTuple_GET_ITEM(keys, i) and s.cols[i] >= 0:
            c = s.cols[i]  # (a name without one may have got a column since)
        else:
            c = _column(<object>key, index, width)
            row.same = row.same and c == s.cols[i]
        e[i].col = c
        row.new = row.new or (c < 0 and e[i].value == e[i].value)
        i += 1
    for i in range(n):  # the schema's order, or the keys' order sorted
        c = s.perm[i] if row.same else i
        if e[c].col >= 0 and e[c].value == e[c].value:  # NaN: a missing value, left out
            f[m] = e[c]
            m += 1
    if not row.same:
        sort_entries(f, m)
    for i in range(m):
        row.values[i], row.cols[i] = f[i].value, f[i].col
    row.m = m
    return 0


cdef inline void free_row(Row* row) noexcept:
    if row.heap != NULL:
        PyMem_Free(row.heap)
        row.heap = NULL


cdef inline int update_schema(Schema* s, const Row* row) except -1:
    """After a learning call of row: count a hit or a miss, and remember
    row's order when the schema has none, had hits, or missed 8 times; returns 1 then (the
    owner keeps the keys), else 0."""
    cdef Py_ssize_t i, n = row.n
    cdef Entry* e
    cdef int32_t* cols
    if row.same:
        s.hits += 1
        return 0
    s.misses += 1
    if s.n and not s.hits and s.misses < 8:
        return 0
    e = <Entry*>PyMem_Malloc(n * sizeof(Entry) + 1)
    cols = <int32_t*>PyMem_Malloc(2 * n * sizeof(int32_t) + 1)
    if e == NULL or cols == NULL:
        PyMem_Free(e)
        PyMem_Free(cols)
        raise MemoryError()
    for i in range(n):
        e[i].value, e[i].col = <double>i, row.entries[i].col
    sort_entries(e, n)
    for i in range(n):
        cols[i], cols[n + i] = row.entries[i].col, <int32_t>e[i].value
    PyMem_Free(e)
    PyMem_Free(s.cols)
    s.cols, s.perm, s.n, s.hits, s.misses = cols, cols + n, n, 0, 0
    return 1


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
