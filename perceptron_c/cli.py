"""The ``perceptron-c`` command line: ``demo``, ``train`` and ``predict``.

``main(argv)`` returns the exit status instead of exiting, so it can be called in-process:
0 on success, 2 on a usage error or on a missing or malformed file (one line on stderr, no
traceback).
"""
import argparse
import sys
import time

import numpy as np

import perceptron_c
from perceptron_c import _backend
from perceptron_c.io import DATA_EXTENSIONS, load_data, load_model, save_model

__all__ = ["main"]

PROG = "perceptron-c"
EXIT_OK = 0
EXIT_ERROR = 2


class _CommandError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


# --------------------------------------------------------------------------- argument parsing

def _build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="The perceptron family (plain, averaged, normalized, K-class) with a "
                    "Cython core and a pure-Python reference twin.",
    )
    parser.add_argument("--version", action="version",
                        version=f"perceptron_c {perceptron_c.__version__} "
                                f"backend={perceptron_c.BACKEND}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo", help="train every variant on three generated data sets and print a table",
        description="Generate three data sets (separable dense with a known margin, sparse "
                    "text-like, 10-class blobs), train each perceptron variant, and compare "
                    "the C core with the pure-Python twin. No downloads.")
    demo.add_argument("--seed", type=int, default=0, help="seed of data and shuffling (0)")
    demo.add_argument("--epochs", type=int, default=30, metavar="N",
                      help="maximum epochs per model (30)")
    demo.add_argument("--python-epochs", type=int, default=None, metavar="N",
                      help="time the Python twin on at most N epochs per model (default: "
                           "all the epochs the C core ran; 0 skips the Python timing)")
    demo.add_argument("--plots", metavar="DIR", default=None,
                      help="after the table, run the figure-producing experiments of "
                           "docs/experiments.md in a quick configuration and write their PNG "
                           "figures to DIR (needs matplotlib: pip install "
                           "\"perceptron-c[plot]\")")

    formats = ", ".join(DATA_EXTENSIONS)
    train = commands.add_parser(
        "train", help="fit a Perceptron on a data file and save it",
        description=f"Fit a Perceptron on DATA ({formats}) and save it as a .npz model.")
    train.add_argument("data", metavar="DATA", help="training data file")
    train.add_argument("-o", "--output", required=True, metavar="MODEL.npz",
                       help="where to save the model ('.npz' is appended if missing)")
    train.add_argument("--average", action="store_true", help="averaged perceptron")
    train.add_argument("--normalize", action="store_true", help="update by y x / ||x||")
    train.add_argument("--epochs", type=int, default=None, metavar="N",
                       help="maximum epochs (the estimator's default: 1000)")
    train.add_argument("--no-intercept", action="store_true", help="learn no bias term")
    train.add_argument("--multiclass", choices=("argmax", "ovr"), default="argmax",
                       help="K-class strategy (argmax)")
    train.add_argument("--seed", type=int, default=0, help="shuffling seed (0)")
    train.add_argument("-v", "--verbose", action="store_true",
                       help="print one progress line per epoch to stderr")

    predict = commands.add_parser(
        "predict", help="predict the labels of a data file with a saved model",
        description="Print one predicted label per line; when DATA has labels, print the "
                    "accuracy to stderr.")
    predict.add_argument("model", metavar="MODEL.npz", help="a model saved by 'train'")
    predict.add_argument("data", metavar="DATA", help="data file (labels optional)")
    predict.add_argument("-o", "--output", metavar="OUT", help="write the labels to OUT")
    return parser


