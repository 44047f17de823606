"""Iterative parameter mixing of the structured perceptron ([McDonald2010], the
paper's own case): `perceptron_c.dask.fit` with ``lengths``; runs on the workers.

A shard is a block of rows of X holding whole sentences: a block boundary that cuts a
sentence is refused (no silent rechunking: the caller chooses the blocks, the error names
the sentence and how to rechunk). Each epoch every shard runs one serial epoch of the
structured perceptron (``StructuredPerceptron``'s own run, its sentence order from the shard's
seed) from the mixed state; the mix is the textbook one (`_mixing.Textbook`): W, b and trans
weighted by mu_s, the averaging sums U, beta, U_trans scaled to the mixed clock as the
linear models' u and beta are, so one shard is the serial fit bit for bit.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._validation import check_y, encode_labels
from ._mixing import Job, Shard, Textbook, When, _shard_epoch, gate_block


def shard_lengths(X: Any, lengths: Any, call: str) -> list[np.ndarray]:
    """The sentence lengths of each block of rows of the dask array X (in memory), refusing
    a call without them (``call``: "fit" or "predict" of `perceptron_c.dask`), blocks of
    unknown size and boundaries inside a sentence."""
    from ..sequence import check_lengths, require_lengths

    example = "fit(model, X, y, lengths=lengths)" if call == "fit" else \
        "predict(model, X, lengths=lengths)"
    require_lengths(lengths, f"perceptron_c.dask.{call}", f"perceptron_c.dask.{example}")
    if not hasattr(X, "chunks") or X.ndim != 2:
        raise TypeError("X: a StructuredPerceptron takes a 2-d dask array chunked by rows")
    rows = X.chunks[0]
    if any(np.isnan(r) for r in rows):
        raise ValueError("X: blocks of unknown size (nan chunks); call X.compute_chunk_sizes()")
    if hasattr(lengths, "compute"):
        lengths = lengths.compute()
    offsets = check_lengths(lengths, int(sum(rows)))
    cuts = np.cumsum((0,) + tuple(int(r) for r in rows))
    at = np.searchsorted(offsets, cuts)
    for b, (cut, k) in enumerate(zip(cuts.tolist(), at.tolist())):
        if k >= offsets.shape[0] or offsets[k] != cut:
            s = k - 1
            raise ValueError(
                f"X: the block boundary at row {cut} (before block {b}) cuts sentence {s} "
                f"(rows {offsets[s]} to {offsets[s + 1] - 1}); chunk X at sentence "
                "boundaries, e.g. X.rechunk({0: rows}) with rows summing whole sentences")
    return [np.diff(offsets[at[b]:at[b + 1] + 1]) for b in range(len(rows))]


def prepare(X: Any, y: Any, lengths: np.ndarray, job: Job, shard: int) -> Shard | None:
    """Gate one block on its worker (None for an empty one): X as a serial fit gates it,
    the tags as class indices, and the block's sentence offsets in ``w``'s place."""
    gated = gate_block(X, (("y", y),), job, shard)
    if gated is None:
        return None
    est, Xc = gated
    _, y_enc = encode_labels(check_y(y, Xc.shape[0]), job.classes)
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return Shard(Xc, y_enc, offsets, None)


class Sentences(Textbook):
    """`Textbook` mixing over shards of whole sentences; a shard's mistakes are its tokens
    tagged wrongly (the serial stopping rule: an epoch without one ends the fit)."""

    prepare = staticmethod(prepare)

    @staticmethod
    def shard_mistakes(est: Any, shard: Shard, when: When, index: int) -> int:
        """One serial epoch over the shard's sentences, in the serial fit's order."""
        assert shard.w is not None
        run = est._start(shard.X, shard.y, None, {"offsets": shard.w})
        return _shard_epoch(est, run, run.order(), index)
