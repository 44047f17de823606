"""Entity scores of tag sequences (perceptron_c.tagging, ``_entities``) against seqeval 1.2.2.

seqeval ships no wheel, so it is not a test dependency: its answers on generated sequences
are a fixture (tests/data/seqeval-1.2.2.json, written by make_seqeval_answers.py there),
compared on every run; where seqeval is installed, fresh sequences are compared with it
live as well. The promise: the same entities, the same floats (bit for bit), the same
report text, the same warnings, in both of seqeval's modes and every scheme.
"""
import json
import math
import pathlib
import random
import warnings

import numpy as np
import pytest

from perceptron_c import tagging
from perceptron_c.exceptions import UndefinedMetricWarning

FIXTURE = pathlib.Path(__file__).resolve().parent / "data" / "seqeval-1.2.2.json"
PREFIXES = {"IOB1": "IOB", "IOB2": "IOB", "IOE1": "IOE", "IOE2": "IOE", "IOBES": "IOBES",
            "BILOU": "BILOU"}
TYPES = ["PER", "LOC", "ORG", "B-X", ""]  # a type with a hyphen; no type at all


def _encode(scheme, length, joined, ends_before_same):
    """The prefixes of a chunk of ``length`` tags in ``scheme``; ``joined``: it follows a
    chunk of its type, ``ends_before_same``: one of its type follows it."""
    if scheme in ("IOBES", "BILOU"):
        single, first, last = ("S", "B", "E") if scheme == "IOBES" else ("U", "B", "L")
        return [single] if length == 1 else [first] + ["I"] * (length - 2) + [last]
    if scheme == "IOB2":
        return ["B"] + ["I"] * (length - 1)
    if scheme == "IOE2":
        return ["I"] * (length - 1) + ["E"]
    if scheme == "IOB1":
        return ["B" if joined else "I"] + ["I"] * (length - 1)
    return ["I"] * (length - 1) + ["E" if ends_before_same else "I"]  # IOE1


def generate(rng, scheme=None):
    """A case: sentences of chunks of ``scheme`` (random if None) between O tags, some tags
    then replaced by any prefix and type (``noise``), prefix first or last; predictions
    that copy, blank or swap tags."""
    scheme = scheme or rng.choice(sorted(PREFIXES))
    suffix, noise = rng.random() < 0.3, rng.choice([0.0, 0.0, 0.1, 0.4])

    def tag(prefix, type_):
        return prefix if prefix == "O" or not type_ else \
            f"{type_}-{prefix}" if suffix else f"{prefix}-{type_}"

    y_true = []
    for _ in range(rng.randint(1, 5)):
        segments = [("O", 1) if rng.random() < 0.4 else (rng.choice(TYPES), rng.randint(1, 3))
                    for _ in range(rng.randint(0, 6))]
        sentence = []
        for k, (type_, length) in enumerate(segments):
            if type_ == "O":
                sentence.append("O")
                continue
            joined = k > 0 and segments[k - 1][0] == type_
            before = k + 1 < len(segments) and segments[k + 1][0] == type_
            sentence += [tag(p, type_) for p in _encode(scheme, length, joined, before)]
        y_true.append([tag(rng.choice("IOBESUL"), rng.choice(TYPES))
                       if rng.random() < noise else t for t in sentence])
    pool = [t for s in y_true for t in s] or ["O"]
    y_pred = [[rng.choice([t, t, "O", rng.choice(pool)]) for t in s] for s in y_true]
    return {"y_true": y_true, "y_pred": y_pred, "scheme": scheme, "suffix": suffix}


