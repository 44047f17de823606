"""The compiled core and its specification: every routine module as a pair of twins.

``_x_c.pyx`` is the C core (typed memoryviews, ``noexcept nogil`` loops) and ``_x_py.py`` its
twin in plain Python, the specification it matches bit for bit. ``registry.py`` lists the
pairs; ``perceptron_c._backend`` chooses which twin runs. Nothing here imports a model, and
nothing outside the package should import from here: the stable interfaces are
``perceptron_c.lowlevel`` (Python) and ``perceptron_c.capi`` (Cython).
"""
