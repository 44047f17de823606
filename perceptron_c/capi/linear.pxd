# The linear perceptron's epochs and decisions (see perceptron_c.capi for the policy and
# _core/_linear_c.pxd for the arguments).
from perceptron_c._core._linear_c cimport binary_epoch, decision, multiclass_epoch
