"""perceptron_c.dask.fit trains a StructuredPerceptron by iterative parameter mixing over
blocks of whole sentences: one block is the serial fit, two are the hand-made mix; predict
decodes each block by its own sentences."""
import numpy as np
import pytest

from perceptron_c import _backend
from perceptron_c._estimator._base import epoch_order
from perceptron_c.dask import _mixing
from perceptron_c.datasets import make_sequences
from perceptron_c.sequence import StructuredPerceptron

da = pytest.importorskip("dask.array")
pdask = pytest.importorskip("perceptron_c.dask")
SYNC = "synchronous"


def data(n_sent=300, seed=0):
    X, y, lengths = make_sequences(seed, n_sent, n_tags=5, n_symbols=100, window=1)
    return X.toarray(), y, lengths


def blocks(X, lengths, cuts):
    """X as a dask array cut after the sentences numbered in ``cuts``."""
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    rows = np.diff(offsets[[0, *cuts, len(lengths)]])
    return da.from_array(X, chunks=(tuple(int(r) for r in rows), X.shape[1]))


@pytest.mark.parametrize("average", [True, False])
def test_one_block_is_the_serial_fit(average):
    X, y, lengths = data()
    serial = StructuredPerceptron(average=average, max_iter=4).fit(X, y, lengths)
    mixed = pdask.fit(StructuredPerceptron(average=average, max_iter=4), blocks(X, lengths, []),
                      y, lengths=lengths, client=SYNC)
    for key in ("coef_", "intercept_", "coef_trans_", "coef_init_", "coef_final_"):
        assert np.array_equal(getattr(mixed, key), getattr(serial, key)), key
    assert mixed.n_iter_ == serial.n_iter_ and mixed.coef_.shape == (5, X.shape[1])


def test_second_order_mixes_its_trigram_scores():
    # one block: the serial fit; two: the trigrams mixed as the bigrams are (weights by
    # mu_s, the averaging sums scaled to the mixed clock), so the model is their mean
    X, y, lengths = data()
    serial = StructuredPerceptron(order=2, max_iter=3).fit(X, y, lengths)
    one = pdask.fit(StructuredPerceptron(order=2, max_iter=3), blocks(X, lengths, []), y,
                    lengths=lengths, client=SYNC)
    assert np.array_equal(one.coef_trans2_, serial.coef_trans2_)
    two = pdask.fit(StructuredPerceptron(order=2, max_iter=1, average=False),
                    blocks(X, lengths, [120]), y, lengths=lengths, client=SYNC)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    y_idx = np.searchsorted(serial.classes_, y).astype(np.int64)
    K, d, halves = 5, X.shape[1], []
    for s, (a, z) in enumerate(((0, 120), (120, len(lengths)))):  # each shard's epoch
        rows = slice(offsets[a], offsets[z])
        W, b, trans, trans2 = np.zeros((d, K)), np.zeros(K), np.zeros((K + 2, K)), \
            np.zeros((K + 1,) * 3)
        _backend.sequence.structured_epoch_dense(
            X[rows], y_idx[rows], offsets[a:z + 1] - offsets[a],
            epoch_order(_mixing.shard_seed(serial._seed, s), 0, z - a, True), W, b, trans,
            True, None, None, None, None, np.zeros(2, dtype=np.int64), None, trans2)
        halves.append(trans2)
    assert np.array_equal(two._state["trans2"], halves[0] * 0.5 + halves[1] * 0.5)
    assert (two.predict(X, lengths) == y).mean() > 0.5


