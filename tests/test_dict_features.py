"""DictFeatures and the dict_features twins: a dict of features per token (CRFsuite's items,
sklearn-crfsuite's input) to CSR rows, the same bits from both twins, CRFsuite's names."""
import pickle

import numpy as np
import pytest
from conftest import HAVE_C, _module

from perceptron_c import StructuredPerceptron, _backend
from perceptron_c._core._features_py import fnv1a
from perceptron_c.datasets import make_tagged_sentences
from perceptron_c.tagging import f1_score
from perceptron_c.token_features import DictFeatures

needs_c = pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")

NAMES = ["w", "lw", "pos", "is_cap", "suffix", "é", "東", "a:b", "", "😀"]
VALUES = ["x", "Y", "ß", "", "\ud800", "😀"]


def random_item(rng):
    """An item of any form CRFsuite reads: a list of names, or a dict whose values are str,
    floats (of any sign, zero, tiny), bools, ints, nested dicts, lists and sets."""
    if rng.integers(4) == 0:
        return [str(rng.choice(NAMES)) for _ in range(rng.integers(0, 4))]
    item = {}
    for _ in range(rng.integers(0, 7)):
        kind = rng.integers(8)
        item[str(rng.choice(NAMES))] = [
            str(rng.choice(VALUES)), float(rng.normal() * 10.0 ** rng.integers(-300, 300)),
            bool(rng.integers(2)), int(rng.integers(-3, 3)), {"in": str(rng.choice(VALUES))},
            ["p", "q"], {"s"}, -0.0][kind]
    return item


def random_sentences(seed, n=200):
    rng = np.random.default_rng(seed)
    return [[random_item(rng) for _ in range(rng.integers(0, 7))] for _ in range(n)]


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and (
        a.view(np.int64) == b.view(np.int64)).all()


@pytest.fixture(params=["c", "python"])
def twin(request):
    """(the dict_features routine, its Vocabulary) of one twin."""
    return (_module(request.param, "_crftag").dict_features,
            _module(request.param, "_features").Vocabulary)


@needs_c
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_features", [0, 1, 7, 1 << 20, 2**62 - 1])
def test_twins_give_the_same_rows_to_the_bit(seed, n_features):
    sentences = random_sentences(seed)
    (dc, Vc), (dp, Vp) = [(_module(t, "_crftag").dict_features, _module(t, "_features").Vocabulary)
                          for t in ("c", "python")]
    vc, vp = Vc(), Vp()
    for a, b in zip(dc(sentences, vc, True, n_features), dp(sentences, vp, True, n_features)):
        assert same_bits(a, b)
    assert vc.keys() == vp.keys() and np.array_equal(vc.counts(), vp.counts())
    later = random_sentences(seed + 100, 50)  # known names kept, new ones dropped
    for a, b in zip(dc(later, vc, False, n_features), dp(later, vp, False, n_features)):
        assert same_bits(a, b)
    assert vc.keys() == vp.keys()


def test_rows_hold_crfsuites_names_and_values(twin):
    """The names are python-crfsuite's (``"key:value"`` for a str value, nested names joined
    by ``":"``), the values its floats, a row's names in reading order."""
    dict_features, Vocabulary = twin
    vocab = Vocabulary()
    sentences = [[{"w": "The", "len": 3, "cap": True, "low": False, "x": {"y": "z", "n": 2.5}},
                  ["bias", "w:The"]], [{}]]
    data, indices, indptr, lengths = dict_features(sentences, vocab, True, 0)
    assert vocab.keys() == ["w:The", "len", "cap", "low", "x:y:z", "x:n", "bias"]
    assert indices.tolist() == [0, 1, 2, 3, 4, 5, 6, 0] and indptr.tolist() == [0, 6, 8, 8]
    assert data.tolist() == [1.0, 3.0, 1.0, 0.0, 1.0, 2.5, 1.0, 1.0]
    assert lengths.tolist() == [2, 1] and vocab.counts().tolist() == [2, 1, 1, 1, 1, 1, 1]
    data, indices, indptr, _ = dict_features([[{"new": 1.0, "len": 2}]], vocab, False, 0)
    assert indices.tolist() == [1] and data.tolist() == [2.0] and len(vocab) == 7


def test_the_names_are_crfsuite_doors_own(twin):
    """The same names and values as the CRFsuite door's reader (`pack`), item for item."""
    dict_features, Vocabulary = twin
    sentences = random_sentences(7, 60)
    crftag = _module("python", "_crftag")
    vocab = Vocabulary()
    data, indices, indptr, _ = dict_features(sentences, vocab, True, 0)
    keys = vocab.keys()
    rows = [list(zip((keys[i] for i in indices[a:b]), data[a:b].tolist()))
            for a, b in zip(indptr[:-1], indptr[1:])]
    assert rows == [pairs for s in sentences for pairs in crftag.pack(s, False).pairs()]


def test_hashed_columns_add_up_in_reading_order(twin):
    dict_features, _ = twin
    n = 3
    names = [f"n{i}" for i in range(12)]
    cols = [fnv1a(name) % n for name in names]
    values = [0.1 * (i + 1) for i in range(12)]
    data, indices, indptr, _ = dict_features([[dict(zip(names, values))]], None, True, n)
    expected = {}
    for col, v in zip(cols, values):
        expected[col] = expected[col] + v if col in expected else v
    assert indices.tolist() == sorted(expected)
    assert data.tolist() == [expected[c] for c in sorted(expected)]
    assert indptr.tolist() == [0, len(expected)]


