"""Ctrl-C at random moments: after each interrupted call the model is the one before the call
or the one after it, never between, and it saves and loads back equal (issue 34).

    cd /tmp && python /path/to/repo/bench/bench_interrupt_loop.py            # 200 a case
    python bench/bench_interrupt_loop.py --signals 8 --json out.json         # a quick run

Each case runs in a fresh interpreter: it makes a model, runs the call once uninterrupted on a
copy (the model "after", and the call's duration T), then ``--signals`` times on a fresh copy
with SIGINT sent at a uniformly random moment in [0, 1.2 T). A model is compared by what its
file holds (``perceptron_c.io``'s arrays, every state array and parameter; River's adapters
by their pickled state), before and after ``save``/``load`` (River's: a pickle round trip).
An interrupted ``fit`` keeps the epochs it completed, so its "after" is also the model of a
fit of that many epochs (tests/test_interrupt.py). Reported per case: signals sent, calls
interrupted, calls that ended first, models found between (the goal: none) and models whose
file did not load back equal (none).
"""
import argparse
import json
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")

# The handler first: a shell's background job inherits an ignored SIGINT.
PRELUDE = textwrap.dedent("""
    import os, pickle, random, signal, sys, tempfile, threading, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    import perceptron_c
    from perceptron_c.io import _file_arrays
    rng = np.random.default_rng(0)
    def canonical(value):
        # a value as plain data: arrays as (dtype, shape, bytes), containers recursively,
        # objects by their pickled state
        if isinstance(value, np.ndarray):
            return ("array", value.dtype.str, value.shape, value.tobytes())
        if isinstance(value, dict):
            return ("dict", [(canonical(k), canonical(v)) for k, v in value.items()])
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [canonical(v) for v in value])
        if hasattr(value, "__dict__") or hasattr(value, "__getstate__"):
            got = value.__getstate__() if hasattr(value, "__getstate__") else value.__dict__
            if got is not value and not isinstance(got, type(value)):
                return (type(value).__name__, canonical(got))
        return value
    def state(model):
        # what the model's file holds (every state array and parameter), or for a model
        # without one (River's adapters, which pickle) its pickled state
        try:
            arrays = _file_arrays(model)
        except TypeError:
            return canonical(model.__getstate__())
        return {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in arrays.items()}
""")
CASES = {
    "tagger train (greedy, a second train)": """
        base, call = trained_tagger(False, 1000, 300_000)
    """,
    "tagger train (structured)": """
        base, call = trained_tagger(True, 500, 150_000)
    """,
    "tagger tag_sents": """
        sys.path.insert(0, TESTS)
        from tagged_corpus import tagged_sentences
        from perceptron_c.tagging import PerceptronTagger
        random.seed(0)
        base = PerceptronTagger(load=False)
        base.train(tagged_sentences(0, 1000), nr_iter=2)
        words = [[w + str(k % 97) for w, _ in s]
                 for k, s in enumerate(tagged_sentences(2, 400_000))]
        def call(m):
            m.tag_sents(words)
    """,
    # fit keeps the epochs it completed (the model of a fit with max_iter those epochs: an
    # "after" of a shorter call, tests/test_interrupt.py); `shorter` makes that model
    "Perceptron fit (averaged, K-class)": """
        X = rng.normal(size=(60000, 50)); y = rng.integers(0, 5, 60000)
        base = perceptron_c.Perceptron(average=True, max_iter=30, tol=None, random_state=0)
        base.fit(X[:100], y[:100])
        def call(m):
            m.fit(X, y)
        def shorter(m):
            fitted = copy(base).set_params(max_iter=max(1, m.n_iter_)).fit(X, y)
            return fitted.set_params(max_iter=30)
    """,
    "KernelPerceptron fit (rbf)": """
        X = rng.normal(size=(4000, 10)); y = rng.integers(0, 2, 4000)
        base = perceptron_c.KernelPerceptron(kernel="rbf", max_iter=8, random_state=0)
        base.fit(X[:50], y[:50])
        def call(m):
            m.fit(X, y)
        def shorter(m):
            fitted = copy(base).set_params(max_iter=max(1, m.n_iter_)).fit(X, y)
            return fitted.set_params(max_iter=8)
    """,
    "Perceptron predict": """
        X = rng.normal(size=(400000, 50))
        base = perceptron_c.Perceptron(max_iter=3, random_state=0).fit(
            X[:1000], rng.integers(0, 40, 1000))
        def call(m):
            m.predict(X)
    """,
    "River learn_many (averaged perceptron)": """
        import pandas as pd
        from perceptron_c import river as pr
        frame = pd.DataFrame(rng.normal(size=(1_000_000, 20)),
                             columns=[f"x{j}" for j in range(20)])
        target = frame["x0"] + 0.5 * frame["x1"] > 0
        base = pr.Perceptron()
        base.learn_many(frame[:100], target[:100])
        def call(m):
            m.learn_many(frame, target)
    """,
}
COPY = textwrap.dedent("""
    def copy(model):
        return pickle.loads(pickle.dumps(model))
    shorter = None
    def trained_tagger(structured, tokens, more_tokens):
        # a tagger trained on `tokens`, and a second train of 3 epochs on more
        sys.path.insert(0, TESTS)
        from tagged_corpus import tagged_sentences
        from perceptron_c.tagging import PerceptronTagger
        random.seed(0)
        base = PerceptronTagger(load=False, structured=structured)
        base.train(tagged_sentences(0, tokens), nr_iter=1 if structured else 2)
        more = tagged_sentences(1, more_tokens)
        def call(m):
            random.seed(1)
            m.train(more, nr_iter=3)
        return base, call
""")
LOOP = textwrap.dedent("""
    before = state(base)
    probe = copy(base)
    t0 = time.perf_counter(); call(probe); duration = time.perf_counter() - t0
    after = state(probe)
    gen = random.Random(7)
    counts = {"signals": 0, "interrupted": 0, "finished": 0, "between": 0, "file": 0}
    folder = tempfile.mkdtemp()
    for k in range(SIGNALS):
        m = copy(base)
        timer = threading.Timer(gen.uniform(0.0, 1.2 * duration), os.kill,
                                (os.getpid(), signal.SIGINT))
        counts["signals"] += 1
        returned = False
        try:
            timer.start()
            call(m)
            returned = True
            timer.join()
            time.sleep(0.01)  # (the signal's handler runs here if the call ended first)
        except KeyboardInterrupt:
            pass
        counts["finished" if returned else "interrupted"] += 1
        timer.join()
        now = state(m)
        if now != before and now != after and (shorter is None or now != state(shorter(m))):
            counts["between"] += 1
        path = os.path.join(folder, "m.npz")
        if hasattr(m, "save"):
            m.save(path)
            loaded = perceptron_c.load(path)
        else:  # River's adapters pickle
            loaded = copy(m)
        if state(loaded) != now:
            counts["file"] += 1
    print(json.dumps({"duration": duration, **counts}))
""")


