"""The structured perceptron's routines on both twins: hand-traced Viterbi and updates, brute
force over every path, lazy averaging against the plain mean, and C == Python bit for bit."""
import itertools

import numpy as np
import pytest
from conftest import HAVE_C, _module, routine_fixtures, to_csr

from perceptron_c._core import _contract

FLOATS = [np.float32, np.float64]


seq, seq_twins = routine_fixtures("_sequence")


def offsets_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def random_lengths(rng, n_sent, max_len=6):
    lengths = rng.integers(1, max_len + 1, size=n_sent)
    lengths[rng.random(n_sent) < 0.3] = 1  # many one-token sentences
    return lengths


def trans_of(K, pairs=None, start=None, end=None):
    trans = np.zeros((K + 2, K))
    if pairs is not None:
        trans[:K] = pairs
    if start is not None:
        trans[K] = start
    if end is not None:
        trans[K + 1] = end
    return trans


def run_viterbi(mod, E, trans, lengths):
    out = np.full(E.shape[0], -1, dtype=np.int64)
    mod.viterbi(np.ascontiguousarray(E, dtype=np.float64), trans, offsets_of(lengths), out)
    return out.tolist()


# ------------------------------------------------------------------------ Viterbi by hand
def test_transitions_overrule_the_emissions(seq):
    # delta_0 = [1, 0]; delta_1 = [3, 2] (both from tag 0); delta_2 = [5, 4]: path 0 0 0,
    # score 5, where the greedy tags 0 1 1 score 3
    E = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    trans = trans_of(2, pairs=[[2.0, 0.0], [0.0, 0.0]])
    assert run_viterbi(seq, E, trans, [3]) == [0, 0, 0]
    assert run_viterbi(seq, E, trans_of(2), [3]) == [0, 1, 1]  # no transitions: greedy


def test_ties_go_to_the_lowest_tag(seq):
    assert run_viterbi(seq, np.zeros((4, 3)), trans_of(3), [4]) == [0, 0, 0, 0]
    assert run_viterbi(seq, np.array([[0.0, 2.0, 2.0]]), trans_of(3), [1]) == [1]
    # a tie between predecessors: tag 2 at the end is reached from 0 and 1 alike (score 3)
    E = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    assert run_viterbi(seq, E, trans_of(3), [2]) == [0, 2]
    # the same with tag 1 scoring higher first: its predecessor wins
    E[0, 1] = 1.5
    assert run_viterbi(seq, E, trans_of(3), [2]) == [1, 2]


def test_start_and_end_scores_decide_one_token(seq):
    E = np.array([[0.0, 1.0, 0.0]])
    assert run_viterbi(seq, E, trans_of(3), [1]) == [1]
    assert run_viterbi(seq, E, trans_of(3, start=[0.0, 0.0, 5.0]), [1]) == [2]
    assert run_viterbi(seq, E, trans_of(3, start=[0.0, 0.0, 5.0], end=[0.0, 3.0, -10.0]),
                       [1]) == [1]


def test_sentences_are_decoded_separately(seq):
    # the same token twice: as one sentence the transition 1 -> 1 (-10) forbids 1 1;
    # 0 1 and 1 0 tie (score 1) at the end, where tag 0 (reached from 1) wins
    E = np.array([[0.0, 1.0], [0.0, 1.0]])
    trans = trans_of(2, pairs=[[0.0, 0.0], [0.0, -10.0]])
    assert run_viterbi(seq, E, trans, [2]) == [1, 0]
    assert run_viterbi(seq, E, trans, [1, 1]) == [1, 1]
    assert run_viterbi(seq, E, trans, [1, 0, 1]) == [1, 1]  # an empty sentence is no sentence


def _brute_force(E, trans):
    """(best score, every path of that score), over all K^T paths."""
    T, K = E.shape
    scored = []
    for path in itertools.product(range(K), repeat=T):
        s = trans[K, path[0]] + sum(E[t, path[t]] for t in range(T)) + trans[K + 1, path[-1]]
        s += sum(trans[path[t - 1], path[t]] for t in range(1, T))
        scored.append((s, list(path)))
    best = max(s for s, _ in scored)
    return best, [p for s, p in scored if s == best]


def _path_score(E, trans, path):
    K = E.shape[1]
    return (trans[K, path[0]] + sum(E[t, p] for t, p in enumerate(path))
            + sum(trans[a, b] for a, b in zip(path, path[1:])) + trans[K + 1, path[-1]])


@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_viterbi_is_the_best_path(seq, rng, K):
    for T in range(1, 6):
        for _ in range(4):
            # integers: exact sums, many ties; Viterbi's path is one of the best ones
            E = rng.integers(-3, 4, size=(T, K)).astype(np.float64)
            trans = rng.integers(-3, 4, size=(K + 2, K)).astype(np.float64)
            best, paths = _brute_force(E, trans)
            assert run_viterbi(seq, E, trans, [T]) in paths
            # continuous scores: one best path
            E, trans = rng.normal(size=(T, K)), rng.normal(size=(K + 2, K))
            best, paths = _brute_force(E, trans)
            assert run_viterbi(seq, E, trans, [T]) == paths[0] and len(paths) == 1


