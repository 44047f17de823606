"""Pure-Python twin of ``_features_c``: the specification of the token features.

A sentence is a list of str tokens; each token gets the keys (str) of the templates that fire
on it, in template order, and each key becomes a column: its id in a `Vocabulary` (exact
interning, ids in first-seen order) or its hash modulo ``n_features`` (feature hashing).
Everything is defined on code points with str's own predicates, so the C twin, which reads
the same code points and asks CPython's ``Py_UNICODE_ISUPPER``, ``Py_UNICODE_ISLOWER``,
``Py_UNICODE_ISDIGIT`` and ``Py_UNICODE_ISALPHA``, builds the same keys.

``spec`` is a tuple of 9 ints, named by ``SPEC_FIELDS``: ``nltk`` (1: NLTK's 10 static
features, every other field ignored), ``bias``, ``word``, ``lower``, ``prefix`` (the longest
prefix length), ``suffix``, ``shape``, ``flags``, ``window``. The standard templates of
token i of ``words``, in this order, with L = str.lower (full case mapping, Greek final
sigma included):

- ``bias`` (1): ``"bias"``;
- ``word`` (1): ``"w=" + w``; ``lower`` (1): ``"lw=" + L(w)``;
- ``prefix`` (n): ``"p{k}=" + w[:k]`` for k = 1..n with k <= len(w), then ``suffix`` (n):
  ``"s{k}=" + w[-k:]`` for k = 1..n with k <= len(w);
- ``shape`` (1): ``"shape=" + shape(w)``: each code point c becomes ``X`` if c.isupper(),
  ``x`` if c.islower(), ``d`` if c.isdigit(), ``a`` if c.isalpha() (other letters: CJK,
  titlecase), else c itself; then every run of equal characters is cut to one
  ('McDonald's' -> "XxXx'x", '1990' -> 'd');
- ``flags`` (1): ``"is_digit"`` if w.isdigit(), ``"has_hyphen"`` if '-' in w, ``"is_cap"``
  if w[:1].isupper(), each only when true;
- ``window`` (w): for o = -w..-1, 1..w, the token at i + o as ``"w[{o:+d}]=" + word`` (if
  ``word``) and ``"lw[{o:+d}]=" + L(word)`` (if ``lower``), with ``<s>`` before the
  sentence and ``</s>`` after it in place of the word (both keys).

With ``nltk``, NLTK's static features (``nltk/tag/perceptron.py``, ``_get_features``, as
``perceptron_c.tagging.PerceptronTagger._static_features`` builds them), ten per token:
``bias``, ``i suffix`` w[-3:], ``i pref1`` w[:1], ``i word`` c[i], ``i-1 word`` c[i-1],
``i-1 suffix`` c[i-1][-3:], ``i-2 word`` c[i-2], ``i+1 word`` c[i+1], ``i+1 suffix``
c[i+1][-3:], ``i+2 word`` c[i+2], where c is the sentence normalized by `normalize` between
``-START-``, ``-START2-`` and ``-END-``, ``-END2-``.

Every key of a token differs from the others by its template prefix, so an interned row holds
each id at most once, in template order, with value 1. Hashed, a key's column is the 64-bit
FNV-1a hash (offset 14695981039346656037, prime 1099511628211) of its UTF-8 bytes (lone
surrogates encoded as three bytes, 'surrogatepass'), modulo ``n_features``; keys of a token
that collide add up: a hashed row holds its columns in increasing order, each with its count.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ._contract import _D, _I64

__all__ = ["Vocabulary", "extract_features", "sentence_keys"]

SPEC_FIELDS = ("nltk", "bias", "word", "lower", "prefix", "suffix", "shape", "flags", "window")
BOS, EOS = "<s>", "</s>"
FLAG_KEYS = ("is_digit", "has_hyphen", "is_cap")
NLTK_START, NLTK_END = ("-START-", "-START2-"), ("-END-", "-END2-")
NLTK_NORMAL = ("!HYPHEN", "!YEAR", "!DIGITS")
NLTK_PREFIXES = ("bias", "i suffix ", "i pref1 ", "i word ", "i-1 word ", "i-1 suffix ",
                 "i-2 word ", "i+1 word ", "i+1 suffix ", "i+2 word ")
FNV_OFFSET, FNV_PRIME = 14695981039346656037, 1099511628211
_M64 = (1 << 64) - 1


class Vocabulary:
    """Feature keys interned to ids 0, 1, ... in the order they were first added, with the
    number of tokens each key was counted on while growing. Pickles as its list of keys."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._ids: dict[str, int] = {}
        self._keys: list[str] = []
        self._counts: list[int] = []
        for i, key in enumerate(keys):
            if not isinstance(key, str):
                raise TypeError(f"keys[{i}] must be a str, got {type(key).__name__}")
            if key in self._ids:
                raise ValueError(f"keys[{i}] repeats the key {key!r:.60}")
            self._add(key)

    def _add(self, key: str) -> int:
        vid = self._ids[key] = len(self._keys)
        self._keys.append(key)
        self._counts.append(0)
        return vid

    def __len__(self) -> int:
        return len(self._keys)

    def get(self, key: str) -> int:
        """The id of ``key``, or -1."""
        return self._ids.get(key, -1)

    def keys(self) -> list[str]:
        """Every key, in id order."""
        return list(self._keys)

    def counts(self) -> _I64:
        """For each id, the tokens its key was counted on by growing extractions."""
        return np.array(self._counts, dtype=np.int64)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.keys(),))


