"""A ConvergenceWarning when ``fit`` ran all ``max_iter`` epochs without meeting its stopping
rule: scikit-learn's (``tol`` set: as scikit-learn warns) and the textbook's (no error-free
epoch: the data may not be separable). Never from ``partial_fit``, never when the rule was met,
and from the command line as one line. The suite's configuration ignores the textbook's
warning elsewhere (most tests train on data that is not separable on purpose); ``pytest.warns``
and ``warnings.catch_warnings`` here see every warning."""
import warnings

import numpy as np
import pytest

from perceptron_c import (
    BudgetKernelPerceptron,
    ConvergenceWarning,
    KernelPerceptron,
    Perceptron,
    StructuredPerceptron,
    VotedPerceptron,
    cli,
)

TEXTBOOK = "epochs ran without an error-free epoch"


def _xor(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 2)).astype(float)
    X[:4] = [[0, 0], [0, 1], [1, 0], [1, 1]]  # every corner: no line separates them
    return X, (X[:, 0] != X[:, 1]).astype(int)


def _separable(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X @ np.array([1.0, -2.0, 0.5]) > 0).astype(int)


def _linear():
    return [Perceptron(max_iter=7, random_state=0),
            Perceptron(max_iter=7, average=True, random_state=0),
            KernelPerceptron(kernel="linear", max_iter=7, random_state=0),
            VotedPerceptron(max_iter=7, random_state=0),
            BudgetKernelPerceptron(kernel="linear", budget=10, max_iter=7, random_state=0)]


def _caught(fit):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fit()
    return [w for w in seen if issubclass(w.category, ConvergenceWarning)]


@pytest.mark.parametrize("model", _linear(), ids=lambda m: type(m).__name__)
def test_the_textbook_rule_warns_when_every_epoch_made_mistakes(model):
    X, y = _xor()
    with pytest.warns(ConvergenceWarning, match=f"max_iter=7 {TEXTBOOK}") as seen:
        model.fit(X, y)
    assert model.n_iter_ == 7 and not model.converged_
    assert "tol=1e-3" in str(seen[0].message)
    assert seen[0].filename == __file__  # the warning points at the caller's fit


@pytest.mark.parametrize("model", _linear(), ids=lambda m: type(m).__name__)
def test_no_warning_when_the_rule_was_met_or_from_partial_fit(model):
    X, y = _separable()
    model.set_params(max_iter=1000)
    assert _caught(lambda: model.fit(X, y)) == [] and model.converged_
    flipped = y.copy()
    flipped[:9] ^= 1  # no longer separable
    assert _caught(lambda: model.partial_fit(X, flipped)) == []


def test_an_error_free_last_epoch_meets_the_rule_even_at_max_iter():
    X, y = _separable()
    epochs = Perceptron(random_state=0).fit(X, y).n_iter_
    assert epochs >= 2
    model = Perceptron(max_iter=epochs, random_state=0)
    assert _caught(lambda: model.fit(X, y)) == []
    assert model.n_iter_ == epochs and model.converged_
    with pytest.warns(ConvergenceWarning, match=TEXTBOOK):
        Perceptron(max_iter=epochs - 1, random_state=0).fit(X, y)


def test_scikit_learn_s_rule_warns_as_scikit_learn_does():
    X, y = _xor()
    with pytest.warns(ConvergenceWarning, match="tol=0.001 rule"):
        Perceptron(tol=1e-3, max_iter=2, random_state=0).fit(X, y)
    # tol=None with a penalty: scikit-learn's loop, which never warns without tol
    assert _caught(lambda: Perceptron(penalty="l2", max_iter=3, random_state=0).fit(X, y)) == []


def test_the_warning_is_scikit_learn_s_convergence_warning():
    exceptions = pytest.importorskip("sklearn.exceptions")
    X, y = _xor()
    with pytest.warns(exceptions.ConvergenceWarning):
        Perceptron(max_iter=3).fit(X, y)


def test_the_structured_perceptron_warns_too():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    y = rng.integers(0, 3, size=30)  # random tags: no model gets them all right
    with pytest.warns(ConvergenceWarning, match=f"max_iter=4 {TEXTBOOK}"):
        StructuredPerceptron(max_iter=4, random_state=0).fit(X, y, [10, 10, 10])


def test_the_structured_tagger_trains_nr_iter_epochs_without_a_warning():
    from perceptron_c.datasets import make_tagged_sentences
    from perceptron_c.tagging import PerceptronTagger

    sentences = [list(s) for s in make_tagged_sentences(np.random.default_rng(0), 60)]
    tagger = PerceptronTagger(load=False, structured=True)
    assert _caught(lambda: tagger.train(sentences, nr_iter=2)) == []  # NLTK's nr_iter
    assert tagger._core.model.n_iter_ == 2 and not tagger._core.model.converged_


def test_the_command_line_prints_the_warning_as_one_line(tmp_path, capsys):
    X, y = _xor()
    lines = [",".join([*map(repr, row.tolist()), str(label)]) for row, label in zip(X, y)]
    data = tmp_path / "xor.csv"
    data.write_text("a,b,label\n" + "\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # (the suite's configuration ignores this warning)
        assert cli.main(["train", str(data), "-o", str(tmp_path / "m.npz"),
                         "--epochs", "5"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("perceptron-c: warning: Perceptron: "), err
    assert f"max_iter=5 {TEXTBOOK}" in err