# ------------------------------------------------------------------------ decoding
@pytest.mark.parametrize("dtype", FLOATS)
def test_emissions_are_the_linear_decision(seq, rng, dtype):
    lin = _module("c" if "_c" in seq.__name__ else "python", "_linear")
    X = rng.normal(size=(30, 7)).astype(dtype)
    W, b = rng.normal(size=(4, 7)), rng.normal(size=4)
    trans = rng.normal(size=(6, 4))
    lengths = random_lengths(rng, 10, 5)
    X = X[:lengths.sum()]
    E = np.empty((X.shape[0], 4))
    lin.decision_dense(X, W, b, E)
    expected = run_viterbi(seq, E, trans, lengths)
    Wt = np.ascontiguousarray(W.T)  # the routines' weights are feature-major
    for args in ((X,), to_csr(X)):
        out = np.full(X.shape[0], -1, dtype=np.int64)
        fn = seq.decode_dense if len(args) == 1 else seq.decode_csr
        fn(*args, Wt, b, trans, offsets_of(lengths), out)
        assert out.tolist() == expected
    # single tokens with no transitions: the argmax of the decision, lowest index on ties
    assert run_viterbi(seq, E, trans_of(4), [1] * len(E)) == np.argmax(E, axis=1).tolist()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("K, d", [(7, 23), (45, 150), (4, 70)])
def test_feature_major_emissions_are_the_linear_decision_bit_for_bit(seq, rng, dtype, sparse,
                                                                      K, d):
    # rows of every length mod 4 and repeated columns: each lane and the tail are exercised,
    # rows short enough for the C twin's lanes in registers (<= 64 features) and longer ones,
    # blocks of 4 tags and the tags left over; signed zeros among the weights. The sums are
    # inexact on normal data, so only the same order of additions agrees
    lin = _module("c" if "_c" in seq.__name__ else "python", "_linear")
    X = (rng.normal(size=(40, d)) * (rng.random((40, d)) < 0.4)).astype(dtype)
    W, b = rng.normal(size=(K, d)) * 1e3, rng.normal(size=K)
    W[rng.random(W.shape) < 0.1] = -0.0
    expected, got = np.empty((40, K)), np.full((40, K), np.nan)
    if sparse:
        data, indices, indptr = to_csr(X)
        indices = indices.copy()
        indices[::5] = indices[::5] % 3  # columns out of order and repeated, as CSR allows
        lin.decision_csr(data, indices, indptr, W, b, expected)
        seq.emissions_csr(data, indices, indptr, np.ascontiguousarray(W.T), b, got)
    else:
        lin.decision_dense(X, W, b, expected)
        seq.emissions_dense(X, np.ascontiguousarray(W.T), b, got)
    assert expected.tobytes() == got.tobytes()
    with pytest.raises(ValueError, match="W must have one row per feature"):
        seq.emissions_dense(X, W, b, got)
    with pytest.raises(ValueError, match=r"out must have shape \(n_tokens, K\)"):
        seq.emissions_dense(X, np.ascontiguousarray(W.T), b, got[:3])


def test_blocks_cover_every_sentence_once(rng, monkeypatch):
    monkeypatch.setattr(_contract, "DECODE_WORK", 50)
    for n in (0, 1, 7, 40):
        offsets = offsets_of(rng.integers(0, 5, size=n))
        blocks = _contract.sentence_blocks(offsets, 3, 2)
        covered = [s for a, z in blocks for s in range(a, z)]
        assert covered == list(range(n)) if offsets[-1] else covered == []
        assert all(a < z for a, z in blocks)


