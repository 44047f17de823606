"""Ctrl-C in River's learning calls: real SIGINTs at random times into ``learn_many`` on large
frames and into loops of ``learn_one``, for every model of ``perceptron_c.river``.

Each trial computes the model the call gives on a copy, then makes the call on the model
while a timer sends the process SIGINT at a random time within the call's length. Whatever
the moment (reading the frame, numbering its names, inside the compiled routine, between two
``learn_one`` calls, on the way out), the model must then equal the model before the call or
the model after it, never a mix, and pickle back equal. A failure stops the run with the
trial that broke it. The table counts, per model and call, the signals sent and where each
left the model. Run from outside the checkout against an installed package:

    cd /tmp && python /path/to/repo/bench/bench_river_interrupt.py [--signals 200] [--json out.json]

``tests/test_river_trust.py`` runs it with fewer signals.
"""
import signal  # (its handler before anything else: a background job ignores SIGINT)

signal.signal(signal.SIGINT, signal.default_int_handler)

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import pickle  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from perceptron_c import river as pr  # noqa: E402

MODELS = {
    "Perceptron": lambda: pr.Perceptron(),
    "MulticlassPerceptron": lambda: pr.MulticlassPerceptron(),
    "PAClassifier": lambda: pr.PAClassifier(),
    "PARegressor": lambda: pr.PARegressor(),
    "BudgetKernelPerceptron": lambda: pr.BudgetKernelPerceptron(budget=100, gamma=0.5, seed=0),
}


def state(m):
    """What a model holds, attribute by attribute."""
    return [(k, pickle.dumps(v)) for k, v in m.__getstate__().items()]


def labels(name, t, trial):
    if name == "PARegressor":
        return t
    if name == "MulticlassPerceptron":  # a class new at each trial, from the middle on
        k = np.where(t > 0.5, "up", np.where(t < -0.5, "down", "flat")).astype(object)
        k[len(k) // 2::7] = f"new{trial}"
        return k
    return t > 0


def frame(name, trial, rng, quick):
    """A frame of real numbers, a few names new at this trial (half missing), its labels."""
    budget = name == "BudgetKernelPerceptron"
    n = int(rng.integers(1000, 4000) if budget else rng.integers(20_000, 250_000))
    n = n // 10 if quick else n
    d = 4 if budget else 30
    X = rng.normal(size=(n, d + 3))
    columns = [f"x{j}" for j in range(d)] + [f"t{trial}_{j}" for j in range(3)]
    X[:, d:][rng.random((n, 3)) < 0.5] = np.nan
    t = X[:, :d] @ np.linspace(-1.0, 1.0, d) + 0.3 * rng.normal(size=n)
    return pd.DataFrame(X, columns=columns), pd.Series(labels(name, t, trial))


def interrupted(call, delay):
    """Run ``call`` with SIGINT sent ``delay`` seconds in: whether KeyboardInterrupt came."""
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        call()
        timer.join()
        time.sleep(0.005)  # (the handler runs here if the call ended first)
    except KeyboardInterrupt:
        timer.join()
        return True
    return False


def trial_many(m, name, trial, rng, draw, quick):
    X, y = frame(name, trial, rng, quick)
    before = state(m)
    ref = pickle.loads(pickle.dumps(m))
    start = time.perf_counter()
    ref.learn_many(X, y)
    length = time.perf_counter() - start
    after = state(ref)
    hit = interrupted(lambda: m.learn_many(X, y), draw.uniform(0.0, 1.1 * length))
    return hit, before, after


def trial_one(m, name, trial, rng, draw, quick):
    X, y = frame(name, trial, rng, True)
    rows = [{k: v for k, v in r.items() if v == v} for r in X.to_dict("records")][:1500]
    ys = y.tolist()
    copy = pickle.dumps(m)
    start = time.perf_counter()
    probe = pickle.loads(copy)
    for x, label in zip(rows, ys):
        probe.learn_one(x, label)
    length = time.perf_counter() - start
    done = [0]

    def loop():
        for x, label in zip(rows, ys):
            m.learn_one(x, label)
            done[0] += 1

    hit = interrupted(loop, draw.uniform(0.0, 1.1 * length))
    ref = pickle.loads(copy)  # the model after done[0] calls, and after one more
    for x, label in zip(rows[:done[0]], ys):
        ref.learn_one(x, label)
    before = state(ref)
    if done[0] < len(rows):
        ref.learn_one(rows[done[0]], ys[done[0]])
    return hit, before, state(ref)


def run(signals, quick, seed):
    rng, draw = np.random.default_rng(seed), random.Random(seed)
    models = {name: make() for name, make in MODELS.items()}
    table = {(name, kind): {"signals": 0, "raised": 0, "before": 0, "after": 0}
             for name in models for kind in ("learn_many", "learn_one")}
    trial = 0
    while trial < signals:
        for name, m in models.items():
            for kind, step in (("learn_many", trial_many), ("learn_one", trial_one)):
                if trial >= signals:
                    break
                hit, before, after = step(m, name, trial, rng, draw, quick)
                now = state(m)
                row = table[name, kind]
                row["signals"] += 1
                row["raised"] += hit
                if now == after:
                    row["after"] += 1
                elif now == before:
                    row["before"] += 1
                else:
                    raise AssertionError(f"trial {trial}, {name}.{kind}: the model is neither "
                                         "the one before the call nor the one after it")
                if state(pickle.loads(pickle.dumps(m))) != now:
                    raise AssertionError(f"trial {trial}, {name}: pickles back otherwise")
                trial += 1
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--signals", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="small frames, 20 signals")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json")
    args = parser.parse_args()
    signals = 20 if args.quick else args.signals
    start = time.perf_counter()
    table = run(signals, args.quick, args.seed)
    seconds = time.perf_counter() - start
    print(f"{'model':24s} {'call':11s} {'signals':>8s} {'raised':>7s} {'before':>7s} "
          f"{'after':>6s}")
    for (name, kind), row in table.items():
        print(f"{name:24s} {kind:11s} {row['signals']:8d} {row['raised']:7d} "
              f"{row['before']:7d} {row['after']:6d}")
    total = {k: sum(row[k] for row in table.values()) for k in ("signals", "raised", "before",
                                                                "after")}
    print(f"{total['signals']} signals in {seconds:.1f} s: {total['raised']} raised "
          f"KeyboardInterrupt in the call; every model before or after its call, pickling "
          "back equal")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": [{"model": n, "call": k, **row}
                                   for (n, k), row in table.items()],
                       "total": total, "seconds": seconds}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
