# Type stubs for the C twin; _sequence_py has the same functions and signatures.
import numpy as np
import numpy.typing as npt

_F = npt.NDArray[np.float32] | npt.NDArray[np.float64]
_D = npt.NDArray[np.float64]
_I32 = npt.NDArray[np.int32]
_I64 = npt.NDArray[np.int64]

__all__ = [
    "viterbi",
    "emissions_dense",
    "emissions_csr",
    "decode_dense",
    "decode_csr",
    "structured_epoch_dense",
    "structured_epoch_csr",
]

def _viterbi_paths() -> tuple[str, ...]: ...
def _set_viterbi_path(name: str) -> str: ...
def viterbi(E: _D, trans: _D, offsets: _I64, out: _I64) -> None: ...
def emissions_dense(X: _F, W: _D, b: _D, out: _D) -> None: ...
def emissions_csr(data: _F, indices: _I32, indptr: _I64, W: _D, b: _D, out: _D) -> None: ...
def decode_dense(X: _F, W: _D, b: _D, trans: _D, offsets: _I64, out: _I64, *,
                 n_jobs: object = None) -> None: ...
def decode_csr(data: _F, indices: _I32, indptr: _I64, W: _D, b: _D, trans: _D,
               offsets: _I64, out: _I64, *, n_jobs: object = None) -> None: ...
def structured_epoch_dense(X: _F, y: _I64, offsets: _I64, order: _I64, W: _D, b: _D,
                           trans: _D, fit_intercept: bool, U: _D | None, beta: _D | None,
                           U_trans: _D | None, count: _I64 | None, mistakes: _I64) -> int: ...
def structured_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _I64, offsets: _I64,
                         order: _I64, W: _D, b: _D, trans: _D, fit_intercept: bool,
                         U: _D | None, beta: _D | None, U_trans: _D | None,
                         count: _I64 | None, mistakes: _I64) -> int: ...
