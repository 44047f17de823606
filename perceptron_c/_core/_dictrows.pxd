# Reading a dict of feature name -> number into a row in column order, as _dicts_py reads it
# (its module docstring): every value checked where it lies (read_value), each name's column
# from the model's index, the entries sorted by column (distinct columns: any sort gives the
# same row). A Schema remembers the order of the keys last learned, their columns and the
# permutation that sorts them: a dict whose keys come in that order (the same objects, or
# names of the same columns) skips the index lookups of identical keys and the sort.
from cpython.dict cimport PyDict_GetItemWithError, PyDict_Next, PyDict_Size
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.long cimport PyLong_AsDouble, PyLong_AsSsize_t, PyLong_Check
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM
from libc.math cimport isinf
from libc.stdint cimport int32_t
from libc.stdlib cimport qsort

cdef enum:
    SMALL = 64  # keys of a dict read on the stack; more go to the heap

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
