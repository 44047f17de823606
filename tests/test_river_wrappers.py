"""River's wrappers (one-vs-rest, the ensembles, pipelines, progressive validation) on every
adapter of perceptron_c.river, on River's synthetic streams, and River's sample weight w."""
import math
import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("river")

from river import compose, ensemble, evaluate, metrics, multiclass, preprocessing
from river.datasets import synth

import perceptron_c.river as pr
from perceptron_c import _backend

TWINS = ["c", "python"] if _backend.BACKEND == "c" else ["python"]

# the binary adapters, each stream small enough for the Python twin (the budget model's kernel
# rows), and each accuracy's floor (chance: 0.5), below what it reaches
BINARY = {
    "Perceptron": (lambda: pr.Perceptron(), 800, 0.75),
    "Perceptron-plain": (lambda: pr.Perceptron(average=False), 800, 0.7),
    "PAClassifier": (lambda: pr.PAClassifier(), 800, 0.7),
    "BudgetKernelPerceptron": (lambda: pr.BudgetKernelPerceptron(budget=10, seed=0), 300,
                               0.62),
}
ENSEMBLES = {
    "Bagging": ensemble.BaggingClassifier,
    "AdaBoost": ensemble.AdaBoostClassifier,
    "ADWINBagging": ensemble.ADWINBaggingClassifier,
    "LeveragingBagging": ensemble.LeveragingBaggingClassifier,
}


def _binary_stream(n):
    return list(synth.Hyperplane(seed=42, n_features=6, noise_percentage=0.05).take(n))


def _three_classes(n):
    return list(synth.Waveform(seed=42).take(n))


def _on_every_twin(run):
    """run() on each twin (each its own models, made in the twin's context): one answer,
    the same bits on both."""
    answers = []
    for twin in TWINS:
        with _backend.using(twin):
            answers.append(run())
    assert all(a == answers[0] for a in answers), answers
    return answers[0]


def _score(model, stream, metric):
    evaluate.progressive_val_score(stream, model, metric)
    return metric


def _values(metric):
    return tuple(m.get() for m in metric) if isinstance(metric, metrics.base.Metrics) \
        else metric.get()


# ---- one-vs-rest (binary adapters) and the ensembles (every classifier)

@pytest.mark.parametrize("name", BINARY)
def test_one_vs_rest(name):
    make, n, _ = BINARY[name]
    acc = _on_every_twin(lambda: _values(_score(multiclass.OneVsRestClassifier(make()),
                                                _three_classes(n), metrics.Accuracy())))
    assert acc > 0.45, acc  # 3 classes: a third by chance


@pytest.mark.parametrize("ens", ENSEMBLES)
@pytest.mark.parametrize("name", BINARY)
def test_ensembles_of_binary_adapters(ens, name):
    make, n, floor = BINARY[name]
    acc = _on_every_twin(lambda: _values(_score(ENSEMBLES[ens](make(), n_models=3, seed=1),
                                                _binary_stream(n), metrics.Accuracy())))
    assert acc > floor, acc


@pytest.mark.parametrize("ens", ENSEMBLES)
def test_ensembles_of_the_multiclass_perceptron(ens):
    acc = _on_every_twin(lambda: _values(_score(
        ENSEMBLES[ens](pr.MulticlassPerceptron(), n_models=3, seed=1), _three_classes(600),
        metrics.Accuracy())))
    assert acc > 0.75, acc


# ---- a pipeline with River's scaler, progressive validation, metrics of probabilities

@pytest.mark.parametrize("name", BINARY)
def test_pipeline_and_progressive_validation_binary(name):
    make, n, floor = BINARY[name]

    def run():
        model = compose.Pipeline(preprocessing.StandardScaler(), make())
        return _values(_score(model, _binary_stream(n), metrics.Accuracy() + metrics.ROCAUC()))

    acc, auc = _on_every_twin(run)
    assert acc > floor and auc > 0.5, (acc, auc)
    acc, auc = _on_every_twin(lambda: _values(_score(make(), _binary_stream(n),
                                                     metrics.Accuracy() + metrics.ROCAUC())))
    assert acc > floor and auc > 0.5, (acc, auc)


def test_pipeline_and_progressive_validation_multiclass():
    def run(scaled):
        model = pr.MulticlassPerceptron()
        model = preprocessing.StandardScaler() | model if scaled else model
        return _values(_score(model, _three_classes(600),
                              metrics.Accuracy() + metrics.CrossEntropy()))

    for scaled in (True, False):
        acc, loss = _on_every_twin(lambda s=scaled: run(s))
        assert acc > 0.75 and math.isfinite(loss), (acc, loss)


