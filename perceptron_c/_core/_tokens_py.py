"""Pure-Python twin of ``_tokens_c``: tagging Python tokens with a trained tagger, whole
sentences in one call; the specification of what the tagger's ``tag`` and ``tag_sents`` do.

Two kinds of tables, each made once from a model and read only after (any number of threads
may tag with one at once):

- `GreedyTables`: NLTK's greedy ``tag`` (``nltk/tag/perceptron.py``, 3.10.4, lines 381-401)
  as the spec `_tagging_py` states its arithmetic: the 14 feature strings of each token in
  NLTK's template order, looked up by name, their rows summed by `score_rows`, the tag
  chosen by `best_class`; the previous two tags are the last two chosen, from the tag
  dictionary or predicted.
- `ViterbiTables`: the structured tagger's: NLTK's 10 static features of every token as
  `_features_py` interns them (``templates="nltk"``), then ``_sequence_py.decode_csr`` (the
  emissions' 4 lanes, Viterbi's order of additions, ties to the lowest tag).

Words are normalized as ``_features_py.normalize`` does (``str.lower``, not an overridden
``lower`` of a str subclass), as the tagger's training features are.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ._contract import need
from ._features_py import Vocabulary, extract_features, normalize
from ._sequence_py import decode_csr
from ._tagging_py import best_class, score_rows

if TYPE_CHECKING:
    from ._contract import _D

__all__ = ["GreedyTables", "ViterbiTables"]

START, END = ("-START-", "-START2-"), ("-END-", "-END2-")
NLTK_SPEC = (1, 0, 0, 0, 0, 0, 0, 0, 0)  # _features_py's spec of NLTK's 10 static keys


def _check_features(features: Any) -> None:
    """A list of distinct str, as a `Vocabulary` takes them (its errors)."""
    if type(features) is not list:
        raise TypeError(f"features must be a list of str, got {type(features).__name__}")
    Vocabulary(features)


def _check_weights(weights: Any, rows: int, name: str) -> None:
    need(isinstance(weights, np.ndarray) and weights.dtype == np.float64 and weights.ndim == 2
          and weights.flags.c_contiguous and weights.shape[0] == rows and weights.shape[1] >= 1,
          f"{name} must be a C-contiguous float64 array of shape ({rows}, n_classes)")


def _check_names(names: Any, n: int, what: str) -> None:
    if type(names) is not list or not all(type(t) is str for t in names):
        raise TypeError("names must be a list of str")
    need(len(names) == len(set(names)), "names must be distinct")
    need(len(names) >= n and len(names) < 1 << 20, f"names must hold {what}")


def _tokens(tokens: Any, name: str) -> list[str]:
    if type(tokens) is not list:
        raise TypeError(f"{name} must be a list of str tokens, got {type(tokens).__name__}")
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"{name}[{i}] must be a str token, got {type(token).__name__}")
    return tokens


def _sentences(sentences: Any) -> list[list[str]]:
    if type(sentences) is not list:
        raise TypeError(f"sentences must be a list of lists of str tokens, got "
                        f"{type(sentences).__name__}")
    return [_tokens(s, f"sentences[{k}]") for k, s in enumerate(sentences)]


class GreedyTables:
    """A trained greedy tagger prepared for tagging Python tokens: NLTK's ``tag`` (lines
    381-401) on whole sentences in one call. Read only once made, so any number of threads
    may tag with it at once.

    ``features[r]`` names row ``r`` of ``weights`` (NLTK's feature strings, distinct);
    ``names`` the tags by code: the ``n_classes`` classes (the columns of ``weights``, in
    sorted order), then ``-START-`` and ``-START2-``, then any other tag the tag dictionary
    may give; no name holds a space, so every feature string has one reading. Each token
    takes its tag from ``tagdict`` (a dict, or None for none) when it gives a truthy value,
    which must be one of ``names`` (else KeyError: the caller prepares new tables);
    otherwise its 14 features in NLTK's template order select rows of ``weights``, summed as
    `score_rows` sums them, and `best_class` picks the tag. Rows are not copied: a model that
    changes makes new tables."""

    def __init__(self, features: list[str], names: list[str], n_classes: int,
                 weights: _D) -> None:
        _check_features(features)
        _check_weights(weights, len(features), "weights")
        need(weights.shape[1] == n_classes, "weights must have one column per class")
        _check_names(names, n_classes + 2, "the classes, then -START- and -START2-")
        need(names[n_classes:n_classes + 2] == list(START),
              "names must hold the classes, then -START- and -START2-")
        need(not any(" " in t for t in names), "names must not hold a space")
        self._rows = {f: r for r, f in enumerate(features)}
        self._names, self._weights = list(names), weights
        self._known = set(names)

    def tag_sentence(self, tokens: list[str], tagdict: dict[str, Any] | None
                     ) -> list[tuple[str, str]]:
        """``[(word, tag), ...]`` for the list of str ``tokens``."""
        return self._tag(_tokens(tokens, "tokens"), self._tagdict(tagdict))

    def tag_sentences(self, sentences: list[list[str]], tagdict: dict[str, Any] | None
                      ) -> list[list[tuple[str, str]]]:
        """`tag_sentence` of every list of ``sentences``."""
        checked, td = _sentences(sentences), self._tagdict(tagdict)
        return [self._tag(tokens, td) for tokens in checked]

    @staticmethod
    def _tagdict(tagdict: Any) -> dict[str, Any] | None:
        if tagdict is not None and type(tagdict) is not dict:
            raise TypeError(f"tagdict must be a dict or None, got {type(tagdict).__name__}")
        return tagdict

    def _tag(self, tokens: list[str], tagdict: dict[str, Any] | None
             ) -> list[tuple[str, str]]:
        context = [*START, *(normalize(w) for w in tokens), *END]
        prev, prev2 = START
        out = []
        for i, word in enumerate(tokens):
            tag = None if tagdict is None else tagdict.get(word)
            if tag:
                if tag not in self._known:
                    raise KeyError(tag)
            else:
                tag = self._predict(i + 2, word, context, prev, prev2)
            out.append((word, tag))
            prev2, prev = prev, tag
        return out

    def _predict(self, i: int, word: str, context: list[str], prev: str, prev2: str) -> str:
        """NLTK's ``_get_features`` (lines 586-612) and ``predict`` for the token at
        ``context[i]``."""
        keys = ["bias", "i suffix " + word[-3:], "i pref1 " + word[:1], "i-1 tag " + prev,
                "i-2 tag " + prev2, f"i tag+i-2 tag {prev} {prev2}", "i word " + context[i],
                f"i-1 tag+i word {prev} {context[i]}", "i-1 word " + context[i - 1],
                "i-1 suffix " + context[i - 1][-3:], "i-2 word " + context[i - 2],
                "i+1 word " + context[i + 1], "i+1 suffix " + context[i + 1][-3:],
                "i+2 word " + context[i + 2]]
        get = self._rows.get
        rows = np.array([r for r in (get(k, -1) for k in keys) if r >= 0], dtype=np.int64)
        return self._names[best_class(score_rows(self._weights, rows))]


class ViterbiTables:
    """A trained first-order structured tagger prepared for tagging Python tokens: NLTK's 10
    static features of every token (``_features_py``'s ``nltk`` templates) as columns
    (``features[c]`` names column ``c``, as `TokenFeatures` interns them), then the best tag
    sequence of each sentence, exactly ``_sequence_py.decode_csr`` under the feature-major
    ``W`` (n_features, K), ``b`` (K,) and ``trans`` (K + 2, K): the arithmetic contract of
    ``_sequence_py``. ``names`` are the K tags. Read only once made; arrays are not copied."""

    def __init__(self, features: list[str], names: list[str], W: _D, b: _D, trans: _D
                 ) -> None:
        _check_features(features)
        _check_weights(W, len(features), "W")
        K = W.shape[1]
        need(isinstance(b, np.ndarray) and b.dtype == np.float64 and b.shape == (K,)
             and b.flags.c_contiguous, "b must be a contiguous float64 array of shape (K,)")
        need(isinstance(trans, np.ndarray) and trans.dtype == np.float64 and
             trans.shape == (K + 2, K) and trans.flags.c_contiguous,
             "trans must be a C-contiguous float64 array of shape (K + 2, K)")
        for i, row in enumerate(trans.tolist()):
            for j, v in enumerate(row):
                if not math.isfinite(v):
                    raise FloatingPointError(f"trans[{i}, {j}] is not finite")
        _check_names(names, K, "one tag per column of W")
        need(len(names) == K, "names must hold one tag per column of W")
        self._vocab = Vocabulary(features)
        self._names, self._W, self._b, self._trans = list(names), W, b, trans

    def tag_sentence(self, tokens: list[str]) -> list[tuple[str, str]]:
        """``[(word, tag), ...]`` for the list of str ``tokens`` (Viterbi's tags)."""
        return self._tag([_tokens(tokens, "tokens")])[0]

    def tag_sentences(self, sentences: list[list[str]]) -> list[list[tuple[str, str]]]:
        """`tag_sentence` of every list of ``sentences``; a sentence whose score is not
        finite raises FloatingPointError naming its index."""
        return self._tag(_sentences(sentences))

    def _tag(self, sentences: list[list[str]]) -> list[list[tuple[str, str]]]:
        data, indices, indptr, lengths = extract_features(sentences, NLTK_SPEC, self._vocab,
                                                          False, 0)
        offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        out = np.empty(int(offsets[-1]), dtype=np.int64)
        decode_csr(data, indices.astype(np.int32), indptr, self._W, self._b, self._trans,
                   offsets, out)
        names, tags = self._names, out.tolist()
        return [list(zip(s, [names[c] for c in tags[offsets[k]:offsets[k + 1]]]))
                for k, s in enumerate(sentences)]
