"""The tagger's part of the ``perceptron-c`` command line: ``train --estimator tagger`` and
``tag`` (`perceptron_c.cli` parses the arguments and reports the errors).

Failures raise `ValueError` (a `FileFormatError` for a bad file) or `OSError`, which the
command line prints as one line with exit status 2.
"""
from __future__ import annotations

import argparse
import logging
import os
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..datasets._tagged import TAGGED_FORMATS, load_tagged
from ..datasets._text import _text_lines
from ..io import check_regular_file, load_model, replace_file
from . import PerceptronTagger

__all__ = ["add_tag", "add_nltk_commands", "train_tagger", "cmd_tag", "cmd_export_nltk",
           "cmd_import_nltk", "load_tagger", "DEFAULT_NR_ITER", "TAG_FORMATS", "TAGGED_FORMATS"]

DEFAULT_NR_ITER = 5  # NLTK's train(nr_iter=5)
TAG_FORMATS = ("text", "conll")
# flags of `train` that the tagger refuses
_NOT_FOR_TAGGER = ("average", "normalize", "multiclass", "kernel", "degree", "gamma", "coef0",
                   "no_intercept")
# ASCII whitespace separates tokens, as load_tagged reads them: a no-break space stays inside
_TOKENS = re.compile(r"[^ \t\v\f]+")


# --------------------------------------------------------------------------- train

