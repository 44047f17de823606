# The voted perceptron's vote (see _core/_voted_c.pxd).
from perceptron_c._core._voted_c cimport vote_conjunction_rows, vote_rows
