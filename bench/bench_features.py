"""TokenFeatures and DictFeatures (perceptron_c.token_features) on their C twin against their
Python twin and scikit-learn's DictVectorizer, side by side in one run: tokens per second.

    python bench/bench_features.py            # ~300,000 tokens, ~1 minute
    python bench/bench_features.py --quick    # a smoke run, a few seconds

The sentences come from ``perceptron_c.datasets.make_tagged_sentences`` (words made of
syllables, capitalized words, 5,000 distinct words by default). For each template set (the
``nltk`` preset and the ``standard`` templates) it times ``fit_transform`` (building the
vocabulary) and ``transform`` (a fitted vocabulary), best of ``--repeat``, on both twins,
and ``DictVectorizer`` fed the same keys as per-token dicts: its time is counted from the
ready dicts (the time to build them in Python, which it needs, is reported apart), so the
ratio flatters it. Then ``dicts``: features a user made, sklearn-crfsuite's
``word2features`` (ten features a token, str, bool and float values, the neighbours' as
nested dicts), read by DictFeatures and by DictVectorizer from the same dicts (flattened:
DictVectorizer reads no nested dict). Writes a table and JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import perceptron_c
from perceptron_c import _backend
from perceptron_c._core import _features_py
from perceptron_c.datasets import make_tagged_sentences
from perceptron_c.token_features import DictFeatures, TokenFeatures

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = {"nltk": {"templates": "nltk"}, "standard": {}}


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """(the shortest of ``repeat`` runs in seconds, the last result)."""
    seconds, out = float("inf"), None
    for _ in range(repeat):
        tic = time.perf_counter()
        out = fn()
        seconds = min(seconds, time.perf_counter() - tic)
    return seconds, out


def measure_twin(twin: str, params: dict, sentences: list, repeat: int) -> dict:
    n = sum(map(len, sentences))
    with _backend.using(twin):
        fit_s, X = best(lambda: TokenFeatures(**params).fit_transform(sentences), repeat)
        tf = TokenFeatures(**params).fit(sentences)
        transform_s, _ = best(lambda: tf.transform(sentences), repeat)
    return {"fit_transform_tokens_per_s": n / fit_s, "transform_tokens_per_s": n / transform_s,
            "n_features": tf.n_features_out_, "nnz": int(X.nnz)}


def measure_dictvectorizer(params: dict, sentences: list, repeat: int) -> dict | None:
    try:
        from sklearn.feature_extraction import DictVectorizer
    except ImportError:
        return None
    spec = TokenFeatures(**params)._spec()
    n = sum(map(len, sentences))
    tic = time.perf_counter()
    dicts = [dict.fromkeys(keys, 1.0) for s in sentences
             for keys in _features_py.sentence_keys(s, spec)]
    build_s = time.perf_counter() - tic
    fit_s, _ = best(lambda: DictVectorizer().fit_transform(dicts), repeat)
    dv = DictVectorizer().fit(dicts)
    transform_s, _ = best(lambda: dv.transform(dicts), repeat)
    return {"fit_transform_tokens_per_s": n / fit_s, "transform_tokens_per_s": n / transform_s,
            "dicts_built_tokens_per_s": n / build_s, "n_features": len(dv.vocabulary_)}


def word2features(words: list[str], i: int) -> dict:
    """sklearn-crfsuite's tutorial features of token i, the neighbours' nested."""
    w = words[i]
    out = {"bias": 1.0, "lower": w.lower(), "suffix3": w[-3:], "suffix2": w[-2:],
           "isupper": w.isupper(), "istitle": w.istitle(), "isdigit": w.isdigit()}
    if i:
        out["-1"] = {"lower": words[i - 1].lower(), "istitle": words[i - 1].istitle()}
    else:
        out["BOS"] = True
    if i + 1 < len(words):
        out["+1"] = {"lower": words[i + 1].lower(), "istitle": words[i + 1].istitle()}
    else:
        out["EOS"] = True
    return out


def flat(item: dict, prefix: str = "") -> dict:
    out: dict = {}
    for k, v in item.items():
        if isinstance(v, dict):
            out.update(flat(v, prefix + k + ":"))
        else:
            out[prefix + k] = v
    return out


def measure_dicts(sentences: list, repeat: int) -> dict:
    n = sum(map(len, sentences))
    X = [[word2features(s, i) for i in range(len(s))] for s in sentences]
    r: dict = {}
    for twin, runs in (("c", repeat), ("python", 1)):
        with _backend.using(twin):
            fit_s, _ = best(lambda: DictFeatures().fit_transform(X), runs)
            df = DictFeatures().fit(X)
            transform_s, _ = best(lambda: df.transform(X), runs)
        r[twin] = {"fit_transform_tokens_per_s": n / fit_s,
                   "transform_tokens_per_s": n / transform_s, "n_features": df.n_features_out_}
    try:
        from sklearn.feature_extraction import DictVectorizer
    except ImportError:
        return r
    tokens = [flat(item) for s in X for item in s]
    fit_s, _ = best(lambda: DictVectorizer().fit_transform(tokens), repeat)
    dv = DictVectorizer().fit(tokens)
    transform_s, _ = best(lambda: dv.transform(tokens), repeat)
    r["dictvectorizer"] = {"fit_transform_tokens_per_s": n / fit_s,
                           "transform_tokens_per_s": n / transform_s,
                           "n_features": len(dv.vocabulary_)}
    return r


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sentences", type=int, default=20_000, help="~15 tokens each")
    p.add_argument("--words", type=int, default=5_000, help="distinct words")
    p.add_argument("--repeat", type=int, default=3, help="runs of each timing (best kept)")
    p.add_argument("--quick", action="store_true", help="1,000 sentences, one run each")
    p.add_argument("--json", default=os.path.join(HERE, "results", "features.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.sentences, args.words, args.repeat = 1_000, 500, 1
    sentences = [[w for w, _ in s]
                 for s in make_tagged_sentences(0, args.sentences, n_symbols=args.words)]
    n = sum(map(len, sentences))
    TokenFeatures().fit_transform(sentences[:10])  # warm up: scipy's import is not timed
    print(f"{n:,} tokens in {len(sentences):,} sentences (perceptron_c "
          f"{perceptron_c.__version__}, Python {platform.python_version()})")
    print(f"{'templates':10s} {'extractor':16s} {'fit tok/s':>12s} {'transform tok/s':>16s} "
          f"{'columns':>8s}")
    results: dict = {}
    ratios: dict = {}
    for name in (*SPECS, "dicts"):
        if name == "dicts":
            r = results[name] = measure_dicts(sentences, args.repeat)
        else:
            r = results[name] = {"c": measure_twin("c", SPECS[name], sentences, args.repeat),
                                 "python": measure_twin("python", SPECS[name], sentences, 1)}
            dv = measure_dictvectorizer(SPECS[name], sentences, args.repeat)
            if dv is not None:
                r["dictvectorizer"] = dv
        for who, m in r.items():
            print(f"{name:10s} {who:16s} {m['fit_transform_tokens_per_s']:12,.0f} "
                  f"{m['transform_tokens_per_s']:16,.0f} {m['n_features']:8,d}")
        ratios[name] = {f"c/{who}": r["c"]["transform_tokens_per_s"] /
                        m["transform_tokens_per_s"] for who, m in r.items() if who != "c"}
        print(f"{name:10s} transform ratios: " +
              ", ".join(f"{k} {v:.1f}x" for k, v in ratios[name].items()))
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"args": vars(args), "tokens": n, "machine": {
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(), "processor": platform.processor()},
            "results": results, "ratios": ratios}, handle, indent=1)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
