"""Synthetic sequence-labeling sets from a hidden Markov model with a known tagging, behind
`perceptron_c.datasets.make_sequences` and ``make_tagged_sentences``.

Every distribution is a row of small integer weights (sums exact, no BLAS), and each draw is
``floor(u * total)`` for one ``Generator.random`` value ``u`` looked up in the row's integer
cumulative sums: one float product, exactly rounded on every machine, so a seed gives the same
set wherever numpy's ``random``, ``integers`` and ``permutation`` streams are the same.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

__all__ = ["make_sequences", "make_tagged_sentences"]

_CONSONANTS = "ptkbdgmnlrsvz"
_VOWELS = "aeiou"
_SYLLABLES = [c + v for c in _CONSONANTS for v in _VOWELS]  # 65 open syllables
_CODAS = [v + c for v in _VOWELS for c in "nktsrmlx"]  # 40 tag endings


def _count(value: Any, name: str, low: int) -> int:
    """``value`` as an int >= ``low``; TypeError or ValueError naming ``name``."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r}") from None
    if number < low:
        raise ValueError(f"{name} must be >= {low}, got {number}")
    return number


def _check_arguments(n_sentences: Any, n_tags: Any, n_symbols: Any, length_range: Any,
                     ambiguity: Any) -> tuple[int, int, int, int, int, float]:
    n_sentences = _count(n_sentences, "n_sentences", 1)
    n_tags = _count(n_tags, "n_tags", 2)
    n_symbols = _count(n_symbols, "n_symbols", 1)
    if n_symbols < n_tags:
        raise ValueError(f"n_symbols must be >= n_tags={n_tags} (each tag owns a symbol), "
                         f"got {n_symbols}")
    try:
        shortest, longest = length_range
    except (TypeError, ValueError):
        raise TypeError("length_range must be a pair (shortest, longest) of integers, got "
                        f"{length_range!r}") from None
    shortest = _count(shortest, "length_range[0]", 1)
    longest = _count(longest, "length_range[1]", 1)
    if longest < shortest:
        raise ValueError(f"length_range must have shortest <= longest, got {length_range!r}")
    if isinstance(ambiguity, bool) or not isinstance(ambiguity, (int, float, np.floating)) \
            or not 0.0 <= float(ambiguity) <= 1.0:
        raise ValueError(f"ambiguity must be a number in [0, 1], got {ambiguity!r}")
    return n_sentences, n_tags, n_symbols, shortest, longest, float(ambiguity)


