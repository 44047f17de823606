"""What the installed scikit-learn computes: the one place the parity tests ask.

The package mirrors the newest scikit-learn (1.9); the extras allow scikit-learn >= 1.6,
and on Python 3.10 pip can install no newer than 1.7.2. Read from the source of each release
(``sklearn/linear_model/_sgd_fast.pyx.tp``, ``_stochastic_gradient.py``,
``_passive_aggressive.py``, ``sklearn/utils/_weight_vector.pyx.tp`` at the tags 1.6.0,
1.6.1, 1.7.0, 1.7.2, 1.8.0, 1.9.0, 1.9.1), the arithmetic of the estimators compared here
changed once, in 1.8; 1.6.0 to 1.7.2 compute alike, and so do 1.8.0 to 1.9.1. Each entry of
`CHANGES` is one difference: the first release with today's behaviour and what the releases
before it do. A parity test compares exactly (``np.array_equal``) where the installed
release computes what the package computes, asks `differs` where it may not, and skips with
the entry's reason where it does not.
"""
import re

try:
    import sklearn
except ImportError:  # the parity tests skip themselves without it
    VERSION = None
else:
    VERSION = tuple(int(re.match(r"\d+", part).group()) for part in
                    sklearn.__version__.split(".")[:2])


class Change:
    def __init__(self, since, before):
        self.since, self.before = since, before


CHANGES = {
    # _sgd_fast.pyx.tp, 1.7.2 line 571 (1.6.0 line 575): `sumloss > best_loss - tol *
    # train_count`, the loss alone; 1.8.0 line 610: `objective_sum / train_count >
    # best_objective - tol`, where the objective adds alpha * ((1 - l1_ratio) * 0.5 * ||w||^2
    # + l1_ratio * ||w||_1) per example unless the rate is pa1 / pa2 (line 501; changelog
    # v1.8, PR 31856)
    "tol_rule_without_penalty": Change(
        (1, 8), "its tol rule sums the epoch's loss without the penalty term (1.8 changed "
        "it to the mean objective with the penalty; PR 31856), so with tol and a penalty "
        "set it may stop after another epoch than this package, which follows 1.8"),
    # _stochastic_gradient.py 1.7.2, lines 924 and 1622: SGDClassifier.fit and
    # SGDRegressor.fit call _fit with C=1.0, and _sgd_fast.pyx.tp 1.7.2 lines 489 and 492 take
    # the PA step's C from there, not from eta0; only PassiveAggressive*.fit passes its C
    # (_passive_aggressive.py 1.7.2 lines 306 and 568), and that fit takes no sample_weight.
    # From 1.8 that C is eta0 (_sgd_fast.pyx.tp 1.8.0 lines 518 and 521), which the PA
    # estimators set to C (_passive_aggressive.py 1.8.0 lines 238 and 540).
    "pa_rates_ignore_eta0": Change(
        (1, 8), "SGDClassifier and SGDRegressor with learning_rate='pa1' / 'pa2' take the "
        "passive-aggressive C as 1.0 whatever eta0 is (eta0 became that C in 1.8), and "
        "PassiveAggressive*.fit takes no sample_weight"),
}


def differs(name):
    """The reason the installed scikit-learn computes otherwise than the package, or None."""
    change = CHANGES[name]
    if VERSION is None or VERSION >= change.since:
        return None
    return (f"scikit-learn {sklearn.__version__} (before "
            f"{'.'.join(map(str, change.since))}): {change.before}")


def fit_pa(estimator, X, y, sample_weight=None):
    """Fit scikit-learn's ``PassiveAggressive*`` estimator (unfitted, with its parameters)
    through the SGD estimator it is built on, whose ``fit`` takes ``sample_weight``: from 1.8
    ``SGDClassifier`` / ``SGDRegressor`` with ``learning_rate="pa1"`` / ``"pa2"`` and
    ``eta0=C``, what its own ``fit`` builds; before 1.8 (see "pa_rates_ignore_eta0") the
    private ``_fit`` that its own ``fit`` calls with its ``C``, which takes the weights there
    (the same code in every release from 1.6.0 to 1.7.2)."""
    params = estimator.get_params()
    classifier = "class_weight" in params
    rate = "pa2" if params["loss"].startswith("squared") else "pa1"
    loss = "hinge" if classifier else "epsilon_insensitive"
    if differs("pa_rates_ignore_eta0"):
        estimator._more_validate_params()
        return estimator._fit(X, y, alpha=1.0, C=params["C"], loss=loss, learning_rate=rate,
                              sample_weight=sample_weight)
    import sklearn.linear_model as sk

    sgd = {k: v for k, v in params.items() if k not in ("C", "loss")}
    sgd = dict(sgd, loss=loss, penalty=None, learning_rate=rate, eta0=params["C"])
    cls = sk.SGDClassifier if classifier else sk.SGDRegressor
    return cls(**sgd).fit(X, y, sample_weight=sample_weight)
