"""Second-order structured perceptron (``trans2``, ``order=2``): Viterbi over tag pairs against
brute force, hand-traced trigram updates, C == Python bit for bit on every Viterbi path and
chunk size, and the estimator learning what a first-order model cannot."""
import itertools
import pickle

import numpy as np
import pytest
from conftest import HAVE_C, routine_fixtures, to_csr

import perceptron_c
from perceptron_c import StructuredPerceptron
from perceptron_c._core import _contract
from perceptron_c._estimator._training import fixed_epochs

seq, seq_twins = routine_fixtures("_sequence")


def offsets_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def viterbi2(mod, E, trans, trans2, lengths, allowed=None):
    out = np.full(E.shape[0], -1, dtype=np.int64)
    mod.viterbi(np.ascontiguousarray(E, dtype=np.float64), trans, offsets_of(lengths), out,
                allowed=allowed, trans2=trans2)
    return out.tolist()


def refusal(mod, E, trans, trans2, lengths, allowed=None):
    try:
        return viterbi2(mod, E, trans, trans2, lengths, allowed)
    except FloatingPointError as exc:
        return str(exc)


def triples(path, K):
    padded = [K, K] + list(path) + [K]
    return [tuple(padded[t:t + 3]) for t in range(len(path) + 1)]


def path_score(E, trans, trans2, path):
    """The score of a path as the contract sums it, in exact integers when the inputs are."""
    K = E.shape[1]
    s = trans[K, path[0]] + sum(E[t, p] for t, p in enumerate(path))
    s += sum(trans[a, b] for a, b in zip(path, path[1:])) + trans[K + 1, path[-1]]
    return s + sum(trans2[t] for t in triples(path, K))


def brute_force(E, trans, trans2):
    T, K = E.shape
    scored = [(path_score(E, trans, trans2, p), list(p))
              for p in itertools.product(range(K), repeat=T)]
    best = max(s for s, _ in scored)
    return [p for s, p in scored if s == best]


# ------------------------------------------------------------------------ Viterbi
@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_viterbi_over_pairs_is_the_best_path(seq, rng, K):
    for T in range(1, 6):
        for _ in range(3):
            # integers: exact sums, many ties; the path is one of the best ones
            E = rng.integers(-3, 4, size=(T, K)).astype(np.float64)
            trans = rng.integers(-3, 4, size=(K + 2, K)).astype(np.float64)
            trans2 = rng.integers(-3, 4, size=(K + 1,) * 3).astype(np.float64)
            assert viterbi2(seq, E, trans, trans2, [T]) in brute_force(E, trans, trans2)
            # continuous scores: the one best path
            E, trans = rng.normal(size=(T, K)), rng.normal(size=(K + 2, K))
            trans2 = rng.normal(size=(K + 1,) * 3)
            paths = brute_force(E, trans, trans2)
            assert len(paths) == 1 and viterbi2(seq, E, trans, trans2, [T]) == paths[0]


def test_trigram_scores_decide_what_bigrams_cannot(seq):
    # no emissions, no bigram scores: "0 0 1 0 0 1" wins only through trans2, which rewards
    # 0 after (0, 1) or (1, 0), 1 after (0, 0), and the boundary's trigrams of that pattern
    K, T = 2, 6
    trans2 = np.zeros((K + 1,) * 3)
    for h, i, j in triples([0, 0, 1, 0, 0, 1], K):
        trans2[h, i, j] = 1.0
    assert viterbi2(seq, np.zeros((T, K)), np.zeros((K + 2, K)), trans2, [T]) == \
        [0, 0, 1, 0, 0, 1]
    # ties go to the lowest tags: all zero is 0 0 ... 0, one token or many
    assert viterbi2(seq, np.zeros((1, 3)), np.zeros((5, 3)), np.zeros((4, 4, 4)), [1]) == [0]
    assert viterbi2(seq, np.zeros((4, 3)), np.zeros((5, 3)), np.zeros((4, 4, 4)), [4]) == \
        [0] * 4


def test_zero_trigram_scores_decode_as_first_order(seq, rng):
    for K in (1, 2, 3, 5):
        lengths = rng.integers(1, 7, size=8)
        E = rng.integers(-3, 4, size=(lengths.sum(), K)).astype(np.float64)
        trans = rng.integers(-3, 4, size=(K + 2, K)).astype(np.float64)
        first = np.empty(E.shape[0], dtype=np.int64)
        seq.viterbi(E, trans, offsets_of(lengths), first)
        second = viterbi2(seq, E, trans, np.zeros((K + 1,) * 3), lengths)
        zero = np.zeros((K + 1,) * 3)
        for a, z in zip(offsets_of(lengths)[:-1], offsets_of(lengths)[1:]):
            assert path_score(E[a:z], trans, zero, second[a:z]) == \
                path_score(E[a:z], trans, zero, first[a:z].tolist())