def main(argv=None):
    """Run the command line; return the exit status."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    handler = {"demo": _cmd_demo, "train": _cmd_train, "predict": _cmd_predict}[args.command]
    try:
        return handler(args)
    except (OSError, ValueError, _CommandError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return EXIT_ERROR


# --------------------------------------------------------------------------- train / predict

def _cmd_train(args):
    if args.epochs is not None and args.epochs < 1:
        raise _CommandError(f"--epochs must be >= 1, got {args.epochs}")
    if args.seed < 0:
        raise _CommandError(f"--seed must be >= 0, got {args.seed}")
    X, y = load_data(args.data)
    options = dict(average=args.average, normalize=args.normalize,
                   fit_intercept=not args.no_intercept, multiclass=args.multiclass,
                   random_state=args.seed, verbose=1 if args.verbose else 0)
    if args.epochs is not None:
        options["max_iter"] = args.epochs
    model = perceptron_c.Perceptron(**options).fit(X, y)
    path = save_model(model, args.output)
    accuracy = model.score(X, y)
    print(f"trained Perceptron on {X.shape[0]} samples x {X.shape[1]} features, "
          f"{len(model.classes_)} classes: epochs={model.n_iter_} "
          f"converged={model.converged_} train_accuracy={accuracy:.4f} -> {path}")
    return EXIT_OK


def _same_labels(predicted, truth):
    """Elementwise equality; labels of different kinds (numbers vs strings) compare as text."""
    predicted, truth = np.asarray(predicted), np.asarray(truth)
    numeric = "biuf"
    if (predicted.dtype.kind in numeric) == (truth.dtype.kind in numeric):
        return predicted == truth
    return predicted.astype(str) == truth.astype(str)


def _cmd_predict(args):
    model = load_model(args.model)
    X, y = load_data(args.data, n_features=model.n_features_in_, require_labels=False)
    predicted = model.predict(X)
    text = "".join(f"{label}\n" for label in predicted.tolist())
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    if y is not None:
        correct = int(np.sum(_same_labels(predicted, y)))
        print(f"accuracy {correct / len(y):.4f} ({correct}/{len(y)})", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- demo data

def make_separable(rng, n, d, gap=0.2, bias=0.3):
    """Dense points with labels sign(u.x + b0), keeping only |u.x + b0| >= gap (||u|| = 1),
    so (u, b0) separates them with geometric margin at least ``gap``."""
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    kept = []
    while sum(len(block) for block in kept) < n:
        block = rng.standard_normal((2 * n, d))
        kept.append(block[np.abs(block @ u + bias) >= gap])
    X = np.concatenate(kept)[:n]
    y = np.where(X @ u + bias > 0, 1, -1)
    return X, y, u, bias


def _csr_counts(rows, cols, n_rows, n_cols):
    """Word-count matrix from (doc, word) token pairs: scipy CSR, or dense without scipy."""
    keys, counts = np.unique(rows.astype(np.int64) * n_cols + cols, return_counts=True)
    doc, word = np.divmod(keys, n_cols)
    try:
        import scipy.sparse
    except ImportError:
        dense = np.zeros((n_rows, n_cols))
        dense[doc, word] = counts
        return dense
    indptr = np.concatenate([[0], np.cumsum(np.bincount(doc, minlength=n_rows))])
    return scipy.sparse.csr_matrix((counts.astype(np.float64), word, indptr),
                                   shape=(n_rows, n_cols))


def make_text(rng, n, vocabulary=5000, mean_length=36, topic_words=250, topic_share=0.15):
    """Bag-of-words counts: most tokens from a shared Zipf-like law over the vocabulary, a
    share from a per-class topic list, so the classes overlap as real documents do."""
    labels = np.array(["ham", "spam"])
    y_index = rng.integers(0, 2, size=n)
    lengths = np.maximum(rng.poisson(mean_length, size=n), 1)
    rows = np.repeat(np.arange(n), lengths)
    frequency = 1.0 / (np.arange(vocabulary) + 10.0)
    words = rng.choice(vocabulary, size=rows.shape[0], p=frequency / frequency.sum())
    topics = rng.choice(vocabulary, size=(2, topic_words), replace=False)
    from_topic = rng.random(rows.shape[0]) < topic_share
    picks = rng.integers(0, topic_words, size=rows.shape[0])
    words = np.where(from_topic, topics[y_index[rows], picks], words)
    return _csr_counts(rows, words, n, vocabulary), labels[y_index]


def make_blobs(rng, n, d, n_classes=10, spread=2.2):
    """Gaussian blobs around random centres; ``spread`` sets how much the classes overlap."""
    centres = rng.standard_normal((n_classes, d)) * 1.5
    y = rng.integers(0, n_classes, size=n)
    return centres[y] + spread * rng.standard_normal((n, d)) / np.sqrt(2.0), y


def _split(X, y, n_train):
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


# --------------------------------------------------------------------------- demo

def _normalized_bound(X, y, u, b0):
    """(R/gamma)^2 of the normalized perceptron: it makes the plain perceptron's mistakes on
    the rows (x, 1) / ||(x, 1)||, with no further bias."""
    Z = np.hstack([X, np.ones((X.shape[0], 1))])
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    return perceptron_c.mistake_bound(Z, y, np.append(u, b0), None)


def make_xor(rng, n, noise=0.25):
    """Four Gaussian clusters at (+-1, +-1), labelled by the sign of x1 * x2 (XOR)."""
    centers = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    which = rng.integers(0, 4, n)
    return centers[which] + noise * rng.normal(size=(n, 2)), (which >= 2).astype(int)


def make_dnf(rng, n, n_bits=40, density=0.3, terms=((0, 3), (5, 7), (2, 11))):
    """Random 0/1 rows labelled by a hidden monotone DNF (an OR of ANDs of bits)."""
    B = (rng.random((n, n_bits)) < density).astype(np.uint8)
    y = np.zeros(n, dtype=int)
    for term in terms:
        y |= np.all(B[:, list(term)] == 1, axis=1)
    return B, y


def _timed_fit(options, X, y):
    options = dict(options)
    cls = options.pop("estimator", perceptron_c.Perceptron)
    model = cls(**options)
    tic = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - tic


def _format_table(header, rows):
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    left = {0, 1}  # text columns; numbers align right

    def line(row):
        return "  ".join(str(c).ljust(w) if i in left else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths)))

    return [line(header), "  ".join("-" * w for w in widths)] + [line(row) for row in rows]


def run_demo(seed=0, epochs=30, python_epochs=None, out=None):
    """Train every variant on the three demo sets; print the table to ``out``; return rows.

    With the C core present each model is trained again on the Python twin, for at most
    ``python_epochs`` epochs (None: as many as the C run took), to time it side by side.
    """
    if python_epochs is None:
        python_epochs = epochs
    out = sys.stdout if out is None else out
    have_c = perceptron_c.BACKEND == "c"
    rng = np.random.default_rng(seed)

    X, y, u, b0 = make_separable(rng, 3000, 20)
    separable = _split(X, y, 2000)
    X, y = make_text(rng, 3000)
    text = _split(X, y, 2000)
    X, y = make_blobs(rng, 4500, 20)
    blobs = _split(X, y, 3000)
    X, y = make_xor(rng, 900)
    xor = _split(X, y, 600)
    X, y = make_dnf(rng, 2000)
    dnf = _split(X, y, 1000)
    kp = perceptron_c.KernelPerceptron

    sep_bound = perceptron_c.mistake_bound(separable[0], separable[1], u, b0)
    norm_bound = _normalized_bound(separable[0], separable[1], u, b0)
    plans = [
        ("perceptron", "separable", separable, {}, sep_bound),
        ("averaged", "separable", separable, {"average": True}, sep_bound),
        ("normalized", "separable", separable, {"normalize": True}, norm_bound),
        ("perceptron", "text", text, {}, None),
        ("averaged", "text", text, {"average": True}, None),
        ("normalized", "text", text, {"normalize": True}, None),
        ("voted", "text", text, {"estimator": perceptron_c.VotedPerceptron}, None),
        ("K-class argmax", "blobs-10", blobs, {}, None),
        ("K-class argmax avg", "blobs-10", blobs, {"average": True}, None),
        ("K-class ovr", "blobs-10", blobs, {"multiclass": "ovr"}, None),
        ("K-class ovr avg", "blobs-10", blobs, {"multiclass": "ovr", "average": True}, None),
        ("kernel linear", "xor", xor, {"estimator": kp, "kernel": "linear"}, None),
        ("kernel poly-2", "xor", xor, {"estimator": kp, "kernel": "poly", "degree": 2}, None),
        ("kernel rbf", "xor", xor, {"estimator": kp, "kernel": "rbf", "gamma": 1.0}, None),
        ("perceptron", "dnf-40", dnf, {}, None),
        ("kernel conjunction", "dnf-40", dnf, {"estimator": kp, "kernel": "conjunction"}, None),
        ("kernel conj. avg", "dnf-40", dnf,
         {"estimator": kp, "kernel": "conjunction", "average": True}, None),
    ]

    print(f"perceptron_c {perceptron_c.__version__} backend={perceptron_c.BACKEND}", file=out)
    storage = "dense ndarray" if isinstance(text[0], np.ndarray) else type(text[0]).__name__
    print(f"data (seed {seed}): separable = dense, margin >= 0.2 around a known (u, b0); "
          f"text = bag of words, {storage}; blobs-10 = 10 Gaussian classes; xor = 4 noisy "
          f"clusters labelled x1*x2 > 0; dnf-40 = 40 random bits labelled by a hidden DNF "
          f"(x0 x3 | x5 x7 | x2 x11). Train/test splits 2000/1000, 2000/1000, 3000/1500, "
          f"600/300, 1000/1000.", file=out)

    header = ["algorithm", "dataset", "n", "d", "epochs", "mistakes", "(R/gamma)^2",
              "train acc", "test acc", "seconds C", "seconds Python"]
    rows, results = [], []
    partial_python = False
    twins_agree = True
    c_total = py_total = 0.0
    for name, dataset, (Xtr, ytr, Xte, yte), extra, bound in plans:
        options = dict(max_iter=epochs, random_state=seed, **extra)
        model, seconds = _timed_fit(options, Xtr, ytr)
        if have_c:
            c_cell = f"{seconds:.4f}"
            py_cell = "-"
            if python_epochs > 0:
                py_epochs = min(python_epochs, model.n_iter_)
                with _backend.using("python"):
                    twin, py_seconds = _timed_fit({**options, "max_iter": py_epochs}, Xtr, ytr)
                twins_agree &= np.array_equal(twin.mistakes_, model.mistakes_[:py_epochs])
                # per-epoch rate, so a Python run cut short still compares fairly
                c_total += seconds * py_epochs / model.n_iter_
                py_total += py_seconds
                if py_epochs == model.n_iter_:
                    weights = next((name for name in ("dual_coef_", "coef_")
                                    if hasattr(model, name)), None)
                    if weights is None:  # the voted perceptron keeps no single weight vector
                        twins_agree &= np.array_equal(twin.predict(Xtr), model.predict(Xtr))
                    else:
                        twins_agree &= np.array_equal(getattr(twin, weights),
                                                      getattr(model, weights))
                    py_cell = f"{py_seconds:.4f}"
                else:
                    partial_python = True
                    py_cell = f"{py_seconds:.4f}*"
        else:
            c_cell, py_cell = "n/a", f"{seconds:.4f}"
        row = [name, dataset, Xtr.shape[0], Xtr.shape[1], model.n_iter_,
               int(model.mistakes_.sum()), "-" if bound is None else f"{bound:.0f}",
               f"{model.score(Xtr, ytr):.4f}", f"{model.score(Xte, yte):.4f}", c_cell, py_cell]
        rows.append(row)
        results.append(dict(zip(header, row)))

    for text_line in _format_table(header, rows):
        print(text_line, file=out)
    notes = [
        "mistakes: total over all epochs of training (for ovr, summed over the K perceptrons).",
        "(R/gamma)^2: Block/Novikoff bound for the generating separator (u, b0) on the "
        "training set (normalized: on the rows (x, 1)/||(x, 1)||); '-' where the data is not "
        "separable.",
    ]
    if not have_c:
        notes.append("seconds C: n/a, the compiled core is not in use "
                     "(PERCEPTRON_C_NO_EXTENSIONS); the models ran on the Python twins.")
    elif python_epochs <= 0:
        notes.append("seconds Python: not measured (--python-epochs 0).")
    else:
        if partial_python:
            notes.append(f"* the Python twin was timed on the first {python_epochs} epoch(s) "
                         "only (same data, same seed; --python-epochs); compare per epoch.")
        notes.append(f"Python twin / C core time over the same epochs: "
                     f"{py_total / max(c_total, 1e-9):.0f}x; the twin made the same mistakes "
                     f"in every epoch as the C core: {'yes' if twins_agree else 'NO'}.")
    for note in notes:
        print(note, file=out)
    return results


def write_plots(directory, seed=0, out=None):
    """Run the figure-producing experiments (`perceptron_c.experiments`, quick configuration)
    and write their PNGs to ``directory``; returns the paths. The digits learning curves need
    scikit-learn and are skipped with a note without it."""
    from perceptron_c import experiments, plots

    out = sys.stdout if out is None else out
    quick = experiments.QUICK
    results = {}
    variants = (experiments.VARIANTS if hasattr(perceptron_c, "VotedPerceptron")
                else ("last", "averaged"))
    try:
        results["learning_curves"] = experiments.learning_curves(
            seed=seed, variants=variants, **quick["learning_curves"])
    except ImportError as exc:
        print(f"figures: skipped the digits learning curves ({exc})", file=out)
    results["ordering"] = experiments.ordering(seed=seed, **quick["ordering"])
    results["mistakes_vs_margin"] = experiments.mistakes_vs_margin(
        seed=seed, **quick["mistakes_vs_margin"])
    results["boundaries_2d"] = experiments.boundaries_2d(seed=seed, **quick["boundaries_2d"])
    paths = plots.save_figures(results, directory)
    print(f"figures (quick configuration, seed {seed}; full runs: examples/experiments.py):",
          file=out)
    for path in paths:
        print(f"  {path}", file=out)
    return paths


def _cmd_demo(args):
    if args.epochs < 1:
        raise _CommandError(f"--epochs must be >= 1, got {args.epochs}")
    if args.seed < 0:
        raise _CommandError(f"--seed must be >= 0, got {args.seed}")
    if args.plots is not None:  # fail before the demo runs, not after
        from perceptron_c import plots
        try:
            plots.require_matplotlib()
        except ImportError as exc:
            raise _CommandError(f"--plots: {exc}") from None
    run_demo(seed=args.seed, epochs=args.epochs, python_epochs=args.python_epochs)
    if args.plots is not None:
        write_plots(args.plots, seed=args.seed)
    return EXIT_OK
