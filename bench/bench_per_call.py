"""What one call costs, the way a backend's callers call it (issue 33): one sentence per
``tag``, one example per ``learn_one``/``predict_one``, one row per ``predict``, the first call
after training or loading, side by side with the peers in one run.

    python bench/bench_per_call.py            # the nlp-id corpus, River's synth streams, ~5 min
    python bench/bench_per_call.py --quick    # generated data, a few seconds (tests run it)

Cases, each a ratio measured in this run (higher is faster for ours):

- ``tag_greedy``: ``PerceptronTagger.tag(tokens)``, one test sentence per call, against NLTK's
  ``PerceptronTagger.tag``, both trained on the same split after the same ``random.seed``;
  the bulk ``tag_sents`` beside it.
- ``tag_structured``: ``PerceptronTagger(structured=True).tag(tokens)`` against
  python-crfsuite's ``Tagger.tag`` of the feature lists its users build in Python for each
  sentence (NLTK's 10 static feature strings, ``bench_tagging.static_features``), its model
  trained by crfsuite's averaged perceptron on the same features; ``tag_structured_45`` the
  same on a generated corpus of 45 tags (the size of the Penn tag set).
- ``first_call``: the first ``tag_sents`` of the test split after ``train`` and after
  ``load``, over the second call (the goal is at most 1.2); each a fresh tagger, the median
  of 3 trainings and of ``--repeat`` loads (one call is one sample: a single one swings
  2-3x on a shared machine).
- ``river_<model>_<d>``: River's progressive validation (``predict_one`` then
  ``learn_one``, per example) on ``river.datasets.synth.Hyperplane`` with d = 5, 20, 100
  features: River's ``linear_model.Perceptron`` against ours (averaged, River's default
  being plain: both shown) and River's ``PAClassifier`` against ours; ``_scaled``: both behind
  River's ``preprocessing.StandardScaler`` in a Pipeline, and the scaler and pipeline in front
  of a model that does nothing (the ``bound`` column: the ratio no model could pass there).
- ``budget_learn_one``: `perceptron_c.river.BudgetKernelPerceptron.learn_one`, budget 100,
  RBF, on bench_budget.py's checkerboard stream: examples per second (goal 50,000).
- ``kernel_predict_one``: `KernelPerceptron` (RBF) with about 600 support vectors, ``predict``
  of one row, against scikit-learn's ``SVC`` on the same data: a new row, and a row equal to
  a support vector; the first call after ``fit`` and the tenth beside the steady state, the
  peer's too.
- ``perceptron_predict_one``: `Perceptron.predict` of one row against scikit-learn's
  ``Perceptron.predict``, defaults and ``average=True``; first and tenth call too, the
  peer's too.

Corpora as bench_tagging.py fetches them (the nlp-id wheel from PyPI into a cache, never
committed); a peer that is not installed is skipped with a message. Writes a table and JSON
(``--json``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import warnings

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_tagging  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import ConvergenceWarning, KernelPerceptron, Perceptron  # noqa: E402
from perceptron_c.tagging import PerceptronTagger  # noqa: E402

# The models are trained to be timed, for a fixed number of epochs: converged or not.
warnings.filterwarnings("ignore", category=ConvergenceWarning)

GOALS = {"tag_greedy": 20.0, "tag_structured": 3.0, "first_call": 1.2, "river": 3.0,
         "budget_learn_one": 50_000.0, "kernel_predict_one": 3.0,
         "perceptron_predict_one": 15.0}


def _missing(module: str) -> str | None:
    import importlib.util

    return None if importlib.util.find_spec(module) else f"{module} is not installed"


def per_call(call, items, repeat: int) -> float:
    """Seconds per item of ``call(item)`` over ``items``: the best of ``repeat`` passes."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for item in items:
            call(item)
        best = min(best, (time.perf_counter() - t0) / max(1, len(items)))
    return best


def once(call) -> float:
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- taggers

