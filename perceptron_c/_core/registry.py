"""The one list of routine modules: every other list of them derives from this one.

Each entry ``name`` is a pair of twins in this package, ``_name_c.pyx`` (the compiled core)
and ``_name_py.py`` (its specification), reached through ``perceptron_c._backend.name``.
``setup.py`` builds the extensions from it, the dispatcher and its tests, the layout test and
the docs read it. This file imports nothing, so that ``setup.py`` can read it before the
package is built.

Adding a routine module: write the two twins (and a ``.pxd`` if Cython code cimports it) in
this folder, add its entry here and its accessor in ``_backend.py``.
"""

ROUTINES: dict[str, str] = {
    "linear": "the linear perceptron epochs (plain, averaged, K-class) and decisions",
    "gram": "bit packing, popcount and float Gram matrices",
    "dual": "the float dual (kernel) perceptron epochs and decisions",
    "conjunction": "the exact conjunction-kernel epochs (2^popcount(a AND b) as big integers)",
    "voted": "the voted perceptron's vote",
    "sgd": "scikit-learn's SGD epoch (Perceptron, passive-aggressive)",
    "budget": "the budget kernel perceptron epochs (Forgetron, random removal, Projectron)",
    "kpa": "the kernel passive-aggressive epochs",
    "order": "the visiting orders (shuffles drawn once for both twins)",
    "sequence": "the structured perceptron: Viterbi, epochs, decisions",
    "tagging": "the greedy tagger (NLTK's): epochs, and tagging Python tokens",
    "features": "token features: keys, interning, hashing",
    "tokens": "Python tokens read against a trained tagger (NLTK's static features), a block "
              "of sentences per call; the structured tagger's tagging",
    "dicts": "one example as a dict (River's learn_one, predict_one): read, scored, learned",
    "crfsuite": "CRFsuite's perceptron-family trainers (ap, pa, arow): one epoch",
    "crftag": "CRFsuite's crf1d tagging: an item sequence's names read, state scores, Viterbi",
}

# .pxd files of shared inline C helpers (no module of their own), and the C headers.
HELPER_PXD = ("_bigint", "_checks", "_dictbudget", "_dictrows", "_fixedpoint", "_lanes",
              "_popcount")

# Python modules every Python twin may import from (a twin imports no private name of another
# twin): _contract is the arithmetic contract and the shared checks, _lanes' and _checks' twin.
HELPER_PY = ("_contract",)


def twins(name: str) -> tuple[str, str]:
    """The module names (C twin, Python twin) of the routine module ``name``."""
    return f"_{name}_c", f"_{name}_py"