def _weighted(stream, seed=0):
    """River's weighted stream: (x, y, {"w": w}), as progressive_val_score reads it."""
    rng = np.random.default_rng(seed)
    return [(x, y, {"w": float(w)}) for (x, y), w in zip(stream, rng.choice([0.0, 0.5, 2.0],
                                                                             len(stream)))]


@pytest.mark.parametrize("make", [pr.Perceptron, pr.PAClassifier, pr.MulticlassPerceptron,
                                  pr.PARegressor], ids=lambda c: c.__name__)
def test_progressive_validation_passes_w(make):
    """progressive_val_score hands a stream's w to learn_one, through River's Pipeline: the
    model it leaves is the one of learn_one(x, y, w) in a loop (the pipeline dropped w, and
    the model learned unweighted, while learn_one took no w)."""
    if make is pr.PARegressor:
        stream = list(synth.Friedman(seed=3).take(500))
        metric = metrics.MAE()
    else:
        stream = _three_classes(500) if make is pr.MulticlassPerceptron \
            else _binary_stream(500)
        metric = metrics.Accuracy()
    data = _weighted(stream)
    made = (lambda: pr.PARegressor(mode=2, C=0.1)) if make is pr.PARegressor else make
    model = compose.Pipeline(preprocessing.StandardScaler(), made())
    # (River pops "w" from the stream's dicts: it gets copies)
    evaluate.progressive_val_score([(x, y, dict(kw)) for x, y, kw in data], model, metric)
    by_hand = compose.Pipeline(preprocessing.StandardScaler(), made())
    for x, y, kw in data:
        by_hand.predict_one(x)
        by_hand.learn_one(x, y, **kw)
    name = make.__name__
    assert _state(model[name]) == _state(by_hand[name])
    # River's Pipeline hands w only to a step whose learn_one names it (else drops it)
    unweighted = compose.Pipeline(preprocessing.StandardScaler(), made())
    for x, y, _ in data:
        unweighted.predict_one(x)
        unweighted.learn_one(x, y)
    assert _state(model[name]) != _state(unweighted[name])
    if make is pr.PARegressor:
        assert metric.get() < 3.9, metric  # a running mean's MAE: 3.99
    else:
        assert metric.get() > 0.7, metric


# ---- the probabilities

@pytest.mark.parametrize("make", [pr.Perceptron, lambda: pr.Perceptron(average=False),
                                  pr.PAClassifier, pr.BudgetKernelPerceptron,
                                  pr.MulticlassPerceptron])
def test_probabilities_are_river_rules_one_and_many_alike(make):
    stream = _three_classes(200) if make is pr.MulticlassPerceptron else _binary_stream(200)
    frame = pd.DataFrame([x for x, _ in stream[150:]])

    def run():
        m = make()
        for x, y in stream[:150]:
            m.learn_one(x, y)
        ones = [m.predict_proba_one(x) for x, _ in stream[150:]]
        many = m.predict_proba_many(frame)
        return ones, [dict(row) for _, row in many.iterrows()], [m.predict_one(x)
                                                                 for x, _ in stream[150:]]

    ones, many, labels = _on_every_twin(run)
    assert ones == many
    for p, label in zip(ones, labels):
        assert math.isclose(sum(p.values()), 1.0) and max(p, key=p.get) == label
    m = make()
    for x, y in stream[:150]:
        m.learn_one(x, y)
    x = stream[150][0]
    if make is pr.MulticlassPerceptron:
        scores = {c: sum(w * x.get(f, 0.0) for f, w in m.weights[c].items()) + m.intercept[c]
                  for c in m.classes}
        top = max(scores.values())
        exp = {c: math.exp(s - top) for c, s in scores.items()}
        expected = {c: v / sum(exp.values()) for c, v in exp.items()}
    else:
        s = m._calls_now().decision(x)
        p = 0.0 if s < -30 else 1.0 if s > 30 else 1.0 / (1.0 + math.exp(-s))
        expected = {False: 1.0 - p, True: p}
    got = m.predict_proba_one(x)
    assert got.keys() == expected.keys()
    assert all(math.isclose(got[k], expected[k], rel_tol=1e-9, abs_tol=1e-12) for k in got)


# ---- River's sample weight w

LINEAR = [pr.Perceptron, lambda: pr.Perceptron(average=False), pr.MulticlassPerceptron,
          lambda: pr.MulticlassPerceptron(average=False)]


def _state(m):
    """What a model holds, attribute by attribute (one pickle of the whole shares objects in
    its memo: two equal models may pickle apart)."""
    return [(k, pickle.dumps(v)) for k, v in m.__getstate__().items()]


