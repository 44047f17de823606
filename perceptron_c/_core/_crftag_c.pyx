# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_crftag_py`` (the specification): the same class, the same results to the bit.

An item sequence is read with the GIL, one pass over its dicts (``PyDict_Next``) or lists,
each name looked up in the model's index of names; then the state scores and Viterbi run
without it. A `Decoder` holds pointers into the model's arrays (kept alive, never written), and
each call keeps its scratch to itself: any number of threads may tag at once.
"""
from cpython.bytes cimport PyBytes_Check
from cpython.dict cimport PyDict_CheckExact, PyDict_GetItemWithError, PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.list cimport PyList_CheckExact, PyList_GET_ITEM, PyList_GET_SIZE, PyList_New
from cpython.list cimport PyList_SET_ITEM
from cpython.long cimport PyLong_AsSsize_t
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_CheckExact
from libc.stdint cimport int32_t, int64_t

import numpy as np

from perceptron_c._core._crftag_py import __all__  # no-cython-lint: listed once (test_twins)

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    Py_ssize_t PyUnicode_CopyCharacters(object to, Py_ssize_t start, object source,
                                        Py_ssize_t source_start, Py_ssize_t n) except -1
    int PyUnicode_WriteChar(object u, Py_ssize_t index, Py_UCS4 c) except -1
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object u)
    Py_ssize_t PyUnicode_GET_LENGTH(object u)

cdef object _float = float
cdef str _DISAGREE = "Decoder: the arrays do not agree with the index and the labels"


cdef struct Attrs:
    # the known attributes of one sequence: ids and values, item t's at ptr[t]:ptr[t + 1]
    int64_t* ids
    double* vals
    Py_ssize_t n, cap


cdef int _push(Attrs* b, Py_ssize_t a, double v) except -1:
    cdef Py_ssize_t cap
    cdef void* p
    if b.n == b.cap:
        cap = 2 * b.cap + 64
        p = PyMem_Realloc(b.ids, cap * sizeof(int64_t))
        if p == NULL:
            raise MemoryError()
        b.ids = <int64_t*>p
        p = PyMem_Realloc(b.vals, cap * sizeof(double))
        if p == NULL:
            raise MemoryError()
        b.vals = <double*>p
        b.cap = cap
    b.ids[b.n] = a
    b.vals[b.n] = v
    b.n += 1
    return 0


cdef str _key(object key):
    if PyUnicode_CheckExact(key) or isinstance(key, str):
        return <str>key
    if PyBytes_Check(key):
        return (<bytes>key).decode("utf-8")
    raise TypeError(f"a feature name must be str or bytes, got {type(key).__name__}")


cdef str _joined(str a, str b):
    """a + ":" + b, made once (Python's two concatenations make two strings)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(a), m = PyUnicode_GET_LENGTH(b)
    cdef Py_UCS4 top = max(PyUnicode_MAX_CHAR_VALUE(a), PyUnicode_MAX_CHAR_VALUE(b))
    cdef object out = PyUnicode_New(n + 1 + m, max(top, 58))
    PyUnicode_CopyCharacters(out, 0, a, 0, n)
    PyUnicode_WriteChar(out, n, 58)  # ':'
    PyUnicode_CopyCharacters(out, n + 1, b, 0, m)
    return <str>out


cdef inline int _known(dict index, str name, double value, Attrs* b) except -1:
    cdef PyObject* a = PyDict_GetItemWithError(index, name)
    if a != NULL:
        _push(b, PyLong_AsSsize_t(<object>a), value)
    return 0


cdef double _value(object value) except? -1.0:
    if PyFloat_CheckExact(value):
        return PyFloat_AS_DOUBLE(value)
    if value is True:
        return 1.0
    if value is False:
        return 0.0
    return _float(value)


cdef int _read(object x, str prefix, dict index, Attrs* b) except -1:
    """_crftag_py.Decoder._read: the attributes of x, each name after ``prefix``."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* v
    if not isinstance(x, dict):
        for key in x:
            _known(index, _prefixed(prefix, key), 1.0, b)
        return 0
    if not PyDict_CheckExact(x):
        for key, value in x.items():
            _read_value(_prefixed(prefix, key), value, index, b)
        return 0
    while PyDict_Next(x, &pos, &k, &v):
        _read_value(_prefixed(prefix, <object>k), <object>v, index, b)
    return 0


cdef inline str _prefixed(str prefix, object key):
    return _key(key) if not prefix else prefix + _key(key)


cdef int _read_value(str name, object value, dict index, Attrs* b) except -1:
    if PyUnicode_CheckExact(value):
        _known(index, _joined(name, <str>value), 1.0, b)
    elif isinstance(value, (dict, list, set)):
        _read(value, name + ":", index, b)
    elif isinstance(value, (str, bytes)):
        _known(index, name + ":" + _key(value), 1.0, b)
    else:
        _known(index, name, _value(value), b)
    return 0


cdef int _read_prepared(object item, dict index, Attrs* b) except -1:
    cdef Py_ssize_t i
    cdef object pair
    if not PyList_CheckExact(item):
        for name, value in item:
            _known(index, name, value, b)
        return 0
    for i in range(PyList_GET_SIZE(item)):
        pair = <object>PyList_GET_ITEM(item, i)
        if PyTuple_CheckExact(pair) and PyTuple_GET_SIZE(pair) == 2:
            _known(index, <str><object>PyTuple_GET_ITEM(pair, 0),
                   <double><object>PyTuple_GET_ITEM(pair, 1), b)
        else:
            name, value = pair
            _known(index, name, value, b)
    return 0


cdef void _state(const Attrs* b, const Py_ssize_t* ptr, Py_ssize_t T, Py_ssize_t L,
                 const int64_t* attr_ptr, const int64_t* attr_label,
                 const double* attr_weight, double* state) noexcept nogil:
    """crf1dt_state_score: item by item, attribute by attribute, feature by feature."""
    cdef Py_ssize_t t, k, f
    cdef double v
    cdef double* row
    for t in range(T):
        row = state + t * L
        for k in range(ptr[t], ptr[t + 1]):
            v = b.vals[k]
            for f in range(attr_ptr[b.ids[k]], attr_ptr[b.ids[k] + 1]):
                row[attr_label[f]] += attr_weight[f] * v


cdef inline Py_ssize_t _first_max(const double* x, Py_ssize_t n, Py_ssize_t stride
                                  ) noexcept nogil:
    """numpy's argmax over x[0], x[stride], ...: the first maximum, or the first NaN."""
    cdef Py_ssize_t i, best = 0
    cdef double top = x[0]
    if top != top:
        return 0
    for i in range(1, n):
        if not x[i * stride] <= top:
            best, top = i, x[i * stride]
            if top != top:
                break
    return best


cdef double _viterbi(const double* state, const double* trans, Py_ssize_t T, Py_ssize_t L,
                     double* work, int32_t* back, int32_t* path) noexcept nogil:
    """crf1dc_viterbi (see _crftag_py.Decoder.best); work holds 3 * L doubles."""
    cdef double* cur = work
    cdef double* nxt = work + L
    cdef double* cand = work + 2 * L
    cdef double* swap
    cdef Py_ssize_t t, i, j, b
    for j in range(L):
        cur[j] = state[j]
    for t in range(1, T):
        for j in range(L):
            for i in range(L):
                cand[i] = cur[i] + trans[i * L + j]
            b = _first_max(cand, L, 1)
            back[t * L + j] = <int32_t>b
            nxt[j] = cand[b] + state[t * L + j]
        swap = cur
        cur = nxt
        nxt = swap
    b = _first_max(cur, L, 1)
    path[T - 1] = <int32_t>b
    for t in range(T - 1, 0, -1):
        path[t - 1] = back[t * L + path[t]]
    return cur[b]


cdef class Decoder:
    """_crftag_py.Decoder: the tagging tables of one opened model, read-only."""
    cdef dict _index
    cdef tuple _labels
    cdef object _arrays
    cdef const int64_t* _ptr
    cdef const int64_t* _label
    cdef const double* _weight
    cdef const double* _trans
    cdef Py_ssize_t L

    def __init__(self, dict index, tuple labels, attr_ptr, attr_label, attr_weight, trans):
        cdef const int64_t[::1] p = attr_ptr
        cdef const int64_t[::1] lab = attr_label
        cdef const double[::1] w = attr_weight
        cdef const double[:, ::1] tr = trans
        cdef Py_ssize_t i, L = len(labels), A = p.shape[0] - 1
        if L == 0 or tr.shape[0] != L or tr.shape[1] != L or A < 0 or lab.shape[0] != (
                w.shape[0]) or p[0] != 0 or p[A] != w.shape[0] or not all(
                type(a) is int and 0 <= a < A for a in index.values()):
            raise ValueError(_DISAGREE)
        for i in range(A):
            if p[i + 1] < p[i]:
                raise ValueError(_DISAGREE)
        for i in range(lab.shape[0]):
            if not 0 <= lab[i] < L:
                raise ValueError(_DISAGREE)
        self._index, self._labels, self.L = index, labels, L
        self._arrays = (attr_ptr, attr_label, attr_weight, trans)
        self._ptr, self._trans = &p[0], &tr[0, 0]
        self._label = &lab[0] if lab.shape[0] else NULL
        self._weight = &w[0] if w.shape[0] else NULL

    cdef object _scores(self, list items, bint prepared, double** out):
        """The state scores of items, as a new (T, L) array; *out its data."""
        cdef Py_ssize_t t, T = len(items)
        cdef Attrs b
        cdef Py_ssize_t* ptr = <Py_ssize_t*>PyMem_Malloc((T + 1) * sizeof(Py_ssize_t))
        cdef double[:, ::1] s
        if ptr == NULL:
            raise MemoryError()
        b.ids, b.vals, b.n, b.cap = NULL, NULL, 0, 0
        try:
            ptr[0] = 0
            for t in range(T):
                if prepared:
                    _read_prepared(items[t], self._index, &b)
                else:
                    _read(items[t], "", self._index, &b)
                ptr[t + 1] = b.n
            state = np.zeros((T, self.L), dtype=np.float64)
            s = state
            out[0] = &s[0, 0]
            with nogil:
                _state(&b, ptr, T, self.L, self._ptr, self._label, self._weight, out[0])
            return state
        finally:
            PyMem_Free(ptr)
            PyMem_Free(b.ids)
            PyMem_Free(b.vals)

    def state(self, list items, bint prepared):
        """_crftag_py.Decoder.state."""
        cdef double* out
        if not items:
            return np.zeros((0, self.L), dtype=np.float64)
        return self._scores(items, prepared, &out)

    cdef tuple _best(self, const double* state, Py_ssize_t T):
        cdef Py_ssize_t t, L = self.L
        cdef double score
        cdef void* mem = PyMem_Malloc(3 * L * sizeof(double) + (T * L + T) * sizeof(int32_t))
        cdef int32_t* path
        if mem == NULL:
            raise MemoryError()
        path = <int32_t*>(<double*>mem + 3 * L)
        try:
            with nogil:
                score = _viterbi(state, self._trans, T, L, <double*>mem, path + T, path)
            labels = PyList_New(T)
            for t in range(T):
                name = self._labels[path[t]]
                Py_INCREF(name)
                PyList_SET_ITEM(labels, t, name)
            return labels, score
        finally:
            PyMem_Free(mem)

    def best(self, const double[:, ::1] state):
        """_crftag_py.Decoder.best."""
        if state.shape[0] < 1 or state.shape[1] != self.L:
            raise ValueError(f"state must have shape (T >= 1, {self.L})")
        return self._best(&state[0, 0], state.shape[0])

    def tag(self, list items, bint prepared):
        """_crftag_py.Decoder.tag."""
        cdef double* out
        if not items:
            raise ValueError("tag needs at least one item")
        state = self._scores(items, prepared, &out)
        labels, score = self._best(out, len(items))
        return state, labels, score
