"""Import time of perceptron_c against numpy's, side by side in one run (median of runs in
fresh interpreters), and which heavy packages the import pulls in. Goal: within 1.5x of
``import numpy`` with scikit-learn and scipy installed (neither is imported).

    cd /tmp && python /path/to/repo/bench/bench_import.py [--repeat 21] [--json out.json]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def once(statement):
    tic = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", statement], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - tic


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
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
    print(f"perceptron_c / numpy (import cost beyond a bare interpreter): {ratio:.2f}x "
          f"(goal <= 1.5x: {'PASS' if ratio <= 1.5 else 'MISS'}); heavy modules loaded: {heavy}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"medians": medians, "ratio": ratio, "heavy": heavy}, handle, indent=2)


if __name__ == "__main__":
    main()
