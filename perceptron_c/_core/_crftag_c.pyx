# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_crftag_py`` (the specification): the same class, the same results to the bit.

An item sequence is read with the GIL, one pass over its dicts (``PyDict_Next``) or lists
that keeps a reference to each name's str (and to a str value: the name ``"key:value"`` is
never made); then, without the GIL, the names' code points are copied and hashed, each looked
up in the model's own table of names (a `_features_c.Vocabulary` of the attribute names, read
only), and the state scores and Viterbi run. `pack` does the reading and hashing once (a
`Packed`, what an ``ItemSequence`` holds): a call on it holds the GIL only to enter and to
leave. A `Decoder` holds pointers into the model's arrays (kept alive, never written), and
each call keeps its scratch to itself: any number of threads may tag at once.
"""
cimport cython
from cpython.bytes cimport PyBytes_Check
from cpython.dict cimport PyDict_CheckExact, PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.list cimport PyList_CheckExact, PyList_GET_ITEM, PyList_GET_SIZE, PyList_New
from cpython.list cimport PyList_SET_ITEM
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_CheckExact, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_CheckExact
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset

from perceptron_c._core._checks cimport between_chunks
from perceptron_c._core._features_c cimport U32, Vocabulary, need_u32, reserve

import numpy as np

from perceptron_c._core._crftag_py import __all__  # no-cython-lint: listed once (test_twins)

cdef extern from "_prefetch.h":
    void prefetch "PC_PREFETCH"(const void* p) noexcept nogil

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object s)
    Py_ssize_t obj_length "PyUnicode_GET_LENGTH"(PyObject* s) noexcept nogil
    int PyUnicode_4BYTE_KIND
    str PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)

cdef extern from "_features.h":
    int str_ready "pc_str_ready"(object s) except -1
    Py_UCS4 read_obj "pc_read_str"(PyObject* s, uint32_t* out) noexcept nogil
    uint64_t cp_hash "pc_cp_hash"(const uint32_t* k, Py_ssize_t n) noexcept nogil
    uint64_t utf8_fnv1a "pc_utf8_fnv1a"(const uint32_t* k, Py_ssize_t n) noexcept nogil
    uint64_t slot_mix "pc_slot_mix"(uint64_t z) noexcept nogil
    bint same_key "pc_same_key"(const uint32_t* a, const uint32_t* b,
                                Py_ssize_t n) noexcept nogil

cdef object _float = float
cdef object _empty = np.empty
cdef object _f64 = np.float64
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
    # the names of one sequence's attributes: name k is cps[start[k]:start[k + 1]], of value
    # vals[k] and hash hashes[k]. While read, objs[2k] holds its key (a str) and objs[2k + 1]
    # its str value or NULL (the name is key ":" value), owned references: their code points
    # are copied later, without the GIL (a str never changes).
    U32 cps
    int64_t* start
    double* vals
    PyObject** objs
    uint64_t* hashes
    Py_ssize_t n, cap


cdef void _clear(Names* b) noexcept nogil:
    b.cps.p, b.start, b.vals, b.objs = NULL, NULL, NULL, NULL
    b.hashes = NULL
    b.cps.n = b.cps.cap = b.n = b.cap = 0


cdef void _release(Names* b) noexcept:
    """The references read are dropped (with the GIL)."""
    cdef Py_ssize_t k
    if b.objs != NULL:
        for k in range(2 * b.n):
            Py_XDECREF(b.objs[k])
        PyMem_Free(b.objs)
        b.objs = NULL


cdef void _free(Names* b) noexcept:
    _release(b)
    free(b.cps.p)  # (grown by _features_c with realloc)
    PyMem_Free(b.start)
    PyMem_Free(b.vals)
    PyMem_Free(b.hashes)
    _clear(b)


cdef int _grow(Names* b) except -1:
    cdef Py_ssize_t cap = 2 * b.cap + 64
    cdef void* p = PyMem_Realloc(b.start, (cap + 1) * sizeof(int64_t))
    if p == NULL:
        raise MemoryError()
    b.start = <int64_t*>p
    b.start[0] = 0 if b.cap == 0 else b.start[0]
    p = PyMem_Realloc(b.vals, cap * sizeof(double))
    if p == NULL:
        raise MemoryError()
    b.vals = <double*>p
    p = PyMem_Realloc(b.objs, 2 * cap * sizeof(PyObject*))
    if p == NULL:
        raise MemoryError()
    b.objs = <PyObject**>p
    b.cap = cap
    return 0


cdef int _add(Names* b, str key, str text, double value) except -1:
    """One name: ``key`` of ``value``, or ``key:text`` of 1.0 when text is not None."""
    cdef Py_ssize_t k = b.n, n
    if k + 1 >= b.cap:
        _grow(b)
    str_ready(key)
    n = PyUnicode_GET_LENGTH(key)
    if text is not None:
        str_ready(text)
        n += 1 + PyUnicode_GET_LENGTH(text)
        Py_INCREF(text)
    b.objs[2 * k + 1] = <PyObject*>text if text is not None else NULL
    Py_INCREF(key)
    b.objs[2 * k] = <PyObject*>key
    b.vals[k] = value
    b.start[k + 1] = b.start[k] + n
    b.n = k + 1
    return 0


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
            _add(b, _prefixed(prefix, key), None, 1.0)
        return 0
    if not PyDict_CheckExact(x):
        for key, value in x.items():
            _read_value(_prefixed(prefix, key), value, b)
        return 0
    while PyDict_Next(x, &pos, &k, &v):
        _read_value(_prefixed(prefix, <object>k), <object>v, b)
    return 0


cdef inline str _prefixed(str prefix, object key):
    if not prefix:
        return <str>key if PyUnicode_CheckExact(key) else _key(key)
    return prefix + _key(key)


cdef int _read_value(str name, object value, Names* b) except -1:
    # (an exact float, bool or str first: none is a dict, list or set, which come first in
    # the twin's order)
    if PyFloat_CheckExact(value):
        _add(b, name, None, PyFloat_AS_DOUBLE(value))
    elif value is True or value is False:
        _add(b, name, None, 1.0 if value is True else 0.0)
    elif PyUnicode_CheckExact(value):
        _add(b, name, <str>value, 1.0)
    elif isinstance(value, (dict, list, set)):
        _read(value, name + ":", b)
    elif isinstance(value, (str, bytes)):
        _add(b, name, _key(value), 1.0)
    else:
        _add(b, name, None, _value(value))
    return 0


cdef int _read_prepared(object item, Names* b) except -1:
    cdef Py_ssize_t i
    cdef object pair
    if not PyList_CheckExact(item):
        for name, value in item:
            _add(b, _key(name), None, value)
        return 0
    for i in range(PyList_GET_SIZE(item)):
        pair = <object>PyList_GET_ITEM(item, i)
        if PyTuple_CheckExact(pair) and PyTuple_GET_SIZE(pair) == 2 and PyUnicode_CheckExact(
                <object>PyTuple_GET_ITEM(pair, 0)):
            _add(b, <str><object>PyTuple_GET_ITEM(pair, 0), None,
                 <double><object>PyTuple_GET_ITEM(pair, 1))
        else:
            name, value = pair
            _add(b, _key(name), None, value)
    return 0


cdef int _read_all(list items, bint prepared, Names* b, Py_ssize_t* ptr) except -1:
    """The names of every item (ptr[t + 1]: item t's end), and room for their code points
    and hashes; all with the GIL."""
    cdef Py_ssize_t t
    _grow(b)
    ptr[0] = 0
    for t in range(len(items)):
        if prepared:
            _read_prepared(items[t], b)
        else:
            _read(items[t], "", b)
        ptr[t + 1] = b.n
    need_u32(&b.cps, b.start[b.n])
    b.hashes = <uint64_t*>PyMem_Malloc(b.n * sizeof(uint64_t) + 1)
    if b.hashes == NULL:
        raise MemoryError()
    return 0


cdef void _fill(Names* b) noexcept nogil:
    """The code points of every name, from the str objects read, and their hashes."""
    cdef Py_ssize_t k, m
    cdef uint32_t* p
    for k in range(b.n):
        p = b.cps.p + b.start[k]
        read_obj(b.objs[2 * k], p)
        if b.objs[2 * k + 1] != NULL:
            m = obj_length(b.objs[2 * k])
            p[m] = 58  # ':'
            read_obj(b.objs[2 * k + 1], p + m + 1)
        b.hashes[k] = cp_hash(p, b.start[k + 1] - b.start[k])
    b.cps.n = b.start[b.n]


cdef Py_ssize_t _lookup(const Names* b, const Py_ssize_t* ptr, Py_ssize_t* known_ptr,
                        Py_ssize_t T, Vocabulary vocab, const int64_t* attr, int64_t* ids,
                        double* known) noexcept nogil:
    """Each name's attribute id (vocab's probe, read only), the unknown ones dropped;
    known_ptr[t + 1] is the end of item t's known ones. Every name's first slot is fetched
    ahead: the table's cache misses overlap."""
    cdef Py_ssize_t t, k, j, n, m = 0, mask = vocab.n_slots - 1
    cdef const uint32_t* key
    cdef uint64_t h
    cdef int64_t vid
    for k in range(ptr[T]):
        prefetch(&vocab.slots[<Py_ssize_t>(slot_mix(b.hashes[k]) & <uint64_t>mask)])
    known_ptr[0] = 0
    for t in range(T):
        for k in range(ptr[t], ptr[t + 1]):
            key = b.cps.p + b.start[k]
            n = b.start[k + 1] - b.start[k]
            h = b.hashes[k]
            j = <Py_ssize_t>(slot_mix(h) & <uint64_t>mask)
            while True:
                vid = vocab.slots[j].id
                if vid < 0:
                    break
                if (vocab.slots[j].hash == h and vocab.starts[vid + 1] - vocab.starts[vid] == n
                        and same_key(vocab.arena.p + vocab.starts[vid], key, n)):
                    ids[m] = attr[vid]
                    known[m] = b.vals[k]
                    m += 1
                    break
                j = (j + 1) & mask
        known_ptr[t + 1] = m
    return m


