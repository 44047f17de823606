# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_crftag_py`` (the specification): the same class, the same results to the bit.

An item sequence is read with the GIL, one pass over its dicts (``PyDict_Next``) or lists
that copies each name's code points (a str value's name ``"key:value"`` without making it);
then, without the GIL, each name is looked up in the model's own table of names (a
`_features_c.Vocabulary` of the attribute names, read only), and the state scores and
Viterbi run. A `Decoder` holds pointers into the model's arrays (kept alive, never written),
and each call keeps its scratch to itself: any number of threads may tag at once.
"""
from cpython.bytes cimport PyBytes_Check
from cpython.dict cimport PyDict_CheckExact, PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.list cimport PyList_CheckExact, PyList_GET_ITEM, PyList_GET_SIZE, PyList_New
from cpython.list cimport PyList_SET_ITEM
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_CheckExact
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free

from perceptron_c._core._features_c cimport U32, Vocabulary, need_u32

import numpy as np

from perceptron_c._core._crftag_py import __all__  # no-cython-lint: listed once (test_twins)

cdef extern from "_prefetch.h":
    void prefetch "PC_PREFETCH"(const void* p) noexcept nogil

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object s)

cdef extern from "_features.h":
    int str_ready "pc_str_ready"(object s) except -1
    Py_UCS4 read_str "pc_read_str"(object s, uint32_t* out) noexcept
    uint64_t cp_hash "pc_cp_hash"(const uint32_t* k, Py_ssize_t n) noexcept nogil
    uint64_t slot_mix "pc_slot_mix"(uint64_t z) noexcept nogil
    bint same_key "pc_same_key"(const uint32_t* a, const uint32_t* b,
                                Py_ssize_t n) noexcept nogil

cdef object _float = float
# The work (names looked up plus Viterbi's candidates) below which a call keeps the GIL; 0:
# every call releases it. On short sentences neither gives 2 threads a speed-up (the reading
# holds the GIL for half the call): bench_crfsuite_tag.py measures both.
cdef Py_ssize_t NOGIL_WORK = 0


def _set_nogil_work(Py_ssize_t work):
    """NOGIL_WORK for the benchmark and the tests (0: every call releases the GIL); returns
    the one before. The results never depend on it."""
    global NOGIL_WORK
    before, NOGIL_WORK = NOGIL_WORK, work
    return before


cdef str _DISAGREE = "Decoder: the arrays do not agree with the index and the labels"


cdef struct Names:
    # the names of one sequence's attributes: name k is cps[start[k]:start[k + 1]], of
    # value vals[k]; then, looked up, the known ones' attribute ids and values (ids, known)
    U32 cps
    int64_t* start
    double* vals
    int64_t* ids
    double* known
    Py_ssize_t n, cap


cdef int _done(Names* b, double value) except -1:
    """The name whose code points were just appended gets its value."""
    cdef Py_ssize_t cap
    cdef void* p
    if b.n + 1 >= b.cap:
        cap = 2 * b.cap + 64
        p = PyMem_Realloc(b.start, (cap + 1) * sizeof(int64_t))
        if p == NULL:
            raise MemoryError()
        b.start = <int64_t*>p
        p = PyMem_Realloc(b.vals, cap * sizeof(double))
        if p == NULL:
            raise MemoryError()
        b.vals = <double*>p
        b.cap = cap
    b.vals[b.n] = value
    b.n += 1
    b.start[b.n] = b.cps.n
    return 0


cdef inline int _append(U32* b, str s, Py_ssize_t extra) except -1:
    """The code points of s at the end of b, with room for ``extra`` more after them."""
    str_ready(s)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    need_u32(b, n + extra)
    read_str(s, b.p + b.n)
    b.n += n
    return 0


cdef inline int _name(str name, double value, Names* b) except -1:
    _append(&b.cps, name, 0)
    return _done(b, value)


cdef inline int _joined(str key, str value, Names* b) except -1:
    """The name key + ":" + value, its code points only."""
    _append(&b.cps, key, 1)
    b.cps.p[b.cps.n] = 58  # ':'
    b.cps.n += 1
    _append(&b.cps, value, 0)
    return _done(b, 1.0)


cdef str _key(object key):
    if PyUnicode_CheckExact(key) or isinstance(key, str):
        return <str>key
    if PyBytes_Check(key):
        return (<bytes>key).decode("utf-8")
    raise TypeError(f"a feature name must be str or bytes, got {type(key).__name__}")


cdef double _value(object value) except? -1.0:
    if PyFloat_CheckExact(value):
        return PyFloat_AS_DOUBLE(value)
    if value is True:
        return 1.0
    if value is False:
        return 0.0
    return _float(value)


cdef int _read(object x, str prefix, Names* b) except -1:
    """_crftag_py.Decoder._read: the names of x, each after ``prefix``."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* v
    if not isinstance(x, dict):
        for key in x:
            _name(_prefixed(prefix, key), 1.0, b)
        return 0
    if not PyDict_CheckExact(x):
        for key, value in x.items():
            _read_value(_prefixed(prefix, key), value, b)
        return 0
    while PyDict_Next(x, &pos, &k, &v):
        _read_value(_prefixed(prefix, <object>k), <object>v, b)
    return 0