class _EpochLines(logging.Handler):
    """Prints the tagger's per-epoch log record as the other estimators' ``-v`` line."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.tic = time.perf_counter()

    def emit(self, record: logging.LogRecord) -> None:
        now = time.perf_counter()
        seconds, self.tic = now - self.tic, now
        args = record.args
        counts = [a for a in args[:3] if isinstance(a, int)] if isinstance(args, tuple) else []
        if len(counts) == 3:  # NLTK's "Iter %r: %r/%r=%r" % (epoch, right, seen, percent)
            epoch, right, seen = counts
            mistakes = seen - right
            text = (f"epoch {epoch + 1}: {mistakes} mistakes / {seen} "
                    f"({100.0 * mistakes / max(seen, 1):.2f}%), {seconds:.3f} s")
        else:
            text = record.getMessage()
        print(f"[PerceptronTagger] {text}", file=sys.stderr, flush=True)


def _tagger_params(args: argparse.Namespace) -> dict[str, Any]:
    for flag in _NOT_FOR_TAGGER:
        if getattr(args, flag) not in (None, False):
            raise ValueError(f"--{flag.replace('_', '-')} does not apply to --estimator tagger")
    params: dict[str, Any] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or name not in ("lang", "order") or not value or \
                (name == "order" and value not in ("1", "2")):
            raise ValueError(f"--param {item!r}: the tagger takes only lang=CODE (the "
                             "language code of NLTK's JSON file names) and order=1 or 2 "
                             "(with --structured)")
        params[name] = int(value) if name == "order" else value
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.epochs is not None and args.epochs < 0:
        raise ValueError(f"--nr-iter must be >= 0, got {args.epochs}")
    return params


def train_tagger(args: argparse.Namespace, save: Any) -> str:
    """Train a `PerceptronTagger` on the tagged file ``args.data`` after
    ``random.seed(args.seed)`` (Python's global random is put back afterwards), save it
    with ``save(model, path)``; return the line to print."""
    params = _tagger_params(args)
    nr_iter = DEFAULT_NR_ITER if args.epochs is None else args.epochs
    sentences = load_tagged(args.data, args.format or "auto")
    tagger = PerceptronTagger(load=False, structured=args.structured, **params)
    logger = logging.getLogger("perceptron_c.tagging")
    handler, level, propagate = _EpochLines(), logger.level, logger.propagate
    state = random.getstate()
    try:
        if args.verbose:
            logger.addHandler(handler)
            logger.setLevel(logging.INFO)
            logger.propagate = False
        random.seed(args.seed)  # NLTK's train shuffles with the global random
        tagger.train(sentences, nr_iter=nr_iter)
    finally:
        random.setstate(state)
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    path = save(tagger, args.output)
    n_tokens = sum(len(s) for s in sentences)
    accuracy = tagger.accuracy(sentences)
    kind = "structured " if args.structured else ""
    n_features = len(tagger._core.feature_keys()) if tagger._core else len(tagger._features)
    return (f"trained {kind}PerceptronTagger on {len(sentences)} sentences, {n_tokens} "
            f"tokens, {len(tagger.classes)} tags, {n_features} features: epochs={nr_iter} "
            f"train_accuracy={accuracy:.4f} -> {path}")


# --------------------------------------------------------------------------- tag

def add_apply_arguments(command: Any, saved: str, data: str, data_help: str,
                        output: str, instead: str | None = None) -> None:
    """What predict and tag take: a model saved by train (optional when the option
    ``instead`` can give the model), the file it reads, and -o OUT (written by
    `replace_file`, whole or not at all)."""
    optional = instead is not None
    command.add_argument("model", metavar="MODEL.npz", nargs="?" if optional else None,
                         help=f"a {saved} saved by 'train'"
                              + (f" (or give {instead} instead)" if optional else ""))
    command.add_argument(data, metavar=data.upper(), help=data_help)
    command.add_argument("-o", "--output", metavar="OUT",
                         help=f"write {output}; OUT is replaced whole, or left as it was if "
                              "writing fails")


def add_tag(commands: Any) -> None:
    tag = commands.add_parser(
        "tag", help="tag the words of a text file with a tagger trained by 'train'",
        description="Tag TEXT with a PerceptronTagger model (train --estimator tagger). "
                    "--format text (default): one sentence per line, tokens separated by "
                    "ASCII whitespace (spaces, tabs; the text is not tokenized further: "
                    "split punctuation off beforehand), written back as word/TAG tokens, "
                    "one sentence per line, a blank line for a blank line. --format conll: "
                    "one token per line (its first column; further columns are ignored), "
                    "a blank line between sentences, written back as word<TAB>TAG lines "
                    "with a blank line after each sentence. The input is UTF-8.")
    add_apply_arguments(tag, "tagger", "text", "the text file to tag",
                        "the tagged text to OUT instead of stdout", instead="--nltk-json")
    tag.add_argument("--nltk-json", metavar="DIR",
                     help="tag with the NLTK JSON model in DIR (a folder, or a .zip holding "
                          "one, as NLTK's save_to_json or 'export-nltk' writes it) instead of "
                          "MODEL.npz")
    _add_lang(tag)
    tag.add_argument("--format", choices=TAG_FORMATS, default="text",
                     help="layout of TEXT and of the output (text)")
    tag.add_argument("--gold", action="store_true",
                     help="TEXT is tagged (word/TAG lines with --format text, word and tag "
                          "columns with conll): tag its words, write them as without "
                          "--gold and print the accuracy to stderr")


def _text_sentences(path: str, fmt: str) -> Iterator[list[str]]:
    """The sentences of an untagged file (see `add_tag`); a blank line in the text layout
    is an empty sentence, so the output keeps the input's lines."""
    check_regular_file(path, "text")  # (a named pipe would block the read forever)
    sentence: list[str] = []
    for _, line in _text_lines(path):
        tokens = _TOKENS.findall(line)
        if fmt == "text":
            yield tokens
        elif tokens:
            sentence.append(tokens[0])
        elif sentence:
            yield sentence
            sentence = []
    if sentence:
        yield sentence


def _render(tagged: list[list[tuple]], fmt: str) -> str:
    if fmt == "text":
        return "".join(" ".join(f"{w}/{t}" for w, t in s) + "\n" for s in tagged)
    return "".join("".join(f"{w}\t{t}\n" for w, t in s) + "\n" for s in tagged)


def load_tagger(path: str) -> PerceptronTagger:
    """The tagger saved at ``path``; ValueError naming what the file holds if it is another
    model."""
    model = load_model(path)
    if not isinstance(model, PerceptronTagger):
        raise ValueError(f"{os.fspath(path)}: a {type(model).__name__} model, not a "
                         "PerceptronTagger: 'tag' needs a model trained with --estimator "
                         "tagger ('predict' uses this one)")
    return model


def _add_lang(command: Any) -> None:
    command.add_argument("--lang", metavar="CODE", default=None,
                         help="the language code in the NLTK JSON file names (default: eng "
                              "if DIR holds it, else the one model DIR holds)")


def add_nltk_commands(commands: Any) -> None:
    """``export-nltk`` and ``import-nltk``: a tagger's ``.npz`` to NLTK's JSON and back."""
    export = commands.add_parser(
        "export-nltk", help="write a tagger saved by 'train' as NLTK's JSON model files",
        description="Write the three JSON files NLTK's PerceptronTagger reads "
                    "(averaged_perceptron_tagger_<lang>.{weights,tagdict,classes}.json) into "
                    "DIR, created if missing; the files are replaced together or not at all. "
                    "NLTK reads them with PerceptronTagger(lang=CODE, loc=DIR) once DIR (or a "
                    "folder above it) is on nltk.data.path.")
    export.add_argument("model", metavar="MODEL.npz", help="a greedy tagger saved by 'train'")
    export.add_argument("folder", metavar="DIR", help="the folder to write")
    export.add_argument("--lang", metavar="CODE", default=None,
                        help="the language code in the file names (default: the tagger's "
                             "lang, eng unless trained with --param lang=CODE)")
    imported = commands.add_parser(
        "import-nltk", help="save NLTK's JSON model files as this package's MODEL.npz",
        description="Read the NLTK JSON model in DIR (a folder, or a .zip holding one) and "
                    "save it as a model file 'tag' reads.")
    imported.add_argument("folder", metavar="DIR", help="the folder (or .zip) to read")
    imported.add_argument("-o", "--output", metavar="MODEL.npz", required=True,
                          help="the model file to write")
    _add_lang(imported)


def _nltk_json(folder: str, lang: str | None) -> PerceptronTagger:
    # a path on the command line, never an NLTK resource name
    return PerceptronTagger.from_nltk_json(Path(folder), lang=lang)


def cmd_export_nltk(args: argparse.Namespace) -> str:
    """Write ``args.model`` as NLTK JSON into ``args.folder``; return the line to print."""
    tagger = load_tagger(args.model)
    paths = tagger.to_nltk_json(args.folder, lang=args.lang)
    return f"wrote {', '.join(paths)}"


def cmd_import_nltk(args: argparse.Namespace, save: Any) -> str:
    """Save the NLTK JSON model of ``args.folder`` with ``save(model, path)``."""
    tagger = _nltk_json(args.folder, args.lang)
    path = save(tagger, args.output)
    return (f"read NLTK's {tagger.TAGGER_NAME}_{tagger.lang} ({len(tagger.classes)} tags, "
            f"{len(tagger.tagdict)} tag dictionary words) -> {path}")


def cmd_tag(args: argparse.Namespace) -> str | None:
    """Tag ``args.text``; return the accuracy line for stderr with ``--gold``, else None."""
    if (args.model is None) == (args.nltk_json is None):
        raise ValueError("tag needs a model: MODEL.npz or --nltk-json DIR (one of them)")
    if args.lang is not None and args.nltk_json is None:
        raise ValueError("--lang applies to --nltk-json only")
    if args.nltk_json is not None:
        tagger = _nltk_json(args.nltk_json, args.lang)
    else:
        tagger = load_tagger(args.model)
    gold = None
    if args.gold:
        gold = load_tagged(args.text, "slash" if args.format == "text" else "conll")
        sentences = [[w for w, _ in s] for s in gold]
    else:
        sentences = list(_text_sentences(args.text, args.format))
    tagged = tagger.tag_sents(sentences)
    text = _render(tagged, args.format)
    if args.output:  # whole or not at all: never a truncated file
        replace_file(args.output, lambda handle: handle.write(text.encode("utf-8")))
    else:
        sys.stdout.write(text)
    if gold is None:
        return None
    n = sum(len(s) for s in gold)
    right = sum(tag == truth for predicted, pairs in zip(tagged, gold)
                for (_, tag), (_, truth) in zip(predicted, pairs))
    return f"accuracy {right / max(n, 1):.4f} ({right}/{n})"
