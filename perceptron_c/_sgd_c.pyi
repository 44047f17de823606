# Type stubs for the C twin; _sgd_py has the same functions, signatures and constants.
import numpy as np
import numpy.typing as npt

# the slot and option numbers (WSCALE ... PENALTY_ELASTICNET) are the spec twin's
from perceptron_c._sgd_py import (
    ALPHA as ALPHA,
)
from perceptron_c._sgd_py import (
    AVERAGE_A as AVERAGE_A,
)
from perceptron_c._sgd_py import (
    AVERAGE_B as AVERAGE_B,
)
from perceptron_c._sgd_py import (
    AVERAGE_INTERCEPT as AVERAGE_INTERCEPT,
)
from perceptron_c._sgd_py import (
    AVERAGE_START as AVERAGE_START,
)
from perceptron_c._sgd_py import (
    EPSILON_OR_THRESHOLD as EPSILON_OR_THRESHOLD,
)
from perceptron_c._sgd_py import (
    ETA0 as ETA0,
)
from perceptron_c._sgd_py import (
    INTERCEPT as INTERCEPT,
)
from perceptron_c._sgd_py import (
    INTERCEPT_DECAY as INTERCEPT_DECAY,
)
from perceptron_c._sgd_py import (
    L1_NORM as L1_NORM,
)
from perceptron_c._sgd_py import (
    L1_RATIO as L1_RATIO,
)
from perceptron_c._sgd_py import (
    LOSS_EPSILON_INSENSITIVE as LOSS_EPSILON_INSENSITIVE,
)
from perceptron_c._sgd_py import (
    LOSS_HINGE as LOSS_HINGE,
)
from perceptron_c._sgd_py import (
    LOSS_SQUARED_EPSILON_INSENSITIVE as LOSS_SQUARED_EPSILON_INSENSITIVE,
)
from perceptron_c._sgd_py import (
    LOSS_SQUARED_HINGE as LOSS_SQUARED_HINGE,
)
from perceptron_c._sgd_py import (
    N_PARAMS as N_PARAMS,
)
from perceptron_c._sgd_py import (
    N_STATE as N_STATE,
)
from perceptron_c._sgd_py import (
    OBJECTIVE as OBJECTIVE,
)
from perceptron_c._sgd_py import (
    PENALTY_ELASTICNET as PENALTY_ELASTICNET,
)
from perceptron_c._sgd_py import (
    PENALTY_L1 as PENALTY_L1,
)
from perceptron_c._sgd_py import (
    PENALTY_L2 as PENALTY_L2,
)
from perceptron_c._sgd_py import (
    PENALTY_NONE as PENALTY_NONE,
)
from perceptron_c._sgd_py import (
    RATE_CONSTANT as RATE_CONSTANT,
)
from perceptron_c._sgd_py import (
    RATE_PA as RATE_PA,
)
from perceptron_c._sgd_py import (
    RATE_PA1 as RATE_PA1,
)
from perceptron_c._sgd_py import (
    RATE_PA2 as RATE_PA2,
)
from perceptron_c._sgd_py import (
    SQ_NORM as SQ_NORM,
)
from perceptron_c._sgd_py import (
    SUMLOSS as SUMLOSS,
)
from perceptron_c._sgd_py import (
    WEIGHT_NEG as WEIGHT_NEG,
)
from perceptron_c._sgd_py import (
    WEIGHT_POS as WEIGHT_POS,
)
from perceptron_c._sgd_py import (
    WSCALE as WSCALE,
)
from perceptron_c._sgd_py import (
    T as T,
)
from perceptron_c._sgd_py import (
    U as U,
)

_F = npt.NDArray[np.float32] | npt.NDArray[np.float64]
_D = npt.NDArray[np.float64]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = ["sgd_start", "sgd_epoch_dense", "sgd_epoch_csr", "sgd_finish", "sklearn_shuffle"]

def sgd_start(w: _D, q: _D, state: _D, intercept: float, average_intercept: float,
              t: float) -> None: ...
def sgd_epoch_dense(X: _F, y: _D, sample_weight: _D, order: _I64, w: _D, aw: _D, q: _D,
                    state: _D, params: _D, loss: int, learning_rate: int, penalty: int,
                    fit_intercept: bool, compute_objective: bool) -> int: ...
def sgd_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _D, sample_weight: _D,
                  order: _I64, w: _D, aw: _D, q: _D, state: _D, params: _D, loss: int,
                  learning_rate: int, penalty: int, fit_intercept: bool,
                  compute_objective: bool) -> int: ...
def sgd_finish(w: _D, aw: _D, state: _D) -> None: ...
def sklearn_shuffle(index: npt.NDArray[np.int64], seed: int) -> None: ...
