"""TokenFeatures and the _features twins: the same keys, ids and rows from both, NLTK's keys."""
import pickle

import numpy as np
import pytest
from conftest import HAVE_C, _module

from perceptron_c import _backend
from perceptron_c._core._features_py import fnv1a, normalize, shape
from perceptron_c.datasets import make_tagged_sentences
from perceptron_c.tagging import PerceptronTagger
from perceptron_c.token_features import TokenFeatures

NLTK = (1, 0, 0, 0, 0, 0, 0, 0, 0)
STANDARD = (0, 1, 1, 1, 3, 3, 1, 1, 1)
SPECS = [NLTK, STANDARD, (0, 0, 1, 0, 5, 1, 0, 0, 2), (0, 1, 0, 1, 0, 4, 1, 1, 0)]

# What a tokenizer can hand over: combining marks, astral-plane letters, empty strings,
# digits of other scripts, full case mappings (İ, ß, final sigma), lone surrogates, a long
# token, hyphens first and inside, NLTK's markers as words.
ADVERSARIAL = [
    ["", "e\u0301te\u0301", "𝔘𝔫𝔦", "😀-ok", "١٩٩٠", "٣x", "²³", "İstanbul", "ΟΔΟΣ", "Straße"],
    ["-START-", "-", "--", "a-b", "-ab", "1990", "199O", "12", "A", "\ud800x", "ǅemal"],
    ["Ü" * 300 + "𝔘" * 200, "NASA's", "McDonald", "x", "中文", "ABC123def", "\x00\t "],
    [],
    ["only"],
]


def words(sentences):
    return [[w for w, _ in s] for s in sentences]


@pytest.fixture(scope="module")
def corpus():
    return words(make_tagged_sentences(0, 300, n_symbols=400))


needs_c = pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")


@pytest.fixture(params=["c", "python"])
def twin(request):
    """The name of one twin ("c" skips without the C core)."""
    _module(request.param, "_features")
    return request.param


@needs_c
@pytest.mark.parametrize("spec", SPECS)
def test_twins_build_the_same_keys(spec, corpus):
    C, P = _module("c", "_features"), _module("python", "_features")
    for sentence in ADVERSARIAL + corpus[:50]:
        assert C.sentence_keys(sentence, spec) == P.sentence_keys(sentence, spec), sentence


@needs_c
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("n_features", [0, 7, 1 << 20])
def test_twins_give_the_same_rows_and_vocabulary(spec, n_features, corpus):
    C, P = _module("c", "_features"), _module("python", "_features")
    data = corpus + ADVERSARIAL
    vc, vp = (C.Vocabulary(), P.Vocabulary()) if not n_features else (None, None)
    out_c = C.extract_features(data, spec, vc, True, n_features)
    out_p = P.extract_features(data, spec, vp, True, n_features)
    for a, b in zip(out_c, out_p):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    if not n_features:
        assert vc.keys() == vp.keys() and np.array_equal(vc.counts(), vp.counts())
        unseen = [["zzqx", "Unseen-word", "the"], ADVERSARIAL[0]]
        for a, b in zip(C.extract_features(unseen, spec, vc, False, 0),
                        P.extract_features(unseen, spec, vp, False, 0)):
            assert np.array_equal(a, b)
        assert vc.keys() == vp.keys()  # not grown


def test_rows_hold_the_keys_of_each_token(twin, corpus):
    mod = _module(twin, "_features")
    vocab = mod.Vocabulary()
    data, indices, indptr, lengths = mod.extract_features(corpus[:20], STANDARD, vocab, True, 0)
    keys = vocab.keys()
    assert list(lengths) == [len(s) for s in corpus[:20]]
    row = 0
    for sentence in corpus[:20]:
        for token_keys in mod.sentence_keys(sentence, STANDARD):
            assert [keys[i] for i in indices[indptr[row]:indptr[row + 1]]] == token_keys
            row += 1
    assert row == len(indptr) - 1 and np.all(data == 1.0)


