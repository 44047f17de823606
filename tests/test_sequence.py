"""StructuredPerceptron: learns transitions a per-token classifier cannot, stops on an
error-free epoch, trains the same model on both twins, resumes, saves and loads."""
import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from perceptron_c import _backend, load
from perceptron_c.sequence import StructuredPerceptron

TAGS = np.array(["DET", "NOUN", "VERB"])


def cycle_data(rng, n_sent=60, noise=0.0):
    """Tags cycle 0 -> 1 -> 2 -> 0 from a first tag that only the first token's features
    tell; every later token's features are noise (or nothing): only the transitions tag
    them."""
    lengths = rng.integers(1, 8, size=n_sent)
    X, y = np.zeros((lengths.sum(), 4)), np.empty(lengths.sum(), dtype=np.int64)
    start = 0
    for n in lengths:
        first = rng.integers(3)
        y[start:start + n] = (first + np.arange(n)) % 3
        X[start, first] = 1.0
        X[start + 1:start + n, 3] = 1.0  # "not the first word"
        start += n
    X += noise * rng.normal(size=X.shape)
    return X, TAGS[y], lengths


@pytest.mark.parametrize("average", [True, False])
def test_learns_the_transitions(model_backend, rng, average):
    X, y, lengths = cycle_data(rng)
    m = StructuredPerceptron(average=average, max_iter=50).fit(X, y, lengths)
    assert m.converged_ and m.n_iter_ < 50 and m.mistakes_[-1] == 0
    assert m.score(X, y, lengths) == 1.0
    assert list(m.classes_) == ["DET", "NOUN", "VERB"] and m.predict(X, lengths).dtype == y.dtype
    # the learned transitions are the cycle: from i, i + 1 scores best
    assert np.argmax(m.coef_trans_, axis=1).tolist() == [1, 2, 0]
    # a sentence cut differently is tagged differently: the boundaries matter
    assert not np.array_equal(m.predict(X, [len(X)]), y)


def test_twins_train_the_same_model(rng):
    X, y, lengths = cycle_data(rng, noise=0.3)
    fitted = []
    for backend in ("c", "python"):
        if backend == "c" and _backend.BACKEND != "c":
            pytest.skip("the C core is not in use")
        with _backend.using(backend):
            fitted.append(StructuredPerceptron(max_iter=3).fit(X, y, lengths))
    a, b = fitted
    for name in ("coef_", "intercept_", "coef_trans_", "coef_init_", "coef_final_",
                 "mistakes_"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_sparse_and_threads_change_nothing(model_backend, rng):
    X, y, lengths = cycle_data(rng, noise=0.3)
    dense = StructuredPerceptron(max_iter=4).fit(X, y, lengths)
    sparse = StructuredPerceptron(max_iter=4, n_jobs=2).fit(sp.csr_matrix(X), y, lengths)
    assert np.array_equal(dense.coef_, sparse.coef_)
    assert np.array_equal(dense.coef_trans_, sparse.coef_trans_)
    assert np.array_equal(dense.predict(X, lengths), sparse.predict(sp.csr_matrix(X), lengths))


def test_the_average_is_the_textbook_one(rng):
    # c W - U over the state: the average of the weights after every sentence, w_0 = 0 first
    X, y, lengths = cycle_data(rng, n_sent=5, noise=0.0)
    m = StructuredPerceptron(max_iter=1, shuffle=False).fit(X, y, lengths)
    plain = StructuredPerceptron(average=False, max_iter=1, shuffle=False)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    total, seen = np.zeros_like(m.coef_), 0
    for s in range(len(lengths)):
        total += plain.coef_ if seen else 0.0
        sl = slice(offsets[s], offsets[s + 1])
        plain.partial_fit(X[sl], y[sl], [lengths[s]], classes=TAGS)
        seen += 1
    total += plain.coef_
    assert np.allclose(m.coef_, total / (len(lengths) + 1), rtol=0, atol=1e-12)


def test_random_state_and_partial_fit(model_backend, rng):
    X, y, lengths = cycle_data(rng, noise=0.5)
    a = StructuredPerceptron(max_iter=1, random_state=3).fit(X, y, lengths)
    b = StructuredPerceptron(random_state=3).partial_fit(X, y, lengths, classes=TAGS)
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.coef_trans_, b.coef_trans_)
    c = StructuredPerceptron(max_iter=1, random_state=4).fit(X, y, lengths)
    assert not np.array_equal(a.coef_, c.coef_)
    # two epochs of partial_fit are two epochs of fit
    b.partial_fit(X, y, lengths)
    d = StructuredPerceptron(max_iter=2, random_state=3).fit(X, y, lengths)
    assert np.array_equal(b.coef_, d.coef_) and b.mistakes_.tolist() == d.mistakes_.tolist()