def run(case: str, signals: int) -> dict:
    code = PRELUDE + f"TESTS = {TESTS!r}\nSIGNALS = {signals}\nimport json\n" + COPY + \
        textwrap.dedent(CASES[case]) + LOOP
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=3600)
    if done.returncode != 0:
        return {"error": done.stderr[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _state_of_river(case: str) -> str | None:
    import importlib.util

    if "River" in case and importlib.util.find_spec("river") is None:
        return "river is not installed"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--signals", type=int, default=200, help="signals per case")
    p.add_argument("--cases", help="a substring: only the cases whose name holds it")
    p.add_argument("--json", default=os.path.join(HERE, "results", "interrupt_loop.json"))
    args = p.parse_args(argv)
    results, bad = {}, 0
    print(f"{'case':40s} {'T (s)':>6s} {'signals':>7s} {'interrupted':>11s} "
          f"{'finished':>8s} {'between':>7s} {'file':>4s}")
    for case in CASES:
        if args.cases and args.cases not in case:
            continue
        why = _state_of_river(case)
        r = {"skipped": why} if why else run(case, args.signals)
        results[case] = r
        if "error" in r or why:
            print(f"{case:40s} {why or 'ERROR: ' + r['error'][-300:]}")
            bad += "error" in r
            continue
        bad += r["between"] + r["file"]
        print(f"{case:40s} {r['duration']:6.2f} {r['signals']:7d} {r['interrupted']:11d} "
              f"{r['finished']:8d} {r['between']:7d} {r['file']:4d}", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=1)
    print(f"JSON: {args.json}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
