"""Gram-matrix throughput of the kernel routines, with ratios measured side by side in one run.

    python bench/bench_kernels.py [--quick] [--repeat N] [--json PATH]

Conjunction kernel: popcount(a AND b) Gram, 2000 x 2000 rows at 64, 1024 and 4096 bits, in
pairs per second, for the C twin (every compiled popcount path this CPU supports; the default
one is chosen at run time), numpy (``np.bitwise_count`` on A & B, chunked to bounded memory)
and the Python twin (timed on a small slice and scaled to pairs per second); under 4 words a
row the vector paths hand over to POPCNT, so at 64 bits those columns time the same code.
Poly and RBF: 2000 x 2000 rows of 1024 features against scikit-learn's pairwise kernels
(when installed).
Goal: the conjunction Gram at 1024 bits >= 20x numpy. Tests never assert on time; this does not
either, it reports. Single-threaded BLAS, like the rest of bench/.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
             "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import _kernels_py as P  # noqa: E402
from perceptron_c.kernels import gram  # noqa: E402

try:
    from perceptron_c import _kernels_c as C
except ImportError as exc:
    sys.exit(f"bench_kernels: the compiled module perceptron_c._kernels_c is missing ({exc})")

try:
    import sklearn
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
except ImportError:
    sklearn = None

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "results", "kernels.json")
GOAL_KP_VS_PYTHON = 50
GOAL_1024_VS_NUMPY = 20.0


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


def numpy_popcount_gram(A, B, out, budget=32 << 20):
    rows = max(1, budget // max(1, B.nbytes))
    for i in range(0, A.shape[0], rows):
        out[i:i + rows] = np.bitwise_count(A[i:i + rows, None, :] & B[None, :, :]).sum(-1)


def kernel_perceptron_training(rng, n, d=20, epochs=5):
    """Kernel perceptron training on n points: whole KernelPerceptron.fit, and its epochs
    alone (the dual routines on a precomputed RBF Gram), C core vs Python twin.

    A fit includes the Gram, which is the same numpy code on both twins, so the ratio of the
    training epochs themselves is measured on the routines, from the same start."""
    from perceptron_c import KernelPerceptron, _backend, _dual_c, _dual_py

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="500 rows instead of 2000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=DEFAULT_JSON)
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

    print(f"\nconjunction Gram popcount(a AND b), {n} x {n}, Mpairs/s (higher is better)")
    head = f"{'bits':>6} " + " ".join(f"{'C ' + i:>12}" for i in impls) + \
        f" {'numpy':>10} {'python':>10} {'C/numpy':>8} {'C/python':>9}"
    print(head)
    for n_bits in (64, 1024, 4096):
        X = (rng.random((n, n_bits)) < 0.5).astype(np.uint8)
        A = np.empty((n, (n_bits + 63) // 64), dtype=np.uint64)
        C.pack_rows(X, A)
        out = np.empty((n, n), dtype=np.int64)
        row = {"bits": n_bits}
        try:
            for impl in impls:
                C.set_popcount_impl(impl)
                row[f"c_{impl}"] = n * n / best_time(lambda: C.gram_conjunction_log2(A, A, out),
                                                     args.repeat)
        finally:
            C.set_popcount_impl(default_impl)
        check = out.copy()
        C.gram_conjunction_log2(A, A, check)
        if hasattr(np, "bitwise_count"):
            ref = np.empty_like(out)
            row["numpy"] = n * n / best_time(lambda: numpy_popcount_gram(A, A, ref),
                                             max(1, args.repeat - 1))
            assert np.array_equal(ref, check)
        else:
            row["numpy"] = float("nan")
        m = 40 if n_bits <= 1024 else 16
        small = np.empty((m, m), dtype=np.int64)
        row["python"] = m * m / best_time(lambda: P.gram_conjunction_log2(A[:m], A[:m], small), 1)
        assert np.array_equal(small, check[:m, :m])
        c = row[f"c_{default_impl}"]
        row["c_vs_numpy"] = c / row["numpy"]
        row["c_vs_python"] = c / row["python"]
        results["conjunction"].append(row)
        print(f"{n_bits:>6} " + " ".join(f"{row['c_' + i] / 1e6:>12.1f}" for i in impls) +
              f" {row['numpy'] / 1e6:>10.2f} {row['python'] / 1e6:>10.4f} "
              f"{row['c_vs_numpy']:>7.1f}x {row['c_vs_python']:>8.0f}x")
    r1024 = next(r for r in results["conjunction"] if r["bits"] == 1024)["c_vs_numpy"]
    results["goal_1024_vs_numpy"] = {"goal": GOAL_1024_VS_NUMPY, "got": r1024,
                                     "met": bool(r1024 >= GOAL_1024_VS_NUMPY)}
    print(f"goal: C / numpy at 1024 bits >= {GOAL_1024_VS_NUMPY}x: got {r1024:.1f}x "
          f"({'met' if r1024 >= GOAL_1024_VS_NUMPY else 'NOT met'})")

    print(f"\nfloat Gram, {n} x {n} rows of 1024 features, seconds (lower is better)")
    Xf = rng.normal(size=(n, 1024))
    cases = [("poly", dict(kernel="poly", degree=3, gamma=1 / 1024, coef0=1.0),
              (lambda: polynomial_kernel(Xf, degree=3, gamma=1 / 1024, coef0=1.0))
              if sklearn else None),
             ("rbf", dict(kernel="rbf", gamma=1 / 1024),
              (lambda: rbf_kernel(Xf, gamma=1 / 1024)) if sklearn else None)]
    print(f"{'kernel':>8} {'perceptron_c':>13} {'sklearn':>10} {'sk/ours':>8}")
    for name, params, sk in cases:
        ours = best_time(lambda: gram(Xf, **params), args.repeat)
        theirs = best_time(sk, args.repeat) if sk else float("nan")
        if sk:
            np.testing.assert_allclose(gram(Xf, **params), sk(), rtol=1e-9, atol=1e-12)
        results["float"].append({"kernel": name, "perceptron_c_s": ours, "sklearn_s": theirs,
                                 "sklearn_over_ours": theirs / ours})
        print(f"{name:>8} {ours:>13.4f} {theirs:>10.4f} {theirs / ours:>7.2f}x")

    results["kernel_perceptron"] = kernel_perceptron_training(rng, 1000 if args.quick else 5000)

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=2)
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
