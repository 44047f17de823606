# Type stubs for the C twin; _order_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]

__all__ = ["draw_permutation"]

def draw_permutation(order: _I64, seed: int, epoch: int) -> None: ...
def _bounded(s: int, k: int) -> tuple[int, int]: ...
