"""Gram-matrix throughput of the kernel routines, with ratios measured side by side in one run.

    python bench/bench_kernels.py [--quick] [--repeat N] [--json PATH] [--conjunction-only]

Conjunction kernel: popcount(a AND b) Gram, 2000 x 2000 rows at 64, 1024 and 4096 bits, in
pairs per second on one thread, for the C twin on every compiled popcount path this CPU
supports (the default one is chosen at run time), into int64 and int32 out, for two matrices
("A x B": every pair is computed) and for a set with itself ("A x A": half the pairs, mirrored,
where that pays); numpy (``np.bitwise_count`` on A & B, chunked to bounded memory; numpy >= 2
only, "n/a" on older numpy) and the Python twin (timed on a small slice and scaled to pairs per
second) for reference; the goals as PASS/MISS with ratios; and 2 threads against 1. Timings
are the best of --repeat rounds, each round timing every variant once, so a noisy moment hits
them all alike.
Poly and RBF: 2000 x 2000 rows of 1024 features against scikit-learn's pairwise kernels
(when installed), ours at one thread and at every core (n_jobs=-1). The float products alone
(d = 64, 256, 1024) on one thread, on every product path and the unpacked loop, against
OpenBLAS's dgemm on one thread; and the polynomial and RBF Grams with each library at its
defaults (every core for both), in a process without this script's one-thread BLAS setting.
--float-only runs the float parts alone.
Then a big set, 20000 x 20000 at 1024 bits (--large-rows), whose output is gigabytes: every out
type, one thread and every core, next to writing the output alone (goal: 6e8 pairs/s).
Goal: the conjunction Gram at 1024 bits >= 20x numpy. Tests never assert on time; this does not
either, it reports. Single-threaded BLAS, like the rest of bench/.
"""
import os

