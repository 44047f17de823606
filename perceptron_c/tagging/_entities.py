"""Entity-level scores of tag sequences, as seqeval computes them (seqeval 1.2.2,
``seqeval/metrics/sequence_labeling.py``, ``v1.py``, ``scheme.py``, ``reporters.py``): the
same entities, counts, floats, warnings and report text, without seqeval.

Two ways to read entities from tags, seqeval's two modes:

- the default mode, conlleval's (`get_entities`): lenient. A chunk ends before a B, an S, an
  O, a change of type, or after an E or an S; it starts at a B, an S, a change of type, or an
  I or E that follows an O, an E or an S. Any mix of IOB1, IOB2, IOE, IOBES tags is read,
  none is an error. The sentences are read as one sequence with an ``O`` between them.
- the strict mode (`entities_strict`, ``mode="strict"``): a scheme's rules, an entity only
  where its tags are a valid chunk of that scheme (an ``I-PER`` after an ``O`` is no entity
  in IOB2). The schemes: IOB1, IOE1, IOB2, IOE2, IOBES, BILOU, named by a string or by
  seqeval's class of that name; a prefix the scheme does not allow is a ValueError.

Tags are ``B-PER`` (prefix first) or, with ``suffix=True``, ``PER-B``; a tag without a type
(``B``) has the type ``_``.

As in seqeval, `precision_score`, `recall_score` and `f1_score` read strictly only when both
``mode="strict"`` and ``scheme`` are given (``mode="strict"`` alone reads in the default mode),
while `classification_report` with ``mode="strict"`` detects the scheme from ``y_true`` when
none is given (IOB2, IOE2, IOBES or BILOU, from the prefixes found). ``sample_weight`` is
accepted and not used, as in seqeval. Departures, where seqeval fails: sentences may be
tuples or arrays as well as lists (seqeval wants lists); a prefix outside the scheme, or an
unknown one, is a ValueError (seqeval raises ValueError or KeyError); `accuracy_score` of no
tokens and `classification_report` of no entities raise ValueError with their reason
(seqeval: ZeroDivisionError, and ValueError from ``max()``).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._utils._docs import fill
from ..exceptions import UndefinedMetricWarning, sklearn_flavoured

__all__ = ["get_entities", "entities_strict", "accuracy_score", "performance_measure",
           "precision_recall_fscore_support", "precision_score", "recall_score", "f1_score",
           "classification_report", "SCHEMES"]

_DOCS = {
    "y_pair": """
        y_true : sequence of sentences
            The reference: each sentence a sequence (list, tuple, array) of tags of str.
        y_pred : sequence of sentences
            The predicted tags, sentence for sentence as long as ``y_true``'s.""",
    "suffix": """
        suffix : bool, default=False
            Tags are ``PER-B`` (prefix last), not ``B-PER``.""",
    "options": """
        average : {"micro", "macro", "weighted"} or None
            None: one value per entity type (sorted by name); else seqeval's averages: over
            all entities, over the types, or over the types weighted by their support.
        {suffix}
        mode : {None, "default", "strict"}, default=None
            The default (conlleval's) reading of entities, or a scheme's (with ``scheme``).
        sample_weight : ignored
            Accepted and not used, as in seqeval.
        zero_division : {"warn", 0, 1}, default="warn"
            A ratio with nothing to divide by: 0 with an `UndefinedMetricWarning`, 0, or 1.
        scheme : str or seqeval scheme class, optional
            One of `SCHEMES` (``"IOB2"``...) or seqeval's class of that name: with
            ``mode="strict"``, the scheme whose chunks are entities.""",
    "score_sections": """
        Parameters
        ----------
        {y_pair}
        {options}

        Returns
        -------
        float or ndarray of float
            The score (``average=None``: one per type, in the sorted order of the types).

        {raises}""",
    "raises": """
        Raises
        ------
        ValueError
            Sentences of different lengths, no sentences, an option out of its range, or
            in the strict mode a tag whose prefix the scheme does not have.
        TypeError
            ``y_true`` or ``y_pred`` is not a sequence of sentences.""",
}

