# Type stubs for the C twin; _linear_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_F = npt.NDArray[np.float32] | npt.NDArray[np.float64]
_D = npt.NDArray[np.float64]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = [
    "perceptron_epoch_dense",
    "perceptron_epoch_csr",
    "averaged_epoch_dense",
    "averaged_epoch_csr",
    "multiclass_epoch_dense",
    "multiclass_epoch_csr",
    "multiclass_averaged_epoch_dense",
    "multiclass_averaged_epoch_csr",
    "decision_dense",
    "decision_csr",
]

def perceptron_epoch_dense(X: _F, y: _D, order: _I64, w: _D, b: _D, fit_intercept: bool,
                           normalize: bool, steps: _I64 | None = None,
                           sample_weight: _D | None = None) -> int: ...
def perceptron_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _D, order: _I64, w: _D,
                         b: _D, fit_intercept: bool, normalize: bool,
                         steps: _I64 | None = None, sample_weight: _D | None = None) -> int: ...
def averaged_epoch_dense(X: _F, y: _D, order: _I64, w: _D, b: _D, u: _D, beta: _D,
                         count: _I64, fit_intercept: bool, normalize: bool,
                         sample_weight: _D | None = None) -> int: ...
def averaged_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _D, order: _I64, w: _D,
                       b: _D, u: _D, beta: _D, count: _I64, fit_intercept: bool,
                       normalize: bool, sample_weight: _D | None = None) -> int: ...
def multiclass_epoch_dense(X: _F, y: _I64, order: _I64, W: _D, b: _D, fit_intercept: bool,
                           normalize: bool, sample_weight: _D | None = None) -> int: ...
def multiclass_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _I64, order: _I64, W: _D,
                         b: _D, fit_intercept: bool, normalize: bool,
                         sample_weight: _D | None = None) -> int: ...
def multiclass_averaged_epoch_dense(X: _F, y: _I64, order: _I64, W: _D, b: _D, U: _D,
                                    beta: _D, count: _I64, fit_intercept: bool,
                                    normalize: bool, sample_weight: _D | None = None) -> int: ...
def multiclass_averaged_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _I64,
                                  order: _I64, W: _D, b: _D, U: _D, beta: _D, count: _I64,
                                  fit_intercept: bool, normalize: bool,
                                  sample_weight: _D | None = None) -> int: ...
def decision_dense(X: _F, W: _D, b: _D, out: _D) -> None: ...
def decision_csr(data: _F, indices: _I32, indptr: _I64, W: _D, b: _D, out: _D) -> None: ...