def _plain(value):
    """A result as JSON keeps it, exactly: numpy scalars and arrays with their dtypes."""
    if isinstance(value, np.ndarray):
        return {"array": [_plain(v) for v in value.tolist()], "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return [value.item(), str(value.dtype)]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _calls(case, scheme_arg, full=True):
    """(name, function name, args) of the calls a case is compared on; scheme_arg turns a
    scheme's name into what the library takes (seqeval: its class). The fixture keeps
    zero_division=1 for F1 alone (``full=False``)."""
    kw = {"suffix": case["suffix"]}
    scheme = scheme_arg(case["scheme"])
    yield "get_entities", "get_entities", ((case["y_true"],), kw)
    for mode, sch in ((None, None), ("strict", scheme)):
        for average in (None, "micro", "macro", "weighted"):
            for zd in ("warn", 1):
                for fn in ("precision_score", "recall_score", "f1_score")[
                        0 if full or zd == "warn" else 2:]:
                    yield (f"{fn} {mode} {average} {zd}", fn,
                           ((case["y_true"], case["y_pred"]),
                            dict(kw, average=average, zero_division=zd, mode=mode, scheme=sch)))
        yield (f"report {mode}", "classification_report",
               ((case["y_true"], case["y_pred"]), dict(kw, mode=mode, digits=4)))
    yield "accuracy", "accuracy_score", ((case["y_true"], case["y_pred"]), {})
    yield "performance", "performance_measure", ((case["y_true"], case["y_pred"]), {})


def answers(case, functions, scheme_arg, calls=None, full=True):
    """{call name: [result, sorted distinct warnings]} of a library's functions on a case
    (``calls``: `_calls`'s by default); a call that raises: "raises"."""
    out = {}
    for name, fn, (args, kw) in calls or _calls(case, scheme_arg, full):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = _plain(functions(fn)(*args, **kw))
            except (ValueError, TypeError, KeyError, ZeroDivisionError):
                result = "raises"
        # (numpy's own RuntimeWarnings, whose words change between its releases, aside)
        out[name] = [result, sorted({f"{type(w.message).__name__}: {w.message}"
                                     for w in caught if w.category is not RuntimeWarning})]
    return out


def answers_of(fn, case, kw):
    """answers() of one call."""
    return answers(case, lambda _: fn, lambda name: name, [("call", "", (
        (case["y_true"], case["y_pred"]), kw))])


def ours(case, full=True):
    return answers(case, lambda fn: getattr(tagging, fn), lambda name: name, full=full)


def _same(a, b):
    """Equal, NaN equal to NaN (seqeval's macro average of no type is NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def _compare(case, want, got):
    for name in want:
        w, g = want[name], got[name]
        assert _same(w[0], g[0]), (name, case, w[0], g[0])
        assert w[1] == g[1], (name, case, w[1], g[1])


def test_seqevals_answers_on_generated_sequences():
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert fixture["seqeval"] == "1.2.2" and len(fixture["cases"]) >= 45
    for item in fixture["cases"]:
        want = {name: [result, [fixture["warnings"][i] for i in caught]]
                for name, (result, caught) in item["answers"].items()}
        _compare(item["case"], want, ours(item["case"], full=False))


@pytest.mark.parametrize("seed", range(4))
def test_fresh_sequences_against_seqeval(seed):
    pytest.importorskip("seqeval")
    import seqeval.metrics
    import seqeval.scheme

    def theirs(fn):
        if fn == "get_entities":
            return seqeval.metrics.sequence_labeling.get_entities
        return getattr(seqeval.metrics, fn)

    rng = random.Random(1000 + seed)
    for _ in range(25):
        case = generate(rng)
        _compare(case, answers(case, theirs, lambda name: getattr(seqeval.scheme, name)),
                 ours(case))
        for mode in (None, "strict"):  # the report as a dict of dicts
            kw = {"suffix": case["suffix"], "mode": mode, "output_dict": True}
            _compare(case, answers_of(theirs("classification_report"), case, kw),
                     answers_of(tagging.classification_report, case, kw))


# ------------------------------------------------------- seqeval's documented examples

Y_TRUE = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
Y_PRED = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]


def test_the_documented_examples():
    assert tagging.get_entities(["B-PER", "I-PER", "O", "B-LOC"]) == [("PER", 0, 1),
                                                                       ("LOC", 3, 3)]
    p, r, f, s = tagging.precision_recall_fscore_support(Y_TRUE, Y_PRED, average=None)
    assert p.tolist() == r.tolist() == f.tolist() == [0.0, 1.0] and s.tolist() == [1, 1]
    for average in ("micro", "macro", "weighted"):
        assert tagging.precision_recall_fscore_support(Y_TRUE, Y_PRED, average=average) == \
            (0.5, 0.5, 0.5, 2)
    assert tagging.accuracy_score(Y_TRUE, Y_PRED) == 0.8
    yt = [["O", "O", "B-MISC", "I-MISC", "B-MISC", "O", "O"], ["B-PER", "I-PER", "O"]]
    yp = [["O", "O", "B-MISC", "I-MISC", "B-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    assert tagging.precision_score(yt, yp, average=None).tolist() == [0.5, 1.0]
    assert tagging.precision_score(yt, yp) == 2 / 3
    assert tagging.precision_score(yt, yp, average="macro") == 0.75
    assert tagging.performance_measure(
        [["O", "O", "O", "B-MISC", "I-MISC", "O", "B-ORG"], ["B-PER", "I-PER", "O", "B-PER"]],
        [["O", "O", "B-MISC", "I-MISC", "I-MISC", "O", "O"], ["B-PER", "I-PER", "O", "B-MISC"]]
    ) == {"TP": 3, "FP": 3, "FN": 1, "TN": 4}
    assert tagging.classification_report(Y_TRUE, Y_PRED) == "\n".join([
        "              precision    recall  f1-score   support", "",
        "        MISC       0.00      0.00      0.00         1",
        "         PER       1.00      1.00      1.00         1", "",
        "   micro avg       0.50      0.50      0.50         2",
        "   macro avg       0.50      0.50      0.50         2",
        "weighted avg       0.50      0.50      0.50         2", ""])


def test_strict_mode_counts_only_the_schemes_chunks():
    # an I-PER after O: an entity for conlleval's reading, none in IOB2; in IOB1 it is one,
    # and a B only parts two chunks of one type (after O the chunk starts at the I after it)
    y = [["O", "I-PER", "I-PER", "O", "B-LOC", "I-LOC"]]
    assert tagging.get_entities(y) == [("PER", 1, 2), ("LOC", 4, 5)]
    assert tagging.entities_strict(y, "IOB2") == [(0, "LOC", 4, 6)]
    assert tagging.entities_strict(y, "IOB1") == [(0, "PER", 1, 3), (0, "LOC", 5, 6)]
    assert tagging.entities_strict([["I-PER", "I-PER", "B-PER", "I-LOC"]], "IOB1") == \
        [(0, "PER", 0, 2), (0, "PER", 2, 3), (0, "LOC", 3, 4)]
    pred = [["O", "O", "O", "O", "B-LOC", "I-LOC"]]
    assert tagging.f1_score(y, pred) == 2 / 3
    assert tagging.f1_score(y, pred, mode="strict", scheme="IOB2") == 1.0
    # as in seqeval: mode="strict" without a scheme reads in the default mode here ...
    assert tagging.f1_score(y, pred, mode="strict") == 2 / 3
    # ... and the report detects the scheme from y_true (IOB2: I, O and B)
    assert "PER" not in tagging.classification_report(y, pred, mode="strict")
    bioes = [["S-PER", "O", "B-LOC", "I-LOC", "E-LOC", "B-ORG", "O"]]
    assert tagging.entities_strict(bioes, "IOBES") == [(0, "PER", 0, 1), (0, "LOC", 2, 5)]
    assert tagging.entities_strict([["PER-U", "LOC-B", "LOC-L"]], "BILOU", suffix=True) == \
        [(0, "PER", 0, 1), (0, "LOC", 1, 3)]


@pytest.mark.parametrize("call, match", [
    (lambda: tagging.f1_score([["O", "B-X"]], [["O"]]), "inconsistent numbers of samples"),
    (lambda: tagging.f1_score([], []), "no sentences"),
    (lambda: tagging.f1_score([["B-X"]], [["B-X"]], average="samples"), "average has to be"),
    (lambda: tagging.f1_score([["B-X"]], [["B-X"]], zero_division=0.5), "zero_division"),
    (lambda: tagging.f1_score([["B-X"]], [["B-X"]], mode="lenient"), "mode must be"),
    (lambda: tagging.f1_score([["B-X"]], [["B-X"]], mode="strict", scheme="BIO"),
     "scheme must be one of"),
    (lambda: tagging.entities_strict([["O", "E-X"]], "IOB2"), "Invalid token is found: E-X"),
    (lambda: tagging.entities_strict([["Q-X"]], "IOB2"), "has no prefix"),
    (lambda: tagging.classification_report([["O"]], [["O"]]), "has an entity"),
    (lambda: tagging.accuracy_score([["O", "O"]], [["O"]]), "2 tokens and y_pred 1"),
    (lambda: tagging.get_entities([["O", 3]]), "non-empty str"),
    (lambda: tagging.precision_recall_fscore_support([["B-X"]], [["B-X"]], beta=-1.0),
     "beta should be"),
])
def test_bad_input_is_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sentences_must_be_sequences_of_tags():
    with pytest.raises(TypeError, match="sequence of sentences"):
        tagging.f1_score("B-PER", "B-PER")
    with pytest.raises(TypeError, match="found int"):
        tagging.f1_score([1], [1])
    # tuples and arrays are sentences too (seqeval wants lists)
    arrays = [np.array(["B-PER", "I-PER", "O"]), ("B-LOC",)]
    assert tagging.f1_score(arrays, [list(s) for s in arrays]) == 1.0


def test_a_score_with_nothing_to_divide_by_warns():
    with pytest.warns(UndefinedMetricWarning, match="Precision is ill-defined"):
        assert tagging.precision_score([["B-PER"]], [["O"]]) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tagging.precision_score([["B-PER"]], [["O"]], zero_division=1) == 1.0
    sklearn = pytest.importorskip("sklearn.exceptions")
    with pytest.warns(sklearn.UndefinedMetricWarning):  # scikit-learn's filters match it
        tagging.recall_score([["O"]], [["B-PER"]])
