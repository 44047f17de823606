"""The CRFsuite Trainer against python-crfsuite: parameters, weights, log, holdout, pickling."""
import ctypes
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from perceptron_c.crfsuite._online import glibc_rand
from perceptron_c.crfsuite._train import Trainer, _items
from perceptron_c.datasets import make_tagged_sentences

pycrfsuite = pytest.importorskip("pycrfsuite")

# pycrfsuite trained in a fresh process, where glibc's rand() starts from seed 1 as ours does
_REFERENCE = """
import json, sys, pycrfsuite
alg, params, data, holdout = json.load(sys.stdin)
t = pycrfsuite.Trainer(alg, params=params, verbose=False)
for x, y, g in data:
    t.append(x, y, g)
t.train(sys.argv[1], holdout)
tg = pycrfsuite.Tagger()
tg.open(sys.argv[1])
info = tg.info()
json.dump({"state": [[a, l, w] for (a, l), w in info.state_features.items()],
           "trans": [[a, b, w] for (a, b), w in info.transitions.items()],
           "iterations": [[i["num"], i["loss"]] for i in t.logparser.iterations]}, sys.stdout)
"""


def _features(sent):
    out = []
    for i, (w, _) in enumerate(sent):
        f = {"w": w, "suf": {"2": w[-2:], "3": w[-3:]}, "bias": 1.0, "len": len(w) / 4}
        if i:
            f["pw"] = sent[i - 1][0]
        out.append(f)
    return out


def _data(n=60, seed=0, groups=1):
    sents = make_tagged_sentences(seed, n, n_symbols=40)
    return [(_features(s), [t for _, t in s], i % groups) for i, s in enumerate(sents)]


def _reference(tmp_path, alg, params, data, holdout=-1):
    out = subprocess.run([sys.executable, "-c", _REFERENCE, str(tmp_path / "ref.crfsuite")],
                         input=json.dumps([alg, params, data, holdout]), capture_output=True,
                         text=True, check=True, timeout=600).stdout
    return json.loads(out)


def _ours(model):
    """Our weights as python-crfsuite's Tagger.info() shows them: printed with %f."""
    L = model.labels
    state = {(model.attributes[a], L[b]): float(f"{w:f}") for a, b, w in
             zip(model.state_attr, model.state_label, model.state_weight)}
    trans = {(L[i], L[j]): float(f"{model.transitions[i, j]:f}") for i in range(len(L))
             for j in range(len(L)) if model.transitions[i, j] != 0}
    return state, trans


def _train(alg, params, data, holdout=-1):
    t = Trainer(alg, params=params, verbose=False)
    for x, y, g in data:
        t.append(x, y, g)
    return t, t.train_model(holdout)


CASES = [
    ("ap", {"max_iterations": 5}),
    ("pa", {"max_iterations": 4}),
    ("pa", {"max_iterations": 3, "type": 0, "error_sensitive": False, "averaging": False}),
    ("pa", {"max_iterations": 3, "type": 2, "c": 0.3, "feature.possible_states": True,
            "feature.possible_transitions": True}),
    ("arow", {"max_iterations": 4}),
    ("arow", {"max_iterations": 3, "variance": 0.5, "gamma": 2.0, "feature.minfreq": 2}),
    ("ap", {"max_iterations": 3, "feature.possible_states": 1}),
]


@pytest.mark.parametrize(("alg", "params"), CASES)
def test_weights_equal_pycrfsuite(tmp_path, alg, params):
    """CRFsuite's order reproduced: every weight equal to the 6 decimals its dump shows."""
    data = _data()
    ref = _reference(tmp_path, alg, params, data)
    t, model = _train(alg, params, data)
    state, trans = _ours(model)
    assert state == {(a, b): w for a, b, w in ref["state"]}
    assert trans == {(a, b): w for a, b, w in ref["trans"]}
    assert [[i["num"], i["loss"]] for i in t.logparser.iterations] == ref["iterations"]


def test_holdout_equal_pycrfsuite(tmp_path):
    data = _data(groups=3)
    ref = _reference(tmp_path, "pa", {"max_iterations": 3}, data, holdout=1)
    t, model = _train("pa", {"max_iterations": 3}, data, holdout=1)
    assert _ours(model)[0] == {(a, b): w for a, b, w in ref["state"]}
    its = t.logparser.iterations
    assert len(its) == 3 and all("item_accuracy" in i and i["scores"] for i in its)
    n_held = sum(len(y) for _, y, g in data if g == 1)
    assert its[-1]["item_accuracy"].denominator <= n_held


def test_possible_states_and_transitions():
    data = _data(20)
    _, plain = _train("ap", {"max_iterations": 2}, data)
    t, dense = _train("ap", {"max_iterations": 2, "feature.possible_states": True,
                             "feature.possible_transitions": True}, data)
    L, A = len(t._labels), len(t._attrs)
    assert t._n_features == A * L + L * L
    assert t._n_features > plain.state_attr.shape[0] + np.count_nonzero(plain.transitions)


def test_parameters_as_pycrfsuite():
    for alg in ("ap", "pa", "arow"):
        ours, theirs = Trainer(alg, verbose=False), pycrfsuite.Trainer(alg, verbose=False)
        assert ours.params() == theirs.params()
        assert ours.get_params() == theirs.get_params()
        for name in ours.params():
            assert ours.help(name) == theirs.help(name)
        for name, value in [("max_iterations", "12abc"), ("epsilon", "abc"),
                            ("feature.possible_states", True), ("feature.minfreq", 2.5)]:
            ours.set(name, value)
            theirs.set(name, value)
            assert ours.get(name) == theirs.get(name)
        for call in ("get", "help"):
            with pytest.raises(ValueError, match="Parameter not found"):
                getattr(ours, call)("nope")
        with pytest.raises(ValueError, match="Parameter not found"):
            ours.set("nope", 1)
    t = Trainer(verbose=False)
    t.select("passive-aggressive")
    assert t.params() == pycrfsuite.Trainer("pa", verbose=False).params()


