"""With the compiled core in use, no public call enters a Python twin: every function called
while the calls run is watched (sys.setprofile, on every thread), and one whose code lies in a
Python twin (``_core/_*_py.py``) fails the test, naming it. (The glue both twins share,
``_core/_contract.py``'s checks and blocks, is no twin.) Every estimator of the public
namespace must be among the calls, so a new one cannot be left out."""
import importlib
import inspect
import itertools
import os
import random
import sys
import threading

import numpy as np
import pytest
from conftest import HAVE_C
from tagged_corpus import tagged_sentences

import perceptron_c
from perceptron_c import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    Perceptron,
    _backend,
    lowlevel,
)
from perceptron_c._core import registry
from perceptron_c.tagging import PerceptronTagger, TokenFeatures

pytestmark = [pytest.mark.skipif(not HAVE_C, reason="the C core is not in use"),
              pytest.mark.filterwarnings(
                  "ignore::perceptron_c.exceptions.ConvergenceWarning")]

CORE = os.path.dirname(registry.__file__)
WATCHED = {os.path.join(CORE, registry.twins(name)[1] + ".py") for name in registry.ROUTINES}
MODELS = {getattr(perceptron_c, n) for n in perceptron_c.__all__
          if inspect.isclass(getattr(perceptron_c, n)) and
          hasattr(getattr(perceptron_c, n), "fit")}
if HAVE_C:  # a C twin reads its Python twin's __all__ when first imported: before the watch
    for _name in registry.ROUTINES:
        importlib.import_module(f"perceptron_c._core.{registry.twins(_name)[0]}")


class Watch:
    """The Python-twin functions called inside the block, on any thread."""

    def __init__(self):
        self.entered = []

    def _profile(self, frame, event, arg):
        if event == "call" and frame.f_code.co_filename in WATCHED:
            code = frame.f_code
            self.entered.append(f"{os.path.basename(code.co_filename)}:{code.co_name}")

    def __enter__(self):
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)
        threading.setprofile(None)


def _every_model_call(tmp_path, rng):
    """Every public call of every estimator, on dense and sparse rows, each kernel, each
    strategy; and the public Gram."""
    from perceptron_c import (
        BudgetKernelPerceptron,
        KernelPassiveAggressiveClassifier,
        KernelPerceptron,
        StructuredPerceptron,
        VotedPerceptron,
    )
    from perceptron_c.budget_perceptron import STRATEGIES
    from perceptron_c.kernels import RBF, gram

    X = rng.normal(size=(80, 5))
    y = np.argmax(X[:, :3] + 0.4 * rng.normal(size=(80, 3)), axis=1)
    y2 = (y == 0).astype(int)
    B = (X > 0).astype(float)
    sparse = pytest.importorskip("scipy.sparse").csr_matrix(np.where(B > 0, X, 0.0))
    G = RBF(0.3)(X, X)
    jobs, used = [], set()

    def each(model, rows, labels, more=()):
        used.add(type(model))

        def run():
            model.fit(rows, labels)
            if hasattr(model, "partial_fit"):
                model.partial_fit(rows, labels)
            for part in (rows[:1], rows[:7], rows, *more):
                model.predict(part)
                getattr(model, "decision_function", model.predict)(part)
            model.score(rows, labels)
            again = perceptron_c.load(model.save(tmp_path / f"{len(jobs)}.npz"))
            again.predict(rows[:1])
        jobs.append(run)

    for kw in ({}, {"average": True}, {"multiclass": "ovr", "average": True},
               {"penalty": "l2", "tol": 1e-3}, {"normalize": True}):
        for rows in (X, sparse):
            each(Perceptron(max_iter=3, **kw), rows, y, [rows[:1].astype(np.float32)])
    for rows in (X, sparse):
        each(PassiveAggressiveClassifier(max_iter=3, average=True), rows, y)
        each(PassiveAggressiveRegressor(max_iter=3), rows, X[:, 0])
    kernels = [("rbf", X), ("poly", X), ("linear", X), ("conjunction", B)]
    for (kernel, rows), average in itertools.product(kernels, (False, True)):
        each(KernelPerceptron(kernel=kernel, max_iter=3, average=average), rows, y)
        each(KernelPerceptron(kernel=kernel, max_iter=3, average=average,
                              max_gram_bytes=2048), rows, y2)
        each(KernelPassiveAggressiveClassifier(kernel=kernel, max_iter=3, average=average),
             rows, y2)
    for kernel, rows in kernels:
        for strategy in STRATEGIES:
            each(BudgetKernelPerceptron(kernel=kernel, budget=10, strategy=strategy,
                                        max_iter=2), rows, y2)
        each(VotedPerceptron(kernel=kernel, max_iter=3), rows, y)
    for rows in (X, sparse):
        each(VotedPerceptron(max_iter=3), rows, y)
    for cls in (KernelPerceptron, KernelPassiveAggressiveClassifier):
        each(cls(kernel="precomputed", max_iter=3), G, y)
    for rows in (X, sparse):
        def sentences(rows=rows):
            model = StructuredPerceptron(max_iter=2).fit(rows, y, [40, 40])
            model.partial_fit(rows, y, [20, 60])
            model.predict(rows[:5], [5])
            model.predict(rows, [30, 50])
            model.score(rows, y, [80])
            perceptron_c.load(model.save(tmp_path / "s.npz")).predict(rows[:3], [3])
        jobs.append(sentences)
    used.add(StructuredPerceptron)
    for kernel, params in (("rbf", {"gamma": 0.5}), ("poly", {"degree": 3}), ("linear", {})):
        jobs.append(lambda kernel=kernel, params=params: gram(X, X[:9], kernel, **params))
        jobs.append(lambda kernel=kernel, params=params: gram(X, kernel=kernel, n_jobs=2,
                                                               **params))
    jobs.append(lambda: gram(B, B[:4], "conjunction", log2=True))
    return jobs, used