def check_spec(spec: Any) -> None:
    """ValueError unless ``spec`` is a tuple of 9 ints >= 0 (``SPEC_FIELDS``)."""
    if not (isinstance(spec, tuple) and len(spec) == len(SPEC_FIELDS) and
            all(type(v) is int and v >= 0 for v in spec)):
        raise ValueError(f"spec must be a tuple of {len(SPEC_FIELDS)} ints >= 0 "
                         f"{SPEC_FIELDS}, got {spec!r:.80}")


def prefix_table(spec: tuple[int, ...]) -> list[str]:
    """The template prefixes (then the markers) in template order: the C twin's table."""
    if spec[0]:
        return [*NLTK_PREFIXES, *NLTK_START, *NLTK_END, *NLTK_NORMAL]
    offsets = [*range(-spec[8], 0), *range(1, spec[8] + 1)]
    return ["bias", "w=", "lw=", *[f"p{k}=" for k in range(1, spec[4] + 1)],
            *[f"s{k}=" for k in range(1, spec[5] + 1)], "shape=", *FLAG_KEYS,
            *[f"{t}[{o:+d}]=" for o in offsets for t in ("w", "lw")], BOS, EOS]


def normalize(word: str) -> str:
    """NLTK's ``normalize`` (``nltk/tag/perceptron.py``): '!HYPHEN', '!YEAR', '!DIGITS' or
    the lower-cased word."""
    if "-" in word and word[0] != "-":
        return NLTK_NORMAL[0]
    if word.isdigit() and len(word) == 4:
        return NLTK_NORMAL[1]
    if word and word[0].isdigit():
        return NLTK_NORMAL[2]
    return str.lower(word)


def shape(word: str) -> str:
    """The shape of ``word``, as defined in the module docstring."""
    out: list[str] = []
    for c in word:
        s = ("X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit()
             else "a" if c.isalpha() else c)
        if not out or out[-1] != s:
            out.append(s)
    return "".join(out)


def _nltk_keys(tokens: list[str], context: list[str], i: int) -> list[str]:
    word, c, j = tokens[i], context, i + 2
    values = (word[-3:], word[:1], c[j], c[j - 1], c[j - 1][-3:], c[j - 2], c[j + 1],
              c[j + 1][-3:], c[j + 2])
    return ["bias"] + [p + v for p, v in zip(NLTK_PREFIXES[1:], values)]


def _standard_keys(tokens: list[str], lowers: list[str], i: int,
                   spec: tuple[int, ...]) -> list[str]:
    _, bias, word, lower, prefix, suffix, shape_on, flags, window = spec
    w = tokens[i]
    keys = ["bias"] if bias else []
    if word:
        keys.append("w=" + w)
    if lower:
        keys.append("lw=" + lowers[i])
    keys += [f"p{k}=" + w[:k] for k in range(1, min(prefix, len(w)) + 1)]
    keys += [f"s{k}=" + w[-k:] for k in range(1, min(suffix, len(w)) + 1)]
    if shape_on:
        keys.append("shape=" + shape(w))
    if flags:
        keys += [key for key, on in zip(FLAG_KEYS, (w.isdigit(), "-" in w, w[:1].isupper()))
                 if on]
    for o in [*range(-window, 0), *range(1, window + 1)]:
        at = i + o
        other = tokens[at] if 0 <= at < len(tokens) else BOS if at < 0 else EOS
        if word:
            keys.append(f"w[{o:+d}]=" + other)
        if lower:
            keys.append(f"lw[{o:+d}]=" + (lowers[at] if 0 <= at < len(tokens) else other))
    return keys


