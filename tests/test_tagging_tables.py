"""The tables that tag Python tokens in one call (_tagging's GreedyTables and ViterbiTables):
the C twin against its spec on random models and hostile tokens, the same errors, the tagger
making them when its model is trained, loaded or changed, and many threads at once."""
import itertools
import pickle
import random
import threading

import numpy as np
import pytest
from conftest import _module, interrupt_after_real_work, run_threads
from tagged_corpus import tagged_sentences

from perceptron_c import _backend
from perceptron_c._core import _features_py, _tagging_py, _tokens_py
from perceptron_c.datasets import make_tagged_sentences
from perceptron_c.tagging import PerceptronTagger

# tokens that reach every branch of NLTK's normalize and of the C reader: empty, hyphens
# (first and inside), 4-digit and other numbers (Unicode digits too), case that str.lower
# maps to more code points ('İ'), non-BMP code points, spaces, NLTK's own marker strings
ALPHABET = ["a", "b", "B", "-", "1", "٣", "İ", "ß", "Σ", "x", "\U0001F600", " ", "é", "Q"]
ODD_TOKENS = ["", "-", "-a", "a-b", "1999", "١٩٩٩", "12ab", "İstanbul", "ΣΑΣ", "-START-",
              "-END2-", "!HYPHEN", "a b", "\U0001F600x", "bias", "ABC", "abc"]
TAGS = ["A", "B", "C", "DT", "NN", ""]  # "" is a class NLTK allows (and no tag dict entry)


def _tokens(rng, n):
    out = []
    for _ in range(n):
        if rng.random() < 0.3:
            out.append(ODD_TOKENS[rng.integers(len(ODD_TOKENS))])
        else:
            out.append("".join(ALPHABET[k] for k in rng.integers(0, len(ALPHABET),
                                                                 rng.integers(0, 5))))
    return out


def _sentences(rng, n_sent):
    return [_tokens(rng, int(rng.integers(0, 9))) for _ in range(n_sent)]


def _features(rng, sentences, names, with_dynamic):
    """A random model's feature strings: most of NLTK's static keys of ``sentences``, the
    dynamic keys of random tags (some tags unknown), junk; in random order, distinct."""
    keys = set()
    for words in sentences:
        for token_keys in _features_py.sentence_keys(words, _tokens_py.NLTK_SPEC):
            keys.update(k for k in token_keys if rng.random() < 0.8)
    norm = [_features_py.normalize(w) for s in sentences for w in s] + ["-START-", "zz z"]
    tags = names + ["UNKNOWN", "X Y"]
    if with_dynamic:
        for _ in range(300):
            p, q = (tags[k] for k in rng.integers(0, len(tags), 2))
            keys.update([f"i-1 tag {p}", f"i-2 tag {q}", f"i tag+i-2 tag {p} {q}",
                         f"i-1 tag+i word {p} {norm[rng.integers(len(norm))]}"])
    keys.update(["i word", "bias ", "i-3 word x", "i suffix", "", "i tag+i-2 tag A"])
    out = sorted(keys)
    rng.shuffle(out)
    return out


def _csr(weights, rng=None):
    """Dense weights as CSR rows (GreedyTables' form): the non-zero entries, and with ``rng``
    some explicit zeros, -0.0 among them (they add nothing either)."""
    keep = weights != 0
    if rng is not None:
        keep |= rng.random(weights.shape) < 0.1
        weights = np.where(rng.random(weights.shape) < 0.5, weights, -weights)
    rows, cols = np.nonzero(keep)
    indptr = np.zeros(weights.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=indptr[1:])
    return indptr, cols.astype(np.int64), np.ascontiguousarray(weights[rows, cols])


