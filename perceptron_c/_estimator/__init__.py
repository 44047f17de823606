"""The floor every estimator stands on: the base classes and the label steps (`_base`), the
steps of a training call and its loop (`_training`), the `Run` protocol (`_run`), the state
arrays (`_state`), the linear models' base (`_linear_model`) and scikit-learn's arithmetic
(`_sgd_run`). The estimators' own modules (``perceptron``, ``passive_aggressive``, ...) write
their ``fit`` from these pieces."""
