# Exact sums of signed powers of two (see _core/_bigint.pxd).
from perceptron_c._core._bigint cimport (conjunction_sign, limbs_add_pow2, limbs_sign,
                                         limbs_sub_pow2)
