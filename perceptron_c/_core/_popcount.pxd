# C-level API of the popcount Gram in _popcount.h, for Cython code (compile with
# include_dirs=[perceptron_c.get_include()]). No checking: A is na x nw words, B nb x nw, out
# na rows of ldo entries of type kind (PC_OUT_I64; PC_OUT_I32 when 64 * nw < 2^31; PC_OUT_I16
# when every popcount is below 2^15; the old out32 flag is kind 0 or 1), all row-major and
# valid. impl is one of the PC_IMPL_* paths and must be available on this CPU
# (pc_impl_available); pc_best_impl() picks the widest one. pc_pack_b packs B once for impl
# into a buffer of pc_packed_words(impl, nb, nw) words and returns what to pass as Bp (B
# itself on the scalar paths); pc_gram_packed_* may then run on disjoint row blocks of A from
# several threads. pc_gram_rows computes rows i0.. of out (all of it, from A's row 0 on); with
# sym (A is B, out the square Gram of B) only the entries right of the diagonal, each stored
# at (i, j) and (j, i): pc_sym_pays says where that is faster. pc_gram_popcount(impl, A, na,
# B, nb, nw, out) does it all in one call, int64 out, ldo = nb. Every function is noexcept
# nogil: call it with or without the GIL. Public through perceptron_c.capi.popcount:
# pc_best_impl, pc_impl_available, pc_gram_popcount and the PC_IMPL_* constants.
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t


cdef extern from "_popcount.h":
    # the code paths (0..3, from the portable one up) and the output types
    int PC_IMPL_BUILTIN, PC_IMPL_POPCNT, PC_IMPL_AVX2, PC_IMPL_AVX512
    int PC_OUT_I64, PC_OUT_I32, PC_OUT_I16
    # 1 when the path impl (a PC_IMPL_* value) is compiled in and this CPU runs it, else 0
    # (PC_IMPL_BUILTIN: always 1)
    int pc_impl_available(int impl) noexcept nogil
    # the widest available path, PC_IMPL_BUILTIN at worst
    int pc_best_impl() noexcept nogil
    size_t pc_packed_words(int impl, Py_ssize_t nb, Py_ssize_t nw) noexcept nogil
    const uint64_t* pc_pack_b(int impl, const uint64_t* B, Py_ssize_t nb, Py_ssize_t nw,
                              uint64_t* buf) noexcept nogil
    void pc_gram_packed(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* Bp,
                        Py_ssize_t nb, Py_ssize_t nw, void* out, Py_ssize_t ldo,
                        int kind) noexcept nogil
    void pc_gram_rows(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* Bp,
                      Py_ssize_t nb, Py_ssize_t nw, void* out, Py_ssize_t ldo, int kind,
                      Py_ssize_t i0, int sym) noexcept nogil
    int pc_sym_pays(int impl, Py_ssize_t nw, int kind) noexcept nogil
    void pc_gram_packed_i64(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* Bp,
                            Py_ssize_t nb, Py_ssize_t nw, int64_t* out,
                            Py_ssize_t ldo) noexcept nogil
    void pc_gram_packed_i32(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* Bp,
                            Py_ssize_t nb, Py_ssize_t nw, int32_t* out,
                            Py_ssize_t ldo) noexcept nogil
    void pc_gram_packed_i16(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* Bp,
                            Py_ssize_t nb, Py_ssize_t nw, int16_t* out,
                            Py_ssize_t ldo) noexcept nogil
    # out[i * nb + j] = popcount(A_i AND B_j): A (na rows of nw uint64 words, row-major: the
    # bits of row i), B (nb rows of nw words), out (na x nb int64, row-major), on the path impl
    # (available: pc_impl_available). Same result on every path; it packs B into a buffer it
    # allocates and frees (out of memory: the scalar path, same result). Never fails.
    void pc_gram_popcount(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* B,
                          Py_ssize_t nb, Py_ssize_t nw, int64_t* out) noexcept nogil
