"""River estimators on the compiled routines: ``learn_one(x: dict, y)`` and batches of pandas
frames, for River's online-learning pipelines (``pip install perceptron-c[river]``).

- `Perceptron`: the binary perceptron, averaged by default;
- `MulticlassPerceptron`: the K-class argmax perceptron, averaged by default, whose classes
  appear with the stream;
- `PAClassifier`, `PARegressor`: River's passive-aggressive models, same parameters and
  arithmetic;
- `BudgetKernelPerceptron`: the binary kernel perceptron with at most ``budget`` support
  vectors, every strategy of `perceptron_c.BudgetKernelPerceptron`.

Features may appear at any point of a stream: a name gets a column (and a zero weight) the
first time a model learns from it, so a model is exactly the one that had every feature from
the start. ``learn_many`` learns a frame row by row in one compiled call and gives the same
model as ``learn_one`` on each row; NaN in a frame (or a dict) is a missing value. See
docs/river.md. ``import perceptron_c`` never imports this module; importing it without River
installed leaves its names undefined, and using one says how to install River.
"""
from __future__ import annotations

from typing import Any

try:
    from ._budget import BudgetKernelPerceptron
    from ._models import MulticlassPerceptron, Perceptron
    from ._pa import PAClassifier, PARegressor
except ImportError as e:  # River (or pandas) is missing
    if e.name not in ("river", "pandas"):
        raise
    _MISSING: ImportError | None = e
    __all__: list[str] = []
else:
    _MISSING = None
    __all__ = ["BudgetKernelPerceptron", "MulticlassPerceptron", "PAClassifier",
               "PARegressor", "Perceptron"]
    # they pickle and print under this module, whichever private module defines them
    for _cls in (BudgetKernelPerceptron, MulticlassPerceptron, PAClassifier, PARegressor,
                 Perceptron):
        _cls.__module__ = __name__
    del _cls

_NAMES = ("BudgetKernelPerceptron", "MulticlassPerceptron", "PAClassifier", "PARegressor",
          "Perceptron")


def __getattr__(name: str) -> Any:
    if _MISSING is not None and name in _NAMES:
        raise ImportError(f"perceptron_c.river.{name} needs River and pandas: pip install "
                          f"perceptron-c[river] ({_MISSING})") from _MISSING
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
