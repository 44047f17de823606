"""The crf1d tagger's arithmetic, as CRFsuite 0.12 computes it (``lib/crf/src/crf1d_tag.c``,
``crf1d_context.c``), over numpy arrays; plus n-best paths and constrained decoding.

Arithmetic contract (so labels are CRFsuite's to the bit and probabilities agree to
rounding):
- state scores: ``state[t, l]`` starts at 0 and, for each attribute of item t in the item's
  order (attributes the model does not know are dropped) and each of its state features in
  the model's order, gets ``+= weight * value`` (``crf1dt_state_score``);
- Viterbi (``crf1dc_viterbi``): ``delta_0 = state[0]``; ``delta_t[j] = max_i (delta_{t-1}[i]
  + trans[i, j])``, then ``+ state[t, j]``; every max (each step's and the last) goes to
  the lowest index among equals (CRFsuite's strict ``<``); no start or end scores (crf1d in
  0.12 has no BOS/EOS features);
- forward-backward (``crf1dc_alpha_score``, ``crf1dc_beta_score``) on ``exp(state)`` and
  ``exp(trans)`` with a scale factor per position (1 / the sum of the forward row), the log
  partition ``-sum log scale``; the marginal of (t, l) is ``alpha[t, l] * beta[t, l] /
  scale[t]``, the probability of a path ``exp(score - log partition)``.

Constraints enter as ``-inf``: a state score of ``-inf`` forbids a label at a position, a
transition of ``-inf`` forbids a pair; every other number is unchanged, so with no
constraint the arithmetic above is untouched.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._model import CRFModel

__all__ = ["Tables", "state_scores", "viterbi", "nbest", "forward_backward", "path_score",
           "bio_allowed"]


@dataclass(frozen=True)
class Tables:
    """What tagging needs, built once when a model is opened: attribute name -> id, the
    state features grouped by attribute (CSR: ``attr_ptr``, ``attr_label``,
    ``attr_weight``), the transitions and their exponentials, label name -> id."""

    labels: tuple[str, ...]
    label_index: dict[str, int]
    attr_index: dict[str, int]
    attr_ptr: np.ndarray
    attr_label: np.ndarray
    attr_weight: np.ndarray
    trans: np.ndarray
    exp_trans: np.ndarray

    @classmethod
    def from_model(cls, model: CRFModel) -> Tables:
        A = len(model.attributes)
        order = np.argsort(model.state_attr, kind="stable")
        ptr = np.searchsorted(model.state_attr[order], np.arange(A + 1)).astype(np.int64)
        trans = np.ascontiguousarray(model.transitions, dtype=np.float64)
        for array in (ptr, trans):
            array.setflags(write=False)
        return cls(labels=tuple(model.labels),
                   label_index={s: i for i, s in enumerate(model.labels)},
                   attr_index={s: i for i, s in enumerate(model.attributes)},
                   attr_ptr=ptr, attr_label=model.state_label[order].astype(np.int64),
                   attr_weight=model.state_weight[order].astype(np.float64),
                   trans=trans, exp_trans=_exp(trans))


def _exp(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # exp of a large weight is inf, as in CRFsuite
        return np.exp(x)


def state_scores(tables: Tables, ids: np.ndarray, vals: np.ndarray,
                 lengths: np.ndarray) -> np.ndarray:
    """The (T, L) state scores of items whose known attributes are ``ids`` with values
    ``vals``, item t holding ``lengths[t]`` of them, in order."""
    T, L = lengths.shape[0], len(tables.labels)
    state = np.zeros((T, L), dtype=np.float64)
    if ids.shape[0] == 0:
        return state
    item = np.repeat(np.arange(T), lengths)
    start, stop = tables.attr_ptr[ids], tables.attr_ptr[ids + 1]
    counts = stop - start
    first = np.cumsum(counts) - counts
    pos = np.repeat(start - first, counts) + np.arange(int(counts.sum()))
    # np.add.at adds in index order: content by content, feature by feature, as CRFsuite
    with np.errstate(over="ignore", invalid="ignore"):
        np.add.at(state, (np.repeat(item, counts), tables.attr_label[pos]),
                  tables.attr_weight[pos] * np.repeat(vals, counts))
    return state


def viterbi(state: np.ndarray, trans: np.ndarray) -> tuple[list[int], float]:
    """The best path of ``state`` (T, L) under ``trans`` (L, L) and its score
    (``crf1dc_viterbi``)."""
    T = state.shape[0]
    cur = state[0].copy()
    back = np.zeros((T, state.shape[1]), dtype=np.int64)
    for t in range(1, T):
        # huge weights overflow to inf (and inf - inf is NaN), as in CRFsuite: no warning
        with np.errstate(over="ignore", invalid="ignore"):
            cand = cur[:, None] + trans
            back[t] = np.argmax(cand, axis=0)  # the first maximum: the lowest i
            cur = cand[back[t], np.arange(cand.shape[1])] + state[t]
    last = int(np.argmax(cur))
    path = [last]
    for t in range(T - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    path.reverse()
    return path, float(cur[last])


def nbest(state: np.ndarray, trans: np.ndarray, k: int) -> list[tuple[list[int], float]]:
    """The ``k`` best paths (fewer when fewer exist with a finite score), best first, each
    with its score: a k-best Viterbi keeping, at each (t, j), the k best (score, previous
    label, previous rank) in the order of `viterbi`'s comparisons, so the first path is
    `viterbi`'s, to the bit. Equal scores go to the lower (previous label, rank)."""
    T, L = state.shape
    score = np.full((L, k), -np.inf)
    score[:, 0] = state[0]
    backs = []
    for t in range(1, T):
        with np.errstate(over="ignore", invalid="ignore"):
            cand = (score[:, :, None] + trans[:, None, :]).reshape(L * k, L)
            top = np.argsort(-cand, axis=0, kind="stable")[:k]  # stable: ties to the lowest
            score = (np.take_along_axis(cand, top, axis=0) + state[t]).T.copy()
        backs.append(top.T)  # backs[t-1][j, r] = flat (previous label, rank)
    flat = score.reshape(-1)
    order = np.argsort(-flat, kind="stable")[:k]
    out = []
    for f in order.tolist():
        if not np.isfinite(flat[f]):
            break
        j, r = divmod(f, k)
        path = [j]
        for back in reversed(backs):
            j, r = divmod(int(back[j, r]), k)
            path.append(j)
        path.reverse()
        out.append((path, float(flat[f])))
    return out


