"""Model shapes, synthetic batches and FLOP counts shared by all benchmarks.

Every peer (this project, the original code, keras-hub, Hugging Face) builds
the same architecture from `SHAPES[name]` and consumes the same batch from
`make_batch`, so sequences/s are comparable.

    >>> round(train_flops_per_sequence(SHAPES["minilm"], 128, 20) / 1e9, 1)
    10.0
"""

import importlib.util
import os

import numpy as np


def _load_flops():
  """`modeling/flops.py` (the one home of the FLOP counts), loaded by path:
  every peer imports this module, and importing the `modeling` package would
  start Keras 3 inside the original's legacy-Keras process."""
  path = os.path.join(os.path.dirname(os.path.dirname(
      os.path.abspath(__file__))), "modeling", "flops.py")
  spec = importlib.util.spec_from_file_location("_bert_flops", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


flops_lib = _load_flops()

SHAPES = {
    # all-MiniLM-L6-v2
    "minilm": dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6,
                   num_attention_heads=12, intermediate_size=1536),
    # BERT-Base (uncased_L-12_H-768_A-12)
    "base": dict(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                 num_attention_heads=12, intermediate_size=3072),
    # BERT-Large (uncased_L-24_H-1024_A-16)
    "large": dict(vocab_size=30522, hidden_size=1024, num_hidden_layers=24,
                  num_attention_heads=16, intermediate_size=4096),
    # A toy shape for the benchmarks' own tests.
    "tiny": dict(vocab_size=1100, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=2, intermediate_size=64),
}
COMMON = dict(max_position_embeddings=512, type_vocab_size=2,
              hidden_act="gelu", hidden_dropout_prob=0.1,
              attention_probs_dropout_prob=0.1, initializer_range=0.02)


def config_dict(name):
  """The full original-style bert_config dict for shape `name`."""
  d = dict(COMMON)
  d.update(SHAPES[name])
  return d


def make_batch(shape, batch_size, seq_length, num_masked, seed=0):
  """A synthetic pretraining batch (numpy int32/float32), all tokens real.

  Returns:
    dict with input_ids, input_mask, segment_ids [batch, seq];
    masked_lm_positions, masked_lm_ids [batch, num_masked] (positions sorted,
    distinct, never 0); masked_lm_weights float32 [batch, num_masked];
    next_sentence_labels [batch, 1]; label_ids [batch] (for fine-tuning).
  """
  rng = np.random.RandomState(seed)
  vocab = shape["vocab_size"]
  ids = rng.randint(1000, vocab, size=(batch_size, seq_length)).astype(np.int32)
  segment = np.zeros_like(ids)
  segment[:, seq_length // 2:] = 1
  positions = np.stack([
      np.sort(rng.choice(np.arange(1, seq_length), num_masked, replace=False))
      for _ in range(batch_size)]).astype(np.int32)
  return {
      "input_ids": ids,
      "input_mask": np.ones_like(ids),
      "segment_ids": segment,
      "masked_lm_positions": positions,
      "masked_lm_ids": rng.randint(1000, vocab, size=positions.shape
                                  ).astype(np.int32),
      "masked_lm_weights": np.ones(positions.shape, np.float32),
      "next_sentence_labels": rng.randint(0, 2, (batch_size, 1)
                                          ).astype(np.int32),
      "label_ids": rng.randint(0, 2, (batch_size,)).astype(np.int32),
  }


def encoder_flops_per_sequence(shape, seq_length):
  """Forward matmul FLOPs of the embeddings->encoder->pooler for one sequence
  (`modeling.flops`, the one home of these counts)."""
  return flops_lib.encoder_flops_per_sequence(shape, seq_length)


def forward_flops_per_sequence(shape, seq_length, num_masked=0, mode="infer"):
  """Forward FLOPs for one sequence in `mode` (infer, train, finetune).

  "train" adds the MLM head at `num_masked` positions (transform + output
  projection onto the vocabulary) and the NSP head; "finetune" a 2-class head.
  """
  if mode == "train":
    return flops_lib.train_flops_per_sequence(shape, seq_length,
                                              num_masked) // 3
  if mode == "finetune":
    return flops_lib.train_flops_per_sequence(shape, seq_length) // 3
  return encoder_flops_per_sequence(shape, seq_length)


def train_flops_per_sequence(shape, seq_length, num_masked):
  """Forward + backward (2x forward) FLOPs of one pretraining sequence."""
  return flops_lib.train_flops_per_sequence(shape, seq_length, num_masked)


def flops_per_sequence(shape, seq_length, num_masked, mode):
  fwd = forward_flops_per_sequence(shape, seq_length, num_masked, mode)
  return fwd if mode == "infer" else 3 * fwd
