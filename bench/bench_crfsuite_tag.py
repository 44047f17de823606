"""``Tagger.tag``, one sentence per call, against python-crfsuite's (issue 36): the same model
file, the same feature dicts, side by side in one run; and one shared Tagger tagging from 2
threads against 1.

    python bench/bench_crfsuite_tag.py            # 4,000 sentences, ~1 min
    python bench/bench_crfsuite_tag.py --quick    # a smoke run, a few seconds

The corpus is `perceptron_c.datasets.make_tagged_sentences`; each token's features are a dict
as a crfsuite user builds it: bias, the word, its lower case, its suffixes of 2 and 3, its
shape, and the neighbours' words. python-crfsuite trains the model (``ap``, 10 iterations) and
writes the file both taggers open. Cases (ratio: python-crfsuite's time over ours, higher is
faster for ours):

- ``tag_dicts``: ``tagger.tag(features)`` with the list of dicts, one test sentence per call;
- ``tag_itemsequence``: the features made an ``ItemSequence`` before the clock starts;
- ``open_inmemory``: a fresh Tagger opening the model from bytes (microseconds, median);
- ``first_tag / later_tag``: the first ``tag`` after that open over a later one (1.0: the
  first call costs no more than its own work);
- ``threads_2_*``: ours, the test sequences tagged by 2 threads sharing one Tagger, each its
  half, against one thread tagging them all (the ratio is 2 threads' speed-up; python-
  crfsuite's Tagger cannot be shared): ``_dicts`` from the lists of dicts, ``_itemsequence``
  from ItemSequences (their names read before the clock starts: a call then holds the GIL
  only to enter and leave), ``_documents`` ItemSequences of 4 sentences each;
- ``threads_2_bound``: the same split of a numpy call of about the same length that
  releases the GIL (``np.sort`` of a short array): the speed-up a call of that length can
  get from 2 threads on this machine and this Python at all.

One and two threads are timed in turns, ``--repeat`` times each, and the best of each kept:
a shared machine's noise falls on both alike.

Writes a table and JSON (``--json``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def features(words: list[str]) -> list[dict]:
    """One dict per token, as python-crfsuite's tutorials build them."""
    out = []
    for i, w in enumerate(words):
        f = {"bias": 1.0, "word": w, "word.lower()": w.lower(), "word[-3:]": w[-3:],
             "word[-2:]": w[-2:], "word.isupper()": w.isupper(),
             "word.istitle()": w.istitle(), "word.isdigit()": w.isdigit()}
        if i:
            f.update({"-1:word.lower()": words[i - 1].lower(),
                      "-1:word.istitle()": words[i - 1].istitle()})
        else:
            f["BOS"] = True
        if i + 1 < len(words):
            f.update({"+1:word.lower()": words[i + 1].lower(),
                      "+1:word.istitle()": words[i + 1].istitle()})
        else:
            f["EOS"] = True
        out.append(f)
    return out


