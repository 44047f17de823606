"""Per-epoch time of the linear routines, with ratios measured side by side in one run.

    python bench/bench_linear.py [--quick] [--repeat N] [--json PATH]

Run it from a directory where the in-repo ``perceptron_c/`` cannot shadow the installed
package (the script's own directory, ``bench/``, is what lands on ``sys.path``, so
``python bench/bench_linear.py`` from the repo root imports the installed package too,
unless the repo was installed editable or in place).

Every case runs one epoch per round; the rounds interleave all cases (in a fresh random
order each round) so that machine noise hits every case alike, and each case reports the
median (and the min) over ``--repeat`` rounds. Each case keeps its own model state across
rounds, after one untimed warm-up epoch, so the timed epochs are the steady, non-separable
epochs of a perceptron on noisy data. See bench/README.md for the goals and how to read the table.
"""
import os

# The epoch is one thread, so the memory floor (X @ w) is measured on one thread too.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
             "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

try:
    import scipy
    import scipy.sparse as sp
except ImportError:  # numpy-only run: no sparse X @ w floor, no sklearn CSR baseline
    scipy = sp = None

try:
    import sklearn
    from sklearn.linear_model import Perceptron, SGDClassifier
except ImportError:
    sklearn = None

try:
    import perceptron_c
    from perceptron_c._core import _linear_c as C
    from perceptron_c._core import _linear_py as P
    from perceptron_c._core import _order_c as ORDER
    from perceptron_c._utils._threads import effective_n_jobs
except ImportError as exc:  # not installed, or a pure install: nothing to compare
    sys.exit(f"bench_linear: cannot import perceptron_c with its compiled module ({exc}); "
             "install the package with its extension (without PERCEPTRON_C_NO_EXTENSIONS).")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "results", "linear.json")

# Goal thresholds (bench/README.md says what each one means).
DENSE_VS_FLOOR = 1.3      # dense unshuffled epoch <= 1.3 x the X @ w pass
DENSE_VS_SKLEARN = 1.5    # dense unshuffled epoch >= 1.5 x faster than sklearn
CSR_VS_SKLEARN = 1.0      # CSR epoch at least as fast as sklearn
SHUFFLED_VS_PLAIN = 2.5   # shuffled epoch <= 2.5 x the unshuffled one
AVERAGED_VS_PLAIN = 1.3   # averaged epoch <= 1.3 x the plain one


# --------------------------------------------------------------------------------------------
# environment

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"],
                                 capture_output=True, text=True, timeout=5).stdout.strip()
            if out:
                return out
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown"


def backend_name():
    name = getattr(perceptron_c, "BACKEND", None)
    if name is None:
        try:
            from perceptron_c._backend import BACKEND as name
        except ImportError:
            name = "unknown"
    return name


def environment(args, sizes):
    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__ if scipy else None,
        "sklearn": sklearn.__version__ if sklearn else None,
        "perceptron_c_backend": backend_name(),
        "perceptron_c_file": os.path.dirname(os.path.abspath(C.__file__)),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick,
        "repeat": args.repeat,
        "seed": args.seed,
        "sizes": sizes,
    }


# --------------------------------------------------------------------------------------------
# data

def noisy_labels(scores, noise, rng):
    """Labels of a random hyperplane, a fraction ``noise`` of them flipped (float64 +-1)."""
    y = np.where(scores > 0.0, 1.0, -1.0)
    flip = rng.random(y.shape[0]) < noise
    y[flip] = -y[flip]
    return y


def make_dense(n, d, noise, rng):
    X = rng.standard_normal((n, d))
    w_true = rng.standard_normal(d)
    return X, noisy_labels(X @ w_true, noise, rng)


def random_row_indices(n, d, nnz, rng):
    """(n, nnz) int32 column indices, each row sorted, distinct and uniform over the subsets.

    Rejection: rows with a repeated column are drawn again (about nnz^2/2d of them), which
    keeps every nnz-subset equally likely.
    """
    cols = np.sort(rng.integers(0, d, size=(n, nnz)), axis=1)
    bad = np.flatnonzero((np.diff(cols, axis=1) == 0).any(axis=1))
    while bad.size:
        redo = np.sort(rng.integers(0, d, size=(bad.size, nnz)), axis=1)
        cols[bad] = redo
        bad = bad[(np.diff(redo, axis=1) == 0).any(axis=1)]
    return cols.astype(np.int32)