cdef void _state(const int64_t* ids, const double* known, const Py_ssize_t* ptr,
                 Py_ssize_t T, Py_ssize_t L, const int64_t* attr_ptr,
                 const int64_t* attr_label, const double* attr_weight, double* state
                 ) noexcept nogil:
    """crf1dt_state_score: item by item, attribute by attribute, feature by feature."""
    cdef Py_ssize_t t, k, f
    cdef double v
    cdef double* row
    memset(state, 0, T * L * sizeof(double))
    for t in range(T):
        row = state + t * L
        for k in range(ptr[t], ptr[t + 1]):
            v = known[k]
            for f in range(attr_ptr[ids[k]], attr_ptr[ids[k] + 1]):
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


@cython.final
cdef class Packed:
    """_crftag_py.Packed: the names of an item sequence read once (their code points, hashes
    and values), looked up in any model without the GIL; never changed after `pack`."""
    cdef Names b
    cdef Py_ssize_t* ptr  # item t's names: ptr[t]:ptr[t + 1]
    cdef Py_ssize_t T

    def __cinit__(self):
        _clear(&self.b)
        self.ptr, self.T = NULL, 0

    def __dealloc__(self):
        _free(&self.b)
        PyMem_Free(self.ptr)

    def __len__(self):
        return self.T

    def __reduce__(self):
        return pack, (self.pairs(), True)

    def pairs(self):
        """_crftag_py.Packed.pairs."""
        cdef Py_ssize_t t, k
        cdef list out = [], item
        for t in range(self.T):
            item = []
            for k in range(self.ptr[t], self.ptr[t + 1]):
                item.append((PyUnicode_FromKindAndData(
                    PyUnicode_4BYTE_KIND, self.b.cps.p + self.b.start[k],
                    self.b.start[k + 1] - self.b.start[k]), self.b.vals[k]))
            out.append(item)
        return out


