# The kernel perceptron's epochs on a Gram or on kernel rows (see _core/_dual_c.pxd).
from perceptron_c._core._dual_c cimport (binary_cached, binary_rows, multiclass_cached,
                                         multiclass_rows)
