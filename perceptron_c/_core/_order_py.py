"""Pure-Python twin of ``_order_c``: the specification of the visiting orders.

``draw_permutation`` fills an int64 array with the permutation of an epoch, drawn from (seed,
epoch) alone: the models' visiting orders (`_base.epoch_order`). Every step is an operation on
64-bit unsigned integers (Python ints reduced modulo 2^64), so the C twin, with the same steps
in C, draws the same permutation on every platform.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._contract import _I64

__all__ = ["draw_permutation"]

_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    """SplitMix64's output function (Steele, Lea & Flood, "Fast Splittable Pseudorandom
    Number Generators", OOPSLA 2014), on 64-bit words."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def draw_permutation(order: _I64, seed: int, epoch: int) -> None:
    """Fill ``order`` with a permutation of 0..n-1 drawn from (seed, epoch) alone: the
    visiting order of an epoch.

    Fisher-Yates from the end (Knuth, TAOCP 2, Alg. 3.4.2P): for i = n-1 down to 1, swap
    order[i] with order[j], j uniform in [0, i]. The numbers come from SplitMix64 started at
    mix64(seed ^ mix64(epoch + golden)), one step (s += golden, mix64(s)) per number. j is
    Lemire's bounded draw ("Fast Random Integer Generation in an Interval", 2019) on the high
    32 bits r of a number: m = r (i + 1), accepted when its low 32 bits are at least
    2^32 mod (i + 1), j = m >> 32; beyond 2^32 rows, the 64-bit number modulo i + 1, drawn
    again while it falls in the last incomplete block of 2^64. Every step is an integer
    operation, so both twins draw the same permutation.
    """
    if not (0 <= seed <= _M64 and 0 <= epoch <= _M64):
        raise ValueError("seed and epoch must lie in [0, 2^64)")
    n = order.shape[0]
    idx = list(range(n))
    s = _mix64(seed ^ _mix64((epoch + _GOLDEN) & _M64))
    for i in range(n - 1, 0, -1):
        j, s = _bounded(s, i + 1)
        idx[i], idx[j] = idx[j], idx[i]
    order[:] = idx


def _bounded(s: int, k: int) -> tuple[int, int]:
    """(j uniform in [0, k), the generator's next state) from state s, as described above."""
    s = (s + _GOLDEN) & _M64
    z = _mix64(s)
    if k <= 1 << 32:
        m = (z >> 32) * k
        if m & 0xFFFFFFFF < k:
            floor = ((1 << 32) - k) % k
            while m & 0xFFFFFFFF < floor:
                s = (s + _GOLDEN) & _M64
                m = (_mix64(s) >> 32) * k
        return m >> 32, s
    limit = (1 << 64) - (1 << 64) % k
    while z >= limit:
        s = (s + _GOLDEN) & _M64
        z = _mix64(s)
    return z % k, s
