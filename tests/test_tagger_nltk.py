"""PerceptronTagger against NLTK's own (installed from PyPI by the test extra): same weights,
tag dictionary, classes and tags; its files, its errors and the routines traced by hand."""
import json
import os
import random
import sys
import threading

import numpy as np
import pytest
from conftest import run_python
from nltk.tag.perceptron import PerceptronTagger as NLTKTagger
from tagged_corpus import tagged_sentences

import perceptron_c
from perceptron_c import ConcurrentUseError, FileFormatError, NotFittedError
from perceptron_c._core import _tagging_py as routines
from perceptron_c.tagging import PerceptronTagger

TRAIN = tagged_sentences(0, 12_000)
HELD_OUT = tagged_sentences(99, 3_000)


def _both(seed, nr_iter, sentences=TRAIN):
    random.seed(seed)
    theirs = NLTKTagger(load=False)
    theirs.train(sentences, nr_iter=nr_iter)
    after_theirs = random.random()
    random.seed(seed)
    ours = PerceptronTagger(load=False)
    ours.train(sentences, nr_iter=nr_iter)
    assert random.random() == after_theirs, "the global random was not drawn as NLTK draws it"
    return theirs, ours


@pytest.fixture(scope="module")
def pair():
    return _both(3, 5)


def _words(sentences):
    return [[w for w, _ in s] for s in sentences]


def test_the_corpus_exercises_the_tagger(pair):
    theirs, _ = pair
    words = {w for s in TRAIN for w, _ in s}
    assert len(theirs.tagdict) >= 15 and len(theirs.classes) >= 15
    assert any(len(w) == 4 and w.isdigit() for w in words) and any("-" in w for w in words)
    assert any(w.startswith("-") for w in words) and any(w[0].isupper() for w in words)
    assert any(len({t for s in TRAIN for w, t in s if w == x}) > 1 for x in ("run", "well"))


@pytest.mark.parametrize("seed,nr_iter", [(0, 1), (1, 3), (7, 5), (11, 8)])
def test_same_model_as_nltk(seed, nr_iter, model_backend):
    theirs, ours = _both(seed, nr_iter)
    assert ours.weights == theirs.model.weights  # averaged and rounded, zeros dropped
    assert list(ours.weights) == list(theirs.model.weights)  # features in NLTK's order
    assert ours.tagdict == theirs.tagdict and ours.classes == theirs.classes
    for words in _words(HELD_OUT):
        assert ours.tag(words) == theirs.tag(words)
        assert ours.tag(words, use_tagdict=False) == theirs.tag(words, use_tagdict=False)
    words = _words(HELD_OUT)
    assert ours.tag_sents(words) == theirs.tag_sents(words)


def test_a_second_train_goes_on_as_nltk_does(model_backend):
    more = tagged_sentences(5, 2_000) + [[("zzz", "SYM"), ("run", "VB")]]
    random.seed(4)
    theirs = NLTKTagger(load=False)
    theirs.train(TRAIN[:300], nr_iter=2)
    theirs.train(more, nr_iter=2)
    random.seed(4)
    ours = PerceptronTagger(load=False)
    ours.train(TRAIN[:300], nr_iter=2)
    ours.train(more, nr_iter=2)  # a new class, SYM: the columns move
    assert ours.weights == theirs.model.weights and ours.classes == theirs.classes
    assert ours.tagdict == theirs.tagdict
    for words in _words(HELD_OUT[:100]):
        assert ours.tag(words, use_tagdict=False) == theirs.tag(words, use_tagdict=False)


def test_odd_tags_as_nltk():
    """Tags with spaces or named -START-: the string path, still NLTK's model."""
    odd = [[(w, {"NN": "N N", "DT": "-START-"}.get(t, t)) for w, t in s]
           for s in TRAIN[:400]]
    theirs, ours = _both(2, 2, odd)
    assert ours.weights == theirs.model.weights
    words = _words(HELD_OUT[:100])
    assert ours.tag_sents(words) == theirs.tag_sents(words)


def test_return_conf(pair):
    theirs, ours = pair
    for words in _words(HELD_OUT[:60]):
        for flag in (True, False):
            a = theirs.tag(words, return_conf=True, use_tagdict=flag)
            b = ours.tag(words, return_conf=True, use_tagdict=flag)
            assert [t[:2] for t in a] == [t[:2] for t in b]
            # the softmax's sum runs in NLTK's set order: equal to rounding
            assert np.allclose([t[2] for t in a], [t[2] for t in b], rtol=1e-12, atol=0)


