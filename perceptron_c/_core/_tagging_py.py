"""Pure-Python routines of the greedy averaged-perceptron tagger (`perceptron_c.tagging`):
score one token, update on a mistake, average; the specification a compiled epoch will follow.

The model is the multiclass averaged perceptron ([Collins2002], sec. 2.5; [Daume2017] Alg. 7)
as NLTK's ``nltk/tag/perceptron.py`` (3.10.4) runs it: weights
``W[f, c]`` for feature row ``f`` and class ``c``, plus, for lazy averaging, ``totals[f, c]``
(the sum of ``W[f, c]`` over the steps before ``stamps[f, c]``) and ``stamps[f, c]`` (the step
``W[f, c]`` last changed). The step counter counts every token the perceptron predicted during
training (NLTK's ``AveragedPerceptron.i``, lines 224-239), mistakes or not. ``live[f, c]``
says that NLTK's dict-of-dicts holds the pair: set on an update, and after averaging where the
average is not zero (NLTK drops zero averages, line 250), so that a second ``train`` averages
exactly the pairs NLTK averages.

Arithmetic contract (bit-exact with NLTK, which the tests check against NLTK itself):

- Scores (NLTK's ``predict``, lines 207-222): NLTK adds ``value * weight`` feature by feature
  in the order of its features dict (the template order of ``_get_features``), each into the
  class's running sum, starting from 0.0. Every feature of a token is distinct (each template
  name followed by a space is a prefix of no other key), so every value is 1 and
  ``1 * weight`` is ``weight``. The sum of one class therefore runs over the token's known
  features in template order; the order of the classes inside a feature's dict does not
  matter. `score_rows` adds the rows of ``W`` in the order given with ``np.add.accumulate``,
  which is sequential by definition (``np.add.reduce`` is not: on one column it sums
  pairwise). Adding a zero (a pair NLTK does not hold) leaves a sum unchanged, and no weight is
  ever -0.0 (``w + v`` of integers, and NLTK drops a rounded -0.0 average as falsy).
- Choice (line 218): ``max(classes, key=(score, label))``: the highest score, ties to the
  greatest label. The classes are interned in sorted order, so `best_class` takes the last
  index of the maximum.
- Update (lines 224-239): the counter is incremented first, then for each feature
  ``totals += (now - stamps) * W; stamps = now; W += v``, v = +1 for the truth, -1 for the
  guess; an int times a float is the float product, as numpy computes it.
- Average (lines 241-252): ``round((totals + (now - stamps) * W) / now, 3)`` with Python's
  ``round`` (correctly rounded from the exact binary value; ``np.round`` scales by 1000 first
  and differs, e.g. on 2.675 to 2 places), on the live pairs only; zeros are dropped.
  `average` runs once per ``train``, so the C twin uses this one (Python's ``round``).

Whole epochs (`tagger_epoch`) run on integer codes; `GreedyTables` tags Python tokens. Tags:
the class ids ``0..K-1``, then ``K`` for NLTK's ``-START-`` and ``K+1`` for ``-START2-``,
then any other tag of the tag dictionary. The 10 static features of a token (template slots
0, 1, 2, 6, 8-13) are rows known in advance (or ids of a vocabulary, -1 rows until NLTK
would create them); the 4 dynamic ones (slots 3, 4, 5, 7: 'i-1 tag P', 'i-2 tag Q',
'i tag+i-2 tag P Q', 'i-1 tag+i word P W') are found by `dynamic_key` in an open-addressing
hash table (``keys``: uint64, `EMPTY` where free; ``vals``: the row; linear probing from the
splitmix64 hash of the key). Keys are exact (template, codes and word id packed without
overlap), so two features share a key only if they are the same feature.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._contract import need
from ._features_py import normalize
from ._tokens_py import check_features, check_names, check_sentences, check_tagdict, check_tokens

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    from ._contract import _D, _I64

    _I: TypeAlias = npt.NDArray[np.int64]
    _B: TypeAlias = npt.NDArray[np.bool_]
    _U: TypeAlias = npt.NDArray[np.uint64]

__all__ = ["score_rows", "best_class", "update_rows", "average", "dynamic_key", "hash_insert",
           "tagger_epoch", "GreedyTables"]


def score_rows(weights: _D, rows: _I) -> _D:
    """The score of every class: the rows ``weights[rows]`` summed one after the other in the
    order of ``rows``, from 0.0 (NLTK's ``predict``, ``nltk/tag/perceptron.py`` lines 209-215).
    """
    if rows.shape[0] == 0:
        return np.zeros(weights.shape[1])
    # accumulate is a running sum by definition: row by row, whatever the shape
    return np.add.accumulate(weights[rows], axis=0)[-1]


def best_class(scores: _D) -> int:
    """The index of the highest score, ties to the highest index (the greatest label of the
    sorted classes: NLTK's ``max(classes, key=lambda label: (scores[label], label))``)."""
    n = scores.shape[0]
    return n - 1 - int(np.argmax(scores[::-1]))


def update_rows(weights: _D, totals: _D, stamps: _I, live: _B, rows: _I, truth: int,
                guess: int, now: int) -> None:
    """One mistake at step ``now`` (already counted): +1 to the truth's weights of ``rows``, -1
    to the guess's, each pair's total brought up to ``now`` first (NLTK's ``update``, lines
    224-239; [Daume2017] Alg. 7 with lazy averaging). ``rows`` are distinct, ``truth != guess``."""
    for column, step in ((truth, 1.0), (guess, -1.0)):
        w = weights[rows, column]
        totals[rows, column] += (now - stamps[rows, column]) * w
        stamps[rows, column] = now
        weights[rows, column] = w + step
        live[rows, column] = True


def average(weights: _D, totals: _D, stamps: _I, live: _B, now: int) -> None:
    """Replace ``weights`` by the averages of the live pairs over ``now`` steps, rounded to 3
    decimals as Python's ``round`` does; pairs that average to zero are no longer live (NLTK's
    ``average_weights``, lines 241-252). ``totals`` and ``stamps`` stay as they are, as NLTK's
    do. At ``now == 0`` (nothing was predicted: NLTK would divide by zero) nothing changes."""
    if now == 0:
        return
    where = np.nonzero(live)
    total = totals[where] + (now - stamps[where]) * weights[where]
    rounded = np.array([round(v, 3) for v in (total / now).tolist()], dtype=np.float64)
    weights[...] = 0.0
    # a rounded -0.0 is dropped (falsy in NLTK): storing it would make a later sum -0.0
    kept = rounded != 0.0
    weights[where[0][kept], where[1][kept]] = rounded[kept]
    live[...] = False
    live[where[0][kept], where[1][kept]] = True


EMPTY = (1 << 64) - 1
_M64 = EMPTY
N_TEMPLATES = 14
# the template slot of each static feature, and of each dynamic one (nltk lines 598-611)
STATIC_SLOTS = (0, 1, 2, 6, 8, 9, 10, 11, 12, 13)
DYNAMIC_SLOTS = (3, 4, 5, 7)


def dynamic_key(template: int, prev: int, prev2: int, word: int) -> int:
    """The hash key of a dynamic feature: ``template`` 3 ('i-1 tag P'), 4 ('i-2 tag Q'),
    5 ('i tag+i-2 tag P Q') or 7 ('i-1 tag+i word P W'); tag codes below 2**24, word ids
    below 2**36. Static features use their id itself as key (below 2**36)."""
    if template == 3:
        return (1 << 60) | prev
    if template == 4:
        return (2 << 60) | prev2
    if template == 5:
        return (3 << 60) | (prev << 30) | prev2
    return (4 << 60) | (prev << 36) | word


def _slot0(key: int, mask: int) -> int:
    """splitmix64's finalizer (Steele, Lea & Flood 2014), masked: the first slot probed."""
    z = key
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return (z ^ (z >> 31)) & mask


def _find(keys: _U, vals: _I, key: int) -> int:
    """The row of ``key``, or -1 (linear probing; the table is never full)."""
    mask = keys.shape[0] - 1
    j = _slot0(key, mask)
    while True:
        k = int(keys[j])
        if k == key:
            return int(vals[j])
        if k == EMPTY:
            return -1
        j = (j + 1) & mask


def _put(keys: _U, vals: _I, key: int, val: int) -> None:
    mask = keys.shape[0] - 1
    j = _slot0(key, mask)
    while int(keys[j]) != EMPTY:
        j = (j + 1) & mask
    keys[j] = key
    vals[j] = val


def hash_insert(keys: _U, vals: _I, new_keys: _U, new_vals: _I) -> None:
    """Insert ``new_keys[i] -> new_vals[i]``, in order, into the table ``keys``/``vals`` (all
    `EMPTY` or filled by this function and `tagger_epoch`; a power-of-two size that stays
    at least half free). The keys must not be in the table yet."""
    _check_table(keys, vals, new_keys.shape[0])
    if new_vals.shape[0] != new_keys.shape[0]:
        raise ValueError("new_vals must have one entry per new key")
    for key, val in zip(new_keys.tolist(), new_vals.tolist()):
        _put(keys, vals, key, val)


def _check_table(keys: _U, vals: _I, extra: int) -> None:
    cap = keys.shape[0]
    if cap < 2 or cap & (cap - 1) or vals.shape[0] != cap:
        raise ValueError("keys and vals must have the same power-of-two length")
    if 2 * (int(np.count_nonzero(keys != EMPTY)) + extra) > cap:
        raise ValueError("keys would be more than half full")


def _token_rows(static_rows: list[int], dynamic_rows: list[int]) -> list[int]:
    """The 14 rows of a token in template order (NLTK's ``_get_features``)."""
    rows = [-1] * N_TEMPLATES
    for slot, row in zip(STATIC_SLOTS, static_rows):
        rows[slot] = row
    for slot, row in zip(DYNAMIC_SLOTS, dynamic_rows):
        rows[slot] = row
    return rows


def _predict(weights: _D, rows: list[int]) -> int:
    return best_class(score_rows(weights, np.array([r for r in rows if r >= 0],
                                                   dtype=np.int64)))


def tagger_epoch(static: _I, row_of: _I, gold: _I, dict_guess: _I, offsets: _I, order: _I,
                 weights: _D, totals: _D, stamps: _I, live: _B, row_key: _I, keys: _U,
                 vals: _I, counts: _I, guesses: _I) -> int:
    """One greedy training epoch of NLTK's tagger (``train``, lines 425-439) over the
    sentences ``order`` (sentence ``s`` is tokens ``offsets[s]:offsets[s+1]``), in place.

    ``static[t]``: the 10 static feature ids of token ``t`` (static slot order; slot 3 is
    'i word W', whose id is the word of template 7); ``row_of[id]``: its row or -1.
    ``gold[t]``: the class of the truth; ``dict_guess[t]``: the tag dictionary's tag code,
    or -1 to predict. ``counts`` = [steps, rows used, keys used]. A token predicted counts
    a step; on a mistake its missing features become rows, in template order (NLTK's
    ``setdefault``), ``row_key[row]`` recording the feature (its id, or its `dynamic_key`),
    then `update_rows`. ``guesses[t]`` receives the tag code guessed. Stops before a
    sentence of ``n`` tokens when fewer than ``14 n`` rows or ``4 n`` keys (the table kept
    at most half full) are free; returns the number of sentences of ``order`` done."""
    n_classes = weights.shape[1]
    _check_table(keys, vals, 0)
    steps, n_rows, n_keys = (int(v) for v in counts[:3])
    done = 0
    for s in order.tolist():
        first, stop = int(offsets[s]), int(offsets[s + 1])
        n = stop - first
        if n_rows + 14 * n > weights.shape[0] or 2 * (n_keys + 4 * n) > keys.shape[0]:
            break
        prev, prev2 = n_classes, n_classes + 1
        for t in range(first, stop):
            guess = int(dict_guess[t])
            if guess < 0:
                ids = static[t].tolist()
                dkeys = [dynamic_key(slot, prev, prev2, ids[3]) for slot in DYNAMIC_SLOTS]
                rows = _token_rows([int(row_of[v]) for v in ids],
                                   [_find(keys, vals, k) for k in dkeys])
                guess = _predict(weights, rows)
                steps += 1
                truth = int(gold[t])
                if guess != truth:
                    fkeys = _token_rows(ids, dkeys)
                    for slot in range(N_TEMPLATES):  # NLTK's weights.setdefault, in order
                        if rows[slot] < 0:
                            rows[slot] = n_rows
                            row_key[n_rows] = fkeys[slot]
                            if slot in DYNAMIC_SLOTS:
                                _put(keys, vals, fkeys[slot], n_rows)
                                n_keys += 1
                            else:
                                row_of[fkeys[slot]] = n_rows
                            n_rows += 1
                    update_rows(weights, totals, stamps, live, np.array(rows, dtype=np.int64),
                                truth, guess, steps)
            guesses[t] = guess
            prev2, prev = prev, guess
        done += 1
    counts[:3] = (steps, n_rows, n_keys)
    return done


# ---- tagging Python tokens: the greedy tables (the structured tagger's: _tokens_py)
START, END = ("-START-", "-START2-"), ("-END-", "-END2-")


def _check_rows(indptr: Any, columns: Any, values: Any, rows: int, n_classes: int) -> None:
    """CSR rows of weights: ``rows`` of them, class columns, float64 values."""
    arrays = (indptr, columns, values)
    ok = all(isinstance(a, np.ndarray) and a.ndim == 1 and a.flags.c_contiguous for a in arrays)
    need(ok and indptr.dtype == np.int64 and indptr.shape[0] == rows + 1 and indptr[0] == 0
         and bool((indptr[1:] >= indptr[:rows]).all()) and indptr[rows] == columns.shape[0],
         "indptr must be contiguous int64, one more entry than features, from 0 up to the "
         "entries")
    need(columns.dtype == np.int64 and n_classes >= 1 and
         bool(((columns >= 0) & (columns < n_classes)).all()),
         "columns must be int64 classes in [0, n_classes)")
    need(values.dtype == np.float64 and values.shape == columns.shape,
         "values must be float64, one per entry of columns")


class GreedyTables:
    """A trained greedy tagger prepared for tagging Python tokens: NLTK's ``tag`` (lines
    381-401) on whole sentences in one call. Read only once made, so any number of threads
    may tag with it at once.

    ``features[r]`` names row ``r`` of ``weights`` (NLTK's feature strings, distinct);
    ``names`` the tags by code: the ``n_classes`` classes (the columns of the weights, in
    sorted order), then ``-START-`` and ``-START2-``, then any other tag the tag dictionary
    may give; no name holds a space, so every feature string has one reading. The weights
    are CSR rows (``indptr``, ``columns``, ``values``): row ``r`` is the weights NLTK holds
    for feature ``r``, a pair it does not hold being zero. Each token takes its tag from
    ``tagdict`` (a dict, or None for none) when it gives a truthy value, which must be one
    of ``names`` (else KeyError: the caller prepares new tables); otherwise its 14 features
    in NLTK's template order select rows, whose entries are added to their class's score in
    that order from 0.0 (NLTK's ``predict``: a pair not held adds nothing, as `score_rows`'
    zeros add nothing), and `best_class` picks the tag. Arrays are not copied: a model that
    changes makes new tables."""

    def __init__(self, features: list[str], names: list[str], n_classes: int,
                 indptr: _I64, columns: _I64, values: _D) -> None:
        check_features(features)
        _check_rows(indptr, columns, values, len(features), n_classes)
        check_names(names, n_classes + 2, "the classes, then -START- and -START2-")
        need(names[n_classes:n_classes + 2] == list(START),
             "names must hold the classes, then -START- and -START2-")
        need(not any(" " in t for t in names), "names must not hold a space")
        self._rows = {f: r for r, f in enumerate(features)}
        self._names, self._n_classes = list(names), n_classes
        self._csr = (indptr.tolist(), columns.tolist(), values.tolist())
        self._known = set(names)

    def tag_sentence(self, tokens: list[str], tagdict: dict[str, Any] | None
                     ) -> list[tuple[str, str]]:
        """``[(word, tag), ...]`` for the list of str ``tokens``."""
        check_tokens(tokens, "tokens")
        check_tagdict(tagdict)
        return self._tag(tokens, tagdict)

    def tag_sentences(self, sentences: list[list[str]], tagdict: dict[str, Any] | None
                      ) -> list[list[tuple[str, str]]]:
        """`tag_sentence` of every list of ``sentences``."""
        return [self._tag(tokens, tagdict) for tokens in check_sentences(sentences, tagdict)]

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
        indptr, columns, values = self._csr
        scores = [0.0] * self._n_classes
        for r in (get(k, -1) for k in keys):
            if r >= 0:
                for p in range(indptr[r], indptr[r + 1]):
                    scores[columns[p]] += values[p]
        return self._names[best_class(np.array(scores))]