def test_allowed_transitions_hold_in_second_order(seq, rng):
    K = 3
    allowed = np.ones((K + 2, K), dtype=np.uint8)
    allowed[0, 1] = allowed[K, 2] = 0  # never 0 -> 1, never start with 2
    for T in range(1, 6):
        E, trans = rng.normal(size=(T, K)), rng.normal(size=(K + 2, K))
        trans2 = rng.normal(size=(K + 1,) * 3)
        ok = [p for p in itertools.product(range(K), repeat=T)
              if p[0] != 2 and all((a, b) != (0, 1) for a, b in zip(p, p[1:]))]
        best = max(ok, key=lambda p: path_score(E, trans, trans2, p))
        assert viterbi2(seq, E, trans, trans2, [T], allowed) == list(best)


# ------------------------------------------------------------------------ the epoch
def state(K, d, averaged):
    st = {"W": np.zeros((d, K)), "b": np.zeros(K), "trans": np.zeros((K + 2, K)),
          "trans2": np.zeros((K + 1,) * 3), "U": None, "beta": None, "U_trans": None,
          "count": None, "U_trans2": None}
    if averaged:
        st.update(U=np.zeros((d, K)), beta=np.zeros(K), U_trans=np.zeros((K + 2, K)),
                  count=np.ones(1, dtype=np.int64), U_trans2=np.zeros((K + 1,) * 3))
    st["mistakes"] = np.zeros(2, dtype=np.int64)
    return st


def run_epoch(mod, X, y, lengths, order, st, fit_intercept=True, sparse=False,
              allowed=None):
    head = to_csr(X) if sparse else (X,)
    fn = mod.structured_epoch_csr if sparse else mod.structured_epoch_dense
    return fn(*head, np.asarray(y, dtype=np.int64), offsets_of(lengths),
              np.asarray(order, dtype=np.int64), st["W"], st["b"], st["trans"], fit_intercept,
              st["U"], st["beta"], st["U_trans"], st["count"], st["mistakes"], allowed,
              st["trans2"], st["U_trans2"])


@pytest.mark.parametrize("sparse", [False, True])
def test_hand_traced_trigram_update(seq, sparse):
    # all zero: the path is 0 0 (ties); gold 1 0 differs at token 0, at the transitions
    # start -> 1 and 1 -> 0 (against start -> 0 and 0 -> 0), and at all three trigrams
    X = np.array([[1.0, 2.0], [0.0, 1.0]])
    st = state(2, 2, averaged=True)
    assert run_epoch(seq, X, [1, 0], [2], [0], st, sparse=sparse) == 1
    want = np.zeros((3, 3, 3))
    for (g, p) in zip(triples([1, 0], 2), triples([0, 0], 2)):
        want[g] += 1
        want[p] -= 1
    assert np.array_equal(st["trans2"], want)
    assert st["trans2"][2, 2, 1] == 1 and st["trans2"][2, 1, 0] == 1 and \
        st["trans2"][1, 0, 2] == 1 and st["trans2"][0, 0, 2] == -1
    assert np.array_equal(st["U_trans2"], want)  # the first sentence: c = 1
    assert st["mistakes"].tolist() == [1, 1] and st["count"][0] == 2


