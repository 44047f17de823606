"""`perceptron_c.crfsuite.CRF`, sklearn-crfsuite's estimator, and its flat metrics: the same
model as the Trainer and Tagger it wraps, sklearn-crfsuite's methods and attributes, the
estimator protocol (clone, pickle), clear errors."""
import pickle

import numpy as np
import pytest

from perceptron_c import NotFittedError
from perceptron_c.crfsuite import CRF, Tagger, Trainer, metrics
from perceptron_c.datasets import make_tagged_sentences


def _features(sentence):
    return [{"w": w.lower(), "suffix": w[-2:], "title": w.istitle(),
             "prev": sentence[i - 1][0].lower() if i else "BOS"}
            for i, (w, _) in enumerate(sentence)]


@pytest.fixture(scope="module")
def data():
    sentences = make_tagged_sentences(0, 240, n_symbols=50)
    X = [_features(s) for s in sentences]
    y = [[t for _, t in s] for s in sentences]
    return X[:180], y[:180], X[180:], y[180:]


@pytest.mark.parametrize("algorithm,params", [("ap", {}), ("pa", {"pa_type": 2, "c": 0.5}),
                                              ("arow", {"variance": 2.0})])
def test_the_model_is_the_trainer_s_and_the_tagger_s(data, algorithm, params):
    X, y, Xt, yt = data
    crf = CRF(algorithm=algorithm, max_iterations=6, **params).fit(X, y)
    names = {"pa_type": "type"}
    trainer = Trainer(algorithm, params={"max_iterations": 6,
                                         **{names.get(k, k): v for k, v in params.items()}},
                      verbose=False)
    for xseq, yseq in zip(X, y):
        trainer.append(xseq, yseq)
    tagger = Tagger.from_model(trainer.train_model())
    assert crf.predict(Xt) == [tagger.tag(x) for x in Xt]
    assert crf.state_features_ == tagger.info().state_features
    assert crf.transition_features_ == tagger.info().transitions
    assert crf.classes_ == tagger.labels() and crf.num_attributes_ == len(crf.attributes_)
    assert crf.score(Xt, yt) == metrics.flat_accuracy_score(yt, crf.predict(Xt)) > 0.7


def test_sklearn_crfsuite_s_methods(data, tmp_path):
    X, y, Xt, yt = data
    path = tmp_path / "model.crfsuite"
    crf = CRF(max_iterations=5, all_possible_transitions=True, model_filename=str(path))
    crf.fit(X, y, X_dev=Xt, y_dev=yt)
    assert len(crf.training_log_.iterations) == 5
    assert "item_accuracy" in crf.training_log_.iterations[-1]  # the dev set, scored
    assert crf.predict_single(Xt[0]) == crf.predict(Xt[:1])[0]
    marginals = crf.predict_marginals(Xt[:3])
    for xseq, rows in zip(Xt[:3], marginals):
        assert len(rows) == len(xseq)
        for row in rows:
            assert set(row) == set(crf.classes_)
            assert abs(sum(row.values()) - 1.0) < 1e-9
    assert crf.size_ == path.stat().st_size
    opened = Tagger()
    opened.open(str(path))
    assert [opened.tag(x) for x in Xt] == crf.predict(Xt)
    again = pickle.loads(pickle.dumps(crf))
    assert again.predict(Xt) == crf.predict(Xt)


def test_the_estimator_protocol_and_errors(data):
    X, y, _, _ = data
    crf = CRF(algorithm="pa", c=0.5)
    assert repr(crf) == "CRF(algorithm='pa', c=0.5)"
    assert crf.set_params(max_iterations=3).get_params()["max_iterations"] == 3
    with pytest.raises(NotFittedError):
        crf.predict(X[:1])
    assert crf.classes_ is None
    with pytest.raises(ValueError, match="'ap'.*'pa'.*'arow'"):
        CRF(algorithm="lbfgs", c1=0.1).fit(X, y)
    with pytest.raises(ValueError, match="both X_dev and y_dev"):
        CRF().fit(X, y, X_dev=X)
    with pytest.raises(ValueError, match="sequences"):
        CRF().fit(X, y[:-1])
    clone = pytest.importorskip("sklearn.base").clone
    assert clone(crf).get_params() == crf.get_params()


def test_flat_metrics_are_scikit_learn_s_on_the_tokens():
    sk = pytest.importorskip("sklearn.metrics")
    y_true = [["B", "I", "O"], ["O", "B"]]
    y_pred = [["B", "O", "O"], ["O", "B"]]
    flat_t, flat_p = ["B", "I", "O", "O", "B"], ["B", "O", "O", "O", "B"]
    assert metrics.flat_accuracy_score(y_true, y_pred) == sk.accuracy_score(flat_t, flat_p)
    assert metrics.flat_f1_score(y_true, y_pred, average="macro", zero_division=0) == \
        sk.f1_score(flat_t, flat_p, average="macro", zero_division=0)
    assert metrics.flat_classification_report(y_true, y_pred, zero_division=0) == \
        sk.classification_report(flat_t, flat_p, zero_division=0)
    assert metrics.sequence_accuracy_score(y_true, y_pred) == 0.5
    with pytest.raises(ValueError, match="sequence 0"):
        metrics.flat_accuracy_score([["B"]], [["B", "O"]])
    assert np.isclose(metrics.flat_fbeta_score(y_true, y_pred, 2.0, average="micro"), 0.8)