def test_empty_sentence_and_tag_sents(pair):
    theirs, ours = pair
    assert ours.tag([]) == theirs.tag([]) == []
    sents = _words(HELD_OUT[:20]) + [[]]
    assert ours.tag_sents(sents) == theirs.tag_sents(sents)


def test_accuracy_and_evaluate(pair):
    theirs, ours = pair
    assert ours.accuracy(HELD_OUT) == theirs.accuracy(HELD_OUT)
    assert 0.5 < ours.accuracy(HELD_OUT) < 1.0
    with pytest.warns(DeprecationWarning, match="accuracy"):
        assert ours.evaluate(HELD_OUT) == ours.accuracy(HELD_OUT)


def test_features_and_normalize_are_nltks(pair):
    theirs, ours = pair
    for words in _words(HELD_OUT[:30]) + [["", "-x", "1999", "12", "a-b", "ABC"]]:
        context = theirs.START + [theirs.normalize(w) for w in words] + theirs.END
        assert context == ours._context(words)
        for i, w in enumerate(words):
            a = theirs._get_features(i, w, context, "NN", "DT")
            b = ours._get_features(i, w, context, "NN", "DT")
            assert list(a.items()) == list(b.items())


def test_save_and_load_round_trip(pair, tmp_path):
    _, ours = pair
    path = ours.save(tmp_path / "tagger")
    assert path.endswith(".npz")
    for again in (PerceptronTagger.load(path), perceptron_c.load(path)):
        assert isinstance(again, PerceptronTagger)
        assert again.weights == ours.weights and again.tagdict == ours.tagdict
        again._dense()  # (it holds the file's pairs until it trains)
        assert np.array_equal(again._totals, ours._totals) and again._steps == ours._steps
        assert again.tag_sents(_words(HELD_OUT[:50])) == ours.tag_sents(_words(HELD_OUT[:50]))


@pytest.mark.parametrize("structured", [False, True])
def test_a_tagger_that_has_tagged_pickles(structured):
    """Its tagging index (a cache holding closures) is rebuilt after unpickling."""
    import pickle

    ours = PerceptronTagger(load=False, structured=structured)
    ours.train(TRAIN[:200], nr_iter=2)
    words = _words(HELD_OUT[:30])
    tagged = ours.tag_sents(words)
    again = pickle.loads(pickle.dumps(ours))
    assert again.tag_sents(words) == tagged
    if not structured:
        assert again.weights == ours.weights
    again.train(TRAIN[200:260], nr_iter=1)  # and trains on


def test_save_keeps_any_str(tmp_path):
    odd = [[("a\x00", "X\x00"), ("\ud800b", "Y")]] * 30
    tagger = PerceptronTagger(load=False)
    tagger.train(odd, nr_iter=2)
    again = PerceptronTagger.load(tagger.save(tmp_path / "odd.npz"))
    assert again.classes == {"X\x00", "Y"} and again.weights == tagger.weights
    assert again.tagdict == tagger.tagdict == {"a\x00": "X\x00", "\ud800b": "Y"}