def test_save_and_load(tmp_path, rng):
    X, y, lengths = cycle_data(rng, noise=0.3)
    m = StructuredPerceptron(max_iter=2).fit(X, y, lengths)
    path = m.save(tmp_path / "tagger.npz")
    back = load(path)
    assert isinstance(back, StructuredPerceptron) and back.get_params() == m.get_params()
    assert np.array_equal(back.predict(X, lengths), m.predict(X, lengths))
    for name in ("coef_", "coef_trans_", "coef_init_", "coef_final_", "mistakes_"):
        assert np.array_equal(getattr(back, name), getattr(m, name)), name
    # the loaded model resumes where the saved one was
    m.partial_fit(X, y, lengths)
    back.partial_fit(X, y, lengths)
    assert np.array_equal(back.coef_, m.coef_)


@pytest.mark.parametrize(("lengths", "message"), [
    ([2, 2], "must sum to the number of rows"),
    ([4, 0, 1], ">= 1"),
    ([2.5, 2.5], "integers"),
    ([], "non-empty"),
])
def test_bad_lengths_are_named(rng, lengths, message):
    X, y = np.zeros((5, 2)), TAGS[[0, 1, 2, 0, 1]]
    with pytest.raises(ValueError, match=message):
        StructuredPerceptron().fit(X, y, lengths)


def test_every_call_without_lengths_says_how_to_pass_them(rng):
    """Without lengths, fit trained all of X as one sentence (accuracy 0.950 -> 0.256 on
    docs/sequence.md's data) and predict and score decoded it as one, silently."""
    X, y, lengths = cycle_data(rng, noise=0.3)
    m = StructuredPerceptron(max_iter=2)
    calls = {"fit": lambda: m.fit(X, y), "partial_fit": lambda: m.partial_fit(X, y, classes=TAGS),
             "predict": lambda: m.predict(X), "score": lambda: m.score(X, y)}
    for name in ("fit", "partial_fit"):
        with pytest.raises(ValueError, match=rf"lengths is required: StructuredPerceptron\.{name}"):
            calls[name]()
        assert not hasattr(m, "classes_")  # refused before anything ran
    m.fit(X, y, lengths)
    before = {k: v.copy() for k, v in m._state.items()}
    for name, call in calls.items():
        with pytest.raises(ValueError, match=rf"StructuredPerceptron\.{name} takes .*lengths=\[len"
                                             r"\(X\)\].*__lengths=lengths.*cross_val_score"):
            call()
    assert all(np.array_equal(m._state[k], v) for k, v in before.items())
    assert m.n_iter_ == 2
    # a single sentence is lengths=[n]
    assert m.predict(X, [len(X)]).shape == (len(X),)


def test_a_pipeline_passes_lengths_and_cross_validation_says_it_cannot(rng):
    pytest.importorskip("sklearn")
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler

    X, y, lengths = cycle_data(rng, noise=0.3)
    pipe = make_pipeline(MaxAbsScaler(), StructuredPerceptron(max_iter=5))
    with pytest.raises(ValueError, match="lengths is required"):
        pipe.fit(X, y)  # (it trained one sentence of every row)
    pipe.fit(X, y, structuredperceptron__lengths=lengths)
    alone = StructuredPerceptron(max_iter=5).fit(MaxAbsScaler().fit_transform(X), y, lengths)
    assert np.array_equal(pipe.predict(X, lengths=lengths), alone.predict(
        MaxAbsScaler().fit_transform(X), lengths))
    with pytest.raises(ValueError, match="lengths is required.*pipe.score"):
        pipe.score(X, y, lengths=lengths)  # (Pipeline.score drops it unless routing is on)
    with pytest.raises(ValueError, match="(?s)fits failed.*lengths is required.*cross_val_"):
        cross_val_score(pipe, X, y, cv=2)  # (the message reaches its user)