def tagger_cases(args: argparse.Namespace, out: dict) -> None:
    sentences, source = bench_tagging.load_corpus(args)
    n_test = max(1, int(round(len(sentences) * 0.1)))
    train, test = sentences[:-n_test], sentences[-n_test:]
    words = [[w for w, _ in s] for s in test]
    n_tok = sum(map(len, words))
    out["corpus"] = {"source": source, "train_sentences": len(train),
                     "test_sentences": len(test), "test_tokens": n_tok}
    print(f"{source}: train {len(train):,} sentences, test {len(test):,} ({n_tok:,} tokens); "
          f"{args.epochs} epochs", flush=True)

    trains = []  # the first call after train, over the second, on 3 fresh trainings
    for _ in range(3):
        random.seed(args.seed)
        ours = PerceptronTagger(load=False)
        ours.train(train, nr_iter=args.epochs)
        first = once(lambda: ours.tag_sents(words))
        trains.append(first / once(lambda: ours.tag_sents(words)))
    row = {"ours_s": per_call(ours.tag, words, args.repeat),
           "ours_bulk_s": per_call(ours.tag_sents, [words], args.repeat) / len(words)}
    why = _missing("nltk")
    if why is None:
        from nltk.tag.perceptron import PerceptronTagger as NLTKTagger

        random.seed(args.seed)
        nltk = NLTKTagger(load=False)
        nltk.train(train, nr_iter=args.epochs)
        row["peer_s"] = per_call(nltk.tag, words, args.repeat)
        row["same_tags"] = all(ours.tag(w) == nltk.tag(w) for w in words)
        random.seed(args.seed)
        again = NLTKTagger(load=False)
        again.train(train, nr_iter=args.epochs)
        row["peer_first_call"] = once(lambda: again.tag_sents(words)) / once(
            lambda: again.tag_sents(words))
    out["cases"]["tag_greedy"] = _ratio(row, "per sentence", why, "NLTK PerceptronTagger.tag")

    with tempfile.TemporaryDirectory() as tmp:
        path = ours.save(os.path.join(tmp, "greedy.npz"))
        loads = []
        for _ in range(max(3, args.repeat)):
            loaded = PerceptronTagger.load(path)
            a = once(lambda: loaded.tag_sents(words))
            loads.append(a / once(lambda: loaded.tag_sents(words)))
    out["cases"]["first_call"] = {
        "what": "first tag_sents / second (greedy)", "after_train": trains,
        "after_train_median": statistics.median(trains),
        "after_load_median": statistics.median(loads), "after_load": loads,
        "ratio": max(statistics.median(trains), statistics.median(loads)),
        "lower_is_better": True,
        "nltk_after_train": out["cases"]["tag_greedy"].get("peer_first_call")}

    out["cases"]["tag_structured"] = _structured_row(train, words, args)
    # 45 tags (the Penn tag set's size; nlp-id has 17): the Viterbi step across tags
    from perceptron_c.datasets import make_tagged_sentences

    n = 600 if args.quick else 6000
    generated = make_tagged_sentences(args.seed, n, n_tags=45, n_symbols=n // 2,
                                      ambiguity=0.3)
    out["cases"]["tag_structured_45"] = _structured_row(
        generated[:n * 5 // 6], [[w for w, _ in s] for s in generated[n * 5 // 6:]], args)


def _structured_row(train: list, words: list, args: argparse.Namespace) -> dict:
    """Ours structured against python-crfsuite (with its users' feature lists), one sentence
    per call, both trained on ``train``."""
    random.seed(args.seed)
    structured = PerceptronTagger(load=False, structured=True)
    structured.train(train, nr_iter=args.epochs)
    row = {"ours_s": per_call(structured.tag, words, args.repeat),
           "ours_bulk_s": per_call(structured.tag_sents, [words], args.repeat) / len(words)}
    why = _missing("pycrfsuite")
    if why is None:
        crf = _crfsuite(train, args)
        row["peer_s"] = per_call(lambda w: crf.tag(bench_tagging.static_features(w)), words,
                                 args.repeat)
        feats = [bench_tagging.static_features(w) for w in words]
        row["peer_decode_only_s"] = per_call(crf.tag, feats, args.repeat)
    return _ratio(row, "per sentence", why, "python-crfsuite Tagger.tag + its feature lists")


def _crfsuite(train: list, args: argparse.Namespace):
    """python-crfsuite's averaged perceptron on NLTK's 10 static feature strings."""
    import pycrfsuite

    trainer = pycrfsuite.Trainer(algorithm="ap", verbose=False)
    trainer.set_params({"max_iterations": args.epochs})
    for sentence in train:
        trainer.append(bench_tagging.static_features([w for w, _ in sentence]),
                       [t for _, t in sentence])
    with tempfile.TemporaryDirectory() as tmp:
        trainer.train(os.path.join(tmp, "crf.model"))
        crf = pycrfsuite.Tagger()
        crf.open(os.path.join(tmp, "crf.model"))
    return crf


# --------------------------------------------------------------------------- River

def river_cases(args: argparse.Namespace, out: dict) -> None:
    why = _missing("river")
    if why:
        print(f"River: skipped, {why}")
        out["skipped"]["river"] = why
        return
    from river import linear_model, preprocessing
    from river.datasets import synth

    from perceptron_c import river as pr

    n = args.river_n
    for d in (5, 20, 100):
        stream = list(synth.Hyperplane(seed=args.seed, n_features=d).take(n))
        pairs = {
            "perceptron": (lambda: linear_model.Perceptron(), lambda: pr.Perceptron()),
            "perceptron_plain": (lambda: linear_model.Perceptron(),
                                 lambda: pr.Perceptron(average=False)),
            "pa": (lambda: linear_model.PAClassifier(), lambda: pr.PAClassifier()),
        }
        for name, (theirs, ours) in pairs.items():
            for scaled in (False, True):
                row = {}
                for who, make in (("peer_s", theirs), ("ours_s", ours)):
                    times = []
                    for _ in range(args.repeat):
                        model = (preprocessing.StandardScaler() | make()) if scaled else make()
                        times.append(_progressive(model, stream) / n)
                    row[who] = min(times)
                if scaled:
                    row["scaler_alone_s"] = min(
                        _scaler_alone(stream) / n for _ in range(args.repeat))
                key = f"river_{name}_{d}" + ("_scaled" if scaled else "")
                out["cases"][key] = _ratio(row, "per example (predict_one + learn_one)", None,
                                           "River " + ("StandardScaler | " if scaled else "") +
                                           theirs().__class__.__name__)

    import bench_budget

    X, y = bench_budget.stream(args.seed, args.budget_n, 0)
    rows = [{"x0": a, "x1": b} for a, b in X.tolist()]
    labels = y.astype(bool).tolist()
    model = pr.BudgetKernelPerceptron(budget=100, kernel="rbf", gamma=1.0)
    seconds = once(lambda: [model.learn_one(r, t) for r, t in zip(rows, labels)])
    predict = per_call(model.predict_one, rows[:2000], args.repeat)
    out["cases"]["budget_learn_one"] = {
        "what": "examples/s, learn_one, budget 100, RBF", "rate": len(rows) / seconds,
        "predict_one_s": predict, "ratio": None, "peer": None}


def _progressive(model, stream) -> float:
    t0 = time.perf_counter()
    for x, y in stream:
        model.predict_one(x)
        model.learn_one(x, y)
    return time.perf_counter() - t0


def _scaler_alone(stream) -> float:
    """River's StandardScaler and Pipeline in front of a model that does nothing: what any
    model behind them costs at least."""
    from river import base, preprocessing

    class Nothing(base.Classifier):
        def learn_one(self, x, y):
            pass

        def predict_proba_one(self, x):
            return {}

        def predict_one(self, x):
            return False

    return _progressive(preprocessing.StandardScaler() | Nothing(), stream)


# --------------------------------------------------------------------------- one row

def row_cases(args: argparse.Namespace, out: dict) -> None:
    rng = np.random.default_rng(args.seed)
    why = _missing("sklearn")
    # RBF: a noisy circle until about 600 support vectors
    X = rng.normal(size=(args.kernel_n, 4))
    y = (np.sum(X[:, :2] ** 2, axis=1) + 0.4 * rng.normal(size=args.kernel_n) > 1.4)
    kp = KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=2, random_state=0).fit(X, y)
    sv = kp.support_vectors_
    new, on_sv = rng.normal(size=(200, 4)), sv[rng.integers(0, sv.shape[0], 200)]
    row = _first_and_tenth(lambda r: kp.predict(r[None, :]), new)
    row.update(ours_s=per_call(lambda r: kp.predict(r[None, :]), new, args.repeat),
               ours_on_sv_s=per_call(lambda r: kp.predict(r[None, :]), on_sv, args.repeat),
               support_vectors=int(sv.shape[0]))
    if why is None:
        from sklearn.svm import SVC

        svc = SVC(kernel="rbf", gamma=0.5).fit(X, y)
        row.update(_first_and_tenth(lambda r: svc.predict(r[None, :]), new, "peer_"))
        row["peer_s"] = per_call(lambda r: svc.predict(r[None, :]), new, args.repeat)
        row["peer_support_vectors"] = int(svc.support_vectors_.shape[0])
        row["ours_s"] = max(row["ours_s"], row["ours_on_sv_s"])  # the goal is for any row
    out["cases"]["kernel_predict_one"] = _ratio(row, "per row (the slower of new / on a "
                                                "support vector)", why, "scikit-learn SVC")

    X = rng.normal(size=(5000, 20))
    y = X[:, 0] + 0.3 * rng.normal(size=5000) > 0
    rows = X[:500]
    for name, kw in (("perceptron_predict_one", {}),
                     ("perceptron_predict_one_averaged", {"average": True})):
        ours = Perceptron(random_state=0, **kw).fit(X, y)
        row = _first_and_tenth(lambda r: ours.predict(r[None, :]), rows)
        row["ours_s"] = per_call(lambda r: ours.predict(r[None, :]), rows, args.repeat)
        row["ours_bulk_s"] = per_call(ours.predict, [X], args.repeat) / len(X)
        if why is None:
            from sklearn.linear_model import Perceptron as SKPerceptron

            sk = SKPerceptron(random_state=0).fit(X, y)  # (it has no averaging)
            row.update(_first_and_tenth(lambda r: sk.predict(r[None, :]), rows, "peer_"))
            row["peer_s"] = per_call(lambda r: sk.predict(r[None, :]), rows, args.repeat)
            row["peer_bulk_s"] = per_call(sk.predict, [X], args.repeat) / len(X)
        out["cases"][name] = _ratio(row, "per row", why, "scikit-learn Perceptron.predict")


def _first_and_tenth(call, rows, prefix: str = "") -> dict:
    """The first call's time after fit, the tenth's (on rows 0 and 9)."""
    times = [once(lambda r=r: call(r)) for r in rows[:10]]
    return {f"{prefix}first_call_s": times[0], f"{prefix}tenth_call_s": times[9]}


# --------------------------------------------------------------------------- report

def _ratio(row: dict, what: str, why: str | None, peer: str) -> dict:
    row.update(what=what, peer=peer)
    row["ratio"] = row["peer_s"] / row["ours_s"] if "peer_s" in row else None
    if why:
        row["skipped_peer"] = why
    return row


def _goal(name: str) -> float | None:
    for key, goal in GOALS.items():
        if name.startswith(key):
            return goal
    return None


def report(out: dict) -> None:
    """The table: each case's time per call, the peer's, the ratio (first_call: lower is
    better; budget_learn_one: examples/s), the goal; for the rows behind River's scaler, the
    best ratio any model could reach there (the peer's time over the scaler's alone)."""
    print(f"\n{'case':34s} {'ours':>11s} {'peer':>11s} {'ratio':>8s} {'goal':>7s}  met  "
          f"{'bound':>7s}")
    goals = {}
    for name, row in out["cases"].items():
        goal, ratio = _goal(name), row.get("ratio")
        value = row["rate"] if "rate" in row else ratio
        lower = row.get("lower_is_better", False)
        met = None if value is None or goal is None else (value <= goal if lower else
                                                          value >= goal)
        ours = f"{row['ours_s'] * 1e6:9.2f}us" if "ours_s" in row else \
            f"{row['rate']:9,.0f}/s" if "rate" in row else "-"
        peer = f"{row['peer_s'] * 1e6:9.2f}us" if row.get("peer_s") else "-"
        bound = f"{row['peer_s'] / row['scaler_alone_s']:6.2f}x" if "scaler_alone_s" in row \
            else "-"
        print(f"{name:34s} {ours:>11s} {peer:>11s} "
              f"{'-' if ratio is None else f'{ratio:7.2f}x':>8s} "
              f"{'-' if goal is None else f'{goal:g}':>7s}  "
              f"{'' if met is None else 'yes' if met else 'NO':3s}  {bound:>7s}")
        goals[name] = {"value": value, "goal": goal, "met": met}
    out["goals"] = goals


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small generated data, 1 repeat")
    p.add_argument("--data", help="a word/TAG or CoNLL file (default: the nlp-id corpus)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=os.path.join(HERE, "results", "per_call.json"))
    args = p.parse_args(argv)
    args.river_n, args.budget_n, args.kernel_n = 5000, 20_000, 3000
    if args.quick:
        args.epochs, args.repeat = 1, 1
        args.river_n, args.budget_n, args.kernel_n = 300, 1000, 400
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    out: dict = {"cases": {}, "skipped": {}, "args": vars(args),
                 "date": time.strftime("%Y-%m-%d"),
                 "machine": {"python": platform.python_version(), "numpy": np.__version__,
                             "platform": platform.platform(), "cpus": os.cpu_count(),
                             "backend": perceptron_c.BACKEND,
                             "load_average": os.getloadavg()[0]}}
    tagger_cases(args, out)
    river_cases(args, out)
    row_cases(args, out)
    report(out)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=1)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
