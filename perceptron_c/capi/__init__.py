"""The C API: stable declarations of the compiled routines, for Cython code.

A Cython extension of another library cimports the routines from here::

    from perceptron_c.capi.linear cimport binary_epoch, decision

and compiles with ``include_dirs=[perceptron_c.get_include()]`` (the C headers the
declarations include). The guide's "Cython" section shows a complete consumer, with its
``pyproject.toml``; ``tests/test_consumer.py`` builds that consumer against the installed
package and checks its results against the Python twins.

What is here, and nothing else, is public: the ``.pxd`` files of ``perceptron_c._core`` behind
them may change at any release.

- ``linear``: ``binary_epoch``, ``multiclass_epoch``, ``decision`` (dense or CSR rows,
  float32 or float64).
- ``dual``: ``binary_cached``, ``multiclass_cached``, ``binary_rows``, ``multiclass_rows``
  (kernel perceptron epochs on a Gram or on kernel rows).
- ``conjunction``: ``conjunction_binary_rows``, ``conjunction_multiclass_rows``,
  ``conjunction_decision_rows``, ``conjunction_argmax_rows`` (exact conjunction kernel).
- ``voted``: ``vote_rows``, ``vote_conjunction_rows``.
- ``popcount``: ``pc_best_impl``, ``pc_impl_available``, ``pc_gram_popcount`` and the
  ``PC_IMPL_*`` constants.
- ``bigint``: ``conjunction_sign``, ``limbs_add_pow2``, ``limbs_sub_pow2``, ``limbs_sign``.
- ``sequence``: ``best_path`` (Viterbi on an emission matrix and packed transitions).

Stability: within a major version (``0.x`` counts each minor version as major until 1.0),
a name here keeps its signature and meaning; a change is a new name, and the old one stays
for at least one release with a deprecation note in the changelog. The routines do no
checking at all: every pointer must be valid for the sizes given (validate with
``perceptron_c.lowlevel`` or your own code first). Cython 3.1 or newer.
"""