def test_bad_model_files(pair, tmp_path):
    _, ours = pair
    path = ours.save(tmp_path / "tagger.npz")
    data = (tmp_path / "tagger.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(FileFormatError, match="cut.npz"):
        PerceptronTagger.load(tmp_path / "cut.npz")
    with np.load(path, allow_pickle=False) as archive:
        arrays = dict(archive)
    for name, value, match in (
            ("pair_stamps", arrays["state/pair_stamps"] + 10**9, "stamps"),  # beyond the steps
            ("pair_rows", arrays["state/pair_rows"] + 10**9, "pair_rows"),
            ("pair_cols", np.zeros_like(arrays["state/pair_cols"]), "pair_rows and pair_cols"),
            ("pair_totals", arrays["state/pair_totals"][:-1], "pair_totals")):
        np.savez(tmp_path / "bad.npz", **{**arrays, f"state/{name}": value})
        with pytest.raises(FileFormatError, match=match):
            perceptron_c.load(tmp_path / "bad.npz")


def test_files_hold_the_live_pairs_and_old_dense_files_load(pair, tmp_path, monkeypatch):
    """The .npz holds the updated (feature, tag) pairs only, and a later train goes on from
    a loaded model as from the one saved; files of the dense layout still load."""
    from perceptron_c.tagging import _state as _tagger_state  # where the tagger's state is written

    _, ours = pair
    sparse = ours.save(tmp_path / "sparse.npz")
    monkeypatch.setattr(_tagger_state, "sparse_pairs", lambda arrays: arrays)
    dense = ours.save(tmp_path / "dense.npz")
    monkeypatch.undo()
    assert os.path.getsize(sparse) < os.path.getsize(dense)
    more = tagged_sentences(8, 1_500)
    for path in (sparse, dense):
        again = PerceptronTagger.load(path)
        again._dense()  # (it holds the file's pairs until it trains)
        for name in ("_weights", "_totals", "_stamps", "_live"):
            assert np.array_equal(getattr(again, name), getattr(ours, name)), name
        random.seed(6)
        again.train(more, nr_iter=2)
        random.seed(6)
        fresh = PerceptronTagger.load(sparse)
        fresh.train(more, nr_iter=2)
        assert again.weights == fresh.weights


def test_reads_the_json_files_nltk_writes(pair, tmp_path, monkeypatch):
    import nltk.data

    theirs, ours = pair
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)] + nltk.data.path)  # its sandbox
    theirs.save_to_json(lang="xx", loc=str(tmp_path / "nltk"))
    loaded = PerceptronTagger.from_nltk_json(tmp_path / "nltk", lang="xx")
    also = PerceptronTagger(lang="xx", loc=tmp_path / "nltk")  # load=True with loc: NLTK's
    for tagger in (loaded, also):
        assert tagger.weights == theirs.model.weights and tagger.tagdict == theirs.tagdict
        for words in _words(HELD_OUT[:100]):
            assert tagger.tag(words, use_tagdict=False) == theirs.tag(words, use_tagdict=False)
    ours.to_nltk_json(tmp_path / "ours", lang="yy")
    back = NLTKTagger(lang="yy", loc=str(tmp_path / "ours"))
    assert back.model.weights == ours.weights and back.classes == ours.classes
    assert back.tag_sents(_words(HELD_OUT[:50])) == ours.tag_sents(_words(HELD_OUT[:50]))


def test_bad_json_files(pair, tmp_path):
    _, ours = pair
    ours.to_nltk_json(tmp_path, lang="eng")
    weights = tmp_path / "averaged_perceptron_tagger_eng.weights.json"
    weights.write_text(json.dumps({"bias": {"NOT-A-CLASS": 1.0}}))
    with pytest.raises(FileFormatError, match="weights.json"):
        PerceptronTagger.from_nltk_json(tmp_path)
    weights.write_text("{nope")
    with pytest.raises(FileFormatError, match="not a JSON"):
        PerceptronTagger.from_nltk_json(tmp_path)
    classes = sorted(ours.classes)
    for big in (2**1024, -(2**1100), 10**400):  # an int no float holds (was OverflowError)
        weights.write_text(json.dumps({"bias": {classes[0]: big}}))
        with pytest.raises(FileFormatError, match="finite numbers"):
            PerceptronTagger.from_nltk_json(tmp_path)
    with pytest.raises(ValueError, match="lang"):
        PerceptronTagger.from_nltk_json(tmp_path, lang="../x")


@pytest.mark.parametrize("fail", ["disk full at file 2", "disk full at file 3",
                                  "Ctrl-C at rename 2", "Ctrl-C at rename 3"])
def test_to_nltk_json_writes_all_three_files_or_none(fail, tmp_path, monkeypatch):
    """A failure part-way leaves the model the folder held (it left new weights beside the
    old tag dictionary and classes, which from_nltk_json loaded as one model)."""
    from perceptron_c._utils import _npzfile

    old, new = _both(1, 1, TRAIN[:300])[1], _both(2, 2, TRAIN[300:900])[1]
    old.to_nltk_json(tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())
    before = {name: (tmp_path / name).read_bytes() for name in files}
    calls = {"n": 0}
    if fail.startswith("disk"):
        at = int(fail[-1])
        write = _npzfile._stage

        def stage(path, staged, fill):
            calls["n"] += 1
            if calls["n"] == at:
                raise OSError(28, "No space left on device", path)
            write(path, staged, fill)
        monkeypatch.setattr(_npzfile, "_stage", stage)
        with pytest.raises(OSError, match="No space"):
            new.to_nltk_json(tmp_path)
    else:
        at, replace = int(fail[-1]), os.replace

        def interrupted(a, b):
            if str(b).endswith(".json"):
                calls["n"] += 1
                if calls["n"] == at:
                    raise KeyboardInterrupt
            replace(a, b)
        monkeypatch.setattr(os, "replace", interrupted)
        with pytest.raises(KeyboardInterrupt):
            new.to_nltk_json(tmp_path)
        monkeypatch.setattr(os, "replace", replace)
    assert sorted(p.name for p in tmp_path.iterdir()) == files  # nothing left behind
    assert {name: (tmp_path / name).read_bytes() for name in files} == before
    again = PerceptronTagger.from_nltk_json(tmp_path)
    assert again.weights == old.weights and again.tagdict == old.tagdict
    new.to_nltk_json(tmp_path)
    assert PerceptronTagger.from_nltk_json(tmp_path).weights == new.weights


