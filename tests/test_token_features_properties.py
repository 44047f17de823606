"""The _features twins agree on any sentences of any Unicode text, and a long C extraction
stops on Ctrl-C."""
import sys

import numpy as np
import pytest
from conftest import HAVE_C, _module, ctrl_c_latency, examples

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_C, reason="compares the C twins with the Python ones")
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
# any code point, surrogates included; a few words that hit NLTK's normalization
TOKENS = st.one_of(st.text(max_size=12), st.sampled_from(["1990", "a-b", "-x", "7up", "ΣΑΣ"]))
SPECS = st.one_of(st.just((1, 0, 0, 0, 0, 0, 0, 0, 0)),
                  st.tuples(st.just(0), *[st.integers(0, 1)] * 3, st.integers(0, 4),
                            st.integers(0, 4), st.integers(0, 1), st.integers(0, 1),
                            st.integers(0, 3)))


@settings(max_examples=examples(200), **SETTINGS)
@given(sentences=st.lists(st.lists(TOKENS, max_size=6), max_size=5), spec=SPECS,
       n_features=st.sampled_from([0, 0, 5, 1 << 40]))
def test_twins_agree_on_any_text(sentences, spec, n_features):
    C, P = _module("c", "_features"), _module("python", "_features")
    for sentence in sentences:
        assert C.sentence_keys(sentence, spec) == P.sentence_keys(sentence, spec)
    vc, vp = (C.Vocabulary(), P.Vocabulary()) if not n_features else (None, None)
    for a, b in zip(C.extract_features(sentences, spec, vc, True, n_features),
                    P.extract_features(sentences, spec, vp, True, n_features)):
        assert np.array_equal(a, b)
    if not n_features:
        assert vc.keys() == vp.keys()
        assert np.array_equal(vc.counts(), vp.counts())


LONG_CALL = """
    from perceptron_c._core import _features_c
    sentence = ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "."]
    sentences = [sentence] * 3_000_000  # 30M tokens: tens of seconds
    delay = 0.3
    call = lambda: _features_c.extract_features(sentences, (1, 0, 0, 0, 0, 0, 0, 0, 0), None,
                                                False, 1 << 20)
"""

@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
def test_a_long_extraction_is_interrupted_mid_way():
    assert ctrl_c_latency(LONG_CALL, timeout=120) < 5.0
