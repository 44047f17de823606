# Reading a dict of feature name -> number into a row in column order, as _dicts_py reads it
# (its module docstring): every value checked where it lies (read_value), each name's column
# from the model's index, the entries sorted by column (distinct columns: any sort gives the
# same row). A Schema remembers the order of the keys last learned, their columns and the
# permutation that sorts them: a dict whose keys come in that order (the same objects, or
# names of the same columns) skips the index lookups of identical keys and the sort. Its owner
# keeps it as one immutable block (keys tuple, bytes of columns and permutation; schema_block)
# swapped in whole, so a call that reads it while another thread's learning call swaps it
# still reads one schema (the block it took). A reading call takes a column beyond the width
# of its arrays (a name another thread is giving a column) as none. A frame's rows are read
# the same way (frame_layout, frame_row): its names' columns once, then each row's numbers.
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.dict cimport PyDict_GetItemWithError, PyDict_Next, PyDict_Size
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.long cimport PyLong_AsDouble, PyLong_AsSsize_t, PyLong_Check
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_INCREF, PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_New, PyTuple_SET_ITEM
from libc.math cimport isinf
from libc.stdint cimport int32_t
from libc.stdlib cimport qsort

from perceptron_c._core._checks cimport CHUNK_WORK, between_chunks, need
from perceptron_c._core._lanes cimport dot4_averaged, dot4_indexed

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
    const int32_t* cols  # their columns (-1: none then), in key order, in the owner's block
    const int32_t* perm  # their positions, in column order (after cols, in the block)


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


cdef inline int _column(object name, dict index, Py_ssize_t width, bint reading) except -2:
    """The column of ``name``, -1 without one (reading: or beyond width)."""
    cdef PyObject* col = PyDict_GetItemWithError(index, name)
    cdef Py_ssize_t c
    if col == NULL:
        return -1
    c = PyLong_AsSsize_t(<object>col)
    if reading and c >= width:
        return -1
    if not 0 <= c < width:
        raise ValueError(f"index maps {name!r} to {c}, beyond the {width} columns")
    return <int>c


cdef inline int read_row(dict x, dict index, Py_ssize_t width, Row* row, const Schema* s,
                         tuple keys, tuple real_types, bint reading) except -1:
    """x's entries that have a column and a number, in column order, into row (row.entries:
    every key's in key order, then the row's); s and keys: the schema and its keys (s.n = 0:
    none); reading: a call that reads the model (`_column`). row.heap is for free_row, after
    an error too."""
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
            c = _column(<object>key, index, width, reading)
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


cdef inline tuple row_keys(dict x, Py_ssize_t n):
    """The n keys of x, in the order read_row read them (PyDict_Next's, whatever a subclass's
    __iter__ says)."""
    cdef Py_ssize_t pos = 0, i = 0
    cdef PyObject* key
    cdef PyObject* val
    cdef tuple keys = PyTuple_New(n)
    while i < n and PyDict_Next(x, &pos, &key, &val):
        Py_INCREF(<object>key)
        PyTuple_SET_ITEM(keys, i, <object>key)
        i += 1
    if i < n:
        raise RuntimeError("x changed size while it was read")
    return keys


cdef inline bytes schema_block(const Row* row):
    """The schema of row's keys: their columns (key order), then the positions that sort them
    by column, as int32."""
    cdef Py_ssize_t i, n = row.n
    cdef bytes block = PyBytes_FromStringAndSize(NULL, 2 * n * sizeof(int32_t))
    cdef int32_t* cols = <int32_t*>PyBytes_AS_STRING(block)
    cdef Entry* e = <Entry*>PyMem_Malloc(n * sizeof(Entry) + 1)
    if e == NULL:
        raise MemoryError()
    for i in range(n):
        e[i].value, e[i].col = <double>i, row.entries[i].col
    sort_entries(e, n)
    for i in range(n):
        cols[i], cols[n + i] = row.entries[i].col, <int32_t>e[i].value
    PyMem_Free(e)
    return block


cdef inline Py_ssize_t frame_layout(list names, dict index, Py_ssize_t width,
                                    Entry* e) except -1:
    """The columns of a frame's names (a reading call's, `_column`), those that have one
    sorted by column, e[k].value the name's position; returns how many have one."""
    cdef Py_ssize_t j, m = 0
    cdef int c
    for j in range(len(names)):
        c = _column(names[j], index, width, True)
        if c >= 0:
            e[m].value, e[m].col = <double>j, c
            m += 1
    sort_entries(e, m)
    return m


cdef inline int frame_row(const double* values, const Entry* e, Py_ssize_t m,
                          Row* row) except -1:
    """A frame's row (values, NaN missing) in column order into row.values and row.cols."""
    cdef Py_ssize_t j, k = 0
    cdef double v
    for j in range(m):
        v = values[<Py_ssize_t>e[j].value]
        if v == v:  # NaN: a missing value
            need(not isinf(v), "values must be finite or NaN")
            row.values[k], row.cols[k] = v, e[j].col
            k += 1
    row.m = k
    return 0


cdef inline double* ptr2(object a, Py_ssize_t r, Py_ssize_t d, str what) except NULL:
    cdef double[:, ::1] v = a
    need(v.shape[0] == r and v.shape[1] == d and d >= 1, f"{what} must be ({r}, {d})")
    return &v[0, 0] if r else <double*>1  # never read when r == 0


cdef inline double* ptr1(object a, Py_ssize_t n, str what) except NULL:
    cdef double[::1] v = a
    need(v.shape[0] == n, f"{what} must have length {n}")
    return &v[0] if n else <double*>1


cdef inline Py_ssize_t between(Py_ssize_t work) except -1:
    """Ctrl-C between chunks of a long scoring call; the work since the last look."""
    if work < CHUNK_WORK:
        return work
    between_chunks()
    return 0


cdef inline double row_score(const double* x, const int32_t* cols, Py_ssize_t m, const double* w,
                             const double* u, double c) noexcept nogil:
    """The 4-lane sum of x[k] * w[j] (u NULL) or x[k] * (w[j] - u[j] / c), j = cols[k]."""
    return dot4_indexed(x, cols, w, m) if u == NULL else dot4_averaged(x, cols, w, u, c, m)
