"""python-crfsuite's ``TrainLogParser`` (pycrfsuite 0.9.12, ``pycrfsuite/_logparser.py``,
MIT licence): it reads CRFsuite's training log piece by piece and keeps each iteration's
numbers, so ``Trainer.logparser.iterations`` and the ``on_*`` events are python-crfsuite's.
"""
from __future__ import annotations

import fractions
import re
from collections import namedtuple
from typing import Any

__all__ = ["TrainLogParser", "LabelScore"]

LabelScore = namedtuple("LabelScore", "match model ref precision recall f1")

_NUMBERS = [
    ("loss", r"Loss: (\d+\.\d+)", float),
    ("feature_norm", r"Feature norm: (\d+\.\d+)", float),
    ("error_norm", r"Error norm: (\d+\.\d+)", float),
    ("active_features", r"Active features: (\d+)", int),
    ("linesearch_trials", r"Line search trials: (\d+)", int),
    ("linesearch_step", r"Line search step: (\d+\.\d+)", float),
    ("time", r"Seconds required for this iteration: (\d+\.\d+)", float),
]


class TrainLogParser:
    """The state machine of python-crfsuite's parser: STARTING, FEATGEN, AFTER_FEATGEN,
    ITERATION, AFTER_ITERATION, STORING."""

    def __init__(self) -> None:
        self.state: str | None = None
        self.featgen_percent = -2
        self.featgen_num_features: int | None = None
        self.featgen_seconds: float | None = None
        self.training_seconds: float | None = None
        self.storing_seconds: float | None = None
        self.iterations: list[dict[str, Any]] = []
        self.last_iteration: dict[str, Any] | None = None
        self.log: list[str] = []
        self.events: list[tuple[str, int, int]] = []

    def feed(self, line: str) -> str | None:
        """Take one piece of the log; return the event it completes, if any."""
        self.log.append(line)
        if self.state is None:
            self.state = "STARTING"
            self.handle_STARTING(line)
            self.events.append(("start", 0, len(self.log)))
            return "start"
        event = getattr(self, "handle_" + self.state)(line)
        if event is not None:
            start, end = self.events[-1][2], len(self.log)
            if event in ("prepared", "optimization_end"):
                end -= 1
            self.events.append((event, start, end))
        return event

    @property
    def last_log(self) -> str:
        _, start, end = self.events[-1]
        return "".join(self.log[start:end])

    def handle_STARTING(self, line: str) -> None:
        if line.startswith("Feature generation"):
            self.state = "FEATGEN"

    def handle_FEATGEN(self, line: str) -> str | None:
        if line in "0123456789.10":
            self.featgen_percent += 2
            return "featgen_progress"
        m = re.match(r"Number of features: (\d+)", line)
        if m:
            self.featgen_num_features = int(m.group(1))
            return None
        if self._seconds(line) is not None:
            self.featgen_seconds = self._seconds(line)
            self.state = "AFTER_FEATGEN"
            return "featgen_end"
        return None

    def handle_AFTER_FEATGEN(self, line: str) -> str | None:
        if self._iteration_head(line) is not None:
            self.state = "ITERATION"
            self.handle_ITERATION(line)
            return "prepared"
        if "terminated with error" in line:
            self.state = "AFTER_ITERATION"
            return "prepare_error"
        return None

    def handle_ITERATION(self, line: str) -> str | None:
        head = self._iteration_head(line)
        if head is not None:
            self.last_iteration = {"num": head, "scores": {}}
            self.iterations.append(self.last_iteration)
        elif line == "\n":
            self.state = "AFTER_ITERATION"
            return "iteration"
        it = self.last_iteration
        assert it is not None
        for key, pattern, kind in _NUMBERS:
            m = re.match(pattern, line)
            if m:
                it[key] = kind(m.group(1))
        m = re.match(r"Macro-average precision, recall, F1: \((\d\.\d+), (\d\.\d+), "
                     r"(\d\.\d+)\)", line)
        if m:
            it["avg_precision"], it["avg_recall"], it["avg_f1"] = map(float, m.groups())
        for what in ("item", "instance"):
            m = re.match(what.capitalize() + r" accuracy: (\d+) / (\d+)", line)
            if m:
                acc = fractions.Fraction(int(m.group(1)), int(m.group(2)))
                it[what + "_accuracy"] = acc
                it[what + "_accuracy_float"] = float(acc)
        m = re.match(r"\s{4}(.+): \((\d+), (\d+), (\d+)\) \((\d\.\d+), (\d\.\d+), "
                     r"(\d\.\d+)\)", line)
        if m:
            it["scores"][m.group(1)] = LabelScore(
                *map(int, m.groups()[1:4]), *map(float, m.groups()[4:]))
        m = re.match(r"\s{4}(.+): \(0, 0, 0\) \(\*{6}, \*{6}, \*{6}\)", line)
        if m:
            it["scores"][m.group(1)] = LabelScore(0, 0, 0, None, None, None)
        return None

    def handle_AFTER_ITERATION(self, line: str) -> str | None:
        if self._iteration_head(line) is not None:
            self.state = "ITERATION"
            return self.handle_ITERATION(line)
        m = re.match(r"Total seconds required for training: (\d+\.\d+)", line)
        if m:
            self.training_seconds = float(m.group(1))
        if line.startswith("Storing the model"):
            self.state = "STORING"
            return "optimization_end"
        return None

    def handle_STORING(self, line: str) -> str | None:
        if line == "\n":
            return "end"
        if self._seconds(line):
            self.storing_seconds = self._seconds(line)
        return None

    def _iteration_head(self, line: str) -> int | None:
        m = re.match(r"\*{5} (?:Iteration|Epoch) #(\d+) \*{5}\n", line)
        return int(m.group(1)) if m else None

    def _seconds(self, line: str) -> float | None:
        m = re.match(r"Seconds required: (\d+\.\d+)", line)
        return float(m.group(1)) if m else None