# ------------------------------------------------------------------ the default mode

# (previous prefix, prefix) pairs that end the chunk before the current tag, or start one
# at it, whatever the types; a change of type ends and starts one too (conlleval's rules)
_ENDS_AFTER = {"E", "S"}
_ENDS = {("B", "B"), ("B", "S"), ("B", "O"), ("I", "B"), ("I", "S"), ("I", "O")}
_STARTS_AT = {"B", "S"}
_STARTS = {("E", "E"), ("E", "I"), ("S", "E"), ("S", "I"), ("O", "E"), ("O", "I")}
_NE_PREFIXES = ("B", "I", "E", "S")


def _split(tag: str, suffix: bool) -> tuple[str, str]:
    """(prefix, type) of a tag in the default mode: the type is what follows the first
    hyphen (``B-PER`` -> PER), or precedes the last one with ``suffix`` (``PER-B``)."""
    if suffix:
        return tag[-1], tag[:-1].rsplit("-", maxsplit=1)[0] or "_"
    return tag[0], tag[1:].split("-", maxsplit=1)[-1] or "_"


def _check_tag(tag: Any, suffix: bool) -> None:
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"tags must be non-empty str, got {tag!r}")
    if tag in ("O",) + _NE_PREFIXES:
        return
    named = tag.endswith(tuple("-" + p for p in _NE_PREFIXES)) if suffix else \
        tag.startswith(tuple(p + "-" for p in _NE_PREFIXES))
    if not named:
        warnings.warn(f"{tag} seems not to be NE tag.", UserWarning, stacklevel=4)


def _nested(seq: Any) -> bool:
    return any(not isinstance(s, str) and isinstance(s, (Sequence, np.ndarray)) for s in seq)


def _flatten(seq: Any, separator: list[str]) -> list:
    """One sequence of tags: a sequence of sentences joined, ``separator`` after each."""
    if not _nested(seq):
        return list(seq)
    return [tag for sentence in seq for tag in [*sentence, *separator]]


@fill(_DOCS)
def get_entities(seq: Any, suffix: bool = False) -> list[tuple[str, int, int]]:
    """The entities of a tag sequence in the default (conlleval) mode, as seqeval's
    ``get_entities``.

    A sequence of sentences is read as one sequence with an ``O`` after each sentence, the
    positions counted in it. A tag that does not look like an entity tag warns
    (``UserWarning``, seqeval's message).

    Parameters
    ----------
    seq : sequence of str, or sequence of sentences
        The tags.
    {suffix}

    Returns
    -------
    list of (str, int, int)
        (type, first, last) of each entity, ``last`` inclusive, in order.
    """
    tags = _flatten(seq, ["O"])
    chunks, prev_prefix, prev_type, begin = [], "O", "", 0
    for i, tag in enumerate([*tags, "O"]):
        _check_tag(tag, suffix)
        prefix, type_ = _split(tag, suffix)
        changed = prev_type != type_
        if prev_prefix in _ENDS_AFTER or (prev_prefix, prefix) in _ENDS or \
                (prev_prefix not in ("O", ".") and changed):
            chunks.append((prev_type, begin, i - 1))
        if prefix in _STARTS_AT or (prev_prefix, prefix) in _STARTS or \
                (prefix not in ("O", ".") and changed):
            begin = i
        prev_prefix, prev_type = prefix, type_
    return chunks


# ------------------------------------------------------------------- the strict mode