def _check_tokens(tokens: Any, name: str) -> None:
    for t, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"{name}[{t}] must be a str token, got {type(token).__name__}")


def _keys_of(tokens: list[str], spec: tuple[int, ...]) -> list[list[str]]:
    """The keys of every token of a checked sentence."""
    if spec[0]:
        context = [*NLTK_START, *map(normalize, tokens), *NLTK_END]
        return [_nltk_keys(tokens, context, i) for i in range(len(tokens))]
    lowers = [str.lower(w) for w in tokens] if spec[3] else []
    return [_standard_keys(tokens, lowers, i, spec) for i in range(len(tokens))]


def sentence_keys(tokens: list[str], spec: tuple[int, ...]) -> list[list[str]]:
    """The keys of each token of one sentence (a list of str), in template order."""
    check_spec(spec)
    if not isinstance(tokens, list):
        raise TypeError(f"tokens must be a list of str tokens, got {type(tokens).__name__}")
    _check_tokens(tokens, "tokens")
    return _keys_of(tokens, spec)


def fnv1a(key: str) -> int:
    """64-bit FNV-1a of the UTF-8 bytes of ``key`` (surrogatepass)."""
    h = FNV_OFFSET
    for byte in key.encode("utf-8", "surrogatepass"):
        h = ((h ^ byte) * FNV_PRIME) & _M64
    return h


def _hashed_row(keys: list[str], n_features: int) -> tuple[list[int], list[float]]:
    counts: dict[int, int] = {}
    for key in keys:
        col = fnv1a(key) % n_features
        counts[col] = counts.get(col, 0) + 1
    cols = sorted(counts)
    return cols, [float(counts[c]) for c in cols]


def extract_features(sentences: list[list[str]], spec: tuple[int, ...],
                     vocab: Vocabulary | None, grow: bool,
                     n_features: int) -> tuple[_D, _I64, _I64, _I64]:
    """The CSR rows of every token of ``sentences`` (lists of str) and the sentence lengths:
    ``(data, indices, indptr, lengths)``.

    With ``n_features`` 0 the keys are interned in ``vocab``: a key it lacks is added (next
    id) when ``grow``, else dropped; growing counts every key once per token it fires on.
    With ``n_features`` > 0 the keys are hashed and ``vocab`` is ignored. Every sentence is
    checked to be a list first, then each sentence's tokens to be str before its keys are
    made: a TypeError names the first bad one (``sentences[3]``, ``sentences[3][7]``).
    """
    check_spec(spec)
    if not isinstance(sentences, list):
        raise TypeError(f"sentences must be a list of lists of str, got "
                        f"{type(sentences).__name__}")
    for s, sentence in enumerate(sentences):
        if not isinstance(sentence, list):
            raise TypeError(f"sentences[{s}] must be a list of str tokens, got "
                            f"{type(sentence).__name__}")
    check_vocab(vocab, n_features)
    data: list[float] = []
    indices: list[int] = []
    indptr, lengths = [0], []
    for s, sentence in enumerate(sentences):
        _check_tokens(sentence, f"sentences[{s}]")
        for keys in _keys_of(sentence, spec):
            if n_features > 0:
                cols, values = _hashed_row(keys, n_features)
                indices += cols
                data += values
            else:
                interned_row(keys, vocab, grow, indices, data)  # type: ignore[arg-type]
            indptr.append(len(indices))
        lengths.append(len(sentence))
    return csr_arrays(data, indices, indptr, lengths)


def check_vocab(vocab: Any, n_features: int) -> None:
    """Interning (``n_features`` 0) needs this twin's `Vocabulary`."""
    if n_features == 0 and not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a _features_py.Vocabulary, got {type(vocab).__name__}")


def csr_arrays(data: list[float], indices: list[int], indptr: list[int],
               lengths: list[int]) -> tuple[_D, _I64, _I64, _I64]:
    return (np.array(data, dtype=np.float64), np.array(indices, dtype=np.int64),
            np.array(indptr, dtype=np.int64), np.array(lengths, dtype=np.int64))


def interned_row(keys: list[str], vocab: Vocabulary, grow: bool, indices: list[int],
                 data: list[float], values: list[float] | None = None) -> None:
    """The columns of ``keys`` (of value 1.0, or ``values``) appended, in their order: each
    key's id in ``vocab``, a new one added when ``grow`` (and counted), else dropped."""
    for k, key in enumerate(keys):
        vid = vocab.get(key)
        if vid < 0 and grow:
            vid = vocab._add(key)
        if vid >= 0:
            if grow:
                vocab._counts[vid] += 1
            indices.append(vid)
            data.append(1.0 if values is None else values[k])
