# Type stubs for the C twin; _dual_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

def dual_epoch_cached(G: _D, y: _D, order: _I64, alpha: _D, b: _D, scores: _D,
                      fit_intercept: bool, u: _D | None = None, beta: _D | None = None,
                      count: _I64 | None = None, steps: _I64 | None = None) -> int: ...
def multiclass_dual_epoch_cached(G: _D, y: _I64, order: _I64, alpha: _D, b: _D, scores: _D,
                                 fit_intercept: bool, U: _D | None = None,
                                 beta: _D | None = None, count: _I64 | None = None) -> int: ...
def dual_epoch_rows(Krows: _D, rows: _I64, y: _D, alpha: _D, b: _D, fit_intercept: bool,
                    u: _D | None = None, beta: _D | None = None,
                    count: _I64 | None = None, steps: _I64 | None = None) -> int: ...
def multiclass_dual_epoch_rows(Krows: _D, rows: _I64, y: _I64, alpha: _D, b: _D,
                               fit_intercept: bool, U: _D | None = None,
                               beta: _D | None = None, count: _I64 | None = None) -> int: ...
def conjunction_epoch_rows(Erows: _I32, rows: _I64, y: _D, alpha: _I64, b: _I64,
                           fit_intercept: bool, u: _I64 | None = None,
                           beta: _I64 | None = None, count: _I64 | None = None,
                           steps: _I64 | None = None) -> int: ...
def multiclass_conjunction_epoch_rows(Erows: _I32, rows: _I64, y: _I64, alpha: _I64, b: _I64,
                                      fit_intercept: bool, U: _I64 | None = None,
                                      beta: _I64 | None = None,
                                      count: _I64 | None = None) -> int: ...
def conjunction_decision(E: _I32, coef: _I64, b: _I64, out: _D) -> None: ...
def conjunction_argmax(E: _I32, coef: _I64, b: _I64, out: _I64) -> None: ...
