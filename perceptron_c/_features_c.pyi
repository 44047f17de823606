# Type stubs for the C twin; _features_py has the same functions and signatures.
from collections.abc import Iterable
from typing import final

import numpy as np
import numpy.typing as npt

_D = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]

__all__ = ["Vocabulary", "extract_features", "sentence_keys"]

@final
class Vocabulary:
    def __init__(self, keys: Iterable[str] = ()) -> None: ...
    def __len__(self) -> int: ...
    def get(self, key: str) -> int: ...
    def keys(self) -> list[str]: ...
    def counts(self) -> _I64: ...

def extract_features(sentences: list[list[str]], spec: tuple[int, ...],
                     vocab: Vocabulary | None, grow: bool,
                     n_features: int) -> tuple[_D, _I64, _I64, _I64]: ...
def sentence_keys(tokens: list[str], spec: tuple[int, ...]) -> list[list[str]]: ...