cdef inline str _prefixed(str prefix, object key):
    return _key(key) if not prefix else prefix + _key(key)


cdef int _read_value(str name, object value, Names* b) except -1:
    if PyUnicode_CheckExact(value):
        _joined(name, <str>value, b)
    elif isinstance(value, (dict, list, set)):
        _read(value, name + ":", b)
    elif isinstance(value, (str, bytes)):
        _joined(name, _key(value), b)
    else:
        _name(name, _value(value), b)
    return 0


cdef int _read_prepared(object item, Names* b) except -1:
    cdef Py_ssize_t i
    cdef object pair
    if not PyList_CheckExact(item):
        for name, value in item:
            _name(name, value, b)
        return 0
    for i in range(PyList_GET_SIZE(item)):
        pair = <object>PyList_GET_ITEM(item, i)
        if PyTuple_CheckExact(pair) and PyTuple_GET_SIZE(pair) == 2 and PyUnicode_CheckExact(
                <object>PyTuple_GET_ITEM(pair, 0)):
            _name(<str><object>PyTuple_GET_ITEM(pair, 0),
                  <double><object>PyTuple_GET_ITEM(pair, 1), b)
        else:
            name, value = pair
            _name(name, value, b)
    return 0


cdef Py_ssize_t _lookup(Names* b, Py_ssize_t* ptr, Py_ssize_t T, Vocabulary vocab,
                        const int64_t* attr) noexcept nogil:
    """Each name's attribute id (vocab's probe, read only), the unknown ones dropped; ptr[t]
    (item t's names' end) becomes the end of its known ones. All the hashes first, each
    name's first slot fetched ahead: the table's cache misses overlap."""
    cdef Py_ssize_t t, k, j, n, m = 0, lo = 0, mask = vocab.n_slots - 1
    cdef const uint32_t* key
    cdef uint64_t h
    cdef int64_t vid
    cdef uint64_t* hashes = <uint64_t*>b.ids  # (ids[m], m <= k, is written after hashes[k])
    for k in range(b.n):
        h = cp_hash(b.cps.p + b.start[k], b.start[k + 1] - b.start[k])
        hashes[k] = h
        prefetch(&vocab.slots[<Py_ssize_t>(slot_mix(h) & <uint64_t>mask)])
    for t in range(T):
        for k in range(lo, ptr[t + 1]):
            key = b.cps.p + b.start[k]
            n = b.start[k + 1] - b.start[k]
            h = hashes[k]
            j = <Py_ssize_t>(slot_mix(h) & <uint64_t>mask)
            while True:
                vid = vocab.slots[j].id
                if vid < 0:
                    break
                if (vocab.slots[j].hash == h and vocab.starts[vid + 1] - vocab.starts[vid] == n
                        and same_key(vocab.arena.p + vocab.starts[vid], key, n)):
                    b.ids[m] = attr[vid]
                    b.known[m] = b.vals[k]
                    m += 1
                    break
                j = (j + 1) & mask
        lo = ptr[t + 1]
        ptr[t + 1] = m
    return m


