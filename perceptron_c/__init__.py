"""perceptron_c: the perceptron family with a Cython core and a pure-Python reference twin.

``BACKEND`` is "c" when the compiled routines are in use, "python" when
``PERCEPTRON_C_NO_EXTENSIONS`` is set or the package was built without its C core (then the
pure-Python twins run instead).
"""
from __future__ import annotations

import os as _os
from typing import Any as _Any

from . import exceptions, kernels
from . import io as _io
from ._backend import BACKEND
from ._utils import _moved
from ._utils._docs import fill as _fill
from .budget_perceptron import BudgetKernelPerceptron
from .exceptions import ConcurrentUseError, ConvergenceWarning, FileFormatError, NotFittedError
from .io import all_estimators
from .kernel_passive_aggressive import KernelPassiveAggressiveClassifier
from .kernel_perceptron import KernelPerceptron
from .passive_aggressive import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from .perceptron import Perceptron
from .sequence import StructuredPerceptron
from .theory import margin, mistake_bound
from .voted_perceptron import VotedPerceptron

_moved.install()  # the flat layout's module names, for pickles made before the rooms

__version__ = "0.1.0"
__all__ = ["BACKEND", "exceptions", "kernels", "Perceptron", "KernelPerceptron",
           "BudgetKernelPerceptron", "VotedPerceptron", "PassiveAggressiveClassifier",
           "PassiveAggressiveRegressor", "KernelPassiveAggressiveClassifier",
           "StructuredPerceptron", "margin", "mistake_bound", "load", "get_include",
           "NotFittedError", "FileFormatError", "ConcurrentUseError", "ConvergenceWarning",
           "all_estimators", "__version__"]


@_fill(_io.FRAGMENTS)
def load(path: str | _os.PathLike[str]) -> _Any:
    """Read a model written by ``save`` (a versioned ``.npz``, loaded without pickle).

    {load_sections}
    """
    return _io.load_model(path)


def get_include() -> str:
    """The directory of the C headers that the ``perceptron_c.capi`` declarations include.

    Pass it in ``include_dirs`` of a Cython extension that cimports ``perceptron_c.capi``
    (see the guide's "Cython" section).

    Returns
    -------
    str
        The absolute path of the folder holding ``_popcount.h`` and the other headers.
    """
    return _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "_core")
