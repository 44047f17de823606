"""The floor every estimator stands on: the base classes (`_base`, `_supervised`), the
training loop (`_training`), the `Run` protocol and its epochs (`_run`, `_linear_model`,
`_sgd_run`) and the state arrays (`_state`). The estimators' own modules (``perceptron``,
``passive_aggressive``, ...) write their ``fit`` from these pieces."""
