"""The ``perceptron-c`` command line: ``demo``, ``train``, ``predict``, ``tag``, ``export-nltk``
and ``import-nltk``.

``main(argv)`` returns the exit status instead of exiting, so it can be called in-process.
Every failure is one line on stderr (``perceptron-c: error: ...``), never a traceback, and
every warning one line (``perceptron-c: warning: ...``). The exit status:

- 0: success;
- 2: the command or its input cannot be used: a usage error, a missing, unreadable or
  malformed file or argument, or values so large that training or prediction overflows
  float64;
- 3: memory ran out;
- 130: interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import ast
import csv
import os
import sys
import warnings
from io import StringIO
from typing import Any

import numpy as np

from . import (
    BACKEND,
    BudgetKernelPerceptron,
    KernelPerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    VotedPerceptron,
    __version__,
)
from .datasets import DATA_EXTENSIONS, load_data
from .io import check_regular_file, load_model, replace_file, save_model
from .tagging._cli import (
    TAGGED_FORMATS,
    add_apply_arguments,
    add_nltk_commands,
    add_tag,
    cmd_export_nltk,
    cmd_import_nltk,
    cmd_tag,
    train_tagger,
)

__all__ = ["main"]

PROG = "perceptron-c"
EXIT_OK = 0
EXIT_ERROR = 2
EXIT_FAILED = 3  # out of memory
EXIT_INTERRUPTED = 130

ESTIMATORS = {"perceptron": Perceptron, "kernel": KernelPerceptron, "voted": VotedPerceptron,
              "budget": BudgetKernelPerceptron, "pa": PassiveAggressiveClassifier}
# flags of `train` that set an estimator parameter: flag dest -> parameter name
_FLAG_PARAMS = {"average": "average", "normalize": "normalize", "multiclass": "multiclass",
                "kernel": "kernel", "degree": "degree", "gamma": "gamma", "coef0": "coef0",
                "epochs": "max_iter"}


class _CommandError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


# --------------------------------------------------------------------------- argument parsing

def _add_demo(commands: Any) -> None:
    demo = commands.add_parser(
        "demo", help="train every variant on generated data sets and print a table",
        description="Generate five data sets (separable with a known margin, sparse text, "
                    "10-class blobs, XOR, a hidden DNF on bits), train each perceptron "
                    "variant on the C core, and time the pure-Python twin beside it. No "
                    "downloads.")
    demo.add_argument("--seed", type=int, default=0, help="seed of data and shuffling (0)")
    demo.add_argument("--epochs", type=int, default=30, metavar="N",
                      help="maximum epochs per model (30)")
    demo.add_argument("--python-epochs", type=int, default=1, metavar="N",
                      help="time the Python twin on the first N epochs of each model (1; 0 "
                           "skips it)")
    demo.add_argument("--plots", metavar="DIR", default=None,
                      help="then run the experiments of docs/experiments.md in a quick "
                           "configuration and write their PNG figures to DIR (needs "
                           "matplotlib: pip install \"perceptron-c[plot]\")")


def _add_train(commands: Any) -> None:
    formats = ", ".join(DATA_EXTENSIONS)
    train = commands.add_parser(
        "train", help="fit any estimator on a data file and save it",
        description=f"Fit an estimator on DATA ({formats}) and save it as a .npz model. "
                    "Flags set the common parameters; --param NAME=VALUE sets any other "
                    "parameter of the chosen estimator (VALUE read as a Python literal, "
                    "else as text). --estimator tagger trains a PerceptronTagger (NLTK's "
                    "greedy averaged perceptron) on a tagged text file instead: word/TAG "
                    "tokens, one sentence per line, or CoNLL columns (word first, tag last, "
                    "a blank line between sentences), told apart by --format auto.")
    train.add_argument("data", metavar="DATA", help="training data file")
    train.add_argument("-o", "--output", required=True, metavar="MODEL.npz",
                       help="where to save the model ('.npz' is appended if missing)")
    train.add_argument("--estimator", choices=sorted([*ESTIMATORS, "tagger"]),
                       default="perceptron",
                       help=", ".join(f"{key}: {cls.__name__}" for key, cls in
                                      ESTIMATORS.items()) + ", tagger: PerceptronTagger "
                            "(default: perceptron)")
    train.add_argument("--format", choices=TAGGED_FORMATS, default=None,
                       help="tagger: the tagged file's format, word/TAG (slash) or CoNLL "
                            "columns (auto: by the extension or the first line)")
    train.add_argument("--average", action="store_true", default=None,
                       help="averaged perceptron (perceptron, kernel)")
    train.add_argument("--normalize", action="store_true", default=None,
                       help="update by y x / ||x|| (perceptron)")
    train.add_argument("--multiclass", choices=("argmax", "ovr"), default=None,
                       help="K-class strategy (perceptron; default: argmax, or ovr with "
                            "tol or penalty set)")
    train.add_argument("--kernel", default=None, metavar="NAME",
                       help="linear, poly, rbf or conjunction (kernel, voted)")
    train.add_argument("--degree", type=int, default=None, help="poly kernel degree")
    train.add_argument("--gamma", type=float, default=None, help="poly / rbf kernel gamma")
    train.add_argument("--coef0", type=float, default=None, help="poly kernel offset")
    train.add_argument("--epochs", "--max-iter", "--nr-iter", dest="epochs", type=int,
                       default=None, metavar="N",
                       help="maximum epochs (max_iter; the estimator's default otherwise; "
                            "the tagger's nr_iter, 5 by default)")
    train.add_argument("--no-intercept", action="store_true", help="learn no bias term")
    train.add_argument("--structured", action="store_true",
                       help="--estimator tagger: Viterbi over NLTK's static features (a "
                            "StructuredPerceptron) instead of NLTK's greedy tagger")
    train.add_argument("--seed", type=int, default=0,
                       help="shuffling seed (0); the tagger seeds Python's random with it, "
                            "as NLTK's train shuffles with random")
    train.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                       help="any other estimator parameter, e.g. --param early_stopping=True")
    train.add_argument("-v", "--verbose", action="store_true",
                       help="print one progress line per epoch to stderr")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="The perceptron family (primal, averaged, normalized, voted, kernel; "
                    "binary and K-class) with a Cython core and a pure-Python reference twin.")
    parser.add_argument("--version", action="version",
                        version=f"perceptron_c {__version__} backend={BACKEND}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_demo(commands)
    _add_train(commands)
    predict = commands.add_parser(
        "predict", help="predict the labels of a data file with a saved model",
        description="Print the predicted labels as CSV, one row per sample: a label "
                    "holding a comma, a quote or a line break is quoted (\"a,b\", a quote "
                    "doubled inside), an empty one is \"\", others print as they are. When "
                    "DATA has labels, print the accuracy to stderr.")
    add_apply_arguments(predict, "model", "data", "data file (labels optional)",
                        "the labels to OUT (the same CSV) instead")
    add_tag(commands)
    add_nltk_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status.

    A user-facing error is printed as one line on stderr (no traceback), and so is a warning.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; None means ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 2 for a usage error or a failure of the input (bad
        file, bad parameter, arithmetic overflow, OS error), 3 when out of memory, 130 when
        interrupted; argparse's own status for ``--help`` and ``--version`` (0).
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    handler = {"demo": _cmd_demo, "train": _cmd_train, "predict": _cmd_predict,
               "tag": _cmd_tag, "export-nltk": _cmd_export_nltk,
               "import-nltk": _cmd_import_nltk}[args.command]
    with warnings.catch_warnings():  # restores showwarning (and the filters) on return
        warnings.showwarning = _show_warning
        try:
            return handler(args)
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except MemoryError as exc:
            return _fail(exc, EXIT_FAILED)
        # an overflow (a model's ValueError, a Gram's OverflowError) is the input's scale
        except (ArithmeticError, RecursionError, OSError, ValueError, TypeError,
                _CommandError) as exc:
            return _fail(exc, EXIT_ERROR)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _fail(exc: BaseException, status: int) -> int:
    message = _one_line(str(exc)) or type(exc).__name__
    if isinstance(exc, MemoryError):
        message = f"out of memory ({message})"
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return status


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """warnings.showwarning for the command line: one line, no source file or code."""
    print(f"{PROG}: warning: {_one_line(str(message)) or category.__name__}", file=sys.stderr)


# --------------------------------------------------------------------------- train / predict

def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _train_params(args: argparse.Namespace) -> tuple[type, dict]:
    """The estimator class and its parameters from the flags; a flag the estimator does not
    take is an error, never silently ignored."""
    cls = ESTIMATORS[args.estimator]
    accepted = set(cls()._get_param_names())
    params: dict[str, Any] = {"random_state": args.seed, "verbose": 1 if args.verbose else 0,
                              "fit_intercept": not args.no_intercept}
    for flag, name in _FLAG_PARAMS.items():
        value = getattr(args, flag)
        if value is None:
            continue
        if name not in accepted:
            raise _CommandError(f"--{flag} does not apply to --estimator {args.estimator}")
        params[name] = value
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or name not in accepted:
            raise _CommandError(f"--param {item!r}: expected NAME=VALUE with NAME one of "
                                f"{sorted(accepted)}")
        params[name] = _literal(value)
    if args.seed < 0:
        raise _CommandError(f"--seed must be >= 0, got {args.seed}")
    if args.epochs is not None and args.epochs < 1:
        raise _CommandError(f"--epochs must be >= 1, got {args.epochs}")
    return cls, params


def _load_data(path: str, **options: Any) -> tuple[Any, np.ndarray | None]:
    """load_data, after checking that ``path``, if it exists, is a regular file: its text
    readers would wait forever on a named pipe that no one writes to."""
    if os.path.exists(path):  # a missing file is load_data's to report (after the format)
        check_regular_file(path, "data")
    return load_data(path, **options)


def _cmd_train(args: argparse.Namespace) -> int:
    if args.estimator == "tagger":
        print(train_tagger(args, save_model))
        return EXIT_OK
    for flag in ("format", "structured"):
        if getattr(args, flag) not in (None, False):
            raise _CommandError(f"--{flag} does not apply to --estimator {args.estimator}")
    cls, params = _train_params(args)
    model = cls(**params)
    X, y = _load_data(args.data)
    model.fit(X, y)
    path = save_model(model, args.output)
    accuracy = model.score(X, y)
    print(f"trained {cls.__name__} on {X.shape[0]} samples x {X.shape[1]} features, "
          f"{len(model.classes_)} classes: epochs={model.n_iter_} "
          f"converged={model.converged_} train_accuracy={accuracy:.4f} -> {path}")
    return EXIT_OK


def _same_labels(predicted: Any, truth: Any) -> np.ndarray:
    """Elementwise equality; labels of different kinds (numbers vs strings) compare as text."""
    predicted, truth = np.asarray(predicted), np.asarray(truth)
    numeric = "biuf"
    if (predicted.dtype.kind in numeric) == (truth.dtype.kind in numeric):
        return predicted == truth
    return predicted.astype(str) == truth.astype(str)


def _csv_rows(labels: list[Any]) -> str:
    """One CSV row per label (quoted where needed, "" for an empty one): a label holding a
    line break or a comma stays one row, as csv.reader reads it back."""
    buffer = StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([label] for label in labels)
    return buffer.getvalue()


def _cmd_predict(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    if not hasattr(model, "n_features_in_"):  # a tagger reads words, not feature rows
        raise _CommandError(f"{args.model}: a {type(model).__name__} model: 'predict' needs "
                            "a classifier; tag text with 'perceptron-c tag'")
    if getattr(type(model), "_sentences", False):  # a data file has no sentence boundaries
        raise _CommandError(f"{args.model}: a {type(model).__name__} model labels sentences, "
                            "and a data file has rows without sentence boundaries: call "
                            "model.predict(X, lengths) in Python, or tag text with "
                            "'perceptron-c tag' and a tagger model")
    X, y = _load_data(args.data, n_features=model.n_features_in_, require_labels=False)
    predicted = model.predict(X)
    text = _csv_rows(predicted.tolist())
    if args.output:  # whole or not at all, as a model is saved: never a truncated file
        replace_file(args.output, lambda handle: handle.write(text.encode("utf-8")))
    else:
        sys.stdout.write(text)
    if y is not None:
        correct = int(np.sum(_same_labels(predicted, y)))
        print(f"accuracy {correct / len(y):.4f} ({correct}/{len(y)})", file=sys.stderr)
    return EXIT_OK


def _cmd_tag(args: argparse.Namespace) -> int:
    accuracy = cmd_tag(args)
    if accuracy is not None:
        print(accuracy, file=sys.stderr)
    return EXIT_OK


def _cmd_export_nltk(args: argparse.Namespace) -> int:
    print(cmd_export_nltk(args))
    return EXIT_OK


def _cmd_import_nltk(args: argparse.Namespace) -> int:
    print(cmd_import_nltk(args, save_model))
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo, write_plots

    if args.epochs < 1:
        raise _CommandError(f"--epochs must be >= 1, got {args.epochs}")
    if args.seed < 0:
        raise _CommandError(f"--seed must be >= 0, got {args.seed}")
    if args.python_epochs < 0:
        raise _CommandError(f"--python-epochs must be >= 0, got {args.python_epochs}")
    if args.plots is not None:  # fail before the demo runs, not after
        from . import plots
        try:
            plots.require_matplotlib()
        except ImportError as exc:
            raise _CommandError(f"--plots: {exc}") from None
    run_demo(seed=args.seed, epochs=args.epochs, python_epochs=args.python_epochs)
    if args.plots is not None:
        write_plots(args.plots, seed=args.seed)
    return EXIT_OK
