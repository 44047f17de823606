"""The tagger's routines (_tagging_c against its spec _tagging_py): whole epochs and the hash
table, bit for bit, on the generated corpus and on adversarial id streams (tagging Python
tokens: test_tagging_tables.py)."""
import random

import numpy as np
import pytest
from conftest import _module
from tagged_corpus import tagged_sentences

import perceptron_c
from perceptron_c import _backend
from perceptron_c._core import _tagging_py as spec
from perceptron_c.tagging import PerceptronTagger
from perceptron_c.tagging import _codes as _tagger_core

EMPTY = np.uint64(spec.EMPTY)


def _state(n_ids, K, cap_rows, cap_keys):
    return {"row_of": np.full(n_ids, -1, dtype=np.int64),
            "weights": np.zeros((cap_rows, K)), "totals": np.zeros((cap_rows, K)),
            "stamps": np.zeros((cap_rows, K), dtype=np.int64),
            "live": np.zeros((cap_rows, K), dtype=bool),
            "row_key": np.zeros(cap_rows, dtype=np.int64),
            "keys": np.full(cap_keys, EMPTY, dtype=np.uint64),
            "vals": np.full(cap_keys, -1, dtype=np.int64),
            "counts": np.zeros(3, dtype=np.int64)}


def _grow(st):
    """Double the rows and rehash into a table twice as large (as tagging._codes does)."""
    cap = 2 * st["weights"].shape[0]
    for name in ("weights", "totals", "stamps", "live", "row_key"):
        old = st[name]
        new = np.zeros((cap,) + old.shape[1:], dtype=old.dtype)
        new[:old.shape[0]] = old
        st[name] = new
    used = st["keys"] != EMPTY
    keys, vals = st["keys"][used], st["vals"][used]
    st["keys"] = np.full(2 * st["keys"].shape[0], EMPTY, dtype=np.uint64)
    st["vals"] = np.full(st["keys"].shape[0], -1, dtype=np.int64)
    spec.hash_insert(st["keys"], st["vals"], keys, vals)


def _epochs(R, data, st, orders):
    """Run the epochs of ``orders`` on twin R, growing on every early return; the returns."""
    static, gold, dict_guess, offsets = data
    guesses = np.full(gold.shape[0], -7, dtype=np.int64)
    returns = []
    for order in orders:
        done = 0
        while done < order.shape[0]:
            r = R.tagger_epoch(static, st["row_of"], gold, dict_guess, offsets, order[done:],
                               st["weights"], st["totals"], st["stamps"], st["live"],
                               st["row_key"], st["keys"], st["vals"], st["counts"], guesses)
            returns.append(r)
            done += r
            if done < order.shape[0]:
                _grow(st)
    return guesses, returns


def _random_data(rng, n_sent, n_ids, K, n_extra):
    lengths = rng.integers(0, 7, n_sent)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n = int(offsets[-1])
    # distinct ids within a token, as NLTK's 14 feature strings are distinct
    static = np.argsort(rng.random((n, n_ids)), axis=1)[:, :10].astype(np.int64)
    gold = rng.integers(0, K, n).astype(np.int64)
    dict_guess = np.where(rng.random(n) < 0.2, rng.integers(0, K + 2 + n_extra, n), -1)
    return static, gold, dict_guess.astype(np.int64), offsets


@pytest.mark.parametrize("seed", range(6))
def test_epochs_equal_on_adversarial_ids(seed):
    C = _module("c", "_tagging")
    rng = np.random.default_rng(seed)
    K = int(rng.integers(1, 5))  # few classes and ids: ties, shared rows, repeated keys
    data = _random_data(rng, 60, int(rng.integers(10, 30)), K, 2)
    orders = [rng.integers(0, 60, int(rng.integers(1, 90))) for _ in range(4)]
    out = []
    for R in (C, spec):
        st = _state(int(data[0].max()) + 1, K, 4, 4)  # tiny: every epoch grows
        guesses, returns = _epochs(R, data, st, orders)
        out.append((st, guesses, returns))
    (a, ga, ra), (b, gb, rb) = out
    assert ra == rb and len(ra) > len(orders), "the capacity never ran out"
    assert np.array_equal(ga, gb) and (ga >= 0).any()  # -7: tokens of sentences not visited
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    assert a["counts"][1] > 0 and a["counts"][0] > 0


