"""The structured perceptron against python-crfsuite's averaged perceptron, in one run.

    python bench/bench_sequence.py             # POS-like set: 45 tags, ~30 features/token
    python bench/bench_sequence.py --quick     # a smoke run, a few seconds

The data is a POS-like synthetic corpus (``pos_like``): 45 tags from a Markov chain, words
owned by tags with some ambiguity, and ~30 sparse binary features per token (20 of the word,
5 of each neighbour) hashed into a vocabulary of 200,000 columns, as CSR float64. Both
learners see the same features: crfsuite gets each token's row as a dict ``{'f<j>': x_j}``.

Measured, every number best of ``--repeat`` and side by side:
- ours, epoch: one averaged epoch of ``structured_epoch_csr`` on the model's state (the
  routine alone), and ``partial_fit`` (the estimator: gate, epoch, its checkpoint and the
  finite check of the state; coef_ is averaged when first read, not by partial_fit);
- ours, decode: ``predict`` of the held-out set;
- crfsuite: the time its ``ap`` trainer logs for its last epoch (epoch ``--epochs``: the
  steady state ours is timed in too, without reading the data in), and ``Tagger.tag`` over
  the held-out sentences (prebuilt ItemSequences);
- accuracy of both on the held-out set after ``--epochs`` epochs.
Tokens/s count training tokens per epoch and held-out tokens for decoding. Writes JSON.
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
import scipy.sparse as sp

import perceptron_c
from perceptron_c import _backend
from perceptron_c.sequence import StructuredPerceptron

HERE = os.path.dirname(os.path.abspath(__file__))
GOAL_TRAIN = 1.5  # issue 22: structured training >= 1.5x crfsuite AP per epoch


def pos_like(seed: int, n_tokens: int, n_tags: int = 45, n_features: int = 200_000,
             n_words: int = 20_000) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """(X CSR float64, tags, lengths): a Markov chain of tags emitting words, each token
    described by 20 hashed features of its word and 5 of each neighbour's (~30 per token)."""
    rng = np.random.default_rng(seed)
    trans = rng.dirichlet(np.full(n_tags, 0.1), size=n_tags)
    lengths = rng.integers(8, 40, size=n_tokens // 10)
    lengths = lengths[:np.searchsorted(np.cumsum(lengths), n_tokens) + 1]
    tags = np.empty(int(lengths.sum()), dtype=np.int64)
    pos = 0
    for n in lengths.tolist():
        t = int(rng.integers(n_tags))
        for k in range(n):
            tags[pos + k] = t
            t = int(rng.choice(n_tags, p=trans[t]))
        pos += n
    per_tag = n_words // n_tags
    words = tags * per_tag + np.minimum(rng.zipf(1.5, size=tags.shape[0]) - 1, per_tag - 1)
    noisy = rng.random(tags.shape[0]) < 0.15  # ambiguous words: any tag's
    words[noisy] = rng.integers(0, n_words, size=int(noisy.sum()))
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    ends = np.repeat(np.cumsum(lengths), lengths)
    idx = np.arange(tags.shape[0])
    prev = np.where(idx > starts, words[np.maximum(idx - 1, 0)], n_words)
    nxt = np.where(idx + 1 < ends, words[np.minimum(idx + 1, idx.shape[0] - 1)], n_words + 1)
    mult = rng.integers(1, n_features, size=30) | 1
    add = rng.integers(0, n_features, size=30)
    src = np.concatenate([np.repeat(words[:, None], 20, 1), np.repeat(prev[:, None], 5, 1),
                          np.repeat(nxt[:, None], 5, 1)], axis=1)
    cols = (src * mult + add) % n_features
    X = sp.csr_matrix((np.ones(cols.size), cols.ravel(), np.arange(0, cols.size + 1, 30)),
                      shape=(tags.shape[0], n_features))
    X.sum_duplicates()
    X.data[:] = 1.0
    return X, tags, lengths


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        tic = time.perf_counter()
        fn()
        times.append(time.perf_counter() - tic)
    return min(times)


def ours(train, test, args) -> dict:
    X, y, lengths = train
    est = StructuredPerceptron(max_iter=args.epochs, random_state=args.seed).fit(X, y, lengths)
    acc = est.score(test[0], test[1], test[2])
    st, seq = est._state, _backend.sequence
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    order = np.random.default_rng(0).permutation(len(lengths)).astype(np.int64)
    y_idx = np.searchsorted(est.classes_, y).astype(np.int64)
    Xc = X.astype(np.float64)
    indices, indptr = Xc.indices.astype(np.int32), Xc.indptr.astype(np.int64)

    def epoch():
        seq.structured_epoch_csr(Xc.data, indices, indptr, y_idx, offsets, order, st["W"],
                                 st["b"], st["trans"], True, st["U"], st["beta"],
                                 st["U_trans"], st["count"], np.zeros(2, dtype=np.int64))

    n, m = X.shape[0], test[0].shape[0]
    t_epoch = best(epoch, args.repeat)
    t_partial = best(lambda: est.partial_fit(X, y, lengths), args.repeat)
    t_decode = best(lambda: est.predict(test[0], test[2]), args.repeat)
    return {"accuracy": acc, "epoch_tokens_per_s": n / t_epoch,
            "partial_fit_tokens_per_s": n / t_partial, "decode_tokens_per_s": m / t_decode}


def _items(X: sp.csr_matrix, lengths: np.ndarray) -> list:
    import pycrfsuite

    rows = [{f"f{j}": float(v) for j, v in zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                                                X.data[X.indptr[i]:X.indptr[i + 1]].tolist())}
            for i in range(X.shape[0])]
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    return [pycrfsuite.ItemSequence(rows[a:z]) for a, z in zip(bounds, bounds[1:])]


