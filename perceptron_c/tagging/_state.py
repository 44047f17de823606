"""`PerceptronTagger`'s state and what is written of it: the interned arrays, the views NLTK
exposes (``classes``, ``weights``, ``model``), the ``.npz`` model file and NLTK's JSON files.

`TaggerState` is a mixin of `perceptron_c.tagging.PerceptronTagger`, which keeps the
constructor, the features, tagging and training, and the class methods that make a tagger
from a file (``load``, ``from_nltk_json``); the class, its module and its pickles are the same.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import IO, TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._utils._docs import fill
from .._utils._npzfile import replace_files
from .._utils._threads import OWNER_KEYS, reads
from ..exceptions import NotFittedError
from ..io import FRAGMENTS, save_model
from ._codes import reserve
from ._nltk import locate, read_files
from ._text import dense_pairs, pack_text, param_files, parse_nltk_json, sparse_pairs

if TYPE_CHECKING:
    from ._structured import StructuredCore

__all__ = ["TaggerState"]


class TaggerState:
    """The tagger's arrays and files (a mixin: `PerceptronTagger` is the class)."""

    # Declared, not assigned: PerceptronTagger.__init__ sets them (TAGGER_NAME its class)
    TAGGER_NAME: ClassVar[str]
    lang: str
    structured: bool
    tagdict: dict[str, str]
    _core: StructuredCore | None
    _dense_file: bool
    _prepare: Callable[[], Any]  # PerceptronTagger's: makes `_tables`

    def _reset(self, features: list[str], classes: list[str],
               pairs: dict[str, np.ndarray] | None = None) -> None:
        """The state of ``features`` x ``classes``: all zeros (a new model: ``features`` is
        empty), or the ``pairs`` a model file holds (`tagging._text.sparse_pairs`), kept as they are
        until a training call needs the dense arrays (`_dense`)."""
        self._features = features
        self._rows = {f: r for r, f in enumerate(features)}
        self._classes = classes
        self._class_ids = {c: k for k, c in enumerate(classes)}
        self._pairs = pairs
        shape = (0 if pairs else len(features), len(classes))
        self._weights = np.zeros(shape)
        self._totals = np.zeros(shape)
        self._stamps = np.zeros(shape, dtype=np.int64)
        self._live = np.zeros(shape, dtype=bool)
        self._steps = 0
        self._tables: Any = None  # what tags Python tokens in one call (tagging.py)
        self._live_rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _dense(self) -> None:
        """The dense (features x classes) arrays a training call works on, from the pairs a
        loaded model holds: only training takes memory for every pair (25 bytes each)."""
        if self._pairs is not None:
            shape = (len(self._features), len(self._classes))
            dense = dense_pairs(self._pairs, shape)
            self._weights, self._totals = dense["weights"], dense["totals"]
            self._stamps, self._live = dense["stamps"], dense["live"]
            self._pairs = None

    def _sparse(self) -> dict[str, np.ndarray]:
        """The pairs that hold anything (`tagging._text.sparse_pairs`), from whichever form."""
        if self._pairs is not None:
            return self._pairs
        n = len(self._features)
        return sparse_pairs({"weights": self._weights[:n], "totals": self._totals[:n],
                             "stamps": self._stamps[:n], "live": self._live[:n]})

    def _csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The live weights as CSR rows, one per feature (``indptr``, class columns, weights,
        in column order): what tagging reads, made with the tables (`_prepare`)."""
        if self._live_rows is None:
            pairs = self._sparse()
            live = pairs["pair_live"]
            rows, cols = pairs["pair_rows"][live], pairs["pair_cols"][live]
            order = np.lexsort((cols, rows))
            indptr = np.zeros(len(self._features) + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=len(self._features)), out=indptr[1:])
            self._live_rows = (indptr, cols[order], pairs["pair_weights"][live][order])
        return self._live_rows

    # ---- what NLTK exposes
    @property
    def classes(self) -> set[str]:
        """The tags (NLTK's ``classes`` set)."""
        return set(self._classes)

    @property
    def weights(self) -> dict[str, dict[str, float]]:
        """NLTK's ``model.weights``: feature -> {tag: weight} for every pair NLTK holds."""
        self._refuse_structured("weights")
        out: dict[str, dict[str, float]] = {f: {} for f in self._features}
        indptr, cols, values = self._csr()
        rows = np.repeat(np.arange(len(self._features)), np.diff(indptr))
        for r, c, w in zip(rows.tolist(), cols.tolist(), values.tolist()):
            out[self._features[r]][self._classes[c]] = w
        return out

    @property
    def model(self) -> SimpleNamespace:
        """A read-only snapshot shaped like NLTK's ``AveragedPerceptron``: ``weights``,
        ``classes`` and ``i`` (the steps counted)."""
        return SimpleNamespace(weights=self.weights, classes=self.classes, i=self._steps)

    def _refuse_structured(self, what: str) -> None:
        if self.structured:
            raise ValueError(f"{what}: a structured tagger has no NLTK form (NLTK's tagger is "
                             "greedy); save it with save(path.npz)")

    def _add_classes(self, new: set[str]) -> None:
        """Re-intern the classes in sorted order (the tie rule needs it), moving the columns."""
        if new <= set(self._classes):
            return
        classes = sorted(set(self._classes) | new)
        where = [classes.index(c) for c in self._classes]
        for name in ("_weights", "_totals", "_stamps", "_live"):
            old = getattr(self, name)
            grown = np.zeros((old.shape[0], len(classes)), dtype=old.dtype)
            grown[:, where] = old
            setattr(self, name, grown)
        self._classes = classes
        self._class_ids = {c: k for k, c in enumerate(classes)}

    def _saved(self) -> dict[str, Any]:
        """The tagger's state, copied where training changes it in place: what a failed or
        interrupted ``train`` puts back (the guard's own attributes are not the model's)."""
        state = {k: v for k, v in self.__dict__.items() if k not in OWNER_KEYS}
        for name in ("_features", "_classes"):
            state[name] = list(state[name])
        for name in ("_rows", "_class_ids", "tagdict"):
            state[name] = dict(state[name])
        for name in ("_weights", "_totals", "_stamps", "_live"):
            state[name] = state[name].copy()
        if self._pairs is not None:  # (a loaded model's, which training makes dense)
            state["_pairs"] = {k: v.copy() for k, v in self._pairs.items()}
        return state

    def _reserve(self, n: int) -> None:
        reserve(self, n)

    def _trim(self, n: int) -> None:
        for name in ("_weights", "_totals", "_stamps", "_live"):
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[:n]))

    def _intern(self, key: str) -> int:
        row = len(self._features)
        self._features.append(key)
        self._rows[key] = row
        self._reserve(row + 1)
        return row

    def __getstate__(self) -> dict[str, Any]:
        # the tables are made from the rest (compiled objects do not pickle): made again
        # when the pickle is loaded
        state = self.__dict__.copy()
        state["_tables"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._prepare()

    # ---- model files
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's model parameters, for the model file.

        Parameters
        ----------
        deep : bool, default=True
            Unused (scikit-learn's signature): the tagger holds no other estimator.

        Returns
        -------
        dict
            ``{"lang": str, "structured": bool, "order": int}``.
        """
        return {"lang": self.lang, "structured": self.structured,
                "order": getattr(self, "order", 1)}  # (a pickle made before the parameter)

    @fill(FRAGMENTS)
    @reads
    def save(self, path: Any) -> str:
        """Write the model to a versioned ``.npz`` (no pickle).

        Read it back with `load` or `perceptron_c.load`.

        Parameters
        ----------
        {save_path}

        Raises
        ------
        NotFittedError
            If the tagger has no model yet.
        OSError
            If the file cannot be written.
        ConcurrentUseError
            If another thread is training the tagger meanwhile.
        """
        if not self._classes or (self.structured and self._core is None):
            raise NotFittedError("PerceptronTagger.save: no model yet; call train first")
        return save_model(self, path)

    def _state_arrays(self) -> dict[str, np.ndarray]:
        if self._core is not None:
            arrays = self._core.state_arrays()
            features = self._core.feature_keys()
        else:
            arrays = {"steps": np.array([self._steps], dtype=np.int64), **self._sparse()}
            if self._dense_file:  # a model read from a dense file writes it back as read
                arrays = dense_pairs(arrays, (len(self._features), len(self._classes)))
            features = self._features
        words = list(self.tagdict)
        arrays["tagdict_tags"] = np.array([self._class_ids[self.tagdict[w]] for w in words],
                                          dtype=np.int64)
        for name, strings in (("features", features), ("classes", self._classes),
                              ("tagdict_words", words)):
            arrays[name], arrays[name + "_lengths"] = pack_text(strings)
        return arrays

    def load_from_json(self, lang: str | None = "eng", loc: Any = None) -> None:
        """Replace the model by an NLTK JSON model (NLTK's ``load_from_json``, lines 507-552).

        ``loc`` is resolved as NLTK resolves it (`perceptron_c.tagging._nltk`); nothing is
        ever downloaded.

        Parameters
        ----------
        lang : str or None, default="eng"
            The language code in the file names. None (our addition): "eng" if ``loc`` holds
            it, else the one model ``loc`` holds (NLTK's ``save_to_json`` writes "xxx" by
            default).
        loc : str, path or NLTK PathPointer, optional
            Where the three JSON files are. None: the resource
            ``taggers/averaged_perceptron_tagger_<lang>/`` on ``nltk.data.path`` (NLTK's
            default folders where nltk is not installed). A relative str: an NLTK resource
            name, found by ``nltk.data.find`` (zips too; needs nltk). An absolute str or a
            ``pathlib.Path``: a folder, or a ``.zip`` holding one. An NLTK ``PathPointer``:
            read through it.

        Raises
        ------
        ValueError
            If ``lang`` is not one file name component, or ``loc`` is blank.
        LookupError
            If NLTK's data folders hold no such resource, or ``loc`` is relative and nltk is
            not installed.
        FileNotFoundError
            If ``loc`` does not exist or lacks a file of the model; the message lists what
            the folder holds (and the ``lang`` of a model it holds).
        FileFormatError
            Naming the file, if one is not what NLTK writes.
        OSError
            If a file cannot be read.
        """
        self._read_nltk(lang, loc)

    def _read_nltk(self, lang: str | None, loc: Any) -> str:
        """`load_from_json`; returns the ``lang`` of the files read."""
        if lang is not None:
            param_files(self.TAGGER_NAME, lang)  # checked before any search
        files = locate(loc, "eng" if lang is None else lang, self.TAGGER_NAME)
        lang, blobs = read_files(files, lang, self.TAGGER_NAME)
        weights, tagdict, classes = parse_nltk_json(blobs)
        ids = {c: k for k, c in enumerate(sorted(set(classes)))}
        rows = [r for r, per_class in enumerate(weights.values()) for _ in per_class]
        cols = [ids[label] for per_class in weights.values() for label in per_class]
        n = len(rows)
        pairs = {"pair_rows": np.array(rows, dtype=np.int64),
                 "pair_cols": np.array(cols, dtype=np.int64),
                 # (+ 0.0: -0.0 in a file would make a sum -0.0)
                 "pair_weights": np.fromiter((w + 0.0 for per_class in weights.values()
                                              for w in per_class.values()), np.float64, n),
                 "pair_totals": np.zeros(n), "pair_stamps": np.zeros(n, dtype=np.int64),
                 "pair_live": np.ones(n, dtype=bool)}
        self._reset(list(weights), sorted(ids), pairs)
        self.tagdict = dict(tagdict)
        self._dense_file = False
        self._prepare()
        return lang

    def to_nltk_json(self, loc: Any, lang: str | None = None) -> list[str]:
        """Write the three JSON files NLTK's ``load_from_json`` reads into the folder ``loc``.

        The three files are written as one: after a failure (a full disk, Ctrl-C) the folder
        holds the model it held before, never new files beside old ones.

        Parameters
        ----------
        loc : str or path
            The folder, created if missing.
        lang : str, optional
            The language code in the file names; None means ``self.lang``.

        Returns
        -------
        list of str
            The paths of the weights, tag dictionary and classes files.

        Raises
        ------
        ValueError
            If the tagger is structured (NLTK's tagger is greedy: no NLTK form), or the
            language code is not one file name component.
        OSError
            If the folder or a file cannot be written.
        """
        self._refuse_structured("to_nltk_json")
        loc = os.fspath(loc)
        names = param_files(self.TAGGER_NAME, self.lang if lang is None else lang)
        os.makedirs(loc, exist_ok=True)
        paths = [os.path.join(loc, name) for name in names]
        texts = [json.dumps(value).encode("utf-8")
                 for value in (self.weights, self.tagdict, list(self._classes))]
        replace_files([(path, _writing(text)) for path, text in zip(paths, texts)])
        return paths

    def save_to_json(self, lang: str = "xxx", loc: Any = None) -> None:
        """NLTK's name for `to_nltk_json` (``loc`` is required: no staging folder here).

        Parameters
        ----------
        lang : str, default="xxx"
            The language code in the file names (NLTK's default).
        loc : str or path
            The folder, created if missing.

        Raises
        ------
        ValueError
            If ``loc`` is None, the tagger is structured, or ``lang`` is not one file name
            component.
        OSError
            If the folder or a file cannot be written.
        """
        if loc is None:
            raise ValueError("save_to_json: pass loc, the folder to write the model to")
        self.to_nltk_json(loc, lang)


def _writing(data: bytes) -> Callable[[IO[bytes]], None]:
    def write(handle: IO[bytes]) -> None:
        handle.write(data)
    return write