@pytest.mark.parametrize("alg", ["lbfgs", "l2sgd", "LBFGS"])
def test_likelihood_trainers_refused(alg):
    with pytest.raises(ValueError, match="'ap'.*'pa'.*'arow'"):
        Trainer(alg)
    with pytest.raises(ValueError, match="Bad arguments"):
        Trainer("ap").select("ap", "crf2d")


def test_items_as_pycrfsuite():
    xseq = [{"a": {"b": 1.0, "c": {"d": 2}}, "e": "f", "g": True, "h": ["i", "j"]},
            ["x", "y"], {"n": 0.5}]
    theirs = pycrfsuite.ItemSequence(xseq).items()
    ours = [dict(zip(names, values.tolist())) for names, values in _items(xseq)]
    assert ours == theirs
    assert [dict(zip(n, v.tolist())) for n, v in _items(pycrfsuite.ItemSequence(xseq))] \
        == theirs
    with pytest.raises(ValueError, match="numbers of items and labels differ"):
        Trainer("ap").append([["a"]], ["x", "y"])


def test_pickle_clear_and_errors():
    data = _data(15)
    t, model = _train("arow", {"max_iterations": 2}, data)
    t2 = pickle.loads(pickle.dumps(t))
    assert t2.get_params() == t.get_params()
    m2 = t2.train_model()
    assert np.array_equal(m2.state_weight, model.state_weight)
    t2.clear()
    with pytest.raises(ValueError, match="empty"):
        t2.train_model()
    with pytest.raises(ValueError, match="not initialized"):
        Trainer(verbose=False).train("")


def test_log_printed_when_verbose(capsys):
    _train("ap", {"max_iterations": 2}, _data(5))
    assert capsys.readouterr().out == ""
    t = Trainer("ap", params={"max_iterations": 2})
    for x, y, g in _data(5):
        t.append(x, y, g)
    t.train("")
    out = capsys.readouterr().out
    assert "***** Iteration #2 *****" in out and "Loss: " in out
    assert t.logparser.featgen_num_features == t._n_features


def test_glibc_rand_is_libc_rand():
    """Our rand() is glibc's from seed 1 (checked against libc itself where it is glibc)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        pytest.skip("not glibc")
    libc.srand(1)
    r = glibc_rand(1)
    assert [next(r) for _ in range(500)] == [libc.rand() for _ in range(500)]


def test_write_model_called(tmp_path, monkeypatch):
    """train(path) hands the trained model to the file writer."""
    import types
    seen = {}
    fake = types.ModuleType("perceptron_c.crfsuite._file")
    fake.write_model = lambda crf: seen.update(crf=crf) or b"model bytes"
    monkeypatch.setitem(sys.modules, "perceptron_c.crfsuite._file", fake)
    t = Trainer("ap", params={"max_iterations": 1}, verbose=False)
    t.append([["a"], ["b"]], ["x", "y"])
    t.train(str(tmp_path / "m"))
    assert (tmp_path / "m").read_bytes() == b"model bytes" and seen["crf"].labels == ["x", "y"]
    assert t.logparser.storing_seconds is not None
    assert [e for e, _, _ in t.logparser.events][-2:] == ["optimization_end", "end"]


def test_callbacks_get_each_part_of_the_log_and_its_numbers():
    seen = []

    class Watching(Trainer):
        def on_iteration(self, log, info):
            seen.append((log, info))

        def on_featgen_end(self, log):
            seen.append((log, None))

    t = Watching("ap", params={"max_iterations": 3}, verbose=True)
    for x, y, g in _data(8, groups=2):
        t.append(x, y, g)
    t.train("", holdout=1)
    assert seen[0][0].startswith("Number of features:") or "Number of features" in seen[0][0]
    iterations = [info for _, info in seen[1:]]
    assert [i["num"] for i in iterations] == [1, 2, 3] == [i["num"] for i in t.logparser.iterations]
    for (log, info) in seen[1:]:
        assert log.startswith(f"***** Iteration #{info['num']} *****\n")
        assert f"Loss: {info['loss']:f}\n" in log and "Item accuracy:" in log
        assert 0 <= info["item_accuracy_float"] <= 1 and info["scores"]
    assert "".join(t.logparser.log) == "".join(
        "".join(t.logparser.log[s:e]) for _, s, e in t.logparser.events) + \
        "".join(t.logparser.log[t.logparser.events[-1][2]:])


@pytest.mark.parametrize("algorithm", ["ap", "pa", "arow"])
def test_our_model_files_open_in_pycrfsuite_with_the_same_labels(tmp_path, algorithm):
    """The issue's goal: files our trainers write, tagged by python-crfsuite and by us alike."""
    pycrfsuite = pytest.importorskip("pycrfsuite")
    from perceptron_c import crfsuite

    data = _data(80)
    t = crfsuite.Trainer(algorithm, params={"max_iterations": 4}, verbose=False)
    for x, y, _ in data[:60]:
        t.append(x, y)
    path = str(tmp_path / "model.crfsuite")
    t.train(path)
    theirs, ours = pycrfsuite.Tagger(), crfsuite.Tagger()
    theirs.open(path)
    ours.open(path)
    assert theirs.labels() == ours.labels()
    for x, _, _ in data[60:]:
        assert theirs.tag(pycrfsuite.ItemSequence(x)) == ours.tag(crfsuite.ItemSequence(x))
