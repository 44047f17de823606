"""The floor every estimator stands on: the base classes and the label steps (`_base`), the
steps of a training call, its loop, the `Run` protocol the loop drives and the state arrays
a run works on (`_training`), the linear models' base (`_linear_model`) and scikit-learn's
arithmetic (`_sgd_run`). The estimators' own modules (``perceptron``, ``passive_aggressive``,
...) write their ``fit`` from these pieces."""