def sentences_of(tags, lengths):
    return [part.tolist() for part in np.split(tags, np.cumsum(lengths)[:-1])]


@pytest.mark.parametrize("kind", ["lists", "tuples", "arrays"])
def test_y_by_sentence_gives_the_lengths_and_predict_splits(model_backend, rng, kind):
    """sklearn-crfsuite's and seqeval's shape: y as each sentence's tags (numpy's
    "inhomogeneous shape" error before), and predict(split=True) as lists of tags."""
    X, y, lengths = cycle_data(rng, noise=0.3)
    y_sent = sentences_of(y, lengths)
    y_sent = {"lists": y_sent, "tuples": tuple(tuple(s) for s in y_sent),
              "arrays": [np.array(s) for s in y_sent]}[kind]
    flat = StructuredPerceptron(max_iter=3).fit(X, y, lengths)
    by = StructuredPerceptron(max_iter=3).fit(X, y_sent)
    assert np.array_equal(flat.classes_, by.classes_)
    assert all(np.array_equal(flat._state[k], by._state[k]) for k in flat._state)
    assert StructuredPerceptron(max_iter=3).fit(X, y_sent, lengths).coef_.tolist() == \
        flat.coef_.tolist()  # lengths may be given too, when they agree
    split = by.predict(X, lengths, split=True)
    assert split == sentences_of(flat.predict(X, lengths), lengths)
    assert [len(s) for s in split] == lengths.tolist()
    assert all(type(tag) is str for s in split for tag in s)
    assert by.score(X, y_sent) == flat.score(X, y, lengths)
    part = StructuredPerceptron().partial_fit(X, y_sent, classes=TAGS)
    assert np.array_equal(part.coef_, StructuredPerceptron().partial_fit(
        X, y, lengths, classes=TAGS).coef_)
    assert by.predict(X, lengths, split=False).shape == (len(X),)


@pytest.mark.parametrize(("y", "lengths", "error", "message"), [
    ([["DET", "NOUN"], "VERB"], None, TypeError, r"y\[1\] must be a sentence's tags"),
    ([["DET", "NOUN"], []], None, ValueError, r"y\[1\] is an empty sentence"),
    ([["DET", "NOUN"], ["VERB"]], [1, 2], ValueError, "the lengths of the sentences of y"),
    ([["DET", "NOUN"], ["VERB", "DET"]], None, ValueError, "must sum to the number of rows"),
])
def test_bad_sentences_of_y_are_named(y, lengths, error, message):
    with pytest.raises(error, match=message):
        StructuredPerceptron().fit(np.zeros((3, 2)), y, lengths)


def test_split_must_be_a_flag():
    m = StructuredPerceptron(max_iter=1).fit(np.zeros((3, 2)), TAGS[[0, 1, 0]], [3])
    with pytest.raises(TypeError, match="split must be True or False"):
        m.predict(np.zeros((3, 2)), [3], split="yes")


def test_groups_give_the_lengths_as_runs_of_a_sentence_label(rng):
    X, y, lengths = cycle_data(rng, noise=0.3)
    groups = np.repeat(np.arange(len(lengths)) % 2, lengths)  # neighbours differ: runs
    by_lengths = StructuredPerceptron(max_iter=3).fit(X, y, lengths)
    by_groups = StructuredPerceptron(max_iter=3).fit(X, y, groups=groups.astype(str))
    assert np.array_equal(by_lengths.coef_, by_groups.coef_)
    assert np.array_equal(by_groups.predict(X, groups=groups), by_lengths.predict(X, lengths))
    assert by_groups.score(X, y, groups=groups) == by_lengths.score(X, y, lengths)
    with pytest.raises(ValueError, match="pass lengths or groups, not both"):
        by_groups.predict(X, lengths, groups=groups)
    with pytest.raises(ValueError, match="groups must be a non-empty 1-d array"):
        by_groups.predict(X, groups=[])
    with pytest.raises(ValueError, match="lengths must sum to the number of rows"):
        by_groups.predict(X, groups=groups[:-1])