_ONE_THREAD = [_var for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                  "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                                  "NUMEXPR_NUM_THREADS") if _var not in os.environ]
for _var in _ONE_THREAD:
    os.environ[_var] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c._core import _gram_py as P  # noqa: E402
from perceptron_c.kernels import gram  # noqa: E402

try:
    from perceptron_c._core import _gram_c as C
except ImportError as exc:
    sys.exit(f"bench_kernels: the compiled module perceptron_c._core._gram_c is missing ({exc})")

try:
    import sklearn
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
except ImportError:
    sklearn = None

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "results", "kernels.json")
GOAL_KP_VS_PYTHON = 50
GOAL_1024_VS_NUMPY = 20.0
# (path, bits, pairs/s on one thread, 2000 x 2000): the goals of the register-blocked kernels
GOALS_PAIRS = [("avx512", 1024, 1.8e9), ("avx512", 4096, 1.5e9), ("avx512", 64, 4.0e9),
               ("avx2", 1024, 4.5e8), ("popcnt", 1024, 3.0e8)]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def best_time(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def best_times(fns, repeat, sample=0.02, record=None):
    """{name: best time of one call} over repeat rounds, each round timing every fn once (as
    many calls as fill about `sample` seconds, after a warm-up round that counts them), so
    that a noisy moment hits every variant alike. record: a dict that gets every round's
    time of each fn (name: list), for ratios taken round by round."""
    best, calls = {}, {}
    for round_ in range(repeat + 1):
        for name, fn in fns.items():
            k = calls.get(name, 1)
            t = time.perf_counter()
            for _ in range(k):
                fn()
            t = (time.perf_counter() - t) / k
            if round_:
                best[name] = min(best.get(name, t), t)
                if record is not None:
                    record.setdefault(name, []).append(t)
            else:
                calls[name] = max(1, int(sample / t))
    return best


# The numpy baseline is np.bitwise_count (numpy >= 2.0). The package runs on numpy 1.23, and
# so does this script: there the baseline is not timed (a stand-in would change what the goal
# compares with), and a byte lookup table gives the Gram that checks the C paths.
HAVE_BITWISE_COUNT = hasattr(np, "bitwise_count")
_BYTE_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def numpy_popcount_gram(A, B, out, budget=32 << 20):
    rows = max(1, budget // max(1, B.nbytes))
    for i in range(0, A.shape[0], rows):
        both = A[i:i + rows, None, :] & B[None, :, :]
        if HAVE_BITWISE_COUNT:
            out[i:i + rows] = np.bitwise_count(both).sum(-1)
        else:
            out[i:i + rows] = _BYTE_POPCOUNT[both.view(np.uint8)].sum(-1)


def kernel_perceptron_training(rng, n, d=20, epochs=5):
    """Kernel perceptron training on n points: whole KernelPerceptron.fit, and its epochs
    alone (the dual routines on a precomputed RBF Gram), C core vs Python twin.

    A fit includes the Gram, which is the same numpy code on both twins, so the ratio of the
    training epochs themselves is measured on the routines, from the same start."""
    from perceptron_c import KernelPerceptron, _backend
    from perceptron_c._core import _dual_c, _dual_py

    X = rng.normal(size=(n, d))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    signs = np.where(y == 1, 1.0, -1.0)
    G = gram(X, kernel="rbf", gamma=0.5)
    orders = [np.random.default_rng(e).permutation(n).astype(np.int64) for e in range(epochs)]
    print(f"\nkernel perceptron (RBF), {n} points x {d}, {epochs} epochs, seconds")
    print(f"{'what':>26} {'C':>8} {'Python':>9} {'ratio':>7}")
    rows = []

    def cached(mod):
        alpha, b, scores = np.zeros(n), np.zeros(1), np.zeros(n)
        return [mod.dual_epoch_cached(G, signs, o, alpha, b, scores, True) for o in orders]

    def streamed(mod):
        alpha, b = np.zeros(n), np.zeros(1)
        total = []
        for o in orders:
            total.append(sum(mod.dual_epoch_rows(K, r, signs, alpha, b, True)
                             for r, K in blocks[id(o)]))
        return total

    block = 500  # rows of kernel values per call, as the streaming mode computes them
    blocks = {id(o): [(o[s:s + block], np.ascontiguousarray(G[o[s:s + block]]))
                      for s in range(0, n, block)] for o in orders}
    for name, fn in (("epochs, cached scores", cached), ("epochs, kernel rows", streamed)):
        t, m = {}, {}
        for key, mod in (("c", _dual_c), ("python", _dual_py)):
            tic = time.perf_counter()
            m[key] = fn(mod)
            t[key] = time.perf_counter() - tic
        assert m["c"] == m["python"]
        rows.append({"what": name, "c_s": t["c"], "python_s": t["python"],
                     "ratio": t["python"] / t["c"], "mistakes": m["c"]})
    t = {}
    for backend in ("c", "python"):
        with _backend.using(backend):
            model = KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=epochs, random_state=0)
            tic = time.perf_counter()
            model.fit(X, y)
            t[backend] = time.perf_counter() - tic
    rows.append({"what": "KernelPerceptron.fit (+Gram)", "c_s": t["c"], "python_s": t["python"],
                 "ratio": t["python"] / t["c"]})
    for row in rows:
        print(f"{row['what']:>26} {row['c_s']:>8.3f} {row['python_s']:>9.3f} "
              f"{row['ratio']:>6.0f}x")
    ratio = rows[0]["ratio"]
    print(f"goal: training epochs >= {GOAL_KP_VS_PYTHON}x the Python twin: got {ratio:.0f}x "
          f"({'met' if ratio >= GOAL_KP_VS_PYTHON else 'NOT met'})")
    return rows


# The goals of the float products (issue 38): the products alone on one thread against
# OpenBLAS's dgemm on one thread, and the polynomial and RBF Grams at their defaults against
# scikit-learn's at its own (BLAS on every core).
GOAL_PRODUCTS_VS_DGEMM = 0.9
GOAL_DEFAULTS_VS_SKLEARN = 1.0


def products(results, rng, n, repeat):
    """The float Gram's products alone, X . Y^T of n x n rows, one thread, on every product
    path this CPU has (packed, and the unpacked loop on the default path) against OpenBLAS's
    X @ Y.T on one thread, side by side in each round."""
    paths = [p for p in C._dot_paths() if p != "portable"]
    default = paths[-1]
    print(f"\nfloat products alone, {n} x {n}, one thread, GF/s (x OpenBLAS dgemm, one thread)")
    print(f"{'d':>6} " + " ".join(f"{p:>16}" for p in paths) + f" {default + ' unpacked':>20}"
          f" {'dgemm':>8}")
    rows = []
    for d in (64, 256, 1024):
        X, Y = rng.normal(size=(n, d)), rng.normal(size=(n, d))
        out = np.empty((n, n))

        def ours(path, packed):
            def fn():
                C._set_dot_path(path)
                C._set_dot_packing(packed)
                C._products(X, Y, out, 1)
            return fn
        fns = {p: ours(p, True) for p in paths}
        fns["unpacked"] = ours(default, False)
        fns["dgemm"] = lambda: X @ Y.T
        best = best_times(fns, repeat)
        C._set_dot_path(default)
        C._set_dot_packing(True)
        flops = 2.0 * n * n * d
        row = {"d": d, **{f"{k}_gflops": flops / v / 1e9 for k, v in best.items()},
               **{f"{k}_over_dgemm": best["dgemm"] / v for k, v in best.items()}}
        rows.append(row)
        cells = [f"{flops / best[p] / 1e9:>9.1f} ({best['dgemm'] / best[p]:.2f}x)"
                 for p in paths + ["unpacked"]]
        print(f"{d:>6} " + " ".join(cells) + f" {flops / best['dgemm'] / 1e9:>8.1f}")
    worst = min(r[f"{default}_over_dgemm"] for r in rows)
    print(f"goal: products >= {GOAL_PRODUCTS_VS_DGEMM}x dgemm on one thread ({default}): worst "
          f"{worst:.2f}x ({'met' if worst >= GOAL_PRODUCTS_VS_DGEMM else 'NOT met'})")
    results["products"] = rows


_DEFAULTS_SCRIPT = """
import json, sys, time
import numpy as np
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from perceptron_c.kernels import gram
n, repeat = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
rows = []
for d in (64, 256, 1024):
    X = rng.normal(size=(n, d))
    fns = {("poly", "sklearn"): lambda: polynomial_kernel(X, degree=3),
           ("poly", "ours"): lambda: gram(X, kernel="poly", degree=3, gamma=1 / d, coef0=1.0),
           ("rbf", "sklearn"): lambda: rbf_kernel(X),
           ("rbf", "ours"): lambda: gram(X, kernel="rbf", gamma=1 / d)}
    best = {k: float("inf") for k in fns}
    # each variant repeat times in a row (OpenBLAS's threads spin a while after a call and
    # would take a core from a variant timed right after it), in two rounds
    for _ in range(2):
        for k, fn in fns.items():
            for _ in range(repeat):
                t = time.perf_counter(); fn(); best[k] = min(best[k], time.perf_counter() - t)
    for kernel in ("poly", "rbf"):
        rows.append({"d": d, "kernel": kernel, "sklearn_s": best[(kernel, "sklearn")],
                     "ours_s": best[(kernel, "ours")]})
print(json.dumps(rows))
"""


def defaults_vs_sklearn(results, n, repeat):
    """The polynomial and RBF Grams of n rows, each library at its defaults (scikit-learn:
    BLAS on every core; ours: every core), in a process of their own without this script's
    one-thread BLAS settings."""
    import subprocess

    if sklearn is None:
        print("\n(scikit-learn not installed: no comparison at the defaults)")
        return
    env = {k: v for k, v in os.environ.items() if k not in _ONE_THREAD}
    done = subprocess.run([sys.executable, "-c", _DEFAULTS_SCRIPT, str(n), str(repeat)],
                          env=env, capture_output=True, text=True, check=True)
    rows = json.loads(done.stdout)
    print(f"\npolynomial (degree 3) and RBF Grams of {n} rows, each library at its defaults "
          f"({os.cpu_count()} cores), seconds")
    print(f"{'d':>6} {'kernel':>7} {'sklearn':>9} {'ours':>9} {'sk/ours':>8}")
    for row in rows:
        row["sklearn_over_ours"] = row["sklearn_s"] / row["ours_s"]
        print(f"{row['d']:>6} {row['kernel']:>7} {row['sklearn_s']:>9.4f} {row['ours_s']:>9.4f} "
              f"{row['sklearn_over_ours']:>7.2f}x")
    worst = min(r["sklearn_over_ours"] for r in rows)
    print(f"goal: >= {GOAL_DEFAULTS_VS_SKLEARN}x scikit-learn at the defaults: worst {worst:.2f}x "
          f"({'met' if worst >= GOAL_DEFAULTS_VS_SKLEARN else 'NOT met'})")
    results["defaults_vs_sklearn"] = rows


CASES = [("int64", "A x B"), ("int32", "A x B"), ("int64", "A x A"), ("int32", "A x A")]


def conjunction(results, rng, n, impls, default_impl, repeat):
    """Every path x out type x (A x B, A x A) at 64, 1024 and 4096 bits, numpy and the Python
    twin for reference, the goals, and 2 threads against 1."""
    print(f"\nconjunction Gram popcount(a AND b), {n} x {n}, one thread, Mpairs/s (higher is "
          f"better)\n  A x B: two matrices, every pair computed\n  A x A: a set with itself "
          f"(half the pairs, mirrored, where that pays)")
    print(f"{'bits':>6} {'out':>6} {'case':>6} " + " ".join(f"{'C ' + i:>9}" for i in impls) +
          f" {'numpy':>9} {'python':>9} {'C/numpy':>8} {'C/python':>9}")
    threads = []
    for n_bits in (64, 1024, 4096):
        X = (rng.random((n, n_bits)) < 0.5).astype(np.uint8)
        A = np.empty((n, (n_bits + 63) // 64), dtype=np.uint64)
        C.pack_rows(X, A)
        B = A.copy()
        outs = {dtype: np.empty((n, n), dtype=dtype) for dtype in ("int64", "int32")}

        def run(impl, dtype, case, n_jobs=None):
            def fn():
                C.set_popcount_impl(impl)
                C.gram_conjunction_log2(A, A if case == "A x A" else B, outs[dtype],
                                        n_jobs=n_jobs)
            return fn
        fns = {}
        for impl in impls:
            for dtype, case in CASES:
                fns[(impl, dtype, case)] = run(impl, dtype, case)
                if (impl, dtype, case) == (default_impl, "int64", "A x B") and \
                        (os.cpu_count() or 1) >= 2:
                    fns["2 threads"] = run(impl, dtype, case, 2)  # timed right after 1 thread
        ref = np.empty((n, n), dtype=np.int64)
        if HAVE_BITWISE_COUNT:
            fns["numpy"] = lambda: numpy_popcount_gram(A, B, ref)
        else:
            numpy_popcount_gram(A, B, ref)
        try:
            rounds = {}
            best = best_times(fns, repeat, record=rounds)
            check = np.empty((n, n), dtype=np.int64)
            C.set_popcount_impl(default_impl)
            C.gram_conjunction_log2(A, B, check)
            assert np.array_equal(ref, check)
            for impl in impls:  # every path, out type and case gives the same Gram
                C.set_popcount_impl(impl)
                for dtype, case in CASES:
                    C.gram_conjunction_log2(A, A if case == "A x A" else B, outs[dtype])
                    assert np.array_equal(outs[dtype], check), (impl, dtype, case)
        finally:
            C.set_popcount_impl(default_impl)
        m = 40 if n_bits <= 1024 else 16
        small = np.empty((m, m), dtype=np.int64)
        t_py = best_times({"python": lambda: P.gram_conjunction_log2(A[:m], B[:m], small)}, 1)
        assert np.array_equal(small, check[:m, :m])
        py = m * m / t_py["python"]
        npy = n * n / best["numpy"] if HAVE_BITWISE_COUNT else float("nan")
        for dtype, case in CASES:
            row = {"bits": n_bits, "out": dtype, "case": case}
            row.update({f"c_{impl}": n * n / best[(impl, dtype, case)] for impl in impls})
            line = f"{n_bits:>6} {dtype:>6} {case:>6} " + " ".join(
                f"{row['c_' + i] / 1e6:>9.1f}" for i in impls)
            if (dtype, case) == ("int64", "A x B"):
                c = row[f"c_{default_impl}"]
                row.update(numpy=npy, python=py, c_vs_numpy=c / npy, c_vs_python=c / py)
                if not HAVE_BITWISE_COUNT:  # JSON has no NaN
                    row.update(numpy=None, c_vs_numpy=None)
                if HAVE_BITWISE_COUNT:
                    line += f" {npy / 1e6:>9.2f} {py / 1e6:>9.4f} {c / npy:>7.1f}x "
                else:
                    line += f" {'n/a':>9} {py / 1e6:>9.4f} {'n/a':>8} "
                line += f"{c / py:>8.0f}x"
            results["conjunction"].append(row)
            print(line)
        if "2 threads" in best:
            key = (default_impl, "int64", "A x B")
            one = best[key]
            # the two are timed one after the other in each round: the median of the rounds'
            # ratios shrugs off a round where the other vCPU was busy, which best-of cannot
            paired = float(np.median(np.array(rounds[key]) / np.array(rounds["2 threads"])))
            threads.append({"bits": n_bits, "impl": default_impl, "one_thread_s": one,
                            "two_threads_s": best["2 threads"],
                            "ratio": one / best["2 threads"], "paired_median": paired})
    rows = results["conjunction"]
    r1024 = next(r for r in rows if r["bits"] == 1024 and "c_vs_numpy" in r)["c_vs_numpy"]
    if r1024 is None:
        results["goal_1024_vs_numpy"] = {"goal": GOAL_1024_VS_NUMPY, "got": None, "met": None}
        print(f"goal: C / numpy at 1024 bits >= {GOAL_1024_VS_NUMPY}x: not measured "
              f"(np.bitwise_count needs numpy >= 2.0; this is numpy {np.__version__})")
    else:
        results["goal_1024_vs_numpy"] = {"goal": GOAL_1024_VS_NUMPY, "got": r1024,
                                         "met": bool(r1024 >= GOAL_1024_VS_NUMPY)}
        print(f"goal: C / numpy at 1024 bits >= {GOAL_1024_VS_NUMPY}x: got {r1024:.1f}x "
              f"({'met' if r1024 >= GOAL_1024_VS_NUMPY else 'NOT met'})")

    print("\ngoals, pairs/s on one thread: 'A x B' is every pair into int64 (the like-for-like "
          "case),\n'best' the fastest of int64/int32 out and A x B/A x A")
    print(f"{'path':>8} {'bits':>5} {'goal':>10} {'A x B':>10} {'ratio':>6} {'':>5} "
          f"{'best':>10} {'ratio':>6} {'':>5}  of")
    results["goals"] = []
    for impl, n_bits, goal in GOALS_PAIRS:
        at_least = f">= {goal:.1e}"
        if impl not in impls:
            print(f"{impl:>8} {n_bits:>5} {at_least:>10}   (path not on this CPU)")
            continue
        got = {(r["out"], r["case"]): r[f"c_{impl}"] for r in rows if r["bits"] == n_bits}
        plain = got[("int64", "A x B")]
        which = max(got, key=got.get)
        results["goals"].append({"impl": impl, "bits": n_bits, "goal": goal,
                                 "int64_a_x_b": plain, "best": got[which],
                                 "best_of": " ".join(which),
                                 "met_a_x_b": bool(plain >= goal),
                                 "met_best": bool(got[which] >= goal)})
        print(f"{impl:>8} {n_bits:>5} {at_least:>10} {plain:>10.2e} {plain / goal:>6.2f} "
              f"{'PASS' if plain >= goal else 'MISS':>5} {got[which]:>10.2e} "
              f"{got[which] / goal:>6.2f} {'PASS' if got[which] >= goal else 'MISS':>5}  "
              f"{' '.join(which)}")
    results["threads"] = threads
    for t in threads:
        print(f"{t['impl']:>8} {t['bits']:>5} {'2 threads / 1 (int64 A x B)':>28} "
              f"{t['ratio']:>5.2f}x best / best, {t['paired_median']:.2f}x median of the "
              f"rounds' ratios")
    if not threads:
        print("2 threads / 1: not measured (one CPU)")


GOAL_LARGE = 6e8  # pairs/s, 20000 x 20000 at 1024 bits (issue 10)


def large(results, rng, n, repeat):
    """The Gram of a big set at 1024 bits (10% ones), whose output no cache holds: every out
    type, A x B and A x A, on one thread and on every core, next to the time of writing the
    output alone (out.fill: the limit when writing is the cost)."""
    A = np.empty((n, 16), dtype=np.uint64)
    for start in range(0, n, 4096):
        rows = min(n, start + 4096) - start
        C.pack_rows((rng.random((rows, 1024)) < 0.1).astype(np.uint8), A[start:start + rows])
    B = A.copy()
    cores = os.cpu_count() or 1
    print(f"\nconjunction Gram, {n} x {n} at 1024 bits (10% ones), pairs/s (higher is better);"
          f" 'write only': out.fill, the output's own limit")
    print(f"{'out':>6} {'GB out':>7} {'write only':>11} " + " ".join(
        f"{case + ', ' + str(t):>13}" for case in ("A x B", "A x A") for t in (1, cores)))
    rows = []
    for dtype in ("int16", "int32", "int64"):
        out = np.empty((n, n), dtype=dtype)
        fns = {"fill": lambda out=out: out.fill(0)}
        for case in ("A x B", "A x A"):
            for t in (1, cores):
                fns[(case, t)] = (lambda case=case, t=t, out=out: C.gram_conjunction_log2(
                    A, A if case == "A x A" else B, out, n_jobs=t))
        best = best_times(fns, repeat)
        row = {"out": dtype, "rows": n, "gb_out": out.nbytes / 1e9,
               "write_only": n * n / best["fill"]}
        row.update({f"{case}, {t} threads": n * n / best[(case, t)]
                    for case in ("A x B", "A x A") for t in (1, cores)})
        print(f"{dtype:>6} {row['gb_out']:>7.2f} {row['write_only']:>11.3g} " + " ".join(
            f"{row[f'{case}, {t} threads']:>13.3g}" for case in ("A x B", "A x A")
            for t in (1, cores)))
        rows.append(row)
        del out, fns  # the next out type's array in its place
    top = max(v for r in rows for k, v in r.items() if k.endswith("threads"))
    results["large"] = {"rows": rows, "goal": GOAL_LARGE, "best": top,
                        "met": bool(top >= GOAL_LARGE)}
    print(f"goal: >= {GOAL_LARGE:.1e} pairs/s (best of out types, cases and threads): got "
          f"{top:.3g} ({'PASS' if top >= GOAL_LARGE else 'MISS'})")


def write(results, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
    print(f"\nwrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="500 rows instead of 2000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default=DEFAULT_JSON)
    ap.add_argument("--large-rows", type=int, default=20000,
                    help="rows of the big conjunction Gram (out int64: 8 x rows^2 bytes)")
    ap.add_argument("--conjunction-only", action="store_true",
                    help="only the popcount Gram (no float Gram, no kernel perceptron)")
    ap.add_argument("--float-only", action="store_true",
                    help="only the float Grams (no popcount Gram, no kernel perceptron)")
    args = ap.parse_args()
    n = 500 if args.quick else 2000
    rng = np.random.default_rng(0)
    impls = C.available_popcount_impls()
    default_impl = C.popcount_impl()
    print(f"CPU: {cpu_model()}   python {platform.python_version()}   numpy {np.__version__}"
          f"   perceptron_c {perceptron_c.__version__}")
    print(f"popcount paths available: {', '.join(impls)}; default: {default_impl}")
    results = {"cpu": cpu_model(), "machine": platform.machine(), "numpy": np.__version__,
               "python": platform.python_version(), "n": n, "default_impl": default_impl,
               "date": datetime.datetime.now().isoformat(timespec="seconds"),
               "conjunction": [], "float": []}

    results["dot_paths"] = list(C._dot_paths())
    if not args.float_only:
        conjunction(results, rng, n, impls, default_impl, args.repeat)
        large(results, rng, 3000 if args.quick else args.large_rows, max(1, args.repeat // 2))
    if args.conjunction_only:
        write(results, args.json)
        return
    products(results, rng, n, args.repeat)
    defaults_vs_sklearn(results, n, args.repeat)

    print(f"\nfloat Gram, {n} x {n} rows of 1024 features, seconds (lower is better)")
    Xf = rng.normal(size=(n, 1024))
    cases = [("linear", dict(kernel="linear"), lambda: Xf @ Xf.T),  # the products alone
             ("poly", dict(kernel="poly", degree=3, gamma=1 / 1024, coef0=1.0),
              (lambda: polynomial_kernel(Xf, degree=3, gamma=1 / 1024, coef0=1.0))
              if sklearn else None),
             ("rbf", dict(kernel="rbf", gamma=1 / 1024),
              (lambda: rbf_kernel(Xf, gamma=1 / 1024)) if sklearn else None)]
    print("  (scikit-learn and linear's X @ X.T: BLAS on one thread; ours: no BLAS, the 4-lane "
          "dots; 'all': n_jobs=-1, products and the rest on every core)")
    print(f"{'kernel':>8} {'ours, 1':>9} {'ours, all':>10} {'1/all':>6} {'sklearn':>9} "
          f"{'sk/ours1':>9} {'sk/all':>7}")
    for name, params, sk in cases:
        ours = best_time(lambda: gram(Xf, n_jobs=1, **params), args.repeat)
        ours_all = best_time(lambda: gram(Xf, n_jobs=-1, **params), args.repeat)
        theirs = best_time(sk, args.repeat) if sk else float("nan")
        assert np.array_equal(gram(Xf, n_jobs=1, **params), gram(Xf, n_jobs=-1, **params))
        if sk:
            np.testing.assert_allclose(gram(Xf, **params), sk(), rtol=1e-9, atol=1e-12)
        results["float"].append({"kernel": name, "perceptron_c_s": ours,
                                 "perceptron_c_all_s": ours_all, "sklearn_s": theirs,
                                 "sklearn_over_ours": theirs / ours,
                                 "sklearn_over_ours_all": theirs / ours_all})
        print(f"{name:>8} {ours:>9.4f} {ours_all:>10.4f} {ours / ours_all:>5.2f}x "
              f"{theirs:>9.4f} {theirs / ours:>8.2f}x {theirs / ours_all:>6.2f}x")

    if not args.float_only:
        results["kernel_perceptron"] = kernel_perceptron_training(rng, 1000 if args.quick
                                                                  else 5000)

    write(results, args.json)


if __name__ == "__main__":
    main()