def forward_backward(state: np.ndarray, exp_trans: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(alpha, beta, scale, log partition) with CRFsuite's scaling. Scores so large that
    their exponentials overflow give inf or NaN here, as in CRFsuite, without a warning."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _forward_backward(state, exp_trans)


def _forward_backward(state: np.ndarray, exp_trans: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    T, L = state.shape
    exp_state = _exp(state)
    alpha, beta = np.empty((T, L)), np.empty((T, L))
    scale = np.empty(T)
    cur = exp_state[0].copy()
    for t in range(T):
        if t:
            cur = (alpha[t - 1][:, None] * exp_trans).sum(axis=0) * exp_state[t]
        total = float(np.add.reduce(cur))
        scale[t] = 1.0 / total if total != 0.0 else 1.0
        alpha[t] = cur * scale[t]
    beta[T - 1] = scale[T - 1]
    for t in range(T - 2, -1, -1):
        row = beta[t + 1] * exp_state[t + 1]
        beta[t] = (exp_trans * row).sum(axis=1) * scale[t]
    return alpha, beta, scale, float(-np.log(scale).sum())


def path_score(state: np.ndarray, trans: np.ndarray, path: list[int]) -> float:
    """The score of ``path`` (``crf1dc_score``): state, then transition plus state."""
    score = float(state[0, path[0]])
    for t in range(1, len(path)):
        score += float(trans[path[t - 1], path[t]])
        score += float(state[t, path[t]])
    return score


def bio_allowed(labels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The BIO (IOB2) rule over ``labels``: (allowed L x L transitions, allowed first
    labels). ``I-X`` follows only ``B-X`` or ``I-X`` and never starts a sequence; labels of
    other forms are free."""
    L = len(labels)
    allowed, first = np.ones((L, L), dtype=bool), np.ones(L, dtype=bool)
    for j, name in enumerate(labels):
        if name.startswith("I-"):
            kind = name[2:]
            first[j] = False
            allowed[:, j] = [prev in (f"B-{kind}", f"I-{kind}") for prev in labels]
    return allowed, first
