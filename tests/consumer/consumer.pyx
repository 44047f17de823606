# cython: language_level=3, boundscheck=False, wraparound=False
"""A Cython extension of another library: it cimports every module of perceptron_c.capi and
calls the C-level routines directly, as a library using perceptron_c as its backend would.
tests/test_consumer.py builds it against the installed package and compares its results
with the Python twins."""
from libc.stdint cimport int32_t, int64_t, uint64_t

from perceptron_c.capi.bigint cimport conjunction_sign, limbs_add_pow2, limbs_sign, limbs_sub_pow2
from perceptron_c.capi.conjunction cimport conjunction_binary_rows
from perceptron_c.capi.dual cimport binary_cached
from perceptron_c.capi.linear cimport binary_epoch, decision
from perceptron_c.capi.popcount cimport pc_best_impl, pc_gram_popcount, pc_impl_available
from perceptron_c.capi.sequence cimport best_path
from perceptron_c.capi.voted cimport vote_rows


def linear_epoch(double[:, ::1] X, double[::1] y, int64_t[::1] order, double[::1] w,
                 double[::1] b, bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    with nogil:
        r = binary_epoch(&X[0, 0], NULL, NULL, X.shape[1], &y[0], &order[0], order.shape[0],
                         &w[0], &b[0], NULL, NULL, NULL, fit_intercept, normalize, NULL, NULL)
    return r


def linear_decision(double[:, ::1] X, double[:, ::1] W, double[::1] b, double[:, ::1] out):
    with nogil:
        decision(&X[0, 0], NULL, NULL, X.shape[1], X.shape[0], W.shape[0], &W[0, 0], &b[0],
                 &out[0, 0])


def dual_cached(double[:, ::1] G, double[::1] y, int64_t[::1] order, double[::1] alpha,
                double[::1] b, double[::1] scores, bint fit_intercept):
    cdef Py_ssize_t r
    with nogil:
        r = binary_cached(&G[0, 0], &y[0], &order[0], order.shape[0], alpha.shape[0],
                          &alpha[0], &b[0], &scores[0], NULL, NULL, NULL, fit_intercept, NULL)
    return r


def conjunction_rows(int32_t[:, ::1] E, int64_t[::1] rows, double[::1] y, int64_t[::1] alpha,
                     int64_t[::1] b, bint fit_intercept):
    cdef Py_ssize_t r, j
    cdef int32_t top = 0
    for j in range(E.shape[0] * E.shape[1]):
        top = max(top, (&E[0, 0])[j])
    cdef int64_t[::1] buckets = __import__("numpy").zeros(top + 2, dtype="int64")
    with nogil:
        r = conjunction_binary_rows(&E[0, 0], &rows[0], rows.shape[0], alpha.shape[0], &y[0],
                                    &alpha[0], &b[0], NULL, NULL, NULL, fit_intercept,
                                    &buckets[0], NULL)
    return r


def sign_of(int64_t[::1] buckets, Py_ssize_t lo, Py_ssize_t hi):
    """Sign of sum_k buckets[k] 2^k (buckets[0] and buckets[lo..hi] used; cleared)."""
    return conjunction_sign(&buckets[0], lo, hi)


def limbs_signed_sum(list plus, list minus, Py_ssize_t n_limbs):
    """Sign of sum 2^e over plus minus sum 2^e over minus, on n_limbs 64-bit limbs."""
    cdef uint64_t[::1] limbs = __import__("numpy").zeros(n_limbs, dtype="uint64")
    for e in plus:
        limbs_add_pow2(&limbs[0], n_limbs, e)
    for e in minus:
        limbs_sub_pow2(&limbs[0], n_limbs, e)
    return limbs_sign(&limbs[0], n_limbs)


def vote(double[:, ::1] Kx, int64_t[::1] index, double[::1] sign, double[::1] survival,
         double bias_step, double[::1] out):
    with nogil:
        vote_rows(&Kx[0, 0], Kx.shape[0], Kx.shape[1], &index[0], &sign[0], index.shape[0],
                  &survival[0], bias_step, &out[0])


def popcount_gram(uint64_t[:, ::1] A, uint64_t[:, ::1] B, int64_t[:, ::1] out):
    cdef int impl = pc_best_impl()
    if not pc_impl_available(impl):
        raise RuntimeError("the best popcount path is not available")
    with nogil:
        pc_gram_popcount(impl, &A[0, 0], A.shape[0], &B[0, 0], B.shape[0], A.shape[1],
                         &out[0, 0])


def viterbi(double[:, ::1] E, double[:, ::1] trans, double[::1] delta, double[::1] back,
            int64_t[::1] path):
    cdef int r
    with nogil:
        r = best_path(&E[0, 0], &trans[0, 0], E.shape[0], E.shape[1], &delta[0], &back[0],
                      &path[0])
    return r
