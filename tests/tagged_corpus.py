"""A seeded generator of POS-tagged English-like sentences for the tagger's tests and bench.

NLTK's corpora are not on PyPI, so the tests make their own: sentences from a small grammar
with Penn-style tags, whose words exercise every feature and rule of NLTK's tagger: frequent
unambiguous words (the tag dictionary fills), ambiguous words (several tags), rare made-up
words (suffixes and prefixes carry the tag), capitals, numbers, 4-digit years, hyphens and a
word starting with '-'. Only ``random.Random(seed)`` is used, so Python's global ``random``
(which the taggers shuffle with) is left alone.
"""
from __future__ import annotations

import random

FUNCTION = {"DT": ["the", "a", "The", "this", "every"], "IN": ["of", "in", "on", "with", "by"],
            "CC": ["and", "or"], "TO": ["to"], "MD": ["will", "can", "must"],
            "PRP": ["it", "they", "She", "we"], ".": [".", "!", "?"], ",": [","]}
AMBIGUOUS = {"run": ("VB", "NN"), "bank": ("NN", "VB"), "that": ("IN", "DT"),
             "can": ("MD", "NN"), "well": ("RB", "JJ", "NN"), "light": ("JJ", "NN", "VB"),
             "Bill": ("NNP", "NN"), "back": ("RB", "NN", "VB"), "-minus": ("NN", "JJ")}
SUFFIX = {"NN": ["tion", "ness", "ment", "er"], "NNS": ["tions", "ers", "s"],
          "VB": ["ize", "ate", "en"], "VBD": ["ed", "ated"], "VBG": ["ing", "izing"],
          "JJ": ["ous", "ful", "ive", "al"], "RB": ["ly", "ally"], "NNP": ["son", "ville"]}
STEMS = ["bar", "cal", "dor", "fen", "gil", "hap", "jor", "kel", "lum", "mip", "nor", "pel",
         "quo", "ras", "sil", "tav", "und", "vor", "wex", "zan", "ab", "el", "or"]
PATTERNS = ["DT JJ NN VBD DT NN IN DT NNS .", "PRP MD VB DT JJ NN .",
            "NNP VBD CD NNS IN NNP , CC PRP VBD RB .", "DT NN IN CD VBD JJ .",
            "PRP VBG DT NN TO VB NNS .", "NNP NNP MD RB VB DT NN IN DT JJ NNS .",
            "DT JJ NNS VBD IN DT NN CC VBD .", "IN CD , DT NN VBD TO VB RB ."]


def _open_class(rng: random.Random, tag: str) -> str:
    """A word of an open class: a few common ones, many rare made-up ones."""
    if tag == "CD":
        kind = rng.random()
        if kind < 0.4:
            return str(rng.randint(1900, 2030))  # !YEAR
        return str(rng.randint(0, 99)) if kind < 0.8 else f"{rng.randint(1, 9)}.{rng.randint(0, 9)}"
    if rng.random() < 0.08 and tag in ("JJ", "NN"):
        return f"{rng.choice(STEMS)}-{rng.choice(STEMS)}{rng.choice(SUFFIX[tag])}"  # !HYPHEN
    common = rng.random() < 0.5
    stem = rng.choice(STEMS[:6] if common else STEMS) + rng.choice(STEMS)
    word = stem + rng.choice(SUFFIX[tag])
    return word.capitalize() if tag == "NNP" else word


def _word(rng: random.Random, tag: str) -> str:
    if tag in FUNCTION:
        return rng.choice(FUNCTION[tag])
    if rng.random() < 0.15:
        choices = [w for w, tags in AMBIGUOUS.items() if tag in tags]
        if choices:
            return rng.choice(choices)
    return _open_class(rng, tag)


def tagged_sentences(seed: int, n_tokens: int) -> list[list[tuple[str, str]]]:
    """Sentences of (word, tag) pairs, at least ``n_tokens`` tokens in all, from ``seed``."""
    rng = random.Random(seed)
    out: list[list[tuple[str, str]]] = []
    total = 0
    while total < n_tokens:
        tags = rng.choice(PATTERNS).split()
        sentence = [(_word(rng, tag), tag) for tag in tags]
        if rng.random() < 0.2:  # a capitalized first word, as at a sentence start
            sentence[0] = (sentence[0][0].capitalize(), sentence[0][1])
        out.append(sentence)
        total += len(sentence)
    return out