def _greedy_case(rng):
    K = int(rng.integers(1, len(TAGS) + 1))
    classes = sorted(TAGS[:K])
    extra = ["EXTRA"] if rng.random() < 0.5 else []
    names = classes + ["-START-", "-START2-"] + extra
    sentences = _sentences(rng, 40)
    features = _features(rng, sentences, names, True)
    # small integers: sums are exact and ties frequent
    weights = rng.integers(-2, 3, (len(features), K)).astype(np.float64)
    words = [w for s in sentences for w in s]
    tagdict = {w: names[rng.integers(len(names))] if rng.random() < 0.8 else ""
               for w in rng.choice(words, min(10, len(words)), replace=False)} if words else {}
    tagdict.pop("-START-", None)
    return features, names, K, weights, sentences, tagdict


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_greedy_tables_equal_their_spec(seed, sparse):
    """Dense models, and sparse ones (an eighth of the pairs or fewer: the C twin keeps the
    rows of many entries dense, the others as entries) alike."""
    C = _module("c", "_tagging")
    rng = np.random.default_rng(seed)
    features, names, K, weights, sentences, tagdict = _greedy_case(rng)
    if sparse:
        weights[rng.random(weights.shape) < 0.97] = 0.0
        weights[rng.random(weights.shape[0]) < 0.02] = rng.integers(1, 3, K)
    rows = _csr(weights, None if sparse else rng)
    c = C.GreedyTables(features, names, K, *rows)
    py = _tagging_py.GreedyTables(features, names, K, *rows)
    for td in (None, tagdict):
        got = c.tag_sentences(sentences, td)
        assert got == py.tag_sentences(sentences, td)
        assert [c.tag_sentence(s, td) for s in sentences] == got
        assert all([w for w, _ in t] == s for t, s in zip(got, sentences))
    assert sum(t in names for s in got for _, t in s) == sum(map(len, sentences))


@pytest.mark.parametrize("seed", range(4))
def test_greedy_tables_on_long_batches(seed):
    """More tokens than one block (4096): blocks, the GIL released, Ctrl-C looked at."""
    C = _module("c", "_tagging")
    rng = np.random.default_rng(100 + seed)
    features, names, K, weights, _, tagdict = _greedy_case(rng)
    sentences = _sentences(rng, 2500) + [_tokens(rng, 5000)]
    c = C.GreedyTables(features, names, K, *_csr(weights))
    py = _tagging_py.GreedyTables(features, names, K, *_csr(weights))
    assert c.tag_sentences(sentences, tagdict) == py.tag_sentences(sentences, tagdict)


def _viterbi_case(rng, K, scale):
    sentences = _sentences(rng, 60)
    features = _features(rng, sentences, [], False)
    if scale:  # floats: sums round, so the order of additions shows
        W = rng.normal(size=(len(features), K)) * scale
        b, trans = rng.normal(size=K), rng.normal(size=(K + 2, K))
    else:
        W = rng.integers(-2, 3, (len(features), K)).astype(np.float64)
        b = rng.integers(-1, 2, K).astype(np.float64)
        trans = rng.integers(-1, 2, (K + 2, K)).astype(np.float64)
    return features, [f"T{k}" for k in range(K)], W, b, trans, sentences


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("seed", range(6))
def test_viterbi_tables_equal_their_spec_on_every_path(seed, order):
    C = _module("c", "_tokens")
    seq = _module("c", "_sequence")
    rng = np.random.default_rng(seed)
    K = [1, 2, 3, 5, 9, 45][seed] if order == 1 else [1, 2, 3, 5, 9, 17][seed]
    for scale in (0, 1.0, 1e-3):
        features, names, W, b, trans, sentences = _viterbi_case(rng, K, scale)
        trans2 = None
        if order == 2:  # second order: the trigram scores of the same kind
            trans2 = rng.normal(size=(K + 1,) * 3) if scale else \
                rng.integers(-1, 2, (K + 1,) * 3).astype(np.float64)
        want = _tokens_py.ViterbiTables(features, names, W, b, trans,
                                        trans2).tag_sentences(sentences)
        for path, work in itertools.product(seq._viterbi_paths(), (1 << 22, 1, 7 * K * K)):
            before, chunk = seq._set_viterbi_path(path), C._set_chunk_work(work)
            try:  # (work 1: the pass stops after every Viterbi row, and goes on)
                c = C.ViterbiTables(features, names, W, b, trans, trans2)
                assert c.tag_sentences(sentences) == want, (path, work)
                assert [c.tag_sentence(s) for s in sentences] == want, (path, work)
            finally:
                seq._set_viterbi_path(before)
                C._set_chunk_work(chunk)


