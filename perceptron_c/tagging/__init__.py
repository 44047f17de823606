"""`PerceptronTagger`: NLTK's greedy averaged-perceptron part-of-speech tagger, NLTK-exact,
without NLTK.

A drop-in for ``nltk.tag.perceptron.PerceptronTagger`` (NLTK 3.10.4, whose file
``nltk/tag/perceptron.py`` the line numbers below cite): the same constructor, ``train``,
``tag``, ``tag_sents``, and the whole of NLTK's ``TaggerI`` (``nltk/tag/api.py``:
``accuracy``, ``evaluate``, ``confusion``, ``precision``, ``recall``, ``f_measure``,
``evaluate_per_tag``; `perceptron_c.tagging._scores`), the same features, word normalization
and tag dictionary. Trained on the same sentences after the same ``random.seed``, it learns
the same weights as NLTK, rounding included, and gives every token the same tag (the
arithmetic contract is in `perceptron_c._core._tagging_py`). Features and classes are interned
to integer rows and columns of numpy arrays instead of NLTK's dicts of dicts.

Model files: ``save`` writes this package's versioned ``.npz`` (read back by `load` or
`perceptron_c.load`, without pickle); `from_nltk_json` and `to_nltk_json` read and write the
three JSON files NLTK writes, ``loc`` resolved as NLTK resolves it
(`perceptron_c.tagging._nltk`). NLTK is imported only to resolve an NLTK resource name (and
``loc=None`` where it is installed), and by `use_for_nltk`, which makes ``nltk.pos_tag`` tag
with a tagger of ours.
"""
from __future__ import annotations

import logging
import os
import random
from collections import Counter
from collections.abc import Iterable
from itertools import chain
from typing import Any

import numpy as np

from .. import _backend
from .._utils._threads import OWNER_KEYS, reads, trains
from ..exceptions import FileFormatError, NotFittedError
from ..sequence import allowed_transitions  # re-exported: the schemes' side of the tags
from ..token_features import DictFeatures, TokenFeatures  # re-exported: the issues' names
from ._codes import CodedEpochs, StringEpochs, greedy_tables, tag_codes
from ._codes import ordered as _ordered
from ._confusion import ConfusionMatrix
from ._entities import (
    accuracy_score,
    classification_report,
    entities_strict,
    f1_score,
    get_entities,
    performance_measure,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)
from ._nltk import NLTKServing, use_for_nltk
from ._scores import TaggerScores
from ._state import TaggerState
from ._structured import StructuredCore
from ._text import check_sentences, check_tokens, unpack_text

__all__ = ["PerceptronTagger", "TokenFeatures", "DictFeatures", "ConfusionMatrix", "use_for_nltk",
           "NLTKServing",
           # entity scores of tag sequences, seqeval's (tagging._entities)
           "get_entities", "entities_strict", "precision_recall_fscore_support",
           "precision_score", "recall_score", "f1_score", "accuracy_score",
           "classification_report", "performance_measure",
           # the transitions a tag scheme allows (sequence), for StructuredPerceptron
           "allowed_transitions"]

_logger = logging.getLogger(__name__)
FREQ_THRESH, AMBIGUITY_THRESH = 20, 0.97  # NLTK's _make_tagdict, lines 625-626
# template slots that depend on the previous tags; the others are computed once per token
_STATIC = (0, 1, 2, 6, 8, 9, 10, 11, 12, 13)

