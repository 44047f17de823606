"""The errors and warnings perceptron_c raises, in one place.

Besides these, bad arguments raise ``ValueError`` or ``TypeError`` naming the argument, and
numerical overflow during training raises ``FloatingPointError``. Where scikit-learn has an
error or warning of the same name (``NotFittedError``, ``ConvergenceWarning``,
``DataConversionWarning``) and scikit-learn is already imported, what perceptron_c raises is
also an instance of scikit-learn's class, so ``except`` clauses written for either match;
perceptron_c never imports scikit-learn to do so.
"""
from __future__ import annotations

import sys

__all__ = ["NotFittedError", "DataConversionWarning", "ConvergenceWarning", "FileFormatError",
           "ConcurrentUseError", "PureBuildWarning", "LabelError", "UndefinedMetricWarning"]


class NotFittedError(ValueError, AttributeError):
    """A model was used before ``fit``. When scikit-learn is loaded, the error raised is also
    an instance of ``sklearn.exceptions.NotFittedError``."""


class DataConversionWarning(UserWarning):
    """Input was converted in a way the user may not expect (a column-vector y)."""


class ConvergenceWarning(UserWarning):
    """``fit`` ran ``max_iter`` epochs without meeting the ``tol`` stopping rule, as
    scikit-learn warns in the same case (when scikit-learn is loaded, the warning is also an
    instance of ``sklearn.exceptions.ConvergenceWarning``)."""


class UndefinedMetricWarning(UserWarning):
    """A score divided by zero (no entity predicted, or none to find) was set to 0, as
    scikit-learn and seqeval warn in the same case (when scikit-learn is loaded, the warning
    is also an instance of ``sklearn.exceptions.UndefinedMetricWarning``)."""


class FileFormatError(ValueError):
    """A model or data file that perceptron_c cannot read: damaged, crafted, truncated, or of
    another format. The message names the file and what is wrong with it."""


class ConcurrentUseError(RuntimeError):
    """An estimator was used from one thread while another thread was training it."""


class LabelError(ValueError, RuntimeError):
    """A label the model does not have, given to `perceptron_c.crfsuite.Tagger.probability`
    or `perceptron_c.crfsuite.Tagger.marginal`. python-crfsuite raises ``RuntimeError``
    there; this is both that and a ``ValueError``."""


class PureBuildWarning(RuntimeWarning):
    """This install has no C core: every routine runs on its (much slower) Python twin."""


_sklearn_twins: dict[type, type] = {}


def sklearn_flavoured(ours: type) -> type:
    """``ours``, or a subclass of it and of scikit-learn's class of the same name when
    scikit-learn is already imported, so ``except`` clauses written for either match. Never
    imports scikit-learn itself."""
    sk = sys.modules.get("sklearn.exceptions")
    theirs = getattr(sk, ours.__name__, None) if sk is not None else None
    if theirs is None:
        return ours
    if ours not in _sklearn_twins:
        _sklearn_twins[ours] = type(ours.__name__, (ours, theirs),
                                    {"__module__": ours.__module__})
    return _sklearn_twins[ours]