@pytest.mark.parametrize("order", [1, 2])
def test_viterbi_tables_are_the_structured_model(order):
    """The tagger's tables tag as TokenFeatures then StructuredPerceptron.predict did."""
    data = make_tagged_sentences(3, 400, n_tags=12, n_symbols=200, ambiguity=0.5)
    random.seed(1)
    tagger = PerceptronTagger(load=False, structured=True, order=order)
    tagger.train(data[:300], nr_iter=3)
    words = [[w for w, _ in s] for s in data[300:]] + [[], ["never", "SEEN", "-", "1999"]]
    core = tagger._core
    X, lengths = core.features.transform([s for s in words if s], return_lengths=True)
    tags = core.model.predict(X, lengths)  # (a sentence has a token there)
    flat = [t for s in tagger.tag_sents(words) for _, t in s]
    assert flat == [core.classes[c] for c in tags.tolist()]


def test_greedy_tagger_equals_the_token_by_token_path():
    random.seed(2)
    tagger = PerceptronTagger(load=False)
    tagger.train(tagged_sentences(4, 1500), nr_iter=3)
    rng = np.random.default_rng(0)
    words = [[w for w, _ in s] for s in tagged_sentences(5, 300)] + _sentences(rng, 100)
    for use in (True, False):
        slow = [[(w, t) for w, t, _ in tagger.tag(s, return_conf=True, use_tagdict=use)]
                for s in words]
        assert [tagger.tag(s, use_tagdict=use) for s in words] == slow
    assert tagger.tag_sents(words) == [tagger.tag(s) for s in words]


@pytest.mark.parametrize("backend", ["c", "python"])
def test_the_same_errors(backend):
    R, V = _module(backend, "_tagging"), _module(backend, "_tokens")
    rng = np.random.default_rng(7)
    features, names, K, weights, sentences, _ = _greedy_case(rng)
    rows = _csr(weights)
    g = R.GreedyTables(features, names, K, *rows)
    bad_cols = rows[1].copy()
    bad_cols[-1] = K
    cases = [
        (lambda: g.tag_sentence(("a",), None), TypeError, "tokens must be a list"),
        (lambda: g.tag_sentence(["a", 3], None), TypeError, r"tokens\[1\] must be a str"),
        (lambda: g.tag_sentences([["a"], ["b", None]], None), TypeError,
         r"sentences\[1\]\[1\] must be a str"),
        (lambda: g.tag_sentences([["a"], "b"], None), TypeError, r"sentences\[1\] must be a"),
        (lambda: g.tag_sentences((["a"],), None), TypeError, "sentences must be a list"),
        (lambda: g.tag_sentence(["a"], [("a", "A")]), TypeError, "tagdict must be a dict"),
        (lambda: g.tag_sentences([["x"], ["a"], [3]], {"a": "NOT A NAME"}), TypeError,
         r"sentences\[2\]\[0\]"),
        (lambda: g.tag_sentence(["x", "a"], {"a": "NOT A NAME"}), KeyError, "NOT A NAME"),
        (lambda: R.GreedyTables(features, names + ["x y"], K, *rows), ValueError, "space"),
        (lambda: R.GreedyTables(features, names[:K] + names[K + 1:], K, *rows), ValueError,
         "-START-"),
        (lambda: R.GreedyTables(features, names + names[:1], K, *rows), ValueError,
         "distinct"),
        (lambda: R.GreedyTables(features + features[:1], names, K, *rows), ValueError,
         "repeats"),
        (lambda: R.GreedyTables(features[1:], names, K, *rows), ValueError, "indptr"),
        (lambda: R.GreedyTables(features, names, K, rows[0][::-1].copy(), *rows[1:]),
         ValueError, "indptr"),
        (lambda: R.GreedyTables(features, names, K, rows[0], bad_cols, rows[2]), ValueError,
         "columns"),
        (lambda: R.GreedyTables(features, names, K, *rows[:2], rows[2][:-1]), ValueError,
         "values"),
        (lambda: R.GreedyTables(features, names, K, np.repeat(rows[0], 2)[::2], *rows[1:]),
         ValueError, "contiguous"),
        (lambda: R.GreedyTables(features + [3], names, K,
                                np.append(rows[0], rows[0][-1]), *rows[1:]),
         TypeError, "must be a str"),
    ]
    for call, error, match in cases:
        with pytest.raises(error, match=match):
            call()
    features, names, W, b, trans, sentences = _viterbi_case(rng, 3, 1.0)
    bad = trans.copy()
    bad[4, 1] = np.nan
    with pytest.raises(FloatingPointError, match=r"trans\[4, 1\] is not finite"):
        V.ViterbiTables(features, names, W, b, bad)
    with pytest.raises(ValueError, match="b must be"):
        V.ViterbiTables(features, names, W, b[:2], trans)
    with pytest.raises(ValueError, match="W must be"):
        V.ViterbiTables(features, names, W.T.copy().T, b, trans)
    huge = W.copy()
    huge[:] = 1e308  # emissions overflow: the first sentence with a known feature
    first = next(k for k, s in enumerate(sentences) if s)
    with pytest.raises(FloatingPointError, match=f"at sentence {first}:"):
        V.ViterbiTables(features, names, huge, b, trans).tag_sentences(sentences)


