"""perceptron_c.river against River's own linear models, side by side in one run.

    python bench/bench_river.py                 # 20,000 examples, batches of 1,000, ~1 minute
    python bench/bench_river.py --quick         # a smoke run, a few seconds

One stream of dicts with ``--features`` (100) numeric features and a noisy linear label, drawn
once. Every model learns the same examples; the pairs alternate ``--repeat`` times and each
keeps its best time. Reported: examples per second and the ratio ours / River's.

- learn_one: River's ``linear_model.Perceptron`` (plain, no averaging) against our averaged
  ``Perceptron`` (the issue's goal) and our plain one; River's ``PAClassifier`` against ours;
  our ``MulticlassPerceptron`` on the same labels (River has no K-class perceptron); and
  ``predict_one`` before each ``learn_one`` (progressive validation).
- learn_many on DataFrames of ``--batch`` rows: River's ``linear_model.Perceptron.learn_many``
  (one mean-gradient step per batch, not the perceptron's row-by-row updates) and River's
  Perceptron fed the frame's rows by learn_one (the model ours learns) against our averaged
  ``Perceptron.learn_many`` (row by row, in one compiled call); River's ``PAClassifier``,
  which has no learn_many, as a learn_one loop over the same rows, against ours.

The frames are built before timing (as a River user's ``stream.iter_pandas`` hands them over);
the dicts likewise. Then the budget kernel perceptron on ``--budget-n`` examples of
bench_budget.py's checkerboard stream, every strategy at ``--budget``: ours by learn_many on
each batch and `perceptron_c.BudgetKernelPerceptron` by partial_fit, each batch predicted
before it is learned; their online errors, and our model's memory (River's
``_raw_memory_usage``) when the budget has filled and at the end. Writes JSON (``--json``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from river import linear_model as lm  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import river as pr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "results", "river.json")
GOALS = {"learn_one": 5.0, "learn_many": 50.0}


def make_stream(n: int, d: int, seed: int) -> tuple[list[dict], list[bool], np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0
    names = [f"x{j}" for j in range(d)]
    return [dict(zip(names, row)) for row in X.tolist()], y.tolist(), X


def timed(make, feed) -> float:
    """Seconds ``feed(model)`` takes on a fresh ``model = make()``."""
    model = make()
    t0 = time.perf_counter()
    feed(model)
    return time.perf_counter() - t0


def time_calls(make, xs, ys, name: str = "learn_one") -> float:
    """``model.<name>(x, y)`` on each pair of ``xs`` and ``ys``: learn_one on a stream's
    examples, learn_many on its frames."""
    def feed(model):
        call = getattr(model, name)
        for x, y in zip(xs, ys):
            call(x, y)
    return timed(make, feed)


def time_progressive(make, rows, labels) -> float:
    """predict_one, then learn_one, on each example (River's progressive validation)."""
    def feed(model):
        for x, y in zip(rows, labels):
            model.predict_one(x)
            model.learn_one(x, y)
    return timed(make, feed)


def time_loop_of_one(make, frames, series) -> float:
    """learn_one over a frame's rows, as a model without learn_many must be fed."""
    def feed(model):
        for X, y in zip(frames, series):
            for x, label in zip(X.to_dict(orient="records"), y.tolist()):
                model.learn_one(x, label)
    return timed(make, feed)


def checkerboard(n: int, batch: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """bench_budget.py's stream: x uniform on [-2, 2]^2, a 4 x 4 checkerboard, 10% flipped."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(0, n, batch):
        X = rng.uniform(-2.0, 2.0, size=(batch, 2))
        y = (np.floor(X[:, 0]) + np.floor(X[:, 1])).astype(np.int64) % 2 == 1
        out.append((X, np.where(rng.random(batch) < 0.1, ~y, y)))
    return out


def budget_run(strategy: str, budget: int, batches: list) -> dict:
    """Ours (learn_many on each batch, predicted first) and the estimator (partial_fit, the
    same): online error, our model's memory when the budget has filled and at the end."""
    ours = pr.BudgetKernelPerceptron(budget=budget, strategy=strategy, gamma=2.0, seed=0)
    est = perceptron_c.BudgetKernelPerceptron(budget=budget, strategy=strategy, gamma=2.0,
                                              shuffle=False, random_state=0)
    wrong_ours = wrong_est = seen = 0
    filled = None
    t_ours = t_est = 0.0
    for X, y in batches:
        frame = pd.DataFrame(X, columns=["a", "b"])
        t0 = time.perf_counter()
        wrong_ours += int((ours.predict_many(frame).to_numpy() != y).sum())
        ours.learn_many(frame, pd.Series(y))
        t1 = time.perf_counter()
        if seen:
            wrong_est += int((est.predict(X) != y).sum())
        else:
            wrong_est += int(y.sum())  # an empty model predicts False (score 0), as ours
        est.partial_fit(X, y, classes=[False, True])
        t_est += time.perf_counter() - t1
        t_ours += t1 - t0
        seen += len(y)
        if filled is None and ours.n_support == budget:
            filled = (seen, ours._raw_memory_usage)
    return {"examples": seen, "error_ours": wrong_ours / seen, "error_estimator": wrong_est / seen,
            "filled_at": filled[0] if filled else None,
            "bytes_filled": filled[1] if filled else None, "bytes_end": ours._raw_memory_usage,
            "seconds_ours": t_ours, "seconds_estimator": t_est}


def best_of(repeat: int, pairs: dict) -> dict[str, float]:
    """Best time of each case, the cases alternating ``repeat`` times."""
    best = {name: float("inf") for name in pairs}
    for _ in range(repeat):
        for name, run in pairs.items():
            best[name] = min(best[name], run())
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000, help="examples in the stream")
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--batch", type=int, default=1000, help="rows per learn_many batch")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget-n", type=int, default=100000,
                    help="examples of the budget kernel perceptron's stream")
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="2,000 examples, one repeat")
    ap.add_argument("--json", default=DEFAULT_JSON, help=f"result file (default {DEFAULT_JSON})")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.repeat, args.budget_n = 2000, 1, 5000
    rows, labels, X = make_stream(args.n, args.features, args.seed)
    names = list(rows[0])
    frames = [pd.DataFrame(X[s:s + args.batch], columns=names)
              for s in range(0, args.n, args.batch)]
    series = [pd.Series(labels[s:s + args.batch]) for s in range(0, args.n, args.batch)]

    one = best_of(args.repeat, {
        "river Perceptron": lambda: time_calls(lm.Perceptron, rows, labels),
        "ours Perceptron (averaged)": lambda: time_calls(pr.Perceptron, rows, labels),
        "ours Perceptron (plain)": lambda: time_calls(
            lambda: pr.Perceptron(average=False), rows, labels),
        "ours MulticlassPerceptron": lambda: time_calls(
            pr.MulticlassPerceptron, rows, labels),
        "river PAClassifier": lambda: time_calls(lm.PAClassifier, rows, labels),
        "ours PAClassifier": lambda: time_calls(pr.PAClassifier, rows, labels),
        "river Perceptron, predict + learn": lambda: time_progressive(
            lm.Perceptron, rows, labels),
        "ours Perceptron, predict + learn": lambda: time_progressive(
            pr.Perceptron, rows, labels),
    })
    many = best_of(args.repeat, {
        "river Perceptron.learn_many": lambda: time_calls(
            lm.Perceptron, frames, series, "learn_many"),
        "ours Perceptron.learn_many": lambda: time_calls(
            pr.Perceptron, frames, series, "learn_many"),
        "river Perceptron, learn_one loop": lambda: time_loop_of_one(
            lm.Perceptron, frames, series),
        "river PAClassifier, learn_one loop": lambda: time_loop_of_one(
            lm.PAClassifier, frames, series),
        "ours PAClassifier.learn_many": lambda: time_calls(
            pr.PAClassifier, frames, series, "learn_many"),
    })
    ratios = {
        "learn_one: averaged Perceptron / River Perceptron":
            one["river Perceptron"] / one["ours Perceptron (averaged)"],
        "learn_one: plain Perceptron / River Perceptron":
            one["river Perceptron"] / one["ours Perceptron (plain)"],
        "learn_one: PAClassifier / River PAClassifier":
            one["river PAClassifier"] / one["ours PAClassifier"],
        "predict_one + learn_one: averaged Perceptron / River Perceptron":
            one["river Perceptron, predict + learn"] / one["ours Perceptron, predict + learn"],
        "learn_many: averaged Perceptron / River Perceptron":
            many["river Perceptron.learn_many"] / many["ours Perceptron.learn_many"],
        "learn_many: averaged Perceptron / River Perceptron's learn_one loop":
            many["river Perceptron, learn_one loop"] / many["ours Perceptron.learn_many"],
        "learn_many: PAClassifier / River PAClassifier's learn_one loop":
            many["river PAClassifier, learn_one loop"] / many["ours PAClassifier.learn_many"],
    }
    print(f"{args.n} examples, {args.features} features, batches of {args.batch}, best of "
          f"{args.repeat}; backend {perceptron_c.BACKEND}")
    print(f"{'case':<40} {'examples/s':>12}")
    for name, t in {**one, **many}.items():
        print(f"{name:<40} {args.n / t:>12,.0f}")
    print()
    for name, r in ratios.items():
        print(f"{name:<70} {r:>7.1f}x")
    batches = checkerboard(args.budget_n, args.batch, args.seed)
    budget = {s: budget_run(s, args.budget, batches)
              for s in ("random", "stoptron", "oldest", "forgetron", "projectron",
                        "projectron++")}
    print(f"\nBudgetKernelPerceptron, budget {args.budget}, {args.budget_n} examples "
          f"(checkerboard, 10% noise), batches of {args.batch}, each predicted first")
    print(f"{'strategy':<14} {'error ours':>10} {'estimator':>10} {'filled at':>10} "
          f"{'bytes then':>11} {'at the end':>11} {'s ours':>7} {'s est.':>7}")
    for name, r in budget.items():
        print(f"{name:<14} {r['error_ours']:>10.4f} {r['error_estimator']:>10.4f} "
              f"{r['filled_at'] or '-':>10} {r['bytes_filled'] or '-':>11} {r['bytes_end']:>11} "
              f"{r['seconds_ours']:>7.2f} {r['seconds_estimator']:>7.2f}")
    goals = {"learn_one": {"goal": GOALS["learn_one"], "measured": ratios[
        "learn_one: averaged Perceptron / River Perceptron"]},
             "learn_many": {"goal": GOALS["learn_many"], "measured": ratios[
                 "learn_many: averaged Perceptron / River Perceptron"]}}
    env = {"python": sys.version.split()[0], "machine": platform.machine(),
           "perceptron_c": perceptron_c.__version__, "backend": perceptron_c.BACKEND,
           "river": __import__("river").__version__, "pandas": pd.__version__}
    path = os.path.abspath(args.json)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"environment": env, "n": args.n, "features": args.features,
                   "batch": args.batch, "seconds": {**one, **many}, "ratios": ratios,
                   "budget": budget, "goals": goals}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
