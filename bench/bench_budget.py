"""Budget kernel perceptrons on a long non-separable stream: flat memory, constant time per
example, and the online error of every strategy against the budget, next to the unbounded
kernel perceptron.

    python bench/bench_budget.py                      # 10^6 examples, ~5 minutes
    python bench/bench_budget.py --quick              # a smoke run (CI), ~20 s

Two parts, one process, one seed:

1. The long stream (``--n`` examples, default 10^6) goes through ``partial_fit`` in batches
   of ``--batch``, once per strategy at budget ``--budget``, then through `KernelPerceptron`
   until ``--kp-seconds`` have passed. After every batch: the process's resident memory
   (/proc/self/statm, else getrusage's peak) and its peak so far (getrusage: the kernel
   blocks live only during a call), the time per example of the batch, and the
   online error so far (mistakes / examples seen; every example is predicted before the
   model learns from it). Reported: the memory when the budget has filled (else a tenth of
   the way) and how much it grew after that, the time per example over the first and the
   last tenth after that point, and their ratio (1 = constant).
2. Online error against the budget: the first ``--n-curve`` examples of the same stream for
   every strategy and each of ``--budgets``, and for `KernelPerceptron`, which keeps every
   mistake: it runs until the stream ends or ``--kp-seconds`` have passed (then its error is
   over the examples it reached, and the table says so).

The stream: x uniform on [-2, 2]^2, the label a 4 x 4 checkerboard, 10% of the labels
flipped; RBF kernel, gamma = 2. Writes a table, JSON (``--json``) and, with matplotlib, the
figure ``--figure``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread: per-example times are the algorithm's

import numpy as np  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import BudgetKernelPerceptron, KernelPerceptron  # noqa: E402
from perceptron_c.budget_perceptron import STRATEGIES  # noqa: E402

GAMMA, NOISE = 2.0, 0.1


def stream(seed: int, batch: int, index: int) -> tuple[np.ndarray, np.ndarray]:
    """Batch ``index`` of the stream, drawn from (seed, index) alone."""
    rng = np.random.default_rng([seed, index])
    X = rng.uniform(-2.0, 2.0, size=(batch, 2))
    y = (np.floor(X[:, 0]) + np.floor(X[:, 1])).astype(np.int64) % 2
    return X, np.where(rng.random(batch) < NOISE, 1 - y, y)


def peak_mib() -> float:
    """The process's peak resident memory so far (getrusage)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**20 if sys.platform == "darwin" else 2**10)