def test_a_new_tag_in_the_tag_dictionary_makes_new_tables():
    random.seed(0)
    tagger = PerceptronTagger(load=False)
    tagger.train(tagged_sentences(1, 800), nr_iter=2)
    tagger.tagdict["zebra"] = "NEWTAG"
    assert tagger.tag(["the", "zebra", "runs"])[1] == ("zebra", "NEWTAG")
    slow = [(w, t) for w, t, _ in tagger.tag(["the", "zebra", "runs"], return_conf=True)]
    assert tagger.tag(["the", "zebra", "runs"]) == slow


def _ready(tagger):
    """The tagger holds tables of the twin in use: its next call is a normal one."""
    kind = "ViterbiTables" if tagger.structured else "GreedyTables"
    module = _backend.tokens if tagger.structured else _backend.tagging
    return type(tagger._tables) is getattr(module, kind)


@pytest.mark.parametrize("structured", [False, True])
def test_tables_are_made_with_the_model(structured, tmp_path, model_backend):
    """Made by train, a second train, load, from_nltk_json and unpickling; and they follow
    each new model (the tags equal the token-by-token path's or a fresh tagger's)."""
    data = tagged_sentences(6, 600)
    words = [[w for w, _ in s] for s in tagged_sentences(7, 100)]
    random.seed(3)
    tagger = PerceptronTagger(load=False, structured=structured)
    assert tagger._tables is None
    tagger.train(data, nr_iter=2)
    assert _ready(tagger)
    first = tagger.tag_sents(words)
    tagger.train(tagged_sentences(8, 300) + [[("qqq", "QQ")]] * 25, nr_iter=2)
    assert _ready(tagger)
    second = tagger.tag_sents(words + [["qqq"]])
    assert second[-1] == [("qqq", "QQ")] and first != second[:-1]
    if not structured:
        slow = [[(w, t) for w, t, _ in tagger.tag(s, return_conf=True)]
                for s in words + [["qqq"]]]
        assert second == slow
        tagger.to_nltk_json(tmp_path / "nltk")
        loaded = PerceptronTagger.from_nltk_json(tmp_path / "nltk")
        assert _ready(loaded) and loaded.tag_sents(words) == second[:-1]
    loaded = PerceptronTagger.load(tagger.save(tmp_path / "m.npz"))
    assert _ready(loaded) and loaded.tag_sents(words + [["qqq"]]) == second
    copy = pickle.loads(pickle.dumps(tagger))
    assert _ready(copy) and copy.tag_sents(words + [["qqq"]]) == second