def test_lazy_average_of_the_trigrams_is_the_plain_mean(seq, rng):
    # integer data: every sum exact, so c trans2 - U_trans2 equals the sum of the trigram
    # scores held before each sentence (the zeros first included)
    K, d = 3, 4
    lengths = rng.integers(1, 6, size=12)
    X = rng.integers(-2, 3, size=(lengths.sum(), d)).astype(np.float64)
    y = rng.integers(0, K, lengths.sum())
    lazy, plain = state(K, d, True), state(K, d, False)
    total = np.zeros((K + 1,) * 3)
    for _ in range(3):
        order = rng.permutation(len(lengths))
        run_epoch(seq, X, y, lengths, order, lazy)
        for s in order:  # one sentence at a time, summing the scores before it
            total += plain["trans2"]
            run_epoch(seq, X, y, lengths, [s], plain)
    c = lazy["count"][0]
    assert c == 3 * len(lengths) + 1 and np.array_equal(lazy["trans2"], plain["trans2"])
    assert np.array_equal(c * lazy["trans2"] - lazy["U_trans2"], total + plain["trans2"])
    assert lazy["mistakes"][0] > 0


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python one")
@pytest.mark.parametrize("sparse", [False, True])
def test_twins_agree_bit_for_bit_on_every_path_and_chunk(seq_twins, rng, sparse):
    # epochs, decoding (threads too) and Viterbi: on each Viterbi step path this CPU has,
    # with chunks that end inside sentences (down to every step), float32 and float64 rows,
    # with and without averaging, an intercept and allowed transitions, for K of every
    # residue mod 4; non-finite scores refused alike
    C, P = seq_twins
    before_path = C._set_viterbi_path(C._viterbi_paths()[-1])
    before_work = C._set_chunk_work(1)
    try:
        for path, work, K in itertools.product(C._viterbi_paths(), (1, 7, before_work),
                                               (1, 2, 4, 5, 7)):
            C._set_viterbi_path(path)
            C._set_chunk_work(work)
            lengths = rng.integers(1, 8, size=9)
            d = 5
            dtype = rng.choice([np.float32, np.float64])
            X = rng.normal(size=(lengths.sum(), d)).astype(dtype)
            X[rng.random(X.shape) < 0.3] = 0
            y = rng.integers(0, K, lengths.sum())
            allowed = None
            if K > 2 and rng.random() < 0.5:  # forbid what no gold sentence has
                allowed = np.ones((K + 2, K), dtype=np.uint8)
                seen = set(zip(y[:-1].tolist(), y[1:].tolist()))
                for i, j in itertools.product(range(K), repeat=2):
                    if (i, j) not in seen and rng.random() < 0.5:
                        allowed[i, j] = 0
            for averaged, intercept in itertools.product([False, True], repeat=2):
                states = [state(K, d, averaged) for _ in range(2)]
                for _ in range(2):
                    order = rng.permutation(len(lengths))
                    assert run_epoch(C, X, y, lengths, order, states[0], intercept, sparse,
                                     allowed) == \
                        run_epoch(P, X, y, lengths, order, states[1], intercept, sparse,
                                  allowed)
                for k, v in states[0].items():
                    assert v is None or np.array_equal(v, states[1][k]), (path, work, k)
            st = states[0]
            head = to_csr(X) if sparse else (X,)
            tags = []
            for m, n_jobs in ((C, 1), (C, 2), (P, 1)):
                out = np.empty(len(y), dtype=np.int64)
                (m.decode_csr if sparse else m.decode_dense)(
                    *head, st["W"], st["b"], st["trans"], offsets_of(lengths), out,
                    n_jobs=n_jobs, allowed=allowed, trans2=st["trans2"])
                tags.append(out.tolist())
            assert tags[0] == tags[1] == tags[2], (path, work, K)
            trans = rng.integers(-2, 3, size=(K + 2, K)).astype(np.float64)
            trans2 = rng.integers(-2, 3, size=(K + 1,) * 3).astype(np.float64)
            ties = rng.integers(-2, 3, size=(lengths.sum(), K)).astype(np.float64)
            ties[rng.random(ties.shape) < 0.1] = -0.0
            bad = rng.normal(size=ties.shape) * 1e3
            bad[rng.integers(bad.shape[0]), rng.integers(K)] = rng.choice([np.nan, np.inf])
            for E in (ties, bad, np.full(ties.shape, 1e308)):
                assert refusal(C, E, trans, trans2, lengths) == \
                    refusal(P, E, trans, trans2, lengths), (path, work, K)
    finally:
        C._set_viterbi_path(before_path)
        C._set_chunk_work(before_work)


def test_threads_change_nothing(seq, rng, monkeypatch):
    monkeypatch.setattr(_contract, "DECODE_WORK", 300)  # many blocks
    lengths = rng.integers(1, 9, size=50)
    X = rng.normal(size=(lengths.sum(), 5))
    W, b, trans = rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=(5, 3))
    trans2 = rng.normal(size=(4, 4, 4))
    outs = []
    for n_jobs in (None, 1, 2, -1):
        out = np.full(X.shape[0], -1, dtype=np.int64)
        seq.decode_dense(X, W, b, trans, offsets_of(lengths), out, n_jobs=n_jobs,
                         trans2=trans2)
        outs.append(out)
    assert all(np.array_equal(outs[0], o) for o in outs[1:]) and outs[0].min() >= 0


@pytest.mark.parametrize(("change", "error", "message"), [
    (dict(trans2=np.zeros((3, 3, 3))), ValueError, r"trans2 must have shape \(n_tags \+ 1"),
    (dict(trans2=np.zeros((4, 4, 4)), U_trans2=np.zeros((3, 3, 3))), ValueError,
     "U_trans2 goes with U and trans2"),
    (dict(trans2=None, U_trans2=np.zeros((4, 4, 4))), ValueError,
     "U_trans2 goes with U and trans2"),
])
def test_bad_trigram_tables_are_named(seq, change, error, message):
    st = state(3, 2, averaged=True)
    st.update(change)
    with pytest.raises(error, match=message):
        run_epoch(seq, np.ones((2, 2)), [0, 1], [2], [0], st)