def _train(backend, sentences, nr_iter, seed=1):
    with _backend.using(backend):
        random.seed(seed)
        tagger = PerceptronTagger(load=False)
        tagger.train(sentences, nr_iter=nr_iter)
    return tagger


def test_trained_taggers_equal_across_twins_and_capacities(monkeypatch):
    _module("c", "_tagging")
    data = tagged_sentences(2, 1_500)
    c = _train("c", data, 3)
    monkeypatch.setattr(_tagger_core, "MIN_ROWS", 1)
    monkeypatch.setattr(_tagger_core, "MIN_KEYS", 2)
    for backend in ("c", "python"):
        other = _train(backend, data, 3)
        assert other._features == c._features and other._steps == c._steps
        for name in ("_weights", "_totals", "_stamps", "_live"):
            assert np.array_equal(getattr(other, name), getattr(c, name)), name


@pytest.mark.parametrize("backend", ["c", "python"])
def test_hand_traced_epoch(backend):
    R = _module(backend, "_tagging")
    # one sentence of two tokens, 2 classes, ids 0..10 (token 1 shares ids 0-2 with token 0)
    static = np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 1, 2, 10, 4, 5, 6, 7, 8, 9]],
                      dtype=np.int64)
    data = (static, np.array([0, 1]), np.array([-1, -1]), np.array([0, 2]))
    st = _state(11, 2, 64, 64)
    guesses, returns = _epochs(R, data, st, [np.array([0])])
    # token 0: no rows, scores (0, 0): the tie goes to class 1, a mistake -> 14 rows, in
    # template order; token 1: rows 0-2 and 8-13 score (+9, -9) for class 0 - a mistake again
    assert returns == [1] and guesses.tolist() == [1, 0]
    assert st["counts"].tolist() == [2, 14 + 5, 8]
    k = spec.dynamic_key
    assert st["row_key"][:14].tolist() == [0, 1, 2, k(3, 2, 3, 3), k(4, 2, 3, 3),
                                           k(5, 2, 3, 3), 3, k(7, 2, 3, 3), 4, 5, 6, 7, 8, 9]
    assert st["row_key"][14:19].tolist() == [k(3, 1, 2, 10), k(4, 1, 2, 10), k(5, 1, 2, 10),
                                             10, k(7, 1, 2, 10)]
    assert st["weights"][0].tolist() == [0.0, 0.0] and st["weights"][3].tolist() == [1, -1]
    assert st["totals"][0].tolist() == [1.0, -1.0] and st["stamps"][0].tolist() == [2, 2]


@pytest.mark.parametrize("backend", ["c", "python"])
def test_ties_go_to_the_last_class(backend):
    R = _module(backend, "_tagging")
    assert R.best_class(np.array([1.0, 3.0, 3.0, 2.0])) == 2
    assert R.best_class(np.zeros(4)) == 3
    w = np.array([[0.5, 1.0], [0.5, 0.0]])
    assert R.score_rows(w, np.array([0, 1])).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("backend", ["c", "python"])
def test_the_table_refuses_to_fill(backend):
    R = _module(backend, "_tagging")
    keys = np.full(4, EMPTY, dtype=np.uint64)
    vals = np.full(4, -1, dtype=np.int64)
    R.hash_insert(keys, vals, np.array([5, 6], dtype=np.uint64), np.array([0, 1]))
    with pytest.raises(ValueError, match="half full"):
        R.hash_insert(keys, vals, np.array([7], dtype=np.uint64), np.array([2]))
    with pytest.raises(ValueError, match="power-of-two"):
        R.hash_insert(keys[:3], vals[:3], keys[:0], vals[:0])


def test_odd_tags_take_the_string_path():
    data = [[("a", "X Y"), ("b", "-START-"), ("c", "Z")]] * 3
    tagger = _train(perceptron_c.BACKEND, data, 2)  # the string path exists on both twins
    assert _tagger_core.tag_codes(tagger) is None
    assert tagger.tag(["a", "b", "c"]) == tagger.tag_sents([["a", "b", "c"]])[0]