_ANY = "IOBESUL"
# per scheme: the prefixes it allows, then the (previous prefixes, prefixes, types) patterns
# where an entity starts at a tag, goes on through it, and has ended before it; types: "any",
# "same" (as the previous tag's) or "diff" (seqeval's scheme.py tables)
SCHEMES: dict[str, tuple[str, tuple, tuple, tuple]] = {
    "IOB1": ("IOB",
             (("O", "I", "any"), ("I", "I", "diff"), ("B", "I", "any"), ("I", "B", "same"),
              ("B", "B", "same")),
             (("B", "I", "same"), ("I", "I", "same")),
             (("I", "I", "diff"), ("I", "O", "any"), ("I", "B", "any"), ("B", "O", "any"),
              ("B", "I", "diff"), ("B", "B", "same"))),
    "IOE1": ("IOE",
             (("O", "I", "any"), ("I", "I", "diff"), ("E", "I", "any"), ("E", "E", "same")),
             (("I", "I", "same"), ("I", "E", "same")),
             (("I", "I", "diff"), ("I", "O", "any"), ("I", "E", "diff"), ("E", "I", "same"),
              ("E", "E", "same"))),
    "IOB2": ("IOB",
             ((_ANY, "B", "any"),),
             (("B", "I", "same"), ("I", "I", "same")),
             (("I", "O", "any"), ("I", "I", "diff"), ("I", "B", "any"), ("B", "O", "any"),
              ("B", "I", "diff"), ("B", "B", "any"))),
    "IOE2": ("IOE",
             (("O", "I", "any"), ("O", "E", "any"), ("E", "I", "any"), ("E", "E", "any"),
              ("I", "I", "diff"), ("I", "E", "diff")),
             (("I", "E", "same"), ("I", "I", "same")),
             (("E", _ANY, "any"),)),
    "IOBES": ("IOBES",
              ((_ANY, "B", "any"), (_ANY, "S", "any")),
              (("B", "I", "same"), ("B", "E", "same"), ("I", "I", "same"), ("I", "E", "same")),
              (("S", _ANY, "any"), ("E", _ANY, "any"))),
    "BILOU": ("BILOU",
              ((_ANY, "B", "any"), (_ANY, "U", "any")),
              (("B", "I", "same"), ("B", "L", "same"), ("I", "I", "same"), ("I", "L", "same")),
              (("U", _ANY, "any"), ("L", _ANY, "any"))),
}
# the prefix sets auto-detection accepts for each scheme, in the order it tries them
_DETECT = (("IOB2", ("IOB", "IB", "BO", "B")),
           ("IOE2", ("IOE", "IE", "EO", "E")),
           ("IOBES", ("IOBES", "IBES", "IOBE", "OBES", "IBE", "BES", "OBE", "BE", "S")),
           ("BILOU", ("IOBLU", "IBLU", "IOBL", "OBLU", "IBL", "BLU", "OBL", "BL", "U")))


def scheme_name(scheme: Any) -> str:
    """A scheme given as its name or as seqeval's class of that name (seqeval.scheme.IOB2)."""
    name = scheme if isinstance(scheme, str) else getattr(scheme, "__name__", None)
    if name not in SCHEMES:
        raise ValueError(f"scheme must be one of {sorted(SCHEMES)} (or seqeval's class of "
                         f"that name), got {scheme!r}")
    return name


def _strict_token(tag: Any, suffix: bool) -> tuple[str, str]:
    """(prefix, type) in the strict mode: the type is the rest of the tag with its hyphens
    at either end stripped (seqeval's ``Token``)."""
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"tags must be non-empty str, got {tag!r}")
    prefix, rest = (tag[-1], tag[:-1]) if suffix else (tag[0], tag[1:])
    if prefix not in _ANY:
        raise ValueError(f"{tag!r} has no prefix of {'/'.join(_ANY)} "
                         f"({'last' if suffix else 'first'} character)")
    return prefix, rest.strip("-") or "_"


def _matches(patterns: tuple, prev: tuple[str, str], cur: tuple[str, str]) -> bool:
    for before, now, types in patterns:
        if prev[0] in before and cur[0] in now and (
                types == "any" or (types == "same") == (prev[1] == cur[1])):
            return True
    return False