def make_csr(n, d, nnz, noise, rng):
    indices = random_row_indices(n, d, nnz, rng).ravel()
    data = rng.standard_normal(n * nnz)
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int64)
    w_true = rng.standard_normal(d)
    scores = np.add.reduceat(data * w_true[indices], indptr[:-1])
    return data, indices, indptr, noisy_labels(scores, noise, rng)


# --------------------------------------------------------------------------------------------
# cases: each is an object with epoch() -> mistakes (or None), timed by the runner

class Case:
    """One timed workload; ``epoch`` runs one epoch and returns its mistake count (or None)."""

    def __init__(self, name, kind, epoch, rows, scale=1.0, note="", prepare=None, fixed=None):
        self.name, self.kind, self.epoch = name, kind, epoch
        self.rows = rows        # rows visited per epoch (for the mistake rate)
        self.scale = scale      # multiplies the per-row time (Python twin on a slice)
        self.note = note
        self.prepare = prepare  # untimed, before each epoch
        self.fixed = fixed      # the same call on 0 rows: its per-call cost, not scaled
        self.times, self.mistakes = [], []


def ours(module, layout, averaged, shuffled, arrays, y, d, seed):
    """(epoch closure, its model state) for one of the four routines, from a zero model."""
    n = y.shape[0]
    w, b = np.zeros(d), np.zeros(1)
    u, beta, count = np.zeros(d), np.zeros(1), np.ones(1, dtype=np.int64)
    state = (w, b, u, beta, count)
    order = np.arange(n, dtype=np.int64)
    epochs = iter(range(2**62))
    fn = getattr(module, f"{'averaged' if averaged else 'perceptron'}_epoch_{layout}")
    head = tuple(arrays) + (y, order, w, b) + ((u, beta, count) if averaged else ())

    def epoch():
        if shuffled:  # a fresh permutation per epoch, drawn in place as a model draws it (timed)
            ORDER.draw_permutation(order, seed, next(epochs))
        return fn(*head, True, False)

    return epoch, state


def copy_state(src, dst):
    """prepare hook: start the twin's epoch from the C model's current state, so that the
    twin's slice sees the C model's realistic mistake rate (a slice of 2000 rows in 100000
    dimensions is separable and would stop making mistakes if trained on its own)."""
    def prepare():
        for a, b in zip(src, dst):
            b[...] = a
    return prepare


def sklearn_epoch(X, y, shuffled, averaged, seed):
    """One sklearn epoch = one ``partial_fit`` call (its input checks included, not the
    finite check: ``assume_finite=True``)."""
    if averaged:
        est = SGDClassifier(loss="perceptron", penalty=None, learning_rate="constant", eta0=1.0,
                            average=True, max_iter=1, tol=None, shuffle=shuffled,
                            random_state=np.random.RandomState(seed))
    else:
        est = Perceptron(max_iter=1, tol=None, shuffle=shuffled,
                         random_state=np.random.RandomState(seed))
    classes = np.array([-1.0, 1.0])
    state = {"first": True}

    def epoch():
        with sklearn.config_context(assume_finite=True), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if state["first"]:
                est.partial_fit(X, y, classes=classes)
                state["first"] = False
            else:
                est.partial_fit(X, y)
        return None

    return epoch


def shuffle_only(n, seed, numpy_generator=False):
    """The permutation draw alone: the models' (draw_permutation), or numpy's shuffle."""
    order = np.arange(n, dtype=np.int64)
    rng, epochs = np.random.default_rng(seed), iter(range(2**62))

    def epoch():
        if numpy_generator:
            rng.shuffle(order)
        else:
            ORDER.draw_permutation(order, seed, next(epochs))
        return None
    return epoch


def matvec_epoch(X, w):
    def epoch():
        X @ w
        return None
    return epoch


def matvec_threads_epoch(X, w, threads):
    """X @ w by row halves (thirds, ...) on `threads` threads, BLAS on one thread each: the
    memory floor of a pass on every core (numpy's product releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(threads - 1)
    bounds = [X.shape[0] * k // threads for k in range(threads + 1)]
    parts = [(bounds[k], bounds[k + 1]) for k in range(threads)]

    def epoch():
        futures = [pool.submit(lambda a, z: X[a:z] @ w, a, z) for a, z in parts[1:]]
        X[parts[0][0]:parts[0][1]] @ w
        for f in futures:
            f.result()
        return None
    return epoch


def decision_cases(X, y, d, rng):
    """decision_function of a fitted binary model on X: ours at 1 thread and every core,
    scikit-learn's (X @ coef.T through its BLAS, one thread here)."""
    w, b = rng.standard_normal(d), rng.standard_normal(1)
    cases = {}
    for label, jobs in (("1 thread", None), ("all threads", -1)):
        est = perceptron_c.Perceptron(max_iter=1, n_jobs=jobs).fit(X[:100], y[:100])
        est.coef_, est.intercept_ = w[None, :].copy(), b.copy()
        cases[f"Perceptron.decision_function, {label}"] = _call(est.decision_function, X)
    if sklearn is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = Perceptron(max_iter=1).fit(X[:100], y[:100])
        ref.coef_, ref.intercept_ = w[None, :].copy(), b.copy()
        cases["sklearn Perceptron.decision_function"] = _call(ref.decision_function, X)
    return cases