def pack(list items, bint prepared):
    """_crftag_py.pack."""
    cdef Packed p = Packed.__new__(Packed)
    cdef Py_ssize_t T = len(items)
    p.ptr = <Py_ssize_t*>PyMem_Malloc((T + 1) * sizeof(Py_ssize_t))
    if p.ptr == NULL:
        raise MemoryError()
    _read_all(items, prepared, &p.b, p.ptr)
    _fill(&p.b)
    _release(&p.b)
    p.T = T
    return p


# DictFeatures' rows (dict_features), read with this module's reader (pack)
include "_crftag_rows.pxi"


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

    cdef object _run(self, object items, bint prepared, bint decode, bint keep=True):
        """The state scores of items (a new (T, L) array); with decode, (them, the best
        labels, the score), or without keep (the best labels, the score), the scores in
        scratch memory. The items read with the GIL (a Packed: already), the rest without
        it."""
        cdef Names b
        cdef const Names* names
        cdef Packed packed
        cdef Py_ssize_t T, L = self.L
        cdef Py_ssize_t* ptr = NULL
        cdef Py_ssize_t* known_ptr
        cdef int64_t* ids
        cdef double* known
        cdef double score = 0.0
        cdef double[:, ::1] s
        cdef double* out
        cdef char* scratch = NULL
        cdef int32_t* path
        cdef bint raw = type(items) is not Packed
        state = None
        _clear(&b)
        try:
            if raw:
                T = len(<list>items)
                ptr = <Py_ssize_t*>PyMem_Malloc((T + 1) * sizeof(Py_ssize_t))
                if ptr == NULL:
                    raise MemoryError()
                _read_all(<list>items, prepared, &b, ptr)
                names = &b
            else:
                packed = <Packed>items
                T, ptr, names = packed.T, packed.ptr, &packed.b
            scratch = <char*>PyMem_Malloc(
                (T * L * (not keep) + names.n + 3 * L * decode) * sizeof(double)
                + (T + 1) * sizeof(Py_ssize_t) + names.n * sizeof(int64_t)
                + (T * L + T) * sizeof(int32_t) * decode)
            if scratch == NULL:
                raise MemoryError()
            known = <double*>scratch
            work = known + names.n
            out = work + 3 * L * decode
            ids = <int64_t*>(out + T * L * (not keep))
            known_ptr = <Py_ssize_t*>(ids + names.n)
            path = <int32_t*>(known_ptr + T + 1)
            if keep:
                state = _empty((T, L), _f64)
                s = state
                out = &s[0, 0]
            if names.n * 8 + (T * L * L if decode else 0) >= NOGIL_WORK:
                with nogil:
                    score = self._work(names, raw, ptr, known_ptr, T, ids, known, out,
                                       decode, work, path)
            else:
                score = self._work(names, raw, ptr, known_ptr, T, ids, known, out,
                                   decode, work, path)
            _release(&b)
            if not decode:
                return state
            if not keep:
                return self._names(path, T), score
            return state, self._names(path, T), score
        finally:
            if raw:
                PyMem_Free(ptr)
            _free(&b)
            PyMem_Free(scratch)

    cdef double _work(self, const Names* b, bint fill, const Py_ssize_t* ptr,
                      Py_ssize_t* known_ptr, Py_ssize_t T, int64_t* ids, double* known,
                      double* out, bint decode, double* work, int32_t* path) noexcept nogil:
        """The names' code points and hashes (with fill), looked up, the state scores, and
        with decode Viterbi (its score)."""
        if fill:
            _fill(<Names*>b)
        _lookup(b, ptr, known_ptr, T, self._vocab, self._attr, ids, known)
        _state(ids, known, known_ptr, T, self.L, self._ptr, self._label, self._weight, out)
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

    def state(self, object items, bint prepared):
        """_crftag_py.Decoder.state."""
        if type(items) is not list and type(items) is not Packed:
            raise TypeError(f"items must be a list or a Packed, got {type(items).__name__}")
        if len(items) == 0:
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

    def tag(self, object items, bint prepared):
        """_crftag_py.Decoder.tag."""
        if type(items) is not list and type(items) is not Packed:
            raise TypeError(f"items must be a list or a Packed, got {type(items).__name__}")
        if len(items) == 0:
            raise ValueError("tag needs at least one item")
        return self._run(items, prepared, True)

    def decode(self, object items, bint prepared):
        """_crftag_py.Decoder.decode."""
        if type(items) is not list and type(items) is not Packed:
            raise TypeError(f"items must be a list or a Packed, got {type(items).__name__}")
        if len(items) == 0:
            raise ValueError("decode needs at least one item")
        return self._run(items, prepared, True, False)
