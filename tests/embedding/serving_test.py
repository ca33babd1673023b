"""The embedding SavedModel equals encode() and meets the serving
contract."""

import numpy as np
import pytest
import tensorflow as tf

import modeling
import tokenization
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.common.serving import write_saved_model
from bert_tf2.embedding.serving import embedding_server
from bert_tf2.common.preprocessor import BertPreprocessor


def test_saved_model_equals_encode_and_serving_contract(tmp_path):
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b",
                              "c", "##s"]) + "\n")
  tf.keras.utils.set_random_seed(0)
  cfg = modeling.BertConfig(vocab_size=8, hidden_size=8, num_hidden_layers=1,
                            num_attention_heads=2, intermediate_size=16,
                            max_position_embeddings=16)
  encoder = SentenceEncoder(cfg, "mean", normalize=True)
  encoder.tokenizer = tokenization.FullTokenizer(str(vocab))
  encoder.max_seq_length = 6
  # Truncated, unknown, empty; 5 texts in chunks of 2.
  texts = ["a b", "c cs a a b b b b b b", "\u00e9", "", "B"]
  write_saved_model(embedding_server(
      encoder, BertPreprocessor(str(vocab), max_seq_length=6), chunk_size=2),
                    str(tmp_path / "m"))
  serve = tf.saved_model.load(str(tmp_path / "m")).signatures[
      "serving_default"]
  got = serve(text=tf.constant(texts))["embeddings"].numpy()
  np.testing.assert_allclose(got, encoder.encode(texts), rtol=1e-5,
                             atol=1e-6)
  assert serve(text=tf.constant([], tf.string))["embeddings"].shape == (0, 8)
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="text must be a vector \\(rank 1\\)"):
    serve(text=tf.constant([["a"]]))
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="text is not valid UTF-8"):
    serve(text=tf.constant(["a", b"\xc3"]))
