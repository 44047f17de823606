"""``Trainer.logparser``: what python-crfsuite's training log parser holds, recorded as the
trainer runs instead of parsed back from the text it prints.

The trainer knows each number it logs, so it hands the numbers over with the event that
ends each part of the log: ``start``, ``featgen_progress``, ``featgen_end``, ``prepared``,
``iteration``, ``optimization_end`` and ``end``, the names of python-crfsuite's ``on_*``
callbacks. The attributes keep python-crfsuite's names and the values as the log prints
them (a loss written with 6 decimals reads back as that number), so code that reads
``trainer.logparser.iterations`` after a python-crfsuite run reads ours alike.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Any

__all__ = ["TrainLog", "LabelScore"]

# one label's line of a holdout report: counts, then the scores (None when the label is absent)
LabelScore = namedtuple("LabelScore", "match model ref precision recall f1")


class TrainLog:
    """The log of one ``train`` call, in pieces, and the numbers of its parts.

    Attributes
    ----------
    log : list of str
        Every piece of text the trainer gave, in order.
    events : list of (str, int, int)
        Each event and the pieces of ``log`` it closes (``log[start:end]``).
    iterations : list of dict
        Per iteration: ``num``, ``loss``, ``feature_norm``, ``time``, ``scores`` (label to
        `LabelScore`, with a holdout) and, with a holdout, ``avg_precision``,
        ``avg_recall``, ``avg_f1``, ``item_accuracy`` and ``instance_accuracy``
        (fractions) and their ``_float`` values.
    featgen_percent, featgen_num_features, featgen_seconds, training_seconds, storing_seconds
        The feature generation's progress, its count of features and its seconds; the
        seconds of training and of storing the model.
    """

    def __init__(self) -> None:
        self.log: list[str] = []
        self.events: list[tuple[str, int, int]] = []
        self.iterations: list[dict[str, Any]] = []
        self.last_iteration: dict[str, Any] | None = None
        self.featgen_percent = -2
        self.featgen_num_features: int | None = None
        self.featgen_seconds: float | None = None
        self.training_seconds: float | None = None
        self.storing_seconds: float | None = None

    def add(self, text: str) -> None:
        """A piece of the log, as printed."""
        self.log.append(text)

    def close(self, event: str, **numbers: Any) -> str:
        """End the part of the log the event closes, keep its numbers; the part's text."""
        start = self.events[-1][2] if self.events else 0
        self.events.append((event, start, len(self.log)))
        if event == "featgen_progress":
            self.featgen_percent += 2
        elif event == "iteration":
            self.last_iteration = dict(numbers)
            self.iterations.append(self.last_iteration)
        else:
            for name, value in numbers.items():
                setattr(self, name, value)
        return self.last_log

    @property
    def last_log(self) -> str:
        """The text of the part the last event closed."""
        if not self.events:
            return ""
        _, start, end = self.events[-1]
        return "".join(self.log[start:end])
