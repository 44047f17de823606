"""perceptron_c.crfsuite's Tagger and ItemSequence against python-crfsuite on its own model
files (labels equal, probability and marginals within 1e-9 relative), and what
python-crfsuite cannot do: threads, pickling, n-best, constrained decoding."""
import itertools
import pickle
import threading

import numpy as np
import pytest
from conftest import BACKENDS, HAVE_C
from crfsuite_corpus import ALGORITHMS, corpus, pycrfsuite_files

import perceptron_c.crfsuite as ours
from perceptron_c import FileFormatError, _backend
from perceptron_c.crfsuite._model import CRFModel

pycrfsuite = pytest.importorskip("pycrfsuite")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return pycrfsuite_files(pycrfsuite, tmp_path_factory.mktemp("crfsuite"))


@pytest.fixture(scope="module")
def sentences():
    return corpus(1, 60)[0]


def _close(a, b):
    return abs(a - b) <= 1e-9 * abs(a) or a == b


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_same_labels_probabilities_marginals(files, sentences, algorithm):
    theirs, mine = pycrfsuite.Tagger(), ours.Tagger()
    theirs.open(str(files[algorithm]))
    with mine.open(files[algorithm]):
        assert mine.labels() == theirs.labels()
        for xseq in sentences:
            labels = theirs.tag(xseq)
            assert mine.tag(xseq) == labels
            for yseq in (labels, [mine.labels()[0]] * len(xseq)):
                assert _close(theirs.probability(yseq), mine.probability(yseq))
            for t, y in itertools.product(range(len(xseq)), mine.labels()):
                assert _close(theirs.marginal(y, t), mine.marginal(y, t))


@pytest.mark.parametrize("backend", BACKENDS if HAVE_C else ["python"])
def test_tagged_item_sequence_is_current(files, sentences, backend):
    """tag(ItemSequence) makes it current (its scores made only when probability or marginal
    asks), on either route afterwards, as python-crfsuite's tag(xseq) does."""
    theirs, mine = pycrfsuite.Tagger(), ours.Tagger()
    theirs.open(str(files["pa"]))
    mine.open(files["pa"])
    for a, b in zip(sentences[:12], sentences[1:13]):
        seq = ours.ItemSequence(a)
        mine.set(b)
        labels = theirs.tag(a)
        assert mine.tag(seq) == labels
        with _backend.using(backend):
            assert _close(theirs.probability(labels), mine.probability(labels))
            assert _close(theirs.marginal(labels[-1], len(a) - 1),
                          mine.marginal(labels[-1], len(a) - 1))
            assert mine.tag() == labels


