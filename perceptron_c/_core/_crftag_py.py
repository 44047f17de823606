"""Python twin (the specification) of ``_crftag_c``: CRFsuite's crf1d tagging of one item
sequence, from its feature names to its best labels, as CRFsuite 0.12 computes it
(``lib/crf/src/crf1d_tag.c``, ``crf1d_context.c``) and ``perceptron_c.crfsuite._decode``
computes it on numpy.

Reading (python-crfsuite's ``to_item``): an item is a dict or an iterable of names; in a dict,
a value that is a dict, list or set is read with ``"name:"`` before its names, a str (or
bytes) value ``v`` is the name ``"name:v"`` of value 1.0, any other value is ``float(value)``;
a name in a list is of value 1.0; bytes names are read as UTF-8. A name the model does not
know is dropped, as CRFsuite drops it. `pack` reads a sequence once, for any number of
decodings in any model (a `Packed`: what an ``ItemSequence`` holds).

Arithmetic contract (to the bit, in both twins):
- state scores: ``state[t, l]`` starts at 0.0 and, for each known attribute of item t in the
  item's order and each of its state features in the model's order, gets ``+= weight *
  value`` (``crf1dt_state_score``);
- Viterbi (``crf1dc_viterbi``): ``delta_0 = state[0]``; ``delta_t[j] = (delta_{t-1}[i*] +
  trans[i*, j]) + state[t, j]``, ``i*`` the first index whose candidate is not below any
  other (numpy's ``argmax``: a NaN candidate, the first one, wins, as it does there); the
  last label likewise; the score is ``delta_{T-1}`` at the last label.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Decoder", "Packed", "dict_features", "pack"]


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bytes):
        return key.decode("utf-8")
    raise TypeError(f"a feature name must be str or bytes, got {type(key).__name__}")


def _number(value: Any) -> float:
    """A prepared value as C reads a double: a str or bytes is no number."""
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


def _read(x: Any, prefix: str, out: list[tuple[str, float]]) -> None:
    """The (name, value) pairs of the raw item x, each name after ``prefix``."""
    if not isinstance(x, dict):
        for key in x:
            out.append((prefix + _key(key), 1.0))
        return
    for key, value in x.items():
        name = prefix + _key(key)
        if isinstance(value, (dict, list, set)):
            _read(value, name + ":", out)
        elif isinstance(value, (str, bytes)):
            out.append((name + ":" + _key(value), 1.0))
        else:
            out.append((name, float(value)))


def _pairs(items: list, prepared: bool) -> list[list[tuple[str, float]]]:
    if prepared:
        return [[(_key(name), _number(value)) for name, value in item] for item in items]
    out = []
    for item in items:
        pairs: list[tuple[str, float]] = []
        _read(item, "", pairs)
        out.append(pairs)
    return out


class Packed:
    """The names of an item sequence, read once (`pack`): what `Decoder.state` and
    `Decoder.tag` take in place of a list, never changed after.

    Parameters
    ----------
    pairs : list of list of (str, float)
        Each item's (name, value) pairs, in reading order.
    """

    def __init__(self, pairs: list[list[tuple[str, float]]]) -> None:
        self._pairs = pairs

    def __len__(self) -> int:
        return len(self._pairs)

    def pairs(self) -> list[list[tuple[str, float]]]:
        """Each item's (name, value) pairs, a new list."""
        return [list(item) for item in self._pairs]


def pack(items: list, prepared: bool) -> Packed:
    """The names of ``items`` (raw items, or (name, value) pairs when ``prepared``), read
    once for any number of `Decoder` calls, in any model."""
    if type(items) is not list:
        raise TypeError(f"items must be a list, got {type(items).__name__}")
    return Packed(_pairs(items, prepared))


