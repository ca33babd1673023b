"""A tiny original-format checkpoint directory for the raw-string tests:
bert_config.json, vocab.txt and bert_model.ckpt* of a random BertModel."""

import numpy as np

import modeling

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "angela", "merkel",
         "visited", "paris", "bob", "met", "ann", "in", "the", "a", "cat",
         "dog", "sat", "ran", "on", "mat", "##s", ".", ",", "江", "泽", "民",
         "在", "北", "京", "。"]


def config(vocab=VOCAB):
  return modeling.BertConfig(
      vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
      num_attention_heads=2, intermediate_size=24,
      max_position_embeddings=128)


def weights(cfg, seed=0):
  """{original name: array}: a BertModel's variables, the random ones drawn
  from `seed` (truncated normal, stddev initializer_range), the constant
  ones (LayerNorm, biases) as initialised: the same model on every run, so
  that no test's outcome depends on the draw (issue 38)."""
  rng = np.random.RandomState(seed)
  r = cfg.initializer_range
  out = {}
  for name, var in modeling.original_variable_names(
      modeling.BertModel(cfg)).items():
    value = var.numpy()
    if value.size and np.any(value != value.flat[0]):
      value = np.clip(rng.normal(0.0, r, value.shape), -2 * r,
                      2 * r).astype(value.dtype)
    out[name] = value
  return out


def write(directory, vocab=VOCAB, seed=0):
  """Writes the directory (a str path) and returns it; the weights are
  `weights(config(vocab), seed)`."""
  cfg = config(vocab)
  modeling.write_checkpoint(weights(cfg, seed),
                            directory + "/bert_model.ckpt")
  cfg.to_json_file(directory + "/bert_config.json")
  with open(directory + "/vocab.txt", "w", encoding="utf-8") as f:
    f.write("\n".join(vocab) + "\n")
  return directory