def test_info_and_dump_as_python_crfsuite(files, tmp_path):
    theirs, mine = pycrfsuite.Tagger(), ours.Tagger()
    theirs.open(str(files["lbfgs"]))
    mine.open(str(files["lbfgs"]))
    a, b = theirs.info(), mine.info()
    assert (a.header, a.labels, a.attributes) == (b.header, b.labels, b.attributes)
    assert a.transitions.keys() == b.transitions.keys()
    assert a.state_features.keys() == b.state_features.keys()
    assert all(abs(a.state_features[k] - v) <= 5e-7 for k, v in b.state_features.items())
    theirs.dump(str(tmp_path / "a.txt"))
    mine.dump(tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()


def test_item_forms_flatten_as_python_crfsuite():
    forms = [["a", "b"], {"x": 2, "y": True, "z": False}, {"w": "the", "v": b"b"},
             {"p": {"q": 1.5, "r": {"s": 2}}}, {"n": ["u", "v"]}, {"m": {"k"}},
             {b"bytes": 3}, ("t1", "t2")]
    assert ours.ItemSequence(forms).items() == pycrfsuite.ItemSequence(forms).items()
    assert repr(ours.ItemSequence(forms)) == "<ItemSequence of size 8>"
    with pytest.raises(TypeError):
        ours.ItemSequence([{"x": None}])


def test_errors_as_python_crfsuite(files, sentences):
    mine = ours.Tagger()
    with pytest.raises(ValueError, match="not opened"):
        mine.labels()
    mine.open(files["ap"])
    assert mine.tag() == [] and mine.tag([]) == [] and mine.probability([]) == 0.0
    mine.set(sentences[0])
    with pytest.raises(ValueError, match="differ"):
        mine.probability(["T0"])
    with pytest.raises(RuntimeError, match="nope"):
        mine.marginal("nope", 0)
    with pytest.raises(ValueError, match="out of range"):
        mine.marginal("T0", 999)
    with pytest.raises(FileFormatError):
        mine.open_inmemory(b"lCRF" + b"\0" * 60)


def test_pickle_and_threads(files, sentences):
    mine = ours.Tagger()
    mine.open(files["arow"])
    expected = [mine.tag(x) for x in sentences]
    again = pickle.loads(pickle.dumps(mine))
    assert [again.tag(x) for x in sentences] == expected
    assert pickle.loads(pickle.dumps(ours.Tagger()))._opened is None
    seqs = [ours.ItemSequence(x) for x in sentences]  # shared by every thread
    assert [mine.tag(pickle.loads(pickle.dumps(s))) for s in seqs] == expected
    results, errors = {}, []

    def work(k):
        try:
            for _ in range(5):
                got = []
                for x in sentences[k::4]:
                    mine.set(x)
                    got.append((mine.tag(), mine.marginal(mine.labels()[0], 0)))
                results[k] = got
                assert [mine.tag(s) for s in seqs] == expected
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for k in range(4):
        assert [labels for labels, _ in results[k]] == expected[k::4]


def _tiny(seed, L=3, A=5):
    rng = np.random.default_rng(seed)
    pairs = [(a, lab) for a in range(A) for lab in range(L)]
    model = CRFModel(labels=["O", "B-X", "I-X"][:L] if L == 3 else [f"y{i}" for i in range(L)],
                     attributes=[f"a{i}" for i in range(A)],
                     state_attr=np.array([p[0] for p in pairs], dtype=np.int32),
                     state_label=np.array([p[1] for p in pairs], dtype=np.int32),
                     state_weight=rng.normal(size=len(pairs)).round(1),
                     transitions=rng.normal(size=(L, L)).round(1))
    xseq = [{f"a{a}": 1.0 for a in rng.integers(0, A, 2)} for _ in range(int(rng.integers(1, 6)))]
    return ours.Tagger.from_model(model), xseq


def _all_paths(tagger, xseq, ok=lambda path: True):
    tagger.set(xseq)
    paths = [list(p) for p in itertools.product(tagger.labels(), repeat=len(xseq)) if ok(p)]
    return sorted(paths, key=lambda p: -tagger.probability(p))


@pytest.mark.parametrize("seed", range(12))
def test_nbest_against_brute_force(seed):
    tagger, xseq = _tiny(seed)
    best = tagger.tag(xseq, n=5)
    assert best[0][0] == tagger.tag(xseq)
    brute = _all_paths(tagger, xseq)
    assert len(best) == min(5, len(brute))
    probs = [tagger.probability(p) for p, _ in best]
    assert probs == sorted(probs, reverse=True)
    assert np.allclose(probs, [tagger.probability(p) for p in brute[:len(best)]])
    assert len({tuple(p) for p, _ in best}) == len(best)


@pytest.mark.parametrize("seed", range(12))
def test_constraints_against_brute_force(seed):
    tagger, xseq = _tiny(seed)

    def bio(path):
        return all(not (y == "I-X" and (t == 0 or path[t - 1] == "O"))
                   for t, y in enumerate(path))
    got = tagger.tag(xseq, allowed="bio")
    assert bio(got)
    best = _all_paths(tagger, xseq, bio)[0]
    assert np.isclose(tagger.probability(got), tagger.probability(best))
    forced = tagger.tag(xseq, forced={len(xseq) - 1: "O"})
    assert forced[-1] == "O"
    best = _all_paths(tagger, xseq, lambda p: p[-1] == "O")[0]
    assert np.isclose(tagger.probability(forced), tagger.probability(best))
    pairs = {("O", "O"), ("O", "B-X"), ("B-X", "O")}
    got = tagger.tag(xseq, allowed=pairs)
    assert all((a, b) in pairs for a, b in zip(got, got[1:]))
    with pytest.raises(ValueError, match="constraints"):
        tagger.tag(xseq, forced={0: "I-X"}, allowed="bio")


@pytest.mark.parametrize("weight", [1e308, -1e308])
def test_overflowing_weights_give_inf_or_nan_without_a_warning(weight):
    """Weights whose sums overflow (a damaged or hostile model): tag, probability and
    marginal answer as CRFsuite's arithmetic does (inf, NaN or an error alike on both twins),
    and numpy never warns (CI's fuzzer met an overflow warning in the Python route's
    Viterbi)."""
    import warnings

    tagger, xseq = _tiny(3)
    model = tagger._need().model
    model.state_weight = np.full_like(model.state_weight, weight)
    model.transitions = np.full_like(model.transitions, weight)
    tagger = ours.Tagger.from_model(model)
    xseq = [{"a0": 1.0}] * 4  # (one weight an item: finite scores whose sums overflow)
    out = []
    for backend in BACKENDS if HAVE_C else ["python"]:
        with warnings.catch_warnings(), _backend.using(backend):
            warnings.simplefilter("error")
            try:
                labels = tagger.tag(xseq)
                out.append((labels, repr(tagger.probability(labels)),
                            [repr(tagger.marginal(y, 1)) for y in tagger.labels()]))
            except ValueError as exc:
                out.append(str(exc))
    assert all(o == out[0] for o in out)
