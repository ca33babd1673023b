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


def write_run(directory, task, model, preprocessor, head, outputs=None,
              step=7):
  """Writes a training run's output_dir (a str path) as the driver leaves
  it: model.json of `task` with the sections preprocessor, model (`head`)
  and outputs, copies of a tiny pretrained directory's config and
  vocabulary, and `model`'s weights as its recorded checkpoint
  model.ckpt-`step`. Returns directory."""
  import os  # pylint: disable=g-import-not-at-top
  from bert_tf2.common import artifact  # pylint: disable=g-import-not-at-top
  os.makedirs(directory)
  pretrained = write(directory + "_init")
  checkpoint = os.path.join(directory, "model.ckpt-%d" % step)
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in modeling.original_variable_names(
          model).items()}, checkpoint)
  artifact.write(directory, task,
                 os.path.join(pretrained, "bert_config.json"),
                 os.path.join(pretrained, "vocab.txt"),
                 preprocessor=preprocessor, model=head, outputs=outputs)
  artifact.set_checkpoint(directory, checkpoint)
  return directory
