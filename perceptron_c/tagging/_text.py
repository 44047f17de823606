"""The tagger's gate and files: sentences and tokens checked, text packed into plain arrays
for the ``.npz`` model file, NLTK's JSON model files read and checked (`perceptron_c.tagging`).
"""
from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterable
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from ..exceptions import FileFormatError
from ..io import reject_constant

__all__ = ["check_sentences", "check_tokens", "pack_text", "unpack_text", "check_state",
           "check_text_state", "check_pairs", "sparse_pairs", "dense_pairs", "param_files",
           "parse_nltk_json", "nltk_data_dirs"]

Sentence = tuple[list[str], list[str]]
_WORD, _TAG = itemgetter(0), itemgetter(1)


def _iterable(value: Any, name: str, what: str) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return list(value)


def _all_str(values: Any) -> bool:
    """Every value an exact str (a C-speed pass; subclasses take the slow path)."""
    return not values or set(map(type, values)) == {str}


def check_tokens(tokens: Any, name: str) -> list[str]:
    """``tokens`` as a list of str; TypeError naming the first one that is not."""
    if type(tokens) is list and _all_str(tokens):
        return tokens
    tokens = _iterable(tokens, name, "a list of str tokens (a sentence split into words)")
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"{name}[{i}] must be a str token, got {type(token).__name__}")
    return tokens


def check_sentences(sentences: Any, name: str) -> list[Sentence]:
    """``sentences`` (lists of (word, tag) pairs of str) as (words, tags) lists; TypeError
    or ValueError naming the first bad sentence or pair. Type checks only, as C-speed passes
    (``map``, ``set``) over all the pairs; anything odd goes the slow way, which names it."""
    sents = _iterable(sentences, name, "a list of sentences")
    flat = chain.from_iterable
    if set(map(type, sents)) <= {list, tuple} and set(map(type, flat(sents))) <= {tuple, list} \
            and set(map(len, flat(sents))) <= {2}:
        out = [(list(map(_WORD, s)), list(map(_TAG, s))) for s in sents]
        if set(map(type, flat(w for w, _ in out))) | set(map(type, flat(t for _, t in out))) \
                <= {str}:
            return out
    return [_check_pairs(sentence, f"{name}[{s}]") for s, sentence in enumerate(sents)]


def _check_pairs(sentence: Any, name: str) -> Sentence:
    """The slow path of `check_sentences`: pair by pair, naming the first bad one."""
    pairs = _iterable(sentence, name, "a list of (word, tag) pairs")
    for t, pair in enumerate(pairs):
        where = f"{name}[{t}]"
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"{where} must be a (word, tag) pair, got {pair!r:.60}")
        if not isinstance(pair[0], str) or not isinstance(pair[1], str):
            raise TypeError(f"{where} must hold a str word and a str tag, got "
                            f"({type(pair[0]).__name__}, {type(pair[1]).__name__})")
    return [p[0] for p in pairs], [p[1] for p in pairs]


# ---------------------------------------------------------------- text in the .npz file

