# Viterbi on an emission matrix and packed transitions (see _core/_sequence_c.pxd).
from perceptron_c._core._sequence_c cimport best_path