def _call(fn, X):
    def epoch():
        fn(X)
        return None
    return epoch


def build_cases(args, sizes, rng):
    n, d = sizes["dense_rows"], sizes["dense_features"]
    cn, cd, nnz = sizes["csr_rows"], sizes["csr_features"], sizes["csr_nnz_per_row"]
    m = sizes["python_twin_rows"]
    noise = sizes["label_noise"]
    seeds = iter(range(args.seed + 1, args.seed + 1000))

    t0 = time.perf_counter()
    X, y = make_dense(n, d, noise, rng)
    data, indices, indptr, cy = make_csr(cn, cd, nnz, noise, rng)
    data_gen_s = time.perf_counter() - t0
    Xs = sp.csr_matrix((data, indices, indptr.astype(np.int32)), shape=(cn, cd)) if sp else None
    if Xs is not None:
        Xs.has_sorted_indices = True

    cases = []
    add = cases.append
    states = {}
    dense, csr = (X,), (data, indices, indptr)
    for layout, arrays, yy, dd, rows in (("dense", dense, y, d, n), ("csr", csr, cy, cd, cn)):
        for averaged in (False, True):
            for shuffled in (False, True):
                name = (f"{layout} {'averaged' if averaged else 'plain'} "
                        f"{'shuffled' if shuffled else 'unshuffled'}")
                epoch, states[name] = ours(C, layout, averaged, shuffled, arrays, yy, dd,
                                           next(seeds))
                add(Case(name, "ours", epoch, rows))
    w_floor = rng.standard_normal(d)
    add(Case("dense X @ w (floor)", "floor", matvec_epoch(X, w_floor), n))
    cores = effective_n_jobs(-1)  # the package's count: the cores this process may use
    if cores >= 2:
        add(Case("dense X @ w, every core", "aux", matvec_threads_epoch(X, w_floor, cores), n,
                 note="row blocks of X @ w on every core at once: the memory's own scaling"))
    for name, fn in decision_cases(X, y, d, rng).items():
        add(Case(name, "predict", fn, n, note="the whole call: gate, w.x + b, checks"))
    add(Case("draw_permutation alone", "aux", shuffle_only(n, next(seeds)), n,
             note="the permutation draw, part of every shuffled epoch"))
    add(Case("numpy rng.shuffle(order) alone", "aux", shuffle_only(n, next(seeds), True), n,
             note="numpy's shuffle of the same array, for reference"))
    if Xs is not None:
        add(Case("csr X @ w (floor)", "floor", matvec_epoch(Xs, rng.standard_normal(cd)), cn))
    if sklearn is not None:
        for layout, XX, yy, rows in (("dense", X, y, n), ("csr", Xs, cy, cn)):
            if XX is None:
                continue
            for averaged in (False, True):
                for shuffled in (False, True):
                    name = (f"sklearn {layout} {'averaged' if averaged else 'plain'} "
                            f"{'shuffled' if shuffled else 'unshuffled'}")
                    add(Case(name, "sklearn",
                             sklearn_epoch(XX, yy, shuffled, averaged, next(seeds)), rows))
    # The Python twin on the first m rows, its time scaled per row to the full n.
    ptr_m = indptr[: m + 1]
    slices = {"dense": ((X[:m],), y[:m], d, n), "csr": (
        (data[: ptr_m[-1]], indices[: ptr_m[-1]], ptr_m), cy[:m], cd, cn)}
    # The twin converts w (and u) to lists and back once per call: timed on 0 rows and
    # added once, not scaled with the rows.
    empty = {"dense": (X[:0],), "csr": (data[:0], indices[:0], indptr[:1])}
    for layout, (arrays, yy, dd, rows) in slices.items():
        for averaged in (False, True):
            c_name = f"{layout} {'averaged' if averaged else 'plain'} unshuffled"
            epoch, state = ours(P, layout, averaged, False, arrays, yy, dd, next(seeds))
            fixed, _ = ours(P, layout, averaged, False, empty[layout], yy[:0], dd, 0)
            add(Case("python twin " + c_name, "python", epoch, m, scale=rows / m,
                     note=f"the first {m} rows, per-row time x{rows // m}"
                          " (the per-call cost counted once)",
                     prepare=copy_state(states[c_name], state), fixed=fixed))
    return cases, data_gen_s


