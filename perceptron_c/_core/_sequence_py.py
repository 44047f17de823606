"""Pure-Python twin of ``_sequence_c``: the specification of the structured perceptron.

[Collins2002], Fig. 1 (the
perceptron over tag sequences, decoded by Viterbi), averaged by lazy sums as in [Daume2017]
Alg. 7. Each function works in place on the numpy arrays it is given, exactly
like its C twin of the same name and signature. Inputs are canonical (see ``_validation``):
one row of X per token (C-contiguous float32/float64, or CSR as (data, indices int32, indptr
int64)), sentences as ``offsets`` (int64, offsets[0] = 0, monotone, offsets[-1] = n_tokens:
sentence s is tokens offsets[s] to offsets[s + 1] - 1), gold tags ``y`` as int64 indices in
[0, K), weights float64: W (d, K) and b (K,) score the tags of one token (W is
feature-major: row j holds feature j's weight for every tag, so a token's features are read
once each, as K contiguous weights), ``trans`` (K + 2, K) their sequence: trans[i, j] tag i
followed by tag j, trans[K, j] tag j first (start), trans[K + 1, j] tag j last (end).

Arithmetic contract shared with the C twin (so the two agree bit for bit on any data):
- the emission of tag k at a token is ``_linear``'s decision on the tag-major weights W.T:
  the product x_p * W[j_p, k] of the feature at position p of the row (j_p its column) goes
  to lane p % 4 of tag k, the lanes sum as (s0 + s1) + (s2 + s3), plus b_k
  (``_contract.dot4_indexed``);
- Viterbi: delta_0[j] = trans[K, j] + E[0, j]; delta_t[j] = max over i of
  ((delta_{t-1}[i] + trans[i, j]) + E[t, j]), in exactly that order of additions; the path
  ends at the j of largest delta_{T-1}[j] + trans[K + 1, j]. Candidates are compared in index
  order with a strict >, so every tie (each step's and the last) goes to the lowest tag;
- ``trans`` must be finite (else FloatingPointError naming the entry), and every delta and
  every final score must be: a non-finite emission, or a sum that overflows, raises
  FloatingPointError naming the sentence (and in an epoch its position in the visiting
  order); the epoch stops there with the state written back as it is;
- the update for a sentence decoded wrongly compares the two tag sequences position by
  position: at each token whose predicted tag p differs from the gold tag g, for each
  feature j of its row in the row's order, W[j, g] += 1 * x_j and then W[j, p] += -1 * x_j
  (b_g += 1, b_p -= 1 with an intercept); at each of the T + 1 transitions (start -> tag 0,
  tag t-1 -> tag t, tag T-1 -> end) whose gold pair differs from the predicted pair, the gold
  pair's score += 1, then the predicted pair's -= 1. Pairs that agree are not touched (the
  full Collins update Phi(gold) - Phi(pred) cancels on them);
- averaging (Alg. 7): with the example counter c (``count``, 1 before the first sentence) the
  same update scaled by c goes into U, beta, U_trans (``c * x``, ``+-c``), and c grows by one
  after every sentence, mistake or not. The averaged model is (W - U/c, b - beta/c,
  trans - U_trans/c);
- allowed transitions (``allowed``, uint8 or bool (K + 2, K) in trans's layout, or None: all
  allowed): Viterbi reads -inf in place of trans[i, j] where allowed[i, j] is 0, so no path
  through a forbidden transition can win while an allowed one exists. A score of -inf is then
  an impossible path, not an error: NaN and +inf still raise, and so does a sentence whose
  best score is -inf (no allowed sequence, or every one overflowed). Training requires the
  gold sequences to be allowed (a ValueError names the first sentence that is not, before
  anything changes); the updates then touch allowed entries only, and trans keeps its values
  at the forbidden ones;
- second order (``trans2``, float64 (K + 1, K + 1, K + 1), or None: first order): the scores
  of tag trigrams ([Collins2002], section 3's trigram tagger), added to the first-order
  scores above. Index K is the sentence's boundary: the start in the first two axes (before
  the first tag and before that), the end in the last. A sequence y_0..y_{T-1} scores its
  T + 1 trigrams (S, S, y_0), (S, y_0, y_1), (y_{t-2}, y_{t-1}, y_t) for t >= 2, and
  (y_{T-2}, y_{T-1}, E) (with y_{-1} = S when T = 1); trans2 must be finite. Viterbi runs on
  tag pairs: with c_t[i, j] = trans[i, j] + E[t, j] (i = K at t = 0),
  delta_0[j] = trans2[K, K, j] + c_0[K, j],
  delta_1[i, j] = (delta_0[i] + trans2[K, i, j]) + c_1[i, j], and for t >= 2
  delta_t[i, j] = (max over h of (delta_{t-1}[h, i] + trans2[h, i, j])) + c_t[i, j], the h
  compared in index order with a strict > (ties to the lowest h) before c_t is added (one
  addition less per candidate than first order's step); the path ends at the pair (i, j)
  of largest (delta_{T-1}[i, j] + trans2[i, j, K]) + trans[K + 1, j], pairs compared with i
  outside and j inside, strict > (at T = 1, the j of largest
  (delta_0[j] + trans2[K, j, K]) + trans[K + 1, j]). The non-finite rules and the allowed
  transitions are the first-order ones (a forbidden pair's c is -inf). The update adds, after
  the first-order one, at each of the T + 1 trigrams whose gold and predicted triples
  differ, +1 to the gold triple's score, then -1 to the predicted one's (scaled by c in
  U_trans2 when averaging).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._contract import (
    check_csr,
    csr_rows,
    decode_blocks,
    dense_rows,
    need,
    non_finite_sentence,
)

if TYPE_CHECKING:
    from ._contract import _D, _F, _I32, _I64, _U8
    from ._contract import Rows as _Rows

__all__ = [
    "viterbi",
    "emissions_dense",
    "emissions_csr",
    "decode_dense",
    "decode_csr",
    "structured_epoch_dense",
    "structured_epoch_csr",
]

def _check_trans(trans: _D, n_tags: int) -> None:
    need(n_tags >= 1 and trans.shape == (n_tags + 2, n_tags),
         "trans must have shape (n_tags + 2, n_tags)")
    for i, row in enumerate(trans.tolist()):
        for j, v in enumerate(row):
            if not math.isfinite(v):
                raise FloatingPointError(f"trans[{i}, {j}] is not finite")


def _check_trans2(trans2: _D | None, n_tags: int) -> list[list[list[float]]] | None:
    """trans2 as nested lists after its checks (None: first order)."""
    if trans2 is None:
        return None
    n = n_tags + 1
    need(getattr(trans2, "shape", None) == (n, n, n),
         "trans2 must have shape (n_tags + 1, n_tags + 1, n_tags + 1)")
    t2 = trans2.tolist()
    for h, plane in enumerate(t2):
        for i, row in enumerate(plane):
            for j, v in enumerate(row):
                if not math.isfinite(v):
                    raise FloatingPointError(f"trans2[{h}, {i}, {j}] is not finite")
    return t2


def _check_offsets(offsets: _I64, n_tokens: int) -> None:
    p = offsets.tolist()
    need(len(p) >= 1 and p[0] == 0 and p[-1] == n_tokens and
         all(p[s] <= p[s + 1] for s in range(len(p) - 1)),
         "offsets must be monotone from 0 to the number of tokens")


def _bad(v: float, masked: bool) -> bool:
    """A score Viterbi refuses: not finite; with allowed transitions, NaN or +inf (-inf is an
    impossible path)."""
    return (v != v or v == math.inf) if masked else not math.isfinite(v)


def _check_allowed(allowed: object, n_tags: int) -> list[list[bool]] | None:
    """allowed as lists of bools, after its checks (None: every transition allowed)."""
    if allowed is None:
        return None
    need(getattr(allowed, "shape", None) == (n_tags + 2, n_tags) and
         getattr(allowed, "dtype", None) in (np.uint8, np.bool_),
         "allowed must be a uint8 or bool array of trans's shape (n_tags + 2, n_tags)")
    return [[bool(v) for v in row] for row in allowed.tolist()]  # type: ignore[attr-defined]


def _masked(tl: list[list[float]], ok: list[list[bool]] | None) -> list[list[float]]:
    """trans as Viterbi reads it: -inf at the forbidden transitions (a copy)."""
    if ok is None:
        return tl
    return [[v if a else -math.inf for v, a in zip(row, arow)] for row, arow in zip(tl, ok)]


def _check_gold(y: list[int], p: list[int], ok: list[list[bool]] | None) -> None:
    """Training on allowed transitions: every gold sequence must be allowed."""
    if ok is None:
        return
    K = len(ok[0])
    for s in range(len(p) - 1):
        if p[s] < p[s + 1]:
            for i, j in _pairs(y[p[s]:p[s + 1]], K):
                if not ok[i][j]:
                    raise ValueError(f"y: sentence {s} has the transition "
                                     f"{_transition(i, j, K)}, which allowed forbids")


def _transition(i: int, j: int, K: int) -> str:
    """Entry (i, j) of trans in words."""
    if i == K:
        return f"start -> tag {j}"
    return f"tag {j} -> end" if i == K + 1 else f"tag {i} -> tag {j}"


def _predecessor(delta: list[float], tr: list[float], e: float | None) -> tuple[float, int]:
    """One Viterbi step into one state: the largest (delta[h] + tr[h]) + e (e None: without
    it) and its h, the candidates compared in index order with a strict > (ties to the
    lowest h)."""
    best, arg = delta[0] + tr[0], 0
    if e is not None:
        best += e
    for h in range(1, len(delta)):
        cand = delta[h] + tr[h]
        if e is not None:
            cand += e
        if cand > best:
            best, arg = cand, h
    return best, arg


def _best_path(E: list[list[float]], trans: list[list[float]],
               masked: bool = False) -> list[int] | None:
    """[Collins2002], Viterbi: the best tag sequence for emissions E (T rows of K scores),
    or None when a score is not finite (``masked``: trans holds -inf at the forbidden
    transitions, see the contract)."""
    K = len(trans[0])
    delta = [trans[K][j] + E[0][j] for j in range(K)]  # delta_0
    if any(_bad(v, masked) for v in delta):
        return None
    back: list[list[int]] = []
    into = [[trans[i][j] for i in range(K)] for j in range(K)]  # into[j][i] = trans[i][j]
    for t in range(1, len(E)):
        new, arg = [], []
        for j in range(K):
            best, bi = _predecessor(delta, into[j], E[t][j])
            if _bad(best, masked):
                return None
            new.append(best)
            arg.append(bi)
        delta = new
        back.append(arg)
    path = _best_end([delta[j] + trans[K + 1][j] for j in range(K)], masked, 0)
    if path is None:
        return None
    for arg in reversed(back):  # follow the backpointers from the end
        path.append(arg[path[-1]])
    path.reverse()
    return path


def _best_path2(E: list[list[float]], trans: list[list[float]],
                trans2: list[list[list[float]]], masked: bool = False) -> list[int] | None:
    """[Collins2002], section 3: Viterbi over tag pairs with the trigram scores trans2 (see the
    contract), or None when a score is not finite."""
    K = len(trans[0])
    S = K  # the boundary's index
    first = [trans2[S][S][j] + (trans[K][j] + E[0][j]) for j in range(K)]  # delta_0
    if any(_bad(v, masked) for v in first):
        return None
    if len(E) == 1:
        scores = [(first[j] + trans2[S][j][K]) + trans[K + 1][j] for j in range(K)]
        return _best_end(scores, masked, 0)
    delta = [[(first[i] + trans2[S][i][j]) + (trans[i][j] + E[1][j]) for j in range(K)]
             for i in range(K)]  # delta_1
    if any(_bad(v, masked) for row in delta for v in row):
        return None
    back: list[list[list[int]]] = []
    # into[i][j][h] = trans2[h][i][j]: the scores of tag j after (h, i), for every h
    into = [[[trans2[h][i][j] for h in range(K)] for j in range(K)] for i in range(K)]
    for t in range(2, len(E)):
        new, arg = [], []
        for i in range(K):
            row, brow = [], []
            before = [delta[h][i] for h in range(K)]  # delta_{t-1}[h, i] for every h
            for j in range(K):
                best, bh = _predecessor(before, into[i][j], None)
                best += trans[i][j] + E[t][j]  # c_t[i, j], after the compares
                if _bad(best, masked):
                    return None
                row.append(best)
                brow.append(bh)
            new.append(row)
            arg.append(brow)
        delta = new
        back.append(arg)
    scores = [(delta[i][j] + trans2[i][j][K]) + trans[K + 1][j]
              for i in range(K) for j in range(K)]
    last2 = _best_end(scores, masked, K)
    if last2 is None:
        return None
    path = last2[::-1]  # backwards: the last tag, the one before, ...
    for arg in reversed(back):  # follow the backpointers from the end
        path.append(arg[path[-1]][path[-2]])
    path.reverse()
    return path


def _best_end(scores: list[float], masked: bool, K: int) -> list[int] | None:
    """The last tag (a score per tag: K == 0) or the last two tags (scores of the pairs (i, j)
    of K tags in row-major order) of the best path: the first largest score."""
    best, arg = scores[0], 0
    for a, v in enumerate(scores):
        if _bad(v, masked):
            return None
        if v > best:
            best, arg = v, a
    if best == -math.inf:  # (masked only) no allowed sequence
        return None
    return [arg] if K == 0 else [arg // K, arg % K]


def _path(E: list[list[float]], trans: list[list[float]],
          trans2: list[list[list[float]]] | None, masked: bool) -> list[int] | None:
    """The best path of one sentence, first or second order."""
    if trans2 is None:
        return _best_path(E, trans, masked)
    return _best_path2(E, trans, trans2, masked)


def viterbi(E: _D, trans: _D, offsets: _I64, out: _I64, *, allowed: _U8 | None = None,
            trans2: _D | None = None) -> None:
    """The best tag sequence of every sentence given its emission scores E (n_tokens, K),
    into ``out`` (n_tokens,) ([Collins2002], Viterbi; the contract above), through the
    ``allowed`` transitions only (None: all), second order with ``trans2``."""
    K = E.shape[1]
    _check_trans(trans, K)
    t2 = _check_trans2(trans2, K)
    ok = _check_allowed(allowed, K)
    _check_offsets(offsets, E.shape[0])
    need(out.shape[0] == E.shape[0], "out must have one entry per token")
    El, tl, p = E.tolist(), _masked(trans.tolist(), ok), offsets.tolist()
    for s in range(len(p) - 1):
        if p[s] == p[s + 1]:
            continue
        path = _path(El[p[s]:p[s + 1]], tl, t2, ok is not None)
        if path is None:
            raise non_finite_sentence(s)
        out[p[s]:p[s + 1]] = path


def _emissions(row: _Rows, start: int, stop: int, W: list[list[float]],
               b: list[float]) -> list[list[float]]:
    """E[t][k] = x_t . W[:, k] + b_k for the tokens start..stop-1 (``_linear``'s decision on
    W.T): each feature's row of W is read once, into lane p % 4 of every tag."""
    K, E = len(b), []
    for i in range(start, stop):
        x, cols = row(i)
        lanes = [[0.0] * K for _ in range(4)]
        for p, v in enumerate(x):
            lane, w = lanes[p & 3], W[p if cols is None else cols[p]]
            for k in range(K):
                lane[k] += v * w[k]
        s0, s1, s2, s3 = lanes
        E.append([((s0[k] + s1[k]) + (s2[k] + s3[k])) + b[k] for k in range(K)])
    return E


