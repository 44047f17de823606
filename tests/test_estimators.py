"""``perceptron_c.all_estimators()``: the registry's list, the one the tests derive theirs
from (`estimators.CASES`), each estimator's type as scikit-learn reads it."""
import copy
import pickle

import numpy as np
import pytest
from estimators import CASES, every

import perceptron_c
from perceptron_c import io


def test_every_estimator_has_a_case():
    assert sorted(CASES) == every()


def test_the_list_is_the_registry_and_the_public_names():
    names = every()
    assert names == sorted(n for n, t in io.MODEL_CLASSES.items()
                           if (t if isinstance(t, str) else t.__module__).startswith(
                               "perceptron_c."))
    for name, cls in perceptron_c.all_estimators():
        assert io._resolve_class(name) is cls
        # exported at the top level, or (the NLTK-style tagger) where the docs import it
        assert getattr(perceptron_c, name, None) is cls or cls.__module__ == \
            "perceptron_c.tagging"
    split = [every(kind) for kind in ("classifier", "regressor", "tagger")]
    assert sorted(sum(split, [])) == names and all(split)
    with pytest.raises(ValueError, match="type_filter"):
        perceptron_c.all_estimators("cluster")


def test_a_class_registered_elsewhere_is_not_one_of_ours(monkeypatch):
    monkeypatch.setitem(io.MODEL_CLASSES, "Theirs", "their_package.models:Theirs")
    assert "Theirs" not in every()


@pytest.mark.parametrize("name", every("classifier") + every("regressor"))
def test_the_type_duck_typing_reads_is_the_tags_type(name):
    """``_estimator_type`` (read by scikit-learn before 1.6 and by other libraries) says what
    the tags say: a regressor said "classifier" before."""
    pytest.importorskip("sklearn")
    est = CASES[name].make()
    assert est._estimator_type == est.__sklearn_tags__().estimator_type


@pytest.mark.parametrize("name", every())
def test_every_case_trains(rng, name):
    case = CASES[name]
    est = case.make()
    data = case.data(rng)
    assert case.fit(est, *data) in (est, None)
    if name == "PerceptronTagger":
        assert len(est.tag(["a", "b"])) == 2
    else:
        assert np.asarray(est.predict(*data[:1] + data[2:])).shape == (data[0].shape[0],)


@pytest.mark.parametrize("name", every("classifier") + every("regressor"))
def test_a_stream_of_partial_fit_calls_extends_the_history_in_place(rng, name):
    """``mistakes_`` grows by each call's epoch without copying the calls before (a stream
    of one-row calls copied its whole history at every call: O(n) a call); a shallow copy
    of the model never writes into the history of the model it was copied from."""
    case = CASES[name]
    data = case.data(rng)
    est = case.make()
    case.fit(est, *data)
    history, in_place = est.mistakes_.tolist(), 0
    for _ in range(40):
        before = est.mistakes_
        est.partial_fit(*data)
        history.append(int(est.mistakes_[-1]))
        in_place += np.shares_memory(before, est.mistakes_)
        assert est.mistakes_.tolist() == history and est.n_iter_ == len(history)
    assert in_place >= 36  # a new buffer only when the one there is full (twice as long)
    twin = copy.copy(est)
    est.partial_fit(*data)
    mine = est.mistakes_.tolist()
    twin.partial_fit(*data)
    assert est.mistakes_.tolist() == mine and twin.mistakes_.tolist()[:-1] == history
    restored = pickle.loads(pickle.dumps(est))
    restored.partial_fit(*data)
    assert restored.mistakes_.tolist()[:-1] == mine