# --------------------------------------------------------------------------------------------
# runner, table, goals

def run(cases, repeat, seed, warm):
    shuffler = np.random.default_rng(seed)
    for case in cases:  # warm-up epoch: caches, page faults, sklearn's first partial_fit
        if case.prepare:
            case.prepare()
        case.epoch()
    for _ in range(repeat):
        # A fresh case order each round, so no case always follows the same one.
        for k in shuffler.permutation(len(cases)):
            case = cases[k]
            if case.prepare:
                case.prepare()
            if warm:  # untimed epoch first: the timed one then finds in cache what fits
                case.epoch()
                if case.prepare:
                    case.prepare()
            t0 = time.perf_counter()
            mistakes = case.epoch()
            t = time.perf_counter() - t0
            if case.fixed is not None:
                t0 = time.perf_counter()
                case.fixed()
                t_fixed = min(time.perf_counter() - t0, t)
                t = t_fixed + (t - t_fixed) * case.scale
            else:
                t *= case.scale
            case.times.append(t)
            if mistakes is not None:
                case.mistakes.append(mistakes)


def summarize(cases):
    by = {}
    for c in cases:
        by[c.name] = {
            "kind": c.kind,
            "median_s": statistics.median(c.times),
            "min_s": min(c.times),
            "times_s": c.times,
            "mistake_rate": (sum(c.mistakes) / (len(c.mistakes) * c.rows)
                             if c.mistakes else None),
            "note": c.note,
        }
    for name, rec in by.items():
        layout = "csr" if "csr" in name else "dense"
        floor = by.get(f"{layout} X @ w (floor)")
        rec["ratio_vs_floor"] = (rec["median_s"] / floor["median_s"]
                                 if floor and rec["kind"] != "aux" else None)
        ref = None
        if rec["kind"] in ("ours", "python"):
            ref = by.get("sklearn " + name.replace("python twin ", ""))
        rec["ratio_vs_sklearn"] = rec["median_s"] / ref["median_s"] if ref else None
    return by


