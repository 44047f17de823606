"""What every estimator shares: scikit-learn base classes when installed, a small stand-in
when not (numpy alone is enough to fit and predict), seeds, and the epoch progress line."""
import inspect
import sys

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin

    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised in the numpy-only job
    HAVE_SKLEARN = False

    class BaseEstimator:
        """get_params / set_params / repr, following scikit-learn's conventions."""

        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p.name for p in sig.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for key, value in params.items():
                if key not in valid:
                    raise ValueError(f"Invalid parameter {key!r} for estimator {self!r}. "
                                     f"Valid parameters are: {valid!r}.")
                setattr(self, key, value)
            return self

        def __repr__(self):
            defaults = {p.name: p.default
                        for p in inspect.signature(type(self).__init__).parameters.values()}
            changed = [f"{k}={v!r}" for k, v in self.get_params().items()
                       if not (v is defaults.get(k) or v == defaults.get(k))]
            return f"{type(self).__name__}({', '.join(changed)})"

    class ClassifierMixin:
        _estimator_type = "classifier"

        def score(self, X, y):
            """Mean accuracy of ``predict(X)`` against ``y``."""
            return float(np.mean(self.predict(X) == np.asarray(y)))


def draw_seed(random_state):
    """One integer seed from ``random_state`` (None, int, Generator or RandomState)."""
    if random_state is None:
        return int(np.random.default_rng().integers(2**63))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
        return int(np.random.default_rng(int(random_state)).integers(2**63))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise ValueError(f"random_state must be None, an int, a numpy Generator or RandomState; "
                     f"got {random_state!r}")


def epoch_order(seed, epoch, n, shuffle):
    """Visiting order of one epoch: reproducible from (seed, epoch) alone, so a saved model
    resumes with exactly the permutations it would have drawn without stopping."""
    if not shuffle:
        return np.arange(n, dtype=np.int64)
    return np.random.default_rng([seed, epoch]).permutation(n).astype(np.int64)


def report_epoch(name, epoch, mistakes, n, seconds, extra=""):
    rate = 100.0 * mistakes / max(n, 1)
    print(f"[{name}] epoch {epoch}: {mistakes} mistakes / {n} ({rate:.2f}%), "
          f"{seconds:.3f} s{extra}", file=sys.stderr, flush=True)


class available_if:
    """Method decorator: the method exists on an instance only while ``check(instance)`` is
    true (``hasattr`` is False otherwise), so duck-typing callers such as scikit-learn see
    exactly the methods that work for the estimator's current parameters."""

    def __init__(self, check):
        self.check = check

    def __call__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__
        return self

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        if not self.check(obj):
            raise AttributeError(f"{type(obj).__name__}.{self.fn.__name__} is not available "
                                 "with the current parameters")
        return self.fn.__get__(obj, owner)


class PerceptronMixin:
    """What the perceptron estimators share: sparse-input tag, fitted check, class checks.

    Put before ``ClassifierMixin`` in the bases. Models count as fitted once ``classes_`` is
    set (fit or the first partial_fit)."""

    if HAVE_SKLEARN:
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.sparse = True
            return tags

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            from ._validation import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet. Call "
                                 "'fit' with appropriate arguments before using this estimator.")

    @staticmethod
    def _check_two_classes(classes):
        if len(classes) < 2:
            raise ValueError(f"y contains only one class ({classes.tolist()!r}); a classifier "
                             "needs samples of at least 2 classes")

    def _check_same_classes(self, classes):
        if not np.array_equal(classes, self.classes_):
            raise ValueError(f"y has classes {classes.tolist()} but the model was fitted on "
                             f"{self.classes_.tolist()}")

    def _check_flags(self, *names):
        for name in names:
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")

    def _check_ints(self, **lows):
        for name, low in lows.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")

    # ---------------------------------------------------------------- persistence helpers
    def save(self, path):
        """Write the fitted model to a versioned ``.npz`` (no pickle); read it back with
        `perceptron_c.load`."""
        from .io import save_model

        self._check_fitted()
        return save_model(self, path)

    def _common_state(self):
        """The state every estimator saves: labels, per-epoch mistakes, seed and counters."""
        self._check_fitted()
        classes = self.classes_.astype(str) if self.classes_.dtype == object else self.classes_
        return {"classes_": classes, "mistakes_": self.mistakes_,
                "scalars": np.array([self._seed, self._epochs_seen, self.n_features_in_,
                                     int(self.converged_)], dtype=np.uint64)}

    def _restore_common_state(self, arrays, need):
        """Check that ``need`` (plus the common keys) are present, set the common attributes
        and return (number of classes, n_features)."""
        missing = (set(need) | {"classes_", "mistakes_", "scalars"}) - set(arrays)
        if missing:
            raise ValueError(f"model file is missing {sorted(missing)}")
        classes = np.asarray(arrays["classes_"])
        scalars = np.asarray(arrays["scalars"])
        if classes.ndim != 1 or classes.shape[0] < 2 or scalars.shape != (4,):
            raise ValueError("model file: malformed classes_ or scalars")
        seed, epochs_seen, d, converged = (int(v) for v in scalars)
        self._seed, self._epochs_seen = seed, epochs_seen
        self.classes_ = classes
        self.n_features_in_ = d
        self.mistakes_ = np.asarray(arrays["mistakes_"], dtype=np.int64)
        self.n_iter_ = int(self.mistakes_.shape[0])
        self.converged_ = bool(converged)
        return classes.shape[0], d


def state_array(arrays, name, shape, dtype):
    """A model-file array, copied, after checking its shape, dtype and finiteness."""
    a = np.asarray(arrays[name])
    if a.shape != tuple(shape) or a.dtype != dtype or (a.dtype.kind == "f"
                                                       and not np.isfinite(a).all()):
        raise ValueError(f"model file: {name} must be finite {np.dtype(dtype)} of shape "
                         f"{tuple(shape)}, got {a.dtype} {a.shape}")
    return np.array(a)