class PerceptronTagger(TaggerScores, TaggerState):
    """Greedy averaged perceptron tagger ([Collins2002]; NLTK's ``PerceptronTagger``).

    Parameters
    ----------
    load : bool
        Load a trained model at construction, as NLTK does. With ``loc``, the NLTK JSON model
        of ``lang`` there; without it, the one ``nltk.download`` put in an NLTK data folder
        (``nltk.data.find`` on ``nltk.data.path`` where nltk is installed, else ``$NLTK_DATA``,
        ``~/nltk_data`` and NLTK's other defaults; a folder or a zip), else `LookupError`
        (nothing is ever downloaded): pass ``load=False`` to train, or use `from_nltk_json` /
        `load`.
    lang : str
        The language code in the names of NLTK's model files.
    loc : str, path or NLTK PathPointer, optional
        Where the NLTK JSON model is, as NLTK reads it (see `load_from_json`): a relative str
        is an NLTK resource name on ``nltk.data.path`` (needs nltk); a ``pathlib.Path`` or
        an absolute str is a folder (or a ``.zip``).
    structured : bool, default=False
        Our addition (keyword, after NLTK's three): ``train`` fits a first-order
        `perceptron_c.sequence.StructuredPerceptron` (averaged, Viterbi decoding) on NLTK's
        10 static features instead of the greedy tagger; see docs/tagging.md for what this
        changes. A structured tagger is trained, or read by `load`; ``load=True`` is an
        error (NLTK's files hold greedy models).
    order : int in [1, 2], default=1
        Our addition, with ``structured=True`` only: the `StructuredPerceptron`'s ``order``
        (2: the scores of tag trigrams too, Viterbi over pairs of tags, about K times the
        cost per token for K tags).
    """

    START = ["-START-", "-START2-"]
    END = ["-END-", "-END2-"]
    TAGGER_NAME = "averaged_perceptron_tagger"

    def __init__(self, load: bool = True, lang: str = "eng", loc: Any = None, *,
                 structured: bool = False, order: int = 1) -> None:
        if not isinstance(structured, (bool, np.bool_)):
            raise TypeError(f"structured must be a bool, got {structured!r}")
        if type(order) is not int or order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order!r}")
        if order == 2 and not structured:
            raise ValueError("order=2 is the structured tagger's (structured=True): the "
                             "greedy tagger reads the two previous tags as features")
        if structured and load:
            raise ValueError("PerceptronTagger(structured=True) cannot load NLTK's model (a "
                             "greedy one): pass load=False and train, or use "
                             "PerceptronTagger.load(path.npz)")
        self.lang = lang
        self.structured = bool(structured)
        self.order = order
        self._core: StructuredCore | None = None
        self._dense_file = False
        self.tagdict: dict[str, str] = {}
        self._reset([], [])
        if load:
            self.load_from_json(lang, loc)

    def normalize(self, word: str) -> str:
        """NLTK's normalization of a word (lines 569-584), for the features.

        Parameters
        ----------
        word : str
            A token.

        Returns
        -------
        str
            ``"!HYPHEN"`` for a hyphenated word (not starting with '-'), ``"!YEAR"`` for a 4-digit
            number, ``"!DIGITS"`` for another word starting with a digit, else the word
            lower-cased.
        """
        if "-" in word and word[0] != "-":
            return "!HYPHEN"
        if word.isdigit() and len(word) == 4:
            return "!YEAR"
        if word and word[0].isdigit():
            return "!DIGITS"
        return word.lower()

    def _context(self, words: list[str]) -> list[str]:
        return self.START + [self.normalize(w) for w in words] + self.END

    @staticmethod
    def _static_features(i: int, word: str, context: list[str]) -> list[str]:
        """The features of slots `_STATIC` of NLTK's ``_get_features`` (lines 586-612)."""
        i += 2
        return ["bias", "i suffix " + word[-3:], "i pref1 " + (word[0] if word else ""),
                "i word " + context[i], "i-1 word " + context[i - 1],
                "i-1 suffix " + context[i - 1][-3:], "i-2 word " + context[i - 2],
                "i+1 word " + context[i + 1], "i+1 suffix " + context[i + 1][-3:],
                "i+2 word " + context[i + 2]]

    @staticmethod
    def _dynamic_features(word_feature: str, prev: str, prev2: str) -> list[str]:
        """The features of the previous tags, in template order (slots 3, 4, 5, 7)."""
        return ["i-1 tag " + prev, "i-2 tag " + prev2, f"i tag+i-2 tag {prev} {prev2}",
                f"i-1 tag+i word {prev} {word_feature[7:]}"]

    def _get_features(self, i: int, word: str, context: list[str], prev: str,
                      prev2: str) -> dict[str, int]:
        """NLTK's ``_get_features`` (lines 586-612): the 14 features of token ``i``, each 1,
        in NLTK's order."""
        return dict.fromkeys(_ordered(self._static_features(i, word, context),
                                      self._dynamic_features("i word " + context[i + 2],
                                                             prev, prev2)), 1)

    # ---- tagging
    @reads
    def tag(self, tokens: Iterable[str], return_conf: bool = False,
            use_tagdict: bool = True) -> list[tuple]:
        """Tag one sentence (lines 381-401).

        Parameters
        ----------
        tokens : iterable of str
            The words of the sentence.
        return_conf : bool, default=False
            Also give each tag's confidence: 1.0 for a word of the tag dictionary, else the
            largest softmax of the scores, computed stably (NLTK's ``np.exp`` of the raw scores
            overflows past 709).
        use_tagdict : bool, default=True
            Take the tag of a word of the tag dictionary from it; False predicts every word.

        Returns
        -------
        list of tuple
            ``[(word, tag), ...]``, or ``[(word, tag, conf), ...]`` with ``return_conf``.

        Raises
        ------
        TypeError
            If a token is not a str.
        ValueError
            If ``return_conf`` is given to a structured tagger (Viterbi has no per-token
            confidence).
        NotFittedError
            If the tagger has no model yet and a word needs predicting.
        ConcurrentUseError
            If another thread is training the tagger meanwhile.
        """
        if type(tokens) is not list:
            tokens = check_tokens(tokens, "tokens")
        if self.structured:
            if return_conf:
                raise ValueError("return_conf: a structured tagger decodes whole sentences "
                                 "(Viterbi) and has no per-token confidence")
            return self._structured_tables().tag_sentence(tokens)
        if not return_conf:
            fast = self._tag_fast(tokens, self.tagdict if use_tagdict else None, True)
            if fast is not None:
                return fast
        tokens = check_tokens(tokens, "tokens")
        prev, prev2 = self.START
        context = self._context(tokens)
        output: list[tuple] = []
        get = self._rows.get
        for i, word in enumerate(tokens):
            tag = self.tagdict.get(word) if use_tagdict else None
            conf: float | None = 1.0 if use_tagdict else None
            if not tag:  # NLTK's test: a tag dictionary entry "" is no entry
                static = self._static_features(i, word, context)
                keys = _ordered(static, self._dynamic_features(static[3], prev, prev2))
                rows = [r for r in (get(k, -1) for k in keys) if r >= 0]
                tag, conf = self._predict(np.array(rows, dtype=np.int64), return_conf)
            output.append((word, tag, conf) if return_conf else (word, tag))
            prev2, prev = prev, tag
        return output

    def _predict(self, rows: np.ndarray, return_conf: bool) -> tuple[str, float | None]:
        if not self._classes:
            raise NotFittedError("PerceptronTagger: no model yet; call train(sentences) or "
                                 "load one (PerceptronTagger.load, from_nltk_json)")
        routines = _backend.tagging
        indptr, cols, values = self._csr()
        block = np.zeros((rows.shape[0], len(self._classes)))  # the token's rows of weights
        for i, r in enumerate(rows.tolist()):
            block[i, cols[indptr[r]:indptr[r + 1]]] = values[indptr[r]:indptr[r + 1]]
        scores = routines.score_rows(block, np.arange(rows.shape[0]))
        best = routines.best_class(scores)
        conf = None
        if return_conf:
            conf = float(1.0 / np.sum(np.exp(scores - scores[best])))
        return self._classes[best], conf

    @reads
    def tag_sents(self, sentences: Iterable[Iterable[str]]) -> list[list[tuple]]:
        """Tag several sentences: ``[self.tag(sentence) for sentence in sentences]``.

        As ``nltk/tag/api.py`` defines it; tagged in one call of the compiled loop.

        Parameters
        ----------
        sentences : iterable of iterables of str
            The sentences, each an iterable of words.

        Returns
        -------
        list of list of tuple
            ``[(word, tag), ...]`` for each sentence.

        Raises
        ------
        TypeError
            If a token is not a str.
        NotFittedError
            If the tagger has no model yet and a word needs predicting.
        ConcurrentUseError
            If another thread is training the tagger meanwhile.
        """
        checked = [check_tokens(s, f"sentences[{k}]") for k, s in enumerate(sentences)]
        if self.structured:
            return self._structured_tables().tag_sentences(checked)
        fast = self._tag_fast(checked, self.tagdict, False)
        return fast if fast is not None else [self.tag(sentence) for sentence in checked]

    def _prepare(self) -> Any:
        """Make the tables that tag Python tokens in one call (``_tables``) for the twin in
        use: when a model is trained, loaded or unpickled, so that the first call is a normal
        one. None when there is no model, or (greedy) its tags cannot be coded."""
        if self.structured:
            tables = None if self._core is None else self._core.tables()
        else:
            tables = greedy_tables(self)
        self._tables = tables
        return tables

    def _ready(self, kind: str) -> Any:
        """``_tables``, made again if they were made for the other twin (`_backend.using`)."""
        tables = self._tables
        module = _backend.tokens if kind == "ViterbiTables" else _backend.tagging
        if tables is None or type(tables) is not getattr(module, kind):
            tables = self._prepare()
        return tables

    def _structured_tables(self) -> Any:
        tables = self._ready("ViterbiTables")
        if tables is None:
            raise NotFittedError("PerceptronTagger: no model yet; call train(sentences) or "
                                 "load one (PerceptronTagger.load)")
        return tables

    def _tag_fast(self, tokens: list, tagdict: Any, one: bool) -> Any:
        """The greedy tags of one sentence (``one``) or of a list of them, from the tables;
        None when only the token-by-token path can tag them: no model, tags the codes cannot
        name (`tag_codes`), a tag dictionary that is not a dict."""
        if tagdict is not None and type(tagdict) is not dict:
            return None
        for _ in range(2):
            tables = self._ready("GreedyTables")
            if tables is None:
                return None
            try:
                if one:
                    return tables.tag_sentence(tokens, tagdict)
                return tables.tag_sentences(tokens, tagdict)
            except KeyError:  # a tag put in the tag dictionary since the tables were made
                self._tables = None
        return None

    # ---- training
    @trains
    def train(self, sentences: Iterable[Any], save_loc: Any = None, nr_iter: int = 5) -> None:
        """Train on ``sentences`` for ``nr_iter`` epochs, then average (lines 403-450).

        The sentences are shuffled with Python's global ``random`` after every epoch. As in NLTK,
        a second call goes on from the averaged weights, and the tag dictionary and the classes
        grow. A structured tagger (``structured=True``) trains a new model instead, from a seed
        drawn from ``random``. A call that fails or is interrupted (Ctrl-C) leaves the tagger
        as it was before it (it holds a copy of the model meanwhile); the files of
        ``save_loc`` are written after the training, which a failure to write them keeps.

        Parameters
        ----------
        sentences : iterable of sentences
            Sentences, each a list of (word, tag) pairs of str.
        save_loc : str or path, optional
            A folder to write NLTK's JSON model files to (`to_nltk_json`, with ``self.lang``)
            after training; not for a structured tagger.
        nr_iter : int, default=5
            Epochs, >= 0 (>= 1 for a structured tagger).

        Raises
        ------
        ValueError
            If ``nr_iter`` is not an int >= 0 (>= 1 for a structured tagger), the sentences hold
            no tokens or a malformed pair, or ``save_loc`` is given to a structured tagger.
        TypeError
            If a word or tag is not a str.
        OSError
            If the files of ``save_loc`` cannot be written.
        ConcurrentUseError
            If another thread is training the tagger meanwhile.
        """
        if isinstance(nr_iter, bool) or not isinstance(nr_iter, (int, np.integer)) \
                or nr_iter < 0:
            raise ValueError(f"nr_iter must be an int >= 0, got {nr_iter!r}")
        data = check_sentences(sentences, "sentences")
        if not any(words for words, _ in data):
            raise ValueError("sentences holds no tokens: nothing to train on")
        if self.structured and save_loc is not None:
            self._refuse_structured("save_loc")
        if self.structured and nr_iter < 1:
            raise ValueError(f"nr_iter must be >= 1 for a structured tagger, got {nr_iter}")
        saved = self._saved()
        try:
            if self.structured:
                self._train_structured(data, int(nr_iter))
            else:
                self._train_greedy(data, int(nr_iter))
        except BaseException:  # Ctrl-C, a failed fit: the model as it was before the call
            for key in [k for k in self.__dict__ if k not in saved and k not in OWNER_KEYS]:
                del self.__dict__[key]  # (what the call added)
            self.__dict__.update(saved)
            raise
        if save_loc is not None:
            self.to_nltk_json(save_loc, lang=self.lang)

    def _train_greedy(self, data: list, nr_iter: int) -> None:
        self._tables = self._live_rows = None
        self._dense()
        self._make_tagdict(data)
        self._dense_file = False
        names = tag_codes(self)
        epochs: CodedEpochs | StringEpochs = (
            StringEpochs(self, data) if names is None else CodedEpochs(self, data, names))
        for epoch in range(nr_iter):
            right, seen = epochs.run()
            random.shuffle(epochs.order)  # NLTK shuffles its list after every epoch, line 440
            _logger.info("Iter %r: %r/%r=%r", epoch, right, seen, right / seen * 100)
        n = len(self._features)
        self._trim(n)
        _backend.tagging.average(self._weights, self._totals, self._stamps, self._live,
                                   self._steps)
        self._prepare()

    def _train_structured(self, data: list, nr_iter: int) -> None:
        """A new model on ``data`` (a second call starts over: the features change), shuffled
        from a seed drawn from Python's ``random``, so ``random.seed`` fixes it."""
        self.tagdict = {}
        self._reset([], [])
        self._make_tagdict(data)
        seed = random.getrandbits(32)
        self._core = StructuredCore.train(data, list(self._classes), nr_iter, seed,
                                          self.order)
        self._prepare()

    def _make_tagdict(self, data: list[tuple[list[str], list[str]]]) -> None:
        """NLTK's ``_make_tagdict`` (lines 614-633): the classes, and the words seen at least
        20 times with one tag at least 97% of the time. The (word, tag) pairs are counted by
        `Counter` in C; grouped in order of first sight, as NLTK's dicts are, so ties of
        ``max`` and the dictionary's order are NLTK's."""
        pairs = Counter(zip(chain.from_iterable(w for w, _ in data),
                            chain.from_iterable(t for _, t in data)))
        counts: dict[str, dict[str, int]] = {}
        for (word, tag), n in pairs.items():
            per = counts.get(word)
            if per is None:
                per = counts[word] = {}
            per[tag] = n
        self._add_classes({tag for word, tag in pairs})
        for word, tag_freqs in counts.items():
            tag, mode = max(tag_freqs.items(), key=lambda item: item[1])
            n = sum(tag_freqs.values())
            if n >= FREQ_THRESH and (mode / n) >= AMBIGUITY_THRESH:
                self.tagdict[word] = tag

    # ---- model files: reading them makes a tagger (writing them: TaggerState)
    @classmethod
    def load(cls, path: Any) -> PerceptronTagger:
        """Read a model written by `save`.

        Parameters
        ----------
        path : str or path-like
            The ``.npz`` file; without the suffix, ``path + ".npz"`` is read when ``path`` does
            not exist.

        Returns
        -------
        PerceptronTagger
            The tagger, greedy or structured as it was saved.

        Raises
        ------
        FileFormatError
            If the file is not a valid model file, or holds another class's model.
        FileNotFoundError
            If the file does not exist.
        """
        from ..io import load_model

        model = load_model(path)
        if not isinstance(model, cls):
            raise FileFormatError(f"{os.fspath(path)}: a {type(model).__name__} model, not a "
                                  f"{cls.__name__}")
        return model

    @classmethod
    def _from_state(cls, params: dict[str, Any], arrays: dict[str, np.ndarray]
                    ) -> PerceptronTagger:
        from ._text import check_state, check_text_state, sparse_pairs

        lang, structured = params.get("lang"), params.get("structured", False)
        order = params.get("order", 1)  # (1 in the files made before the parameter)
        if not set(params) <= {"lang", "structured", "order"} or not isinstance(lang, str) or \
                not isinstance(structured, bool) or order not in (1, 2) or \
                type(order) is not int or (order == 2 and not structured):
            raise ValueError("the parameters must be {'lang': str, 'structured': bool, "
                             "'order': 1 or 2 (2 with structured only)}")
        text = {name: unpack_text(arrays, name) for name in ("features", "classes",
                                                             "tagdict_words")}
        tagger = cls(load=False, lang=lang, structured=structured, order=order)
        if structured:
            check_text_state(arrays, text)
            tagger._core = StructuredCore.from_state(arrays, text["features"], text["classes"],
                                                     order)
            tagger._reset([], text["classes"])
        else:
            tagger._dense_file = "pair_rows" not in arrays  # the layout before the pairs
            check_state(arrays, text)
            pairs = {k: v for k, v in arrays.items() if k.startswith("pair_")}
            if tagger._dense_file:
                pairs = sparse_pairs({k: arrays[k] for k in ("weights", "totals", "stamps",
                                                             "live")})
            tagger._reset(text["features"], text["classes"], pairs)
            tagger._steps = int(arrays["steps"][0])
        tagger.tagdict = {w: text["classes"][k] for w, k in
                          zip(text["tagdict_words"], arrays["tagdict_tags"].tolist())}
        tagger._prepare()
        return tagger

    # ---- NLTK's JSON files
    @classmethod
    def from_nltk_json(cls, loc: Any, lang: str | None = None) -> PerceptronTagger:
        """A tagger from the JSON files NLTK's ``save_to_json`` writes.

        Parameters
        ----------
        loc : str, path or NLTK PathPointer
            Where ``averaged_perceptron_tagger_<lang>.{weights,tagdict,classes}.json`` are
            (lines 370-379), resolved as NLTK resolves it (see `load_from_json`): a
            ``pathlib.Path`` or an absolute str is a folder or a ``.zip``; a relative str is
            an NLTK resource name such as ``"taggers/averaged_perceptron_tagger_eng/"``.
        lang : str, optional
            The language code in the file names. None: "eng" if ``loc`` holds it, else the
            one model ``loc`` holds (so a folder NLTK's ``save_to_json`` wrote with its
            default "xxx" is read).

        Returns
        -------
        PerceptronTagger
            A greedy tagger with those weights, tag dictionary and classes; its ``lang`` is
            the language of the files read.

        Raises
        ------
        ValueError
            If ``lang`` is not one file name component.
        LookupError
            If a resource name is not found on ``nltk.data.path``, or nltk is not installed.
        FileNotFoundError
            If ``loc`` lacks a file of the model: the message lists what it holds.
        FileFormatError
            Naming the file, if one is not such a file.
        OSError
            If a file cannot be read.
        """
        tagger = cls(load=False, lang="eng" if lang is None else lang)
        tagger.lang = tagger._read_nltk(lang, loc)
        return tagger
