# The popcount Gram and its CPU dispatch (see _core/_popcount.pxd; include_dirs must hold
# perceptron_c.get_include()).
from perceptron_c._core._popcount cimport (PC_IMPL_AVX2, PC_IMPL_AVX512, PC_IMPL_BUILTIN,
                                           PC_IMPL_POPCNT, pc_best_impl, pc_gram_popcount,
                                           pc_impl_available)
