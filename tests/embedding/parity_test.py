"""encode() of all-MiniLM-L6-v2 equals sentence-transformers' vectors.

The reference (tests/embedding/data/minilm_reference.*) was written once by
tools/minilm_reference_embeddings.py in a separate venv with torch; this
test needs no torch.
"""

import json
import os

import numpy as np
from bert_tf2.embedding import pooling
from bert_tf2.embedding.encoder import SentenceEncoder

DATA = os.path.join(os.path.dirname(__file__), "data")


def _minilm_dir():
  from bert_tf2.scripts.quickstart import minilm_dir
  return minilm_dir()


def test_minilm_pooling_is_read_from_its_sentence_transformers_files():
  assert pooling.pooling_from_dir(_minilm_dir()) == ("mean", True)


def test_encode_matches_sentence_transformers_within_1e_5():
  with open(os.path.join(DATA, "minilm_reference.json"),
            encoding="utf-8") as f:
    meta = json.load(f)
  reference = np.load(os.path.join(DATA, "minilm_reference.npy"))
  encoder = SentenceEncoder.from_dir(_minilm_dir())
  assert encoder.max_seq_length == meta["max_seq_length"] == 256
  got = encoder.encode(meta["sentences"], batch_size=8)
  assert got.shape == reference.shape == (30, 384)
  np.testing.assert_allclose(got, reference, rtol=0, atol=1e-5)
  # Order and batching do not change a vector.
  np.testing.assert_allclose(encoder.encode(meta["sentences"][::-1][:3]),
                             reference[::-1][:3], rtol=0, atol=1e-5)