@pytest.mark.parametrize("make", LINEAR)
def test_w_two_is_the_step_doubled(make):
    """The perceptron's step times w: w = 2 on every example doubles every update from zero,
    so the same mistakes happen and the weights (averaged too) are exactly twice as large."""
    multi = make().__class__ is pr.MulticlassPerceptron
    stream = _three_classes(300) if multi else _binary_stream(300)

    def run():
        one, two = make(), make()
        for x, y in stream:
            one.learn_one(x, y)
            two.learn_one(x, y, w=2.0)
        return one.weights, one.intercept, two.weights, two.intercept

    w1, b1, w2, b2 = _on_every_twin(run)
    if multi:
        assert w2 == {c: {f: 2 * v for f, v in w.items()} for c, w in w1.items()}
        assert b2 == {c: 2 * v for c, v in b1.items()}
    else:
        assert w2 == {f: 2 * v for f, v in w1.items()} and b2 == 2 * b1
    assert w1 != w2


@pytest.mark.parametrize("make", [pr.Perceptron, pr.MulticlassPerceptron, pr.PAClassifier,
                                  pr.PARegressor], ids=lambda c: c.__name__)
def test_w_one_changes_nothing_and_many_is_one_by_one(make):
    stream = list(synth.Friedman(seed=3).take(300)) if make is pr.PARegressor else \
        _three_classes(300) if make is pr.MulticlassPerceptron else _binary_stream(300)
    weights = np.random.default_rng(1).choice([0.0, 0.25, 1.0, 3.0], len(stream))

    def run():
        plain, one, weighted, batch = make(), make(), make(), make()
        for (x, y), w in zip(stream, weights.tolist()):
            plain.learn_one(x, y)
            one.learn_one(x, y, w=1)  # an int 1: the same bits as no w
            weighted.learn_one(x, y, w=w)
        X = pd.DataFrame([x for x, _ in stream])
        y = pd.Series([y for _, y in stream])
        batch.learn_many(X.iloc[:150], y.iloc[:150], w=pd.Series(weights[:150]))
        batch.learn_many(X.iloc[150:], y.iloc[150:], w=weights[150:])
        assert _state(plain) == _state(one)
        assert _state(weighted) == _state(batch)
        assert _state(weighted) != _state(plain)
        return weighted.weights

    _on_every_twin(run)


@pytest.mark.parametrize("make", [pr.Perceptron, pr.MulticlassPerceptron, pr.PAClassifier,
                                  pr.PARegressor], ids=lambda c: c.__name__)
def test_w_zero_learns_nothing(make):
    """As River's linear models (a zero gradient): no update, no new name or class, and an
    averaged model does not count the example either."""
    m = make()
    m.learn_one({"a": 1.0}, True if make is not pr.PARegressor else 1.0)
    before = _state(m)
    m.learn_one({"a": -3.0, "new": 2.0}, False if make is not pr.PARegressor else -5.0, w=0.0)
    m.learn_many(pd.DataFrame({"b": [1.0]}), pd.Series([False if make is not pr.PARegressor
                                                        else 2.0]), w=0)
    assert _state(m) == before
    with pytest.raises(TypeError, match="real numbers"):  # x is still read and checked
        m.learn_one({"a": "text"}, True if make is not pr.PARegressor else 1.0, w=0.0)


@pytest.mark.parametrize("make", [pr.Perceptron, pr.MulticlassPerceptron, pr.PAClassifier,
                                  pr.PARegressor], ids=lambda c: c.__name__)
def test_bad_w_is_named(make):
    m = make()
    y = True if make is not pr.PARegressor else 1.0
    m.learn_one({"a": 1.0}, y)
    before = _state(m)
    for bad in (-1.0, -1e-300, math.nan, math.inf, 1e400):
        with pytest.raises(ValueError, match="w must be a finite number >= 0"):
            m.learn_one({"a": 1.0}, y, w=bad)
    for bad in ("2", None, True, np.bool_(True), 1j, [2.0]):
        with pytest.raises(TypeError, match="w must be a real number"):
            m.learn_one({"a": 1.0}, y, w=bad)
    X, ys = pd.DataFrame({"a": [1.0, 2.0]}), pd.Series([y, y])
    for bad in (pd.Series([1.0, -1.0]), np.array([1.0, math.nan]), -2.0):
        with pytest.raises(ValueError, match="w must"):
            m.learn_many(X, ys, w=bad)
    for bad in (pd.Series(["a", "b"]), np.ones(3), "2"):
        with pytest.raises(TypeError, match="w must"):
            m.learn_many(X, ys, w=bad)
    assert _state(m) == before
