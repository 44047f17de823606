"""Helpers for the test suite and for users who run scikit-learn's estimator checks.

``EXPECTED_FAILED_CHECKS`` maps an estimator class name to {check name: reason} for the
checks of ``sklearn.utils.estimator_checks.check_estimator`` that a perceptron cannot pass.
It is the one place such exceptions are declared; pass it on as
``check_estimator(est, expected_failed_checks=EXPECTED_FAILED_CHECKS[type(est).__name__])``.
"""

EXPECTED_FAILED_CHECKS = {
    "Perceptron": {},
    "KernelPerceptron": {},
    "VotedPerceptron": {},
}