def dict_features(sentences: list, vocab: Any, grow: bool,
                  n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The CSR rows of every token of ``sentences`` and the sentence lengths: ``(data,
    indices, indptr, lengths)``. Each sentence is a list of items, each item read as
    CRFsuite reads it (`pack`): a dict of name to value (a str value makes the name
    ``"name:value"`` of value 1.0, a number its float, a nested dict, list or set names
    joined with ``":"``) or a list of names (1.0 each); a str or bytes item is a TypeError
    (CRFsuite would read its characters as names).

    With ``n_features`` 0 the names are interned in ``vocab`` (a `_features_py.Vocabulary`):
    a name it lacks is added (next id) when ``grow``, else dropped; growing counts each
    occurrence. A row holds its names' columns in reading order (a name twice, twice). With
    ``n_features`` > 0 each name's column is its 64-bit FNV-1a hash (UTF-8 bytes, as
    ``_features_py.fnv1a``) modulo ``n_features``; a row holds each of its columns once, in
    increasing order, its value the sum of the values of the names hashed to it, added in
    reading order; ``vocab`` is ignored.
    """
    from ._features_py import check_vocab, csr_arrays, fnv1a, interned_row

    if type(sentences) is not list:
        raise TypeError(f"sentences must be a list of lists of feature dicts, got "
                        f"{type(sentences).__name__}")
    check_vocab(vocab, n_features)
    data: list[float] = []
    indices: list[int] = []
    indptr, lengths = [0], []
    for s, sentence in enumerate(sentences):
        if type(sentence) is not list:
            raise TypeError(f"sentences[{s}] must be a list of feature dicts, got "
                            f"{type(sentence).__name__}")
        for t, item in enumerate(sentence):
            if isinstance(item, (str, bytes)):
                raise TypeError(f"sentences[{s}][{t}] must be a dict of features or a list "
                                f"of names, got {type(item).__name__}")
        for pairs in _pairs(sentence, False):
            if n_features:
                sums: dict[int, float] = {}
                for name, value in pairs:
                    col = fnv1a(name) % n_features
                    sums[col] = sums[col] + value if col in sums else value
                indices += sorted(sums)
                data += [sums[col] for col in sorted(sums)]
            else:
                interned_row([name for name, _ in pairs], vocab, grow, indices, data,
                             [value for _, value in pairs])
            indptr.append(len(indices))
        lengths.append(len(sentence))
    return csr_arrays(data, indices, indptr, lengths)


class Decoder:
    """The tagging tables of one opened model, read-only, shared by every thread.

    Parameters
    ----------
    index : dict of str to int
        Attribute name -> attribute id.
    labels : tuple of str
        The label names, by id.
    attr_ptr, attr_label, attr_weight : int64, int64, float64 arrays
        The state features grouped by attribute (CSR): those of attribute ``a`` are
        ``attr_ptr[a]:attr_ptr[a + 1]``, with their labels and weights.
    trans : float64 array of shape (L, L)
        The transition weights, previous label by row.
    """

    def __init__(self, index: dict, labels: tuple, attr_ptr: np.ndarray,
                 attr_label: np.ndarray, attr_weight: np.ndarray, trans: np.ndarray) -> None:
        L, A = len(labels), attr_ptr.shape[0] - 1
        if L == 0 or trans.shape != (L, L) or A < 0 or attr_label.shape != attr_weight.shape \
                or attr_ptr[0] != 0 or attr_ptr[A] != attr_weight.shape[0] or not all(
                type(a) is int and 0 <= a < A for a in index.values()) or np.any(
                np.diff(attr_ptr) < 0) or np.any((attr_label < 0) | (attr_label >= L)):
            raise ValueError("Decoder: the arrays do not agree with the index and the labels")
        self._index, self._labels = index, tuple(labels)
        self._ptr = [int(p) for p in attr_ptr]
        self._label = [int(p) for p in attr_label]
        self._weight = [float(w) for w in attr_weight]
        self._trans = [[float(w) for w in row] for row in trans]

    def state(self, items: list | Packed, prepared: bool) -> np.ndarray:
        """The (T, L) float64 state scores of ``items``: raw items (dicts, lists of names),
        or when ``prepared`` lists of (name, value) pairs (an ``ItemSequence``'s), or a
        `Packed` (``prepared`` then unused)."""
        if isinstance(items, Packed):
            pairs = items._pairs
        elif type(items) is list:
            pairs = _pairs(items, prepared)
        else:
            raise TypeError(f"items must be a list or a Packed, got {type(items).__name__}")
        L = len(self._labels)
        state = np.zeros((len(pairs), L), dtype=np.float64)
        for t, item in enumerate(pairs):
            row = [0.0] * L
            for name, v in item:
                a = self._index.get(name)
                if a is None:
                    continue
                for f in range(self._ptr[a], self._ptr[a + 1]):
                    row[self._label[f]] += self._weight[f] * v
            state[t] = row
        return state

    def best(self, state: np.ndarray) -> tuple[list[str], float]:
        """The best labels of ``state`` (T >= 1 rows) and the path's score."""
        T, L = state.shape
        if T < 1 or L != len(self._labels):
            raise ValueError(f"state must have shape (T >= 1, {len(self._labels)})")
        rows = state.tolist()
        trans = self._trans
        cur = rows[0]
        back = [[0] * L for _ in range(T)]
        for t in range(1, T):
            nxt = [0.0] * L
            for j in range(L):
                i_best = _first_max([cur[i] + trans[i][j] for i in range(L)])
                back[t][j] = i_best
                nxt[j] = (cur[i_best] + trans[i_best][j]) + rows[t][j]
            cur = nxt
        last = _first_max(cur)
        path = [last]
        for t in range(T - 1, 0, -1):
            path.append(back[t][path[-1]])
        path.reverse()
        return [self._labels[i] for i in path], cur[last]

    def tag(self, items: list | Packed, prepared: bool) -> tuple[np.ndarray, list[str], float]:
        """`state` then `best`: (state scores, best labels, score); T >= 1 items."""
        if isinstance(items, (list, Packed)) and not len(items):
            raise ValueError("tag needs at least one item")
        state = self.state(items, prepared)
        labels, score = self.best(state)
        return state, labels, score

    def decode(self, items: list | Packed, prepared: bool) -> tuple[list[str], float]:
        """`tag` without the state scores: (best labels, score); T >= 1 items."""
        if isinstance(items, (list, Packed)) and not len(items):
            raise ValueError("decode needs at least one item")
        return self.best(self.state(items, prepared))


def _first_max(values: list[float]) -> int:
    """numpy's argmax: the first maximum, or the first NaN."""
    best, top = 0, values[0]
    if top != top:
        return 0
    for i in range(1, len(values)):
        if not values[i] <= top:
            best, top = i, values[i]
            if top != top:
                break
    return best