def test_allowed_transitions_train_on_the_workers_as_serially():
    X, y, lengths = data()
    tags = np.array(["O", "B-X", "I-X", "B-Y", "I-Y"])[y]
    serial = StructuredPerceptron(transitions="bio", max_iter=3)
    try:
        serial.fit(X, tags, lengths)
    except ValueError:  # the generated tags break BIO: make them follow it
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        for a, z in zip(offsets[:-1], offsets[1:]):
            for t in range(a, z):
                if tags[t].startswith("I-") and (t == a or tags[t - 1][2:] != tags[t][2:]):
                    tags[t] = "B-" + tags[t][2:]
        serial.fit(X, tags, lengths)
    mixed = pdask.fit(StructuredPerceptron(transitions="bio", max_iter=3),
                      blocks(X, lengths, []), tags, lengths=lengths, client=SYNC)
    assert np.array_equal(mixed.coef_trans_, serial.coef_trans_)
    two = pdask.fit(StructuredPerceptron(transitions="bio", max_iter=3),
                    blocks(X, lengths, [150]), tags, lengths=lengths, client=SYNC)
    predicted = two.predict(X, lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    assert not any(predicted[a].startswith("I-") for a in starts)


def _shard_epoch(X, y, offsets, order, st):
    st = {k: v.copy() for k, v in st.items()}
    _backend.sequence.structured_epoch_dense(
        X, y, offsets, order, st["W"], st["b"], st["trans"], True, st["U"], st["beta"],
        st["U_trans"], st["count"], np.zeros(2, dtype=np.int64))
    return st


def test_two_blocks_are_the_hand_made_mix():
    X, y, lengths = data()
    serial = StructuredPerceptron(max_iter=1).fit(X, y, lengths)  # (its seed and classes)
    K, d, cut = 5, X.shape[1], 120
    zero = {"W": np.zeros((d, K)), "b": np.zeros(K), "trans": np.zeros((K + 2, K)),
            "U": np.zeros((d, K)), "beta": np.zeros(K), "U_trans": np.zeros((K + 2, K)),
            "count": np.ones(1, dtype=np.int64)}
    y_idx = np.searchsorted(serial.classes_, y).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    outs = []
    for s, (a, z) in enumerate(((0, cut), (cut, len(lengths)))):
        rows = slice(offsets[a], offsets[z])
        order = epoch_order(_mixing.shard_seed(serial._seed, s), 0, z - a, True)
        outs.append(_shard_epoch(X[rows], y_idx[rows], offsets[a:z + 1] - offsets[a], order,
                                 zero))
    clock = 1 + np.rint(sum(0.5 * (o["count"] - 1).astype(np.float64) for o in outs))
    clock = clock.astype(np.int64)
    mix = {}
    for key in ("W", "b", "trans", "U", "beta", "U_trans"):
        terms = [o[key] * (float((0.5 * (clock / o["count"]))[0]) if key[0] in "Uu" or
                           key == "beta" else 0.5) for o in outs]
        mix[key] = terms[0] + terms[1]
    c = float(clock[0])
    mixed = pdask.fit(StructuredPerceptron(max_iter=1), blocks(X, lengths, [cut]), y,
                      lengths=lengths, client=SYNC)
    assert np.array_equal(mixed.coef_, (mix["W"] - mix["U"] / c).T)
    assert np.array_equal(mixed.intercept_, mix["b"] - mix["beta"] / c)
    assert np.array_equal(mixed.coef_trans_, (mix["trans"] - mix["U_trans"] / c)[:K])
    assert mixed._state["count"].tolist() == clock.tolist()


def test_threads_are_the_synchronous_fit():
    X, y, lengths = data()
    fits = [pdask.fit(StructuredPerceptron(max_iter=3), blocks(X, lengths, [100, 200]), y,
                      lengths=da.from_array(lengths, chunks=50), client=client)
            for client in (SYNC, "threads")]
    assert np.array_equal(fits[0].coef_, fits[1].coef_)
    assert np.array_equal(fits[0].coef_trans_, fits[1].coef_trans_)


def test_blocks_that_cut_a_sentence_are_refused():
    X, y, lengths = data(20)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    bad = da.from_array(X, chunks=(int(offsets[7]) + 1, X.shape[1]))
    with pytest.raises(ValueError, match="cuts sentence 7 .*rechunk"):
        pdask.fit(StructuredPerceptron(), bad, y, lengths=lengths, client=SYNC)
    good = blocks(X, lengths, [7])
    with pytest.raises(ValueError, match=r"lengths is required: perceptron_c\.dask\.fit .*"
                                         r"fit\(model, X, y, lengths=lengths\)"):
        pdask.fit(StructuredPerceptron(), good, y, client=SYNC)
    with pytest.raises(ValueError, match="lengths must sum"):
        pdask.fit(StructuredPerceptron(), good, y, lengths=lengths[1:], client=SYNC)
    with pytest.raises(ValueError, match="sample_weight"):
        pdask.fit(StructuredPerceptron(), good, y, lengths=lengths,
                  sample_weight=np.ones(len(y)), client=SYNC)
    with pytest.raises(ValueError, match="lengths: Perceptron trains on rows"):
        from perceptron_c import Perceptron
        pdask.fit(Perceptron(), good, y, lengths=lengths, client=SYNC)


def test_accuracy_is_the_serial_one():
    X, y, lengths = make_sequences(1, 3000, n_tags=8, n_symbols=300, window=1)
    X = X.toarray()
    n_train = 2400
    rows = int(np.sum(lengths[:n_train]))
    train, test = (X[:rows], y[:rows], lengths[:n_train]), (X[rows:], y[rows:],
                                                            lengths[n_train:])
    serial = StructuredPerceptron(max_iter=10).fit(*train)
    mixed = pdask.fit(StructuredPerceptron(max_iter=10),
                      blocks(train[0], train[2], [n_train // 2]), train[1],
                      lengths=train[2], client=SYNC)
    assert abs(mixed.score(*test) - serial.score(*test)) <= 0.003


def test_predict_decodes_each_block_by_its_sentences():
    """dask.predict decoded each block as one sentence (14 of 1,513 tokens differed here;
    50 of 6,075 in the issue), silently: it takes lengths now, and requires them."""
    X, y, lengths = data(300)
    model = StructuredPerceptron(max_iter=3).fit(X, y, lengths)
    serial = model.predict(X, lengths)
    for cuts in ([], [100], [1, 150, 299], [0, 300]):  # (0, 300: blocks of no rows)
        Xd = blocks(X, lengths, cuts)
        got = pdask.predict(model, Xd, lengths=lengths)
        assert [c for c in got.chunks[0] if c] == [c for c in Xd.chunks[0] if c]
        assert got.dtype == serial.dtype
        assert np.array_equal(got.compute(scheduler=SYNC), serial)
    Xd = blocks(X, lengths, [100])
    lazy = pdask.predict(model, Xd, lengths=da.from_array(lengths, chunks=70))
    assert np.array_equal(lazy.compute(scheduler=SYNC), serial)
    with pytest.raises(ValueError, match=r"lengths is required: perceptron_c\.dask\.predict .*"
                                         r"predict\(model, X, lengths=lengths\)"):
        pdask.predict(model, Xd)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    with pytest.raises(ValueError, match="cuts sentence 7 .*rechunk"):
        pdask.predict(model, da.from_array(X, chunks=(int(offsets[7]) + 1, X.shape[1])),
                      lengths=lengths)
    with pytest.raises(ValueError, match="lengths must sum"):
        pdask.predict(model, Xd, lengths=lengths[1:])
    from perceptron_c import Perceptron

    rows = Perceptron(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="lengths: Perceptron predicts rows"):
        pdask.predict(rows, Xd, lengths=lengths)