def test_the_other_twin_gets_its_own_tables():
    random.seed(0)
    tagger = PerceptronTagger(load=False)
    tagger.train(tagged_sentences(1, 300), nr_iter=1)
    words = [[w for w, _ in s] for s in tagged_sentences(2, 50)]
    want = tagger.tag_sents(words)
    with _backend.using("python"):
        assert tagger.tag_sents(words) == want
        assert type(tagger._tables) is _tagging_py.GreedyTables


@pytest.mark.parametrize("structured", [False, True])
def test_eight_threads_tag_as_one(structured):
    random.seed(5)
    tagger = PerceptronTagger(load=False, structured=structured)
    tagger.train(tagged_sentences(9, 1500), nr_iter=2)
    rng = np.random.default_rng(1)
    words = [[w for w, _ in s] for s in tagged_sentences(10, 400)] + _sentences(rng, 200)
    serial = [tagger.tag(s) for s in words]
    results, errors = [None] * 8, []

    def work(k):
        try:
            got = [tagger.tag(s) for s in words[k::2]] + tagger.tag_sents(words)
            results[k] = got
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    run_threads([threading.Thread(target=work, args=(k,)) for k in range(8)])
    assert not errors
    for k in range(8):
        assert results[k] == serial[k::2] + serial


@pytest.mark.parametrize("seed", range(3))
def test_average_rounds_as_python_on_both_twins(seed):
    C = _module("c", "_tagging")
    rng = np.random.default_rng(seed)
    shape = (50, 7)
    totals = rng.normal(size=shape) * 10.0 ** rng.integers(-6, 6, shape)
    weights = rng.integers(-3, 4, shape).astype(np.float64)
    stamps = rng.integers(0, 40, shape)
    live = rng.random(shape) < 0.7
    # ties at 3 places whose binary value lies either side, values that round to -0.0
    totals.flat[:6] = [2.675 * 40, 1.0005 * 40, -0.0004 * 40, 0.0005 * 40, 1e20, -2.5e-7]
    stamps.flat[:6] = 40
    live.flat[:6] = True
    outs = []
    for R in (C, _tagging_py):
        w, lv = weights.copy(), live.copy()
        R.average(w, totals, stamps, lv, 40)
        outs.append((w, lv))
    assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][1], outs[1][1])
    assert not np.signbit(outs[0][0][outs[0][0] == 0]).any()


def _model_state(tagger):
    """Everything a tagger's model is, for comparing two taggers (a loaded one holds its
    pairs until it trains: made dense here to compare)."""
    tagger._dense()
    arrays = [getattr(tagger, n).copy() for n in ("_weights", "_totals", "_stamps", "_live")]
    core = tagger._core
    return (list(tagger._features), list(tagger._classes), dict(tagger.tagdict),
            tagger._steps, arrays, None if core is None else
            [core.model.coef_.copy(), core.model.coef_trans_.copy(), core.feature_keys()])


def _same(a, b):
    (fa, ca, ta, sa, arrs_a, core_a), (fb, cb, tb, sb, arrs_b, core_b) = a, b
    assert (fa, ca, ta, sa) == (fb, cb, tb, sb)
    assert all(np.array_equal(x, y) for x, y in zip(arrs_a, arrs_b))
    assert (core_a is None) == (core_b is None)
    if core_a is not None:
        assert all(np.array_equal(x, y) for x, y in zip(core_a[:2], core_b[:2]))
        assert core_a[2] == core_b[2]


