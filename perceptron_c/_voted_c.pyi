# Type stubs for the C twin; _voted_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_IE = npt.NDArray[np.int16] | npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = ["vote", "vote_conjunction"]

def vote(Kx: _D, index: _I64, sign: _D, survival: _D, bias_step: float, out: _D) -> None: ...
def vote_conjunction(E: _IE, index: _I64, sign: _D, survival: _D, fit_intercept: bool,
                     out: _D) -> None: ...
