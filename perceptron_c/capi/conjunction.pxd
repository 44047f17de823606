# The exact conjunction-kernel epochs and decisions (see _core/_conjunction_c.pxd).
from perceptron_c._core._conjunction_c cimport (conjunction_argmax_rows,
                                                conjunction_binary_rows,
                                                conjunction_decision_rows,
                                                conjunction_multiclass_rows)