def test_hashed_rows_count_collisions(twin):
    mod = _module(twin, "_features")
    sentence = [["Dog", "barks"]]
    data, indices, indptr, _ = mod.extract_features(sentence, STANDARD, None, True, 3)
    for r in range(2):
        cols = [fnv1a(k) % 3 for k in mod.sentence_keys(sentence[0], STANDARD)[r]]
        got = dict(zip(indices[indptr[r]:indptr[r + 1]].tolist(),
                       data[indptr[r]:indptr[r + 1]].tolist()))
        assert got == {c: float(cols.count(c)) for c in set(cols)}
        assert list(got) == sorted(got)


def test_fnv1a_known_values():
    assert fnv1a("") == 0xCBF29CE484222325
    assert fnv1a("a") == 0xAF63DC4C8601EC8C  # the FNV-1a test vector


def test_hand_traced_keys(twin):
    mod = _module(twin, "_features")
    keys = mod.sentence_keys(["The", "U.S.", "x-1"], (0, 1, 1, 1, 2, 2, 1, 1, 1))
    assert keys[1] == ["bias", "w=U.S.", "lw=u.s.", "p1=U", "p2=U.", "s1=.", "s2=S.",
                       "shape=X.X.", "is_cap", "w[-1]=The", "lw[-1]=the", "w[+1]=x-1",
                       "lw[+1]=x-1"]
    assert keys[2][-4:] == ["w[-1]=U.S.", "lw[-1]=u.s.", "w[+1]=</s>", "lw[+1]=</s>"]
    assert "has_hyphen" in keys[2] and "shape=x-d" in keys[2]
    assert shape("McDonald's") == "XxXx'x" and shape("1990") == "d" and shape("中文") == "a"


def test_nltk_preset_equals_the_taggers_static_features(twin, corpus):
    mod = _module(twin, "_features")
    tagger = PerceptronTagger(load=False)
    for sentence in corpus + [s for s in ADVERSARIAL if "\ud800x" not in s]:
        context = tagger._context(sentence)
        expected = [tagger._static_features(i, w, context) for i, w in enumerate(sentence)]
        assert mod.sentence_keys(sentence, NLTK) == expected
        assert [normalize(w) for w in sentence] == [tagger.normalize(w) for w in sentence]


def test_transformer_fit_transform_and_names(twin, corpus):
    with _backend.using(twin):
        tf = TokenFeatures()
        X, lengths = tf.fit_transform(corpus, return_lengths=True)
        names = tf.get_feature_names_out()
        assert X.shape == (sum(map(len, corpus)), len(names)) == (lengths.sum(), tf.n_features_out_)
        assert np.array_equal((tf.transform(corpus) != X).nnz, 0)
        X2 = tf.transform([["Zebra-like", "qqq"]])
        row0 = set(names[X2.indices[X2.indptr[0]:X2.indptr[1]]])
        assert "w=Zebra-like" not in row0 and {"bias", "is_cap", "w[-1]=<s>"} <= row0
        assert X2.shape == (2, len(names))


def test_transformer_same_on_both_twins_and_after_pickling(corpus):
    if not HAVE_C:
        pytest.skip("the C core is not in use")
    out = {}
    for twin in ("c", "python"):
        with _backend.using(twin):
            tf = TokenFeatures(templates="nltk", min_df=2)
            X = tf.fit_transform(corpus[:100])
            out[twin] = (X, list(tf.get_feature_names_out()), tf)
    (Xc, nc, tfc), (Xp, npy, _) = out["c"], out["python"]
    assert nc == npy and (Xc != Xp).nnz == 0
    again = pickle.loads(pickle.dumps(tfc))
    with _backend.using("python"):  # fitted on C, used on Python: rebuilt from the keys
        assert (again.transform(corpus[100:]) != tfc.transform(corpus[100:])).nnz == 0
    assert list(again.get_feature_names_out()) == nc