def test_non_finite_trigram_scores_are_refused(seq):
    trans2 = np.zeros((3, 3, 3))
    trans2[1, 2, 0] = np.nan
    with pytest.raises(FloatingPointError, match=r"trans2\[1, 2, 0\] is not finite"):
        viterbi2(seq, np.zeros((2, 2)), np.zeros((4, 2)), trans2, [2])
    st = state(2, 2, averaged=False)
    st["trans2"][0, 0, 2] = np.inf
    with pytest.raises(FloatingPointError, match=r"trans2\[0, 0, 2\] is not finite"):
        run_epoch(seq, np.ones((2, 2)), [0, 1], [2], [0], st)


# ------------------------------------------------------------------------ the estimator
def period_three(rng, n_sent=60, d=3):
    """Sentences whose tags run 0 0 1 0 0 1 ..., with features that say nothing about the
    tag. No bigram scores make that path the best: it scores a + b + c every three tokens
    (a = 0 -> 0, b = 0 -> 1, c = 1 -> 0), which beats 0 0 0 ... (3a) only if b + c > 2a and
    0 1 0 1 ... (1.5 (b + c)) only if 2a > b + c; the trigrams make it certain."""
    lengths = rng.integers(3, 10, size=n_sent)
    y = np.concatenate([np.array([0, 0, 1] * 4)[:n] for n in lengths])
    return rng.normal(size=(lengths.sum(), d)) * 1e-3, y, lengths


@pytest.mark.parametrize("average", [True, False])
def test_second_order_learns_what_first_order_cannot(model_backend, rng, average):
    X, y, lengths = period_three(rng)
    accuracy = {}
    for order in (1, 2):
        model = StructuredPerceptron(order=order, average=average, max_iter=20)
        with fixed_epochs():
            model.fit(X, y, lengths)
        accuracy[order] = (model.predict(X, lengths) == y).mean()
    assert accuracy[2] == 1.0 and accuracy[1] < 0.9


def test_second_order_model_round_trips_and_publishes_its_trigrams(tmp_path, rng):
    X, y, lengths = period_three(rng)
    y = np.array(["a", "b"])[y]  # labels of any type
    model = StructuredPerceptron(order=2, max_iter=5).fit(X, y, lengths)
    assert model.coef_trans2_.shape == (3, 3, 3)
    st = model._state
    assert np.array_equal(model.coef_trans2_, st["trans2"] - st["U_trans2"] / st["count"][0])
    model.save(tmp_path / "m.npz")
    for again in (perceptron_c.load(tmp_path / "m.npz"), pickle.loads(pickle.dumps(model))):
        assert again.order == 2
        assert np.array_equal(again.coef_trans2_, model.coef_trans2_)
        assert np.array_equal(again.predict(X, lengths), model.predict(X, lengths))
    assert not hasattr(StructuredPerceptron().fit(X, y, lengths), "coef_trans2_")
    with pytest.raises(ValueError, match="another `order`"):
        model.set_params(order=1, warm_start=True).fit(X, y, lengths)
    with pytest.raises(ValueError, match="order"):
        StructuredPerceptron(order=3).fit(X, y, lengths)


def test_second_order_with_transitions_forced_tags_and_partial_fit(model_backend, rng):
    tags = np.array(["O", "B-X", "I-X"])
    X, y, lengths = period_three(rng)  # O O B-X ...: a valid BIO sequence
    y = tags[y]
    model = StructuredPerceptron(order=2, transitions="bio", max_iter=5)
    model.fit(X, y, lengths)
    assert (model.predict(X, lengths) == y).all()
    forced = np.full(len(y), None, dtype=object)
    forced[0] = "B-X"
    got = model.predict(X, lengths, forced=forced)
    assert got[0] == "B-X" and (got[lengths[0]:] == y[lengths[0]:]).all()
    # one epoch in file order: partial_fit and fit leave the same state
    one = StructuredPerceptron(order=2, average=False, max_iter=1, shuffle=False)
    with fixed_epochs():
        one.fit(X, y, lengths)
    batch = StructuredPerceptron(order=2, average=False, shuffle=False)
    batch.partial_fit(X, y, lengths, classes=np.unique(y))
    for key in ("W", "b", "trans", "trans2"):
        assert np.array_equal(batch._state[key], one._state[key]), key
