"""One estimator used from several threads (README, "Reliability"): predictions from many
threads at once are safe; a prediction that overlaps a training call on the same estimator
in another thread raises ConcurrentUseError instead of returning what a half-trained model
gives, and so does a second training call."""
import threading

import numpy as np
import pytest
from conftest import HAVE_C
from estimators import every

import perceptron_c
from perceptron_c import ConcurrentUseError, Perceptron


def _train_in_background(fit):
    done = threading.Event()
    errors = []

    def run():
        try:
            fit()
        except BaseException as exc:  # (reported to the test)
            errors.append(exc)
        finally:
            done.set()
    thread = threading.Thread(target=run)
    thread.start()
    return thread, done, errors


class _OneSentence(perceptron_c.StructuredPerceptron):
    """Called on rows as the other estimators are: each call's rows are one sentence."""

    def fit(self, X, y, lengths=None):
        return super().fit(X, y, [len(X)] if lengths is None else lengths)

    def predict(self, X, lengths=None):
        return super().predict(X, [len(X)] if lengths is None else lengths)


# rows the background training takes: about a second of work on the C core, and on the
# Python twins (about 50x slower) a twentieth of them
SCALE = 1 if HAVE_C else 20
TRAINED = {  # (estimator, rows it trains on in the background)
    "Perceptron": (lambda: perceptron_c.Perceptron(max_iter=20), 20_000),
    "PassiveAggressiveClassifier": (
        lambda: perceptron_c.PassiveAggressiveClassifier(max_iter=20, tol=None), 20_000),
    "KernelPerceptron": (lambda: perceptron_c.KernelPerceptron(max_iter=20), 3000),
    "VotedPerceptron": (lambda: perceptron_c.VotedPerceptron(max_iter=3), 2000),
    "BudgetKernelPerceptron": (lambda: perceptron_c.BudgetKernelPerceptron(max_iter=5), 3000),
    "KernelPassiveAggressiveClassifier": (
        lambda: perceptron_c.KernelPassiveAggressiveClassifier(max_iter=20, tol=None), 3000),
    # (a regressor of the labels 0-4 as real targets)
    "PassiveAggressiveRegressor": (
        lambda: perceptron_c.PassiveAggressiveRegressor(max_iter=20, tol=None), 20_000),
    # (the rows of each call one sentence: _OneSentence)
    "StructuredPerceptron": (lambda: _OneSentence(max_iter=60), 20_000),
}


def _paused_inside_its_training(model):
    """The model's next training call waits, inside the call, until the test has tried a
    prediction: the two overlap on any machine, however fast or loaded (a call that ended
    before the other thread ran once left nothing to refuse)."""
    inside, probed = threading.Event(), threading.Event()
    start = model._start

    def paused_start(*args, **kwargs):
        run = start(*args, **kwargs)
        inside.set()
        probed.wait(60)
        return run
    model._start = paused_start
    return inside, probed


def test_every_estimator_is_trained_in_the_background():
    assert sorted(TRAINED) == sorted(every("classifier") + every("regressor"))


@pytest.mark.parametrize("name", sorted(TRAINED))
def test_a_prediction_never_sees_a_half_trained_model(rng, name):
    make, n = TRAINED[name]
    n //= SCALE
    X, y = rng.normal(size=(n, 50)), rng.integers(0, 5, n)
    Xq = X[:300]
    # fitted before on two classes; now refitted on five, in another thread
    model = make().fit(rng.normal(size=(100, 50)), rng.integers(0, 2, 100))
    before = model.predict(Xq)
    inside, probed = _paused_inside_its_training(model)
    thread, done, errors = _train_in_background(lambda: model.fit(X, y))
    assert inside.wait(60)
    try:
        with pytest.raises(ConcurrentUseError, match="another thread is training"):
            model.predict(Xq)
    finally:
        probed.set()
    seen = []
    while not done.is_set():
        try:
            seen.append(model.predict(Xq))
        except ConcurrentUseError:
            pass
    thread.join()
    assert not errors, errors
    after = model.predict(Xq)
    # every answer is the model before the training call or after it, never one in between
    assert all(np.array_equal(s, before) or np.array_equal(s, after) for s in seen)