def test_blocks_start_where_the_token_budget_runs_out(rng, monkeypatch):
    # each block starts at the first sentence starting at or after a multiple of the tokens
    # DECODE_WORK pays for (numpy's searchsorted of those multiples, as a reference)
    for work in (1, 7, 50, 1 << 22):
        monkeypatch.setattr(_contract, "DECODE_WORK", work)
        for n in (0, 1, 2, 7, 40, 300):
            offsets = offsets_of(rng.integers(0, 6, size=n))
            for K, row_len in ((1, 0), (3, 2), (45, 300)):
                step = max(1, work // (K * (max(1, row_len) + K)))
                starts = np.unique(np.searchsorted(offsets[:-1],
                                                   np.arange(0, offsets[-1], step))).tolist()
                want = [(a, z) for a, z in zip(starts, starts[1:] + [n]) if a < n]
                assert _contract.sentence_blocks(offsets, K, row_len) == want


@pytest.mark.parametrize("sparse", [False, True])
def test_threads_change_nothing(seq, rng, monkeypatch, sparse):
    monkeypatch.setattr(_contract, "DECODE_WORK", 300)  # many blocks
    lengths = random_lengths(rng, 60, 8)
    X = rng.normal(size=(lengths.sum(), 5))
    W, b, trans = rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=(5, 3))
    head = to_csr(X) if sparse else (X,)
    fn = seq.decode_csr if sparse else seq.decode_dense
    outs = []
    for n_jobs in (None, 1, 2, -1):
        out = np.full(X.shape[0], -1, dtype=np.int64)
        fn(*head, W, b, trans, offsets_of(lengths), out, n_jobs=n_jobs)
        outs.append(out)
    assert all(np.array_equal(outs[0], o) for o in outs[1:]) and outs[0].min() >= 0
    # the first failing sentence is named, whatever the threads
    X[X.shape[0] // 2:] *= np.inf
    head = to_csr(X) if sparse else (X,)
    first = int(np.searchsorted(offsets_of(lengths), X.shape[0] // 2, side="right")) - 1
    for n_jobs in (1, 2):
        with pytest.raises(FloatingPointError, match=f"sentence {first}:"):
            fn(*head, W, b, trans, offsets_of(lengths), out, n_jobs=n_jobs)


# ------------------------------------------------------------------------ the epoch
def state(K, d, averaged):
    st = {"W": np.zeros((d, K)), "b": np.zeros(K), "trans": np.zeros((K + 2, K))}
    st.update(U=None, beta=None, U_trans=None, count=None)
    if averaged:
        st.update(U=np.zeros((d, K)), beta=np.zeros(K), U_trans=np.zeros((K + 2, K)),
                  count=np.ones(1, dtype=np.int64))
    st["mistakes"] = np.zeros(2, dtype=np.int64)
    return st


def run_epoch(mod, X, y, lengths, order, st, fit_intercept=True, sparse=False):
    head = to_csr(X) if sparse else (X,)
    fn = mod.structured_epoch_csr if sparse else mod.structured_epoch_dense
    return fn(*head, np.asarray(y, dtype=np.int64), offsets_of(lengths),
              np.asarray(order, dtype=np.int64), st["W"], st["b"], st["trans"], fit_intercept,
              st["U"], st["beta"], st["U_trans"], st["count"], st["mistakes"])


@pytest.mark.parametrize("sparse", [False, True])
def test_hand_traced_updates(seq, sparse):
    X = np.array([[1.0, 2.0], [0.0, 1.0]])
    st = state(2, 2, averaged=True)
    # all zero: the path is 0 0 (ties); gold 1 0 differs at token 0 and transitions 0, 1
    assert run_epoch(seq, X, [1, 0], [2], [0], st, sparse=sparse) == 1
    assert st["W"].T.tolist() == [[-1.0, -2.0], [1.0, 2.0]] and st["b"].tolist() == [-1.0, 1.0]
    assert st["trans"].tolist() == [[-1.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [0.0, 0.0]]
    assert st["mistakes"].tolist() == [1, 1] and st["count"].tolist() == [2]
    assert np.array_equal(st["U"], st["W"]) and np.array_equal(st["U_trans"], st["trans"])
    # E = [[-6, 6], [-3, 3]]: path 1 1, wrong at token 1 and transitions 1, 2 (c = 2)
    assert run_epoch(seq, X, [1, 0], [2], [0], st, sparse=sparse) == 1
    assert st["W"].T.tolist() == [[-1.0, -1.0], [1.0, 1.0]] and st["b"].tolist() == [0.0, 0.0]
    assert st["trans"].tolist() == [[-1.0, 0.0], [2.0, -1.0], [-1.0, 1.0], [1.0, -1.0]]
    assert st["U"].T.tolist() == [[-1.0, 0.0], [1.0, 0.0]] and st["beta"].tolist() == [1.0, -1.0]
    assert st["U_trans"].tolist() == [[-1.0, 0.0], [3.0, -2.0], [-1.0, 1.0], [2.0, -2.0]]
    assert st["mistakes"].tolist() == [2, 2] and st["count"].tolist() == [3]
    # the average (W - U/c) is the mean of the weights after 0, 1 and 2 sentences
    assert np.array_equal((3 * st["W"] - st["U"]).T, [[-2.0, -3.0], [2.0, 3.0]])
    # now right: no update, the counter still ticks
    assert run_epoch(seq, X, [1, 0], [2], [0], st, sparse=sparse) == 0
    assert st["W"].T.tolist() == [[-1.0, -1.0], [1.0, 1.0]] and st["count"].tolist() == [4]


def test_agreeing_transitions_are_not_touched(seq):
    # path 0 0 against gold 1 0: the end (0 last) agrees and keeps 0.1 exactly, where adding
    # 1 and subtracting it again would leave 0.10000000000000009
    st = state(2, 1, averaged=True)
    st["trans"][3] = 0.1
    run_epoch(seq, np.ones((2, 1)), [1, 0], [2], [0], st)
    assert st["trans"][3].tolist() == [0.1, 0.1] and st["U_trans"][3].tolist() == [0.0, 0.0]
    assert st["trans"][:3].tolist() == [[-1.0, 0.0], [1.0, 0.0], [-1.0, 1.0]]


def test_no_intercept_leaves_the_bias_alone(seq):
    st = state(2, 2, averaged=True)
    st["b"][:] = [0.5, -0.5]
    run_epoch(seq, np.array([[1.0, 2.0], [0.0, 1.0]]), [1, 1], [2], [0], st, False)
    assert st["b"].tolist() == [0.5, -0.5] and st["beta"].tolist() == [0.0, 0.0]
    assert st["W"].T.tolist() == [[-1.0, -3.0], [1.0, 3.0]]


@pytest.mark.parametrize("sparse", [False, True])
def test_lazy_average_is_the_plain_mean(seq, rng, sparse):
    # integer data: every sum exact, so c W - U equals the sum of the weights held before
    # each sentence (w_0 = 0 included), for W, b and trans alike
    K, d = 3, 4
    lengths = random_lengths(rng, 12, 5)
    X = rng.integers(-2, 3, size=(lengths.sum(), d)).astype(np.float64)
    y = rng.integers(0, K, size=X.shape[0])
    lazy, plain = state(K, d, True), state(K, d, False)
    sums = {k: np.zeros_like(plain[k]) for k in ("W", "b", "trans")}
    for _ in range(3):
        order = rng.permutation(len(lengths))
        run_epoch(seq, X, y, lengths, order, lazy, sparse=sparse)
        for s in order:  # one sentence at a time, summing the weights before it
            for k in sums:
                sums[k] += plain[k]
            run_epoch(seq, X, y, lengths, [s], plain, sparse=sparse)
    c = lazy["count"][0]
    assert c == 3 * len(lengths) + 1
    for k, u in (("W", "U"), ("b", "beta"), ("trans", "U_trans")):
        assert np.array_equal(lazy[k], plain[k])
        assert np.array_equal(c * lazy[k] - lazy[u], sums[k] + plain[k])
    assert np.array_equal(lazy["mistakes"], plain["mistakes"]) and lazy["mistakes"][0] > 0


def test_separable_data_is_learned(seq, rng):
    # tags follow the sign of feature 0 and the transitions of a fixed cycle: the
    # perceptron stops making mistakes (Collins 2002, Theorem 1)
    lengths = random_lengths(rng, 30, 6)
    X = rng.normal(size=(lengths.sum(), 3))
    y = (X[:, 0] > 0).astype(np.int64)
    st = state(2, 3, averaged=False)
    for _ in range(50):
        if run_epoch(seq, X, y, lengths, rng.permutation(30), st) == 0:
            break
    assert run_epoch(seq, X, y, lengths, np.arange(30), st) == 0


# ------------------------------------------------------------------------ C == Python
def _problem(rng, dtype, n_sent, d, K, density=1.0, scale=1.0):
    lengths = random_lengths(rng, n_sent)
    X = (rng.normal(size=(lengths.sum(), d)) * scale).astype(dtype)
    X[rng.random(X.shape) > density] = 0
    y = rng.integers(0, K, size=X.shape[0])
    return X, y, lengths


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python one")
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("sparse", [False, True])
def test_twins_agree_bit_for_bit(seq_twins, rng, dtype, sparse):
    for n_sent, d, K in [(1, 1, 1), (5, 3, 2), (20, 6, 4), (15, 9, 5), (30, 4, 3)]:
        X, y, lengths = _problem(rng, dtype, n_sent, d, K, density=0.6 if sparse else 1.0)
        for averaged, fit_intercept in itertools.product([False, True], [False, True]):
            states = [state(K, d, averaged) for _ in seq_twins]
            for _ in range(3):
                order = rng.permutation(n_sent)
                r = [run_epoch(m, X, y, lengths, order, st, fit_intercept, sparse)
                     for m, st in zip(seq_twins, states)]
                assert r[0] == r[1]
            for k, v in states[0].items():
                assert v is None or np.array_equal(v, states[1][k]), k
            # decoding with the learned weights, and Viterbi on random emissions
            head = to_csr(X) if sparse else (X,)
            E = rng.normal(size=(X.shape[0], K))
            outs = []
            for m, st in zip(seq_twins, states):
                out = np.empty(X.shape[0], dtype=np.int64)
                (m.decode_csr if sparse else m.decode_dense)(
                    *head, st["W"], st["b"], st["trans"], offsets_of(lengths), out)
                outs.append((out.tolist(), run_viterbi(m, E, st["trans"], lengths)))
            assert outs[0] == outs[1]



def _refusal(mod, E, trans, lengths):
    try:
        return run_viterbi(mod, E, trans, lengths)
    except FloatingPointError as exc:
        return str(exc)


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python one")
def test_every_viterbi_path_gives_the_twins_tags(seq_twins, rng):
    # each Viterbi step path this CPU has (the baseline, AVX2): the Python twin's tags on
    # scores full of ties (small integers, signed zeros) and on inexact ones, for K of every
    # residue mod 4, non-finite scores refused alike; then epochs leave the same state
    C, P = seq_twins
    assert C._viterbi_paths()[0] == "baseline"
    before = C._set_viterbi_path(C._viterbi_paths()[-1])
    try:
        for path in C._viterbi_paths():
            C._set_viterbi_path(path)
            for K in (1, 2, 3, 4, 5, 7, 8, 9, 45):
                lengths = random_lengths(rng, 20, max_len=9)
                trans = rng.integers(-2, 3, size=(K + 2, K)).astype(np.float64)
                ties = rng.integers(-2, 3, size=(lengths.sum(), K)).astype(np.float64)
                ties[rng.random(ties.shape) < 0.1] = -0.0
                inexact = rng.normal(size=ties.shape) * 1e3
                bad = inexact.copy()
                bad[rng.integers(bad.shape[0]), rng.integers(K)] = rng.choice([np.nan, np.inf])
                for E in (ties, inexact, bad):
                    got, want = _refusal(C, E, trans, lengths), _refusal(P, E, trans, lengths)
                    assert got == want, (path, K)
            X, y, lengths = _problem(rng, np.float64, 30, 6, 9)
            states = [state(9, 6, True) for _ in range(2)]
            for _ in range(3):
                order = rng.permutation(30)
                assert run_epoch(C, X, y, lengths, order, states[0]) == \
                    run_epoch(P, X, y, lengths, order, states[1])
            for k, v in states[0].items():
                assert np.array_equal(v, states[1][k]), (path, k)
    finally:
        C._set_viterbi_path(before)
    with pytest.raises(ValueError, match="not supported"):
        C._set_viterbi_path("avx-1024")

@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python one")
def test_chunks_that_end_inside_sentences_change_no_bit(seq_twins, rng):
    # the C twin looks for Ctrl-C between chunks of work that may end inside a sentence
    # (between two tokens' emissions, two Viterbi steps): wherever they end, down to every
    # token and step, its tags, epochs and emissions are the Python twin's, and a sentence
    # that overflows is named alike
    C, P = seq_twins
    before = C._set_chunk_work(1)
    try:
        for work in (1, 5, 40, 1000, before):
            C._set_chunk_work(work)
            lengths = rng.integers(1, 30, size=6)
            X, y = rng.normal(size=(lengths.sum(), 5)), rng.integers(0, 4, lengths.sum())
            X[rng.random(X.shape) < 0.3] = 0
            for sparse in (False, True):
                head = to_csr(X) if sparse else (X,)
                states = [state(4, 5, True) for _ in range(2)]
                for _ in range(2):
                    order = rng.permutation(len(lengths))
                    assert run_epoch(C, X, y, lengths, order, states[0], sparse=sparse) == \
                        run_epoch(P, X, y, lengths, order, states[1], sparse=sparse)
                for k, v in states[0].items():
                    assert np.array_equal(v, states[1][k]), (work, k)
                st = states[0]
                tags, emitted = [], []
                for m, n_jobs in ((C, 1), (C, 2), (P, 1)):
                    out, E = np.empty(len(y), dtype=np.int64), np.empty((len(y), 4))
                    (m.decode_csr if sparse else m.decode_dense)(
                        *head, st["W"], st["b"], st["trans"], offsets_of(lengths), out,
                        n_jobs=n_jobs)
                    (m.emissions_csr if sparse else m.emissions_dense)(
                        *head, st["W"], st["b"], E)
                    tags.append(out.tolist())
                    emitted.append(E)
                assert tags[0] == tags[1] == tags[2]
                assert np.array_equal(emitted[0], emitted[2])
            E = rng.normal(size=(lengths.sum(), 4)) * 1e3
            bad = E.copy()
            bad[-3, 1] = np.inf
            for scores in (E, bad):
                assert _refusal(C, scores, st["trans"], lengths) == \
                    _refusal(P, scores, st["trans"], lengths)
            big = np.full((30, 1), 1e308)  # the second sentence overflows its emissions
            errors = []
            for m in seq_twins:
                with pytest.raises(FloatingPointError) as exc:
                    run_epoch(m, big, [1] * 30, [10, 20], [0, 1], state(2, 1, averaged=True))
                errors.append(str(exc.value))
            assert errors[0] == errors[1] and "(sentence 1)" in errors[0]
    finally:
        C._set_chunk_work(before)


# ------------------------------------------------------------------------ allowed transitions
def _allowed_paths(K, T, allowed):
    for path in itertools.product(range(K), repeat=T):
        pairs = [(K, path[0])] + list(zip(path, path[1:])) + [(K + 1, path[-1])]
        if all(allowed[i, j] for i, j in pairs):
            yield list(path)


def random_allowed(rng, K, p=0.6):
    """A random mask with an allowed path everywhere: tag 0 after anything, and last."""
    allowed = (rng.random((K + 2, K)) < p).astype(np.uint8)
    allowed[:, 0] = 1
    return allowed


def run_masked_epoch(mod, X, y, lengths, order, st, allowed, sparse=False):
    head = to_csr(X) if sparse else (X,)
    fn = mod.structured_epoch_csr if sparse else mod.structured_epoch_dense
    return fn(*head, np.asarray(y, dtype=np.int64), offsets_of(lengths),
              np.asarray(order, dtype=np.int64), st["W"], st["b"], st["trans"], True,
              st["U"], st["beta"], st["U_trans"], st["count"], st["mistakes"],
              allowed=allowed)


def allowed_gold(mod, rng, X, lengths, allowed, K):
    """Gold tags that follow the allowed transitions: a random model's decoding."""
    y = np.empty(X.shape[0], dtype=np.int64)
    mod.decode_dense(X, rng.normal(size=(X.shape[1], K)), rng.normal(size=K),
                     rng.normal(size=(K + 2, K)), offsets_of(lengths), y, allowed=allowed)
    return y


@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_viterbi_with_allowed_transitions_is_the_best_allowed_path(seq, rng, K):
    for T in range(1, 5):
        for _ in range(4):
            allowed = random_allowed(rng, K)
            E, trans = rng.normal(size=(T, K)), rng.normal(size=(K + 2, K))
            paths = list(_allowed_paths(K, T, allowed))
            best = max(paths, key=lambda p: _path_score(E, trans, p))
            out = np.empty(T, dtype=np.int64)
            seq.viterbi(E, trans, offsets_of([T]), out, allowed=allowed)
            assert out.tolist() == best
            seq.viterbi(E, trans, offsets_of([T]), out, allowed=allowed.astype(bool))
            assert out.tolist() == best


def test_bio_forbids_inside_after_outside(seq):
    # tags O, B, I: the emissions want O I I, which BIO forbids (I after O, I first)
    K, outside, begin, inside = 3, 0, 1, 2
    allowed = np.ones((K + 2, K), dtype=np.uint8)
    allowed[outside, inside] = allowed[K, inside] = 0
    E = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 1.0], [0.0, 0.0, 1.0]])
    assert run_viterbi(seq, E, trans_of(K), [3]) == [outside, inside, inside]
    out = np.empty(3, dtype=np.int64)
    seq.viterbi(E, trans_of(K), offsets_of([3]), out, allowed=allowed)
    assert out.tolist() == [outside, begin, inside]


def test_every_transition_allowed_is_no_mask(seq, rng):
    X, y, lengths = _problem(rng, np.float64, 20, 5, 4)
    ones = np.ones((6, 4), dtype=np.uint8)
    st = [state(4, 5, True) for _ in range(2)]
    for _ in range(3):
        order = rng.permutation(20)
        assert run_epoch(seq, X, y, lengths, order, st[0]) == \
            run_masked_epoch(seq, X, y, lengths, order, st[1], ones)
    for k, v in st[0].items():
        assert np.array_equal(v, st[1][k]), k


def test_training_keeps_the_forbidden_transitions_and_learns_within(seq, rng):
    K, d = 4, 6
    allowed = random_allowed(rng, K, p=0.5)
    lengths = random_lengths(rng, 40, max_len=8)
    X = rng.normal(size=(lengths.sum(), d))
    y = allowed_gold(seq, rng, X, lengths, allowed, K)
    st = state(K, d, True)
    st["trans"][:] = rng.normal(size=(K + 2, K))
    start = st["trans"].copy()
    for _ in range(5):
        run_masked_epoch(seq, X, y, lengths, rng.permutation(40), st, allowed)
    forbidden = allowed == 0
    assert np.array_equal(st["trans"][forbidden], start[forbidden])
    assert not st["U_trans"][forbidden].any() and st["mistakes"][0] > 0
    out = np.empty(len(y), dtype=np.int64)
    seq.decode_dense(X, st["W"], st["b"], st["trans"], offsets_of(lengths), out,
                     allowed=allowed)
    for a, z in zip(offsets_of(lengths)[:-1], offsets_of(lengths)[1:]):
        path = out[a:z].tolist()
        pairs = [(K, path[0])] + list(zip(path, path[1:])) + [(K + 1, path[-1])]
        assert all(allowed[i, j] for i, j in pairs)


def test_gold_outside_the_allowed_transitions_is_refused_before_anything_changes(seq, rng):
    lengths = [2, 3, 1, 2, 3]
    X = rng.normal(size=(sum(lengths), 3))
    allowed = np.ones((5, 3), dtype=np.uint8)
    allowed[1, 2] = 0
    y = np.zeros(len(X), dtype=np.int64)
    y[offsets_of(lengths)[3]:offsets_of(lengths)[4]] = 2  # sentence 3: only tag 2 (allowed)
    st = state(3, 3, True)
    run_masked_epoch(seq, X, y, lengths, [0, 1, 2, 3, 4], st, allowed)  # allowed gold: fine
    a, z = offsets_of(lengths)[4], offsets_of(lengths)[5]
    y[a:z] = 1
    y[z - 1] = 2  # sentence 4 ends 1 -> 2
    message = "sentence 4 has the transition tag 1 -> tag 2, which allowed forbids"
    before = {k: v.copy() for k, v in st.items()}
    with pytest.raises(ValueError, match=message):
        run_masked_epoch(seq, X, y, lengths, [0], st, allowed)
    assert all(np.array_equal(v, st[k]) for k, v in before.items())
    allowed[4, 1] = 0  # the end after tag 1
    y[a:z] = 1
    with pytest.raises(ValueError, match="sentence 4 has the transition tag 1 -> end"):
        run_masked_epoch(seq, X, y, lengths, [0], st, allowed)


def test_no_allowed_sequence_is_refused(seq, rng):
    allowed = np.ones((4, 2), dtype=np.uint8)
    allowed[2] = 0  # no tag may come first
    out = np.empty(3, dtype=np.int64)
    with pytest.raises(FloatingPointError, match="sentence 1"):
        seq.viterbi(rng.normal(size=(3, 2)), trans_of(2), offsets_of([0, 3]), out,
                    allowed=allowed)
    with pytest.raises(FloatingPointError, match="sentence 0"):  # -inf emissions: impossible
        seq.viterbi(np.full((2, 2), -np.inf), trans_of(2), offsets_of([2]), out[:2],
                    allowed=np.ones((4, 2), dtype=np.uint8))
    E = np.array([[-np.inf, 0.0], [0.0, -np.inf]])  # -inf rules a tag out, if masked
    seq.viterbi(E, trans_of(2), offsets_of([2]), out[:2], allowed=np.ones((4, 2), np.uint8))
    assert out[:2].tolist() == [1, 0]
    for bad in (np.nan, np.inf):
        with pytest.raises(FloatingPointError, match="sentence 0"):
            seq.viterbi(np.array([[bad, 0.0]]), trans_of(2), offsets_of([1]), out[:1],
                        allowed=np.ones((4, 2), np.uint8))


@pytest.mark.parametrize(("allowed", "message"), [
    (np.ones((4, 3), dtype=np.uint8), "allowed must be a uint8 or bool array"),
    (np.ones((5, 3), dtype=np.int64), "allowed must be a uint8 or bool array"),
    ([[1, 1, 1]] * 5, "allowed must be a uint8 or bool array"),
])
def test_bad_allowed_is_named(seq, allowed, message):
    out = np.empty(2, dtype=np.int64)
    with pytest.raises(ValueError, match=message):
        seq.viterbi(np.zeros((2, 3)), trans_of(3), offsets_of([2]), out, allowed=allowed)


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python one")
@pytest.mark.parametrize("sparse", [False, True])
def test_twins_agree_on_allowed_transitions_on_every_path_and_chunk(seq_twins, rng, sparse):
    C, P = seq_twins
    before_path, before_work = C._set_viterbi_path(C._viterbi_paths()[-1]), C._set_chunk_work(1)
    try:
        for path, work in itertools.product(C._viterbi_paths(), (1, 7, before_work)):
            C._set_viterbi_path(path)
            C._set_chunk_work(work)
            for K in (1, 3, 5, 9):
                allowed = random_allowed(rng, K)
                lengths = random_lengths(rng, 15, max_len=9)
                X = rng.normal(size=(lengths.sum(), 4))
                X[rng.random(X.shape) < 0.3] = 0
                y = allowed_gold(P, rng, X, lengths, allowed, K)
                states = [state(K, 4, True) for _ in range(2)]
                for _ in range(2):
                    order = rng.permutation(15)
                    assert run_masked_epoch(C, X, y, lengths, order, states[0], allowed,
                                            sparse) == \
                        run_masked_epoch(P, X, y, lengths, order, states[1], allowed, sparse)
                for k, v in states[0].items():
                    assert np.array_equal(v, states[1][k]), (path, work, K, k)
                head = to_csr(X) if sparse else (X,)
                tags = []
                for m, n_jobs in ((C, 1), (C, 2), (P, 1)):
                    out = np.empty(len(y), dtype=np.int64)
                    (m.decode_csr if sparse else m.decode_dense)(
                        *head, states[0]["W"], states[0]["b"], states[0]["trans"],
                        offsets_of(lengths), out, n_jobs=n_jobs, allowed=allowed)
                    tags.append(out.tolist())
                assert tags[0] == tags[1] == tags[2]
                E = rng.normal(size=(len(y), K)) * 1e3
                E[rng.random(E.shape) < 0.1] = -np.inf
                outs = []
                for m in seq_twins:
                    out = np.empty(len(y), dtype=np.int64)
                    try:
                        m.viterbi(E, states[0]["trans"], offsets_of(lengths), out,
                                  allowed=allowed)
                        outs.append(out.tolist())
                    except FloatingPointError as exc:
                        outs.append(str(exc))
                assert outs[0] == outs[1]
    finally:
        C._set_viterbi_path(before_path)
        C._set_chunk_work(before_work)


# ------------------------------------------------------------------------ refusals
def test_non_finite_transitions_are_refused(seq):
    for bad in (np.nan, np.inf, -np.inf):
        trans = trans_of(2)
        trans[1, 0] = bad
        with pytest.raises(FloatingPointError, match=r"trans\[1, 0\]"):
            run_viterbi(seq, np.zeros((2, 2)), trans, [2])
        with pytest.raises(FloatingPointError, match=r"trans\[1, 0\]"):
            seq.decode_dense(np.zeros((2, 1)), np.zeros((1, 2)), np.zeros(2), trans,
                             offsets_of([2]), np.empty(2, dtype=np.int64))


def test_non_finite_emissions_and_overflow_are_refused(seq):
    for bad in (np.nan, np.inf, -np.inf):
        E = np.zeros((4, 2))
        E[2, 1] = bad
        with pytest.raises(FloatingPointError, match="sentence 1:"):
            run_viterbi(seq, E, trans_of(2), [2, 2])
    E = np.full((3, 2), 1e308)  # finite, but the sums overflow
    with pytest.raises(FloatingPointError, match="sentence 0:"):
        run_viterbi(seq, E, trans_of(2), [3])
    with pytest.raises(FloatingPointError, match="sentence 0:"):
        run_viterbi(seq, -E, trans_of(2), [3])


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python one")
def test_an_epoch_that_overflows_stops_alike(seq_twins):
    # the first sentence pushes W to 1e308, the second overflows its emissions
    X = np.array([[1e308], [1e308], [1e308]])
    outcomes = []
    for m in seq_twins:
        st = state(2, 1, averaged=True)
        with pytest.raises(FloatingPointError, match=r"position 1 .*\(sentence 1\)"):
            run_epoch(m, X, [1, 1, 1], [1, 2], [0, 1], st)
        outcomes.append(st)
    for k, v in outcomes[0].items():
        assert np.array_equal(v, outcomes[1][k]), k
    assert outcomes[0]["mistakes"].tolist() == [1, 1] and outcomes[0]["count"][0] == 2


@pytest.mark.parametrize(("change", "message"), [
    (dict(offsets=[0, 2, 1, 3]), "offsets must be monotone"),
    (dict(offsets=[0, 2]), "offsets must be monotone"),
    (dict(y=[0, 2, 0]), r"y must hold tag indices in \[0, 2\)"),
    (dict(y=[0, 1]), "y must have one tag per token"),
    (dict(order=[0, 2]), r"order must hold sentence indices in \[0, 2\)"),
    (dict(W=np.zeros((3, 2))), "W must have one row per feature"),
    (dict(b=np.zeros(3)), "b must have one entry per column of W"),
    (dict(trans=np.zeros((3, 2))), r"trans must have shape \(n_tags \+ 2, n_tags\)"),
    (dict(mistakes=np.zeros(1, dtype=np.int64)), r"mistakes must have shape \(2,\)"),
    (dict(count=None), "U, beta, U_trans and count go together"),
    (dict(U_trans=np.zeros((3, 2))), "U_trans must have the shape of trans"),
    (dict(count=np.zeros(1, dtype=np.int64)), r"count must have shape \(1,\) and be >= 1"),
])
def test_bad_arguments_are_named(seq, change, message):
    a = dict(X=np.ones((3, 2)), y=[0, 1, 0], offsets=[0, 2, 3], order=[1, 0],
             W=np.zeros((2, 2)), b=np.zeros(2), trans=np.zeros((4, 2)), U=np.zeros((2, 2)),
             beta=np.zeros(2), U_trans=np.zeros((4, 2)), count=np.ones(1, dtype=np.int64),
             mistakes=np.zeros(2, dtype=np.int64))
    a.update(change)
    for k in ("y", "offsets", "order"):
        a[k] = np.asarray(a[k], dtype=np.int64)
    with pytest.raises(ValueError, match=message):
        seq.structured_epoch_dense(a["X"], a["y"], a["offsets"], a["order"], a["W"], a["b"],
                                   a["trans"], True, a["U"], a["beta"], a["U_trans"],
                                   a["count"], a["mistakes"])