def test_a_real_ctrl_c_during_the_renames_waits_for_them(tmp_path, monkeypatch):
    """SIGINT in the middle of the renames: they all happen, then KeyboardInterrupt."""
    import signal

    old, new = _both(1, 1, TRAIN[:300])[1], _both(2, 2, TRAIN[300:900])[1]
    old.to_nltk_json(tmp_path)
    replace, calls = os.replace, []

    def signalled(a, b):
        calls.append(b)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGINT)
        replace(a, b)
    monkeypatch.setattr(os, "replace", signalled)
    with pytest.raises(KeyboardInterrupt):
        new.to_nltk_json(tmp_path)
    monkeypatch.setattr(os, "replace", replace)
    assert PerceptronTagger.from_nltk_json(tmp_path).weights == new.weights
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("with_nltk", [True, False])
def test_load_true_without_a_model_says_what_to_do(with_nltk, tmp_path, monkeypatch):
    """Where nltk is installed, its nltk.data.path is searched (as NLTK's find does);
    without it, NLTK's default folders ($NLTK_DATA first)."""
    import nltk.data

    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    if not with_nltk:
        monkeypatch.setitem(sys.modules, "nltk.data", None)  # import nltk.data fails
    with pytest.raises(LookupError, match="load=False"):
        PerceptronTagger()
    ours = PerceptronTagger(load=False)
    ours.train(TRAIN[:50], nr_iter=1)
    ours.to_nltk_json(tmp_path / "taggers" / "averaged_perceptron_tagger_eng")
    assert PerceptronTagger().weights == ours.weights  # found in $NLTK_DATA


@pytest.mark.parametrize("call,error,match", [
    (lambda t: t.train([]), ValueError, "no tokens"),
    (lambda t: t.train([[]]), ValueError, "no tokens"),
    (lambda t: t.train("the cat"), TypeError, "sentences"),
    (lambda t: t.train([[("a", "DT", "x")]]), ValueError, r"sentences\[0\]\[0\]"),
    (lambda t: t.train([["a", "b"]]), ValueError, r"sentences\[0\]\[0\]"),
    (lambda t: t.train([[("a", 1)]]), TypeError, r"sentences\[0\]\[0\]"),
    (lambda t: t.train([[("a", "DT")], [("b", "NN"), ("c", "NN", "x")]]), ValueError,
     r"sentences\[1\]\[1\]"),
    (lambda t: t.train([[("a", "DT")], [("b", None)]]), TypeError, r"sentences\[1\]\[0\]"),
    (lambda t: t.train([[("a", "DT")], "bc"]), TypeError, r"sentences\[1\]"),
    (lambda t: t.train([[("a", "DT")], [["bc", "NN"], "cd"]]), ValueError,
     r"sentences\[1\]\[1\]"),
    (lambda t: t.train([[("a", "DT")]], nr_iter=-1), ValueError, "nr_iter"),
    (lambda t: t.train([[("a", "DT")]], nr_iter=2.0), ValueError, "nr_iter"),
    (lambda t: t.tag("the cat"), TypeError, "tokens"),
    (lambda t: t.tag(["the", 3]), TypeError, r"tokens\[1\]"),
    (lambda t: t.tag_sents([["a"], ["b", 2]]), TypeError, r"sentences\[1\]\[1\]"),
    (lambda t: t.tag(["the"]), NotFittedError, "train"),
    (lambda t: t.save("x.npz"), NotFittedError, "train"),
    (lambda t: t.accuracy([]), ValueError, "gold"),
])
def test_bad_input(call, error, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=match):
        call(PerceptronTagger(load=False))