def crfsuite(train, test, args) -> dict | None:
    try:
        import pycrfsuite
    except ImportError:
        print("python-crfsuite is not installed (pip install python-crfsuite): no crfsuite "
              "column")
        return None
    xs, ys = _items(train[0], train[2]), train[1].astype(str).tolist()
    bounds = np.concatenate([[0], np.cumsum(train[2])]).tolist()
    yseqs = [ys[a:z] for a, z in zip(bounds, bounds[1:])]
    tmp = tempfile.mkdtemp()
    model = os.path.join(tmp, "ap.crfsuite")

    def last_epoch() -> float:
        trainer = pycrfsuite.Trainer(algorithm="ap", verbose=False)
        trainer.set_params({"max_iterations": args.epochs, "epsilon": 0.0})
        for x, yy in zip(xs, yseqs):
            trainer.append(x, yy)
        trainer.train(model)
        return float(trainer.logparser.iterations[-1]["time"])

    t_epoch = min(last_epoch() for _ in range(args.repeat))
    tagger = pycrfsuite.Tagger()
    tagger.open(model)
    tests = _items(test[0], test[2])
    pred: list = []
    t_tag = best(lambda: pred.__setitem__(slice(None), [t for x in tests for t in
                                                         tagger.tag(x)]), args.repeat)
    acc = float(np.mean(np.array(pred) == test[1].astype(str)))
    return {"accuracy": acc, "epoch_tokens_per_s": train[0].shape[0] / t_epoch,
            "decode_tokens_per_s": test[0].shape[0] / t_tag}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tokens", type=int, default=50_000, help="training tokens")
    p.add_argument("--test-tokens", type=int, default=10_000)
    p.add_argument("--epochs", type=int, default=5, help="epochs before the accuracy")
    p.add_argument("--repeat", type=int, default=3, help="timed runs (best is kept)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="5,000 tokens, 2 epochs")
    p.add_argument("--json", default=os.path.join(HERE, "results", "sequence.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.tokens, args.test_tokens, args.epochs, args.repeat = 5_000, 1_000, 2, 1
    X, y, lengths = pos_like(args.seed, args.tokens + args.test_tokens)
    cut = int(np.searchsorted(np.cumsum(lengths), args.tokens)) + 1
    n = int(lengths[:cut].sum())
    train, test = (X[:n], y[:n], lengths[:cut]), (X[n:], y[n:], lengths[cut:])
    results = {"perceptron_c": ours(train, test, args)}
    theirs = crfsuite(train, test, args)
    if theirs is not None:
        results["crfsuite_ap"] = theirs
    print(f"{n:,} training tokens, {X.shape[0] - n:,} held out, 45 tags, "
          f"{X.nnz / X.shape[0]:.1f} features/token of {X.shape[1]:,} (perceptron_c "
          f"{perceptron_c.__version__}, backend {perceptron_c.BACKEND}; Python "
          f"{platform.python_version()})")
    print(f"{'':14s} {'epoch tok/s':>12s} {'partial_fit':>12s} {'decode tok/s':>13s} "
          f"{'accuracy':>9s}")
    for name, r in results.items():
        print(f"{name:14s} {r['epoch_tokens_per_s']:12,.0f} "
              f"{r.get('partial_fit_tokens_per_s', float('nan')):12,.0f} "
              f"{r['decode_tokens_per_s']:13,.0f} {r['accuracy']:9.4f}")
    ratios: dict = {}
    if theirs is not None:
        mine = results["perceptron_c"]
        ratios = {key: mine[key] / theirs[key]
                  for key in ("epoch_tokens_per_s", "decode_tokens_per_s")}
        ratios["partial_fit_vs_epoch"] = mine["partial_fit_tokens_per_s"] / \
            theirs["epoch_tokens_per_s"]
        ratios["accuracy_difference"] = mine["accuracy"] - theirs["accuracy"]
        print(f"ratio ours/crfsuite: epoch {ratios['epoch_tokens_per_s']:.2f}x (partial_fit "
              f"{ratios['partial_fit_vs_epoch']:.2f}x; goal {GOAL_TRAIN}x), decode "
              f"{ratios['decode_tokens_per_s']:.2f}x, accuracy "
              f"{100 * ratios['accuracy_difference']:+.2f} pt")
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "machine": {
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(), "processor": platform.processor()},
            "results": results, "ratios": ratios}, handle, indent=1)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
