# Type stubs for the C twin; _budget_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = [
    "budget_epoch",
    "budget_epoch_exact",
    "projectron_epoch",
]

def budget_epoch(K: _D, rows: _I64, y: _I64, alpha: _D, b: _D, slots: _I64, where: _I64,
                 counts: _I64, fit_intercept: bool, policy: int, rand: _I64 | None = None,
                 shrink: _D | None = None, u: _D | None = None, beta: _D | None = None,
                 count: _I64 | None = None) -> int: ...
def budget_epoch_exact(E: _I32, rows: _I64, y: _I64, alpha: _I64, b: _I64, slots: _I64,
                       where: _I64, counts: _I64, fit_intercept: bool, policy: int,
                       rand: _I64 | None = None, u: _I64 | None = None,
                       beta: _I64 | None = None, count: _I64 | None = None) -> int: ...
def projectron_epoch(K: _D, rows: _I64, y: _I64, alpha: _D, b: _D, slots: _I64, where: _I64,
                     counts: _I64, Kinv: _D, eta: float, aggressive: bool, fit_intercept: bool,
                     u: _D | None = None, beta: _D | None = None,
                     count: _I64 | None = None) -> int: ...