class _Str(str):
    pass


def test_any_sequence_of_pairs_trains_the_same_model(pair, model_backend):
    """The one-pass gate's slow path (tuples, lists, generators, str subclasses) gives the
    model the fast path gives."""
    odd = [tuple([_Str(w), t] if k % 2 else (w, t) for k, (w, t) in enumerate(s))
           for s in TRAIN]
    random.seed(3)
    ours = PerceptronTagger(load=False)
    ours.train((iter(s) if k % 3 else s for k, s in enumerate(odd)), nr_iter=5)
    assert ours.weights == pair[1].weights and ours.tagdict == pair[1].tagdict


def test_training_from_another_thread_is_refused(pair):
    _, ours = pair
    tagger = PerceptronTagger(load=False)
    seen = []

    def sentences():
        worker = threading.Thread(target=lambda: seen.append(_try(tagger.tag, ["a"])))
        worker.start()
        worker.join()
        yield from TRAIN[:20]

    tagger.train(sentences(), nr_iter=1)
    assert isinstance(seen[0], ConcurrentUseError)
    assert tagger.tag(["a"])  # after training, tagging works


def _try(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return exc


def test_nltk_is_not_imported():
    code = ("import sys, perceptron_c.tagging as t; g = t.PerceptronTagger(load=False); "
            "g.train([[('a', 'DT'), ('cat', 'NN')]] * 30); g.tag(['a', 'dog']); "
            "sys.exit('nltk' in sys.modules)")
    assert run_python(["-c", code], env=dict(os.environ), timeout=300).returncode == 0


# ---------------------------------------------------------------- the routines by hand

def test_update_and_average_traced_by_hand():
    w, tot = np.zeros((3, 2)), np.zeros((3, 2))
    st, live = np.zeros((3, 2), dtype=np.int64), np.zeros((3, 2), dtype=bool)
    routines.update_rows(w, tot, st, live, np.array([0, 2]), 1, 0, 2)  # step 2, truth 1
    assert w.tolist() == [[-1, 1], [0, 0], [-1, 1]] and st.tolist() == [[2, 2], [0, 0], [2, 2]]
    assert tot.tolist() == [[0, 0], [0, 0], [0, 0]]  # weights were 0 before step 2
    routines.update_rows(w, tot, st, live, np.array([2]), 0, 1, 5)  # step 5, truth 0
    # row 2: totals += (5 - 2) * (-1, 1); weights (0, 0)
    assert tot[2].tolist() == [-3, 3] and w[2].tolist() == [0, 0] and st[2].tolist() == [5, 5]
    routines.average(w, tot, st, live, 6)
    # row 0: (0 + (6 - 2) * (-1, 1)) / 6 = -0.667, 0.667; row 2: (-3 + 0) / 6 = -0.5, 0.5
    assert w.tolist() == [[-0.667, 0.667], [0, 0], [-0.5, 0.5]]
    assert live.tolist() == [[True, True], [False, False], [True, True]]


def test_average_rounds_as_python_and_drops_minus_zero():
    w = np.array([[0.0025, -0.0004]])  # np.round(0.0025, 3) is 0.002, round's 0.003
    tot, st, live = np.zeros((1, 2)), np.zeros((1, 2), dtype=np.int64), np.ones((1, 2), bool)
    routines.average(w, tot, st, live, 1)
    assert w[0, 0] == round(0.0025, 3) != np.round(0.0025, 3) and w[0, 1] == 0.0
    assert not np.signbit(w[0, 1]) and live.tolist() == [[True, False]]


def test_scores_are_summed_row_by_row():
    weights = np.array([[1e16], [1.0], [1.0], [-1e16], [1.0], [1.0], [1.0], [1.0], [1.0]])
    rows = np.arange(9)
    expected = 0.0
    for r in rows:
        expected += weights[r, 0]
    assert routines.score_rows(weights, rows)[0] == expected  # np.sum gives another value
    assert routines.score_rows(weights, rows[:0]).tolist() == [0.0]


def test_ties_go_to_the_greatest_label():
    assert routines.best_class(np.array([1.0, 3.0, 3.0, 2.0])) == 2
    tagger = PerceptronTagger(load=False)
    tagger.train([[("x", "A"), ("y", "B")]], nr_iter=0)  # no updates: every score is 0
    assert tagger.tag(["q", "r"]) == [("q", "B"), ("r", "B")]
