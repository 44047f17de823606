# Type stubs for the C twin; _gram_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_I16 = npt.NDArray[np.int16]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]
_U8 = npt.NDArray[np.uint8]
_U64 = npt.NDArray[np.uint64]

__all__ = [
    "pack_rows",
    "gram_conjunction_log2",
    "gram_linear",
    "gram_poly",
    "gram_rbf",
    "row_sqnorms",
    "popcount_impl",
    "available_popcount_impls",
    "set_popcount_impl",
]

def pack_rows(X01_uint8: _U8, words_out_uint64: _U64) -> None: ...
def gram_conjunction_log2(A_words: _U64, B_words: _U64, out: _I16 | _I32 | _I64, *,
                          n_jobs: int | None = None) -> None: ...
def gram_linear(X: _D, Y: _D, out: _D, *, n_jobs: int | None = None) -> None: ...
def gram_poly(X: _D, Y: _D, degree: int, gamma: float, coef0: float, out: _D, *,
              n_jobs: int | None = None) -> None: ...
def gram_rbf(X: _D, Y: _D, gamma: float, out: _D, *, n_jobs: int | None = None,
             norms: tuple[_D, _D] | None = None) -> None: ...
def row_sqnorms(X: _D) -> _D: ...
def popcount_impl() -> str: ...
def available_popcount_impls() -> tuple[str, ...]: ...
def set_popcount_impl(name: str) -> str: ...