def rss_mib() -> float:
    """Resident memory now (Linux), else the peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        return peak_mib()


def make(strategy: str, budget: int, seed: int) -> BudgetKernelPerceptron:
    return BudgetKernelPerceptron(budget=budget, strategy=strategy, gamma=GAMMA,
                                  random_state=seed)


def long_stream(name: str, model: object, args: argparse.Namespace,
                seconds: float | None = None) -> dict:
    """The long stream through ``model``; ``seconds``: stop after this long (unbounded)."""
    seen, mistakes, rows, start = 0, 0, [], time.perf_counter()
    for index in range(args.n // args.batch):
        X, y = stream(args.seed, args.batch, index)
        tic = time.perf_counter()
        model.partial_fit(X, y, classes=[0, 1])  # type: ignore[attr-defined]
        took = time.perf_counter() - tic
        seen += args.batch
        mistakes += int(model.mistakes_[-1])  # type: ignore[attr-defined]
        rows.append({"seen": seen, "error": mistakes / seen, "us": 1e6 * took / args.batch,
                     "rss": rss_mib(), "peak": peak_mib(),
                     "n_support": int(model.n_support_)})  # type: ignore
        if seconds is not None and time.perf_counter() - start > seconds:
            break
    # the reference point: the budget filled, else (Projectron: the span saturates below the
    # budget; unbounded: it never stops growing) a tenth of the way
    full = next((i for i, r in enumerate(rows) if r["n_support"] == args.budget), None)
    ref = full if full is not None and name != "unbounded" else len(rows) // 10
    after = rows[ref:]
    tenth = max(1, len(after) // 10)
    first = float(np.median([r["us"] for r in after[:tenth]]))
    last = float(np.median([r["us"] for r in after[-tenth:]]))
    return {"strategy": name, "budget": args.budget, "examples": seen,
            "online_error": mistakes / seen, "filled_at": None if full is None else
            rows[full]["seen"], "reference_at": rows[ref]["seen"], "rss_at_reference_mib":
            after[0]["rss"], "rss_growth_after_mib": max(r["rss"] for r in after) -
            after[0]["rss"], "peak_growth_after_mib": after[-1]["peak"] - after[0]["peak"],
            "us_first_tenth": first, "us_last_tenth": last,
            "time_ratio": last / first, "n_support": int(model.n_support_),  # type: ignore
            "n_evicted": getattr(model, "n_evicted_", 0),
            "n_projected": getattr(model, "n_projected_", 0), "trace": rows}


def online_error(model: object, args: argparse.Namespace, seconds: float | None) -> dict:
    seen, mistakes, tic = 0, 0, time.perf_counter()
    for index in range(args.n_curve // args.batch):
        X, y = stream(args.seed, args.batch, index)
        model.partial_fit(X, y, classes=[0, 1])  # type: ignore[attr-defined]
        seen += args.batch
        mistakes += int(model.mistakes_[-1])  # type: ignore[attr-defined]
        if seconds is not None and time.perf_counter() - tic > seconds:
            break
    return {"examples": seen, "online_error": mistakes / seen,
            "seconds": time.perf_counter() - tic, "stopped_early": seen < args.n_curve,
            "n_support": int(model.n_support_)}  # type: ignore[attr-defined]


def print_tables(long: list[dict], curve: dict, kp: dict, args: argparse.Namespace) -> None:
    print(f"\n1. {args.n:,} examples through partial_fit in batches of {args.batch:,}, "
          f"budget {args.budget} (perceptron_c {perceptron_c.__version__}, "
          f"backend {perceptron_c.BACKEND})")
    print(f"{'strategy':14s} {'examples':>9s} {'online err':>10s} {'support':>8s} "
          f"{'from':>9s} {'RSS MiB':>8s} {'+MiB':>7s} {'+peak':>7s} {'us/ex first':>11s} "
          f"{'us/ex last':>10s} {'last/first':>10s} {'evicted':>8s} {'projected':>9s}")
    for r in long:
        print(f"{r['strategy']:14s} {r['examples']:9,d} {r['online_error']:10.4f} "
              f"{r['n_support']:8,d} {r['reference_at']:9,d} {r['rss_at_reference_mib']:8.1f} "
              f"{r['rss_growth_after_mib']:7.2f} {r['peak_growth_after_mib']:7.2f} "
              f"{r['us_first_tenth']:11.2f} "
              f"{r['us_last_tenth']:10.2f} {r['time_ratio']:10.2f} {r['n_evicted']:8,d} "
              f"{r['n_projected']:9,d}")
    print("  from: where memory and time are measured from (the budget full, else a tenth of "
          "the way); +MiB: growth of the resident memory after it (between calls); +peak: of "
          "the peak resident memory (during calls); us/ex: median over the first and the last "
          "tenth after it")
    print(f"\n2. Online error on the first {args.n_curve:,} examples against the budget")
    print(f"{'strategy':14s} " + " ".join(f"{'B=' + str(b):>8s}" for b in args.budgets))
    for strategy in STRATEGIES:
        print(f"{strategy:14s} " + " ".join(f"{curve[strategy][b]['online_error']:8.4f}"
                                            for b in args.budgets))
    note = (f"stopped after {kp['examples']:,} examples ({kp['seconds']:.0f} s)"
            if kp["stopped_early"] else f"all {kp['examples']:,} examples, "
            f"{kp['seconds']:.0f} s")
    print(f"{'unbounded':14s} {kp['online_error']:8.4f}  (KernelPerceptron, "
          f"{kp['n_support']:,} support vectors; {note})")


def figure(long: list[dict], curve: dict, kp: dict, args: argparse.Namespace) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure")
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for strategy in STRATEGIES:
        left.plot(args.budgets, [curve[strategy][b]["online_error"] for b in args.budgets],
                  marker="o", label=strategy)
    left.axhline(kp["online_error"], color="k", ls="--",
                 label=f"unbounded ({kp['examples']:,} ex.)")
    left.axhline(NOISE, color="grey", ls=":", label="label noise")
    left.set(xscale="log", xlabel="budget (support vectors)", ylabel="online error",
             title=f"first {args.n_curve:,} examples")
    left.set_xticks(args.budgets, [str(b) for b in args.budgets])
    left.minorticks_off()
    left.legend(fontsize=8)
    for r in long:
        seen = [t["seen"] for t in r["trace"]]
        style = dict(color="k", ls="--") if r["strategy"] == "unbounded" else {}
        right.plot(seen, [t["error"] for t in r["trace"]], label=r["strategy"], **style)
    right.axhline(NOISE, color="grey", ls=":")
    right.set(xscale="log", xlabel="examples seen", ylabel="online error (so far)",
              title=f"budget {args.budget}, {args.n:,} examples")
    right.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.figure)), exist_ok=True)
    fig.savefig(args.figure, dpi=110)
    return args.figure


def parse(argv: list[str] | None) -> argparse.Namespace:
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=1_000_000, help="long stream length")
    p.add_argument("--batch", type=int, default=10_000, help="rows per partial_fit call")
    p.add_argument("--budget", type=int, default=200, help="budget of the long stream")
    p.add_argument("--n-curve", type=int, default=100_000, help="stream length of part 2")
    p.add_argument("--budgets", type=int, nargs="+", default=[25, 50, 100, 200, 400])
    p.add_argument("--kp-seconds", type=float, default=120.0,
                   help="stop the unbounded kernel perceptron after this long")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="a smoke run: 40,000 examples")
    p.add_argument("--json", default=os.path.join(here, "results", "budget.json"))
    p.add_argument("--figure", default=os.path.join(here, "..", "docs", "figures",
                                                    "budget_online_error.png"))
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.batch, args.n_curve = 40_000, 4_000, 20_000
        args.budgets, args.budget, args.kp_seconds = [25, 100], 50, 20.0
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if perceptron_c.BACKEND != "c":
        print("bench_budget needs the compiled C core (PERCEPTRON_C_NO_EXTENSIONS is set or "
              "this is a pure build)")
        return 1
    long = []
    for strategy in STRATEGIES:
        long.append(long_stream(strategy, make(strategy, args.budget, args.seed), args))
        print(f"  long stream: {strategy} done ({long[-1]['online_error']:.4f})", flush=True)
    long.append(long_stream("unbounded", KernelPerceptron(gamma=GAMMA, random_state=args.seed),
                            args, args.kp_seconds))
    curve = {s: {b: online_error(make(s, b, args.seed), args, None) for b in args.budgets}
             for s in STRATEGIES}
    kp = online_error(KernelPerceptron(gamma=GAMMA, random_state=args.seed), args,
                      args.kp_seconds)
    print_tables(long, curve, kp, args)
    path = figure(long, curve, kp, args)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "machine": {
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(), "processor": platform.processor(),
            "backend": perceptron_c.BACKEND}, "long_stream": long,
            "online_error_vs_budget": {s: {str(b): v for b, v in c.items()}
                                       for s, c in curve.items()},
            "unbounded": kp, "figure": path}, handle, indent=1)
    print(f"\nJSON: {args.json}" + (f"; figure: {path}" if path else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