def test_score_takes_sample_weight_as_scikit_learn_scores_do(rng):
    X, y, lengths = cycle_data(rng, noise=0.8)
    m = StructuredPerceptron(max_iter=2).fit(X, y, lengths)
    w = rng.random(len(y))
    right = m.predict(X, lengths) == y
    assert m.score(X, y, lengths, sample_weight=w) == pytest.approx(np.average(right, weights=w))
    assert m.score(X, y, lengths, sample_weight=1.0) == m.score(X, y, lengths)
    with pytest.raises(ValueError, match="sample_weight.shape"):
        m.score(X, y, lengths, sample_weight=w[:-1])


def test_metadata_routing_passes_lengths_and_groups_on(rng):
    """Pipeline, cross_validate and GroupKFold with scikit-learn's metadata routing: the
    sentence metadata reach each fold whole (groups are split with the rows)."""
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import GroupKFold, cross_validate
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler

    X, y, lengths = cycle_data(rng, n_sent=90, noise=0.5)
    groups = np.repeat(np.arange(len(lengths)), lengths)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(MaxAbsScaler(), StructuredPerceptron(max_iter=3))
        pipe.fit(X, y, lengths=lengths)
        alone = StructuredPerceptron(max_iter=3).fit(MaxAbsScaler().fit_transform(X), y,
                                                     lengths)
        assert np.array_equal(pipe.predict(X, lengths=lengths),
                              alone.predict(MaxAbsScaler().fit_transform(X), lengths))
        assert pipe.score(X, y, lengths=lengths) == alone.score(
            MaxAbsScaler().fit_transform(X), y, lengths)
        # (cross_validate's default scorer routes score's metadata through a Pipeline from
        # scikit-learn 1.8 on: its PR #31898; 1.7 scores each fold without them)
        if tuple(int(p) for p in sklearn.__version__.split(".")[:2]) >= (1, 8):
            scores = cross_validate(pipe, X, y, cv=GroupKFold(3),
                                    params={"groups": groups})["test_score"]
            by_hand = []
            for train, test in GroupKFold(3).split(X, y, groups):
                fold = clone(pipe).fit(X[train], y[train], groups=groups[train])
                by_hand.append(fold.score(X[test], y[test], groups=groups[test]))
            assert scores.tolist() == by_hand
        # a request set to False is not routed: nothing else takes lengths
        off = clone(pipe.set_params(structuredperceptron__max_iter=2))
        off[-1].set_fit_request(lengths=False)
        assert clone(off)[-1].get_metadata_routing().fit.requests["lengths"] is False
        with pytest.raises(TypeError, match="lengths"):
            off.fit(X, y, lengths=lengths)
    with pytest.raises(ValueError, match="lengths's request must be"):
        StructuredPerceptron().set_predict_request(lengths=2)
    requests = StructuredPerceptron().set_score_request(sample_weight=True)
    assert requests.get_metadata_routing().score.requests == {
        "lengths": True, "groups": True, "sample_weight": True}


def bio_data():
    """A name's second word alone after an outside word: its emission says I-PER, which BIO
    forbids after O."""
    train = [(["a", "x"], ["B-PER", "I-PER"])] * 20 + [(["o", "b"], ["O", "O"])] * 20
    words = sorted({w for ws, _ in train for w in ws})
    X = np.array([[float(w == v) for v in words] for ws, _ in train for w in ws])
    return X, [t for _, ts in train for t in ts], [2] * len(train), \
        np.array([[float(w == v) for v in words] for w in ("o", "x")])


def test_bio_transitions_keep_the_tags_valid(model_backend):
    from perceptron_c.tagging import get_entities

    X, y, lengths, test = bio_data()
    free = StructuredPerceptron().fit(X, y, lengths)
    assert free.predict(test, [2]).tolist() == ["O", "I-PER"]  # (what BIO forbids)
    held = StructuredPerceptron(transitions="bio").fit(X, y, lengths)
    assert held.predict(test, [2]).tolist() == ["B-PER", "I-PER"]
    assert get_entities(held.predict(test, [2]).tolist()) == [("PER", 0, 1)]
    assert held.score(X, y, lengths) == 1.0
    # the scheme is read at each call: changing it after fit changes the decoding
    assert held.set_params(transitions=None).predict(test, [2]).tolist() == ["O", "I-PER"]


