"""python-crfsuite's tagging API on perceptron_c: ``import perceptron_c.crfsuite as
pycrfsuite`` and the same code opens the same ``.crfsuite`` files and gives the same labels.

`ItemSequence` takes every feature form python-crfsuite takes; `Trainer` trains with
CRFsuite's perceptron-family trainers ('ap', 'pa', 'arow': its parameters, its arithmetic,
its log) and writes CRFsuite's model file; `CRF` is sklearn-crfsuite's estimator on them,
with ``metrics`` its flat metrics; `Tagger` opens CRFsuite 0.12
model files (any trainer's) or model bytes and tags, scores (`Tagger.probability`,
`Tagger.marginal`), describes (`Tagger.info`, `Tagger.dump`) as python-crfsuite does. More
than python-crfsuite:

- one `Tagger` serves many threads at once: the sequence `Tagger.set` (or `Tagger.tag`)
  makes current is the calling thread's own, so threads never see each other's;
- a `Tagger` pickles (as its model's bytes);
- ``tag(xseq, n=k)`` gives the k best label sequences with their scores;
- ``tag(xseq, forced={t: label}, allowed=...)`` decodes under constraints: labels fixed at
  positions, and only the allowed transitions (a set of label pairs, an L x L boolean
  array, or ``"bio"``).

A damaged or foreign model file raises `perceptron_c.exceptions.FileFormatError` (a
``ValueError``, as python-crfsuite's refusal is) naming the file and the problem.
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .. import _backend
from ..exceptions import LabelError
from . import _decode as dec
from . import _metrics as metrics
from ._crf import CRF
from ._file import read_model, write_model
from ._model import CRFModel
from ._train import BaseTrainer, Trainer

__all__ = ["ItemSequence", "Tagger", "Trainer", "BaseTrainer", "CRF", "ParsedDump",
           "LabelError", "metrics"]


def _items(xseq: Any, opened: _Opened) -> Any:
    """What the compiled decoder reads: an ItemSequence's names (packed by the C core), or
    the raw items as a list."""
    if type(xseq) is list:
        return xseq
    if not isinstance(xseq, ItemSequence):
        return list(xseq)
    packed = xseq._packed
    if type(packed) is not opened.packed_type:  # packed by the Python twin
        packed = opened.pack(packed.pairs(), True)
    return packed


class ItemSequence:
    """The features of every item of one sequence, as python-crfsuite's ``ItemSequence``.

    Each item is one of: a list of names (each of value 1.0); a dict of name -> number
    (a bool is 1.0 or 0.0); a dict of name -> str (``{"w": "the"}`` is ``{"w:the": 1.0}``);
    a dict of name -> dict, list or set, flattened with ``":"`` (``{"a": {"b": 2}}`` is
    ``{"a:b": 2.0}``); such forms mixed. Names may be bytes (read as UTF-8).

    The names are read once, here: a `Tagger` then looks them up in its model without
    the GIL (tagging an ItemSequence holds the GIL only to enter and leave the call).

    Parameters
    ----------
    pyseq : iterable of items, or ItemSequence
    """

    def __init__(self, pyseq: Iterable[Any]) -> None:
        if isinstance(pyseq, ItemSequence):
            self._packed: Any = pyseq._packed
        else:
            self._packed = _backend.crftag.pack(
                pyseq if type(pyseq) is list else list(pyseq), False)

    def items(self) -> list[dict[str, float]]:
        """The prepared features.

        Returns
        -------
        list of dict
            One ``{name: value}`` dict per item.
        """
        return [dict(item) for item in self._packed.pairs()]

    def __len__(self) -> int:
        return len(self._packed)

    def __repr__(self) -> str:
        return f"<ItemSequence of size {len(self)}>"


class ParsedDump:
    """What `Tagger.info` returns, as python-crfsuite's ``ParsedDump``: ``header`` (the
    file header's fields as strings), ``labels`` and ``attributes`` (name -> id, the id a
    string as python-crfsuite gives it), ``transitions`` ({(from, to): weight}) and
    ``state_features`` ({(attribute, label): weight}). The weights here are exact (python-
    crfsuite's are rounded to 6 decimals, read back from its text dump)."""

    def __init__(self) -> None:
        self.header: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self.attributes: dict[str, str] = {}
        self.transitions: dict[tuple[str, str], float] = {}
        self.state_features: dict[tuple[str, str], float] = {}


class _Opened:
    """An opened model: its file bytes, its arrays and its tagging tables (read-only); with
    the C core, its compiled decoder over those tables."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.model: CRFModel = read_model(data, name)
        tables = self.tables = dec.Tables.from_model(self.model)
        self.decoder: Any = None
        self.packed_type: Any = None
        self.pack: Any = None
        if _backend.BACKEND == "c":
            with _backend.using("c"):
                routines = _backend.crftag
                self.decoder = routines.Decoder(
                    tables.attr_index, tables.labels, tables.attr_ptr, tables.attr_label,
                    tables.attr_weight, tables.trans)
                self.packed_type, self.pack = routines.Packed, routines.pack

    def compiled(self) -> Any:
        """The compiled decoder, when the calling thread runs on the C core; else None."""
        return self.decoder if self.decoder is not None and _backend.active() == "c" else None


class _Current:
    """The sequence a thread set: its state scores, and forward-backward once asked for."""

    __slots__ = ("state", "fb")

    def __init__(self, state: np.ndarray) -> None:
        self.state = state
        self.fb: tuple[np.ndarray, np.ndarray, np.ndarray, float] | None = None


class Tagger:
    """python-crfsuite's ``Tagger``: open a ``.crfsuite`` model, then tag item sequences.

    Safe to share between threads: what `set` makes current belongs to the calling thread.
    Pickles as its model's bytes (an unopened Tagger as nothing).
    """

    def __init__(self) -> None:
        self._opened: _Opened | None = None
        self._local = threading.local()

    # -- opening -------------------------------------------------------------------------

    def open(self, name: str | os.PathLike) -> contextlib.closing:
        """Open the model file ``name``.

        Parameters
        ----------
        name : str or path-like
            A CRFsuite 0.12 model file.

        Returns
        -------
        contextlib.closing
            The tagger, closed at the end of a ``with`` block (as python-crfsuite's).

        Raises
        ------
        perceptron_c.exceptions.FileFormatError
            The file is not a valid CRFsuite model (a ``ValueError``).
        OSError
            The file cannot be read.
        """
        with open(name, "rb") as handle:
            data = handle.read()
        self._opened = _Opened(data, os.fspath(name))
        self._local = threading.local()
        return contextlib.closing(self)

    def open_inmemory(self, value: bytes) -> contextlib.closing:
        """Open a model from the bytes of a model file.

        Parameters
        ----------
        value : bytes
            A CRFsuite 0.12 model file's content.

        Returns
        -------
        contextlib.closing
            The tagger, closed at the end of a ``with`` block.
        """
        if not isinstance(value, bytes):
            raise TypeError(f"value must be bytes, got {type(value).__name__}")
        self._opened = _Opened(value, "<in-memory model>")
        self._local = threading.local()
        return contextlib.closing(self)

    @classmethod
    def from_model(cls, model: CRFModel) -> Tagger:
        """A Tagger opened on a model, through its file bytes.

        Parameters
        ----------
        model : CRFModel
            The model, as a trainer makes it.

        Returns
        -------
        Tagger
            The opened tagger.
        """
        tagger = cls()
        tagger.open_inmemory(write_model(model))
        return tagger

    def close(self) -> None:
        """Close the model."""
        self._opened = None
        self._local = threading.local()

    def __enter__(self) -> Tagger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict:
        return {"model": self._opened.data if self._opened is not None else None}

    def __setstate__(self, state: dict) -> None:
        self.__init__()  # type: ignore[misc]
        if state.get("model") is not None:
            self.open_inmemory(state["model"])

    def _need(self) -> _Opened:
        opened = self._opened
        if opened is None:
            raise ValueError("The tagger is not opened")
        return opened

    # -- python-crfsuite's API -------------------------------------------------------------

    def labels(self) -> list[str]:
        """The model's labels.

        Returns
        -------
        list of str
            The labels, by id.
        """
        return list(self._need().tables.labels)

    def set(self, xseq: Any) -> None:
        """Make a sequence the calling thread's current one, for `tag`, `probability` and
        `marginal`.

        Parameters
        ----------
        xseq : ItemSequence or list
            The items' features, in any form `ItemSequence` takes.
        """
        self._local.current = self._prepare(self._need(), xseq)

    def _prepare(self, opened: _Opened, xseq: Any) -> _Current:
        decoder = opened.compiled()
        if decoder is not None:
            return _Current(decoder.state(_items(xseq, opened), False))
        if isinstance(xseq, ItemSequence):
            pairs = xseq._packed.pairs()
        else:
            pairs = _backend.crftag.pack(xseq if type(xseq) is list else list(xseq),
                                         False).pairs()
        index = opened.tables.attr_index
        ids: list[int] = []
        vals: list[float] = []
        lengths: list[int] = []
        for item in pairs:
            n = len(ids)
            for name, value in item:
                a = index.get(name)
                if a is not None:
                    ids.append(a)
                    vals.append(value)
            lengths.append(len(ids) - n)
        state = dec.state_scores(opened.tables, np.array(ids, dtype=np.int64),
                                 np.array(vals, dtype=np.float64),
                                 np.array(lengths, dtype=np.int64))
        return _Current(state)

    def _current(self) -> _Current | None:
        opened = self._need()
        current = getattr(self._local, "current", None)
        if isinstance(current, ItemSequence):  # tagged last: its scores made now, once
            current = self._local.current = self._prepare(opened, current)
        return current

    def tag(self, xseq: Any = None, n: int | None = None, *,
            forced: Mapping[int, str] | None = None, allowed: Any = None) -> Any:
        """The best label sequence for ``xseq`` (or the current sequence when None).

        Parameters
        ----------
        xseq : ItemSequence or list of items, optional
            Becomes the calling thread's current sequence, as `set` does.
        n : int, optional
            When given, the ``n`` best label sequences instead: a list of ``(labels,
            score)``, best first, ``score`` the sum of the path's weights (its probability
            is ``probability(labels)``); fewer when the sequence has fewer paths. The
            first is what ``tag(xseq)`` returns; equal scores are ordered by labels' ids.
        forced : dict of int to str, optional
            Labels fixed at positions: ``{0: "B-PER"}``.
        allowed : "bio", set of (str, str) pairs, or (L, L) bool array, optional
            The transitions allowed (``allowed[i, j]``: label j may follow label i, in
            ``labels()`` order). ``"bio"``: ``I-X`` only after ``B-X`` or ``I-X``, and never
            first.

        Returns
        -------
        list of str, or list of (list of str, float) when ``n`` is given

        Raises
        ------
        ValueError
            No label sequence satisfies the constraints, or a bad argument.
        """
        opened = self._opened
        plain = n is None and forced is None and allowed is None
        if plain and type(xseq) is ItemSequence and opened is not None:
            # The route of a shared Tagger's threads: the least done with the GIL (only the
            # call's entry and exit), the rest in one compiled call that releases it.
            packed = xseq._packed
            if type(packed) is opened.packed_type and len(packed) and _backend.active() == "c":
                found, score = opened.decoder.decode(packed, False)
                self._local.current = xseq  # never changes: its scores made again if asked for
                if not math.isfinite(score):
                    raise ValueError("no label sequence satisfies the constraints")
                return found
        opened = self._need()
        decoder = opened.decoder if plain and _backend.active() == "c" else None
        if decoder is not None and xseq is not None:
            items = _items(xseq, opened)
            if len(items):  # read, scored and decoded in one call, the work without the GIL
                if type(items) is list:  # raw items (which may change): their scores kept
                    state, found, score = decoder.tag(items, False)
                    self._local.current = _Current(state)
                else:
                    found, score = decoder.decode(items, False)
                    self._local.current = xseq
                if not math.isfinite(score):
                    raise ValueError("no label sequence satisfies the constraints")
                return found
        if xseq is not None:
            self.set(xseq)
        current = self._current()
        if current is None or current.state.shape[0] == 0:
            return [] if n is None else []
        if decoder is not None:
            found, score = decoder.best(current.state)
            if not math.isfinite(score):
                raise ValueError("no label sequence satisfies the constraints")
            return found
        state, trans = self._constrained(opened.tables, current.state, forced, allowed)
        labels = opened.tables.labels
        if n is None:
            path, score = dec.viterbi(state, trans)
            if not np.isfinite(score):
                raise ValueError("no label sequence satisfies the constraints")
            return [labels[i] for i in path]
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive int, got {n!r}")
        paths = dec.nbest(state, trans, int(n))
        if not paths:
            raise ValueError("no label sequence satisfies the constraints")
        return [([labels[i] for i in path], score) for path, score in paths]

    @staticmethod
    def _constrained(tables: dec.Tables, state: np.ndarray, forced: Any,
                     allowed: Any) -> tuple[np.ndarray, np.ndarray]:
        if forced is None and allowed is None:
            return state, tables.trans
        L = len(tables.labels)
        state, trans = state.copy(), tables.trans.copy()
        if forced is not None:
            for t, label in dict(forced).items():
                if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not (
                        0 <= t < state.shape[0]):
                    raise ValueError(f"forced: position {t!r} is not in the sequence")
                if label not in tables.label_index:
                    raise ValueError(f"forced: {label!r} is not a label of the model")
                keep = state[t, tables.label_index[label]]
                state[t] = -np.inf
                state[t, tables.label_index[label]] = keep
        if allowed is not None:
            if isinstance(allowed, str):
                if allowed.lower() not in ("bio", "iob2"):
                    raise ValueError(f"allowed: unknown preset {allowed!r}, expected 'bio'")
                mask, first = dec.bio_allowed(tables.labels)
                state[0, ~first] = -np.inf
            elif isinstance(allowed, np.ndarray):
                if allowed.shape != (L, L) or allowed.dtype != bool:
                    raise ValueError(f"allowed: expected a ({L}, {L}) bool array")
                mask = allowed
            else:
                mask = np.zeros((L, L), dtype=bool)
                for prev, nxt in allowed:
                    if prev not in tables.label_index or nxt not in tables.label_index:
                        raise ValueError(f"allowed: ({prev!r}, {nxt!r}) names a label the "
                                         f"model does not have")
                    mask[tables.label_index[prev], tables.label_index[nxt]] = True
            trans[~mask] = -np.inf
        return state, trans

    def probability(self, yseq: list[str]) -> float:
        """The probability of a label sequence given the current sequence.

        Parameters
        ----------
        yseq : list of str
            One label per item.

        Returns
        -------
        float
            P(yseq | x), from CRFsuite's forward-backward (0.0 without a sequence).
        """
        opened, current = self._need(), self._current()
        if current is None or current.state.shape[0] == 0:
            return 0.0
        T = current.state.shape[0]
        if len(yseq) != T:
            raise ValueError(f"The numbers of items and labels differ: |x| = {T}, |y| = "
                             f"{len(yseq)}")
        path = [self._label_id(opened, y) for y in yseq]
        score = dec.path_score(current.state, opened.tables.trans, path)
        log_z = self._fb(opened, current)[3]
        with np.errstate(over="ignore", invalid="ignore"):  # weights that overflow: as CRFsuite
            return float(np.exp(score - log_z))

    def marginal(self, y: str, pos: int) -> float:
        """The marginal probability of a label at a position of the current sequence.

        Parameters
        ----------
        y : str
            The label.
        pos : int
            The position, from 0.

        Returns
        -------
        float
            P(y_pos = y | x) (0.0 without a sequence).
        """
        opened, current = self._need(), self._current()
        if current is None or current.state.shape[0] == 0:
            return 0.0
        T = current.state.shape[0]
        if not 0 <= pos < T:
            raise ValueError(f"The position, {pos} is out of range of {T}")
        label = self._label_id(opened, y)
        alpha, beta, scale, _ = self._fb(opened, current)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return float(alpha[pos, label] * beta[pos, label] / scale[pos])

    @staticmethod
    def _label_id(opened: _Opened, y: str) -> int:
        label = opened.tables.label_index.get(y)
        if label is None:
            raise LabelError(f"Failed to convert into label identifier: {y}")
        return label

    @staticmethod
    def _fb(opened: _Opened, current: _Current) -> tuple[np.ndarray, np.ndarray,
                                                        np.ndarray, float]:
        if current.fb is None:  # computed whole, then published: another reader sees it or not
            current.fb = dec.forward_backward(current.state, opened.tables.exp_trans)
        return current.fb

    def info(self) -> ParsedDump:
        """The model's header, labels, attributes, transitions and state features.

        Returns
        -------
        ParsedDump
            As python-crfsuite's, with exact weights.
        """
        opened = self._need()
        model, out = opened.model, ParsedDump()
        out.header = dict(model.header)
        out.labels = {s: str(i) for i, s in enumerate(model.labels)}
        out.attributes = {s: str(i) for i, s in enumerate(model.attributes)}
        for i, j in zip(*np.nonzero(model.transitions)):
            out.transitions[(model.labels[i], model.labels[j])] = float(
                model.transitions[i, j])
        for a, lab, w in zip(model.state_attr.tolist(), model.state_label.tolist(),
                             model.state_weight.tolist()):
            out.state_features[(model.attributes[a], model.labels[lab])] = w
        return out

    def dump(self, filename: str | os.PathLike | None = None) -> None:
        """Write the model in CRFsuite's text dump format.

        Parameters
        ----------
        filename : str or path-like, default=None
            The file to write; None: standard output.
        """
        text = _dump_text(self._need().model)
        if filename is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(filename, "w", encoding="utf-8") as handle:
                handle.write(text)


def _dump_text(model: CRFModel) -> str:
    """``crf1dm_dump``'s text: header, labels, attributes, transitions, state features."""
    h = model.header
    lines = ["FILEHEADER = {"] + [f"  {k}: {h[k]}" for k in (
        "magic", "size", "type", "version", "num_features", "num_labels", "num_attrs",
        "off_features", "off_labels", "off_attrs", "off_labelrefs", "off_attrrefs")
        if k in h] + ["}", "", "LABELS = {"]
    lines += [f"  {i:5d}: {s}" for i, s in enumerate(model.labels)] + ["}", "",
                                                                      "ATTRIBUTES = {"]
    lines += [f"  {i:5d}: {s}" for i, s in enumerate(model.attributes)]
    lines += ["}", "", "TRANSITIONS = {"]
    for i, j in zip(*np.nonzero(model.transitions)):
        lines.append(f"  (1) {model.labels[i]} --> {model.labels[j]}: "
                     f"{model.transitions[i, j]:f}")
    lines += ["}", "", "STATE_FEATURES = {"]
    for a, lab, w in zip(model.state_attr.tolist(), model.state_label.tolist(),
                         model.state_weight.tolist()):
        lines.append(f"  (0) {model.attributes[a]} --> {model.labels[lab]}: {w:f}")
    return "\n".join(lines + ["}", "", ""])
