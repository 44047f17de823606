"""The `PerceptronTagger`'s sentences as integer codes for `_backend.tagging`: whole training
epochs in one call (`CodedEpochs`), the string-keyed epoch NLTK's feature names need when
tags are odd (`StringEpochs`), and the tables that tag Python tokens in one call, made once
per model (`greedy_tables`).

The features are NLTK's (``nltk/tag/perceptron.py`` lines 586-612). Tags are coded as
`_tagging_py` says:
classes, then NLTK's ``-START-`` and ``-START2-``, then other tags of the tag dictionary. The
codes name features exactly only if no tag holds a space (``'i tag+i-2 tag A B C'`` would have
two readings) and no class is called ``-START-`` or ``-START2-``; otherwise `StringEpochs`
trains and the tagger tags token by token.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain, repeat
from typing import Any, TypeVar

import numpy as np

from .. import _backend

PerceptronTagger = Any  # tagging.PerceptronTagger (a model: not imported from below it)

EMPTY = np.uint64((1 << 64) - 1)
MIN_ROWS = 1024  # first capacity of the weights and of the hash table (tests shrink them)
MIN_KEYS = 1024
NLTK_SPEC = (1, 0, 0, 0, 0, 0, 0, 0, 0)  # _features: NLTK's 10 static keys
T = TypeVar("T")


def ordered(static: list[T], dynamic: list[T]) -> list[T]:
    """The 14 features in NLTK's template order (lines 598-611)."""
    return static[:3] + dynamic[:3] + static[3:4] + dynamic[3:] + static[4:]


def tag_codes(tagger: PerceptronTagger) -> list[str] | None:
    """Every tag's name by code, or None when codes cannot name features exactly."""
    classes = list(tagger._classes)
    if "-START-" in classes or "-START2-" in classes:
        return None
    names = classes + ["-START-", "-START2-"]
    seen = set(names)
    names += sorted({t for t in tagger.tagdict.values() if t and t not in seen})
    if any(" " in t for t in names) or len(names) >= 1 << 20:
        return None
    return names


def greedy_tables(tagger: PerceptronTagger) -> Any:
    """The greedy model's `_backend.tagging.GreedyTables` (for the twin in use), or None when
    its tags cannot be coded (`tag_codes`) or it has no model."""
    names = tag_codes(tagger) if tagger._classes else None
    if names is None:
        return None
    return _backend.tagging.GreedyTables(tagger._features, names, len(tagger._classes),
                                         *tagger._csr())


def reserve(tagger: PerceptronTagger, n: int) -> None:
    """Room for ``n`` feature rows (capacity doubles, so interning stays amortized O(1))."""
    cap = tagger._weights.shape[0]
    if n <= cap:
        return
    cap = max(n, 2 * cap, MIN_ROWS)
    for name in ("_weights", "_totals", "_stamps", "_live"):
        old = getattr(tagger, name)
        grown = np.zeros((cap, old.shape[1]), dtype=old.dtype)
        grown[:old.shape[0]] = old
        setattr(tagger, name, grown)