def _emissions_out(row: _Rows, n_tokens: int, W: _D, b: _D, out: _D) -> None:
    K = W.shape[1]
    need(b.shape[0] == K, "b must have one entry per column of W")
    need(out.shape[0] == n_tokens and out.shape[1] == K, "out must have shape (n_tokens, K)")
    if n_tokens:
        out[:] = _emissions(row, 0, n_tokens, W.tolist(), b.tolist())


def emissions_dense(X: _F, W: _D, b: _D, out: _D) -> None:
    """The emission scores of every token of X under the feature-major (W, b), into ``out``
    (n_tokens, K): exactly ``_linear``'s decision of W.T (the contract above)."""
    need(W.shape[0] == X.shape[1], "W must have one row per feature")
    _emissions_out(dense_rows(X), X.shape[0], W, b, out)


def emissions_csr(data: _F, indices: _I32, indptr: _I64, W: _D, b: _D, out: _D) -> None:
    """`emissions_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    _emissions_out(csr_rows(data, indices, indptr), indptr.shape[0] - 1, W, b, out)


def _decode(row: _Rows, n_tokens: int, W: _D, b: _D, trans: _D, offsets: _I64, out: _I64,
            n_jobs: object, row_len: int, allowed: _U8 | None, trans2: _D | None) -> None:
    K = W.shape[1]
    need(b.shape[0] == K, "b must have one entry per column of W")
    _check_trans(trans, K)
    t2 = _check_trans2(trans2, K)
    ok = _check_allowed(allowed, K)
    _check_offsets(offsets, n_tokens)
    need(out.shape[0] == n_tokens, "out must have one entry per token")
    Wl, bl, tl, p = W.tolist(), b.tolist(), _masked(trans.tolist(), ok), offsets.tolist()

    def block(first: int, stop: int) -> int:
        for s in range(first, stop):
            if p[s] == p[s + 1]:
                continue
            path = _path(_emissions(row, p[s], p[s + 1], Wl, bl), tl, t2, ok is not None)
            if path is None:
                return s
            out[p[s]:p[s + 1]] = path
        return -1

    decode_blocks(block, offsets, K, row_len + (0 if t2 is None else K * K), n_jobs)


def decode_dense(X: _F, W: _D, b: _D, trans: _D, offsets: _I64, out: _I64, *,
                 n_jobs: object = None, allowed: _U8 | None = None,
                 trans2: _D | None = None) -> None:
    """The best tag sequence of every sentence of X under (W, b, trans), into ``out``: the
    emissions of one sentence at a time, then Viterbi (through the ``allowed`` transitions
    only; None: all; second order with ``trans2``). Sentences are cut into blocks of a few
    milliseconds that ``n_jobs`` threads share; the tags never depend on ``n_jobs``."""
    need(W.shape[0] == X.shape[1], "W must have one row per feature")
    _decode(dense_rows(X), X.shape[0], W, b, trans, offsets, out, n_jobs, X.shape[1], allowed,
            trans2)


def decode_csr(data: _F, indices: _I32, indptr: _I64, W: _D, b: _D, trans: _D,
               offsets: _I64, out: _I64, *, n_jobs: object = None,
               allowed: _U8 | None = None, trans2: _D | None = None) -> None:
    """`decode_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    n = indptr.shape[0] - 1
    _decode(csr_rows(data, indices, indptr), n, W, b, trans, offsets, out, n_jobs,
            int(indptr[-1]) // max(1, n), allowed, trans2)


def _check_epoch(n_tokens: int, d: int, y: _I64, offsets: _I64, order: _I64, W: _D, b: _D,
                 trans: _D, U: _D | None, beta: _D | None, U_trans: _D | None,
                 count: _I64 | None, mistakes: _I64, trans2: _D | None,
                 U_trans2: _D | None) -> None:
    K = W.shape[1]
    need(W.shape[0] == d, "W must have one row per feature")
    need(b.shape[0] == K, "b must have one entry per column of W")
    _check_trans(trans, K)
    _check_trans2(trans2, K)
    _check_offsets(offsets, n_tokens)
    need(y.shape[0] == n_tokens, "y must have one tag per token")
    need(all(0 <= v < K for v in y.tolist()), f"y must hold tag indices in [0, {K})")
    n_sent = offsets.shape[0] - 1
    need(all(0 <= s < n_sent for s in order.tolist()),
         f"order must hold sentence indices in [0, {n_sent})")
    need(mistakes.shape[0] == 2, "mistakes must have shape (2,)")
    need(U_trans2 is None if U is None or trans2 is None else
         getattr(U_trans2, "shape", None) == trans2.shape,
         "U_trans2 goes with U and trans2, in trans2's shape")
    if U is None:
        need(beta is None and U_trans is None and count is None,
             "U, beta, U_trans and count go together")
        return
    need(beta is not None and U_trans is not None and count is not None,
         "U, beta, U_trans and count go together")
    assert beta is not None and U_trans is not None and count is not None
    need(U.shape == W.shape, "U must have the shape of W")
    need(beta.shape == b.shape, "beta must have the shape of b")
    need(U_trans.shape == trans.shape, "U_trans must have the shape of trans")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")


def _update(row: _Rows, start: int, gold: list[int], pred: list[int], step: float,
            W: list[list[float]], b: list[float] | None, trans: list[list[float]],
            trans2: list[list[list[float]]] | None) -> int:
    """Collins' update Phi(gold) - Phi(pred), scaled by step, where the two differ (see the
    contract); b None: no intercept; trans2 None: first order. Returns the number of tokens
    tagged wrongly."""
    K = len(trans[0])
    wrong = 0
    for t, (g, p) in enumerate(zip(gold, pred)):
        if g != p:
            wrong += 1
            x, cols = row(start + t)
            for q, v in enumerate(x):
                w = W[q if cols is None else cols[q]]
                w[g] += step * v
                w[p] += -step * v
            if b is not None:
                b[g] += step
                b[p] -= step
    for (gi, gj), (pi, pj) in zip(_pairs(gold, K), _pairs(pred, K)):
        if (gi, gj) != (pi, pj):
            trans[gi][gj] += step
            trans[pi][pj] -= step
    if trans2 is not None:
        for (gh, gi, gj), (ph, pi, pj) in zip(_triples(gold, K), _triples(pred, K)):
            if (gh, gi, gj) != (ph, pi, pj):
                trans2[gh][gi][gj] += step
                trans2[ph][pi][pj] -= step
    return wrong


def _pairs(tags: list[int], K: int) -> list[tuple[int, int]]:
    """The T + 1 transitions of a tag sequence as entries (row, column) of trans: (K, first
    tag), (tag t-1, tag t) for t = 1..T-1, then (K + 1, last tag)."""
    return [(K, tags[0])] + list(zip(tags[:-1], tags[1:])) + [(K + 1, tags[-1])]


def _triples(tags: list[int], K: int) -> list[tuple[int, int, int]]:
    """The T + 1 trigrams of a tag sequence as entries of trans2: (K, K, first tag),
    (K, tag 0, tag 1), (tag t-2, tag t-1, tag t) for t = 2..T-1, then (tag T-2, last tag, K)
    (K before the last tag when T = 1)."""
    padded = [K, K] + tags + [K]
    return [(padded[t], padded[t + 1], padded[t + 2]) for t in range(len(tags) + 1)]


def _epoch(row: _Rows, y: _I64, offsets: _I64, order: _I64, W: _D, b: _D, trans: _D,
           fit_intercept: bool, U: _D | None, beta: _D | None, U_trans: _D | None,
           count: _I64 | None, mistakes: _I64, allowed: _U8 | None,
           trans2: _D | None, U_trans2: _D | None) -> int:
    """[Collins2002], Fig. 1, one pass over the sentences in ``order``; with U, Daume's lazy
    averaging ([Daume2017] Alg. 7) with one tick of the counter per sentence."""
    ok = _check_allowed(allowed, W.shape[1])
    _check_gold(y.tolist(), offsets.tolist(), ok)
    Wl, bl, tl = W.tolist(), b.tolist(), _masked(trans.tolist(), ok)
    t2l = None if trans2 is None else trans2.tolist()
    averaged = U is not None
    if averaged:
        assert U is not None and beta is not None and U_trans is not None and count is not None
        Ul, betal, utl, c = U.tolist(), beta.tolist(), U_trans.tolist(), int(count[0])
        ut2l = None if U_trans2 is None else U_trans2.tolist()
    yl, p = y.tolist(), offsets.tolist()
    wrong_sentences = wrong_tokens = 0
    error = None
    for t, s in enumerate(order.tolist()):
        if p[s] < p[s + 1]:
            pred = _path(_emissions(row, p[s], p[s + 1], Wl, bl), tl, t2l, ok is not None)
            if pred is None:
                error = non_finite_sentence(s, t)
                break
            gold = yl[p[s]:p[s + 1]]
            if pred != gold:
                wrong_sentences += 1
                wrong_tokens += _update(row, p[s], gold, pred, 1.0, Wl,
                                        bl if fit_intercept else None, tl, t2l)
                if averaged:
                    _update(row, p[s], gold, pred, float(c), Ul,
                            betal if fit_intercept else None, utl, ut2l)
        if averaged:
            c += 1  # every sentence counts, mistake or not
    W[:] = Wl
    b[:] = bl
    if ok is None:
        trans[:] = tl
    else:  # the forbidden entries kept as they were (never updated)
        np.copyto(trans, tl, where=allowed.astype(bool))  # type: ignore[union-attr]
    if trans2 is not None:
        trans2[:] = t2l
    if averaged:
        assert U is not None and beta is not None and U_trans is not None and count is not None
        U[:] = Ul
        beta[:] = betal
        U_trans[:] = utl
        if U_trans2 is not None:
            U_trans2[:] = ut2l
        count[0] = c
    mistakes[0] += wrong_sentences
    mistakes[1] += wrong_tokens
    if error is not None:
        raise error
    return wrong_sentences


def structured_epoch_dense(X: _F, y: _I64, offsets: _I64, order: _I64, W: _D, b: _D,
                           trans: _D, fit_intercept: bool, U: _D | None, beta: _D | None,
                           U_trans: _D | None, count: _I64 | None, mistakes: _I64,
                           allowed: _U8 | None = None, trans2: _D | None = None,
                           U_trans2: _D | None = None) -> int:
    """One epoch of the structured perceptron ([Collins2002], Fig. 1) over the sentences in
    ``order`` (a permutation of sentence indices drawn by the caller); returns the number of
    sentences decoded with at least one wrong tag.

    Each sentence is decoded by Viterbi with the current weights; a wrong sequence updates
    W, b (with ``fit_intercept``) and trans as the module docstring says. With U (then beta,
    U_trans and count too; all None for the plain perceptron) the lazy averaging sums of
    [Daume2017] Alg. 7 follow. ``mistakes`` (int64, (2,)) gains the sentences and the tokens
    tagged wrongly, also when the epoch stops on a non-finite score. Decoding goes through
    the ``allowed`` transitions only (None: all; see the contract). With ``trans2`` the model
    is second order (its averaging sums in ``U_trans2`` when averaging).
    """
    _check_epoch(X.shape[0], X.shape[1], y, offsets, order, W, b, trans, U, beta, U_trans,
                 count, mistakes, trans2, U_trans2)
    return _epoch(dense_rows(X), y, offsets, order, W, b, trans, fit_intercept, U, beta,
                  U_trans, count, mistakes, allowed, trans2, U_trans2)


def structured_epoch_csr(data: _F, indices: _I32, indptr: _I64, y: _I64, offsets: _I64,
                         order: _I64, W: _D, b: _D, trans: _D, fit_intercept: bool,
                         U: _D | None, beta: _D | None, U_trans: _D | None,
                         count: _I64 | None, mistakes: _I64,
                         allowed: _U8 | None = None, trans2: _D | None = None,
                         U_trans2: _D | None = None) -> int:
    """`structured_epoch_dense` on CSR rows."""
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_epoch(indptr.shape[0] - 1, W.shape[0], y, offsets, order, W, b, trans, U, beta,
                 U_trans, count, mistakes, trans2, U_trans2)
    return _epoch(csr_rows(data, indices, indptr), y, offsets, order, W, b, trans,
                  fit_intercept, U, beta, U_trans, count, mistakes, allowed, trans2, U_trans2)