def test_no_estimator_call_enters_a_python_twin(tmp_path, rng):
    jobs, used = _every_model_call(tmp_path, rng)
    assert MODELS <= used, f"add {sorted(c.__name__ for c in MODELS - used)} to the calls"
    for job in jobs:  # once unwatched: what runs only the first time is not a call's work
        job()
    with Watch() as watch:
        for job in jobs:
            job()
    assert not watch.entered, sorted(set(watch.entered))


@pytest.mark.parametrize("structured", [False, True])
def test_no_tagger_call_enters_a_python_twin(structured, tmp_path):
    data = tagged_sentences(0, 400)
    words = [[w for w, _ in s] for s in data[:50]]
    with Watch() as watch:
        random.seed(0)
        tagger = PerceptronTagger(load=False, structured=structured)
        tagger.train(data, nr_iter=2)
        tagger.tag(words[0])
        tagger.tag_sents(words)
        tagger.accuracy(data[:20])
        loaded = PerceptronTagger.load(tagger.save(tmp_path / "tagger.npz"))
        loaded.tag_sents(words)
        if not structured:
            tagger.tag(words[0], return_conf=True)
            tagger.to_nltk_json(tmp_path / "nltk")
            PerceptronTagger.from_nltk_json(tmp_path / "nltk").tag_sents(words)
        features = TokenFeatures()
        features.fit_transform(words)
        features.transform(words)
        TokenFeatures(n_features=64).fit_transform(words)
    assert not watch.entered, sorted(set(watch.entered))


def test_no_crfsuite_tagger_call_enters_a_python_twin():
    from perceptron_c.crfsuite import ItemSequence, Tagger
    from perceptron_c.crfsuite._model import CRFModel

    model = CRFModel(labels=["A", "B"], attributes=["x", "y"],
                     state_attr=np.array([0, 1], dtype=np.int32),
                     state_label=np.array([0, 1], dtype=np.int32),
                     state_weight=np.array([1.0, 2.0]), transitions=np.zeros((2, 2)))
    xseq = [{"x": 1.0}, {"y": 1.0, "z": "w"}, ["x", "y"]]
    with Watch() as watch:
        tagger = Tagger.from_model(model)
        tagger.tag(xseq)
        tagger.tag(ItemSequence(xseq))
        tagger.set(xseq)
        tagger.tag()
        tagger.probability(["A", "B", "B"])
    assert not watch.entered, sorted(set(watch.entered))


def test_no_lowlevel_call_enters_a_python_twin():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    w, b = np.zeros(4), np.zeros(1)
    with Watch() as watch:
        lowlevel.perceptron_epoch_dense(X, y, np.arange(50), w, b)
        lowlevel.decision_dense(X, w[None, :], b, np.zeros((50, 1)))
    assert not watch.entered, sorted(set(watch.entered))


def test_river_batches_enter_no_python_twin():
    """learn_many and predict_many (one example per call: test_river.py)."""
    pytest.importorskip("river")
    import pandas as pd

    from perceptron_c import river as pr

    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(60, 5)), columns=list("abcde"))
    with Watch() as watch:
        for model in (pr.Perceptron(), pr.MulticlassPerceptron(), pr.PAClassifier(),
                      pr.PARegressor(), pr.BudgetKernelPerceptron(budget=10)):
            target = frame["a"] if isinstance(model, pr.PARegressor) else frame["a"] > 0
            model.learn_many(frame, target)
            model.predict_many(frame)
            model.learn_many(frame, target)
    assert not watch.entered, sorted(set(watch.entered))


def test_the_watch_sees_a_twin():
    """The watch itself: a call into a Python twin is seen."""
    with Watch() as watch, _backend.using("python"):
        PerceptronTagger(load=False).train(tagged_sentences(0, 30), nr_iter=1)
    assert any(e.startswith("_tagging_py.py:") for e in watch.entered)
