"""``python -m perceptron_c``: the same command line as the ``perceptron-c`` script."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
