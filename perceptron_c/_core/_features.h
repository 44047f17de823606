/* The C helpers of _features_c: reading a str's code points (PEP 393) and the two hashes.
 * Plain integer arithmetic on uint64_t, so every compiler gives the Python twin's numbers. */
#ifndef PC_FEATURES_H
#define PC_FEATURES_H

#include <Python.h>
#include <stdint.h>

#define PC_FNV_OFFSET 14695981039346656037ULL
#define PC_FNV_PRIME 1099511628211ULL

/* The code points of a str (any PEP 393 kind) written to out; returns their bitwise OR
 * (below 128 exactly when the str is ASCII). */
static Py_UCS4 pc_read_str(PyObject *s, uint32_t *out) {
    Py_ssize_t i, n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_UCS4 top = 0;
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = (const Py_UCS1 *)data;
        for (i = 0; i < n; i++) { out[i] = d[i]; top |= d[i]; }
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *d = (const Py_UCS2 *)data;
        for (i = 0; i < n; i++) { out[i] = d[i]; top |= d[i]; }
    } else {
        const Py_UCS4 *d = (const Py_UCS4 *)data;
        for (i = 0; i < n; i++) { out[i] = d[i]; top |= d[i]; }
    }
    return top;
}

/* A legacy (not yet canonical) str made readable; nothing to do since Python 3.12. */
static int pc_str_ready(PyObject *s) {
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(s);
#else
    (void)s;
    return 0;
#endif
}

/* SplitMix64's finalizer: the table slot of a key from its hash. */
static inline uint64_t pc_slot_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* FNV-1a over whole code points: the vocabulary table's own hash (never seen outside). */
static inline uint64_t pc_cp_hash(const uint32_t *k, Py_ssize_t n) {
    uint64_t h = PC_FNV_OFFSET;
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ k[i]) * PC_FNV_PRIME;
    return h;
}

/* a[:n] == b[:n]: keys are short, a loop beats a call of memcmp. */
static inline int pc_same_key(const uint32_t *a, const uint32_t *b, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* _features_py.fnv1a: 64-bit FNV-1a over the UTF-8 bytes of the code points, a lone
 * surrogate as three bytes (Python's 'surrogatepass'). */
static inline uint64_t pc_utf8_fnv1a(const uint32_t *k, Py_ssize_t n) {
    uint64_t h = PC_FNV_OFFSET;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t c = k[i];
        unsigned char b[4];
        int m;
        if (c < 0x80) { b[0] = (unsigned char)c; m = 1; }
        else if (c < 0x800) { b[0] = 0xC0 | (c >> 6); b[1] = 0x80 | (c & 0x3F); m = 2; }
        else if (c < 0x10000) {
            b[0] = 0xE0 | (c >> 12); b[1] = 0x80 | ((c >> 6) & 0x3F);
            b[2] = 0x80 | (c & 0x3F); m = 3;
        } else {
            b[0] = 0xF0 | (c >> 18); b[1] = 0x80 | ((c >> 12) & 0x3F);
            b[2] = 0x80 | ((c >> 6) & 0x3F); b[3] = 0x80 | (c & 0x3F); m = 4;
        }
        for (int j = 0; j < m; j++) h = (h ^ b[j]) * PC_FNV_PRIME;
    }
    return h;
}

#endif
