# Included by _crftag_c.pyx (its reader, `pack`, and its imports): dict_features, the twin of
# _crftag_py.dict_features, which DictFeatures calls. Each sentence's items are read as
# `pack` reads them (the names' code points and hashes, never a "name:value" str), then each
# name is interned in a `_features_c.Vocabulary` (its table, without a dict) or hashed.

cdef struct Rows:
    # growing CSR rows: entries ind/dat (cap), row ends ptr (ptr_cap), n_ptr of them
    int64_t* ind
    double* dat
    int64_t* ptr
    Py_ssize_t nnz, cap, n_ptr, ptr_cap


cdef int _entry(Rows* r, int64_t col, double value) except -1:
    cdef Py_ssize_t cap
    if r.nnz + 1 > r.cap:
        cap = r.cap
        reserve(<void**>&r.ind, &cap, r.nnz + 1, sizeof(int64_t))
        cap = r.cap
        reserve(<void**>&r.dat, &cap, r.nnz + 1, sizeof(double))
        r.cap = cap
    r.ind[r.nnz] = col
    r.dat[r.nnz] = value
    r.nnz += 1
    return 0


cdef void _hashed_row(Rows* r, Py_ssize_t first) noexcept:
    """The entries from ``first`` on (columns and values in reading order) sorted by column,
    stably, then each column once, its values added in reading order."""
    cdef Py_ssize_t i, j, w
    cdef int64_t c
    cdef double v
    for i in range(first + 1, r.nnz):  # insertion sort: rows are short
        c, v = r.ind[i], r.dat[i]
        j = i
        while j > first and r.ind[j - 1] > c:
            r.ind[j], r.dat[j] = r.ind[j - 1], r.dat[j - 1]
            j -= 1
        r.ind[j], r.dat[j] = c, v
    w = first
    for i in range(first, r.nnz):
        if w > first and r.ind[w - 1] == r.ind[i]:
            r.dat[w - 1] = r.dat[w - 1] + r.dat[i]
        else:
            r.ind[w], r.dat[w] = r.ind[i], r.dat[i]
            w += 1
    r.nnz = w


cdef object _int64s(const int64_t* p, Py_ssize_t n):
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] o = out
    if n:
        memcpy(&o[0], p, n * sizeof(int64_t))
    return out


cdef object _doubles(const double* p, Py_ssize_t n):
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    if n:
        memcpy(&o[0], p, n * sizeof(double))
    return out


def dict_features(sentences, vocab, bint grow, Py_ssize_t n_features):
    """_crftag_py.dict_features: each sentence read as `pack` reads it (the names' code
    points and hashes in C, never a "name:value" str), then each name interned in the
    `_features_c.Vocabulary` (its table, without a dict) or hashed."""
    cdef Py_ssize_t s, t, k, n, slot, first, since = 0
    cdef Packed p
    cdef Vocabulary v = None
    cdef Rows r
    cdef const uint32_t* key
    cdef int64_t vid
    if type(sentences) is not list:
        raise TypeError(f"sentences must be a list of lists of feature dicts, got "
                        f"{type(sentences).__name__}")
    if n_features == 0:
        if not isinstance(vocab, Vocabulary):
            raise TypeError(f"vocab must be a _features_c.Vocabulary, got "
                            f"{type(vocab).__name__}")
        v = <Vocabulary>vocab
    n_sent = len(sentences)
    lengths = np.empty(n_sent, dtype=np.int64)
    cdef int64_t[::1] lens = lengths
    r.ind, r.dat, r.ptr = NULL, NULL, NULL
    r.nnz = r.cap = r.n_ptr = r.ptr_cap = 0
    try:
        reserve(<void**>&r.ptr, &r.ptr_cap, 1, sizeof(int64_t))
        r.ptr[0], r.n_ptr = 0, 1
        for s in range(n_sent):
            if s >= len(sentences):
                raise RuntimeError("sentences changed during the reading")
            sentence = sentences[s]
            if type(sentence) is not list:
                raise TypeError(f"sentences[{s}] must be a list of feature dicts, got "
                                f"{type(sentence).__name__}")
            for t in range(len(sentence)):
                if isinstance(sentence[t], (str, bytes)):
                    raise TypeError(f"sentences[{s}][{t}] must be a dict of features or a "
                                    f"list of names, got {type(sentence[t]).__name__}")
            p = pack(sentence, False)
            reserve(<void**>&r.ptr, &r.ptr_cap, r.n_ptr + p.T, sizeof(int64_t))
            for t in range(p.T):
                first = r.nnz
                for k in range(p.ptr[t], p.ptr[t + 1]):
                    key = p.b.cps.p + p.b.start[k]
                    n = p.b.start[k + 1] - p.b.start[k]
                    if n_features:
                        _entry(&r, <int64_t>(utf8_fnv1a(key, n) % <uint64_t>n_features),
                               p.b.vals[k])
                        continue
                    vid = v.find(key, n, p.b.hashes[k], &slot)
                    if vid < 0 and grow:
                        vid = v.add(key, n, p.b.hashes[k], slot)
                    if vid >= 0:
                        if grow:
                            v.counts_[vid] += 1
                        _entry(&r, vid, p.b.vals[k])
                if n_features:
                    _hashed_row(&r, first)
                r.ptr[r.n_ptr] = r.nnz
                r.n_ptr += 1
            lens[s] = p.T
            since += p.T
            if since >= 4096:
                between_chunks()
                since = 0
        return (_doubles(r.dat, r.nnz), _int64s(r.ind, r.nnz), _int64s(r.ptr, r.n_ptr),
                lengths)
    finally:
        free(r.ind)
        free(r.dat)
        free(r.ptr)