def test_bioes_transitions_close_every_entity(model_backend):
    X, y, lengths, test = bio_data()
    y = ["E-PER" if t == "I-PER" else t for t in y]  # B-PER E-PER: a closed entity
    model = StructuredPerceptron(transitions="bioes").fit(X, y, lengths)
    free = StructuredPerceptron().fit(X, y, lengths)
    assert free.predict(test, [2]).tolist() == ["O", "E-PER"]  # (what BIOES forbids)
    tags = model.predict(test, [2]).tolist()
    assert tags in (["B-PER", "E-PER"], ["O", "O"], ["O", "S-PER"])  # valid BIOES, here O O
    assert model.score(X, y, lengths) == 1.0
    allowed = model._allowed()
    assert allowed.shape == (len(model.classes_) + 2, len(model.classes_))


def test_transitions_refuse_tags_and_sentences_outside_the_scheme(model_backend):
    X, y, lengths, _ = bio_data()
    bad = list(y)
    bad[0] = "I-PER"  # sentence 0 starts inside
    model = StructuredPerceptron(transitions="bio")
    with pytest.raises(ValueError, match=r"y: sentence 0 starts with 'I-PER' \(token 0\), "
                                         "which transitions='bio' forbids"):
        model.fit(X, bad, lengths)
    assert not hasattr(model, "classes_")
    bad = list(y)
    bad[3] = "I-PER"  # sentence 1: B-PER I-PER ... ; sentence 21 is O O: make it O I-PER
    bad[2 * 21 + 1] = "I-PER"
    with pytest.raises(ValueError, match="sentence 21 has 'O' before 'I-PER' \\(token 1\\)"):
        model.fit(X, bad, lengths)
    bad = ["E-PER" if t == "I-PER" else t for t in y]
    bad[2 * 21 + 1] = "B-PER"  # sentence 21: O B-PER, an entity never closed
    with pytest.raises(ValueError, match=r"sentence 21 ends with 'B-PER' \(token 1\)"):
        StructuredPerceptron(transitions="bioes").fit(X, bad, lengths)
    with pytest.raises(ValueError, match="tag 'PER' is not a BIO tag"):
        model.fit(X, ["PER" if t == "B-PER" else t for t in y], lengths)
    with pytest.raises(ValueError, match="tag 'E-PER' is not a BIO tag"):
        model.fit(X, ["E-PER" if t == "I-PER" else t for t in y], lengths)
    with pytest.raises(ValueError, match="transitions"):
        StructuredPerceptron(transitions="iob").fit(X, y, lengths)


def test_forced_tags_are_kept_and_the_rest_decoded_around_them(model_backend, rng):
    X, y, lengths, test = bio_data()
    model = StructuredPerceptron().fit(X, y, lengths)
    two = np.vstack([test, X[:2]])  # "o x" and "a x"
    assert model.predict(two, [2, 2]).tolist() == ["O", "I-PER", "B-PER", "I-PER"]
    assert model.predict(two, [2, 2], forced=[None] * 4).tolist() == \
        model.predict(two, [2, 2]).tolist()
    assert model.predict(two, [2, 2], forced=["B-PER", None, None, "O"]).tolist() == \
        ["B-PER", "I-PER", "B-PER", "O"]
    # the best sequence that keeps the forced tag, by brute force over the rest
    Xn, tags, lengths = cycle_data(rng, n_sent=30, noise=0.8)
    free = StructuredPerceptron(max_iter=2).fit(Xn, tags, lengths)
    forced = np.full(len(tags), None, dtype=object)
    forced[::5] = tags[::5]
    got = free.predict(Xn, lengths, forced=forced)
    assert all(got[i] == forced[i] for i in range(0, len(tags), 5))
    W, b, trans, _ = free._tables()
    K, start = len(free.classes_), 0
    emissions = np.empty((len(tags), K))
    _backend.sequence.emissions_dense(Xn, W, b, emissions)  # (the model's own sums)
    for n in lengths.tolist():
        E = emissions[start:start + n]
        fixed = {t: free.classes_.tolist().index(forced[start + t]) for t in range(n)
                 if forced[start + t] is not None}
        best = max((p for p in itertools.product(range(K), repeat=n)
                    if all(p[t] == k for t, k in fixed.items())),
                   key=lambda p: trans[K, p[0]] + trans[K + 1, p[-1]] + sum(
                       E[t, p[t]] for t in range(n)) + sum(
                       trans[p[t - 1], p[t]] for t in range(1, n)))
        assert got[start:start + n].tolist() == free.classes_[list(best)].tolist()
        start += n