@pytest.mark.parametrize(("sentences", "error", "match"), [
    ("abc", TypeError, "sentences must be a list of lists of feature dicts, got str"),
    ([[{"a": 1}], ({"b": 1},)], TypeError, r"sentences\[1\] must be a list of feature dicts"),
    ([[{"a": 1}, "word"]], TypeError, r"sentences\[0\]\[1\] must be a dict of features or a "
                                      "list of names, got str"),
    ([[{"a": None}]], TypeError, "float"),
    ([[{1: 2.0}]], TypeError, "a feature name must be str or bytes, got int"),
])
def test_bad_input_is_named(twin, sentences, error, match):
    dict_features, Vocabulary = twin
    with pytest.raises(error, match=match):
        dict_features(sentences, Vocabulary(), True, 0)


def ner_data(seed=2, n=300):
    bio = {"T0": "O", "T1": "B-PER", "T2": "I-PER", "T3": "B-LOC"}
    tagged = make_tagged_sentences(seed, n_sentences=n, n_tags=4)

    def features(words, i):
        w = words[i]
        return {"bias": 1.0, "lower": w.lower(), "suffix3": w[-3:], "title": w.istitle(),
                "-1": {"lower": words[i - 1].lower()} if i else "<s>",
                "+1": {"lower": words[i + 1].lower()} if i + 1 < len(words) else "</s>"}

    X = [[features([w for w, _ in s], i) for i in range(len(s))] for s in tagged]
    return X, [[bio[t] for _, t in s] for s in tagged]


def test_transformer_feeds_the_structured_perceptron(model_backend):
    pytest.importorskip("scipy")
    X, y = ner_data()
    features = DictFeatures()
    Xtr, lengths = features.fit_transform(X[:250], return_lengths=True)
    assert lengths.tolist() == [len(s) for s in y[:250]]
    assert Xtr.shape == (sum(lengths), features.n_features_out_)
    model = StructuredPerceptron(random_state=0).fit(Xtr, y[:250])
    Xte, lte = features.transform(X[250:], return_lengths=True)
    assert f1_score(y[250:], model.predict(Xte, lte, split=True)) > 0.6
    names = features.get_feature_names_out()
    assert names[0] == "bias" and "-1:lower:<s>" not in names and "-1:<s>" in names
    hashed = DictFeatures(n_features=64)
    assert hashed.fit_transform(X).shape[1] == 64
    with pytest.raises(ValueError, match="no names"):
        hashed.get_feature_names_out()


def test_a_pipeline_takes_the_dicts_and_the_tags_by_sentence():
    """sklearn-crfsuite's way in: dicts per token and tags per sentence to fit, the
    sentences' lengths to predict (a Pipeline passes predict's arguments to its last step)."""
    pytest.importorskip("sklearn")
    from sklearn.pipeline import make_pipeline

    X, y = ner_data()
    pipe = make_pipeline(DictFeatures(), StructuredPerceptron(random_state=0))
    pipe.fit(X[:250], y[:250])
    lengths = [len(s) for s in X[250:]]
    predicted = pipe.predict(X[250:], lengths=lengths, split=True)
    features = DictFeatures()
    alone = StructuredPerceptron(random_state=0).fit(features.fit_transform(X[:250]), y[:250])
    assert predicted == alone.predict(features.transform(X[250:]), lengths, split=True)
    # score: the tags by sentence give the lengths (a Pipeline's score passes on no lengths)
    assert pipe.score(X[250:], y[250:]) == alone.score(features.transform(X[250:]), y[250:])


def test_min_df_keeps_the_frequent_names(model_backend):
    X, _ = ner_data()
    full = DictFeatures().fit(X)
    counts = dict(zip(full.get_feature_names_out(), full._vocab.counts()))
    pruned = DictFeatures(min_df=3)
    rows = pruned.fit_transform(X)
    assert list(pruned.get_feature_names_out()) == [k for k, c in counts.items() if c >= 3]
    assert (rows != pruned.transform(X)).nnz == 0


@needs_c
def test_the_same_on_both_twins_and_after_pickling():
    X, _ = ner_data(n=80)
    out = {}
    for name in ("c", "python"):
        with _backend.using(name):
            features = DictFeatures()
            out[name] = (features.fit_transform(X), features)
    (Xc, fc), (Xp, _) = out["c"], out["python"]
    assert same_bits(Xc.data, Xp.data) and (Xc.indices == Xp.indices).all()
    again = pickle.loads(pickle.dumps(fc))
    with _backend.using("python"):  # fitted on C, used on Python: rebuilt from the names
        assert (again.transform(X) != Xc).nnz == 0


def test_parameters_and_fitting_are_checked():
    with pytest.raises(ValueError, match="min_df"):
        DictFeatures(min_df=0).fit([[{"a": 1}]])
    with pytest.raises(ValueError, match="n_features"):
        DictFeatures(n_features=0).fit([[{"a": 1}]])
    with pytest.raises(Exception, match="DictFeatures: call fit"):
        DictFeatures().transform([[{"a": 1}]])
    with pytest.raises(TypeError, match="sentences must be a list of lists of feature dicts"):
        DictFeatures().fit("text")
    features = DictFeatures().fit(([{"a": 1}, {"b": "c"}],))  # tuples are read as lists
    assert list(features.get_feature_names_out()) == ["a", "b:c"]
    assert repr(DictFeatures(n_features=8)) == "DictFeatures(n_features=8)"


def test_tagging_reexports_dict_features():
    import perceptron_c.tagging

    assert perceptron_c.tagging.DictFeatures is DictFeatures