def per_call(tagger, xs: list, repeat: int) -> float:
    """Seconds per ``tag`` call, the best of ``repeat`` passes over ``xs``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for x in xs:
            tagger.tag(x)
        best = min(best, time.perf_counter() - start)
    return best / len(xs)


def threaded(tagger, xs: list, n_threads: int, repeat: int) -> float:
    """Seconds to tag all of ``xs`` with ``n_threads`` threads, each its share; best of
    ``repeat``."""
    parts = [xs[k::n_threads] for k in range(n_threads)]
    best = float("inf")
    for _ in range(repeat):
        barrier = threading.Barrier(n_threads + 1)

        def work(part: list) -> None:
            barrier.wait()
            for x in part:
                tagger.tag(x)

        threads = [threading.Thread(target=work, args=(p,)) for p in parts]
        for t in threads:
            t.start()
        barrier.wait()
        start = time.perf_counter()
        for t in threads:
            t.join()
        best = min(best, time.perf_counter() - start)
    return best


def first_calls(module: Any, model: bytes, x: list, repeat: int) -> tuple[float, float]:
    """(microseconds to open the model from bytes, the first ``tag`` after it over the
    median of the next 10), medians over ``repeat`` fresh Taggers."""
    opens, firsts = [], []
    for _ in range(repeat):
        tagger = module.Tagger()
        start = time.perf_counter()
        tagger.open_inmemory(model)
        opened = time.perf_counter()
        tagger.tag(x)
        first = time.perf_counter() - opened
        later = []
        for _ in range(10):
            start_call = time.perf_counter()
            tagger.tag(x)
            later.append(time.perf_counter() - start_call)
        opens.append((opened - start) * 1e6)
        firsts.append(first / statistics.median(later))
    return statistics.median(opens), statistics.median(firsts)


class _Sort:
    """A "tagger" whose call is a numpy sort (the GIL released while it sorts)."""

    def tag(self, a: Any) -> None:
        a.sort()


def _sort_arrays(seconds: float, count: int) -> list:
    """``count`` copies of one array whose in-place sort takes about ``seconds``."""
    import numpy as np

    n = 256
    while True:  # (a sorted array sorts fast: each call gets a fresh shuffle's copy)
        base = np.random.default_rng(0).random(n)
        copies = [base.copy() for _ in range(200)]
        start = time.perf_counter()
        for a in copies:
            a.sort()
        took = (time.perf_counter() - start) / 200
        if took >= seconds or n > 1 << 20:
            return [base.copy() for _ in range(count)]
        n = int(n * max(1.2, min(4.0, seconds / max(took, 1e-9))))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="600 sentences, 1 repeat")
    p.add_argument("--sentences", type=int, default=4000)
    p.add_argument("--tags", type=int, default=12)
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--json", default=os.path.join(HERE, "results", "crfsuite_tag.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.sentences, args.repeat = 600, 1
    try:
        import pycrfsuite
    except ImportError:
        print("python-crfsuite is not installed: nothing to compare with")
        return 0
    import perceptron_c
    import perceptron_c.crfsuite as ours
    from perceptron_c.datasets import make_tagged_sentences

    data = make_tagged_sentences(0, args.sentences, n_tags=args.tags, n_symbols=3000)
    X = [features([w for w, _ in s]) for s in data]
    y = [[t for _, t in s] for s in data]
    cut = len(X) * 3 // 4
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        trainer = pycrfsuite.Trainer(verbose=False)
        trainer.select("ap")
        trainer.set("max_iterations", 10)
        for xseq, yseq in zip(X[:cut], y[:cut]):
            trainer.append(xseq, yseq)
        trainer.train(path)
        theirs, mine = pycrfsuite.Tagger(), ours.Tagger()
        theirs.open(path)
        mine.open(path)
        with open(path, "rb") as handle:
            model_bytes = handle.read()
    test = X[cut:]
    if [theirs.tag(x) for x in test] != [mine.tag(x) for x in test]:
        print("the labels differ from python-crfsuite's")
        return 1
    seqs_theirs = [pycrfsuite.ItemSequence(x) for x in test]
    seqs_mine = [ours.ItemSequence(x) for x in test]
    rows = []
    for case, a, b, unit in (
            ("tag_dicts", (theirs, test), (mine, test), "us/call"),
            ("tag_itemsequence", (theirs, seqs_theirs), (mine, seqs_mine), "us/call")):
        t_theirs = per_call(*a, args.repeat) * 1e6
        t_ours = per_call(*b, args.repeat) * 1e6
        rows.append({"case": case, "python-crfsuite": t_theirs, "ours": t_ours,
                     "ratio": t_theirs / t_ours, "unit": unit})
    opened = {name: first_calls(module, model_bytes, test[0], args.repeat)
              for name, module in (("python-crfsuite", pycrfsuite), ("ours", ours))}
    rows.append({"case": "open_inmemory", "python-crfsuite": opened["python-crfsuite"][0],
                 "ours": opened["ours"][0], "ratio": opened["python-crfsuite"][0]
                 / opened["ours"][0], "unit": "us"})
    rows.append({"case": "first_tag / later_tag", "python-crfsuite": opened["python-crfsuite"][1],
                 "ours": opened["ours"][1], "ratio": None, "unit": "x"})
    docs = [ours.ItemSequence(sum(test[k:k + 4], [])) for k in range(0, len(test), 4)]
    per_call_ours = rows[1]["ours"] * 1e-6
    arrays = _sort_arrays(per_call_ours, len(test))
    cases = {"threads_2_dicts": (mine, test), "threads_2_itemsequence": (mine, seqs_mine),
             "threads_2_documents": (mine, docs), "threads_2_bound": (_Sort(), arrays)}
    best = {case: [float("inf"), float("inf")] for case in cases}
    for _ in range(args.repeat):
        for case, (obj, xs) in cases.items():
            for k, n_threads in enumerate((1, 2)):
                best[case][k] = min(best[case][k], threaded(obj, xs, n_threads, 1))
    for case, (one, two) in best.items():
        rows.append({"case": case, "python-crfsuite": None, "ours": two * 1e3,
                     "one_thread": one * 1e3, "ratio": one / two, "unit": "ms/all"})
    tokens = sum(len(x) for x in test)
    print(f"{len(test)} test sentences ({tokens / len(test):.1f} tokens each), {args.tags} "
          f"tags, perceptron_c {perceptron_c.__version__} backend={perceptron_c.BACKEND}")
    print(f"{'case':<24} {'python-crfsuite':>16} {'ours':>10} {'ratio':>7}  unit")
    for r in rows:
        peer = "-" if r["python-crfsuite"] is None else f"{r['python-crfsuite']:.2f}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        print(f"{r['case']:<24} {peer:>16} {r['ours']:>10.2f} {ratio:>7}  {r['unit']}"
              + (f" (1 thread: {r['one_thread']:.2f})" if "one_thread" in r else ""))
    by_case = {r["case"]: r for r in rows}
    goals = {"tag_dicts >= 2x": by_case["tag_dicts"]["ratio"] >= 2.0,
             "threads_2_itemsequence >= 1.8x":
             by_case["threads_2_itemsequence"]["ratio"] >= 1.8}
    print("goals:", ", ".join(f"{k}: {'met' if v else 'not met'}" for k, v in goals.items()))
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"cases": rows, "goals": goals, "python": sys.version.split()[0],
                   "machine": platform.machine(), "sentences": len(test),
                   "median_length": statistics.median(len(x) for x in test)}, handle,
                  indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
