"""CRFsuite's perceptron trainers, python-crfsuite's and ours (issue 36), side by side in one
run: training tokens/s per epoch for ``ap``, ``pa`` and ``arow``.

    python bench/bench_crfsuite.py               # 2,000 sentences, 5 iterations, ~1 min
    python bench/bench_crfsuite.py --quick       # 200 sentences, 2 iterations, seconds

Data: ``perceptron_c.datasets.make_tagged_sentences`` (seed ``--seed``, 12 tags, 2,000 words),
with the features a crfsuite user builds (sklearn-crfsuite's tutorial ``word2features``): a
bias, the word lowercased, its last 3 and 2 letters, whether it is upper case, title case or
a number, and the same of the previous and the next word (or ``BOS``/``EOS``), one dict per
token, appended to both trainers as the same lists of dicts.

Measures, per trainer and algorithm: ``Trainer.train`` with ``max_iterations`` = epochs and
``epsilon`` 0 (every epoch runs): tokens/s per epoch from the iterations' times in the
trainer's own log (CPU seconds, as CRFsuite's log prints them; ``logparser.iterations``), and
from the wall time of the whole ``train`` call (feature generation included; crfsuite's
writes its model file, ours is timed in ``train_model``, without the file: the writer is to
come). An iteration's time includes what the trainer does around the epoch (the shuffle, the
averaged weights and their norm for the log). Best of ``--repeat`` runs, each system in
turn. Prints a table and the ratios ours/crfsuite, and writes JSON.
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
from perceptron_c._crfsuite_train import Trainer
from perceptron_c.datasets import make_tagged_sentences

HERE = os.path.dirname(os.path.abspath(__file__))
ALGORITHMS = ("ap", "pa", "arow")
GOAL = 3.0  # issue 36: training tokens/s per epoch, ours / python-crfsuite


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


def corpus(seed: int, n: int) -> tuple[list[list[dict]], list[list[str]]]:
    sents = make_tagged_sentences(seed, n, n_tags=12, n_symbols=2000)
    X = [[word2features([w for w, _ in s], i) for i in range(len(s))] for s in sents]
    return X, [[t for _, t in s] for s in sents]


def train_once(module, alg: str, X, y, epochs: int, path: str) -> tuple[float, float]:
    """One ``train`` call: (wall seconds, sum of the log's iteration seconds)."""
    t = module.Trainer(alg, params={"max_iterations": epochs, "epsilon": 0.0}, verbose=False)
    for xseq, yseq in zip(X, y):
        t.append(xseq, yseq)
    start = time.perf_counter()
    if hasattr(t, "train_model"):
        t.train_model()  # ours: the model without its file (the file writer is to come)
    else:
        t.train(path)
    wall = time.perf_counter() - start
    return wall, sum(float(it["time"]) for it in t.logparser.iterations)


class _Ours:
    Trainer = Trainer


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3, help="timed runs (best is kept)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="200 sentences, 2 epochs, 1 run")
    p.add_argument("--json", default=os.path.join(HERE, "results", "crfsuite.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.sentences, args.epochs, args.repeat = 200, 2, 1
    try:
        import pycrfsuite
    except ImportError:
        pycrfsuite = None
        print("python-crfsuite is not installed: ours only")
    X, y = corpus(args.seed, args.sentences)
    tokens = sum(len(s) for s in y)
    systems = {"perceptron_c": _Ours, **({"crfsuite": pycrfsuite} if pycrfsuite else {})}
    results: dict = {name: {} for name in systems}
    with tempfile.TemporaryDirectory() as tmp:
        for alg in ALGORITHMS:
            best = {name: (np.inf, np.inf) for name in systems}
            for _ in range(args.repeat):
                for name, module in systems.items():
                    wall, logged = train_once(module, alg, X, y, args.epochs,
                                              os.path.join(tmp, f"{name}.crfsuite"))
                    best[name] = (min(best[name][0], wall), min(best[name][1], logged))
            for name, (wall, logged) in best.items():
                results[name][alg] = {
                    "epoch_tokens_per_s": tokens * args.epochs / logged if logged else None,
                    "call_tokens_per_s": tokens * args.epochs / wall}
    print(f"{args.sentences:,} sentences, {tokens:,} tokens, {args.epochs} iterations "
          f"(perceptron_c {perceptron_c.__version__}, backend {perceptron_c.BACKEND}; Python "
          f"{platform.python_version()})")
    print(f"{'':10s} {'trainer':14s} {'epoch tok/s':>13s} {'call tok/s':>13s}")
    ratios: dict = {}
    for alg in ALGORITHMS:
        for name in systems:
            r = results[name][alg]
            epoch = r["epoch_tokens_per_s"]
            print(f"{alg:10s} {name:14s} {epoch if epoch else float('nan'):13,.0f} "
                  f"{r['call_tokens_per_s']:13,.0f}")
        if pycrfsuite:
            mine, theirs = results["perceptron_c"][alg], results["crfsuite"][alg]
            ratios[alg] = {key: (mine[key] / theirs[key] if mine[key] and theirs[key]
                                 else None) for key in mine}
    for alg, r in ratios.items():
        shown = {k: (f"{v:.2f}x" if v else "n/a") for k, v in r.items()}
        print(f"ratio ours/crfsuite {alg:5s} epoch {shown['epoch_tokens_per_s']}, whole "
              f"train call {shown['call_tokens_per_s']} (goal {GOAL}x per epoch)")
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "machine": {
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(), "processor": platform.processor()},
            "tokens": tokens, "results": results, "ratios": ratios,
            "goals": {"epoch_tokens_per_s": GOAL}}, handle, indent=1)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