cdef void _state(const Names* b, const Py_ssize_t* ptr, Py_ssize_t T, Py_ssize_t L,
                 const int64_t* attr_ptr, const int64_t* attr_label,
                 const double* attr_weight, double* state) noexcept nogil:
    """crf1dt_state_score: item by item, attribute by attribute, feature by feature."""
    cdef Py_ssize_t t, k, f
    cdef double v
    cdef double* row
    for t in range(T):
        row = state + t * L
        for k in range(ptr[t], ptr[t + 1]):
            v = b.known[k]
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
    """crf1dc_viterbi (see _crftag_py.Decoder.best); work holds 3 * L doubles. The maxima
    of all labels j run together, previous label i by i (rows of trans): each j still sees
    its candidates in the order of i, as _first_max does."""
    cdef double* cur = work
    cdef double* nxt = work + L
    cdef double* top = work + 2 * L
    cdef double* swap
    cdef const double* row
    cdef double c, ci
    cdef int32_t* arg
    cdef Py_ssize_t t, i, j, b
    for j in range(L):
        cur[j] = state[j]
    for t in range(1, T):
        arg = back + t * L
        for j in range(L):
            top[j] = cur[0] + trans[j]
            arg[j] = 0
        for i in range(1, L):
            ci, row = cur[i], trans + i * L
            for j in range(L):
                c = ci + row[j]
                if top[j] == top[j] and not c <= top[j]:  # a NaN top stays (numpy's argmax)
                    top[j] = c
                    arg[j] = <int32_t>i
        for j in range(L):
            nxt[j] = top[j] + state[t * L + j]
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
    cdef tuple _labels
    cdef object _arrays
    cdef Vocabulary _vocab
    cdef const int64_t* _attr  # vocabulary id -> attribute id
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
        cdef const int64_t[::1] av
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
        attr = np.array(list(index.values()) + [0], dtype=np.int64)  # vocabulary ids in order
        av = attr
        self._vocab = Vocabulary(list(index))
        self._labels, self.L = labels, L
        self._arrays = (attr_ptr, attr_label, attr_weight, trans, attr)
        self._attr = &av[0]
        self._ptr, self._trans = &p[0], &tr[0, 0]
        self._label = &lab[0] if lab.shape[0] else NULL
        self._weight = &w[0] if w.shape[0] else NULL

    cdef object _run(self, list items, bint prepared, bint decode):
        """The state scores of items (a new (T, L) array); with decode, (them, the best
        labels, the score). The names read with the GIL, the rest without it."""
        cdef Py_ssize_t t, T = len(items), L = self.L
        cdef Names b
        cdef double score = 0.0
        cdef double* out
        cdef double[:, ::1] s
        cdef void* work = NULL
        cdef int32_t* path
        cdef Py_ssize_t* ptr = <Py_ssize_t*>PyMem_Malloc((T + 1) * sizeof(Py_ssize_t))
        if ptr == NULL:
            raise MemoryError()
        b.cps.p, b.start, b.vals, b.ids, b.known = NULL, NULL, NULL, NULL, NULL
        b.cps.n = b.cps.cap = b.n = b.cap = 0
        try:
            _done(&b, 0.0)  # (room for start; name 0 dropped below)
            b.n, b.start[0], ptr[0] = 0, 0, 0
            for t in range(T):
                if prepared:
                    _read_prepared(items[t], &b)
                else:
                    _read(items[t], "", &b)
                ptr[t + 1] = b.n
            b.ids = <int64_t*>PyMem_Malloc(b.n * sizeof(int64_t) + 1)
            b.known = <double*>PyMem_Malloc(b.n * sizeof(double) + 1)
            if decode:
                work = PyMem_Malloc(3 * L * sizeof(double) + (T * L + T) * sizeof(int32_t))
            if b.ids == NULL or b.known == NULL or (decode and work == NULL):
                raise MemoryError()
            state = np.zeros((T, L), dtype=np.float64)
            s = state
            out = &s[0, 0]
            path = <int32_t*>(<double*>work + 3 * L)
            if b.n * 8 + (T * L * L if decode else 0) >= NOGIL_WORK:
                with nogil:
                    score = self._work(&b, ptr, T, out, decode, <double*>work, path)
            else:
                score = self._work(&b, ptr, T, out, decode, <double*>work, path)
            if not decode:
                return state
            return state, self._names(path, T), score
        finally:
            PyMem_Free(ptr)
            free(b.cps.p)  # (grown by _features_c with realloc)
            PyMem_Free(b.start)
            PyMem_Free(b.vals)
            PyMem_Free(b.ids)
            PyMem_Free(b.known)
            PyMem_Free(work)

    cdef double _work(self, Names* b, Py_ssize_t* ptr, Py_ssize_t T, double* out,
                      bint decode, double* work, int32_t* path) noexcept nogil:
        """The names looked up, the state scores, and with decode Viterbi (its score)."""
        _lookup(b, ptr, T, self._vocab, self._attr)
        _state(b, ptr, T, self.L, self._ptr, self._label, self._weight, out)
        if decode:
            return _viterbi(out, self._trans, T, self.L, work, path + T, path)
        return 0.0

    cdef list _names(self, const int32_t* path, Py_ssize_t T):
        cdef Py_ssize_t t
        labels = PyList_New(T)
        for t in range(T):
            name = self._labels[path[t]]
            Py_INCREF(name)
            PyList_SET_ITEM(labels, t, name)
        return labels

    def state(self, list items, bint prepared):
        """_crftag_py.Decoder.state."""
        if not items:
            return np.zeros((0, self.L), dtype=np.float64)
        return self._run(items, prepared, False)

    def best(self, const double[:, ::1] state):
        """_crftag_py.Decoder.best."""
        cdef Py_ssize_t T = state.shape[0], L = self.L
        cdef double score
        cdef void* work
        cdef int32_t* path
        if T < 1 or state.shape[1] != L:
            raise ValueError(f"state must have shape (T >= 1, {L})")
        work = PyMem_Malloc(3 * L * sizeof(double) + (T * L + T) * sizeof(int32_t))
        if work == NULL:
            raise MemoryError()
        path = <int32_t*>(<double*>work + 3 * L)
        try:
            if T * L * L >= NOGIL_WORK:
                with nogil:
                    score = _viterbi(&state[0, 0], self._trans, T, L, <double*>work,
                                     path + T, path)
            else:
                score = _viterbi(&state[0, 0], self._trans, T, L, <double*>work, path + T,
                                 path)
            return self._names(path, T), score
        finally:
            PyMem_Free(work)

    def tag(self, list items, bint prepared):
        """_crftag_py.Decoder.tag."""
        if not items:
            raise ValueError("tag needs at least one item")
        return self._run(items, prepared, True)
