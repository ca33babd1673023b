"""Matmul FLOPs of BERT's forward and training passes, from its config.

Dense matmuls only (2 FLOPs per multiply-add): the per-layer projections
(Q, K, V, attention output: 4 h^2 per token), the feed-forward pair
(2 h i), attention's scores and context (2 s h) and the pooler; layer
norm, softmax and GELU are left out (a few percent). Training is counted
as 3x the forward pass (the backward pass multiplies twice per forward
matmul). `config` is a `BertConfig` or a dict with the same keys.

Example (all-MiniLM-L6-v2's shape, 128 tokens, 20 masked positions):
  >>> minilm = dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6,
  ...               intermediate_size=1536)
  >>> round(train_flops_per_sequence(minilm, 128, num_masked=20) / 1e9, 1)
  10.0
  >>> round(encoder_flops_per_sequence(minilm, 128) / 1e9, 2)
  2.87
"""


def _get(config, name):
  return config[name] if isinstance(config, dict) else getattr(config, name)


def encoder_flops_per_sequence(config, seq_length):
  """Forward matmul FLOPs of embeddings -> encoder -> pooler, one sequence
  of `seq_length` tokens."""
  h = _get(config, "hidden_size")
  i = _get(config, "intermediate_size")
  per_token_layer = 8 * h * h + 4 * h * i + 4 * seq_length * h
  return (seq_length * _get(config, "num_hidden_layers") * per_token_layer +
          2 * h * h)


def masked_lm_flops(config, num_masked):
  """Forward FLOPs of the masked-LM head (transform + projection onto the
  vocabulary) at `num_masked` positions, plus next-sentence prediction."""
  h, v = _get(config, "hidden_size"), _get(config, "vocab_size")
  return num_masked * (2 * h * h + 2 * h * v) + 2 * h * 2


def train_flops_per_sequence(config, seq_length, num_masked=0):
  """Forward + backward FLOPs of one training sequence: pretraining with
  `num_masked` > 0 (masked LM + NSP), else fine-tuning (a small head)."""
  forward = encoder_flops_per_sequence(config, seq_length)
  if num_masked:
    forward += masked_lm_flops(config, num_masked)
  else:
    forward += 2 * _get(config, "hidden_size") * 2
  return 3 * forward