def detect_scheme(sequences: Iterable[Any], suffix: bool = False) -> str:
    """The scheme of tag sequences from the prefixes found (seqeval's ``auto_detect``)."""
    found = {_strict_token(tag, suffix)[0] for sentence in sequences for tag in sentence}
    for name, accepted in _DETECT:
        if any(found == set(prefixes) for prefixes in accepted):
            return name
    raise ValueError(f"This scheme is not supported: the prefixes {sorted(found)}")


def _sentence_entities(tags: Sequence[Any], scheme: str, suffix: bool,
                       sent: int) -> list[tuple[int, str, int, int]]:
    """(sentence, type, first, stop) of each entity of one sentence, stop exclusive."""
    allowed, starts, inside, ends = SCHEMES[scheme]
    tokens = [_strict_token(tag, suffix) for tag in tags] + [("O", "_")]
    for (prefix, _), tag in zip(tokens, tags):
        if prefix not in allowed:
            raise ValueError(f"Invalid token is found: {tag}. Allowed prefixes are: "
                             f"{'|'.join(allowed)}.")
    out, i, prev = [], 0, ("O", "_")
    while i < len(tokens):
        token = tokens[i]
        if _matches(starts, prev, token):
            stop, last = i + 1, token
            while stop < len(tokens) and _matches(inside, last, tokens[stop]):
                last = tokens[stop]
                stop += 1
            if _matches(ends, tokens[stop - 1], tokens[stop]):
                out.append((sent, token[1], i, stop))
            i = stop
        else:
            i += 1
        prev = tokens[i - 1]
    return out


@fill(_DOCS)
def entities_strict(sequences: Iterable[Any], scheme: Any,
                    suffix: bool = False) -> list[tuple[int, str, int, int]]:
    """The entities of sentences read strictly by a scheme, as seqeval's ``Entities``.

    Parameters
    ----------
    sequences : sequence of sentences
        Each a sequence of tags of str.
    scheme : str or seqeval scheme class
        One of `SCHEMES` (``"IOB2"``...) or seqeval's class of that name.
    {suffix}

    Returns
    -------
    list of (int, str, int, int)
        (sentence, type, first, stop) of each entity, ``stop`` exclusive, in order.

    Raises
    ------
    ValueError
        An unknown scheme, or a tag whose prefix the scheme does not have.
    """
    name = scheme_name(scheme)
    return [e for s, tags in enumerate(sequences)
            for e in _sentence_entities(list(tags), name, suffix, s)]


# -------------------------------------------------------------------------- scores

_AVERAGES = (None, "micro", "macro", "weighted")


def _sentences(y: Any, name: str) -> list[list]:
    if isinstance(y, str) or not isinstance(y, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of sentences (sequences of tags), got "
                        f"{type(y).__name__}")
    out = []
    for sentence in y:
        if isinstance(sentence, str) or not isinstance(sentence, (Sequence, np.ndarray)):
            raise TypeError(f"{name} must be a sequence of sentences (sequences of tags): "
                            f"found {type(sentence).__name__}")
        out.append(list(sentence))
    return out


def _check_pair(y_true: Any, y_pred: Any) -> tuple[list[list], list[list]]:
    """Sentences of y_true and y_pred, of the same lengths (seqeval's message)."""
    true, pred = _sentences(y_true, "y_true"), _sentences(y_pred, "y_pred")
    if not true:
        raise ValueError("y_true has no sentences")
    len_true, len_pred = [len(s) for s in true], [len(s) for s in pred]
    if len_true != len_pred:
        raise ValueError("Found input variables with inconsistent numbers of samples:\n"
                         f"{len_true}\n{len_pred}")
    return true, pred