def _offsets(lengths: Sequence[int] | np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def dict_codes(tagdict: dict[str, str], code: dict[str, int], sentences: list[list[str]],
               n: int) -> np.ndarray:
    """The tag dictionary's code of every token of ``sentences`` (``n`` in all), or -1 (not in
    it, or NLTK's "" entry, which is no entry)."""
    by_word = {w: code[t] for w, t in tagdict.items() if t}
    return np.fromiter(map(by_word.get, chain.from_iterable(sentences), repeat(-1)),
                       dtype=np.int64, count=n)


class CodedEpochs:
    """The training sentences as codes, and one epoch per call of ``tagger_epoch``; the
    visiting ``order`` is permuted by the caller's ``random.shuffle``, as NLTK's list."""

    def __init__(self, tagger: PerceptronTagger, data: list, names: list[str]) -> None:
        self.tagger, self.names = tagger, names
        self.order = list(range(len(data)))
        words = [w for w, _ in data]
        n = sum(map(len, words))
        # the 10 static keys of every token, interned in C: the `TokenFeatures` "nltk" preset
        features = _backend.features
        vocab = features.Vocabulary()
        _, indices, _, lengths = features.extract_features(words, NLTK_SPEC, vocab, True, 0)
        if indices.shape[0] != 10 * n:
            raise AssertionError("the nltk preset must give 10 keys per token")
        self.static = indices.reshape(n, 10)
        self.strings = vocab.keys()
        self.offsets = _offsets(lengths)
        rows = tagger._rows
        self.row_of = np.array([rows.get(s, -1) for s in self.strings], dtype=np.int64)
        code = {t: k for k, t in enumerate(names)}
        self.gold = np.fromiter(map(code.__getitem__, chain.from_iterable(t for _, t in data)),
                                dtype=np.int64, count=n)
        self.dict_guess = dict_codes(tagger.tagdict, code, words, n)
        self.guesses = np.zeros_like(self.gold)
        self.row_key = np.zeros(tagger._weights.shape[0], dtype=np.int64)
        self._hash_existing(vocab, code)

    def _hash_existing(self, vocab: Any, code: dict[str, int]) -> None:
        """The hash table of the dynamic features the model already has."""
        keys, vals = [], []
        key = _backend.tagging.dynamic_key
        for row, f in enumerate(self.tagger._features):
            k = _parse_dynamic(f, code, lambda w: vocab.get("i word " + w), key)
            if k >= 0:
                keys.append(k)
                vals.append(row)
        self.keys, self.vals = _table(np.array(keys, dtype=np.uint64),
                                      np.array(vals, dtype=np.int64), 0)
        self.n_keys = len(keys)

    def run(self) -> tuple[int, int]:
        """One epoch over the sentences in the current order (NLTK lines 425-439); returns the
        number of right guesses and of tokens."""
        t = self.tagger
        routines = _backend.tagging
        order = np.array(self.order, dtype=np.int64)
        counts = np.array([t._steps, len(t._features), self.n_keys], dtype=np.int64)
        done = 0
        while done < order.shape[0]:
            done += routines.tagger_epoch(
                self.static, self.row_of, self.gold, self.dict_guess, self.offsets,
                order[done:], t._weights, t._totals, t._stamps, t._live, self.row_key,
                self.keys, self.vals, counts, self.guesses)
            self._name_rows(int(counts[1]))
            t._steps, self.n_keys = int(counts[0]), int(counts[2])
            if done < order.shape[0]:  # out of room: grow, then go on
                s = int(order[done])
                n = int(self.offsets[s + 1] - self.offsets[s])
                self._grow(int(counts[1]) + 14 * n, self.n_keys + 4 * n)
        right = int(np.count_nonzero(self.guesses == self.gold))
        return right, int(self.gold.shape[0])

    def _grow(self, rows: int, keys: int) -> None:
        t = self.tagger
        reserve(t, rows)
        grown = np.zeros(t._weights.shape[0], dtype=np.int64)
        grown[:self.row_key.shape[0]] = self.row_key
        self.row_key = grown
        if 2 * keys > self.keys.shape[0]:
            used = self.keys != EMPTY
            self.keys, self.vals = _table(self.keys[used], self.vals[used], keys)

    def _name_rows(self, n_rows: int) -> None:
        """Name the rows the routine created (NLTK's feature strings), in row order."""
        t = self.tagger
        names, strings = self.names, self.strings
        for row in range(len(t._features), n_rows):
            k = int(self.row_key[row])
            kind, low = k >> 60, k & ((1 << 60) - 1)
            if kind == 0:
                f = strings[k]
            elif kind == 1:
                f = "i-1 tag " + names[low]
            elif kind == 2:
                f = "i-2 tag " + names[low]
            elif kind == 3:
                f = f"i tag+i-2 tag {names[low >> 30]} {names[low & ((1 << 30) - 1)]}"
            else:
                f = f"i-1 tag+i word {names[low >> 36]} {strings[low & ((1 << 36) - 1)][7:]}"
            t._features.append(f)
            t._rows[f] = row


def _table(keys: np.ndarray, vals: np.ndarray, room: int) -> tuple[np.ndarray, np.ndarray]:
    """A hash table holding ``keys -> vals`` with room for ``room`` keys in all, at most half
    full (a power of two, at least `MIN_KEYS`)."""
    cap = MIN_KEYS
    while cap < 2 * max(room, keys.shape[0]):
        cap *= 2
    table = np.full(cap, EMPTY, dtype=np.uint64)
    vals_ = np.full(cap, -1, dtype=np.int64)
    _backend.tagging.hash_insert(table, vals_, keys, vals)
    return table, vals_


def _parse_dynamic(f: str, code: dict[str, int], word: Callable[[str], int],
                   key: Callable[[int, int, int, int], int]) -> int:
    """The hash key of the dynamic feature named ``f``, or -1 (not dynamic, or naming a tag
    or word the codes do not know: no token can meet it)."""
    if f.startswith("i-1 tag+i word "):
        prev, _, w = f[15:].partition(" ")
        wid = word(w)
        return key(7, code[prev], 0, wid) if prev in code and wid >= 0 else -1
    if f.startswith("i tag+i-2 tag "):
        prev, _, prev2 = f[14:].partition(" ")
        return key(5, code[prev], code[prev2], 0) if prev in code and prev2 in code else -1
    for template, head in ((3, "i-1 tag "), (4, "i-2 tag ")):
        if f.startswith(head):
            tag = f[len(head):]
            return key(template, code[tag], code[tag], 0) if tag in code else -1
    return -1


class StringEpochs:
    """The training sentences encoded once: the static features of every token as ids of a
    vocabulary (a row of the weights once NLTK would hold the feature), and the visiting
    order that ``random.shuffle`` permutes as NLTK permutes its list of sentences. Token by
    token, with strings: for tags the codes cannot name (`tag_codes`)."""

    def __init__(self, tagger: PerceptronTagger, data: list) -> None:
        self.tagger, self.data = tagger, data
        self.order = list(range(len(data)))
        vocab: dict[str, int] = {}
        self.strings: list[str] = []
        self.row_of: list[int] = []
        self.static: list[list[list[int]]] = []
        for words, _ in data:
            context = tagger._context(list(words))
            encoded = []
            for i, word in enumerate(words):
                ids = []
                for key in tagger._static_features(i, word, context):
                    vid = vocab.get(key)
                    if vid is None:
                        vid = vocab[key] = len(self.strings)
                        self.strings.append(key)
                        self.row_of.append(tagger._rows.get(key, -1))
                    ids.append(vid)
                encoded.append(ids)
            self.static.append(encoded)

    def run(self) -> tuple[int, int]:
        """One epoch over the sentences in the current order (lines 425-439); returns the
        number of right guesses and of tokens."""
        t = self.tagger
        right = seen = 0
        for s in self.order:
            words, tags = self.data[s]
            prev, prev2 = t.START
            for i, word in enumerate(words):
                guess = t.tagdict.get(word)
                if not guess:
                    guess = self._learn(self.static[s][i], prev, prev2, tags[i])
                prev2, prev = prev, guess
                right += guess == tags[i]
                seen += 1
        return right, seen

    def _learn(self, vids: list[int], prev: str, prev2: str, truth: str) -> str:
        """Predict one token, count the step, and update on a mistake."""
        t = self.tagger
        routines = _backend.tagging
        row_of = self.row_of
        dynamic = t._dynamic_features(self.strings[vids[3]], prev, prev2)
        rows = ordered([row_of[v] for v in vids], [t._rows.get(k, -1) for k in dynamic])
        scores = routines.score_rows(t._weights, np.array([r for r in rows if r >= 0],
                                                          dtype=np.int64))
        guess = t._classes[routines.best_class(scores)]
        t._steps += 1
        if guess != truth:
            keys = ordered([self.strings[v] for v in vids], dynamic)
            for k, key in enumerate(keys):  # NLTK's weights.setdefault, in template order
                if rows[k] < 0:
                    rows[k] = t._intern(key)
            for v in vids:
                row_of[v] = t._rows[self.strings[v]]
            routines.update_rows(t._weights, t._totals, t._stamps, t._live,
                                 np.array(rows, dtype=np.int64), t._class_ids[truth],
                                 t._class_ids[guess], t._steps)
        return guess
