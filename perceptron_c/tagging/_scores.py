"""`PerceptronTagger`'s scores, NLTK's ``TaggerI`` (NLTK 3.10.4, ``nltk/tag/api.py`` lines
59-283): ``accuracy`` (and ``evaluate``, deprecated there), ``confusion``, per-tag
``precision``, ``recall``, ``f_measure`` and the table of ``evaluate_per_tag``.

`TaggerScores` is a mixin of `perceptron_c.tagging.PerceptronTagger`. Each method tags the
words of ``gold`` and compares with its tags, giving NLTK's numbers and text: the confusion
matrix is `perceptron_c.tagging._confusion.ConfusionMatrix`, NLTK's without NLTK. Unlike NLTK's
``TaggerI``, nothing is cached between calls: NLTK keeps the last ``confusion`` in an
``lru_cache`` on the method, which holds on to the tagger and gold and answers from the old
tags after the tagger is trained further; here every call tags ``gold`` afresh.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable
from itertools import chain
from typing import Any

from .._utils._docs import fill
from .._utils._threads import reads
from ._confusion import ConfusionMatrix
from ._text import check_sentences

__all__ = ["TaggerScores"]

_SCORING = {
    "gold_param": """
        gold : iterable of sentences
            Sentences, each a list of (word, tag) pairs of str: the words are tagged with
            `tag_sents` and the tags are the reference.""",
    "gold_raises": """
        Raises
        ------
        TypeError
            If a word or tag of ``gold`` is not a str.
        ValueError
            If ``gold`` holds a malformed pair or no tokens.
        NotFittedError
            If the tagger has no model yet and a word needs predicting.
        ConcurrentUseError
            If another thread is training the tagger meanwhile.""",
    "per_tag": """
        Returns
        -------
        dict
            Tag -> score, for every tag of ``gold`` or of the tagger's output, in sorted
            order of the tags (NLTK's ``ConfusionMatrix`` order).""",
}


class TaggerScores:
    """NLTK's ``TaggerI`` scores (a mixin: `PerceptronTagger` is the class)."""

    tag: Any  # PerceptronTagger's
    tag_sents: Any

    def _gold_tags(self, gold: Iterable[Any]) -> tuple[list[str], list[str]]:
        """The tags of ``gold`` and the tagger's tags of its words, token by token."""
        sentences = check_sentences(gold, "gold")
        if not any(words for words, _ in sentences):
            raise ValueError("gold holds no tokens")
        tagged = self.tag_sents([words for words, _ in sentences])
        return (list(chain.from_iterable(tags for _, tags in sentences)),
                [tag for _, tag in chain.from_iterable(tagged)])

    @reads
    @fill(_SCORING)
    def accuracy(self, gold: Iterable[Any]) -> float:
        """The fraction of the tokens of ``gold`` tagged as in ``gold`` (``TaggerI.accuracy``).

        Parameters
        ----------
        {gold_param}

        Returns
        -------
        float
            Tokens tagged right / tokens.

        {gold_raises}
        """
        reference, test = self._gold_tags(gold)
        return sum(a == b for a, b in zip(reference, test)) / len(reference)

    @fill(_SCORING)
    @reads
    def evaluate(self, gold: Iterable[Any]) -> float:
        """`accuracy`, with the DeprecationWarning NLTK gives (``nltk/tag/api.py`` 59-61).

        Parameters
        ----------
        {gold_param}

        Returns
        -------
        float
            Tokens tagged right / tokens.

        Raises
        ------
        ValueError, TypeError, NotFittedError
            As `accuracy`.

        Warns
        -----
        DeprecationWarning
            Always: NLTK deprecated ``evaluate`` for ``accuracy``.
        """
        warnings.warn("Function evaluate() has been deprecated. Use accuracy(gold) instead.",
                      DeprecationWarning, stacklevel=2)
        return self.accuracy(gold)

    @reads
    @fill(_SCORING)
    def confusion(self, gold: Iterable[Any]) -> ConfusionMatrix:
        """The confusion matrix of the tags of ``gold`` (rows) and the tagger's (columns).

        ``TaggerI.confusion``: ``print`` it for NLTK's table.

        Parameters
        ----------
        {gold_param}

        Returns
        -------
        ConfusionMatrix
            NLTK's ``ConfusionMatrix`` API: ``cm[ref, test]``, ``precision(tag)``,
            ``recall(tag)``, ``f_measure(tag, alpha)``, ``evaluate()``, ``pretty_format()``.

        {gold_raises}
        """
        return ConfusionMatrix(*self._gold_tags(gold))

    @fill(_SCORING)
    def recall(self, gold: Iterable[Any]) -> dict[str, float]:
        """Each tag's recall: tokens tagged right / tokens of the tag in ``gold``.

        Parameters
        ----------
        {gold_param}

        {per_tag}

        {gold_raises}
        """
        cm = self.confusion(gold)
        return {tag: cm.recall(tag) for tag in cm._values}

    @fill(_SCORING)
    def precision(self, gold: Iterable[Any]) -> dict[str, float]:
        """Each tag's precision: tokens tagged right / tokens the tagger gave the tag.

        Parameters
        ----------
        {gold_param}

        {per_tag}

        {gold_raises}
        """
        cm = self.confusion(gold)
        return {tag: cm.precision(tag) for tag in cm._values}

    @fill(_SCORING)
    def f_measure(self, gold: Iterable[Any], alpha: float = 0.5) -> dict[str, float]:
        """Each tag's F-measure, ``1 / (alpha / p + (1 - alpha) / r)`` (0 if p or r is 0).

        Parameters
        ----------
        {gold_param}
        alpha : float, default=0.5
            The weight of precision against recall (0.5: their harmonic mean).

        {per_tag}

        {gold_raises}
        """
        cm = self.confusion(gold)
        return {tag: cm.f_measure(tag, alpha) for tag in cm._values}

    @fill(_SCORING)
    def evaluate_per_tag(self, gold: Iterable[Any], alpha: float = 0.5,
                         truncate: int | None = None, sort_by_count: bool = False) -> str:
        """NLTK's table of each tag's precision, recall and F-measure, as text to print.

        Parameters
        ----------
        {gold_param}
        alpha : float, default=0.5
            As `f_measure`.
        truncate : int, optional
            Show only the first ``truncate`` tags (after sorting).
        sort_by_count : bool, default=False
            Order the tags by their count in ``gold``, most frequent first.

        Returns
        -------
        str
            ``Tag | Prec.  | Recall | F-measure``, a rule, then a line per tag.

        {gold_raises}
        """
        return self.confusion(gold).evaluate(alpha=alpha, truncate=truncate,
                                             sort_by_count=sort_by_count)