def _hmm_weights(rng: np.random.Generator, n_tags: int, n_symbols: int,
                 ambiguity: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integer weights of the start, transition and emission distributions, and each
    symbol's owner tag. Each tag has a likely successor (weight 2 n_tags) and a second one
    (n_tags) over a floor of 1, so transitions say much about the next tag; each symbol is
    owned by one tag, and a share ``ambiguity`` of them is emitted as often by a second tag."""
    start = rng.integers(1, 5, size=n_tags).astype(np.int64)
    transition = np.ones((n_tags, n_tags), dtype=np.int64)
    rows = np.arange(n_tags)
    transition[rows, rng.permutation(n_tags)] += 2 * n_tags
    transition[rows, rng.permutation(n_tags)] += n_tags
    owner = rng.permutation(np.arange(n_symbols) % n_tags)
    frequency = rng.integers(1, 9, size=n_symbols).astype(np.int64)
    emission = np.zeros((n_tags, n_symbols), dtype=np.int64)
    emission[owner, np.arange(n_symbols)] = frequency
    # a second tag emits an ambiguous symbol as often: the symbol alone cannot say which
    shared = rng.random(n_symbols) < ambiguity
    second = (owner + rng.integers(1, n_tags, size=n_symbols)) % n_tags
    emission[second[shared], np.flatnonzero(shared)] = frequency[shared]
    return start, transition, emission, owner


def _draw(rng: np.random.Generator, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """One category per entry of ``rows``, from the integer weight rows ``weights[rows]``:
    ``floor(u * total)`` looked up in the row's cumulative sums (exact integers)."""
    u = np.asarray(rng.random(rows.shape[0]), dtype=np.float64)
    cumulative = np.cumsum(weights, axis=1)
    out = np.empty(rows.shape[0], dtype=np.int64)
    for row in range(weights.shape[0]):
        where = np.flatnonzero(rows == row)
        if where.size:
            ticket = np.floor(u[where] * float(cumulative[row, -1])).astype(np.int64)
            out[where] = np.searchsorted(cumulative[row], ticket, side="right")
    return out


def _sample(rng: np.random.Generator, n_sentences: int, n_tags: int, n_symbols: int,
            length_range: Any, ambiguity: float) -> dict[str, np.ndarray]:
    """The HMM (integer weights) and one draw of it: tags, symbols and lengths."""
    n_sentences, n_tags, n_symbols, shortest, longest, ambiguity = _check_arguments(
        n_sentences, n_tags, n_symbols, length_range, ambiguity)
    start, transition, emission, owner = _hmm_weights(rng, n_tags, n_symbols, ambiguity)
    lengths = rng.integers(shortest, longest + 1, size=n_sentences).astype(np.int64)
    grid = np.full((n_sentences, longest), -1, dtype=np.int64)
    grid[:, 0] = _draw(rng, start[None, :], np.zeros(n_sentences, dtype=np.int64))
    for position in range(1, int(lengths.max())):
        active = np.flatnonzero(lengths > position)
        grid[active, position] = _draw(rng, transition, grid[active, position - 1])
    tags = grid[np.arange(longest)[None, :] < lengths[:, None]]  # sentence after sentence
    symbols = _draw(rng, emission, tags)
    return {"start": start, "transition": transition, "emission": emission, "owner": owner,
            "tags": tags, "symbols": symbols, "lengths": lengths}


def _window_features(symbols: np.ndarray, lengths: np.ndarray, n_symbols: int,
                     window: int) -> Any:
    """One-hot rows: block 0 the token's symbol, block 2k-1 the symbol k tokens before, block
    2k the symbol k tokens after (k = 1..window; nothing where that is outside the sentence).
    scipy CSR when scipy is installed, else a dense float64 array."""
    n_tokens = symbols.shape[0]
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(n_tokens) - starts
    length = np.repeat(lengths, lengths)
    columns = [symbols[:, None]]
    for k in range(1, window + 1):
        before = np.where(position >= k, symbols[np.maximum(np.arange(n_tokens) - k, 0)], -1)
        after = np.where(position + k < length,
                         symbols[np.minimum(np.arange(n_tokens) + k, n_tokens - 1)], -1)
        columns += [np.where(before >= 0, before + (2 * k - 1) * n_symbols, -1)[:, None],
                    np.where(after >= 0, after + 2 * k * n_symbols, -1)[:, None]]
    cells = np.hstack(columns)  # increasing by block, so each row's indices are sorted
    present = cells >= 0
    indices = cells[present]
    indptr = np.concatenate([[0], np.cumsum(present.sum(axis=1))]).astype(np.int64)
    n_features = n_symbols * (2 * window + 1)
    try:
        import scipy.sparse
    except ImportError:
        dense = np.zeros((n_tokens, n_features))
        dense[np.repeat(np.arange(n_tokens), np.diff(indptr)), indices] = 1.0
        return dense
    return scipy.sparse.csr_matrix((np.ones(indices.shape[0]), indices, indptr),
                                   shape=(n_tokens, n_features))


def _tag_names(n_tags: int) -> np.ndarray:
    return np.array([f"T{k}" for k in range(n_tags)])


def make_sequences(rng: np.random.Generator | int | None, n_sentences: int, n_tags: int = 5,
                   n_symbols: int = 100, *, length_range: tuple[int, int] = (5, 25),
                   ambiguity: float = 0.3, window: int = 0, labels: str = "int",
                   return_hmm: bool = False) -> tuple[Any, ...]:
    """Sentences drawn from a hidden Markov model with a known tagging, as a sequence learner
    takes them: one feature row per token, tags per token, and the sentence lengths.

    The model is drawn from ``rng`` too. Transitions are peaked (each tag has a likely
    successor and a second one), so the previous tag says much about the next; each symbol
    is emitted by the tag that owns it, and a share ``ambiguity`` of the symbols as often by
    a second tag, so no per-token classifier of the symbol alone reaches 100% while Viterbi
    decoding with the transitions does better.

    Parameters
    ----------
    rng : numpy.random.Generator, int or None
        The generator, or a seed for ``numpy.random.default_rng``. A seed gives the same set
        on every machine (integer weights, no float sums).
    n_sentences : int
        Number of sentences, >= 1.
    n_tags : int, default 5
        Number of tags (hidden states), >= 2.
    n_symbols : int, default 100
        Vocabulary size (emitted symbols), >= ``n_tags``; each tag owns at least one.
    length_range : (int, int), default (5, 25)
        Shortest and longest sentence, inclusive; lengths are uniform in between.
    ambiguity : float, default 0.3
        Expected share of the symbols that a second tag emits as often as their owner.
    window : int, default 0
        Neighbours on each side encoded in X (see Returns).
    labels : {"int", "str"}, default "int"
        Tags as int64 indices ``0 .. n_tags - 1``, or as strings ``"T0"``, ``"T1"``...
    return_hmm : bool, default False
        Also return the model and the emitted symbols.

    Returns
    -------
    X : scipy.sparse.csr_matrix or numpy.ndarray of shape (n_tokens, n_symbols * (2 window + 1))
        One-hot rows (float64): columns ``[0, n_symbols)`` the token's symbol; block
        ``2k - 1`` the symbol ``k`` tokens before, block ``2k`` the one ``k`` after, for
        ``k = 1 .. window``, left empty outside the sentence. CSR when scipy is installed,
        else dense. Sentences follow one another, each in order.
    y : numpy.ndarray of shape (n_tokens,)
        The tag of each token (int64 or str, see ``labels``).
    lengths : numpy.ndarray of shape (n_sentences,), int64
        Sentence lengths; they sum to ``n_tokens``.
    hmm : dict, only with ``return_hmm=True``
        ``"start"`` (n_tags,), ``"transition"`` (n_tags, n_tags; row: from, column: to) and
        ``"emission"`` (n_tags, n_symbols) as float64 probabilities, ``"symbols"`` (the
        int64 symbol of each token) and ``"tags"`` (the tag names, index order).

    Raises
    ------
    TypeError
        A count or ``length_range`` that is not made of integers.
    ValueError
        An argument out of range, naming it.
    """
    if labels not in ("int", "str"):
        raise ValueError(f"labels must be 'int' or 'str', got {labels!r}")
    window = _count(window, "window", 0)
    draw = _sample(np.random.default_rng(rng), n_sentences, n_tags, n_symbols, length_range,
                   ambiguity)
    n_tags, n_symbols = draw["emission"].shape
    X = _window_features(draw["symbols"], draw["lengths"], n_symbols, window)
    names = _tag_names(n_tags)
    y = names[draw["tags"]] if labels == "str" else draw["tags"]
    if not return_hmm:
        return X, y, draw["lengths"]
    hmm = {name: draw[name] / draw[name].sum(axis=-1, keepdims=True)
           for name in ("start", "transition", "emission")}
    hmm.update(symbols=draw["symbols"], tags=names)
    return X, y, draw["lengths"], hmm


def _lexicon(rng: np.random.Generator, owner: np.ndarray, n_tags: int) -> list[str]:
    """One distinct word per symbol: a stem of two or more syllables, unique by construction
    (the base-65 digits of a shuffled index, lowest first), then the owner tag's ending;
    tag 0's words are capitalized, like names."""
    n_symbols = owner.shape[0]
    base = len(_SYLLABLES)
    order = rng.permutation(n_symbols)
    ending_order = rng.permutation(max(n_tags, len(_CODAS)))
    endings = []
    for tag in range(n_tags):
        code, ending = int(ending_order[tag]), ""
        while True:
            code, digit = divmod(code, len(_CODAS))
            ending = _CODAS[digit] + ending
            if code == 0:
                break
        endings.append(ending)
    words = []
    for symbol in range(n_symbols):
        index, stem = int(order[symbol]), ""
        while index or len(stem) < 4:  # lowest digit first: the first syllable varies most
            index, digit = divmod(index, base)
            stem += _SYLLABLES[digit]
        word = stem + endings[owner[symbol]]
        words.append(word.capitalize() if owner[symbol] == 0 else word)
    return words


def make_tagged_sentences(rng: np.random.Generator | int | None, n_sentences: int,
                          n_tags: int = 5, n_symbols: int = 100, *,
                          length_range: tuple[int, int] = (5, 25),
                          ambiguity: float = 0.3) -> list[list[tuple[str, str]]]:
    """The sentences of `make_sequences` as words and tags, for taggers that take tokens.

    With the same arguments it draws the same model and the same tagging as
    ``make_sequences`` (``labels="str"``): the word of a token stands for its symbol. Words
    are made of syllables and end in an ending of the tag that owns them (so suffixes carry
    the signal a real tagger's suffix features use); the words of tag ``T0`` are
    capitalized. An ambiguous word keeps its owner's ending and is also emitted by a second
    tag.

    Parameters
    ----------
    rng : numpy.random.Generator, int or None
        The generator, or a seed for ``numpy.random.default_rng``.
    n_sentences, n_tags, n_symbols, length_range, ambiguity
        As in `make_sequences`; ``n_symbols`` is the number of distinct words.

    Returns
    -------
    list of list of (str, str)
        Each sentence a list of ``(word, tag)`` pairs, tags ``"T0"``, ``"T1"``...

    Raises
    ------
    TypeError, ValueError
        As `make_sequences`, naming the argument.
    """
    rng = np.random.default_rng(rng)
    draw = _sample(rng, n_sentences, n_tags, n_symbols, length_range, ambiguity)
    n_tags = draw["emission"].shape[0]
    words = _lexicon(rng, draw["owner"], n_tags)
    names = _tag_names(n_tags).tolist()
    pairs = [(words[s], names[t]) for s, t in zip(draw["symbols"].tolist(),
                                                  draw["tags"].tolist())]
    bounds = np.concatenate([[0], np.cumsum(draw["lengths"])]).tolist()
    return [pairs[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
