"""perceptron_c: the perceptron family with a Cython core and a pure-Python reference twin.

``BACKEND`` is "c" when the compiled routines are in use, "python" when
``PERCEPTRON_C_NO_EXTENSIONS`` is set (then the pure-Python twins run instead).
"""
from . import kernels
from ._backend import BACKEND
from .kernel import KernelPerceptron
from .linear import Perceptron
from .theory import margin, mistake_bound
from .voted import VotedPerceptron

__version__ = "0.1.0"
__all__ = ["BACKEND", "kernels", "Perceptron", "KernelPerceptron", "VotedPerceptron", "margin",
           "mistake_bound", "load", "__version__"]


def load(path):
    """Read a model written by ``save`` (a versioned ``.npz``, loaded without pickle)."""
    from .io import load_model

    return load_model(path)
