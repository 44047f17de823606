"""PerceptronTagger (perceptron_c.tagging) on its C twins and on its pure-Python twins against
NLTK's PerceptronTagger on the same generated corpus, in one run: training and tagging
tokens/s, and that all learned the same model (weights and tags: the NLTK-exact mode).

    python bench/bench_tagger.py             # 100,000 training tokens, 5 epochs, ~2 minutes
    python bench/bench_tagger.py --quick     # a smoke run, ~10 s
    python bench/bench_tagger.py --tokens 300000 --no-pure   # a larger corpus

The corpus comes from tests/tagged_corpus.py (a seeded grammar of Penn-tagged sentences; see
there); both taggers train after the same ``random.seed``. Training tokens/s counts every
token of every epoch (tokens x nr_iter / seconds, averaging included); tagging tokens/s is
``tag_sents`` over held-out sentences, best of ``--repeat``. Writes a table and JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import numpy as np  # noqa: E402
from tagged_corpus import tagged_sentences  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import _backend  # noqa: E402
from perceptron_c.tagging import PerceptronTagger  # noqa: E402


def _nltk_tagger() -> type | None:
    try:
        from nltk.tag.perceptron import PerceptronTagger as NLTKTagger
    except ImportError:
        return None
    return NLTKTagger


def measure(cls: type, train: list, test: list[list[str]], args: argparse.Namespace,
            backend: str | None = None) -> dict:
    """Train ``cls`` after ``random.seed(args.seed)``, then tag ``test`` (on ``backend``'s
    twins for ours); times and tags."""
    if backend is not None:
        with _backend.using(backend):
            return measure(cls, train, test, args)
    random.seed(args.seed)
    tagger = cls(load=False)
    tic = time.perf_counter()
    tagger.train(train, nr_iter=args.nr_iter)
    train_s = time.perf_counter() - tic
    tag_s = float("inf")
    for _ in range(args.repeat):
        tic = time.perf_counter()
        tagged = tagger.tag_sents(test)
        tag_s = min(tag_s, time.perf_counter() - tic)
    n_train = sum(len(s) for s in train) * args.nr_iter
    n_test = sum(len(s) for s in test)
    weights = tagger.weights if isinstance(tagger, PerceptronTagger) else tagger.model.weights
    return {"train_seconds": train_s, "train_tokens_per_s": n_train / train_s,
            "tag_seconds": tag_s, "tag_tokens_per_s": n_test / tag_s,
            "n_features": len(weights), "tags": tagged, "weights": weights}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tokens", type=int, default=100_000, help="training tokens")
    p.add_argument("--test-tokens", type=int, default=30_000)
    p.add_argument("--nr-iter", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3, help="tagging runs (best is kept)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="10,000 training tokens")
    p.add_argument("--no-pure", action="store_true", help="skip the pure-Python twins")
    p.add_argument("--json", default=os.path.join(HERE, "results", "tagger.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.tokens, args.test_tokens, args.repeat = 10_000, 3_000, 1
    train = tagged_sentences(args.seed, args.tokens)
    test = [[w for w, _ in s] for s in tagged_sentences(args.seed + 1, args.test_tokens)]
    results = {}
    if _backend.BACKEND == "c":
        results["perceptron_c"] = measure(PerceptronTagger, train, test, args, "c")
    if not args.no_pure or _backend.BACKEND != "c":
        results["pure_python"] = measure(PerceptronTagger, train, test, args, "python")
    nltk_cls = _nltk_tagger()
    if nltk_cls is not None:
        results["nltk"] = measure(nltk_cls, train, test, args)
    print(f"{sum(map(len, train)):,} training tokens x {args.nr_iter} epochs, "
          f"{sum(map(len, test)):,} tagged tokens (perceptron_c {perceptron_c.__version__}, "
          f"backend {_backend.BACKEND}; Python {platform.python_version()})")
    print(f"{'tagger':14s} {'train tok/s':>12s} {'tag tok/s':>12s} {'features':>9s}")
    for name, r in results.items():
        print(f"{name:14s} {r['train_tokens_per_s']:12,.0f} {r['tag_tokens_per_s']:12,.0f} "
              f"{r['n_features']:9,d}")
    summary: dict = {}
    if "nltk" in results:
        theirs = results["nltk"]
        for name, r in results.items():
            if name == "nltk":
                continue
            summary[name] = {
                "train_speedup": r["train_tokens_per_s"] / theirs["train_tokens_per_s"],
                "tag_speedup": r["tag_tokens_per_s"] / theirs["tag_tokens_per_s"],
                "same_weights": r["weights"] == theirs["weights"],
                "same_tags": r["tags"] == theirs["tags"]}
            one = summary[name]
            print(f"ratio {name}/NLTK: training {one['train_speedup']:.2f}x, tagging "
                  f"{one['tag_speedup']:.2f}x; same weights: {one['same_weights']}, "
                  f"same tags: {one['same_tags']}")
    else:
        print("nltk is not installed: no comparison")
    for r in results.values():
        del r["tags"], r["weights"]
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "machine": {
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(), "processor": platform.processor()},
            "taggers": results, "ratios": summary}, handle, indent=1)
    print(f"JSON: {args.json}")
    same = all(one["same_tags"] and one["same_weights"] for one in summary.values())
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
