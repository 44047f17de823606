"""Pure-Python twin of ``_tokens_c``: Python tokens read against a trained tagger's features,
and the structured tagger's tagging of whole sentences in one call.

`ViterbiTables`, made once from a structured model and read only after (any number of
threads may tag with it at once): NLTK's 10 static features of every token as `_features_py`
interns them (``templates="nltk"``), then ``_sequence_py.decode_csr`` (the emissions' 4
lanes, Viterbi's order of additions, ties to the lowest tag). The greedy tagger's tables are
`_tagging_py.GreedyTables`, which share the checks here (and, in C, the token reader).

Words are normalized as ``_features_py.normalize`` does (``str.lower``, not an overridden
``lower`` of a str subclass), as the tagger's training features are.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ._contract import need
from ._features_py import Vocabulary, extract_features
from ._sequence_py import decode_csr

if TYPE_CHECKING:
    from ._contract import _D

__all__ = ["ViterbiTables"]

NLTK_SPEC = (1, 0, 0, 0, 0, 0, 0, 0, 0)  # _features_py's spec of NLTK's 10 static keys


def check_features(features: Any) -> None:
    """A list of distinct str, as a `Vocabulary` takes them (its errors)."""
    if type(features) is not list:
        raise TypeError(f"features must be a list of str, got {type(features).__name__}")
    Vocabulary(features)


def check_names(names: Any, n: int, what: str) -> None:
    if type(names) is not list or not all(type(t) is str for t in names):
        raise TypeError("names must be a list of str")
    need(len(names) == len(set(names)), "names must be distinct")
    need(len(names) >= n and len(names) < 1 << 20, f"names must hold {what}")


def check_tokens(tokens: Any, name: str) -> list[str]:
    """A list of str (TypeError naming the first other token)."""
    if type(tokens) is not list:
        raise TypeError(f"{name} must be a list of str tokens, got {type(tokens).__name__}")
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"{name}[{i}] must be a str token, got {type(token).__name__}")
    return tokens


def check_sentences(sentences: Any, tagdict: Any = None) -> list[list[str]]:
    """A list of lists of str, then ``tagdict`` (`check_tagdict`)."""
    if type(sentences) is not list:
        raise TypeError(f"sentences must be a list of lists of str tokens, got "
                        f"{type(sentences).__name__}")
    checked = [check_tokens(s, f"sentences[{k}]") for k, s in enumerate(sentences)]
    check_tagdict(tagdict)
    return checked


def check_tagdict(tagdict: Any) -> None:
    """A tag dictionary: a dict, or None for none."""
    if tagdict is not None and type(tagdict) is not dict:
        raise TypeError(f"tagdict must be a dict or None, got {type(tagdict).__name__}")


class ViterbiTables:
    """A trained structured tagger prepared for tagging Python tokens: NLTK's 10 static
    features of every token (``_features_py``'s ``nltk`` templates) as columns
    (``features[c]`` names column ``c``, as `TokenFeatures` interns them), then the best tag
    sequence of each sentence, exactly ``_sequence_py.decode_csr`` under the feature-major
    ``W`` (n_features, K), ``b`` (K,) and ``trans`` (K + 2, K), and in second order the
    trigram scores ``trans2`` (K + 1, K + 1, K + 1): the arithmetic contract of
    ``_sequence_py``. ``names`` are the K tags. Read only once made; arrays are not copied."""

    def __init__(self, features: list[str], names: list[str], W: _D, b: _D, trans: _D,
                 trans2: _D | None = None) -> None:
        check_features(features)
        need(isinstance(W, np.ndarray) and W.dtype == np.float64 and W.ndim == 2 and
             W.flags.c_contiguous and W.shape[0] == len(features) and W.shape[1] >= 1,
             f"W must be a C-contiguous float64 array of shape ({len(features)}, n_classes)")
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
        check_names(names, K, "one tag per column of W")
        need(len(names) == K, "names must hold one tag per column of W")
        if trans2 is not None:
            n = K + 1
            need(isinstance(trans2, np.ndarray) and trans2.dtype == np.float64 and
                 trans2.shape == (n, n, n) and trans2.flags.c_contiguous,
                 "trans2 must be a C-contiguous float64 array of shape (K + 1, K + 1, K + 1)")
            for a, v in enumerate(trans2.ravel().tolist()):
                if not math.isfinite(v):
                    raise FloatingPointError(f"trans2[{a // (n * n)}, {a // n % n}, {a % n}] "
                                             "is not finite")
        self._vocab = Vocabulary(features)
        self._names, self._W, self._b, self._trans = list(names), W, b, trans
        self._trans2 = trans2

    def tag_sentence(self, tokens: list[str]) -> list[tuple[str, str]]:
        """``[(word, tag), ...]`` for the list of str ``tokens`` (Viterbi's tags)."""
        return self._tag([check_tokens(tokens, "tokens")])[0]

    def tag_sentences(self, sentences: list[list[str]]) -> list[list[tuple[str, str]]]:
        """`tag_sentence` of every list of ``sentences``; a sentence whose score is not
        finite raises FloatingPointError naming its index."""
        return self._tag(check_sentences(sentences))

    def _tag(self, sentences: list[list[str]]) -> list[list[tuple[str, str]]]:
        data, indices, indptr, lengths = extract_features(sentences, NLTK_SPEC, self._vocab,
                                                          False, 0)
        offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        out = np.empty(int(offsets[-1]), dtype=np.int64)
        decode_csr(data, indices.astype(np.int32), indptr, self._W, self._b, self._trans,
                   offsets, out, trans2=self._trans2)
        names, tags = self._names, out.tolist()
        return [list(zip(s, [names[c] for c in tags[offsets[k]:offsets[k + 1]]]))
                for k, s in enumerate(sentences)]