def _counts(true: list[list], pred: list[list], suffix: bool,
            scheme: str | None) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The types found in either, and per type the predicted, correct and true counts."""
    sets: list[dict[str, set]] = [{}, {}]
    for side, sentences in enumerate((true, pred)):
        found: list[tuple[str, tuple]]
        if scheme is None:
            found = [(t, (a, b)) for t, a, b in get_entities(sentences, suffix)]
        else:
            found = [(t, (s, a, b)) for s, t, a, b in entities_strict(sentences, scheme, suffix)]
        for type_, where in found:
            sets[side].setdefault(type_, set()).add(where)
    names = sorted(set(sets[0]) | set(sets[1]))
    empty: set = set()
    # int32 arrays grown as seqeval grows them, so that the sums have its dtypes
    tp, n_pred, n_true = (np.array([], dtype=np.int32) for _ in range(3))
    for name in names:
        t, p = sets[0].get(name, empty), sets[1].get(name, empty)
        tp, n_pred, n_true = (np.append(tp, len(t & p)), np.append(n_pred, len(p)),
                              np.append(n_true, len(t)))
    return names, n_pred, tp, n_true


def _divide(num: np.ndarray, den: np.ndarray, metric: str, modifier: str, average: Any,
            warn_for: tuple, zero_division: Any) -> np.ndarray:
    """num / den, and where den is 0: 0 (warning, if asked) or 1, as zero_division says."""
    mask = den == 0.0
    den = den.copy()
    den[mask] = 1
    result = num / den
    if not np.any(mask):
        return result
    result[mask] = 0.0 if zero_division in ("warn", 0) else 1.0
    if zero_division != "warn" or metric not in warn_for:
        return result
    start = f"{metric.title()} and F-score are" if "f-score" in warn_for else \
        f"{metric.title()} is"
    _warn(average, modifier, start, len(result))
    return result


def _warn(average: Any, modifier: str, start: str, size: int) -> None:
    where = "due to" if size == 1 else "in labels with"
    warnings.warn(f"{start} ill-defined and being set to 0.0 {where} no {modifier} samples. "
                  "Use `zero_division` parameter to control this behavior.",
                  sklearn_flavoured(UndefinedMetricWarning), stacklevel=4)


def _check_options(average: Any, beta: float, zero_division: Any, mode: Any) -> None:
    if beta < 0:
        raise ValueError("beta should be >=0 in the F-beta score")
    if average not in _AVERAGES:
        raise ValueError(f"average has to be one of {_AVERAGES}")
    if zero_division not in ("warn", 0, 1):
        raise ValueError(f'zero_division must be "warn", 0 or 1, got {zero_division!r}')
    if mode not in (None, "default", "strict"):
        raise ValueError(f'mode must be None (or "default") or "strict", got {mode!r}')


@fill(_DOCS)
def precision_recall_fscore_support(
        y_true: Any, y_pred: Any, *, average: str | None = None,
        warn_for: tuple = ("precision", "recall", "f-score"), beta: float = 1.0,
        sample_weight: Any = None, zero_division: Any = "warn", suffix: bool = False,
        mode: str | None = None, scheme: Any = None) -> tuple:
    """Precision, recall, F-beta and support of the entities of each type, or an average
    of them: seqeval's function of this name (``mode="strict"`` with a ``scheme``: its
    ``v1`` one).

    Parameters
    ----------
    {y_pair}
    {options}
    warn_for : tuple of str
        Which of "precision", "recall", "f-score" warn when ill-defined.
    beta : float, default=1.0
        The weight of recall in the F-score.

    Returns
    -------
    precision, recall, fbeta_score : float or ndarray of float
        Per type (``average=None``, in the sorted order of the types) or averaged.
    support : int or ndarray of int
        The entities of each type in ``y_true``, or their sum.

    {raises}
    """
    _check_options(average, beta, zero_division, mode)
    true, pred = _check_pair(y_true, y_pred)
    strict = scheme_name(scheme) if mode == "strict" and scheme else None
    _, pred_sum, tp_sum, true_sum = _counts(true, pred, suffix, strict)
    return _scores(pred_sum, tp_sum, true_sum, average, warn_for, beta, zero_division)


def _scores(pred_sum: np.ndarray, tp_sum: np.ndarray, true_sum: np.ndarray, average: Any,
            warn_for: tuple, beta: float, zero_division: Any) -> tuple:
    """seqeval's ``_precision_recall_fscore_support`` from the counts, operation for
    operation (so the floats are its floats)."""
    if average == "micro":
        tp_sum, pred_sum, true_sum = (np.array([a.sum()]) for a in (tp_sum, pred_sum, true_sum))
    beta2 = beta ** 2
    precision = _divide(tp_sum, pred_sum, "precision", "predicted", average, warn_for,
                        zero_division)
    recall = _divide(tp_sum, true_sum, "recall", "true", average, warn_for, zero_division)
    if zero_division == "warn" and ("f-score",) == warn_for and \
            (pred_sum[true_sum == 0] == 0).any():
        _warn(average, "true nor predicted", "F-score is", len(true_sum))
    if np.isposinf(beta):
        f_score = recall
    else:
        denom = beta2 * precision + recall
        denom[denom == 0.0] = 1
        f_score = (1 + beta2) * precision * recall / denom
    weights = None
    if average == "weighted":
        weights = true_sum
        if weights.sum() == 0:
            value = 0.0 if zero_division in ("warn", 0) else 1.0
            none_predicted = pred_sum.sum() == 0
            return (value if none_predicted else 0.0, value,
                    value if none_predicted else 0.0, sum(true_sum))
    if average is None:
        return precision, recall, f_score, true_sum
    return (np.average(precision, weights=weights), np.average(recall, weights=weights),
            np.average(f_score, weights=weights), sum(true_sum))


def _one(metric: str, y_true: Any, y_pred: Any, average: Any, suffix: bool, mode: Any,
         sample_weight: Any, zero_division: Any, scheme: Any) -> Any:
    index = {"precision": 0, "recall": 1, "f-score": 2}[metric]
    return precision_recall_fscore_support(
        y_true, y_pred, average=average, warn_for=(metric,), sample_weight=sample_weight,
        zero_division=zero_division, suffix=suffix, mode=mode, scheme=scheme)[index]


@fill(_DOCS)
def precision_score(y_true: Any, y_pred: Any, *, average: str | None = "micro",
                    suffix: bool = False, mode: str | None = None, sample_weight: Any = None,
                    zero_division: Any = "warn", scheme: Any = None) -> Any:
    """Entity precision (seqeval's ``precision_score``): the share of predicted entities
    that are entities of ``y_true``, same type, same span.

    {score_sections}
    """
    return _one("precision", y_true, y_pred, average, suffix, mode, sample_weight,
                zero_division, scheme)


@fill(_DOCS)
def recall_score(y_true: Any, y_pred: Any, *, average: str | None = "micro",
                 suffix: bool = False, mode: str | None = None, sample_weight: Any = None,
                 zero_division: Any = "warn", scheme: Any = None) -> Any:
    """Entity recall (seqeval's ``recall_score``): the share of the entities of ``y_true``
    that are predicted, same type, same span.

    {score_sections}
    """
    return _one("recall", y_true, y_pred, average, suffix, mode, sample_weight,
                zero_division, scheme)


@fill(_DOCS)
def f1_score(y_true: Any, y_pred: Any, *, average: str | None = "micro",
             suffix: bool = False, mode: str | None = None, sample_weight: Any = None,
             zero_division: Any = "warn", scheme: Any = None) -> Any:
    """Entity F1 (seqeval's ``f1_score``): 2 p r / (p + r) of `precision_score` p and
    `recall_score` r, per type or averaged.

    {score_sections}
    """
    return _one("f-score", y_true, y_pred, average, suffix, mode, sample_weight,
                zero_division, scheme)


@fill(_DOCS)
def accuracy_score(y_true: Any, y_pred: Any) -> float:
    """The share of tokens whose tag is right (seqeval's ``accuracy_score``).

    Parameters
    ----------
    {y_pair}

    Returns
    -------
    float
        Tokens tagged right / tokens.

    Raises
    ------
    ValueError
        No tokens, or not as many predicted as true.
    """
    true, pred = _flatten(y_true, []), _flatten(y_pred, [])
    if len(true) != len(pred):
        raise ValueError(f"y_true has {len(true)} tokens and y_pred {len(pred)}")
    if not true:
        raise ValueError("accuracy_score of no tokens")
    return sum(t == p for t, p in zip(true, pred)) / len(true)


@fill(_DOCS)
def performance_measure(y_true: Any, y_pred: Any) -> dict[str, int]:
    """Token counts, as seqeval's ``performance_measure``.

    Parameters
    ----------
    {y_pair}

    Returns
    -------
    dict
        "TP": tokens with the same tag, not both O; "FP": different tags, predicted not O;
        "FN": true not O, predicted O; "TN": both O.
    """
    pairs = list(zip(_flatten(y_true, []), _flatten(y_pred, [])))
    return {"TP": sum(t == p for t, p in pairs if t != "O" or p != "O"),
            "FP": sum(t != p and p != "O" for t, p in pairs),
            "FN": sum(t != "O" and p == "O" for t, p in pairs),
            "TN": sum(t == p == "O" for t, p in pairs)}


@fill(_DOCS)
def classification_report(y_true: Any, y_pred: Any, *, digits: int = 2, suffix: bool = False,
                          output_dict: bool = False, mode: str | None = None,
                          sample_weight: Any = None, zero_division: Any = "warn",
                          scheme: Any = None) -> str | dict:
    """Precision, recall, F1 and support of each entity type, then their micro, macro and
    weighted averages, as seqeval's ``classification_report`` writes them.

    With ``mode="strict"`` and no ``scheme``, the scheme is detected from the prefixes of
    ``y_true`` (IOB2, IOE2, IOBES or BILOU), as seqeval does.

    Parameters
    ----------
    {y_pair}
    digits : int, default=2
        Decimals of the text table.
    {suffix}
    output_dict : bool, default=False
        Return a dict of dicts (row name: its four values) instead of the text.
    mode, sample_weight, zero_division, scheme
        As for `precision_recall_fscore_support`.

    Returns
    -------
    str or dict
        The report.

    {raises}
    """
    _check_options(None, 1.0, zero_division, mode)
    true, pred = _check_pair(y_true, y_pred)
    strict = None
    if mode == "strict":
        strict = detect_scheme(true, suffix) if scheme is None else scheme_name(scheme)
    names, pred_sum, tp_sum, true_sum = _counts(true, pred, suffix, strict)
    if not names and not output_dict:
        raise ValueError("classification_report: neither y_true nor y_pred has an entity")
    rows = list(zip(names, *_scores(pred_sum, tp_sum, true_sum, None,
                                    ("precision", "recall", "f-score"), 1.0, zero_division)))
    for average in ("micro", "macro", "weighted"):
        rows.append((f"{average} avg", *_scores(pred_sum, tp_sum, true_sum, average,
                                                ("precision", "recall", "f-score"), 1.0,
                                                zero_division)))
    if output_dict:
        return {name: {"precision": p, "recall": r, "f1-score": f, "support": s}
                for name, p, r, f, s in rows}
    width = max(max(map(len, names)), len("weighted avg"), digits)
    head = f"{'':>{width}s} " + "".join(
        f" {h:>9}" for h in ("precision", "recall", "f1-score", "support"))
    lines = [f"{name:>{width}s} " + "".join(f" {v:>9.{digits}f}" for v in (p, r, f)) +
             f" {s:>9}" for name, p, r, f, s in rows]
    return "\n".join([head, "", *lines[:len(names)], "", *lines[len(names):], ""])