@pytest.mark.parametrize("structured", [False, True])
@pytest.mark.parametrize("after_calls", [1, 2])
def test_an_interrupted_train_leaves_the_tagger_as_it_was(structured, after_calls, tmp_path,
                                                          monkeypatch):
    """Ctrl-C in the middle of a (second) train: the tagger is the one before the call, it
    saves and loads back equal, and training again gives what an uninterrupted one gives
    (greedy: the step counter was left behind the stamps, and the file refused; structured:
    the classes and tag dictionary were replaced beside the old model)."""
    first, second = tagged_sentences(11, 500), tagged_sentences(12, 700)
    random.seed(8)
    tagger = PerceptronTagger(load=False, structured=structured)
    tagger.train(first, nr_iter=2)
    before = _model_state(tagger)
    tags = tagger.tag_sents([[w for w, _ in s] for s in second[:30]])
    routines = _backend.sequence if structured else _backend.tagging
    name = "structured_epoch_csr" if structured else "tagger_epoch"
    interrupt_after_real_work(monkeypatch, routines, name, after_calls)
    random.seed(9)
    with pytest.raises(KeyboardInterrupt):
        tagger.train(second, nr_iter=3)
    monkeypatch.undo()
    _same(_model_state(tagger), before)
    assert tagger.tag_sents([[w for w, _ in s] for s in second[:30]]) == tags
    loaded = PerceptronTagger.load(tagger.save(tmp_path / "t.npz"))
    _same(_model_state(loaded), before)
    random.seed(9)
    tagger.train(second, nr_iter=3)
    random.seed(8)
    fresh = PerceptronTagger(load=False, structured=structured)
    fresh.train(first, nr_iter=2)
    random.seed(9)
    fresh.train(second, nr_iter=3)
    _same(_model_state(tagger), _model_state(fresh))


def test_a_failed_second_structured_train_keeps_the_model():
    random.seed(0)
    tagger = PerceptronTagger(load=False, structured=True)
    tagger.train(tagged_sentences(1, 300), nr_iter=2)
    before = _model_state(tagger)
    with pytest.raises(ValueError):  # one tag: the sequence model needs two
        tagger.train([[("a", "X"), ("b", "X")]] * 5, nr_iter=2)
    _same(_model_state(tagger), before)


@pytest.mark.parametrize("via", ["json", "npz"])
def test_loading_takes_memory_in_proportion_to_the_file(via, tmp_path):
    """5,000 features of one weight each over 2,000 classes: the files hold 5,000 pairs,
    and loading (then tagging) takes a few MB, not the dense 5,000 x 2,000 state (250 MB
    for the four arrays: the model file of 0.27 MB asked for 519 MiB)."""
    import json
    import tracemalloc

    classes = [f"T{k:04d}" for k in range(2000)]
    weights = {f"i word w{k}": {classes[k % 2000]: 1.0 + k % 7} for k in range(5000)}
    weights["bias"] = {classes[0]: 0.5}
    names = PerceptronTagger.TAGGER_NAME + "_eng"
    for part, value in (("weights", weights), ("tagdict", {"the": "T0001"}),
                        ("classes", classes)):
        (tmp_path / f"{names}.{part}.json").write_text(json.dumps(value))
    path = PerceptronTagger.from_nltk_json(tmp_path).save(tmp_path / "wide.npz")
    tracemalloc.start()
    try:
        tagger = PerceptronTagger.from_nltk_json(tmp_path) if via == "json" else \
            PerceptronTagger.load(path)
        tagged = tagger.tag(["w17", "the", "w4001", "unknown"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 30e6, f"{peak / 1e6:.0f} MB"
    assert tagged == [("w17", classes[17]), ("the", "T0001"), ("w4001", classes[4001 % 2000]),
                      ("unknown", classes[0])]
    assert tagger.weights == weights
    tagger.train([[("w17", "T0003")]] * 3, nr_iter=1)  # training makes it dense, then goes on
    assert tagger._pairs is None and tagger._weights.shape[1] == 2000
