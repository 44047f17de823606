"""Import time of perceptron_c against numpy's, side by side in one run (median of runs in
fresh interpreters), and which heavy packages the import pulls in. Goal (issue 23): within
1.3x of ``import numpy``, counting each beyond a bare interpreter, with scikit-learn and
scipy installed (neither is imported).

    cd /tmp && python /path/to/repo/bench/bench_import.py [--quick] [--repeat 21] [--json PATH]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "results", "import.json")
GOAL = 1.3  # import perceptron_c / import numpy, each minus a bare interpreter


def once(statement):
    tic = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", statement], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - tic


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=None,
                        help="fresh interpreters per case (default 21, 3 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: says nothing")
    parser.add_argument("--json", default=DEFAULT_JSON,
                        help=f"result file (default {DEFAULT_JSON})")
    args = parser.parse_args()
    if args.repeat is None:
        args.repeat = 3 if args.quick else 21
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    cases = {"python": "pass", "numpy": "import numpy",
             "perceptron_c": "import perceptron_c",
             "perceptron-c --version": "import sys; sys.argv = ['perceptron-c', '--version']\n"
                                        "from perceptron_c.cli import main; main()"}
    times = {name: [] for name in cases}
    for _ in range(args.repeat):  # interleaved, so load drifts hit every case alike
        for name, statement in cases.items():
            times[name].append(once(statement))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python"]
    heavy = subprocess.run(
        [sys.executable, "-I", "-c", "import sys, perceptron_c; print(sorted(m for m in "
         "('sklearn', 'scipy', 'matplotlib', 'pandas') if m in sys.modules))"],
        capture_output=True, text=True, check=True).stdout.strip()
    numpy_cost = medians["numpy"] - base
    ours = medians["perceptron_c"] - base
    ratio = ours / numpy_cost
    print(f"{'import':28} {'median s':>9} {'minus bare python':>18}")
    for name, value in medians.items():
        print(f"{name:28} {value:9.4f} {value - base:18.4f}")
    status = "PASS" if ratio <= GOAL else "MISS"
    print(f"perceptron_c / numpy (import cost beyond a bare interpreter): {ratio:.2f}x "
          f"(goal <= {GOAL}x: {status}); heavy modules loaded: {heavy}")
    import numpy

    import perceptron_c

    environment = {"python": sys.version.split()[0], "platform": platform.platform(),
                   "numpy": numpy.__version__, "perceptron_c": perceptron_c.__version__,
                   "backend": perceptron_c.BACKEND, "repeat": args.repeat,
                   "quick": args.quick}
    path = os.path.abspath(args.json)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"environment": environment, "times": times, "medians": medians,
                   "ratio": ratio, "heavy": heavy,
                   "goals": [{"goal": f"import perceptron_c <= {GOAL}x import numpy",
                              "value": ratio, "status": status}]}, handle, indent=2)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
