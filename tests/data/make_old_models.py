"""Write the fixtures of tests/test_old_models.py: one fitted model of each estimator, as a
pickle and as a model file (``save``), with the data and the predictions it gave.

Run it with the release whose files the fixtures stand for installed (the folder's name says
which), from any folder:

    python tests/data/make_old_models.py tests/data/models-0.1.0

The fixtures are written once and committed: they are what an older install wrote, so that
every later layout of the package is tested against files it did not write itself.
"""
import json
import os
import pickle
import sys

import numpy as np

import perceptron_c
from perceptron_c import (
    BudgetKernelPerceptron,
    KernelPassiveAggressiveClassifier,
    KernelPerceptron,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    Perceptron,
    StructuredPerceptron,
    VotedPerceptron,
)
from perceptron_c.tagging import PerceptronTagger, TokenFeatures


def data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(40, 6)).astype(np.float64)
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] > 0, "yes", "no")
    return X, y


def main(folder):
    os.makedirs(folder, exist_ok=True)
    X, y = data()
    Xb = (X > 0).astype(np.float64)
    models = {
        "perceptron": (Perceptron(random_state=0, max_iter=5), X, y),
        "perceptron_sgd": (Perceptron(random_state=0, max_iter=5, tol=None, penalty="l2"), X, y),
        "pa": (PassiveAggressiveClassifier(random_state=0, max_iter=5), X, y),
        "pa_regressor": (PassiveAggressiveRegressor(random_state=0, max_iter=5), X,
                         X[:, 0] - X[:, 1]),
        "kernel_rbf": (KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=3, random_state=0),
                       X, y),
        "kernel_conjunction": (KernelPerceptron(kernel="conjunction", max_iter=3,
                                                random_state=0), Xb, y),
        "voted": (VotedPerceptron(max_iter=3, random_state=0), X, y),
        "budget": (BudgetKernelPerceptron(budget=10, kernel="rbf", max_iter=3,
                                          random_state=0), X, y),
        "kernel_pa": (KernelPassiveAggressiveClassifier(kernel="poly", degree=2, max_iter=3,
                                                        random_state=0), X, y),
    }
    for name, (est, Xf, yf) in models.items():
        est.fit(Xf, yf)
        with open(os.path.join(folder, f"{name}.pkl"), "wb") as handle:
            pickle.dump({"model": est, "X": Xf, "predict": est.predict(Xf)}, handle, protocol=4)
        est.save(os.path.join(folder, f"{name}.npz"))
        np.save(os.path.join(folder, f"{name}.predict.npy"), est.predict(Xf), allow_pickle=False)
        np.save(os.path.join(folder, f"{name}.X.npy"), Xf, allow_pickle=False)
    seq = StructuredPerceptron(max_iter=3, random_state=0).fit(X, y, [10, 10, 10, 10])
    with open(os.path.join(folder, "structured.pkl"), "wb") as handle:
        pickle.dump({"model": seq, "X": X, "lengths": [10, 10, 10, 10],
                     "predict": seq.predict(X, [10, 10, 10, 10])}, handle, protocol=4)
    sentences = [["the", "cat", "sat"], ["a", "dog", "ran", "fast"], ["the", "dog", "sat"]]
    tags = [["D", "N", "V"], ["D", "N", "V", "R"], ["D", "N", "V"]]
    features = TokenFeatures().fit(sentences)
    tagger = PerceptronTagger(load=False)
    tagger.train([list(zip(s, t)) for s, t in zip(sentences, tags)], nr_iter=3)
    # (a tagger that has tagged did not pickle in 0.1.0: its model file stands for it)
    tagger.save(os.path.join(folder, "tagger.npz"))
    with open(os.path.join(folder, "tagger.json"), "w", encoding="utf-8") as handle:
        json.dump({"tokens": ["the", "cat", "ran"],
                   "tagged": [list(p) for p in tagger.tag(["the", "cat", "ran"])]}, handle)
    with open(os.path.join(folder, "text.pkl"), "wb") as handle:
        pickle.dump({"features": features, "sentences": sentences,
                     "transform": features.transform(sentences).toarray(),
                     "tagged": tagger.tag(["the", "cat", "ran"])}, handle, protocol=4)
    print(f"perceptron_c {perceptron_c.__version__} wrote {len(os.listdir(folder))} files "
          f"in {folder}")


if __name__ == "__main__":
    main(sys.argv[1])
