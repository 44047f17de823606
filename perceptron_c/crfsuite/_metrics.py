"""The metrics sklearn-crfsuite's users call on lists of label sequences: scikit-learn's
metrics over the flattened tokens, and the share of sequences labeled right as a whole.
``from perceptron_c.crfsuite import metrics`` stands in for ``from sklearn_crfsuite import
metrics``. The ``flat_*`` functions need scikit-learn (imported when called)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["flat_accuracy_score", "flat_precision_score", "flat_recall_score",
           "flat_f1_score", "flat_fbeta_score", "flat_classification_report",
           "sequence_accuracy_score"]


def _flat(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]]
          ) -> tuple[list[Any], list[Any]]:
    """The labels of every token, in order; the sequences must pair up by length."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true holds {len(y_true)} sequences, y_pred {len(y_pred)}")
    flat_true: list[Any] = []
    flat_pred: list[Any] = []
    for k, (a, b) in enumerate(zip(y_true, y_pred)):
        if len(a) != len(b):
            raise ValueError(f"sequence {k}: {len(a)} true labels, {len(b)} predicted")
        flat_true.extend(a)
        flat_pred.extend(b)
    return flat_true, flat_pred


def _sklearn_metrics() -> Any:
    try:
        from sklearn import metrics
    except ImportError:
        raise ImportError("the flat_* metrics use scikit-learn's: pip install scikit-learn"
                          ) from None
    return metrics


def flat_accuracy_score(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]]
                        ) -> float:
    """The share of tokens labeled right (scikit-learn's ``accuracy_score`` on the tokens)."""
    return float(_sklearn_metrics().accuracy_score(*_flat(y_true, y_pred)))


def flat_precision_score(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]],
                         **kwargs: Any) -> Any:
    """scikit-learn's ``precision_score`` on the tokens (``kwargs`` are its own)."""
    return _sklearn_metrics().precision_score(*_flat(y_true, y_pred), **kwargs)


def flat_recall_score(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]],
                      **kwargs: Any) -> Any:
    """scikit-learn's ``recall_score`` on the tokens (``kwargs`` are its own)."""
    return _sklearn_metrics().recall_score(*_flat(y_true, y_pred), **kwargs)


def flat_f1_score(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]],
                  **kwargs: Any) -> Any:
    """scikit-learn's ``f1_score`` on the tokens (``kwargs`` are its own: ``average``,
    ``labels``, ...)."""
    return _sklearn_metrics().f1_score(*_flat(y_true, y_pred), **kwargs)


def flat_fbeta_score(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]],
                     beta: float, **kwargs: Any) -> Any:
    """scikit-learn's ``fbeta_score`` on the tokens."""
    return _sklearn_metrics().fbeta_score(*_flat(y_true, y_pred), beta=beta, **kwargs)


def flat_classification_report(y_true: Sequence[Sequence[Any]],
                               y_pred: Sequence[Sequence[Any]], labels: Any = None,
                               **kwargs: Any) -> Any:
    """scikit-learn's ``classification_report`` on the tokens."""
    return _sklearn_metrics().classification_report(*_flat(y_true, y_pred), labels=labels,
                                                     **kwargs)


def sequence_accuracy_score(y_true: Sequence[Sequence[Any]], y_pred: Sequence[Sequence[Any]]
                            ) -> float:
    """The share of sequences whose every label is right (0.0 for no sequence)."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true holds {len(y_true)} sequences, y_pred {len(y_pred)}")
    if not y_true:
        return 0.0
    right = sum(1 for a, b in zip(y_true, y_pred) if list(a) == list(b))
    return right / len(y_true)
