# Type stubs for the C twin; _conjunction_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_IE = npt.NDArray[np.int16] | npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = [
    "conjunction_epoch_rows",
    "multiclass_conjunction_epoch_rows",
    "conjunction_decision",
    "conjunction_argmax",
]

def conjunction_epoch_rows(Erows: _IE, rows: _I64, y: _D, alpha: _I64, b: _I64,
                           fit_intercept: bool, u: _I64 | None = None,
                           beta: _I64 | None = None, count: _I64 | None = None,
                           steps: _I64 | None = None, *, cols: _I64 | None = None,
                           sample_weight: _I64 | None = None) -> int: ...
def multiclass_conjunction_epoch_rows(Erows: _IE, rows: _I64, y: _I64, alpha: _I64, b: _I64,
                                      fit_intercept: bool, U: _I64 | None = None,
                                      beta: _I64 | None = None,
                                      count: _I64 | None = None, *, cols: _I64 | None = None,
                                      sample_weight: _I64 | None = None) -> int: ...
def conjunction_decision(E: _IE, coef: _I64, b: _I64, out: _D) -> None: ...
def conjunction_argmax(E: _IE, coef: _I64, b: _I64, out: _I64) -> None: ...