def goals(by):
    out = []

    def check(label, num, den, limit, mode, info=False):
        if num not in by or den not in by:
            out.append({"goal": label, "value": None, "limit": limit, "status": "n/a"})
            return
        value = by[num]["median_s"] / by[den]["median_s"]
        if mode == "speedup":  # den / num >= limit
            value = 1.0 / value
        ok = info or (value >= limit if mode == "speedup" else value <= limit)
        out.append({"goal": label, "value": value, "limit": limit, "mode": mode,
                    "status": "info" if info else ("PASS" if ok else "MISS")})

    check("dense plain unshuffled / dense X @ w  <= 1.3",
          "dense plain unshuffled", "dense X @ w (floor)", DENSE_VS_FLOOR, "ratio")
    check("sklearn / dense plain unshuffled      >= 1.5  (speedup)",
          "dense plain unshuffled", "sklearn dense plain unshuffled", DENSE_VS_SKLEARN, "speedup")
    check("sklearn / csr plain unshuffled        >= 1.0  (speedup)",
          "csr plain unshuffled", "sklearn csr plain unshuffled", CSR_VS_SKLEARN, "speedup")
    check("sklearn / csr plain shuffled          >= 1.0  (speedup)",
          "csr plain shuffled", "sklearn csr plain shuffled", CSR_VS_SKLEARN, "speedup")
    for layout in ("dense", "csr"):
        for kind in ("plain", "averaged"):
            check(f"{layout} {kind} shuffled / unshuffled".ljust(38) + " <= 2.5",
                  f"{layout} {kind} shuffled", f"{layout} {kind} unshuffled",
                  SHUFFLED_VS_PLAIN, "ratio")
    for layout in ("dense", "csr"):
        for order in ("unshuffled", "shuffled"):
            check(f"{layout} averaged / plain ({order})".ljust(38) + " <= 1.3",
                  f"{layout} averaged {order}", f"{layout} plain {order}",
                  AVERAGED_VS_PLAIN, "ratio")
    check("decision_function 1 thread / X @ w".ljust(38) + " <= 1.2",
          "Perceptron.decision_function, 1 thread", "dense X @ w (floor)", 1.2, "ratio")
    check("decision_function 1 / all threads".ljust(38) + " >= 1.8  (speedup)",
          "Perceptron.decision_function, all threads", "Perceptron.decision_function, 1 thread",
          1.8, "speedup")
    # what every core gains on the pass alone: no pass over X can scale past it
    check("X @ w 1 / every core (the limit)".ljust(38) + " (info)",
          "dense X @ w, every core", "dense X @ w (floor)", None, "speedup", info=True)
    check("decision all threads / X @ w every core".ljust(38) + " (info)",
          "Perceptron.decision_function, all threads", "dense X @ w, every core", None,
          "ratio", info=True)
    for layout in ("dense", "csr"):  # the reference point, not a goal
        check(f"sklearn {layout} shuffled / unshuffled".ljust(38) + " (info, ~5x expected)",
              f"sklearn {layout} plain shuffled", f"sklearn {layout} plain unshuffled",
              None, "ratio", info=True)
    return out


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def table(env, by, checks, data_gen_s):
    lines = [
        "perceptron_c linear epoch benchmark",
        f"CPU: {env['cpu']} ({env['logical_cpus']} logical), {env['platform']}",
        f"Python {env['python']}, numpy {env['numpy']}, scipy {env['scipy'] or '-'}, "
        f"scikit-learn {env['sklearn'] or '- (not installed)'}",
        f"perceptron_c BACKEND={env['perceptron_c_backend']}, from {env['perceptron_c_file']}",
        "dense {dense_rows} x {dense_features} float64; CSR {csr_rows} x {csr_features}, "
        "{csr_nnz_per_row} nnz/row; label noise {label_noise:.0%}; fit_intercept=True"
        .format(**env["sizes"]),
        f"median of {env['repeat']} interleaved epochs per case (data made in "
        f"{data_gen_s:.1f} s); BLAS threads: {env['blas_threads']}",
        "",
        f"{'case':<40} {'s/epoch':>10} {'min s':>10} {'x X@w':>8} {'x sklearn':>10} "
        f"{'mistakes':>9}",
        "-" * 92,
    ]
    for name, rec in by.items():
        mr = rec["mistake_rate"]
        lines.append(
            f"{name:<40} {rec['median_s']:>10.5f} {rec['min_s']:>10.5f} "
            f"{fmt(rec['ratio_vs_floor'], '8.2f'):>8} {fmt(rec['ratio_vs_sklearn'], '10.2f'):>10} "
            f"{'-' if mr is None else f'{mr:.1%}':>9}")
    notes = {}
    for name, rec in by.items():
        if rec["note"]:
            notes.setdefault("python twin" if rec["kind"] == "python" else name, rec["note"])
    lines += [""] + [f"{label}: {note}" for label, note in notes.items()] + [
        "",
        "x X@w, x sklearn: this case's time / the reference's time (lower is faster); the",
        "sklearn reference is the same layout, averaging and shuffling. 'mistakes' = the",
        "fraction of rows that triggered an update in the timed epochs.",
        "",
        "goals",
    ]
    for g in checks:
        lines.append(f"  {g['status']:<5} {g['goal']:<60} {fmt(g['value'], '.2f')}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="~20x smaller workloads (smoke run; the data fits in cache, so each "
                         "timed epoch follows an untimed one of the same case)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="timed epochs per case (default 9, 5 with --quick)")
    ap.add_argument("--json", default=DEFAULT_JSON, help=f"result file (default {DEFAULT_JSON})")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.repeat is None:
        args.repeat = 5 if args.quick else 9
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    shrink = 20 if args.quick else 1
    sizes = {
        "dense_rows": 200_000 // shrink, "dense_features": 100,
        "csr_rows": 200_000 // shrink, "csr_features": 100_000 // shrink,
        "csr_nnz_per_row": 50, "label_noise": 0.10,
        "python_twin_rows": 2000 // (4 if args.quick else 1),
    }

    rng = np.random.default_rng(args.seed)
    cases, data_gen_s = build_cases(args, sizes, rng)
    env = environment(args, sizes)
    run(cases, args.repeat, args.seed, warm=args.quick)
    by = summarize(cases)
    checks = goals(by)
    print(table(env, by, checks, data_gen_s))

    path = os.path.abspath(args.json)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"environment": env, "data_gen_s": data_gen_s, "cases": by,
                   "goals": checks}, f, indent=2)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
