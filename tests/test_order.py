"""The visiting orders: `draw_permutation` draws the same permutation on both twins, for every
size (the C twin in chunks between Ctrl-C checks), through both paths of the bounded draw, and
the permutations it draws are uniform (a chi-square test over every permutation of 4 items)."""
import itertools

import numpy as np
import pytest
from conftest import BACKENDS, _module

from perceptron_c._estimator._base import epoch_order


def _draw(m, n, seed, epoch):
    order = np.full(n, -1, dtype=np.int64)
    m.draw_permutation(order, seed, epoch)
    return order


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_permutation_reproducible_from_seed_and_epoch(backend):
    m = _module(backend, "_order")
    for n in (0, 1, 2, 3, 17, 1000):
        for seed, epoch in [(0, 0), (1, 0), (0, 1), (2**63 - 1, 5), (2**64 - 1, 2**64 - 1)]:
            a = _draw(m, n, seed, epoch)
            assert np.array_equal(np.sort(a), np.arange(n))
            assert np.array_equal(a, _draw(m, n, seed, epoch))
    assert not np.array_equal(_draw(m, 50, 1, 0), _draw(m, 50, 1, 1))
    assert not np.array_equal(_draw(m, 50, 1, 0), _draw(m, 50, 2, 0))
    for bad in [(-1, 0), (0, -1), (2**64, 0)]:
        with pytest.raises(ValueError, match="seed and epoch"):
            _draw(m, 3, *bad)


def test_twins_draw_the_same_permutation():
    c, py = _module("c", "_order"), _module("python", "_order")
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(0, 3000))
        seed, epoch = int(rng.integers(2**63)), int(rng.integers(2**20))
        assert np.array_equal(_draw(c, n, seed, epoch), _draw(py, n, seed, epoch))
    # more than one chunk of swaps between the C twin's Ctrl-C checks (2^20)
    assert np.array_equal(_draw(c, (1 << 20) + 77, 9, 4), _draw(py, (1 << 20) + 77, 9, 4))


def test_twins_bound_alike_on_both_paths():
    c, py = _module("c", "_order"), _module("python", "_order")
    rng = np.random.default_rng(4)
    ks = [1, 2, 3, 7, 2**31 - 1, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**62,
          2**63 + 12345, 2**64 - 1, 2**63, 2**64 - 2**33 + 5]
    for k in ks:
        for _ in range(200):
            s = int(rng.integers(2**64, dtype=np.uint64))
            j, nxt = py._bounded(s, k)
            assert (j, nxt) == c._bounded(s, k) and 0 <= j < k


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_permutation_equally_likely(backend):
    m = _module(backend, "_order")
    perms = {p: i for i, p in enumerate(itertools.permutations(range(4)))}
    counts = np.zeros(24)
    draws = 12000
    for epoch in range(draws):
        counts[perms[tuple(_draw(m, 4, 11, epoch).tolist())]] += 1
    chi2 = float(((counts - draws / 24) ** 2 / (draws / 24)).sum())
    assert chi2 < 60.0, (chi2, counts)  # 23 degrees of freedom: P(chi2 > 60) ~ 4e-5


def test_epoch_order_is_the_routine():
    for backend in BACKENDS:
        m = _module(backend, "_order")
        assert np.array_equal(epoch_order(5, 2, 100, True), _draw(m, 100, 5, 2))
    assert np.array_equal(epoch_order(5, 2, 100, False), np.arange(100))
