"""Feature dicts as a python-crfsuite user builds them, and python-crfsuite's own model files
of every trainer, for the tests of perceptron_c.crfsuite."""
from perceptron_c.datasets import make_tagged_sentences

ALGORITHMS = ["lbfgs", "l2sgd", "ap", "pa", "arow"]


def features(sentence):
    """One dict per token: bias, word, suffix, shape, a float, the neighbours' words."""
    words = [w for w, _ in sentence]
    out = []
    for i, w in enumerate(words):
        f = {"bias": 1.0, "w": w.lower(), "suf": {"3": w[-3:], "2": w[-2:]},
             "upper": w[0].isupper(), "len": len(w) / 7.0}
        if i:
            f["-1:w"] = words[i - 1].lower()
        else:
            f["BOS"] = True
        if i + 1 < len(words):
            f["+1:w"] = words[i + 1].lower()
        out.append(f)
    return out


def corpus(seed, n, n_tags=4):
    data = make_tagged_sentences(seed, n, n_tags=n_tags, n_symbols=60)
    return [features(s) for s in data], [[t for _, t in s] for s in data]


def train_pycrfsuite(pycrfsuite, algorithm, path, X, y):
    """python-crfsuite's Trainer on (X, y), its model written to ``path``."""
    trainer = pycrfsuite.Trainer(verbose=False)
    trainer.select(algorithm)
    if algorithm != "lbfgs":
        trainer.set("max_iterations", 5)
    for xseq, yseq in zip(X, y):
        trainer.append(xseq, yseq)
    trainer.train(str(path))
    return path


def pycrfsuite_files(pycrfsuite, folder):
    """python-crfsuite's model file of every trainer (ALGORITHMS), each trained on the same
    corpus: {algorithm: path} in ``folder``."""
    X, y = corpus(0, 80)
    return {alg: train_pycrfsuite(pycrfsuite, alg, folder / f"{alg}.crfsuite", X, y)
            for alg in ALGORITHMS}