def test_min_df_keeps_frequent_keys(twin, corpus):
    with _backend.using(twin):
        full = TokenFeatures(templates="nltk").fit(corpus)
        pruned = TokenFeatures(templates="nltk", min_df=3)
        X = pruned.fit_transform(corpus)
    counts = dict(zip(full.get_feature_names_out(), full._vocab.counts()))
    kept = [k for k in full.get_feature_names_out() if counts[k] >= 3]
    assert list(pruned.get_feature_names_out()) == kept
    assert (X != pruned.transform(corpus)).nnz == 0


def test_hashing_mode(corpus):
    tf = TokenFeatures(n_features=64)
    X = tf.fit_transform(corpus)
    assert X.shape[1] == 64 and X.data.sum() == TokenFeatures().fit_transform(corpus).nnz
    with pytest.raises(ValueError, match="no names"):
        tf.get_feature_names_out()


def test_errors_name_the_argument(twin):
    mod = _module(twin, "_features")
    with pytest.raises(TypeError, match=r"sentences\[1\]\[2\] must be a str token, got int"):
        mod.extract_features([["a"], ["b", "c", 3]], STANDARD, mod.Vocabulary(), True, 0)
    with pytest.raises(TypeError, match=r"sentences\[2\] must be a list of str tokens, got str"):
        mod.extract_features([["a"], [1], "abc"], STANDARD, mod.Vocabulary(), True, 0)
    with pytest.raises(TypeError, match=r"tokens\[0\] must be a str token, got bytes"):
        mod.sentence_keys([b"x"], STANDARD)
    with pytest.raises(ValueError, match="spec must be a tuple of 9 ints"):
        mod.sentence_keys(["x"], (0, 1))
    with pytest.raises(ValueError, match="repeats the key"):
        mod.Vocabulary(["a", "b", "a"])


def test_transformer_checks_its_parameters_and_input():
    with pytest.raises(ValueError, match="templates must be one of"):
        TokenFeatures(templates="crf").fit([["a"]])
    with pytest.raises(ValueError, match="window must be an int"):
        TokenFeatures(window=-1).fit([["a"]])
    with pytest.raises(ValueError, match="min_df"):
        TokenFeatures(min_df=0).fit([["a"]])
    with pytest.raises(TypeError, match="sentences must be a list"):
        TokenFeatures().fit("a sentence")
    with pytest.raises(TypeError, match=r"sentences\[0\]\[1\] must be a str token"):
        TokenFeatures().fit([("a", None)])
    with pytest.raises(Exception, match="call fit"):
        TokenFeatures().transform([["a"]])
    tf = TokenFeatures(prefix=2).fit((("a", "b"),))  # tuples are accepted
    assert tf.get_params()["prefix"] == 2 and "prefix=2" in repr(tf)


def test_vocabulary_pickles_as_its_keys(twin):
    mod = _module(twin, "_features")
    vocab = mod.Vocabulary(["b", "a", "𝔘", ""])
    again = pickle.loads(pickle.dumps(vocab))
    assert again.keys() == ["b", "a", "𝔘", ""] and again.get("𝔘") == 2 and again.get("z") == -1
    assert len(again) == 4


def test_in_a_scikit_learn_pipeline(corpus):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.linear_model import Perceptron
    from sklearn.pipeline import make_pipeline

    tagged = make_tagged_sentences(0, 100, n_symbols=200)
    X, y = words(tagged), [t for s in tagged for _, t in s]
    pipe = make_pipeline(TokenFeatures(templates="nltk"), Perceptron(random_state=0))
    assert pipe.fit(X, y).score(X, y) > 0.9
    assert repr(clone(TokenFeatures(window=2))) == "TokenFeatures(window=2)"
    assert sklearn.__version__


def test_tagging_reexports_token_features():
    import perceptron_c.tagging

    assert perceptron_c.tagging.TokenFeatures is TokenFeatures
    assert TokenFeatures.__module__ == "perceptron_c.token_features"