def pack_text(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as UTF-8 bytes (uint8) and their lengths in code points: numpy's str arrays
    would drop a trailing NUL, and any Python str (lone surrogates too) comes back equal."""
    blob = "".join(strings).encode("utf-8", "surrogatepass")
    return (np.frombuffer(blob, dtype=np.uint8).copy(),
            np.array([len(s) for s in strings], dtype=np.int64))


def unpack_text(arrays: dict[str, np.ndarray], name: str) -> list[str]:
    """The strings `pack_text` stored as ``name`` and ``name_lengths``; ValueError if bad."""
    blob, lengths = arrays.get(name), arrays.get(name + "_lengths")
    if blob is None or lengths is None:
        raise ValueError(f"no {name} entry")
    if blob.dtype != np.uint8 or blob.ndim != 1 or lengths.dtype != np.int64 \
            or lengths.ndim != 1 or (lengths < 0).any():
        raise ValueError(f"{name} is not text of the expected dtype and shape")
    try:
        text = blob.tobytes().decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name} is not UTF-8: {exc}") from None
    if int(lengths.sum()) != len(text):
        raise ValueError(f"{name}: the lengths do not add up to the text")
    ends = np.cumsum(lengths).tolist()
    return [text[end - n:end] for end, n in zip(ends, lengths.tolist())]


_STATE = {"steps", "weights", "totals", "stamps", "live", "tagdict_tags"} | {
    f"{n}{s}" for n in ("features", "classes", "tagdict_words") for s in ("", "_lengths")}


_PAIRS = ("pair_rows", "pair_cols", "pair_weights", "pair_totals", "pair_stamps", "pair_live")
_DENSE = ("weights", "totals", "stamps", "live")


def sparse_pairs(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The dense (features x classes) state as the pairs that hold anything: rows, columns,
    and the weight, total, stamp and live flag of each. Every other pair is all zeros. (A
    pair NLTK's averaging dropped, its average rounding to 0, is not live but keeps its
    total and stamp: a later ``train`` goes on from them, as NLTK's does.)"""
    w, totals, stamps, live = (arrays[name] for name in _DENSE)
    rows, cols = np.nonzero(live | (totals != 0) | (stamps != 0))
    out = {k: v for k, v in arrays.items() if k not in _DENSE}
    out.update(pair_rows=rows.astype(np.int64), pair_cols=cols.astype(np.int64),
               pair_weights=w[rows, cols], pair_totals=totals[rows, cols],
               pair_stamps=stamps[rows, cols], pair_live=live[rows, cols])
    return out


def check_pairs(arrays: dict[str, np.ndarray], shape: tuple[int, int]) -> None:
    """The pairs of `sparse_pairs` in a file are distinct, in ``shape`` and a state a
    training could have left (as `check_state` says of the dense arrays); ValueError if
    not. Memory in proportion to the pairs, not to ``shape``."""
    rows, cols = arrays["pair_rows"], arrays["pair_cols"]
    n = rows.shape[0]
    dtypes = (np.int64, np.int64, np.float64, np.float64, np.int64, np.bool_)
    for name, dtype in zip(_PAIRS, dtypes):
        if name not in arrays or arrays[name].dtype != dtype or arrays[name].shape != (n,):
            raise ValueError(f"{name} must be {np.dtype(dtype)} of shape ({n},)")
    if n and (rows.min() < 0 or rows.max() >= shape[0] or cols.min() < 0 or
              cols.max() >= shape[1]):
        raise ValueError(f"pair_rows and pair_cols must lie inside {shape}")
    if np.unique(rows * shape[1] + cols).shape[0] != n:
        raise ValueError("pair_rows and pair_cols repeat a pair")
    if not (np.isfinite(arrays["pair_weights"]).all() and
            np.isfinite(arrays["pair_totals"]).all()):
        raise ValueError("weights and totals must be finite")
    if (arrays["pair_weights"][~arrays["pair_live"]] != 0).any():
        raise ValueError("a weight outside the live pairs is not zero")


def dense_pairs(arrays: dict[str, np.ndarray], shape: tuple[int, int]
                ) -> dict[str, np.ndarray]:
    """The inverse of `sparse_pairs` (a file of the dense layout, older, passes through);
    ValueError if the pairs are not distinct and in range."""
    if "pair_rows" not in arrays:
        return arrays
    check_pairs(arrays, shape)
    rows, cols = arrays["pair_rows"], arrays["pair_cols"]
    dtypes = (np.float64, np.float64, np.int64, np.bool_)
    out = {k: v for k, v in arrays.items() if k not in _PAIRS}
    for name, dtype in zip(_DENSE, dtypes):
        dense: np.ndarray = np.zeros(shape, dtype=dtype)
        dense[rows, cols] = arrays["pair_" + name]
        out[name] = dense
    return out


def check_state(arrays: dict[str, np.ndarray], text: dict[str, list[str]]) -> None:
    """The tagger's saved state is one a training could have left; ValueError if not. The
    pairs layout (`sparse_pairs`) is checked as it is, the older dense one as dense arrays."""
    pairs = "pair_rows" in arrays
    expected = _STATE - set(_DENSE) | set(_PAIRS) if pairs else _STATE
    if set(arrays) != expected:
        raise ValueError(f"expected the entries {sorted(expected)}, got {sorted(arrays)}")
    features, classes = text["features"], text["classes"]
    shape = (len(features), len(classes))
    steps = arrays["steps"]
    if steps.dtype != np.int64 or steps.shape != (1,) or steps[0] < 0:
        raise ValueError("steps must be one int64 >= 0")
    if pairs:
        check_pairs(arrays, shape)
        stamps = arrays["pair_stamps"]
    else:
        for name, dtype in (("weights", np.float64), ("totals", np.float64),
                            ("stamps", np.int64), ("live", np.bool_)):
            if arrays[name].dtype != dtype or arrays[name].shape != shape:
                raise ValueError(f"{name} must be {np.dtype(dtype)} of shape {shape}")
        if not (np.isfinite(arrays["weights"]).all() and np.isfinite(arrays["totals"]).all()):
            raise ValueError("weights and totals must be finite")
        if (arrays["weights"][~arrays["live"]] != 0).any():
            raise ValueError("a weight outside the live pairs is not zero")
        stamps = arrays["stamps"]
    if stamps.size and (stamps.min() < 0 or stamps.max() > steps[0]):
        raise ValueError("stamps must lie in [0, steps]")
    check_text_state(arrays, text)


def check_text_state(arrays: dict[str, np.ndarray], text: dict[str, list[str]]) -> None:
    """The features, classes and tag dictionary of a saved tagger (greedy or structured) are
    ones a training could have left; ValueError if not."""
    features, classes = text["features"], text["classes"]
    if len(set(features)) != len(features) or len(set(text["tagdict_words"])) != \
            len(text["tagdict_words"]):
        raise ValueError("features and tag dictionary words must be unique")
    if any(a >= b for a, b in zip(classes, classes[1:])):
        raise ValueError("classes must be sorted and unique")
    tags = arrays["tagdict_tags"]
    if tags.dtype != np.int64 or tags.shape != (len(text["tagdict_words"]),) or \
            (tags.size and (tags.min() < 0 or tags.max() >= len(classes))):
        raise ValueError("tagdict_tags must be one class index per tag dictionary word")


# ---------------------------------------------------------------- NLTK's JSON files

def param_files(tagger_name: str, lang: str) -> tuple[str, str, str]:
    """NLTK's file names (``nltk/tag/perceptron.py`` 3.10.4, lines 370-379), ``lang`` checked
    to be one file name component."""
    if not isinstance(lang, str) or not lang.strip() or lang in (".", "..") or \
            any(c in lang for c in ("/", "\\", "\x00", os.sep)):
        raise ValueError(f"lang must be a language code (one file name component), got "
                         f"{lang!r}")
    return tuple(f"{tagger_name}_{lang}.{part}.json"  # type: ignore[return-value]
                 for part in ("weights", "tagdict", "classes"))


def _load_json(label: str, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"), parse_constant=reject_constant)
    except (ValueError, RecursionError) as exc:  # (UnicodeDecodeError is a ValueError)
        raise FileFormatError(f"{label}: not a JSON file: {exc}") from None


def _is_number(w: Any) -> bool:
    """A finite JSON number a float holds (an int past 2**1024 does not)."""
    if not isinstance(w, (int, float)) or isinstance(w, bool):
        return False
    try:
        return math.isfinite(float(w))
    except OverflowError:
        return False


def parse_nltk_json(files: list[tuple[str, bytes]]) -> tuple[dict, dict, list]:
    """(weights, tagdict, classes) from the bytes of the three JSON files of NLTK's
    ``save_to_json``, each given with its name; `FileFormatError` naming the file that is not
    what NLTK writes."""
    paths = [label for label, _ in files]
    weights, tagdict, classes = (_load_json(label, data) for label, data in files)
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes) or \
            len(set(classes)) != len(classes):
        raise FileFormatError(f"{paths[2]}: not a list of distinct str classes")
    known = set(classes)
    if not isinstance(tagdict, dict) or not all(isinstance(t, str) and t in known
                                                for t in tagdict.values()):
        raise FileFormatError(f"{paths[1]}: not a dict of words to classes of {paths[2]}")
    if not isinstance(weights, dict) or not all(
            isinstance(d, dict) and all(label in known and _is_number(w)
                                        for label, w in d.items())
            for d in weights.values()):
        raise FileFormatError(f"{paths[0]}: not a dict of features to dicts of classes of "
                              f"{paths[2]} to finite numbers")
    return weights, tagdict, classes


def nltk_data_dirs() -> list[str]:
    """The folders NLTK searches for its data (``nltk/data.py``): ``$NLTK_DATA``,
    ``~/nltk_data``, then the interpreter's and the system's."""
    dirs = [d for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    dirs.append(os.path.join(os.path.expanduser("~"), "nltk_data"))
    dirs += [os.path.join(sys.prefix, *sub, "nltk_data") for sub in ((), ("share",), ("lib",))]
    if sys.platform.startswith("win"):
        dirs += [r"C:\nltk_data", r"D:\nltk_data", r"E:\nltk_data"]
    else:
        dirs += ["/usr/share/nltk_data", "/usr/local/share/nltk_data", "/usr/lib/nltk_data",
                 "/usr/local/lib/nltk_data"]
    return dirs
