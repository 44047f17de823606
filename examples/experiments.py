"""Run every experiment of docs/experiments.md: print the tables, write the figures.

    python examples/experiments.py --out docs/figures          # the published run (~1-3 min)
    python examples/experiments.py --quick --out /tmp/figs     # seconds

Needs scikit-learn for the digits experiment (skipped with a note without it) and matplotlib
for the figures (pip install "perceptron-c[plot]"; --no-plots prints the tables only).
"""
import argparse
import sys
import time

from perceptron_c import experiments as E


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small configurations (seconds), for a smoke test")
    parser.add_argument("--out", default="figures", metavar="DIR",
                        help="directory for the PNG figures (figures)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every experiment (0)")
    parser.add_argument("--no-plots", action="store_true", help="print the tables only")
    args = parser.parse_args(argv)
    config = E.QUICK if args.quick else E.FULL

    import perceptron_c
    print(f"perceptron_c {perceptron_c.__version__} backend={perceptron_c.BACKEND} "
          f"seed={args.seed} {'quick' if args.quick else 'full'}")
    variants = E.VARIANTS if hasattr(perceptron_c, "VotedPerceptron") else ("last", "averaged")
    runs = [
        ("learning_curves", "1. Last vs averaged vs voted kernel perceptron (digits)",
         lambda: E.learning_curves(seed=args.seed, variants=variants,
                                   **config["learning_curves"]),
         E.format_learning_curves),
        ("ordering", "2. Visiting order: fixed (sorted by label) vs permuted once vs shuffled",
         lambda: E.ordering(seed=args.seed, **config["ordering"]), E.format_ordering),
        ("mistakes_vs_margin", "3. Mistakes until convergence vs (R/gamma)^2",
         lambda: E.mistakes_vs_margin(seed=args.seed, **config["mistakes_vs_margin"]),
         E.format_mistakes_vs_margin),
        ("boundaries_2d", "4. Decision boundaries in 2-D",
         lambda: E.boundaries_2d(seed=args.seed, **config["boundaries_2d"]),
         E.format_boundaries_2d),
    ]
    results = {}
    for name, title, run, fmt in runs:
        print(f"\n## {title}\n")
        tic = time.perf_counter()
        try:
            results[name] = run()
        except ImportError as exc:
            print(f"skipped: {exc}")
            continue
        print(fmt(results[name]))
        print(f"({time.perf_counter() - tic:.1f} s)")
    if "voted" not in variants:
        print("\nnote: perceptron_c.VotedPerceptron is not available; the voted curves "
              "were skipped.")
    if not args.no_plots:
        try:
            from perceptron_c import plots
            paths = plots.save_figures(results, args.out)
        except ImportError as exc:
            print(f"\nno figures: {exc}", file=sys.stderr)
            return 2
        print("\nfigures:\n" + "\n".join(f"  {p}" for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
