# Type stubs for the C twin; _dual_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]

__all__ = [
    "dual_epoch_cached",
    "dual_epoch_rows",
    "multiclass_dual_epoch_cached",
    "multiclass_dual_epoch_rows",
]

def dual_epoch_cached(G: _D, y: _D, order: _I64, alpha: _D, b: _D, scores: _D,
                      fit_intercept: bool, u: _D | None = None, beta: _D | None = None,
                      count: _I64 | None = None, steps: _I64 | None = None, *,
                      sample_weight: _D | None = None) -> int: ...
def multiclass_dual_epoch_cached(G: _D, y: _I64, order: _I64, alpha: _D, b: _D, scores: _D,
                                 fit_intercept: bool, U: _D | None = None,
                                 beta: _D | None = None, count: _I64 | None = None, *,
                                 sample_weight: _D | None = None) -> int: ...
def dual_epoch_rows(Krows: _D, rows: _I64, y: _D, alpha: _D, b: _D, fit_intercept: bool,
                    u: _D | None = None, beta: _D | None = None,
                    count: _I64 | None = None, steps: _I64 | None = None, *,
                    cols: _I64 | None = None, sample_weight: _D | None = None) -> int: ...
def multiclass_dual_epoch_rows(Krows: _D, rows: _I64, y: _I64, alpha: _D, b: _D,
                               fit_intercept: bool, U: _D | None = None,
                               beta: _D | None = None, count: _I64 | None = None, *,
                               cols: _I64 | None = None,
                               sample_weight: _D | None = None) -> int: ...