def test_a_second_training_call_from_another_thread_is_refused(rng):
    X = rng.normal(size=(20_000 // SCALE, 50))
    y = rng.integers(0, 5, 20_000 // SCALE)
    model = Perceptron(max_iter=30)
    thread, done, errors = _train_in_background(lambda: model.fit(X, y))
    while model._training_thread is None and not done.is_set():
        pass
    if not done.is_set():
        with pytest.raises(ConcurrentUseError, match="Perceptron: a training call"):
            model.partial_fit(X[:10], y[:10])
    thread.join()
    assert not errors, errors
    assert model._training_thread is None  # released, even by the refused call
    model.partial_fit(X[:10], y[:10])  # and usable again


def test_the_training_thread_may_predict_inside_its_own_call(rng):
    # early stopping scores the validation split with the model's own prediction
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] > 0).astype(int)
    model = Perceptron(early_stopping=True, max_iter=20, random_state=0).fit(X, y)
    assert model.n_iter_ >= 1


@pytest.mark.parametrize("cls", [cls for _, cls in perceptron_c.all_estimators()],
                         ids=lambda cls: cls.__name__)
def test_every_public_method_of_every_estimator_is_guarded(cls):
    """Each method that writes the model is decorated `trains` and each that reads it
    `reads` where it is defined (a mixin's too): the guard is in the source, not added by a
    base class."""
    from perceptron_c._utils._threads import READERS, WRITERS

    tagger = cls is perceptron_c.tagging.PerceptronTagger  # NLTK's names for the same roles
    for name in (("train", "tag", "accuracy") if tagger else ("fit", "predict", "score")) \
            + ("save",):
        assert hasattr(cls, name), name
    for name in WRITERS + READERS:
        method = getattr(cls, name, None)
        if method is not None:
            assert getattr(method, "_guarded", False), f"{cls.__name__}.{name}"


def test_a_failure_inside_an_overlapping_prediction_names_the_cause(rng, monkeypatch):
    model = Perceptron(max_iter=2).fit(rng.normal(size=(50, 3)), rng.integers(0, 2, 50))

    def shape_changes_midway(self, X):
        model._training_calls += 2  # a whole training call ran meanwhile
        raise IndexError("index 3 is out of bounds")
    monkeypatch.setattr(perceptron_c._estimator._linear_model.LinearModel, "_scores",
                        shape_changes_midway)
    with pytest.raises(ConcurrentUseError) as info:
        model.decision_function(np.zeros((2, 3)))
    assert isinstance(info.value.__cause__, IndexError)


def test_a_dask_fit_owns_the_estimator_too(rng):
    da = pytest.importorskip("dask.array")
    from perceptron_c import dask as pdask

    X = rng.normal(size=(400, 5))
    y = (X[:, 0] > 0).astype(int)
    model = Perceptron(max_iter=3).fit(X, y)
    seen = []

    def predict_midway(*args, **kwargs):  # another thread, while the dask fit runs
        thread = threading.Thread(target=lambda: seen.append(_outcome(model, X)))
        thread.start()
        thread.join()
        return real(*args, **kwargs)
    real = pdask._fit_copy
    pdask._fit_copy = predict_midway
    try:
        pdask.fit(model, da.from_array(X, chunks=100), da.from_array(y, chunks=100),
                  client="synchronous")
    finally:
        pdask._fit_copy = real
    assert seen == ["ConcurrentUseError"]
    assert model._training_thread is None
    model.predict(X)  # released after the swap


def _outcome(model, X):
    try:
        model.predict(X)
        return "answered"
    except ConcurrentUseError:
        return "ConcurrentUseError"
