"""A scikit-learn user swaps `sklearn.linear_model.Perceptron` for perceptron_c's, one import.

    python examples/persona_sklearn.py

The usual workflow, end to end, each step checked against scikit-learn's own estimator:
1. a Pipeline (StandardScaler, Perceptron) tuned by GridSearchCV on the digits scikit-learn
   ships: with scikit-learn's stopping rule (``tol=1e-3``, no penalty) the two estimators
   compute the same numbers, so every cross-validated score and the chosen parameters are equal;
2. the textbook default (``tol=None``) on data no line separates: a ConvergenceWarning says
   why all ``max_iter`` epochs ran, as scikit-learn says it for its own rule;
3. a bag of words from CountVectorizer, and the words that weigh most (``top_features``
   with the vectorizer's names);
4. the estimator in Jupyter (``_repr_html_``), cloned and pickled as scikit-learn does.
Exits with status 1 when a check fails.

Needs: sklearn
"""
import pickle
import sys
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from perceptron_c import Perceptron

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def grid_search(estimator, X, y):
    grid = {"perceptron__eta0": [0.1, 1.0], "perceptron__fit_intercept": [True, False]}
    search = GridSearchCV(make_pipeline(StandardScaler(), estimator), grid, cv=3)
    return search.fit(X, y)


def tuned_like_scikit_learn():
    X, y = load_digits(return_X_y=True)
    ours = grid_search(Perceptron(tol=1e-3, random_state=0), X, y)
    theirs = grid_search(SklearnPerceptron(tol=1e-3, random_state=0), X, y)
    print(f"GridSearchCV on digits: best {ours.best_params_}, "
          f"cv accuracy {ours.best_score_:.4f}")
    check(ours.best_params_ == theirs.best_params_, "the same parameters chosen as scikit-learn")
    check(np.array_equal(ours.cv_results_["mean_test_score"],
                         theirs.cv_results_["mean_test_score"]),
          "every cross-validated score equal to scikit-learn's")
    check(np.array_equal(ours.predict(X), theirs.predict(X)), "the same predictions")


def not_separable():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.8 * rng.normal(size=300) > 0).astype(int)  # noisy: no line separates
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        model = Perceptron(max_iter=50).fit(X, y)
    said = [w for w in seen if issubclass(w.category, ConvergenceWarning)]
    if said:
        print(f"textbook default on noisy data: {said[0].message}")
    check(len(said) == 1 and model.n_iter_ == 50, "a ConvergenceWarning after all 50 epochs")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        Perceptron(tol=1e-3).fit(X, y)
    check(not seen, "no warning once scikit-learn's rule stops training")


def words_that_weigh():
    docs = ["cheap pills offer now", "meeting notes attached", "offer expires cheap deal",
            "lunch meeting tomorrow", "win cash now offer", "project notes and agenda"] * 5
    labels = ["spam", "ham", "spam", "ham", "spam", "ham"] * 5
    vectorizer = CountVectorizer()
    X = vectorizer.fit_transform(docs)
    model = Perceptron(random_state=0).fit(X, labels)
    top = model.top_features(3, feature_names=vectorizer)
    print(f"words for {str(model.classes_[1])!r}: {[w for w, _ in top['positive']]}; "
          f"for {str(model.classes_[0])!r}: {[w for w, _ in top['negative']]}")
    check("offer" in dict(top["positive"]) or "cheap" in dict(top["positive"]),
          "a spam word among the top features of 'spam'")
    check(model.score(X, labels) == 1.0, "the training documents separated")


def the_estimator_object():
    model = Perceptron(max_iter=200, tol=1e-3)
    check("<b>max_iter</b>" in model._repr_html_(), "Jupyter's view bolds the changed parameters")
    X, y = load_digits(return_X_y=True)
    fitted = model.fit(X, y)
    again = pickle.loads(pickle.dumps(fitted))
    check(np.array_equal(again.predict(X), fitted.predict(X)), "a pickled model predicts alike")
    check(clone(fitted).get_params() == fitted.get_params(), "clone keeps the parameters")


if __name__ == "__main__":
    tuned_like_scikit_learn()
    not_separable()
    words_that_weigh()
    the_estimator_object()
    sys.exit(1 if failures else 0)