def test_forced_tags_are_checked(model_backend):
    X, y, lengths, test = bio_data()
    model = StructuredPerceptron(transitions="bio").fit(X, y, lengths)
    with pytest.raises(ValueError, match=r"forced must hold one entry per row of X \(2\)"):
        model.predict(test, [2], forced=["O"])
    with pytest.raises(ValueError, match="forced: 'B-LOC' is not one of the tags"):
        model.predict(test, [2], forced=["B-LOC", None])
    with pytest.raises(FloatingPointError, match="sentence 0"):  # BIO: no I-PER after O
        model.predict(test, [2], forced=["O", "I-PER"])


def test_transitions_survive_the_model_file(tmp_path):
    X, y, lengths, test = bio_data()
    model = StructuredPerceptron(transitions="bio").fit(X, y, lengths)
    model.save(tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert again.transitions == "bio"
    assert again.predict(test, [2]).tolist() == ["B-PER", "I-PER"]


def test_other_refusals():
    X, y = np.zeros((3, 2)), TAGS[[0, 1, 0]]
    with pytest.raises(ValueError, match="classes must be passed"):
        StructuredPerceptron().partial_fit(X, y, [3])
    m = StructuredPerceptron(max_iter=1).fit(X, y, [3])
    with pytest.raises(ValueError, match="features"):
        m.predict(np.zeros((3, 5)), [3])
    with pytest.raises(ValueError, match="average"):
        m.set_params(average=False, warm_start=True).fit(X, y, [3])


def test_the_cross_estimator_contract_holds_for_sentences(tmp_path, rng):
    # the generic tables that need decision_function or row-wise predictions
    # (test_fitted_params, check_estimator) cannot take a sentence model: this is their part
    sklearn_base = pytest.importorskip("sklearn.base")
    X, y, lengths = cycle_data(rng, noise=0.3)
    m = StructuredPerceptron(max_iter=3).fit(X, y, lengths)
    before = m.predict(X, lengths)
    m.set_params(max_iter=7, average=False)  # changes no fitted model
    assert np.array_equal(m.predict(X, lengths), before)
    with pytest.raises(ValueError, match="another `average`"):
        m.set_params(warm_start=True).fit(X, y, lengths)
    clone = sklearn_base.clone(m)
    assert clone.get_params() == m.get_params() and not hasattr(clone, "coef_")
    m.set_params(average=True)
    assert np.array_equal(pickle.loads(pickle.dumps(m)).predict(X, lengths), before)
    m.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert np.array_equal(back.coef_, m.coef_) and back.coef_.shape == (len(m.classes_),
                                                                        X.shape[1])
    assert np.array_equal(back.predict(X, lengths), before)


@pytest.mark.parametrize("average", [True, False])
def test_published_attributes_are_the_state_average(model_backend, rng, average):
    # fit and partial_fit publish lazily: what is read afterwards is computed from the state
    # they leave, W - U / c (the last weights without averaging), bit for bit
    X, y, lengths = cycle_data(rng, noise=0.5)
    m = StructuredPerceptron(average=average, max_iter=3).fit(X, y, lengths)
    for _ in range(2):
        st = m._state
        W, b, trans = st["W"], st["b"], st["trans"]
        if average:
            c = float(st["count"][0])
            W, b, trans = W - st["U"] / c, b - st["beta"] / c, trans - st["U_trans"] / c
        assert np.array_equal(m.coef_, W.T) and np.array_equal(m.intercept_, b)
        assert np.array_equal(m.coef_trans_, trans[:3])
        assert np.array_equal(m.coef_init_, trans[3]) and np.array_equal(m.coef_final_, trans[4])
        assert not np.shares_memory(m.coef_, st["W"]) and m.coef_ is m.coef_  # computed once
        before = m.coef_.copy()
        m.partial_fit(X, y, lengths)  # the next epoch changes the state: coef_ follows it
        assert "_published_cache" not in vars(m)  # nothing averaged until read
    assert not np.array_equal(before, m.coef_) or m.mistakes_[-1] == 0
