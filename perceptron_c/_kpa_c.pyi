# Type stubs for the C twin; _kpa_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = [
    "kpa_epoch_cached",
    "kpa_epoch_rows",
    "kpa_conjunction_epoch_rows",
    "kpa_conjunction_decision",
    "kpa_conjunction_predict",
]

def kpa_epoch_cached(G: _D, y: _I64, order: _I64, weight: _D | None, alpha: _D, b: _D,
                     scores: _D, C: float, squared: bool, fit_intercept: bool,
                     u: _D | None = None, beta: _D | None = None, count: _I64 | None = None,
                     loss: _D | None = None) -> int: ...
def kpa_epoch_rows(Krows: _D, rows: _I64, y: _I64, weight: _D | None, alpha: _D, b: _D,
                   C: float, squared: bool, fit_intercept: bool, u: _D | None = None,
                   beta: _D | None = None, count: _I64 | None = None,
                   loss: _D | None = None) -> int: ...
def kpa_conjunction_epoch_rows(Erows: _I32, rows: _I64, ediag: _I32, y: _I64,
                               weight: _D | None, alpha: _D, C: float, squared: bool,
                               fit_intercept: bool, u: _D | None = None,
                               count: _I64 | None = None, loss: _D | None = None) -> int: ...
def kpa_conjunction_decision(E: _I32, ediag: _I32, coef: _D, fit_intercept: bool,
                             out: _D) -> None: ...
def kpa_conjunction_predict(E: _I32, ediag: _I32, coef: _D, fit_intercept: bool,
                            out: _I64) -> None: ...
